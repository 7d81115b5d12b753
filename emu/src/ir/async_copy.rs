//! IR of the non-bulk asynchronous copies and the memory barriers that track them (PTX ISA
//! "Data Movement and Conversion Instructions: cp.async, cp.async.commit_group,
//! cp.async.wait_group / wait_all, cp.async.mbarrier.arrive" and "Parallel Synchronization and
//! Communication Instructions: mbarrier").
//!
//! Not represented (refused by the parser, naming the instruction): the bulk and tensor forms
//! `cp.async.bulk*`, `cp.reduce.async.bulk*`, and `mbarrier.arrive` on `.shared::cluster`.

use models::vocab::Scope;

/// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB} [dst], [src], size{, src-size | ignore-src}{, policy}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CpAsyncCopy {
    /// `.cg` (cache at L2 only; 16 bytes only), else `.ca`.
    pub cg: bool,
    /// `.shared::cta` written (else `.shared`).
    pub explicit_cta: bool,
    /// `.L2::cache_hint`: the last operand is a cache policy.
    pub cache_hint: bool,
    /// `.L2::64B/128B/256B` prefetch size, in bytes.
    pub prefetch: Option<u16>,
}

/// The instructions of the `cp.async` family (non-bulk).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpAsync {
    /// An asynchronous copy from global to shared memory.
    Copy(CpAsyncCopy),
    /// `cp.async.commit_group`: the thread's uncommitted copies form a group.
    CommitGroup,
    /// `cp.async.wait_group N`: wait until at most N of the thread's groups are pending.
    WaitGroup,
    /// `cp.async.wait_all`: wait for every copy of the thread, committed or not.
    WaitAll,
    /// `cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [addr]`: arrive on the mbarrier
    /// once the thread's earlier copies complete.
    MbarrierArrive {
        /// `.noinc`: the arrival counts against the expected count (else the pending count
        /// is first incremented, so the arrival is neutral).
        noinc: bool,
        /// The state space written (`.shared` / `.shared::cta`; `None`: generic).
        shared: Option<bool>,
    },
}

/// The memory ordering an `mbarrier` operation names (`.relaxed`, `.acquire`, `.release`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarrierSem {
    /// Nothing written (release for arrive, acquire for waits).
    Default,
    /// `.relaxed`
    Relaxed,
    /// `.acquire`
    Acquire,
    /// `.release`
    Release,
}

/// What an `mbarrier` instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarrierOp {
    /// `init [addr], count`
    Init,
    /// `inval [addr]`
    Inval,
    /// `arrive{_drop}{.expect_tx}{.noComplete} state, [addr]{, count | txCount}`.
    Arrive {
        /// `arrive_drop`: also lowers the expected count of later phases.
        drop: bool,
        /// `.expect_tx`: the operand is a transaction count added before the arrival.
        expect_tx: bool,
        /// `.noComplete`: the arrival must not complete the phase.
        no_complete: bool,
    },
    /// `expect_tx [addr], txCount`
    ExpectTx,
    /// `complete_tx [addr], txCount`
    CompleteTx,
    /// `test_wait{.parity} p, [addr], state|parity` (non-blocking).
    TestWait {
        /// `.parity`
        parity: bool,
    },
    /// `try_wait{.parity} p, [addr], state|parity{, suspendTimeHint}` (potentially blocking).
    TryWait {
        /// `.parity`
        parity: bool,
    },
    /// `pending_count.b64 count, state`
    PendingCount,
}

/// An `mbarrier` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mbarrier {
    /// The operation.
    pub op: MbarrierOp,
    /// The ordering written.
    pub sem: MbarrierSem,
    /// The scope written (`.cta` / `.cluster`).
    pub scope: Option<Scope>,
    /// `.shared` (false) or `.shared::cta` (true) written; `None`: generic address.
    pub shared: Option<bool>,
    /// `.shared::cluster` written (the object may be a peer CTA's; `shared` is `Some(true)`).
    pub cluster: bool,
}
