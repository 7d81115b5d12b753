//! Qualifiers of the warp-wide instructions: `shfl`, `vote`, `match` and `redux`.

use super::*;

/// The mode of `shfl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`
    Up,
    /// `.down`
    Down,
    /// `.bfly`
    Bfly,
    /// `.idx`
    Idx,
}

/// Qualifiers of `shfl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shfl {
    /// `.sync` (takes a membermask operand).
    pub sync: bool,
    /// The exchange pattern.
    pub mode: ShflMode,
}

/// The mode of `vote`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.all`
    All,
    /// `.any`
    Any,
    /// `.uni`
    Uni,
    /// `.ballot.b32`
    Ballot,
}

/// Qualifiers of `vote`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vote {
    /// `.sync` (takes a membermask operand).
    pub sync: bool,
    /// The vote.
    pub mode: VoteMode,
}

/// Qualifiers of `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Match {
    /// `.all` (else `.any`).
    pub all: bool,
    /// `.b32` or `.b64`.
    pub ty: Type,
}

/// The operation of `redux.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    /// `.add`
    Add,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// Qualifiers of `redux.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Redux {
    /// The reduction.
    pub op: ReduxOp,
    /// The type.
    pub ty: Type,
    /// `.abs` (f32 min/max).
    pub abs: bool,
    /// `.NaN` (f32 min/max).
    pub nan: bool,
}
