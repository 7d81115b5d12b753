//! A cooperative thread array: its warps, its shared memory and its barriers, and the loop
//! that runs a warp's instructions.
//!
//! Warps of a CTA run one at a time, each until it blocks (at a barrier or a collective),
//! exits, or uses up its share of the step budget; the CTA then moves to the next warp, so
//! warps that spin on shared flags still make progress. A barrier completes when the
//! expected number of threads has arrived: the count operand if given, else every thread of
//! the CTA that has not exited (PTX ISA "bar, barrier").

use super::ctx::{Ctx, LaneIds};
use super::fault::{Fault, FaultKind, FaultSite, LaneFault};
use super::frames;
use super::hooks::observers::Observers;
use super::launch::{CtaOutput, LaunchInfo, Request};
use super::memory::Bytes;
use super::program::{DInstr, Flow, GUARD_NEG, NO_GUARD};
use super::reserve::{Budget, ReserveError};
use super::warp::Warp;
use super::Env;

mod barrier;
pub(crate) mod pair_check;
pub(crate) mod peers;

use barrier::{lane_list, BarrierState};

use crate::cluster::peers::ClusterPeers;

/// Counters of executed instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Warp instructions executed (one per issue, whatever the number of lanes).
    pub warp_instructions: u64,
    /// Thread instructions executed (one per enabled lane per issue).
    pub thread_instructions: u64,
}

/// Why a warp stopped running.
#[derive(Debug)]
enum WarpEvent {
    /// Its share of the budget is used up.
    Quantum,
    /// No lane can run.
    Blocked,
    /// Every lane exited.
    Done,
    /// Lanes arrived at a barrier.
    Arrived,
}

/// What the straight-line loop hands back to the warp runner.
enum Action {
    Quantum,
    Reschedule,
    Control {
        flow: Flow,
        pc: u32,
        mask: u32,
        request: Request,
    },
    Fault {
        fault: LaneFault,
        pc: u32,
    },
}

/// Whether a CTA finished or must be resumed later.
#[derive(Debug, PartialEq, Eq)]
pub enum CtaStatus {
    /// Every thread exited.
    Done,
    /// The CTA used up its quantum; resume it later.
    Paused,
    /// No warp can run until the cluster barrier completes (other CTAs of the cluster must
    /// arrive first).
    Blocked,
}

/// A CTA being executed.
pub struct Cta {
    /// Its index in the grid.
    pub ctaid: [u32; 3],
    /// Its linear index.
    pub linear: u64,
    warps: Vec<Warp>,
    shared: Bytes,
    barriers: Vec<BarrierState>,
    /// Bit `id` set: barrier `id` has arrivals (the only barriers `check_barriers` looks at).
    with_arrivals: u32,
    launch: LaunchInfo,
    /// Text printed by this CTA.
    pub out: CtaOutput,
    /// Instructions executed.
    pub counts: Counts,
    next_warp: usize,
    /// Tensor Memory, made by the CTA's first tcgen05 instruction.
    tmem: Option<Box<crate::tcgen05::memory::TensorMemory>>,
    /// Pending `cp.async` copies and mbarrier objects.
    asyncs: crate::async_copy::state::AsyncState,
    /// The warps' `wgmma` groups in flight.
    wgmma: crate::wgmma::state::WgmmaState,

    /// The race detector's state of this CTA, with `--race`.
    race: Option<Box<crate::race::CtaRace>>,
    /// Lanes waiting at `barrier.cluster.wait`: (warp, lanes).
    cluster_waiters: Vec<(usize, u32)>,
    /// The run's budget, which holds this CTA's shared and local memory until it is dropped.
    budget: std::sync::Arc<Budget>,
}

/// The most finished CTAs' warps a host thread keeps for its next CTAs (a cluster's CTAs
/// finish together: up to 16 of them).
const SPARE_CTAS: usize = 16;

impl Drop for Cta {
    fn drop(&mut self) {
        let local: u64 = self.warps.iter().map(Warp::local_bytes).sum();
        self.budget.give_back(local + self.shared.data.len() as u64);
    }
}

