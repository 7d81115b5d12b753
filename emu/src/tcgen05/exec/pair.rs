//! `.cta_group::2`: tcgen05 instructions across a CTA pair (PTX ISA "tcgen05: CTA pair",
//! "Issue granularity", "Data path layout organization", "tcgen05.mma", "tcgen05.cp",
//! "tcgen05.shift", "tcgen05.commit").
//!
//! The pair of a CTA is the two CTAs of its cluster whose `%cluster_ctarank` differ only in
//! bit 0 (CTA `r` = rank & 1, r = 0 the even one). One thread of either CTA issues `mma`,
//! `cp`, `shift` and `commit`. A `.cta_group::2` instruction outside a cluster of even size is
//! a fault naming the cluster shape.
//!
//! * `tcgen05.mma`, M = 256 (layout A): D is 256 × N, rows `128 r ..` in CTA `r`'s Tensor
//!   Memory (row m in lane m) at the instruction's address; A's rows `128 r ..` come from CTA
//!   `r` (its shared memory at the descriptor's address, or its Tensor Memory); B's columns
//!   `N/2 · r ..` from CTA `r`'s shared memory at the B descriptor's address.
//! * `tcgen05.mma`, M = 128 (layout B): CTA `r` holds rows `64 r ..`, row m's columns
//!   `0 .. N/2` in lane m and `N/2 .. N` in lane `64 + m` (`layout_b`).
//! * Block-scaled kinds: each CTA reads the scale factors of its own rows of A and of all N
//!   columns of B from its own Tensor Memory at the instruction's SFA/SFB addresses (CUTLASS's
//!   `tmem_sf_frg`: the 4x1 layout for M = 256, the 2x2 one for M = 128).
//! * `disable-output-lane` has 8 elements; elements `4 r .. 4 r + 3` mask CTA `r`'s lanes
//!   (ptxemu's reading; not compared with hardware).
//! * `tcgen05.cp`: each CTA copies from its own shared memory into its own Tensor Memory at
//!   the same addresses (`cp`); `tcgen05.shift`: the block shifts in both CTAs (`shift`).
//! * `tcgen05.commit`: arrives on the mbarrier of every CTA of `ctaMask`
//!   (`.multicast::cluster`) or the executing CTA's, and tracks the issuing thread's MMAs and
//!   copies in each such CTA's Tensor Memory against the arrival there.
//! * `tcgen05.alloc/dealloc/relinquish_alloc_permit`: one warp of each CTA executes them
//!   together; each acts on its own CTA's Tensor Memory and the two sides are matched by
//!   [`crate::tcgen05::exec::alloc`].
//!
//! No GPU has run these layouts; the fixtures' references are the mathematics (numpy), so a
//! kernel reading a layout differently from ptxemu fails.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::ir::Tcgen05Mma;
use crate::semantics::tcgen05_idesc::InstrDesc;
use crate::semantics::tile::Tiles;
use crate::tcgen05::decoded::MmaDInstr;
use crate::tcgen05::exec::block_scale::{operand_a_f64, operand_b_f64};
use crate::tcgen05::exec::mma::{accumulate, operand_a, operand_b, prepare, Issue};

