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
//!
//! Where an allocation goes, and blocking (`allocate`, `blocked`; PTX ISA
//! "tcgen05.alloc"): an allocation gives columns free in the executing CTA's Tensor Memory;
//! with `.cta_group::2` both CTAs get the same columns, each writing the address to its own
//! shared-memory `dst` (`.shared::cta`). The first CTA of the pair to execute it picks the
//! first range free in both CTAs' Tensor Memory; the second takes the peer's column. When the
//! columns are not free, `tcgen05.alloc` blocks until they are: ptxemu retries the instruction
//! (the warp spins, as the SASS retry loop does, and other warps run). If every column in the
//! way belongs to the blocked warp itself (with a pair: in each CTA, to a warp that made the
//! CTA's pair allocations), nothing can free them and the fault names the CTA(s) and the
//! allocations. Other deadlocks (the holders wait for the blocked warp) end at `--max-steps`.

use super::Ctx;
use crate::exec::cluster::triple;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::Flow;
use crate::tcgen05::memory::{Allocation, TmemError};
use crate::tcgen05::pair_log::{ordinal, PairLog, PairOp, PairOpKind};

/// The columns of a `tcgen05.alloc` of `ncols` (`pair`: `.cta_group::2`) in the executing
/// CTA's Tensor Memory, allocated there.
///
/// # Errors
/// As [`crate::tcgen05::memory::TensorMemory::alloc_where`]; `NoSpace` means the alloc blocks.
pub(super) fn allocate(c: &mut Ctx<'_>, ncols: u32, pair: bool) -> Result<u32, TmemError> {
    let (warp, pc) = (c.ids.warp, c.pc);
    let (also, at) = if pair {
        peer_view(c, ncols)
    } else {
        (Vec::new(), None)
    };
    super::tcgen05::tmem(c).alloc_where(ncols, &also, at, (warp, pc))
}

/// The pair peer's allocations, and the column of its matching pair allocation when it has
/// already made it (then only that column will do).
fn peer_view(c: &mut Ctx<'_>, ncols: u32) -> (Vec<Allocation>, Option<u32>) {
    let index = super::tcgen05::tmem(c).pair.ops.len();
    let peer = c.cluster.rank() ^ 1;
    let Some(p) = c.cluster.peer(peer) else {
        return (Vec::new(), None);
    };
    let Some(t) = p.tmem.as_ref() else {
        return (Vec::new(), None);
    };
    let theirs = t.pair.ops.get(index).copied();
    match theirs.filter(|o| o.kind == PairOpKind::Alloc && o.ncols == ncols) {
        Some(o) => (Vec::new(), Some(o.column)),
        None => (t.allocations().to_vec(), None),
    }
}

/// A `tcgen05.alloc` that found no room (`e`): it blocks (the instruction is retried), or,
/// when nothing can ever free the columns, faults.
///
/// # Errors
/// The deadlock described in the module header.
pub(super) fn blocked(c: &mut Ctx<'_>, e: TmemError, pair: bool) -> Result<Flow, LaneFault> {
    let warp = c.ids.warp;
    let own: Vec<Allocation> = super::tcgen05::tmem(c).allocations().to_vec();
    let mut stuck = own.iter().all(|a| a.warp == warp);
    let mut peer_text = String::new();
    if pair && stuck {
        let peer = c.cluster.rank() ^ 1;
        let peer_at = c.cluster.ctaid(peer);
        let view = c.cluster.peer(peer).and_then(|p| {
            p.tmem.as_ref().map(|t| {
                let warps: Vec<u32> = t.pair.ops.iter().map(|o| o.warp).collect();
                (t.allocations().to_vec(), warps)
            })
        });
        if let Some((held, pair_warps)) = view {
            stuck = held.iter().all(|a| pair_warps.contains(&a.warp));
            peer_text = format!(
                "; its pair peer CTA {} holds {}",
                triple(peer_at),
                list(&held)
            );
        }
    }
    if !stuck {
        return Ok(Flow::Branch(c.pc));
    }
    let TmemError::NoSpace { ncols, .. } = e else {
        return Err(super::tcgen05::fault(c, e, "tcgen05.alloc", None, None));
    };
    Err(LaneFault::new(FaultKind::Undefined {
        detail: format!(
            "tcgen05.alloc{} of {ncols} columns blocks forever in CTA {}: the columns it needs are held by {}{peer_text}, all allocated by the warp(s) now blocked in this allocation, which cannot tcgen05.dealloc while they wait (tcgen05.alloc blocks until the columns are free: a deadlock)",
            if pair { ".cta_group::2" } else { "" },
            triple(c.launch.ctaid),
            list(&own),
        ),
    }))
}

fn list(a: &[Allocation]) -> String {
    if a.is_empty() {
        return "no allocation".into();
    }
    let items: Vec<String> = a
        .iter()
        .map(|x| {
            format!(
                "columns {}-{} (warp {})",
                x.column,
                x.column + x.ncols - 1,
                x.warp
            )
        })
        .collect();
    items.join(", ")
}

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