impl Cta {
    /// Creates the CTA `ctaid` of a launch: its warps at the kernel's entry and zeroed shared
    /// memory (static plus dynamic), their memory taken from the run's budget (and given back
    /// when the CTA is dropped).
    ///
    /// # Errors
    /// The CTA's shared or local memory is past the run's limit or refused by the host.
    pub fn new(
        env: &Env<'_>,
        ctaid: [u32; 3],
        linear: u64,
        spare: &mut Vec<Vec<Warp>>,
    ) -> Result<Cta, ReserveError> {
        let budget = env.global.budget();
        let prog = env.prog;
        let block = env.block;
        let nthreads = block[0] * block[1] * block[2];
        let nwarps = nthreads.div_ceil(32);
        let f = &prog.funcs[env.kernel as usize];
        let entry = match f.kind {
            super::program::DFuncKind::Code { entry, .. } => entry,
            super::program::DFuncKind::Builtin(_) | super::program::DFuncKind::Undefined => 0,
        };
        let frame_base = prog.module_local_size.div_ceil(16) * 16;
        // A finished CTA's warps, reset in place where they can be (see `Warp::reset`); they
        // hold no local memory, so the budget's sum over `warps` stays right.
        let mut warps = spare.pop().unwrap_or_default();
        warps.truncate(nwarps as usize);
        warps.reserve(nwarps as usize - warps.len());
        for w in 0..nwarps {
            // A finished CTA's warp `w` has this CTA's thread indices already.
            let valid = match nthreads - w * 32 {
                n @ 0..32 => (1u32 << n) - 1,
                _ => u32::MAX,
            };
            if let Some(old) = warps.get_mut(w as usize) {
                let places = (env.kernel, entry);
                if old.reset(prog, (w, valid), places, (frame_base, f.frame.size)) {
                    continue;
                }
            }
            let mut tid = [[0u32; 32]; 3];
            // The warp's first thread index, then stepped lane by lane (x fastest).
            let t0 = w * 32;
            let mut at = [
                t0 % block[0],
                (t0 / block[0]) % block[1],
                t0 / (block[0] * block[1]),
            ];
            for l in 0..(nthreads - t0).min(32) as usize {
                for (dim, v) in tid.iter_mut().zip(at) {
                    dim[l] = v;
                }
                at[0] += 1;
                if at[0] == block[0] {
                    at[0] = 0;
                    at[1] += 1;
                    if at[1] == block[1] {
                        at[1] = 0;
                        at[2] += 1;
                    }
                }
            }
            let ids = LaneIds {
                tid,
                warp: w,
                frame_base: [frame_base; 32],
            };
            let warp = Warp::new(
                prog,
                valid,
                ids,
                env.kernel,
                entry,
                frame_base,
                f.frame.size,
                budget,
            );
            match warp {
                Ok(new) => match warps.get_mut(w as usize) {
                    Some(slot) => *slot = new,
                    None => warps.push(new),
                },
                Err(mut e) => {
                    budget.give_back(warps.iter().map(Warp::local_bytes).sum());
                    e.what = format!("{} of CTA ({},{},{})", e.what, ctaid[0], ctaid[1], ctaid[2]);
                    return Err(e);
                }
            }
        }
        let shared = Bytes::reserved(budget, env.shared_bytes, || {
            format!(
                "the shared memory of CTA ({},{},{})",
                ctaid[0], ctaid[1], ctaid[2]
            )
        });
        let shared = match shared {
            Ok(s) => s,
            Err(e) => {
                budget.give_back(warps.iter().map(Warp::local_bytes).sum());
                return Err(e);
            }
        };
        let mut launch = env.launch_template.clone();
        launch.ctaid = ctaid;
        launch.nwarpid = nwarps;
        launch.cluster = crate::cluster::shape::ClusterIds::of(
            ctaid,
            launch.nctaid,
            launch.cluster.dims,
            launch.cluster.explicit,
        );
        Ok(Cta {
            budget: budget.clone(),
            ctaid,
            linear,
            warps,
            shared,
            barriers: vec![BarrierState::default(); 16],
            with_arrivals: 0,
            launch,
            out: CtaOutput::default(),
            counts: Counts::default(),
            next_warp: 0,
            tmem: None,
            asyncs: crate::async_copy::state::AsyncState::new(env.proxy),
            wgmma: crate::wgmma::state::WgmmaState::new(env.wgmma_strict),
            race: env
                .race
                .map(|r| Box::new(crate::race::CtaRace::new(r, linear))),
            cluster_waiters: Vec::new(),
        })
    }

    /// Hands the CTA's warps to `spare`, for the next CTA [`Cta::new`] makes on this host
    /// thread (only warps without local memory are kept: they hold nothing of the budget).
    pub fn give_warps(&mut self, spare: &mut Vec<Vec<Warp>>) {
        let keep = self.warps.iter().all(|w| w.local_bytes() == 0);
        if keep && spare.len() < SPARE_CTAS {
            spare.push(std::mem::take(&mut self.warps));
        }
    }

