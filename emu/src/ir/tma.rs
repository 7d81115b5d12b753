//! IR of the bulk asynchronous copies (TMA) and tensor maps (PTX ISA "cp.async.bulk",
//! "cp.reduce.async.bulk", "cp.async.bulk.prefetch", "cp.async.bulk.tensor",
//! "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor", "cp.async.bulk.commit_group",
//! "cp.async.bulk.wait_group", "tensormap.replace", "tensormap.cp_fenceproxy").
//!
//! Operand layouts (the tensor operand `[tmap, {c0, ...}]` is held as two operands: the
//! address, then the coordinate vector):
//! - `Bulk`: `[dst], [src], size{, [mbar]}{, policy}`
//! - `Reduce`: `[dst], [src], size{, [mbar]}{, policy}`
//! - `Tensor` load: `[dst], [tmap], {coords}, [mbar]{, {im2col offsets}}{, policy}`
//! - `Tensor` store / reduce: `[tmap], {coords}, [src]{, policy}`
//! - `Prefetch`: `[src], size{, policy}`; `PrefetchTensor`: `[tmap], {coords}{, {offsets}}{, policy}`
//! - `WaitGroup`: `N`
//! - `Replace`: `[tmap]{, ord}, value`
//! - `CpFenceproxy`: `[dst], [src], size`
//!
//! Not represented (refused by the parser, naming the form): the `.tile::gather4/scatter4` and
//! `.im2col::w(::128)` modes, and `.cp_mask`.

pub use crate::semantics::tma::RedOp;
use models::vocab::Scope;

/// A state space a bulk copy names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BulkSpace {
    /// `.global`
    Global,
    /// `.shared::cta`
    SharedCta,
    /// `.shared::cluster` (only the executing CTA's own shared memory is reachable: clusters
    /// of one CTA)
    SharedCluster,
}

impl BulkSpace {
    /// The qualifier as written.
    pub fn name(self) -> &'static str {
        match self {
            BulkSpace::Global => ".global",
            BulkSpace::SharedCta => ".shared::cta",
            BulkSpace::SharedCluster => ".shared::cluster",
        }
    }
}

/// How a bulk copy signals completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Completion {
    /// `.mbarrier::complete_tx::bytes`: the copied bytes complete transactions on an mbarrier.
    Mbarrier,
    /// `.bulk_group`: the copy joins the thread's bulk async-group.
    BulkGroup,
}

/// `cp.async.bulk.dst.src.completion{.level::cache_hint}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BulkCopy {
    /// Destination space.
    pub dst: BulkSpace,
    /// Source space.
    pub src: BulkSpace,
    /// Completion mechanism.
    pub completion: Completion,
    /// `.L2::cache_hint`
    pub cache_hint: bool,
    /// `.multicast::cluster` (a `ctaMask` operand follows the mbarrier).
    pub multicast: bool,
}

/// `cp.reduce.async.bulk.dst.src.completion{.level::cache_hint}.redOp{.noftz}.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BulkReduce {
    /// The copy part.
    pub copy: BulkCopy,
    /// The operation.
    pub op: RedOp,
    /// `.noftz` (f16/bf16 add).
    pub noftz: bool,
    /// The element type.
    pub ty: super::Type,
}

/// The direction of a tensor copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorDir {
    /// global -> shared (`cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global`).
    Load,
    /// shared -> global (`cp.async.bulk.tensor.Nd.global.shared::cta`).
    Store,
    /// shared -> global reduction (`cp.reduce.async.bulk.tensor`).
    Reduce(RedOp),
}

