//! Qualifiers of the memory instructions: cache operators and hints, `ld`, `ldu`, `st`, `prefetch` and `createpolicy`.

use super::*;

/// A cache operator of `ld`/`st` (PTX ISA "Cache Operators").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    /// `.ca`: cache at all levels (the default load).
    Ca,
    /// `.cg`: cache in L2, not L1.
    Cg,
    /// `.cs`: streaming.
    Cs,
    /// `.lu`: last use.
    Lu,
    /// `.cv`: do not cache; fetch again.
    Cv,
    /// `.wb`: write back (the default store).
    Wb,
    /// `.wt`: write through.
    Wt,
}

impl CacheOp {
    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            CacheOp::Ca => "ca",
            CacheOp::Cg => "cg",
            CacheOp::Cs => "cs",
            CacheOp::Lu => "lu",
            CacheOp::Cv => "cv",
            CacheOp::Wb => "wb",
            CacheOp::Wt => "wt",
        }
    }
}

/// An L1 eviction priority (`.L1::evict_*`, `.L1::no_allocate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L1Evict {
    /// `.L1::evict_normal`
    Normal,
    /// `.L1::evict_unchanged`
    Unchanged,
    /// `.L1::evict_first`
    First,
    /// `.L1::evict_last`
    Last,
    /// `.L1::no_allocate`
    NoAllocate,
}

/// An L2 eviction priority (`.L2::evict_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L2Evict {
    /// `.L2::evict_normal`
    Normal,
    /// `.L2::evict_first`
    First,
    /// `.L2::evict_last`
    Last,
}

/// An L2 prefetch size hint (`.L2::64B/128B/256B`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrefetchSize {
    /// `.L2::64B`
    B64,
    /// `.L2::128B`
    B128,
    /// `.L2::256B`
    B256,
}

/// The cache hints of a memory instruction, none of which changes values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CacheHints {
    /// `.L1::…` eviction priority.
    pub l1: Option<L1Evict>,
    /// `.L2::evict_…` priority.
    pub l2: Option<L2Evict>,
    /// `.L2::cache_hint`: a cache-policy operand follows the others.
    pub cache_hint: bool,
    /// `.L2::64B/128B/256B`.
    pub prefetch: Option<PrefetchSize>,
}

/// The state space qualifier of a memory instruction, remembering whether a `::` window was
/// written (`.shared` and `.shared::cta` mean the same; only PTX ≥ 7.8 accepts the latter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpaceQual {
    /// The state space meant.
    pub space: StateSpace,
    /// Whether the `::cta`/`::cluster`/`::entry`/`::func` sub-qualifier was written.
    pub explicit_window: bool,
}

impl SpaceQual {
    /// Generic addressing (no state space written).
    pub const GENERIC: SpaceQual = SpaceQual {
        space: StateSpace::Generic,
        explicit_window: false,
    };

    /// `.shared::cta`, written with its window: what `.shared::cluster` operands that are a
    /// CTA's own addresses lower to as well.
    pub const SHARED_CTA: SpaceQual = SpaceQual {
        space: StateSpace::Shared(SharedWindow::Cta),
        explicit_window: true,
    };

    /// A space written without a `::` sub-qualifier.
    pub fn plain(space: StateSpace) -> SpaceQual {
        SpaceQual {
            space,
            explicit_window: false,
        }
    }
}

/// Qualifiers of `ld`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ld {
    /// Semantics, `.nc` and cache operator, in the combinations PTX allows.
    pub mode: LoadMode,
    /// The state space.
    pub space: SpaceQual,
    /// Cache hints.
    pub hints: CacheHints,
    /// `.v2/.v4/.v8`.
    pub vec: Option<VecWidth>,
    /// The memory type.
    pub ty: Type,
}

impl Ld {
    /// `.weak/.volatile/.relaxed.S/.acquire.S/.mmio.relaxed.sys`; `None` when none is written
    /// (the load is then weak).
    pub fn sem(&self) -> Option<LoadSem> {
        self.mode.sem()
    }

    /// `.nc`: the non-coherent read-only path (`ld.global.nc`).
    pub fn nc(&self) -> bool {
        self.mode.nc()
    }

    /// The cache operator, if written.
    pub fn cop(&self) -> Option<CacheOp> {
        self.mode.cop()
    }
}

impl St {
    /// `.weak/.volatile/.relaxed.S/.release.S/.mmio.relaxed.sys`; `None` when none written.
    pub fn sem(&self) -> Option<StoreSem> {
        self.mode.sem()
    }

    /// The cache operator, if written.
    pub fn cop(&self) -> Option<CacheOp> {
        self.mode.cop()
    }
}

/// Qualifiers of `ldu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ldu {
    /// `.global` or generic.
    pub space: SpaceQual,
    /// `.v2/.v4`.
    pub vec: Option<VecWidth>,
    /// The memory type.
    pub ty: Type,
}

/// Qualifiers of `st`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct St {
    /// Semantics and cache operator, in the combinations PTX allows.
    pub mode: StoreMode,
    /// The state space.
    pub space: SpaceQual,
    /// Cache hints.
    pub hints: CacheHints,
    /// `.v2/.v4/.v8`.
    pub vec: Option<VecWidth>,
    /// The memory type.
    pub ty: Type,
}

/// Qualifiers of `prefetch`/`prefetchu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prefetch {
    /// `prefetchu` (uniform, L1 only).
    pub uniform: bool,
    /// `.global/.local` or generic.
    pub space: SpaceQual,
    /// The level written (`L1`, `L2`, `L2::evict_last`, `L2::evict_normal`, `tensormap`).
    pub level: PrefetchLevel,
}

/// The cache level of a `prefetch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrefetchLevel {
    /// `.L1`
    L1,
    /// `.L2`
    L2,
    /// `.L2::evict_last`
    L2EvictLast,
    /// `.L2::evict_normal`
    L2EvictNormal,
    /// `.tensormap`
    Tensormap,
}

/// Qualifiers of `createpolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CreatePolicy {
    /// `.fractional` (else `.range`; `.cvt` converts an old policy).
    pub kind: PolicyKind,
    /// Primary priority.
    pub primary: L2Evict,
    /// Secondary priority (`.L2::evict_first`/`evict_unchanged`), if given.
    pub secondary: Option<L2Evict>,
}

/// How `createpolicy` builds its policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// `.fractional`: applies to a fraction of accesses.
    Fractional,
    /// `.range`: applies to an address range.
    Range,
    /// `.cvt.L2.b64`: converts an older policy.
    Cvt,
}
