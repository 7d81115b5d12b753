//! Tensor Memory cells written by asynchronous tcgen05 operations whose completion no thread
//! has observed yet (PTX ISA "Memory Consistency Model for tcgen05": `tcgen05.cp` and
//! `tcgen05.mma` complete asynchronously, in issue order, and a thread learns of their
//! completion only through `tcgen05.commit`'s mbarrier).
//!
//! ptxemu performs each operation when it is issued, so the values are right at once; this
//! record exists for checked mode, which reports a `tcgen05.st` to a cell whose writer is
//! still pending (loads check the stricter per-thread rule of [`super::observe`] instead).
//! An operation is
//! 1. *issued* by one thread ([`AsyncWrites::issue`]);
//! 2. *committed* when that thread executes `tcgen05.commit` ([`AsyncWrites::commit`]): the
//!    commit's mbarrier (shared offset) and the phase its arrive completes are recorded;
//! 3. *observed*, and forgotten, when any thread's mbarrier wait sees that phase complete
//!    ([`AsyncWrites::observed`], called from the mbarrier wait as the proxy checker's is).
//!
//! Simplifications: any thread's observation counts for the whole CTA, and the
//! `tcgen05.fence::after_thread_sync` the reader should execute after its wait is not checked.

/// The state of one pending operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncState {
    /// Issued; its thread has not executed `tcgen05.commit` since.
    Issued,
    /// Committed to the mbarrier at shared offset `mbar`, completing with its phase `phase`.
    Committed {
        /// The mbarrier's shared-memory offset.
        mbar: u64,
        /// The phase whose completion signals the operation's completion.
        phase: u32,
    },
}

/// One asynchronous operation that writes Tensor Memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsyncWrite {
    /// The instruction, for messages (`"tcgen05.cp"`, `"tcgen05.mma"`).
    pub what: &'static str,
    /// The issuing thread (linear thread index in the CTA).
    pub thread: u32,
    /// The issuing instruction's pc.
    pub pc: u32,
    /// The cells it writes (`lane * 512 + column`), sorted.
    cells: Vec<u32>,
    /// Where it stands.
    pub state: AsyncState,
}

/// The pending asynchronous writes of one CTA's Tensor Memory.
#[derive(Clone, Debug, Default)]
pub struct AsyncWrites {
    ops: Vec<AsyncWrite>,
}

impl AsyncWrites {
    /// Records that `thread` issued `what` at `pc`, writing the cells `cells` (indices as
    /// [`super::memory::TensorMemory::check_cell`] returns them).
    pub fn issue(&mut self, what: &'static str, thread: u32, pc: u32, mut cells: Vec<u32>) {
        cells.sort_unstable();
        cells.dedup();
        self.ops.push(AsyncWrite {
            what,
            thread,
            pc,
            cells,
            state: AsyncState::Issued,
        });
    }

    /// `tcgen05.commit` by `thread` to the mbarrier at shared offset `mbar`, whose current
    /// (incomplete) phase `phase` its arrive-on counts toward: the thread's issued operations are now tracked by it. Returns
    /// how many operations it covers.
    pub fn commit(&mut self, thread: u32, mbar: u64, phase: u32) -> usize {
        let mut n = 0;
        for op in &mut self.ops {
            if op.thread == thread && op.state == AsyncState::Issued {
                op.state = AsyncState::Committed { mbar, phase };
                n += 1;
            }
        }
        n
    }

    /// An mbarrier wait succeeded on the mbarrier at shared offset `mbar`, whose current
    /// (incomplete) phase is now `current`: the operations committed to an earlier phase of it
    /// are complete (for every thread of the CTA). The same convention as the proxy
    /// checker's `observed`.
    pub fn observed(&mut self, mbar: u64, current: u32) {
        self.ops.retain(|op| {
            !matches!(op.state, AsyncState::Committed { mbar: m, phase: p } if m == mbar && phase_done(p, current))
        });
    }

    /// The earliest pending operation that writes cell `at`.
    pub fn pending_at(&self, at: u32) -> Option<&AsyncWrite> {
        self.ops
            .iter()
            .find(|op| op.cells.binary_search(&at).is_ok())
    }

    /// Whether any operation is pending.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// Whether phase `wanted` has completed once the mbarrier's current phase is `current`
/// (phases count up, wrapping).
fn phase_done(wanted: u32, current: u32) -> bool {
    (wanted.wrapping_sub(current) as i32) < 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_commit_observe() {
        let mut w = AsyncWrites::default();
        w.issue("tcgen05.cp", 0, 7, vec![3, 1, 2]);
        w.issue("tcgen05.cp", 32, 8, vec![9]);
        assert_eq!(w.pending_at(2).map(|o| o.pc), Some(7));
        // An observation before anything is committed changes nothing.
        w.observed(16, 1);
        assert!(w.pending_at(1).is_some());
        assert_eq!(w.commit(0, 16, 0), 1);
        assert_eq!(
            w.pending_at(3).map(|o| o.state),
            Some(AsyncState::Committed { mbar: 16, phase: 0 })
        );
        // Another mbarrier, or this one still in phase 0, does not complete it; phase 0
        // complete (current phase 1, or later) does.
        w.observed(24, 5);
        w.observed(16, 0);
        assert!(w.pending_at(3).is_some());
        w.observed(16, 1);
        assert!(w.pending_at(3).is_none());
        // Thread 32 never committed.
        assert_eq!(w.pending_at(9).map(|o| o.thread), Some(32));
        assert!(!w.is_empty());
    }
}
