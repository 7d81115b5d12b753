//! What an instruction sees while it executes for the enabled lanes of a warp.
//!
//! [`Ctx`] gives an instruction everything it may touch: the current activation's registers
//! (32 lanes per value slot, one lane mask per predicate slot), the lanes' identities, local,
//! shared, global, parameter and constant memory. The helpers here fetch a source operand for
//! all 32 lanes at once and write results back with the destination register's width rules,
//! so each instruction family is a small lane loop over pure semantics functions.

use super::fault::{FaultKind, LaneFault};
use super::hooks::observers::Observers;
use super::launch::heap::Heap;
use super::launch::{CtaOutput, LaunchInfo, Request};
use super::memory::{Bytes, GlobalMemory};
use super::program::{Dst, Program, Src};
use crate::ir::{Dim, SpecialReg};

/// All 32 lanes.
pub const FULL: u32 = u32::MAX;

/// Per-lane identity of the warp being executed.
#[derive(Clone, Debug)]
pub struct LaneIds {
    /// `%tid.x/y/z` of each lane.
    pub tid: [[u32; 32]; 3],
    /// The warp's index in its CTA.
    pub warp: u32,
    /// Each lane's current frame base in its local memory.
    pub frame_base: [u64; 32],
}

/// What an instruction may touch while it executes.
pub struct Ctx<'a> {
    /// The lanes that execute (group mask ∧ guard).
    pub mask: u32,
    /// The value slots of the current activation: `vals[slot * 32 + lane]`.
    pub vals: &'a mut [u64],
    /// The predicate slots of the current activation, one lane mask each.
    pub preds: &'a mut [u32],
    /// The lanes' identities.
    pub ids: &'a LaneIds,
    /// Each lane's local memory.
    pub local: &'a mut [Bytes],
    /// The CTA's shared memory.
    pub shared: &'a mut Bytes,
    /// Global memory.
    pub global: &'a GlobalMemory,
    /// The kernel's parameter buffer.
    pub params: &'a Bytes,
    /// The constant bank.
    pub consts: &'a Bytes,
    /// Launch-wide values.
    pub launch: &'a LaunchInfo,
    /// The program.
    pub prog: &'a Program,
    /// The executing pc.
    pub pc: u32,
    /// A counter standing for `%clock` (warp instructions executed by this warp).
    pub clock: u64,
    /// `clock` plus this is the number of warp instructions the CTA has issued: a position in
    /// the CTA's (deterministic) schedule.
    pub cta_step_offset: u64,
    /// The CTA's output.
    pub out: &'a mut CtaOutput,
    /// The device heap (`malloc`/`free`).
    pub heap: &'a Heap,
    /// A request a control instruction makes of the CTA (set by barriers).
    pub request: Request,
    /// The lanes of the running group (before the guard).
    pub group_mask: u32,
    /// The warp's lanes that exist (the last warp of a CTA may be partial).
    pub valid: u32,
    /// The warp's lanes that exist and have not exited.
    pub live: u32,
    /// The CTA's Tensor Memory, made by its first tcgen05 instruction.
    pub tmem: &'a mut Option<Box<crate::tcgen05::memory::TensorMemory>>,
    /// How Tensor Memory is checked and traced.
    pub tmem_opts: crate::tcgen05::memory::TmemOptions,
    /// The CTA's pending `cp.async` copies and mbarrier objects.
    pub asyncs: &'a mut crate::async_copy::state::AsyncState,
    /// The warps' `wgmma` groups in flight.
    pub wgmma: &'a mut crate::wgmma::state::WgmmaState,
    /// The checkers that observe the CTA; only the hooks ([`crate::exec::hooks`]) reach them.
    pub(crate) obs: Observers<'a>,
    /// The other CTAs of the cluster, and the cluster barrier.
    pub cluster: &'a mut dyn crate::cluster::peers::ClusterPeers,
}

