//! The allocation rendezvous of a CTA pair (PTX ISA "tcgen05: CTA pair", "Issue granularity",
//! "Tensor Memory allocation"): with `.cta_group::2`, `tcgen05.alloc`, `tcgen05.dealloc` and
//! `tcgen05.relinquish_alloc_permit` are executed collectively by one warp of each CTA of the
//! pair, with the same `nCols`; the allocation gives both CTAs the same columns.
//!
//! ptxemu executes each CTA's side on its own Tensor Memory when its warp reaches it, and
//! records it ([`crate::tcgen05::pair_log`]). When the second CTA of the pair makes its `i`-th
//! pair operation it must match the first CTA's `i`-th (same instruction, `nCols`, column):
//! otherwise the fault names both CTAs and both operations. When the cluster has finished,
//! a CTA that made more pair operations than its peer is reported at its first unmatched one
//! (the peer never took part: on hardware the collective would never complete).
//! Both checks run in checked and unchecked mode alike (the pair's allocation state is not
//! defined otherwise).

use super::Ctx;
use crate::exec::cluster::triple;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::tcgen05::pair_log::{ordinal, PairLog, PairOp};

fn line(c: &Ctx<'_>, pc: u32) -> u32 {
    c.prog.info.get(pc as usize).map_or(0, |i| i.span.line)
}

/// Records the executing CTA's pair operation `op` (already made on its own Tensor Memory) and
/// checks it against its peer's operation of the same index, when the peer has made it.
///
/// # Errors
/// The two CTAs' operations differ.
pub(super) fn record(c: &mut Ctx<'_>, op: PairOp) -> Result<(), LaneFault> {
    let me = c.cluster.rank();
    let peer = me ^ 1;
    let index = {
        let log = &mut super::tcgen05::tmem(c).pair;
        log.ops.push(op);
        log.ops.len() - 1
    };
    let theirs = c
        .cluster
        .peer(peer)
        .and_then(|p| p.tmem.as_ref().and_then(|t| t.pair.ops.get(index).copied()));
    let Some(theirs) = theirs else {
        return Ok(());
    };
    if op.matches(&theirs) {
        return Ok(());
    }
    let (mine_at, peer_at) = (c.launch.ctaid, c.cluster.ctaid(peer));
    Err(LaneFault::new(FaultKind::Undefined {
        detail: format!(
            "the CTA pair's {} allocation operation differs between its CTAs: CTA {} (rank {me}) made {}, CTA {} (rank {peer}) made {}; with .cta_group::2 one warp of each CTA executes the same tcgen05.alloc/dealloc/relinquish_alloc_permit together, with the same nCols, and an allocation gives both the same columns",
            ordinal(index),
            triple(mine_at),
            op.describe(line(c, op.pc)),
            triple(peer_at),
            theirs.describe(line(c, theirs.pc)),
        ),
    }))
}

/// After the cluster finished: the first pair operation of `a` (CTA `ranks.0`) or `b` (CTA
/// `ranks.1`) that its peer never made, as (rank, op, index, the peer's count).
pub fn unmatched(
    a: &PairLog,
    b: &PairLog,
    ranks: (u32, u32),
) -> Option<(u32, PairOp, usize, usize)> {
    let (na, nb) = (a.ops.len(), b.ops.len());
    if na > nb {
        Some((ranks.0, a.ops[nb], nb, nb))
    } else if nb > na {
        Some((ranks.1, b.ops[na], na, na))
    } else {
        None
    }
}

/// The fault of [`unmatched`]'s operation `op` of CTA `at` (rank `rank`), whose peer `peer_at`
/// made only `peer_count` pair operations; `op_line` is the line of its instruction.
pub fn unmatched_fault(
    (rank, op, index, peer_count): (u32, PairOp, usize, usize),
    at: [u32; 3],
    peer_at: [u32; 3],
    op_line: u32,
) -> FaultKind {
    FaultKind::Undefined {
        detail: format!(
            "CTA {} (rank {rank}) made its {} CTA-pair allocation operation, {}, but its pair peer CTA {} (rank {}) exited after {peer_count}: with .cta_group::2 one warp of each CTA of the pair must execute it (the collective never completes)",
            triple(at),
            ordinal(index),
            op.describe(op_line),
            triple(peer_at),
            rank ^ 1,
        ),
    }
}
