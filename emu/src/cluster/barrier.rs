//! The cluster barrier (PTX ISA "barrier.cluster"): its phases and each thread's arrival.

/// A thread's arrival state at the cluster barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitState {
    /// No arrival to wait for.
    NotArrived,
    /// The phase it arrived in has completed.
    Complete,
    /// The phase it arrived in is still open.
    Pending,
}

const NONE: u32 = u32::MAX;

/// The cluster barrier (`barrier.cluster.arrive` / `wait`): a phase completes when every thread
/// of the cluster that has not exited has arrived.
#[derive(Clone, Debug)]
pub struct ClusterBarrier {
    /// The current phase.
    pub phase: u32,
    /// Arrivals in the current phase.
    pub arrived: u32,
    /// Per CTA rank and thread: the phase of its arrival not yet waited for (allocated by
    /// the first arrival: most launches never use the barrier).
    threads: Vec<u32>,
    size: u32,
    per_cta: u32,
}

impl ClusterBarrier {
    /// A barrier for `size` CTAs of `per_cta` threads.
    pub fn new(size: u32, per_cta: u32) -> ClusterBarrier {
        ClusterBarrier {
            phase: 0,
            arrived: 0,
            threads: Vec::new(),
            size,
            per_cta,
        }
    }

    fn slot(&self, rank: u32, thread: u32) -> usize {
        (rank * self.per_cta + thread) as usize
    }

    /// Thread `thread` of CTA `rank` arrives.
    ///
    /// # Errors
    /// It already arrived in the current phase.
    pub fn arrive(&mut self, rank: u32, thread: u32) -> Result<(), String> {
        if self.threads.is_empty() {
            self.threads = vec![NONE; (self.size * self.per_cta) as usize];
        }
        let s = self.slot(rank, thread);
        match self.threads.get(s) {
            Some(&p) if p == self.phase => Err(format!(
                "the thread arrives twice at phase {} of the cluster barrier without waiting",
                self.phase
            )),
            Some(_) => {
                self.threads[s] = self.phase;
                self.arrived += 1;
                Ok(())
            }
            None => Err("thread outside the cluster".into()),
        }
    }

    /// Where thread `thread` of CTA `rank` stands; a completed wait clears its arrival.
    pub fn wait(&mut self, rank: u32, thread: u32) -> WaitState {
        let s = self.slot(rank, thread);
        match self.threads.get(s).copied() {
            None | Some(NONE) => WaitState::NotArrived,
            Some(p) if p == self.phase => WaitState::Pending,
            Some(_) => {
                self.threads[s] = NONE;
                WaitState::Complete
            }
        }
    }

    /// Clears the arrival of a thread released from its wait.
    pub fn released(&mut self, rank: u32, thread: u32) {
        let s = self.slot(rank, thread);
        if let Some(t) = self.threads.get_mut(s) {
            *t = NONE;
        }
    }

    /// Completes the phase when `live` threads (every thread not exited) have arrived.
    pub fn try_complete(&mut self, live: u32) -> bool {
        if self.arrived > 0 && self.arrived >= live {
            self.phase = self.phase.wrapping_add(1);
            self.arrived = 0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrier_phases() {
        let mut b = ClusterBarrier::new(2, 2);
        assert_eq!(b.wait(0, 0), WaitState::NotArrived);
        b.arrive(0, 0).unwrap();
        assert!(b.arrive(0, 0).is_err());
        assert_eq!(b.wait(0, 0), WaitState::Pending);
        b.arrive(1, 1).unwrap();
        assert!(!b.try_complete(4));
        assert!(b.try_complete(2));
        assert_eq!(b.wait(0, 0), WaitState::Complete);
        assert_eq!(b.wait(0, 0), WaitState::NotArrived);
        assert_eq!(b.wait(1, 1), WaitState::Complete);
    }
}
