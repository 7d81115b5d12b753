//! What the race detector needs to know of each instruction: whether it is a memory access,
//! fence or neither, and its semantics and scope as the memory model maps them
//! (docs/spec/memory-model.md §2.2–2.3: `ld`/`st` default to weak, `.volatile` and `.mmio` are
//! relaxed at sys scope, `atom`/`red` default to relaxed.gpu, `fence` to acq_rel, `membar` is
//! `fence.sc`).

use models::vocab::{FenceSem, LoadSem, RmwSem, Scope, StoreSem};

use crate::ir::tma::TensorDir;
use crate::ir::{
    ClusterOp, CpAsync, Fence, MbarrierOp, MbarrierSem, Op, Tcgen05, Tma, WarpMatrix, Wgmma,
};

/// The semantics of an access as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sem {
    /// `.weak` or no qualifier.
    Weak,
    /// `.relaxed`.
    Relaxed,
    /// `.acquire`.
    Acquire,
    /// `.release`.
    Release,
    /// `.acq_rel` (atomics).
    AcqRel,
    /// `.volatile`: relaxed at sys scope.
    Volatile,
    /// `.mmio.relaxed.sys`.
    Mmio,
}

impl Sem {
    /// The qualifier's name.
    pub fn name(self) -> &'static str {
        match self {
            Sem::Weak => "weak",
            Sem::Relaxed => "relaxed",
            Sem::Acquire => "acquire",
            Sem::Release => "release",
            Sem::AcqRel => "acq_rel",
            Sem::Volatile => "volatile",
            Sem::Mmio => "mmio",
        }
    }

    /// Whether an access with these semantics is strong.
    pub fn strong(self) -> bool {
        self != Sem::Weak
    }

    /// Whether the read half can end an acquire pattern by itself.
    pub fn acquires(self) -> bool {
        matches!(self, Sem::Acquire | Sem::AcqRel)
    }

    /// Whether the write half can start a release pattern by itself.
    pub fn releases(self) -> bool {
        matches!(self, Sem::Release | Sem::AcqRel)
    }
}

/// The kind of memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ld`, `ldu`.
    Read,
    /// `ld.global.nc`: outside the model (docs/spec/memory-model.md §9.3); not tracked.
    ReadNc,
    /// `st`.
    Write,
    /// `atom`.
    Atomic,
    /// `red`: an atomic whose read half never starts an acquire pattern.
    Red,
}

impl Kind {
    /// The name used in reports: read, write or atomic.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Read | Kind::ReadNc => "read",
            Kind::Write => "write",
            Kind::Atomic | Kind::Red => "atomic",
        }
    }
}

/// One instruction as the race detector sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceOp {
    /// Not a memory access, fence or barrier the detector follows.
    Other,
    /// A memory access.
    Mem {
        /// Read, write or atomic.
        kind: Kind,
        /// Semantics.
        sem: Sem,
        /// Scope (`None` for weak accesses).
        scope: Option<Scope>,
    },
    /// A memory fence (`fence`, `membar`).
    Fence {
        /// Semantics (`membar` is `Sc`).
        sem: FenceSem,
        /// Scope.
        scope: Scope,
        /// Written as `membar`.
        membar: bool,
    },
    /// `cp.async` (non-bulk): a weak global read and shared write performed by the copy.
    CpAsync,
    /// A bulk or tensor copy (`cp.async.bulk{.tensor}`, `cp.reduce.async.bulk{.tensor}`),
    /// performed by the issuing thread's bulk agent; a reduction's destination accesses are
    /// relaxed `.gpu` atomics.
    Bulk {
        /// A reduction.
        reduce: bool,
    },
    /// An `mbarrier` instruction: whether its arrive releases and its successful wait
    /// acquires (default semantics: arrive is release, waits are acquire; `.relaxed`
    /// neither).
    Mbarrier {
        /// An arrive that releases.
        release: bool,
        /// A wait that acquires.
        acquire: bool,
        /// `init` or `inval`: a weak write of the object (the other operations are relaxed
        /// `.cluster` atomics on it).
        init: bool,
    },
    /// `barrier.cluster.arrive`: whether it releases (not `.relaxed`).
    ClusterArrive {
        /// Not `.relaxed`.
        release: bool,
    },
    /// An asynchronous tensor-core operation that reads shared memory through matrix
    /// descriptors (`wgmma.mma_async`, `tcgen05.mma`).
    AsyncMma,
}

impl RaceOp {
    /// What the instruction is as an access of memory, when it is one: a load, store or
    /// atomic; an `mbarrier` operation on the 8-byte object (`init`/`inval` a weak write, the
    /// others relaxed `.cta` atomics, morally strong with each other, so that only plain
    /// accesses of the object and unordered initialisations race with them).
    pub fn mem(&self) -> Option<(Kind, Sem, Option<Scope>)> {
        match *self {
            RaceOp::Mem { kind, sem, scope } => Some((kind, sem, scope)),
            RaceOp::Mbarrier { init: true, .. } => Some((Kind::Write, Sem::Weak, None)),
            RaceOp::Bulk { reduce: true } => Some((Kind::Atomic, Sem::Relaxed, Some(Scope::Gpu))),
            // Morally strong with each other whatever scope they name: the object lies in
            // shared memory, which only the cluster reaches (docs/race.md, choice 16).
            RaceOp::Mbarrier { init: false, .. } => {
                Some((Kind::Atomic, Sem::Relaxed, Some(Scope::Cluster)))
            }
            _ => None,
        }
    }
}