impl Ctx<'_> {
    /// The value of a shared variable's address (`Src::SharedSym`): its offset in a CTA of
    /// rank 0, else the CTA's own `.shared::cluster` address of it.
    #[inline]
    pub fn shared_sym(&self, off: u64) -> u64 {
        match self.launch.cluster.rank {
            0 => off,
            r => crate::cluster::dsmem::encode(r, off),
        }
    }

    /// `addr`, a shared-window offset, as an offset in the executing CTA's shared memory when
    /// it is one of the CTA's own `.shared::cluster` addresses ([`Ctx::shared_sym`]); other
    /// addresses (a peer's, or out of range) unchanged.
    #[inline]
    pub fn own_shared(&self, addr: u64) -> u64 {
        let rank = self.launch.cluster.rank;
        if rank == 0 || addr < crate::cluster::dsmem::CLUSTER_WINDOW {
            return addr;
        }
        match crate::cluster::dsmem::decode(addr) {
            Some((r, o)) if r == rank => o,
            _ => addr,
        }
    }

    /// The CTA's linear index in the grid (which SM it runs on, for the L1 model).
    pub fn cta_linear(&self) -> u64 {
        let (c, n) = (self.launch.ctaid, self.launch.nctaid);
        u64::from(c[0]) + u64::from(n[0]) * (u64::from(c[1]) + u64::from(n[1]) * u64::from(c[2]))
    }
}

