//! The CTA's named barriers (`bar`, `barrier`, `bar.red`): arrivals, completion when the
//! expected count is reached, the reductions of `bar.red`, and the deadlock report when no
//! warp of the CTA can move.

use super::Cta;
use crate::exec::fault::{Fault, FaultKind, LaneFault};
use crate::exec::hooks::sync;
use crate::exec::launch::BarrierRequest;
use crate::exec::program::Dst;
use crate::exec::{frames, Env};
use crate::ir::BarRedOp;

/// One waiting participant of a barrier.
#[derive(Clone, Debug)]
pub(super) struct Waiter {
    pub(super) warp: usize,
    pub(super) lanes: u32,
    pub(super) pc: u32,
    pub(super) aligned: bool,
    pub(super) red_dst: Option<(u32, u32, Dst)>,
}

/// The state of one of the 16 named barriers.
#[derive(Clone, Debug, Default)]
pub(super) struct BarrierState {
    pub(super) arrived: u32,
    pub(super) expected: Option<u32>,
    pub(super) waiters: Vec<Waiter>,
    pub(super) red: Option<BarRedOp>,
    pub(super) popc: u32,
    pub(super) all: bool,
    pub(super) any: bool,
    pub(super) pc: u32,
}

impl Cta {
    /// Records the arrival of `mask` lanes of warp `wi` at a barrier.
    pub(super) fn arrive(
        &mut self,
        wi: usize,
        env: &Env<'_>,
        pc: u32,
        mask: u32,
        req: BarrierRequest,
    ) -> Result<(), Box<Fault>> {
        let id = req.id as usize;
        if id >= self.barriers.len() {
            let f = LaneFault::new(FaultKind::Undefined {
                detail: format!("barrier number {} is out of range 0..15", req.id),
            });
            return Err(self.lane_fault(env, wi, pc, f));
        }
        let warp = &mut self.warps[wi];
        let b = &mut self.barriers[id];
        if b.arrived == 0 {
            b.expected = req.count;
            b.red = req.red;
            b.popc = 0;
            b.all = true;
            b.any = false;
            b.pc = pc;
        } else if b.red.is_some() != req.red.is_some() {
            let f = LaneFault::new(FaultKind::Undefined {
                detail: format!(
                    "bar.red and bar.sync/bar.arrive used on the same active barrier {id}"
                ),
            });
            return Err(self.lane_fault(env, wi, pc, f));
        }
        // An .aligned barrier must be executed by a warp's lanes at one and the same
        // instruction; lanes reaching the barrier through another instruction diverged.
        if let Some(w) = b
            .waiters
            .iter()
            .find(|w| w.warp == wi && w.pc != pc && (w.aligned || req.aligned))
        {
            let (other_pc, other_lanes) = (w.pc, w.lanes);
            let line = |p: u32| env.prog.info.get(p as usize).map_or(0, |i| i.span.line);
            let detail = format!(
                "lanes {} of warp {wi} wait at barrier {id} from line {} while lanes {} arrive from line {}; an .aligned barrier must be reached by the whole warp at the same instruction",
                lane_list(other_lanes),
                line(other_pc),
                lane_list(mask),
                line(pc)
            );
            let f = LaneFault::new(FaultKind::DivergentCollective { detail });
            return Err(self.lane_fault(env, wi, pc, f));
        }
        sync::barrier_arrived(self.race.as_deref_mut(), &mut self.tmem, id, wi, mask);
        b.arrived += mask.count_ones();
        self.with_arrivals |= 1 << id;
        b.popc += (req.pred & mask).count_ones();
        b.all &= req.pred & mask == mask;
        b.any |= req.pred & mask != 0;
        if req.arrive_only {
            let mut m = mask;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                warp.pc[l] = pc + 1;
                m &= m - 1;
            }
        } else {
            warp.at_barrier |= mask;
            let g = (warp.depth[mask.trailing_zeros() as usize], warp.group.func);
            let func = env.prog.func_of_pc[pc as usize];
            b.waiters.push(Waiter {
                warp: wi,
                lanes: mask,
                pc,
                aligned: req.aligned,
                red_dst: req.dst.map(|d| (g.0, func, d)),
            });
        }
        Ok(())
    }

    /// Threads of the CTA that have not exited.
    pub(crate) fn live_threads(&self) -> u32 {
        self.warps
            .iter()
            .map(|w| (w.valid & !w.exited).count_ones())
            .sum()
    }

    /// Releases every barrier whose expected arrivals are complete; returns whether any was.
    pub(super) fn check_barriers(&mut self, env: &Env<'_>) -> Result<bool, Box<Fault>> {
        // Counted once, and only when some barrier has arrivals (a CTA's warps finishing
        // one by one call this with none).
        let mut live = None;
        let mut released = false;
        let mut pending = self.with_arrivals;
        while pending != 0 {
            let id = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            let b = &self.barriers[id];
            if b.arrived == 0 {
                continue;
            }
            let expected = match b.expected {
                Some(n) => n,
                None => *live.get_or_insert_with(|| self.live_threads()),
            };
            if b.arrived < expected {
                continue;
            }
            let b = std::mem::take(&mut self.barriers[id]);
            self.with_arrivals &= !(1 << id);
            let waiters = b.waiters.iter().map(|w| (w.warp, w.lanes));
            sync::barrier_released(self.race.as_deref_mut(), &mut self.tmem, id, waiters);
            let result = match b.red {
                Some(BarRedOp::Popc) => u64::from(b.popc),
                Some(BarRedOp::And) => u64::from(b.all),
                Some(BarRedOp::Or) => u64::from(b.any),
                None => 0,
            };
            for w in b.waiters {
                let warp = &mut self.warps[w.warp];
                warp.at_barrier &= !w.lanes;
                let mut m = w.lanes;
                while m != 0 {
                    let l = m.trailing_zeros() as usize;
                    warp.pc[l] += 1;
                    m &= m - 1;
                }
                if let Some((depth, func, dst)) = w.red_dst {
                    let bi = warp.block_index(env.prog, depth, func);
                    let block = &mut warp.blocks[depth as usize][bi];
                    frames::write_lanes(block, &dst, w.lanes, result);
                }
            }
            released = true;
        }
        Ok(released)
    }

    /// Describes a deadlock: which barriers are waited at, by which warps, and who exited.
    pub(super) fn deadlock(&self, env: &Env<'_>) -> Box<Fault> {
        let live = self.live_threads();
        let mut parts = Vec::new();
        let mut first: Option<(usize, u32, u32)> = None;
        for (id, b) in self.barriers.iter().enumerate() {
            if b.arrived == 0 {
                continue;
            }
            let warps: Vec<String> = b.waiters.iter().map(|w| w.warp.to_string()).collect();
            parts.push(format!(
                "barrier {id}: {} of {} expected threads arrived; waiting warps [{}]",
                b.arrived,
                b.expected.unwrap_or(live),
                warps.join(",")
            ));
            if first.is_none() {
                if let Some(w) = b.waiters.first() {
                    first = Some((w.warp, b.pc, w.lanes));
                }
            }
        }
        let exited: Vec<String> = self
            .warps
            .iter()
            .enumerate()
            .filter(|(_, w)| w.done())
            .map(|(i, _)| i.to_string())
            .collect();
        let parked: Vec<String> = self
            .warps
            .iter()
            .enumerate()
            .filter(|(_, w)| w.parked != 0)
            .map(|(i, w)| format!("warp {i} lanes {}", lane_list(w.parked)))
            .collect();
        let mut detail = parts.join("; ");
        if !parked.is_empty() {
            detail.push_str(&format!(
                "; waiting at warp collectives: {}",
                parked.join(", ")
            ));
        }
        detail.push_str(&format!("; exited warps [{}]", exited.join(",")));
        let (wi, pc) = first.map(|(w, pc, _)| (w, pc)).unwrap_or((0, 0));
        Box::new(Fault {
            kind: FaultKind::BarrierDeadlock { detail },
            site: self.site(env, wi, pc, None),
        })
    }
}

pub(super) fn lane_list(mask: u32) -> String {
    let mut v = Vec::new();
    let mut m = mask;
    while m != 0 {
        v.push(m.trailing_zeros().to_string());
        m &= m - 1;
    }
    v.join(",")
}
