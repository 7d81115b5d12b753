//! Which mbarrier phases each thread has observed complete (checked mode), for the visibility
//! rule of `tcgen05.mma` results (PTX ISA "Memory Consistency Model for 5th generation of
//! TensorCore operations", canonical patterns for non-pipelined instructions): a thread may
//! `tcgen05.ld` cells an MMA wrote only after
//! 1. the issuing thread's `tcgen05.commit` tracked the MMA, arriving on an mbarrier;
//! 2. the reading thread *observed* that arrival's phase complete: its own successful
//!    `mbarrier.test_wait`/`try_wait` on the phase, or a thread synchronisation (`bar.sync`,
//!    `barrier.sync`, `bar.red`, or a completed mbarrier phase it waited for) after a thread
//!    that observed it;
//! 3. the reading thread executed `tcgen05.fence::after_thread_sync` after that observation.
//!
//! A thread's knowledge is, per mbarrier (shared offset), the mbarrier's current phase at the
//! latest observation: every earlier phase is complete. It is kept twice: *seen* (observed,
//! not yet fenced) and *fenced* (observed, then `tcgen05.fence::after_thread_sync`).
//! Synchronisation passes both on as *seen*: the receiver still needs its own fence.

/// Per mbarrier offset: the current phase at the latest observation. A thread knows of few
/// mbarriers, so a short list (searched) serves better than a hash map: the knowledge of
/// every thread of a CTA is joined at each barrier.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Knowledge(Vec<(u64, u32)>);

impl Knowledge {
    /// The current phase at the latest observation of the mbarrier at `mbar`.
    fn get(&self, mbar: u64) -> Option<u32> {
        self.0.iter().find(|(m, _)| *m == mbar).map(|(_, c)| *c)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds the observation that the mbarrier at `mbar` was in phase `cur` (keeping the later
    /// of two observations).
    fn note(&mut self, mbar: u64, cur: u32) {
        match self.0.iter_mut().find(|(m, _)| *m == mbar) {
            Some((_, c)) => {
                if phase_done(*c, cur) {
                    *c = cur;
                }
            }
            None => self.0.push((mbar, cur)),
        }
    }

    /// Adds everything `from` knows.
    fn join(&mut self, from: &Knowledge) {
        for &(mbar, cur) in &from.0 {
            self.note(mbar, cur);
        }
    }
}

/// Whether phase `wanted` is complete once the current phase is `current` (phases count up,
/// wrapping).
pub fn phase_done(wanted: u32, current: u32) -> bool {
    (wanted.wrapping_sub(current) as i32) < 0
}

/// What a thread knows about phase `phase` of the mbarrier at `mbar`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Observed and fenced: the results are visible to it.
    Fenced,
    /// Observed, but no `tcgen05.fence::after_thread_sync` since.
    Unfenced,
    /// Not observed by this thread.
    No,
}

/// The observations of one CTA's threads.
#[derive(Clone, Debug, Default)]
pub struct Observations {
    /// Per thread of the CTA.
    seen: Vec<Knowledge>,
    /// Per thread of the CTA.
    fenced: Vec<Knowledge>,
    /// Knowledge released at each named barrier (by id) by the threads that arrived at it so
    /// far.
    barriers: Vec<Knowledge>,
    /// Knowledge released by the arrivals on each mbarrier, per phase arrived in.
    mbarriers: Vec<((u64, u32), Knowledge)>,
}

/// Entry `i` of `v`, made (empty) if `v` is shorter.
fn slot(v: &mut Vec<Knowledge>, i: u32) -> &mut Knowledge {
    let i = i as usize;
    if v.len() <= i {
        v.resize_with(i + 1, Knowledge::default);
    }
    &mut v[i]
}

/// Entry `i` of `v`, if it is there.
fn get(v: &[Knowledge], i: u32) -> Option<&Knowledge> {
    v.get(i as usize)
}

impl Observations {
    /// `thread` saw the mbarrier at `mbar` with current phase `current` (every earlier phase
    /// complete), by its own successful wait.
    pub fn waited(&mut self, thread: u32, mbar: u64, current: u32) {
        let seen = slot(&mut self.seen, thread);
        seen.note(mbar, current);
        // What the arrivals of the completed phases released comes with the wait.
        for ((m, phase), rel) in &self.mbarriers {
            if *m == mbar && phase_done(*phase, current) {
                seen.join(rel);
            }
        }
    }

    /// `thread` executed `tcgen05.fence::after_thread_sync`.
    pub fn fence_after(&mut self, thread: u32) {
        if let Some(s) = get(&self.seen, thread) {
            if !s.is_empty() {
                slot(&mut self.fenced, thread).join(s);
            }
        }
    }