impl Ctx<'_> {
    /// Reads a source operand for all 32 lanes.
    #[inline(always)]
    pub fn fetch(&self, s: &Src) -> [u64; 32] {
        match *s {
            Src::Reg(slot) => {
                let base = slot as usize * 32;
                let mut out = [0u64; 32];
                out.copy_from_slice(&self.vals[base..base + 32]);
                out
            }
            Src::Imm(v) => [v; 32],
            Src::Pred { slot, neg } => {
                let m = self.preds[slot as usize] ^ if neg { FULL } else { 0 };
                std::array::from_fn(|l| u64::from((m >> l) & 1))
            }
            Src::Special(r) => self.special_lanes(r),
            Src::Frame(off) => std::array::from_fn(|l| self.ids.frame_base[l] + off),
            Src::SharedSym(off) => [self.shared_sym(off); 32],
            Src::None => [0; 32],
        }
    }

    /// The value of a special register for every lane: per lane for the registers that
    /// differ between lanes, once for the others ([`SpecialReg::differs_by_lane`]).
    fn special_lanes(&self, r: SpecialReg) -> [u64; 32] {
        match r {
            SpecialReg::Tid(d) => {
                let tid = &self.ids.tid[d.index()];
                std::array::from_fn(|l| u64::from(tid[l]))
            }
            _ if r.differs_by_lane() => std::array::from_fn(|l| self.special(r, l)),
            _ => [self.special(r, 0); 32],
        }
    }

    /// Reads a source operand for one lane.
    #[inline(always)]
    pub fn fetch_lane(&self, s: &Src, lane: usize) -> u64 {
        match *s {
            Src::Reg(slot) => self.vals[slot as usize * 32 + lane],
            Src::Imm(v) => v,
            Src::Pred { slot, neg } => {
                u64::from(((self.preds[slot as usize] >> lane) & 1) ^ u32::from(neg))
            }
            Src::Special(r) => self.special(r, lane),
            Src::Frame(off) => self.ids.frame_base[lane] + off,
            Src::SharedSym(off) => self.shared_sym(off),
            Src::None => 0,
        }
    }

    /// Reads a predicate source as a lane mask.
    #[inline(always)]
    pub fn fetch_mask(&self, s: &Src) -> u32 {
        match *s {
            Src::Pred { slot, neg } => self.preds[slot as usize] ^ if neg { FULL } else { 0 },
            Src::Imm(v) => {
                if v != 0 {
                    FULL
                } else {
                    0
                }
            }
            Src::Reg(_) | Src::Special(_) | Src::Frame(_) | Src::SharedSym(_) | Src::None => {
                let v = self.fetch(s);
                let mut m = 0;
                for (l, x) in v.iter().enumerate() {
                    if *x != 0 {
                        m |= 1 << l;
                    }
                }
                m
            }
        }
    }

    /// Writes `vals[lane]` for every executing lane into a destination, applying the
    /// register's width (mask, or sign extension of a narrower signed result).
    #[inline(always)]
    pub fn write(&mut self, d: &Dst, vals: &[u64; 32]) {
        let mask = self.mask;
        match *d {
            Dst::Reg {
                slot,
                bits,
                sext_from,
            } => {
                let base = slot as usize * 32;
                let out = &mut self.vals[base..base + 32];
                let fix = |v: u64| fit(v, bits, sext_from);
                if mask == FULL {
                    for l in 0..32 {
                        out[l] = fix(vals[l]);
                    }
                } else {
                    let mut m = mask;
                    while m != 0 {
                        let l = m.trailing_zeros() as usize;
                        out[l] = fix(vals[l]);
                        m &= m - 1;
                    }
                }
            }
            Dst::Pred(slot) => {
                let mut bitsv = 0u32;
                for (l, v) in vals.iter().enumerate() {
                    if *v & 1 != 0 {
                        bitsv |= 1 << l;
                    }
                }
                let p = &mut self.preds[slot as usize];
                *p = (*p & !mask) | (bitsv & mask);
            }
            Dst::Sink => {}
        }
    }

    /// Writes one lane of a destination.
    #[inline(always)]
    pub fn write_lane(&mut self, d: &Dst, lane: usize, v: u64) {
        match *d {
            Dst::Reg {
                slot,
                bits,
                sext_from,
            } => self.vals[slot as usize * 32 + lane] = fit(v, bits, sext_from),
            Dst::Pred(slot) => {
                let p = &mut self.preds[slot as usize];
                if v & 1 != 0 {
                    *p |= 1 << lane;
                } else {
                    *p &= !(1 << lane);
                }
            }
            Dst::Sink => {}
        }
    }

    /// Writes a lane mask into a predicate destination for the executing lanes.
    #[inline(always)]
    pub fn write_mask(&mut self, d: &Dst, m: u32) {
        if let Dst::Pred(slot) = *d {
            let p = &mut self.preds[slot as usize];
            *p = (*p & !self.mask) | (m & self.mask);
        } else {
            let v: [u64; 32] = std::array::from_fn(|l| u64::from((m >> l) & 1));
            self.write(d, &v);
        }
    }

    /// The value of a special register for a lane.
    pub fn special(&self, r: SpecialReg, lane: usize) -> u64 {
        let l = self.launch;
        let dim = |d: Dim| d.index();
        let lane32 = lane as u32;
        let v: u64 = match r {
            SpecialReg::Tid(d) => u64::from(self.ids.tid[dim(d)][lane]),
            SpecialReg::Ntid(d) => u64::from(l.ntid[dim(d)]),
            SpecialReg::Ctaid(d) => u64::from(l.ctaid[dim(d)]),
            SpecialReg::Nctaid(d) => u64::from(l.nctaid[dim(d)]),
            SpecialReg::Laneid => u64::from(lane32),
            SpecialReg::Warpid => u64::from(self.ids.warp),
            SpecialReg::Nwarpid => u64::from(l.nwarpid),
            SpecialReg::Smid => self.cta_linear() % u64::from(l.nsmid.max(1)),
            SpecialReg::Nsmid => u64::from(l.nsmid.max(1)),
            SpecialReg::Gridid => 1,
            SpecialReg::LanemaskEq => 1u64 << lane,
            SpecialReg::LanemaskLe => (2u64 << lane) - 1,
            SpecialReg::LanemaskLt => (1u64 << lane) - 1,
            SpecialReg::LanemaskGe => u64::from(FULL << lane32),
            SpecialReg::LanemaskGt => u64::from(FULL.checked_shl(lane32 + 1).unwrap_or(0)),
            SpecialReg::Clock => self.clock & 0xffff_ffff,
            SpecialReg::ClockHi => self.clock >> 32,
            SpecialReg::Clock64 => self.clock,
            SpecialReg::Globaltimer => self.clock * 1000,
            SpecialReg::GlobaltimerLo => (self.clock * 1000) & 0xffff_ffff,
            SpecialReg::GlobaltimerHi => (self.clock * 1000) >> 32,
            SpecialReg::Envreg(n) => u64::from(l.envreg[usize::from(n)]),
            SpecialReg::DynamicSmemSize => u64::from(l.dynamic_smem),
            SpecialReg::TotalSmemSize => u64::from(l.total_smem),
            SpecialReg::AggrSmemSize => {
                u64::from(l.total_smem) + crate::exec::launch::shared_layout::RESERVED_BYTES
            }
            SpecialReg::Clusterid(d) => u64::from(l.cluster.clusterid[dim(d)]),
            SpecialReg::Nclusterid(d) => u64::from(l.cluster.nclusterid[dim(d)]),
            SpecialReg::ClusterCtaid(d) => u64::from(l.cluster.ctaid[dim(d)]),
            SpecialReg::ClusterNctaid(d) => u64::from(l.cluster.dims[dim(d)]),
            SpecialReg::ClusterCtarank => u64::from(l.cluster.rank),
            SpecialReg::ClusterNctarank => u64::from(l.cluster.size),
            SpecialReg::IsExplicitCluster => u64::from(l.cluster.explicit),
            SpecialReg::Pm(_) | SpecialReg::Pm64(_) => 0,
            SpecialReg::ReservedSmemOffset(r) => u64::from(l.reserved.value(r)),
            SpecialReg::CurrentGraphExec => 0,
            SpecialReg::WarpSz => 32,
        };
        v
    }

    /// A lane fault of the given kind at a lane.
    pub fn fault(&self, kind: FaultKind, lane: usize) -> LaneFault {
        LaneFault::new(kind).at_lane(lane as u32)
    }
}