fn load_sem(s: Option<LoadSem>) -> (Sem, Option<Scope>) {
    match s {
        None | Some(LoadSem::Weak) => (Sem::Weak, None),
        Some(LoadSem::Volatile) => (Sem::Volatile, Some(Scope::Sys)),
        Some(LoadSem::Relaxed(s)) => (Sem::Relaxed, Some(s)),
        Some(LoadSem::Acquire(s)) => (Sem::Acquire, Some(s)),
        Some(LoadSem::Mmio) => (Sem::Mmio, Some(Scope::Sys)),
    }
}

fn store_sem(s: Option<StoreSem>) -> (Sem, Option<Scope>) {
    match s {
        None | Some(StoreSem::Weak) => (Sem::Weak, None),
        Some(StoreSem::Volatile) => (Sem::Volatile, Some(Scope::Sys)),
        Some(StoreSem::Relaxed(s)) => (Sem::Relaxed, Some(s)),
        Some(StoreSem::Release(s)) => (Sem::Release, Some(s)),
        Some(StoreSem::Mmio) => (Sem::Mmio, Some(Scope::Sys)),
    }
}

fn rmw_sem(s: Option<RmwSem>) -> Sem {
    match s.unwrap_or(RmwSem::Relaxed) {
        RmwSem::Relaxed => Sem::Relaxed,
        RmwSem::Acquire => Sem::Acquire,
        RmwSem::Release => Sem::Release,
        RmwSem::AcqRel => Sem::AcqRel,
    }
}

/// The detector's view of an IR operation.
pub fn describe(op: &Op) -> RaceOp {
    match op {
        Op::Ld(l) => {
            let (sem, scope) = load_sem(l.sem());
            let kind = if l.nc() { Kind::ReadNc } else { Kind::Read };
            RaceOp::Mem { kind, sem, scope }
        }
        Op::Ldu(_) => RaceOp::Mem {
            kind: Kind::Read,
            sem: Sem::Weak,
            scope: None,
        },
        Op::St(s) => {
            let (sem, scope) = store_sem(s.sem());
            RaceOp::Mem {
                kind: Kind::Write,
                sem,
                scope,
            }
        }
        Op::Atom(a) => RaceOp::Mem {
            kind: Kind::Atomic,
            sem: rmw_sem(a.sem),
            scope: Some(a.scope.unwrap_or(RmwSem::DEFAULT_SCOPE)),
        },
        Op::Red(r) => RaceOp::Mem {
            kind: Kind::Red,
            sem: rmw_sem(r.sem),
            scope: Some(r.scope.unwrap_or(RmwSem::DEFAULT_SCOPE)),
        },
        Op::Fence(Fence::Memory { sem, scope }) => RaceOp::Fence {
            sem: sem.unwrap_or(FenceSem::AcqRel),
            scope: *scope,
            membar: false,
        },
        Op::Membar(l) => RaceOp::Fence {
            sem: FenceSem::Sc,
            scope: l.scope(),
            membar: true,
        },
        Op::WarpMatrix(WarpMatrix::Ldmatrix(_) | WarpMatrix::WmmaLoad(_)) => RaceOp::Mem {
            kind: Kind::Read,
            sem: Sem::Weak,
            scope: None,
        },
        Op::WarpMatrix(WarpMatrix::Stmatrix(_) | WarpMatrix::WmmaStore(_)) => RaceOp::Mem {
            kind: Kind::Write,
            sem: Sem::Weak,
            scope: None,
        },
        Op::CpAsync(CpAsync::Copy(_)) => RaceOp::CpAsync,
        Op::Tma(Tma::Bulk(_)) => RaceOp::Bulk { reduce: false },
        Op::Tma(Tma::Reduce(_)) => RaceOp::Bulk { reduce: true },
        Op::Tma(Tma::Tensor(t)) => RaceOp::Bulk {
            reduce: matches!(t.dir, TensorDir::Reduce(_)),
        },
        Op::Mbarrier(m) => RaceOp::Mbarrier {
            release: m.sem != MbarrierSem::Relaxed,
            acquire: m.sem != MbarrierSem::Relaxed,
            init: matches!(m.op, MbarrierOp::Init | MbarrierOp::Inval),
        },
        // Its release is the copies' (cta::asyncs), not the instruction's.
        Op::CpAsync(CpAsync::MbarrierArrive { .. }) => RaceOp::Mbarrier {
            release: false,
            acquire: false,
            init: false,
        },
        Op::Cluster(ClusterOp::Arrive { relaxed, .. }) => {
            RaceOp::ClusterArrive { release: !relaxed }
        }
        Op::Wgmma(Wgmma::MmaAsync(_)) | Op::Tcgen05(Tcgen05::Mma(_)) => RaceOp::AsyncMma,
        // The response is written through the async proxy, as a bulk copy's bytes.
        Op::ClusterLaunch(crate::ir::ClusterLaunch::TryCancel { .. }) => {
            RaceOp::Bulk { reduce: false }
        }
        _ => RaceOp::Other,
    }
}