    /// Whether `thread` knows anything (seen or fenced).
    fn knows(&self, thread: u32) -> bool {
        [&self.seen, &self.fenced]
            .iter()
            .any(|v| get(v, thread).is_some_and(|k| !k.is_empty()))
    }

    /// Adds everything `thread` knows (seen or fenced) to `into`.
    fn release_into(seen: &[Knowledge], fenced: &[Knowledge], thread: u32, into: &mut Knowledge) {
        for k in [get(seen, thread), get(fenced, thread)]
            .into_iter()
            .flatten()
        {
            into.join(k);
        }
    }

    /// `thread` arrived at named barrier `id`: it releases what it knows.
    pub fn barrier_arrive(&mut self, id: u32, thread: u32) {
        if self.knows(thread) {
            let into = slot(&mut self.barriers, id);
            Self::release_into(&self.seen, &self.fenced, thread, into);
        }
    }

    /// Named barrier `id` completed: each waiting thread in `threads` acquires what the
    /// arrivals released.
    pub fn barrier_release(&mut self, id: u32, threads: impl IntoIterator<Item = u32>) {
        let Some(k) = self.barriers.get_mut(id as usize).map(std::mem::take) else {
            return;
        };
        if k.is_empty() {
            return;
        }
        for t in threads {
            slot(&mut self.seen, t).join(&k);
        }
    }

    /// `thread` arrived on the mbarrier at `mbar` in phase `phase`: it releases what it knows
    /// to the threads that will wait for the phase.
    pub fn mbarrier_arrive(&mut self, thread: u32, mbar: u64, phase: u32) {
        if !self.knows(thread) {
            return;
        }
        let i = match self
            .mbarriers
            .iter()
            .position(|(key, _)| *key == (mbar, phase))
        {
            Some(i) => i,
            None => {
                self.mbarriers.push(((mbar, phase), Knowledge::default()));
                self.mbarriers.len() - 1
            }
        };
        Self::release_into(&self.seen, &self.fenced, thread, &mut self.mbarriers[i].1);
        // Bounded memory: forget phases long complete.
        self.mbarriers
            .retain(|((m, p), _)| *m != mbar || !phase_done(p.wrapping_add(8), phase));
    }

    /// What `thread` knows of phase `phase` of the mbarrier at `mbar`.
    pub fn seen(&self, thread: u32, mbar: u64, phase: u32) -> Seen {
        let has = |v: &[Knowledge]| {
            get(v, thread)
                .and_then(|k| k.get(mbar))
                .is_some_and(|cur| phase_done(phase, cur))
        };
        if has(&self.fenced) {
            Seen::Fenced
        } else if has(&self.seen) {
            Seen::Unfenced
        } else {
            Seen::No
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_then_a_fence_makes_a_phase_visible_to_that_thread_only() {
        let mut o = Observations::default();
        assert_eq!(o.seen(3, 16, 0), Seen::No);
        o.waited(3, 16, 1);
        assert_eq!(o.seen(3, 16, 0), Seen::Unfenced);
        assert_eq!(o.seen(3, 16, 1), Seen::No);
        o.fence_after(3);
        assert_eq!(o.seen(3, 16, 0), Seen::Fenced);
        assert_eq!(o.seen(4, 16, 0), Seen::No);
        // A later wait is unfenced until the next fence; the fenced knowledge stays.
        o.waited(3, 16, 2);
        assert_eq!(o.seen(3, 16, 1), Seen::Unfenced);
        assert_eq!(o.seen(3, 16, 0), Seen::Fenced);
    }

    #[test]
    fn a_barrier_passes_knowledge_on_unfenced() {
        let mut o = Observations::default();
        o.waited(0, 8, 1);
        o.fence_after(0);
        for t in 0..64 {
            o.barrier_arrive(0, t);
        }
        o.barrier_release(0, 0..64);
        assert_eq!(o.seen(40, 8, 0), Seen::Unfenced);
        o.fence_after(40);
        assert_eq!(o.seen(40, 8, 0), Seen::Fenced);
        // Nothing is released at a barrier nobody with knowledge arrived at.
        o.barrier_arrive(1, 70);
        o.barrier_release(1, [71]);
        assert_eq!(o.seen(71, 8, 0), Seen::No);
    }

    #[test]
    fn an_mbarrier_phase_passes_on_what_its_arrivals_knew() {
        let mut o = Observations::default();
        o.waited(0, 8, 1);
        o.mbarrier_arrive(0, 24, 5);
        // Thread 9 waits for phase 5 of the mbarrier at 24 (current phase 6).
        o.waited(9, 24, 6);
        assert_eq!(o.seen(9, 8, 0), Seen::Unfenced);
        // A waiter that saw only phase 4 complete learns nothing of phase 5's arrivals.
        o.waited(10, 24, 5);
        assert_eq!(o.seen(10, 8, 0), Seen::No);
    }
}
