//! Tensor Memory allocation (PTX ISA "Tensor Memory allocation", "tcgen05.alloc",
//! "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit"): the instructions, where an
//! allocation goes and when it blocks, the fault for memory still held at exit ([`leak`]),
//! and the allocation rendezvous of a CTA pair ("tcgen05: CTA pair", "Issue granularity"):
//! with `.cta_group::2`, `tcgen05.alloc`, `tcgen05.dealloc` and
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

use crate::cluster::shape::triple;
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Flow};
use crate::ir::CtaGroup;
use crate::tcgen05::exec::fault::fault;
use crate::tcgen05::exec::{collective, record as trace, tmem, undefined, uniform};
use crate::tcgen05::trace::TmemAction;

type R = Result<Flow, LaneFault>;
use crate::tcgen05::memory::{Allocation, TmemError};
use crate::tcgen05::pair_log::{ordinal, PairLog, PairOp, PairOpKind};

/// The columns of a `tcgen05.alloc` of `ncols` (`pair`: `.cta_group::2`) in the executing
/// CTA's Tensor Memory, allocated there.
///
/// # Errors
/// As [`crate::tcgen05::memory::TensorMemory::alloc_where`]; `NoSpace` means the alloc blocks.
pub(crate) fn allocate(c: &mut Ctx<'_>, ncols: u32, pair: bool) -> Result<u32, TmemError> {
    let (warp, pc) = (c.ids.warp, c.pc);
    let (also, at) = if pair {
        peer_view(c, ncols)
    } else {
        (Vec::new(), None)
    };
    crate::tcgen05::exec::tmem(c).alloc_where(ncols, &also, at, (warp, pc))
}

/// The pair peer's allocations, and the column of its matching pair allocation when it has
/// already made it (then only that column will do).
fn peer_view(c: &mut Ctx<'_>, ncols: u32) -> (Vec<Allocation>, Option<u32>) {
    let index = crate::tcgen05::exec::tmem(c).pair.ops.len();
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
pub(crate) fn blocked(c: &mut Ctx<'_>, e: TmemError, pair: bool) -> Result<Flow, LaneFault> {
    let warp = c.ids.warp;
    let own: Vec<Allocation> = crate::tcgen05::exec::tmem(c).allocations().to_vec();
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
        return Err(crate::tcgen05::exec::fault(
            c,
            e,
            "tcgen05.alloc",
            None,
            None,
        ));
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
pub(crate) fn record(c: &mut Ctx<'_>, op: PairOp) -> Result<(), LaneFault> {
    let me = c.cluster.rank();
    let peer = me ^ 1;
    let index = {
        let log = &mut crate::tcgen05::exec::tmem(c).pair;
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

/// `tcgen05.alloc.cta_group::N.sync.aligned{.shared::cta}.b32 [dst], nCols`.
pub fn alloc(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let what = "tcgen05.alloc";
    let m = match collective(c, i, what)? {
        Ok(m) => m,
        Err(flow) => return Ok(flow),
    };
    let ncols = uniform(c, &m.ncols, "nCols", what)?;
    let dst = m
        .dst
        .ok_or_else(|| undefined(format!("{what} without a destination")))?;
    let addrs: Vec<u64> = (0..32)
        .map(|l| crate::exec::address::lane_addr(c, &dst, l))
        .collect();
    if let Some(l) = (1..32).find(|&l| addrs[l] != addrs[0]) {
        return Err(undefined(format!(
            "the destination of {what} is not uniform across the warp: lane 0 has 0x{:x}, lane {l} has 0x{:x}",
            addrs[0], addrs[l]
        ))
        .at_lane(l as u32));
    }
    let pair = m.op.group() == Some(CtaGroup::Two);
    let column = match allocate(c, ncols, pair) {
        Ok(col) => col,
        Err(e @ crate::tcgen05::memory::TmemError::NoSpace { .. }) => {
            return blocked(c, e, pair);
        }
        Err(e) => return Err(fault(c, e, what, None, None)),
    };
    let at = crate::exec::address::store_shared_u32(c, &dst, 0, column)?;
    if pair {
        pair_op(c, PairOpKind::Alloc, ncols, column)?;
    }
    trace(
        c,
        None,
        TmemAction::Alloc {
            ncols,
            column,
            dst: at,
        },
        Vec::new(),
    );
    Ok(Flow::Next)
}

/// `tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, nCols`.
pub fn dealloc(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let what = "tcgen05.dealloc";
    let m = match collective(c, i, what)? {
        Ok(m) => m,
        Err(flow) => return Ok(flow),
    };
    let taddr = uniform(c, &m.taddr, "taddr", what)?;
    let ncols = uniform(c, &m.ncols, "nCols", what)?;
    tmem(c)
        .dealloc(taddr, ncols)
        .map_err(|e| fault(c, e, what, None, Some(taddr)))?;
    if m.op.group() == Some(CtaGroup::Two) {
        pair_op(c, PairOpKind::Dealloc, ncols, taddr & 0xFFFF)?;
    }
    trace(
        c,
        Some(taddr),
        TmemAction::Dealloc {
            ncols,
            column: taddr & 0xFFFF,
        },
        Vec::new(),
    );
    Ok(Flow::Next)
}

/// Records a `.cta_group::2` allocation operation of the executing warp for the pair's
/// rendezvous (below).
fn pair_op(c: &mut Ctx<'_>, kind: PairOpKind, ncols: u32, column: u32) -> Result<(), LaneFault> {
    let (warp, pc) = (c.ids.warp, c.pc);
    let op = PairOp {
        kind,
        ncols,
        column,
        warp,
        pc,
    };
    record(c, op)
}

/// `tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned`.
pub fn relinquish(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let what = "tcgen05.relinquish_alloc_permit";
    let m = match collective(c, i, what)? {
        Ok(m) => m,
        Err(flow) => return Ok(flow),
    };
    tmem(c).relinquish();
    if m.op.group() == Some(CtaGroup::Two) {
        pair_op(c, PairOpKind::Relinquish, 0, 0)?;
    }
    trace(c, None, TmemAction::Relinquish, Vec::new());
    Ok(Flow::Next)
}

/// The leak check at CTA exit: an allocation still held.
pub fn leak(a: &Allocation) -> FaultKind {
    FaultKind::Undefined {
        detail: format!(
            "Tensor Memory still allocated when the CTA exits: {} columns from column {}, allocated here by warp {}, were never deallocated",
            a.ncols, a.column, a.warp
        ),
    }
}
