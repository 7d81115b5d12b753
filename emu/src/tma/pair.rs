//! The mbarrier of a `.cta_group::2` tensor load (PTX ISA, "cp.async.bulk.tensor"). The ISA
//! lets that mbarrier live in the shared memory of the destination's CTA or of its peer in
//! the CTA pair; with `.multicast::cluster`, each destination's completion is signalled on
//! the pair member whose `%cluster_ctarank` parity matches that of the CTA holding the
//! mbarrier. The CTA pair of rank `r` is ranks `r & !1` and `r | 1` (PTX ISA "tcgen05: CTA
//! pair").
//!
//! Which CTA holds the mbarrier: a `.shared::cluster` address names its CTA (the rank is at
//! bit 24, as on the hardware: a CTA of rank r > 0 sees its own shared variables at such
//! addresses, [`crate::cluster::dsmem`]), whose rank parity picks the pair member; an offset in
//! the executing CTA's own window names the executing CTA. CUTLASS clears bit 24 of its own
//! mbarrier address (`& 0xFEFFFFFF`) so that both CTAs' copies complete on the even CTA's
//! barrier.

use crate::cluster::dsmem::{decode, CLUSTER_WINDOW};
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Window};
use crate::exec::program::{AddrBase, AddrSpace, DAddr};

/// Where a `.cta_group::2` copy's mbarrier is, relative to each destination's CTA pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairMbarrier {
    /// The rank parity of the CTA holding it (0: the pair's even CTA).
    parity: u32,
    /// Its offset in that CTA's shared memory.
    offset: u64,
    /// The rank a `mapa` address named, if it was one.
    named: Option<u32>,
    /// The address as given (for fault reports).
    given: u64,
}

impl PairMbarrier {
    /// The CTA whose mbarrier completes the bytes delivered to CTA `dst`.
    pub fn rank_for(self, dst: u32) -> u32 {
        (dst & !1) | self.parity
    }

    /// The mbarrier's address in that CTA (its own-CTA offset).
    pub fn addr(self) -> DAddr {
        DAddr {
            base: AddrBase::Fixed(self.offset),
            offset: 0,
            space: AddrSpace::Shared,
        }
    }

    /// Checks, for destination CTA `dst`, that the mbarrier's CTA exists and, without a
    /// multicast, lies in `dst`'s pair.
    ///
    /// # Errors
    /// An undefined-behaviour fault naming the CTAs.
    pub fn check(self, c: &Ctx<'_>, dst: u32, lane: usize) -> Result<(), LaneFault> {
        let target = self.rank_for(dst);
        let n = c.cluster.size();
        let outside = self.named.is_some_and(|m| m & !1 != dst & !1);
        if target >= n || outside {
            return Err(LaneFault {
                kind: FaultKind::Undefined {
                    detail: format!(
                        "the .cta_group::2 copy into CTA rank {dst} completes on an mbarrier in CTA rank {}, which is not in the CTA pair of ranks {} and {} of a cluster of {n}",
                        self.named.unwrap_or(target),
                        dst & !1,
                        dst | 1
                    ),
                },
                lane: Some(lane as u32),
                address: Some(self.given),
            });
        }
        Ok(())
    }
}

/// Reads the mbarrier operand `mb` of lane `lane`.
///
/// # Errors
/// The address is not a shared-memory address.
pub fn mbarrier(c: &Ctx<'_>, mb: &DAddr, lane: usize) -> Result<PairMbarrier, LaneFault> {
    let given = crate::exec::address::lane_addr(c, mb, lane);
    let off = match mb.space {
        AddrSpace::Shared => given & 0xffff_ffff,
        _ => match window_of(given) {
            Window::Shared(o) => o,
            Window::Global(_) | Window::Local(_) | Window::Const(_) | Window::Param(_) => {
                return Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail: format!("0x{given:x} is not a shared-memory address"),
                    },
                    lane: Some(lane as u32),
                    address: Some(given),
                })
            }
        },
    };
    Ok(match decode(off).filter(|_| off >= CLUSTER_WINDOW) {
        Some((rank, o)) => PairMbarrier {
            parity: rank & 1,
            offset: o,
            named: Some(rank),
            given,
        },
        None => PairMbarrier {
            parity: c.cluster.rank() & 1,
            offset: off,
            named: Some(c.cluster.rank()),
            given,
        },
    })
}
