//! One warp's weak scalar `ld`/`st` handed to the detector at once: the instruction's kind is
//! looked up and global shadow memory locked once per warp instead of once per lane. Lanes are
//! checked in lane order, exactly as [`CtaRace::access`] would check them one by one.

use std::sync::MutexGuard;

use smallvec::SmallVec;

use super::super::op::{Kind, RaceOp, Sem};
use super::super::shadow::{Acc, Shadow};
use super::cells::{add_clean_read, add_read, add_write, check, Found};
use super::{Access, CtaRace};

impl CtaRace {
    /// Lanes `mask` of warp `warp`, executing `pc`, each access `size` bytes at `addrs[lane]`
    /// (global addresses, or shared-memory offsets when `in_shared`). The same verdicts as
    /// calling [`Self::access`] for each lane in lane order; strong accesses (which observe
    /// and carry releases) go lane by lane through it.
    pub fn access_warp(
        &mut self,
        warp: usize,
        pc: u32,
        (in_shared, size): (bool, u32),
        addrs: &[u64; 32],
        mask: u32,
        a: Access,
    ) {
        let Some(&RaceOp::Mem { kind, sem, scope }) = self.sh.ops.get(pc as usize) else {
            return;
        };
        if kind == Kind::ReadNc || size == 0 || mask == 0 {
            return;
        }
        let lanes = (0..32).filter(|l| mask & (1 << l) != 0);
        // Strong accesses observe and carry releases; in a kernel with fence.sc every access
        // also passes on fence reach (`sc_order`): lane by lane.
        if sem != Sem::Weak || a != Access::Read && a != Access::Write || self.sh.sc_order {
            for l in lanes {
                self.access(warp * 32 + l, pc, in_shared, addrs[l], size, a);
            }
            return;
        }
        let writes = a == Access::Write;
        let gen = (self.full_gen, self.gtid(0), self.sh.cta_threads);
        let (first_gtid, full_gen) = (self.gtid(0), self.full_gen);
        let CtaRace {
            sh, threads, smem, ..
        } = self;
        let sh: &super::RaceShared = sh;
        let mut guard: Option<MutexGuard<'_, Shadow>> = None;
        let shadow: &mut Shadow = if in_shared {
            smem
        } else {
            match sh.global.lock() {
                Ok(g) => guard.insert(g),
                Err(_) => return,
            }
        };
        // (lane's thread, earlier access, this access), in lane order.
        let mut found: SmallVec<[(usize, Found, Acc); 2]> = SmallVec::new();
        let mut lane_found: SmallVec<[Found; 2]> = SmallVec::new();
        for l in lanes {
            let t = warp * 32 + l;
            let Some(th) = threads.get_mut(t) else {
                break;
            };
            let me = first_gtid + t as u32;
            let addr = addrs[l];
            let acc = Acc {
                gtid: me,
                clk: th.own,
                pc,
                addr,
                size: size.min(255) as u8,
                shared: in_shared,
                write: writes,
                gen: full_gen,
                lanes: 0,
                step: 0,
                fp: 0,
            };
            let (first_word, last_word) = (addr >> 2, (addr + u64::from(size) - 1) >> 2);
            let again = !writes && th.last_read.is(pc, addr, in_shared);
            // A read of one word that cannot race is kept from its cell alone; any other
            // access is checked and kept word by word.
            let clean = !writes && first_word == last_word && {
                let cell = shadow.cell(first_word);
                let room = cell.earlier.capacity();
                let kept = add_clean_read(gen, &acc, cell, again);
                let grew = cell.earlier.capacity().saturating_sub(room);
                shadow.earlier_grew(grew);
                kept
            };
            if !clean {
                for w in first_word..=last_word {
                    let cell = shadow.cell(w);
                    check(
                        sh,
                        gen,
                        (th, me),
                        &acc,
                        (sem, scope),
                        (cell, w),
                        &mut lane_found,
                    );
                    let room = cell.earlier.capacity();
                    if writes {
                        add_write(sh, gen, th, &acc, cell, None);
                    } else {
                        add_read(gen, th, &acc, cell, again);
                    }
                    let grew = cell.earlier.capacity().saturating_sub(room);
                    shadow.earlier_grew(grew);
                }
            }
            if !writes {
                th.last_read = super::LastRead {
                    pc,
                    addr,
                    shared: in_shared,
                    clean_at: None,
                };
            }
            if !lane_found.is_empty() {
                found.extend(lane_found.drain(..).map(|p| (t, p, acc)));
            }
        }
        drop(guard);
        for (t, p, acc) in found {
            self.record(t, p, acc);
        }
    }
}
