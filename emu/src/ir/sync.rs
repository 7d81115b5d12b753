//! Qualifiers of synchronisation instructions: barriers, `membar`/`fence`, `atom`, `red`, grid-dependency control and `call`.

use super::*;

/// Which barrier instruction spelling, and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bar {
    /// `barrier` (else `bar`).
    pub barrier: bool,
    /// `.cta` written.
    pub cta: bool,
    /// Sync, arrive or reduce.
    pub kind: BarKind,
    /// `.aligned` written (for `barrier`; `bar` is always aligned).
    pub aligned: bool,
}

impl Bar {
    /// Whether every thread of a warp must execute this barrier together (`bar` always;
    /// `barrier` only with `.aligned`).
    pub fn is_aligned(&self) -> bool {
        !self.barrier || self.aligned
    }
}

/// What a barrier does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarKind {
    /// `.sync`: arrive and wait (also the bare `bar 0` of old PTX).
    Sync,
    /// `.arrive`: arrive without waiting.
    Arrive,
    /// `.red.op.type`: arrive, wait, and reduce a predicate.
    Red(BarRedOp),
}

/// The reduction of `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    /// `.popc.u32`: count of true predicates.
    Popc,
    /// `.and.pred`
    And,
    /// `.or.pred`
    Or,
}

/// The level of a `membar`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MembarLevel {
    /// `.cta`
    Cta,
    /// `.gl` (gpu scope)
    Gl,
    /// `.sys`
    Sys,
}

impl MembarLevel {
    /// The scope of the `fence.sc` this `membar` is a synonym for.
    pub fn scope(self) -> Scope {
        match self {
            MembarLevel::Cta => Scope::Cta,
            MembarLevel::Gl => Scope::Gpu,
            MembarLevel::Sys => Scope::Sys,
        }
    }
}

/// Qualifiers of a `fence`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// `fence{.sem}.scope`: a memory fence (`sem` `None` means the default `.acq_rel`).
    Memory {
        /// The semantics as written.
        sem: Option<FenceSem>,
        /// The scope.
        scope: Scope,
    },
    /// `fence.proxy.alias`: orders accesses through virtual aliases.
    ProxyAlias,
    /// `fence.proxy.async{.space}`: orders generic-proxy and async-proxy accesses.
    ProxyAsync(Option<StateSpace>),
    /// `fence.proxy.P` for the litmus dialect's texture/surface/constant/generic proxies.
    /// Not accepted in `.ptx` modules.
    ProxyKind(Proxy),
    /// `fence.mbarrier_init.release.cluster`: a release fence at cluster scope that orders only
    /// this thread's prior `mbarrier.init`s before its later cluster-scope accesses.
    MbarrierInit,
    /// `fence.proxy.tensormap::generic.{release,acquire}.scope`.
    ProxyTensormap {
        /// `.release` (else `.acquire`).
        release: bool,
        /// The scope.
        scope: Scope,
    },
}

/// The operation of `atom`/`red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
    /// `.cas`: compare and swap (two value operands).
    Cas,
    /// `.exch`: exchange.
    Exch,
    /// `.add`
    Add,
    /// `.inc`: `old >= b ? 0 : old + 1`.
    Inc,
    /// `.dec`: `(old == 0 || old > b) ? b : old - 1`.
    Dec,
    /// `.min`
    Min,
    /// `.max`
    Max,
}

/// Qualifiers of `atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// `.relaxed/.acquire/.release/.acq_rel`; `None` when not written (relaxed).
    pub sem: Option<RmwSem>,
    /// `.cta/.cluster/.gpu/.sys`; `None` when not written (gpu).
    pub scope: Option<Scope>,
    /// The state space.
    pub space: SpaceQual,
    /// The operation.
    pub op: AtomOp,
    /// `.v2/.v4/.v8` (vector float atomics on sm_90).
    pub vec: Option<VecWidth>,
    /// The type.
    pub ty: Type,
    /// `.noftz` (f16/bf16 add).
    pub noftz: bool,
    /// `.L2::cache_hint`.
    pub cache_hint: bool,
}

/// Qualifiers of `red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Red {
    /// `.relaxed/.release`; `None` when not written.
    pub sem: Option<RmwSem>,
    /// The scope; `None` when not written (gpu).
    pub scope: Option<Scope>,
    /// The state space.
    pub space: SpaceQual,
    /// The operation (never `cas`/`exch`).
    pub op: AtomOp,
    /// `.v2/.v4/.v8`.
    pub vec: Option<VecWidth>,
    /// The type.
    pub ty: Type,
    /// `.noftz`.
    pub noftz: bool,
    /// `.L2::cache_hint`.
    pub cache_hint: bool,
}

/// The action of `griddepcontrol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GriddepAction {
    /// `.launch_dependents`
    LaunchDependents,
    /// `.wait`
    Wait,
}

/// A call: `call{.uni} (ret…), callee, (args…){, prototype-or-targets};`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// `.uni`
    pub uni: bool,
    /// Return-value operands (`.param` symbols, or registers for `.reg` returns).
    pub returns: Vec<Operand>,
    /// The callee: `Operand::Symbol` of a function, or a register for an indirect call.
    pub callee: Operand,
    /// Argument operands.
    pub args: Vec<Operand>,
    /// For indirect calls: the prototype or `.calltargets` list label.
    pub target_info: Option<LabelOrProto>,
}

/// The last operand of an indirect call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelOrProto {
    /// A `.callprototype` label.
    Proto(ProtoId),
    /// A `.calltargets` list label.
    Targets(LabelId),
}
