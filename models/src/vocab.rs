//! The memory-model vocabulary shared by every layer of ptxemu.
//!
//! These are the words of the PTX ISA chapter "Memory Consistency Model": scopes, state spaces,
//! the semantics of each instruction family, and proxies. They are defined once, here, and the
//! `emu` crate uses them in its instruction IR so that the front end, the interpreter and the
//! axiomatic models cannot disagree about what a qualifier means.
//!
//! Each instruction family has its own semantics enum, with the scope inside the variants that
//! need one, so that a release load or a scoped weak store cannot be written down at all.
//!
//! Deliberate deviations: none; where the ISA leaves a default implicit, the default is named
//! on the item that applies it (`LoadSem::effective`, `RmwSem::DEFAULT_SCOPE`).

use std::fmt;

/// A thread scope: the set of threads an operation can directly synchronise with.
///
/// Scopes nest: `Cta ⊂ Cluster ⊂ Gpu ⊂ Sys`, and the derived `Ord` follows that nesting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The threads of one cooperative thread array.
    Cta,
    /// The threads of one cluster of CTAs (PTX 7.8, sm_90).
    Cluster,
    /// Every thread on the same device.
    Gpu,
    /// Every thread of the program, host threads included.
    Sys,
}

impl Scope {
    /// Every scope, innermost first.
    pub const ALL: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

    /// The qualifier as written in PTX, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }

    /// Parses a scope qualifier written without its leading dot.
    pub fn from_name(s: &str) -> Option<Scope> {
        Some(match s {
            "cta" => Scope::Cta,
            "cluster" => Scope::Cluster,
            "gpu" => Scope::Gpu,
            "sys" => Scope::Sys,
            _ => return None,
        })
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which part of the shared state space an access names (`.shared::cta` or `.shared::cluster`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedWindow {
    /// The executing CTA's own shared memory (the default for a bare `.shared`).
    Cta,
    /// Shared memory of any CTA in the cluster.
    Cluster,
}

/// Which kind of parameter an access names (`.param::entry` or `.param::func`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamWindow {
    /// Kernel parameters.
    Entry,
    /// Device-function parameters and return values.
    Func,
}

/// A PTX state space, as named by an instruction's `.ss` qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// No state space given: the address is generic and the window it falls in decides.
    Generic,
    /// Global memory, shared by every thread of the grid.
    Global,
    /// Shared memory of a CTA (or of a cluster).
    Shared(SharedWindow),
    /// Memory private to one thread.
    Local,
    /// Kernel or function parameters.
    Param(ParamWindow),
    /// The read-only constant banks.
    Const,
}

impl StateSpace {
    /// The scope beyond which no other thread can reach this space, if it is narrower than `sys`.
    ///
    /// Shared memory is reachable only inside the cluster, so `ld.relaxed.shared.sys`
    /// synchronises exactly like `.cluster`; local memory is private to its thread (`None` here
    /// means "no narrowing").
    pub fn reach(self) -> Option<Scope> {
        match self {
            StateSpace::Shared(SharedWindow::Cta) => Some(Scope::Cta),
            StateSpace::Shared(SharedWindow::Cluster) => Some(Scope::Cluster),
            StateSpace::Generic
            | StateSpace::Global
            | StateSpace::Local
            | StateSpace::Param(_)
            | StateSpace::Const => None,
        }
    }
}

impl fmt::Display for StateSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StateSpace::Generic => "generic",
            StateSpace::Global => "global",
            StateSpace::Shared(SharedWindow::Cta) => "shared::cta",
            StateSpace::Shared(SharedWindow::Cluster) => "shared::cluster",
            StateSpace::Local => "local",
            StateSpace::Param(ParamWindow::Entry) => "param::entry",
            StateSpace::Param(ParamWindow::Func) => "param::func",
            StateSpace::Const => "const",
        })
    }
}

/// The memory-ordering semantics of a load (`ld`).
///
/// A release load cannot be expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadSem {
    /// `.weak` (also the default): no synchronisation, no scope.
    Weak,
    /// `.volatile`: relaxed at system scope, plus the volatile-instruction promises.
    Volatile,
    /// `.relaxed.scope`: a strong load that orders nothing by itself.
    Relaxed(Scope),
    /// `.acquire.scope`: a strong load that can end an acquire pattern.
    Acquire(Scope),
    /// `.mmio.relaxed.sys`: a strong system-scope load that is never cached, merged or elided.
    Mmio,
}

impl LoadSem {
    /// Whether the memory model treats this load as strong.
    pub fn is_strong(self) -> bool {
        !matches!(self, LoadSem::Weak)
    }

    /// The scope of a strong load (`volatile` and `mmio` act at `sys`); `None` for weak loads.
    pub fn scope(self) -> Option<Scope> {
        match self {
            LoadSem::Weak => None,
            LoadSem::Volatile | LoadSem::Mmio => Some(Scope::Sys),
            LoadSem::Relaxed(s) | LoadSem::Acquire(s) => Some(s),
        }
    }

    /// The load semantics of a qualifier that may have been omitted (omitted means `.weak`).
    pub fn effective(sem: Option<LoadSem>) -> LoadSem {
        sem.unwrap_or(LoadSem::Weak)
    }
}

