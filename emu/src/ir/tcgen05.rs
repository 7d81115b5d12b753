//! The typed payloads of the `tcgen05` instructions ptxemu executes (PTX ISA "Tensorcore 5th
//! Generation Instructions"): Tensor Memory allocation, `tcgen05.ld`/`st` between registers and
//! Tensor Memory (with `.red`), `tcgen05.wait`, `tcgen05.fence` and `tcgen05.shift`.
//!
//! `.sync.aligned` is mandatory where PTX requires it, so it is implied rather than stored.
//! Combinations that need the shape and the repeat count together (`.num` limits per shape,
//! `.red` shapes) are checked by the validator, which names the rule.

pub use crate::tcgen05::layout::Shape as TmemShape;

/// One `tcgen05` instruction ptxemu executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tcgen05 {
    /// `tcgen05.alloc` — `[dst], nCols`.
    Alloc(Tcgen05Alloc),
    /// `tcgen05.dealloc.cta_group.sync.aligned.b32` — `taddr, nCols`.
    Dealloc(CtaGroup),
    /// `tcgen05.relinquish_alloc_permit.cta_group.sync.aligned` — no operands.
    Relinquish(CtaGroup),
    /// `tcgen05.ld` and `tcgen05.ld.red` — `{r…}{, redval}, [taddr]{, immHalfSplitoff}`.
    Ld(Tcgen05Ld),
    /// `tcgen05.st` — `[taddr]{, immHalfSplitoff}, {r…}`.
    St(Tcgen05St),
    /// `tcgen05.wait::ld/st.sync.aligned` — no operands.
    Wait(Tcgen05Wait),
    /// `tcgen05.fence::before_thread_sync/after_thread_sync` — no operands.
    Fence(Tcgen05Fence),
    /// `tcgen05.shift.cta_group.down` — `[taddr]`.
    Shift(CtaGroup),
    /// `tcgen05.mma{.ws}` ([`super::tcgen05_mma`]).
    Mma(super::tcgen05_mma::Tcgen05Mma),
    /// `tcgen05.commit` ([`super::tcgen05_mma`]).
    Commit(super::tcgen05_mma::Tcgen05Commit),
    /// `tcgen05.cp` — `[taddr], s-desc` (shared memory to Tensor Memory).
    Cp(super::Tcgen05Cp),
}

impl Tcgen05 {
    /// The CTA group of the instructions that name one.
    pub fn group(&self) -> Option<CtaGroup> {
        match self {
            Tcgen05::Alloc(a) => Some(a.group),
            Tcgen05::Dealloc(g) | Tcgen05::Relinquish(g) | Tcgen05::Shift(g) => Some(*g),
            Tcgen05::Mma(m) => Some(m.group),
            Tcgen05::Commit(c) => Some(c.group),
            Tcgen05::Cp(c) => Some(c.group),
            Tcgen05::Ld(_) | Tcgen05::St(_) | Tcgen05::Wait(_) | Tcgen05::Fence(_) => None,
        }
    }
}

/// `.cta_group::1` (one CTA) or `::2` (a CTA pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CtaGroup {
    /// `.cta_group::1`
    One,
    /// `.cta_group::2`
    Two,
}

impl CtaGroup {
    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            CtaGroup::One => "cta_group::1",
            CtaGroup::Two => "cta_group::2",
        }
    }
}

/// `.num`: how many times the shape repeats along the columns (`.x1` … `.x128`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repeat {
    /// `.x1`
    X1,
    /// `.x2`
    X2,
    /// `.x4`
    X4,
    /// `.x8`
    X8,
    /// `.x16`
    X16,
    /// `.x32`
    X32,
    /// `.x64`
    X64,
    /// `.x128`
    X128,
}

/// Every repeat count, smallest first.
pub const REPEATS: [Repeat; 8] = [
    Repeat::X1,
    Repeat::X2,
    Repeat::X4,
    Repeat::X8,
    Repeat::X16,
    Repeat::X32,
    Repeat::X64,
    Repeat::X128,
];

impl Repeat {
    /// The count (1 … 128).
    pub fn count(self) -> u32 {
        match self {
            Repeat::X1 => 1,
            Repeat::X2 => 2,
            Repeat::X4 => 4,
            Repeat::X8 => 8,
            Repeat::X16 => 16,
            Repeat::X32 => 32,
            Repeat::X64 => 64,
            Repeat::X128 => 128,
        }
    }

    /// The repeat written `.x<n>`, if `n` is one.
    pub fn from_count(n: u32) -> Option<Repeat> {
        REPEATS.into_iter().find(|r| r.count() == n)
    }
}

/// `tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tcgen05Alloc {
    /// The CTA group.
    pub group: CtaGroup,
    /// `.shared::cta` written (otherwise `dst` is a generic address).
    pub shared_cta: bool,
}

/// The reduction of `tcgen05.ld.red`: min or max.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmemRedOp {
    /// `.min`
    Min,
    /// `.max`
    Max,
}

/// What `tcgen05.ld.red` reduces, with the modifiers only `.f32` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmemRedType {
    /// `.f32`, with `.abs` (reduce magnitudes) and `.NaN` (a NaN input gives NaN).
    F32 {
        /// `.abs`
        abs: bool,
        /// `.NaN`
        nan: bool,
    },
    /// `.u32`
    U32,
    /// `.s32`
    S32,
}

/// `tcgen05.ld.red`'s `.redOp` and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TmemRed {
    /// Min or max.
    pub op: TmemRedOp,
    /// The element type and its modifiers.
    pub ty: TmemRedType,
}

/// `tcgen05.ld{.red}.sync.aligned.shape.num{.pack::16b}…`: operands `{r…}{, redval}, [taddr]
/// {, immHalfSplitoff}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tcgen05Ld {
    /// The data-movement shape.
    pub shape: TmemShape,
    /// The repeat count.
    pub num: Repeat,
    /// `.pack::16b`: two 16-bit cells into one register.
    pub pack: bool,
    /// `.red` with its operation and type (`None`: a plain `.b32` load).
    pub red: Option<TmemRed>,
}

/// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, {r…}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tcgen05St {
    /// The data-movement shape.
    pub shape: TmemShape,
    /// The repeat count.
    pub num: Repeat,
    /// `.unpack::16b`: one register into two 16-bit cells.
    pub unpack: bool,
}

/// `tcgen05.wait::ld` or `tcgen05.wait::st` (`.sync.aligned`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tcgen05Wait {
    /// `wait::ld`: the warp's earlier `tcgen05.ld`s have completed.
    Ld,
    /// `wait::st`: the warp's earlier `tcgen05.st`s have completed.
    St,
}

/// `tcgen05.fence::before_thread_sync` or `::after_thread_sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tcgen05Fence {
    /// `fence::before_thread_sync`: earlier tcgen05 work is ordered before later syncs.
    BeforeThreadSync,
    /// `fence::after_thread_sync`: later tcgen05 work is ordered after earlier syncs.
    AfterThreadSync,
}
