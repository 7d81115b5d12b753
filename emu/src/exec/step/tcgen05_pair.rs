//! `.cta_group::2`: tcgen05 instructions across a CTA pair (PTX ISA "tcgen05: CTA pair",
//! "Data path layout organization", "tcgen05.mma", "tcgen05.commit").
//!
//! The pair of a CTA is the two CTAs of its cluster whose `%cluster_ctarank` differ only in
//! bit 0. A `.cta_group::2` instruction outside a cluster of even size is a fault naming the
//! cluster shape.
//!
//! * `tcgen05.mma.cta_group::2` with M = 256 (one thread of either CTA issues it): D is
//!   256 × N, rows `128 r ..` of it in CTA `r`'s Tensor Memory (r = 0 the even CTA) at the
//!   address the instruction gives; A's rows `128 r ..` come from CTA `r` (its shared memory at
//!   the descriptor's address, or its Tensor Memory), and B's N columns are split: columns
//!   `N/2 · r ..` from CTA `r`'s shared memory at the B descriptor's address. M = 128 across
//!   a pair (its D layout puts 64 rows in each CTA) is refused by name.
//! * `tcgen05.commit.cta_group::2`: arrives on the mbarrier of every CTA of `ctaMask`
//!   (`.multicast::cluster`) or the executing CTA's, and tracks the issuing thread's MMAs in
//!   each such CTA's Tensor Memory against the arrival there.
//! * `tcgen05.alloc/dealloc/relinquish_alloc_permit.cta_group::2`: one warp of each CTA of the
//!   pair executes them; each acts on its own CTA's Tensor Memory, so both CTAs hold the same
//!   columns when they allocate in the same order (which the ISA requires of them).

use super::mma::Tiles;
use super::tcgen05_mma::{accumulate, operand_a, operand_b, prepare, Issue, MmaDInstr};
use super::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::ir::Tcgen05Mma;
use crate::semantics::tcgen05_idesc::InstrDesc;

/// The ranks of the executing CTA's pair (even first).
///
/// # Errors
/// The cluster has an odd number of CTAs (one CTA when the launch gave no cluster).
pub fn pair(c: &Ctx<'_>, what: &str) -> Result<[u32; 2], LaneFault> {
    let ids = &c.launch.cluster;
    let size = c.cluster.size();
    if !size.is_multiple_of(2) {
        let shape = crate::exec::cluster::triple(ids.dims);
        let given = if ids.explicit {
            ""
        } else {
            " (the launch gave no cluster)"
        };
        return Err(LaneFault::new(FaultKind::Undefined {
            detail: format!(
                "{what} needs a CTA pair (two CTAs of a cluster whose %cluster_ctarank differ only in bit 0), but the kernel runs in clusters of {shape} = {size} CTA(s){given}: launch with an even cluster size (`--cluster 2,1,1` or `.reqnctapercluster`)"
            ),
        }));
    }
    let even = c.cluster.rank() & !1;
    Ok([even, even + 1])
}

fn swap_tmem(c: &mut Ctx<'_>, rank: u32) {
    if let Some(p) = c.cluster.peer(rank) {
        std::mem::swap(c.tmem, p.tmem);
    }
}

/// Runs `f` with CTA `rank`'s shared memory, mbarriers and Tensor Memory as the context's own.
///
/// # Errors
/// `rank` is outside the cluster, or `f`'s fault.
pub fn with_cta<T>(
    c: &mut Ctx<'_>,
    rank: u32,
    lane: usize,
    f: impl FnOnce(&mut Ctx<'_>) -> Result<T, LaneFault>,
) -> Result<T, LaneFault> {
    if rank == c.cluster.rank() {
        return f(c);
    }
    swap_tmem(c, rank);
    let r = super::cluster::at_rank(c, rank, lane, f);
    swap_tmem(c, rank);
    r
}

/// One `tcgen05.mma.cta_group::2` issued by lane `s.lane`.
pub(super) fn issue(
    c: &mut Ctx<'_>,
    x: &MmaDInstr,
    m: &Tcgen05Mma,
    s: &Issue,
) -> Result<(), LaneFault> {
    let ranks = pair(c, "tcgen05.mma.cta_group::2").map_err(|f| f.at_lane(s.lane as u32))?;
    if s.sf.is_some() {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what:
                "block-scaled tcgen05.mma.cta_group::2 (the scale factors' layout across the pair)"
                    .into(),
        })
        .at_lane(s.lane as u32));
    }
    let id = prepare(c, m, s, 2)?;
    if id.m != 256 {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: format!(
                "tcgen05.mma.cta_group::2 with M = {} (its Tensor Memory layout across the pair); M = 256 runs",
                id.m
            ),
        })
        .at_lane(s.lane as u32));
    }
    let k = id.kind.k();
    let half_a = InstrDesc { m: id.m / 2, ..id };
    let half_b = InstrDesc { n: id.n / 2, ..id };
    for &r in &ranks {
        let mut t = Tiles::new(half_a.m, id.n, k);
        for (i, &rb) in ranks.iter().enumerate() {
            let at = i as u32 * half_b.n;
            with_cta(c, rb, s.lane, |c| operand_b(c, s, &half_b, &mut t, at))?;
        }
        with_cta(c, r, s.lane, |c| {
            operand_a(c, s, &half_a, &mut t)?;
            accumulate(c, x, m, s, &half_a, t)
        })?;
    }
    Ok(())
}

/// `tcgen05.cp.cta_group::2` issued by lane `lane`: each CTA of the pair copies from its own
/// shared memory, at the descriptor's address, into its own Tensor Memory at `taddr` (as the
/// MMA reads each CTA's operands at the same addresses); the copies are tracked in each CTA
/// against the issuing thread's `tcgen05.commit`.
pub(super) fn cp(
    c: &mut Ctx<'_>,
    lane: usize,
    cp: crate::ir::Tcgen05Cp,
    taddr: u32,
    desc: u64,
) -> Result<(), LaneFault> {
    let ranks = pair(c, "tcgen05.cp.cta_group::2").map_err(|f| f.at_lane(lane as u32))?;
    for r in ranks {
        with_cta(c, r, lane, |c| {
            super::tcgen05_cp::copy_tracked(c, lane, cp, taddr, desc)
        })?;
    }
    Ok(())
}
