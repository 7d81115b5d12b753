//! The typed payloads of `tcgen05.mma` (and `.ws`) and `tcgen05.commit` (PTX ISA
//! "tcgen05.mma", "tcgen05.commit").
//!
//! The shapes and element types of an MMA are in its instruction descriptor, a run-time value
//! ([`crate::semantics::tcgen05_idesc`]); the qualifiers only name the kind, the CTA group, the
//! weight-stationary form, block scaling and the collector-buffer hint.

use super::tcgen05::CtaGroup;
pub use crate::semantics::tcgen05_idesc::MmaKind;

/// `.scale_vec::NX` of the block-scaled kinds: scale factors per 32-byte K block of A's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleVec {
    /// `.scale_vec::1X` (`.kind::mxf8f6f4`).
    X1,
    /// `.scale_vec::2X` (`.kind::mxf4`, `.kind::mxf4nvf4`).
    X2,
    /// `.scale_vec::4X` (`.kind::mxf4nvf4`).
    X4,
}

impl ScaleVec {
    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            ScaleVec::X1 => "scale_vec::1X",
            ScaleVec::X2 => "scale_vec::2X",
            ScaleVec::X4 => "scale_vec::4X",
        }
    }
}

/// The collector buffer of `.collector::<buffer>::<op>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectorBuffer {
    /// `a` (A, non-`.ws`).
    A,
    /// `b0`..`b3` (B, `.ws`).
    B(u8),
}

/// What the collector hint asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectorOp {
    /// `::fill`: read the operand and keep it.
    Fill,
    /// `::use`: use the kept operand.
    Use,
    /// `::lastuse`: use it for the last time.
    LastUse,
    /// `::discard`: drop it.
    Discard,
}

/// `.collector::<buffer>::<op>`: a performance hint, recorded but without effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Collector {
    /// The buffer.
    pub buffer: CollectorBuffer,
    /// The operation.
    pub op: CollectorOp,
}

impl Collector {
    /// The qualifier as written, without the dot.
    pub fn name(self) -> String {
        let b = match self.buffer {
            CollectorBuffer::A => "a".to_string(),
            CollectorBuffer::B(i) => format!("b{i}"),
        };
        let op = match self.op {
            CollectorOp::Fill => "fill",
            CollectorOp::Use => "use",
            CollectorOp::LastUse => "lastuse",
            CollectorOp::Discard => "discard",
        };
        format!("collector::{b}::{op}")
    }
}

/// `tcgen05.mma{.ws}.cta_group.kind{.block_scale{.scale_vec}}{.collector_usage}` — operands
/// `[d-tmem], a-desc|[a-tmem], b-desc, idesc, {disable-output-lane,} enable-input-d
/// {, scale-input-d}`, or for block scaling `…, idesc, [scale-A-tmem], [scale-B-tmem],
/// enable-input-d`, or for `.ws` `…, idesc, enable-input-d{, zero-column-mask-desc}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tcgen05Mma {
    /// The CTA group.
    pub group: CtaGroup,
    /// The kind.
    pub kind: MmaKind,
    /// `.ws`: weight-stationary.
    pub ws: bool,
    /// `.block_scale` with its vector size (the kind's default when not written).
    pub scale_vec: Option<ScaleVec>,
    /// Whether `.scale_vec::NX` was written (for printing).
    pub scale_vec_written: bool,
    /// Whether the vector size was written as `.block32` (`::1X` for mxf8f6f4, `::2X` for
    /// mxf4/mxf4nvf4) or `.block16` (`::4X`), the ISA's aliases by block size.
    pub block_alias: bool,
    /// `.collector_usage` hint.
    pub collector: Option<Collector>,
}

/// `tcgen05.commit.cta_group.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64
/// [mbar]{, ctaMask}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tcgen05Commit {
    /// The CTA group.
    pub group: CtaGroup,
    /// `.shared::cluster` written.
    pub shared_cluster: bool,
    /// `.multicast::cluster`: arrive on the mbarrier of every CTA in `ctaMask`.
    pub multicast: bool,
}