    /// Runs the CTA until it finishes or has executed about `quantum` warp instructions.
    ///
    /// # Errors
    /// A fault of the emulated program, with its site.
    pub fn run(
        &mut self,
        env: &Env<'_>,
        quantum: u64,
        peers: &mut dyn ClusterPeers,
    ) -> Result<CtaStatus, Box<Fault>> {
        let mut budget = quantum;
        loop {
            let mut progress = false;
            let n = self.warps.len();
            let start = match &mut self.race {
                Some(r) => r.first_warp(n, self.next_warp),
                None => self.next_warp,
            };
            for k in 0..n {
                let wi = (start + k) % n;
                if self.warps[wi].runnable() == 0 {
                    continue;
                }
                progress = true;
                let share = match &mut self.race {
                    Some(r) => budget.min(r.warp_share(quantum / 4 + 1024)),
                    None => budget.min(quantum / 4 + 1024),
                };
                let mut left = share;
                let ev = self.run_warp(wi, env, &mut left, peers)?;
                budget -= share - left;
                match ev {
                    WarpEvent::Arrived | WarpEvent::Done => {
                        self.check_barriers(env)?;
                    }
                    WarpEvent::Quantum | WarpEvent::Blocked => {}
                }
                if budget == 0 {
                    self.next_warp = (wi + 1) % n;
                    return Ok(CtaStatus::Paused);
                }
            }
            if self.warps.iter().all(Warp::done) {
                self.check_tmem_freed(env)?;
                return Ok(CtaStatus::Done);
            }
            if !progress && !self.check_barriers(env)? {
                if !self.cluster_waiters.is_empty() {
                    return Ok(CtaStatus::Blocked);
                }
                return Err(self.deadlock(env));
            }
        }
    }

    /// Checked Tensor Memory must be deallocated before the CTA exits; the fault names the
    /// alloc instruction of the first allocation still held.
    fn check_tmem_freed(&self, env: &Env<'_>) -> Result<(), Box<Fault>> {
        let Some(t) = self.tmem.as_deref() else {
            return Ok(());
        };
        match t.allocations().first() {
            Some(a) if t.checked() => {
                let wi = (a.warp as usize).min(self.warps.len().saturating_sub(1));
                Err(Box::new(Fault {
                    kind: crate::tcgen05::exec::alloc::leak(a),
                    site: self.site(env, wi, a.pc, None),
                }))
            }
            Some(_) | None => Ok(()),
        }
    }

    fn site(&self, env: &Env<'_>, wi: usize, pc: u32, lane: Option<u32>) -> FaultSite {
        let prog = env.prog;
        let (line, instr, source) = prog
            .info
            .get(pc as usize)
            .map(|i| (i.span.line, i.text.clone(), i.source.as_deref().cloned()))
            .unwrap_or_default();
        let w = &self.warps[wi];
        FaultSite {
            kernel: env.kernel_name.to_string(),
            cta: self.ctaid,
            warp: wi as u32,
            lane,
            tid: lane.map(|l| {
                let l = l as usize;
                [w.ids.tid[0][l], w.ids.tid[1][l], w.ids.tid[2][l]]
            }),
            file: prog.file_name.clone(),
            line,
            instr,
            source,
            address: None,
        }
    }

    fn lane_fault(&self, env: &Env<'_>, wi: usize, pc: u32, f: LaneFault) -> Box<Fault> {
        let mut site = self.site(env, wi, pc, f.lane);
        site.address = f.address;
        Box::new(Fault { kind: f.kind, site })
    }

    /// Runs warp `wi` until it stops; returns why.
    fn run_warp(
        &mut self,
        wi: usize,
        env: &Env<'_>,
        budget: &mut u64,
        peers: &mut dyn ClusterPeers,
    ) -> Result<WarpEvent, Box<Fault>> {
        let prog = env.prog;
        if !self.warps[wi].reschedule(prog) {
            return Ok(self.stopped(wi));
        }
        loop {
            if *budget == 0 {
                self.warps[wi].park_group();
                return Ok(WarpEvent::Quantum);
            }
            let action = self.straight_line(wi, env, budget, peers);
            match action {
                Action::Quantum => {
                    self.warps[wi].park_group();
                    return Ok(WarpEvent::Quantum);
                }
                Action::Reschedule => {}
                Action::Fault { fault, pc } => return Err(self.lane_fault(env, wi, pc, fault)),
                Action::Control {
                    flow,
                    pc,
                    mask,
                    request,
                } => {
                    if let Some(ev) = self.control(wi, env, flow, pc, mask, request)? {
                        return Ok(ev);
                    }
                }
            }
            if !self.warps[wi].reschedule(prog) {
                return Ok(self.stopped(wi));
            }
        }
    }