/// The ranks of the executing CTA's pair (even first).
///
/// # Errors
/// The cluster has an odd number of CTAs (one CTA when the launch gave no cluster).
pub fn pair(c: &Ctx<'_>, what: &str) -> Result<[u32; 2], LaneFault> {
    let ids = &c.launch.cluster;
    let size = c.cluster.size();
    if !size.is_multiple_of(2) {
        let shape = crate::cluster::shape::triple(ids.dims);
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
    let r = crate::cluster::dsmem::at_rank(c, rank, lane, f);
    swap_tmem(c, rank);
    r
}

/// [`with_cta`] for `f` reading CTA `rank`'s shared memory through `s`'s descriptors: with
/// `--race`, the reads it collected in `s.runs` go to the detector while CTA `rank`'s shadow
/// is the detector's (the issuing thread's tensor-core agent reads the peer's bytes, as a
/// DSMEM access of the issuing thread would; the issuing CTA keeps the agent's clock, so its
/// `tcgen05.commit` orders these reads too).
fn reading<T>(
    c: &mut Ctx<'_>,
    rank: u32,
    s: &Issue,
    f: impl FnOnce(&mut Ctx<'_>) -> Result<T, LaneFault>,
) -> Result<T, LaneFault> {
    with_cta(c, rank, s.lane, |c| {
        let v = f(c)?;
        if let Some(r) = &s.runs {
            let runs = std::mem::take(&mut *r.borrow_mut());
            if !runs.is_empty() {
                c.after_tcgen05_mma_issued(s.lane, &runs);
            }
        }
        Ok(v)
    })
}

/// One `tcgen05.mma.cta_group::2` issued by lane `s.lane`.
pub(crate) fn issue(
    c: &mut Ctx<'_>,
    x: &MmaDInstr,
    m: &Tcgen05Mma,
    s: &Issue,
) -> Result<(), LaneFault> {
    let ranks = pair(c, "tcgen05.mma.cta_group::2").map_err(|f| f.at_lane(s.lane as u32))?;
    let id = prepare(c, m, s, 2)?;
    if id.m != 128 && id.m != 256 {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: format!("tcgen05.mma.cta_group::2 with M = {}", id.m),
        })
        .at_lane(s.lane as u32));
    }
    let half_b = InstrDesc { n: id.n / 2, ..id };
    for (i, &r) in ranks.iter().enumerate() {
        // disable-output-lane: elements 4 i .. 4 i + 3 for CTA i of the pair
        let mut own = s.clone();
        own.disable = std::array::from_fn(|k| if k < 4 { s.disable[4 * i + k] } else { 0 });
        if id.m == 256 {
            let half_a = InstrDesc { m: 128, ..id };
            let t = Tiles::new(128, id.n, id.kind.k());
            let (t, scaled) = operand_b_pair(c, &own, &half_b, &ranks, t)?;
            reading(c, r, &own, |c| {
                let scaled = match scaled {
                    Some(b) => Some((operand_a_f64(c, &own, &half_a)?, b)),
                    None => None,
                };
                let mut t = t;
                if scaled.is_none() {
                    operand_a(c, &own, &half_a, &mut t)?;
                }
                accumulate(c, x, m, &own, &half_a, (t, scaled))
            })?;
        } else {
            layout_b(c, (x, m), &own, &id, (r, &ranks))?;
        }
    }
    Ok(())
}

/// An operand decoded for the block-scaled kinds (rows of A or columns of B, each K values).
type Decoded = Vec<Vec<f64>>;

/// B of a pair's MMA (`id.n` columns): columns `N/2 · i ..` from CTA `ranks[i]`'s shared
/// memory at the B descriptor; into `t` (`at = 0`) or, block-scaled, decoded.
fn operand_b_pair(
    c: &mut Ctx<'_>,
    s: &Issue,
    half_b: &InstrDesc,
    ranks: &[u32; 2],
    mut t: Tiles,
) -> Result<(Tiles, Option<Decoded>), LaneFault> {
    if s.sf.is_some() {
        let mut all = Vec::new();
        for &rb in ranks {
            all.extend(reading(c, rb, s, |c| operand_b_f64(c, s, half_b))?);
        }
        return Ok((t, Some(all)));
    }
    for (i, &rb) in ranks.iter().enumerate() {
        let at = i as u32 * half_b.n;
        reading(c, rb, s, |c| operand_b(c, s, half_b, &mut t, at))?;
    }
    Ok((t, None))
}