/// Fits a result into a register of `bits` width: masks it, or sign-extends a narrower
/// signed result of `sext_from` bits first.
#[inline(always)]
pub fn fit(v: u64, bits: u8, sext_from: u8) -> u64 {
    let v = if sext_from != 0 && sext_from < 64 {
        let sh = 64 - u32::from(sext_from);
        (((v << sh) as i64) >> sh) as u64
    } else {
        v
    };
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Runs `f` for every lane of `mask`, fast when all lanes are enabled.
#[inline(always)]
pub fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == FULL {
        for l in 0..32 {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            f(l);
            m &= m - 1;
        }
    }
}

/// Applies a unary lane function: `d = f(a)`.
#[inline(always)]
pub fn unary(c: &mut Ctx<'_>, i: &super::program::DInstr, f: impl Fn(u64) -> u64) {
    let a = c.fetch(&i.s[0]);
    let mut out = [0u64; 32];
    for_lanes(c.mask, |l| out[l] = f(a[l]));
    c.write(&i.d[0], &out);
}

/// Applies a binary lane function: `d = f(a, b)`.
#[inline(always)]
pub fn binary(c: &mut Ctx<'_>, i: &super::program::DInstr, f: impl Fn(u64, u64) -> u64) {
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let mut out = [0u64; 32];
    for_lanes(c.mask, |l| out[l] = f(a[l], b[l]));
    c.write(&i.d[0], &out);
}

/// Applies a ternary lane function: `d = f(a, b, c)`.
#[inline(always)]
pub fn ternary(c: &mut Ctx<'_>, i: &super::program::DInstr, f: impl Fn(u64, u64, u64) -> u64) {
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let cc = c.fetch(&i.s[2]);
    let mut out = [0u64; 32];
    for_lanes(c.mask, |l| out[l] = f(a[l], b[l], cc[l]));
    c.write(&i.d[0], &out);
}

/// Applies a four-input lane function: `d = f(a, b, c, e)`.
#[inline(always)]
pub fn quaternary(
    c: &mut Ctx<'_>,
    i: &super::program::DInstr,
    f: impl Fn(u64, u64, u64, u64) -> u64,
) {
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let cc = c.fetch(&i.s[2]);
    let e = c.fetch(&i.s[3]);
    let mut out = [0u64; 32];
    for_lanes(c.mask, |l| out[l] = f(a[l], b[l], cc[l], e[l]));
    c.write(&i.d[0], &out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_masks_and_extends() {
        assert_eq!(fit(0x1_ffff_ffff, 32, 0), 0xffff_ffff);
        assert_eq!(fit(0xffff_ffff, 64, 32), u64::MAX);
        assert_eq!(fit(0x7fff_ffff, 64, 32), 0x7fff_ffff);
        assert_eq!(fit(0x80, 16, 8), 0xff80);
        assert_eq!(fit(5, 1, 0), 1);
    }

    #[test]
    fn for_lanes_visits_only_enabled_lanes() {
        let mut seen = vec![];
        for_lanes(0b1010_0001, |l| seen.push(l));
        assert_eq!(seen, vec![0, 5, 7]);
        let mut n = 0;
        for_lanes(FULL, |_| n += 1);
        assert_eq!(n, 32);
    }
}