    fn stopped(&self, wi: usize) -> WarpEvent {
        if self.warps[wi].done() {
            WarpEvent::Done
        } else {
            WarpEvent::Blocked
        }
    }

    /// Executes the running group's straight-line code until something needs the scheduler.
    fn straight_line(
        &mut self,
        wi: usize,
        env: &Env<'_>,
        budget: &mut u64,
        peers: &mut dyn ClusterPeers,
    ) -> Action {
        let prog = env.prog;
        let warp = &mut self.warps[wi];
        let g = warp.group;
        let bi = warp.block_index(prog, g.depth, g.func);
        let (valid, live) = (warp.valid, warp.valid & !warp.exited);
        let Warp {
            blocks,
            ids,
            local,
            clock,
            group,
            pc: lane_pc,
            ..
        } = warp;
        let block = &mut blocks[g.depth as usize][bi];
        // The warp's clock and the CTA's instruction count advance together below, so their
        // difference turns the one into the other at no cost per instruction.
        let cta_step_offset = self.counts.warp_instructions.wrapping_sub(*clock);
        let mut ctx = Ctx {
            mask: 0,
            vals: &mut block.vals,
            preds: &mut block.preds,
            ids,
            local,
            shared: &mut self.shared,
            global: env.global,
            params: env.params,
            consts: env.consts,
            launch: &self.launch,
            prog,
            pc: 0,
            clock: *clock,
            cta_step_offset,
            out: &mut self.out,
            heap: env.heap,
            request: Request::None,
            group_mask: g.mask,
            valid,
            live,
            tmem: &mut self.tmem,
            tmem_opts: env.tmem,
            asyncs: &mut self.asyncs,
            wgmma: &mut self.wgmma,
            obs: Observers::new(self.race.as_deref_mut(), env.nc, env.l1),
            cluster: peers,
        };
        let code: &[DInstr] = &prog.code;
        let mut counts = self.counts;
        let action = loop {
            if *budget == 0 {
                break Action::Quantum;
            }
            let pc = group.pc;
            if pc >= group.stop {
                break Action::Reschedule;
            }
            let Some(ins) = code.get(pc as usize) else {
                break Action::Fault {
                    fault: LaneFault::new(FaultKind::Undefined {
                        detail: "execution ran past the end of a function".into(),
                    }),
                    pc: pc.saturating_sub(1),
                };
            };
            // Every issue counts, with all the group's lanes (as a profiler's
            // thread_inst_executed does), whether or not the guard enables them.
            *budget -= 1;
            counts.warp_instructions += 1;
            counts.thread_instructions += u64::from(group.mask.count_ones());
            ctx.clock += 1;
            let mut mask = group.mask;
            if ins.guard != NO_GUARD {
                let p = ctx.preds[(ins.guard & !GUARD_NEG) as usize];
                mask &= if ins.guard & GUARD_NEG != 0 { !p } else { p };
            }
            if mask == 0 {
                group.pc += 1;
                continue;
            }
            ctx.mask = mask;
            ctx.pc = pc;
            if let Err(fault) = ctx.before_instruction(ins) {
                break Action::Fault { fault, pc };
            }
            match (ins.exec)(&mut ctx, ins) {
                Ok(Flow::Next) => group.pc += 1,
                Ok(Flow::Yield) => {
                    group.pc += 1;
                    break Action::Quantum;
                }
                Ok(Flow::Branch(t)) => {
                    if mask == group.mask {
                        group.pc = t;
                        if t >= group.stop {
                            break Action::Reschedule;
                        }
                    } else {
                        let mut m = group.mask;
                        while m != 0 {
                            let l = m.trailing_zeros() as usize;
                            lane_pc[l] = if mask & (1 << l) != 0 { t } else { pc + 1 };
                            m &= m - 1;
                        }
                        group.mask = 0;
                        break Action::Reschedule;
                    }
                }
                Ok(flow) => {
                    break Action::Control {
                        flow,
                        pc,
                        mask,
                        request: std::mem::replace(&mut ctx.request, Request::None),
                    }
                }
                Err(fault) => break Action::Fault { fault, pc },
            }
        };
        *clock = ctx.clock;
        self.counts = counts;
        action
    }