/// M = 128 across the pair (the ISA's data path layout B), CTA `r`'s half: its 64 rows of D,
/// row `m`'s columns `0 .. N/2` in lane `m` and `N/2 .. N` in lane `64 + m`, at D's column
/// onwards. Each 32-lane sub-partition `q` computes rows `32 (q % 2) ..` for the column half
/// `q / 2`, so it runs as four 32 × N/2 MMAs: A's rows from the CTA's shared memory (rows
/// `32 (q % 2) ..` of its 64), or from its Tensor Memory in the sub-partition's own lanes
/// (`a-tmem` lane + 32 q: A in Tensor Memory is duplicated in both lane halves), B's column
/// half `q / 2` from CTA `q / 2` of the pair, the scale factors of A at column `q % 2` of the
/// SFA address and of B's column `n` of the half at lane `n % 32`, column `n / 32` of the
/// sub-partition (the 2x2 scale-factor layout).
fn layout_b(
    c: &mut Ctx<'_>,
    (x, m): (&MmaDInstr, &Tcgen05Mma),
    s: &Issue,
    id: &InstrDesc,
    (r, ranks): (u32, &[u32; 2]),
) -> Result<(), LaneFault> {
    let k = id.kind.k();
    let rows = InstrDesc { m: 64, ..*id };
    let part = InstrDesc {
        m: 32,
        n: id.n / 2,
        ..*id
    };
    let scaled = s.sf.is_some();
    // The CTA's 64 rows of A from shared memory (unused when A is in Tensor Memory).
    let (a64, a64f) = if s.a_tmem.is_some() {
        (None, None)
    } else if scaled {
        (
            None,
            Some(reading(c, r, s, |c| operand_a_f64(c, s, &rows))?),
        )
    } else {
        let mut t = Tiles::new(64, 1, k);
        reading(c, r, s, |c| operand_a(c, s, &rows, &mut t))?;
        (Some(t), None)
    };
    for q in 0..4u32 {
        let (h, g) = (q / 2, q % 2);
        let mut sq = s.clone();
        sq.taddr_d = s.taddr_d.wrapping_add((32 * q) << 16);
        sq.a_tmem = s.a_tmem.map(|a| a.wrapping_add((32 * q) << 16));
        sq.sf = s.sf.map(|(sa, sb)| (sa.wrapping_add(g), sb));
        let t = Tiles::new(32, part.n, k);
        let (mut t, b) = if scaled {
            let b = reading(c, ranks[h as usize], s, |c| operand_b_f64(c, s, &part))?;
            (t, Some(b))
        } else {
            let mut t = t;
            reading(c, ranks[h as usize], s, |c| {
                operand_b(c, s, &part, &mut t, 0)
            })?;
            (t, None)
        };
        reading(c, r, &sq, |c| {
            let ops = match b {
                Some(b) => {
                    let a = match &a64f {
                        Some(a) => a[(32 * g) as usize..(32 * g + 32) as usize].to_vec(),
                        None => operand_a_f64(c, &sq, &part)?,
                    };
                    Some((a, b))
                }
                None => {
                    match &a64 {
                        Some(a) => {
                            for row in 0..32 {
                                for kk in 0..k {
                                    t.a.set(row, kk, a.a.get(32 * g + row, kk));
                                }
                            }
                        }
                        None => operand_a(c, &sq, &part, &mut t)?,
                    }
                    None
                }
            };
            accumulate(c, x, m, &sq, &part, (t, ops))
        })?;
    }
    Ok(())
}

/// `tcgen05.cp.cta_group::2` issued by lane `lane`: each CTA of the pair copies from its own
/// shared memory, at the descriptor's address, into its own Tensor Memory at `taddr` (as the
/// MMA reads each CTA's operands at the same addresses); the copies are tracked in each CTA
/// against the issuing thread's `tcgen05.commit`.
pub(crate) fn cp(
    c: &mut Ctx<'_>,
    lane: usize,
    cp: crate::ir::Tcgen05Cp,
    taddr: u32,
    desc: u64,
) -> Result<(), LaneFault> {
    let ranks = pair(c, "tcgen05.cp.cta_group::2").map_err(|f| f.at_lane(lane as u32))?;
    for r in ranks {
        with_cta(c, r, lane, |c| {
            crate::tcgen05::exec::cp::copy_tracked(c, lane, cp, taddr, desc)
        })?;
    }
    Ok(())
}

/// `tcgen05.shift.cta_group::2.down [taddr]` issued by lane `lane`: the 32-lane block at
/// `taddr` shifts in both CTAs' Tensor Memory.
pub(crate) fn shift(c: &mut Ctx<'_>, lane: u32, taddr: u32) -> Result<(), LaneFault> {
    let ranks = pair(c, "tcgen05.shift.cta_group::2").map_err(|f| f.at_lane(lane))?;
    for r in ranks {
        with_cta(c, r, lane as usize, |c| {
            crate::tcgen05::exec::shift::shift_one(c, lane, taddr)
        })?;
    }
    Ok(())
}
