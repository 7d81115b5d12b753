//! The synchronisation hooks: fences, `bar.warp.sync`, the CTA barriers, the cluster barrier
//! and the mbarrier phases (arrivals, completions, and the waits that observe them).
//!
//! Subscribers: the race detector (every event), the L1 model (a fence invalidates the SM's
//! lines), the proxy checker (a wait that observes an mbarrier phase observes the async-proxy
//! writes completing on it) and the visibility checks of Tensor Memory (mbarrier arrivals and
//! observed phases, CTA barrier arrivals and releases, which order `tcgen05` operations with
//! other threads' accesses).

use super::events::MbarrierEvent;
use crate::async_copy::state::AsyncState;
use crate::exec::ctx::{for_lanes, Ctx};
use crate::race::cta::MbarEvent;
use crate::race::CtaRace;
use crate::tcgen05::memory::TensorMemory;

/// The race detector's name of an mbarrier event.
fn race_event(e: &MbarrierEvent) -> MbarEvent {
    match *e {
        MbarrierEvent::Reset(off) => MbarEvent::Reset(off),
        MbarrierEvent::Arrive(t, off) => MbarEvent::Arrive(t, off),
        MbarrierEvent::CopiesArrive(t, off, n) => MbarEvent::CopiesArrive(t, off, n),
        MbarrierEvent::Touch(t, off, write) => MbarEvent::Touch(t, off, write),
        MbarrierEvent::PhaseDone(off, phase) => MbarEvent::PhaseDone(off, phase),
        MbarrierEvent::Waited(t, off, phase) => MbarEvent::Waited(t, off, phase),
    }
}

impl Ctx<'_> {
    /// After a `fence` or `membar` of the executing lanes.
    pub fn after_fence(&mut self) {
        if let Some(l1) = self.obs.l1 {
            l1.invalidate(self.cta_linear());
        }
        let (mask, warp, pc) = (self.mask, self.ids.warp as usize, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            for_lanes(mask, |l| r.fence(warp * 32 + l, pc));
        }
    }

    /// After `bar.warp.sync` completed for the warp's lanes `lanes`.
    pub fn after_warp_sync(&mut self, lanes: u32) {
        let warp = self.ids.warp as usize;
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.warp_sync(warp, lanes);
        }
    }

    /// After the lanes `lanes` arrived at the cluster barrier (`barrier.cluster.arrive`).
    pub fn after_cluster_arrive(&mut self, lanes: u32) {
        let (warp, pc) = (self.ids.warp as usize, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            for_lanes(lanes, |l| r.cluster_arrive(warp * 32 + l, pc));
        }
    }

    /// After the lanes `lanes` saw their cluster barrier phase complete
    /// (`barrier.cluster.wait`).
    pub fn after_cluster_wait(&mut self, lanes: u32) {
        let warp = self.ids.warp as usize;
        if let Some(r) = self.obs.race.as_deref_mut() {
            for_lanes(lanes, |l| r.cluster_waited(warp * 32 + l));
        }
    }

    /// Whether an observer wants the [`MbarrierEvent`]s of mbarrier instructions.
    #[inline]
    pub fn observes_mbarriers(&self) -> bool {
        self.obs.race.is_some()
    }

    /// After an mbarrier instruction: what each of its lanes did, in order.
    pub fn after_mbarrier(&mut self, events: &[MbarrierEvent]) {
        let pc = self.pc;
        if let Some(r) = self.obs.race.as_deref_mut() {
            let ev: Vec<MbarEvent> = events.iter().map(race_event).collect();
            r.mbarrier_events(pc, &ev);
        }
    }

    /// Phase `phase` of the mbarrier at shared offset `off` completed through an
    /// asynchronous operation's completion (transaction bytes, `tcgen05.commit`).
    pub fn after_phase_done(&mut self, off: u64, phase: u32) {
        let pc = self.pc;
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.mbarrier_events(pc, &[MbarEvent::PhaseDone(off, phase)]);
        }
    }
}

/// Thread `thread` arrives on the mbarrier at shared offset `off` in phase `phase` (the
/// CTA's Tensor Memory, when made: its visibility checks).
pub fn mbarrier_arrived(tmem: &mut Option<Box<TensorMemory>>, thread: u32, off: u64, phase: u32) {
    if let Some(tm) = tmem.as_mut().filter(|t| t.checked()) {
        tm.observe.mbarrier_arrive(thread, off, phase);
    }
}

/// Thread `thread`'s wait saw phase `phase` of the mbarrier at shared offset `off` complete:
/// the async-proxy writes and the Tensor Memory writes completing on it are observed.
pub fn phase_observed(
    st: &mut AsyncState,
    tmem: &mut Option<Box<TensorMemory>>,
    thread: u32,
    off: u64,
    phase: u32,
) {
    st.tma.observed(off, phase);
    if let Some(tm) = tmem.as_mut() {
        tm.async_writes.observed(off, phase);
        if tm.checked() {
            tm.observe.waited(thread, off, phase);
        }
    }
}

/// The lanes `mask` of warp `warp` arrive at CTA barrier `id` (the scheduler's hook).
pub fn barrier_arrived(
    race: Option<&mut CtaRace>,
    tmem: &mut Option<Box<TensorMemory>>,
    id: usize,
    warp: usize,
    mask: u32,
) {
    if let Some(r) = race {
        r.barrier_arrive(id, warp, mask);
    }
    if let Some(t) = tmem.as_mut().filter(|t| t.checked()) {
        tmem_barrier_arrive(t, id as u32, warp as u32, mask);
    }
}

/// CTA barrier `id` completes and releases its waiters, `(warp, lanes)` each (the
/// scheduler's hook).
pub fn barrier_released(
    race: Option<&mut CtaRace>,
    tmem: &mut Option<Box<TensorMemory>>,
    id: usize,
    waiters: impl Iterator<Item = (usize, u32)> + Clone,
) {
    if let Some(r) = race {
        for (warp, lanes) in waiters.clone() {
            r.barrier_wait(id, warp, lanes);
        }
        r.barrier_reset(id);
    }
    if let Some(t) = tmem.as_mut().filter(|t| t.checked()) {
        let lanes = waiters.map(|(w, l)| (w as u32, l));
        tmem_barrier_release(t, id as u32, lanes);
    }
}

/// Lanes `mask` of warp `warp` arrive at named barrier `id` (checked mode's observations).
fn tmem_barrier_arrive(t: &mut TensorMemory, id: u32, warp: u32, mut mask: u32) {
    while mask != 0 {
        let lane = mask.trailing_zeros();
        mask &= mask - 1;
        t.observe.barrier_arrive(id, warp * 32 + lane);
    }
}

/// Named barrier `id` releases the waiting `(warp, lanes)` (checked mode's observations).
fn tmem_barrier_release(t: &mut TensorMemory, id: u32, waiters: impl Iterator<Item = (u32, u32)>) {
    let threads = waiters.flat_map(|(warp, lanes)| {
        (0..32u32)
            .filter(move |l| lanes & (1 << l) != 0)
            .map(move |l| warp * 32 + l)
    });
    t.observe.barrier_release(id, threads);
}