    /// Applies a control-flow event; returns a warp event when the warp must stop.
    fn control(
        &mut self,
        wi: usize,
        env: &Env<'_>,
        flow: Flow,
        pc: u32,
        mask: u32,
        request: Request,
    ) -> Result<Option<WarpEvent>, Box<Fault>> {
        let prog = env.prog;
        let warp = &mut self.warps[wi];
        let g = warp.group;
        // Lanes of the group that did not execute (guard false) move on; the others are
        // parked at the instruction until the event is applied.
        let mut rest = g.mask & !mask;
        while rest != 0 {
            let l = rest.trailing_zeros() as usize;
            warp.pc[l] = pc + 1;
            rest &= rest - 1;
        }
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            warp.pc[l] = pc;
            m &= m - 1;
        }
        warp.group.mask = 0;
        match flow {
            Flow::Exit => {
                warp.exited |= mask;
                self.after_exit(wi, env)
            }
            Flow::Call => {
                let r = frames::call(warp, prog, env, pc, mask, &mut self.out);
                r.map_err(|f| self.lane_fault(env, wi, pc, f))?;
                Ok(None)
            }
            Flow::Ret => {
                let r = frames::ret(warp, prog, pc, mask);
                let exited = r.map_err(|f| self.lane_fault(env, wi, pc, f))?;
                if exited != 0 {
                    self.warps[wi].exited |= exited;
                    return self.after_exit(wi, env);
                }
                Ok(None)
            }
            Flow::WaitCollective => {
                warp.parked |= mask;
                self.check_collectives(env, wi)?;
                Ok(None)
            }
            Flow::Barrier => {
                if let Request::ClusterWait(pending) = request {
                    self.cluster_park(wi, pc, mask, pending);
                    return Ok(Some(WarpEvent::Blocked));
                }
                let Request::Barrier(req) = request else {
                    let f = LaneFault::new(FaultKind::Unsupported {
                        what: "a barrier instruction that made no barrier request".into(),
                    });
                    return Err(self.lane_fault(env, wi, pc, f));
                };
                self.arrive(wi, env, pc, mask, req)?;
                Ok(Some(WarpEvent::Arrived))
            }
            Flow::Next | Flow::Branch(_) | Flow::Yield => Ok(None),
        }
    }

    /// After lanes exit: a barrier others wait at may now be complete.
    fn after_exit(&mut self, wi: usize, env: &Env<'_>) -> Result<Option<WarpEvent>, Box<Fault>> {
        self.check_collectives(env, wi)?;
        self.check_barriers(env)?;
        if self.warps[wi].done() {
            Ok(Some(WarpEvent::Done))
        } else {
            Ok(None)
        }
    }

    /// Lanes of warp `wi` that wait at a warp collective wait forever once no lane of the warp
    /// runs or waits at a barrier (the others exited or wait at another collective): the warp
    /// diverged. Checked whenever lanes park at a collective or exit.
    fn check_collectives(&self, env: &Env<'_>, wi: usize) -> Result<(), Box<Fault>> {
        let w = &self.warps[wi];
        if w.parked == 0 || w.runnable() != 0 || w.at_barrier != 0 {
            return Ok(());
        }
        let pc = w.pc[w.parked.trailing_zeros() as usize];
        let waiting = (0..32)
            .filter(|&l| w.parked & (1 << l) != 0 && w.pc[l] == pc)
            .fold(0u32, |m, l| m | (1 << l));
        let elsewhere = w.parked & !waiting;
        let exited = w.exited & w.valid;
        let mut detail = format!(
            "the warp diverged: lanes {} wait at a warp collective that lanes {} never reach",
            lane_list(waiting),
            lane_list(elsewhere | exited)
        );
        if exited != 0 {
            detail.push_str(&format!(" (lanes {} exited)", lane_list(exited)));
        }
        if elsewhere != 0 {
            let line = env
                .prog
                .info
                .get(w.pc[elsewhere.trailing_zeros() as usize] as usize);
            detail.push_str(&format!(
                " (lanes {} wait at line {})",
                lane_list(elsewhere),
                line.map_or(0, |i| i.span.line)
            ));
        }
        let f = LaneFault::new(FaultKind::DivergentCollective { detail });
        Err(self.lane_fault(env, wi, pc, f))
    }
}
