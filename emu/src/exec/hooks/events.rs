//! What the hooks report, in the machine's words: how a lane touches memory
//! ([`AccessKind`]), one side of an asynchronous copy ([`AsyncAccess`]), and what an mbarrier
//! instruction does to an mbarrier ([`MbarrierEvent`]).

/// How a lane touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
    /// An atomic read-modify-write; `wrote`: it changed memory (a failed `atom.cas` does not).
    Rmw {
        /// Whether it wrote.
        wrote: bool,
    },
}

/// One side of an asynchronous copy: a run of bytes in global or shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsyncAccess {
    /// Shared memory (an offset, or a `.shared::cluster` address), else global.
    pub shared: bool,
    /// First byte.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// A write (else a read).
    pub write: bool,
    /// A reduction's element-wise read-modify-write (`cp.reduce.async.bulk`).
    pub reduce: bool,
    /// A fingerprint of the bytes a global write left (0: none taken), so that identical
    /// writes by the lanes of one instruction are classified apart.
    pub fp: u32,
}

/// The fingerprint of the bytes a write left, as the race detector compares writes
/// ([`AsyncAccess::fp`]).
pub fn fingerprint(bytes: &[u8]) -> u32 {
    crate::race::cta::fingerprint(bytes)
}

/// One effect of an `mbarrier` instruction (or `cp.async.mbarrier.arrive`) on the mbarrier at
/// a shared offset, by a thread (linear in the CTA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarrierEvent {
    /// `init` or `inval`.
    Reset(u64),
    /// `arrive` by a thread.
    Arrive(usize, u64),
    /// `cp.async.mbarrier.arrive` by a thread, whose this many pending copies complete first.
    CopiesArrive(usize, u64, usize),
    /// A thread's operation on the object itself, before its effect; whether it may change
    /// the object (every operation but a wait).
    Touch(usize, u64, bool),
    /// The phase completed.
    PhaseDone(u64, u32),
    /// A thread's wait saw the phase complete.
    Waited(usize, u64, u32),
}