/// `cp{.reduce}.async.bulk.tensor.Nd....`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorCopy {
    /// Rank of the coordinates, 1 to 5.
    pub dim: u8,
    /// Direction (and reduction).
    pub dir: TensorDir,
    /// The shared-memory space (`.shared::cluster` or `.shared::cta`).
    pub shared: BulkSpace,
    /// `.im2col` (else `.tile`).
    pub im2col: bool,
    /// `.tile` written.
    pub tile_written: bool,
    /// Completion mechanism.
    pub completion: Completion,
    /// `.L2::cache_hint`
    pub cache_hint: bool,
    /// `.multicast::cluster` (a `ctaMask` operand follows the mbarrier / im2col offsets).
    pub multicast: bool,
    /// `.cta_group::1` / `::2` (loads only): with `::2` the mbarrier may be in the
    /// destination CTA's pair peer.
    pub cta_group: Option<super::CtaGroup>,
}

/// A field `tensormap.replace` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmapField {
    /// `.global_address` (b64)
    GlobalAddress,
    /// `.rank` (value: rank - 1)
    Rank,
    /// `.box_dim` (ordinal)
    BoxDim,
    /// `.global_dim` (ordinal)
    GlobalDim,
    /// `.global_stride` (ordinal, b64)
    GlobalStride,
    /// `.element_stride` (ordinal)
    ElementStride,
    /// `.elemtype`
    Elemtype,
    /// `.interleave_layout`
    InterleaveLayout,
    /// `.swizzle_mode`
    SwizzleMode,
    /// `.swizzle_atomicity`
    SwizzleAtomicity,
    /// `.fill_mode`
    FillMode,
}

/// The fields by their qualifier.
pub const TMAP_FIELDS: [(TmapField, &str); 11] = [
    (TmapField::GlobalAddress, "global_address"),
    (TmapField::Rank, "rank"),
    (TmapField::BoxDim, "box_dim"),
    (TmapField::GlobalDim, "global_dim"),
    (TmapField::GlobalStride, "global_stride"),
    (TmapField::ElementStride, "element_stride"),
    (TmapField::Elemtype, "elemtype"),
    (TmapField::InterleaveLayout, "interleave_layout"),
    (TmapField::SwizzleMode, "swizzle_mode"),
    (TmapField::SwizzleAtomicity, "swizzle_atomicity"),
    (TmapField::FillMode, "fill_mode"),
];

impl TmapField {
    /// The qualifier.
    pub fn name(self) -> &'static str {
        TMAP_FIELDS
            .iter()
            .find(|f| f.0 == self)
            .map_or("?", |f| f.1)
    }

    /// Whether the field takes an ordinal operand.
    pub fn has_ordinal(self) -> bool {
        matches!(
            self,
            TmapField::BoxDim
                | TmapField::GlobalDim
                | TmapField::GlobalStride
                | TmapField::ElementStride
        )
    }
}

/// The instructions of the bulk-copy and tensor-map families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tma {
    /// `cp.async.bulk` (non-tensor).
    Bulk(BulkCopy),
    /// `cp.reduce.async.bulk` (non-tensor).
    Reduce(BulkReduce),
    /// `cp{.reduce}.async.bulk.tensor`.
    Tensor(TensorCopy),
    /// `cp.async.bulk.prefetch.L2.global{.L2::cache_hint}`.
    Prefetch {
        /// `.L2::cache_hint`
        cache_hint: bool,
    },
    /// `cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile|.im2col}{.L2::cache_hint}`.
    PrefetchTensor {
        /// Rank.
        dim: u8,
        /// `.im2col`
        im2col: bool,
        /// `.tile` written.
        tile_written: bool,
        /// `.L2::cache_hint`
        cache_hint: bool,
    },
    /// `cp.async.bulk.commit_group`.
    CommitGroup,
    /// `cp.async.bulk.wait_group{.read} N`.
    WaitGroup {
        /// `.read`: wait only until the sources have been read.
        read: bool,
    },
    /// `tensormap.replace.tile.field{.space}.b1024.type`.
    Replace {
        /// The field.
        field: TmapField,
        /// `.shared::cta` (true) or `.global` (false); `None`: generic.
        shared: Option<bool>,
        /// `.b32` or `.b64`.
        ty: super::Type,
    },
    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned`.
    CpFenceproxy {
        /// The scope.
        scope: Scope,
    },
}