/// The memory-ordering semantics of a store (`st`).
///
/// An acquire store cannot be expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreSem {
    /// `.weak` (also the default).
    Weak,
    /// `.volatile`: relaxed at system scope, plus the volatile-instruction promises.
    Volatile,
    /// `.relaxed.scope`.
    Relaxed(Scope),
    /// `.release.scope`: can start a release pattern.
    Release(Scope),
    /// `.mmio.relaxed.sys`.
    Mmio,
}

impl StoreSem {
    /// Whether the memory model treats this store as strong.
    pub fn is_strong(self) -> bool {
        !matches!(self, StoreSem::Weak)
    }

    /// The scope of a strong store (`volatile` and `mmio` act at `sys`); `None` for weak stores.
    pub fn scope(self) -> Option<Scope> {
        match self {
            StoreSem::Weak => None,
            StoreSem::Volatile | StoreSem::Mmio => Some(Scope::Sys),
            StoreSem::Relaxed(s) | StoreSem::Release(s) => Some(s),
        }
    }

    /// The store semantics of a qualifier that may have been omitted (omitted means `.weak`).
    pub fn effective(sem: Option<StoreSem>) -> StoreSem {
        sem.unwrap_or(StoreSem::Weak)
    }
}

/// The memory-ordering semantics of a read-modify-write (`atom`, `red`).
///
/// The scope is carried beside it (`atom` defaults to `.relaxed.gpu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwSem {
    /// `.relaxed` (the default).
    Relaxed,
    /// `.acquire`: the read half is an acquire.
    Acquire,
    /// `.release`: the write half is a release.
    Release,
    /// `.acq_rel`: both.
    AcqRel,
}

impl RmwSem {
    /// The scope an `atom`/`red` without a scope qualifier acts at.
    pub const DEFAULT_SCOPE: Scope = Scope::Gpu;

    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            RmwSem::Relaxed => "relaxed",
            RmwSem::Acquire => "acquire",
            RmwSem::Release => "release",
            RmwSem::AcqRel => "acq_rel",
        }
    }

    /// Whether the read half acquires.
    pub fn read_acquires(self) -> bool {
        matches!(self, RmwSem::Acquire | RmwSem::AcqRel)
    }

    /// Whether the write half releases.
    pub fn write_releases(self) -> bool {
        matches!(self, RmwSem::Release | RmwSem::AcqRel)
    }
}

/// The semantics of a memory fence (`fence`, `membar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceSem {
    /// `fence.sc` (and `membar`): an acq_rel fence that also joins the per-scope total order.
    Sc,
    /// `fence.acq_rel` (also the default of a bare `fence`).
    AcqRel,
    /// `fence.acquire` (PTX 8.6).
    Acquire,
    /// `fence.release` (PTX 8.6).
    Release,
}

impl FenceSem {
    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            FenceSem::Sc => "sc",
            FenceSem::AcqRel => "acq_rel",
            FenceSem::Acquire => "acquire",
            FenceSem::Release => "release",
        }
    }
}

/// A memory proxy: the path through which an access reaches memory.
///
/// Accesses through different proxies are never morally strong with each other, and causality
/// between them needs a proxy fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proxy {
    /// The generic proxy of ordinary loads and stores.
    Generic,
    /// Texture fetches.
    Texture,
    /// Surface loads and stores.
    Surface,
    /// The constant cache.
    Constant,
    /// Asynchronous operations (bulk copies, wgmma, tcgen05, TMA).
    Async,
    /// Tensor-map accesses.
    Tensormap,
    /// Fabric memory accesses.
    Fabric,
    /// The read-only path (`ld.global.nc` under the permissive modelling of §9.3).
    ReadOnly,
}

impl Proxy {
    /// The proxy name as written in `fence.proxy.NAME` (where it has one).
    pub fn name(self) -> &'static str {
        match self {
            Proxy::Generic => "generic",
            Proxy::Texture => "texture",
            Proxy::Surface => "surface",
            Proxy::Constant => "constant",
            Proxy::Async => "async",
            Proxy::Tensormap => "tensormap",
            Proxy::Fabric => "fabric",
            Proxy::ReadOnly => "readonly",
        }
    }
}

impl fmt::Display for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest_in_declaration_order() {
        assert!(Scope::Cta < Scope::Cluster);
        assert!(Scope::Cluster < Scope::Gpu);
        assert!(Scope::Gpu < Scope::Sys);
        for s in Scope::ALL {
            assert_eq!(Scope::from_name(s.name()), Some(s));
        }
        assert_eq!(Scope::from_name("warp"), None);
    }

    #[test]
    fn volatile_and_mmio_act_at_system_scope() {
        assert_eq!(LoadSem::Volatile.scope(), Some(Scope::Sys));
        assert_eq!(StoreSem::Mmio.scope(), Some(Scope::Sys));
        assert_eq!(LoadSem::Weak.scope(), None);
        assert!(!LoadSem::effective(None).is_strong());
        assert!(StoreSem::Release(Scope::Cta).is_strong());
    }

    #[test]
    fn shared_memory_narrows_reach() {
        assert_eq!(
            StateSpace::Shared(SharedWindow::Cta).reach(),
            Some(Scope::Cta)
        );
        assert_eq!(StateSpace::Global.reach(), None);
    }

    #[test]
    fn rmw_halves() {
        assert!(RmwSem::AcqRel.read_acquires() && RmwSem::AcqRel.write_releases());
        assert!(!RmwSem::Release.read_acquires() && RmwSem::Release.write_releases());
        assert!(RmwSem::Acquire.read_acquires() && !RmwSem::Acquire.write_releases());
    }
}
