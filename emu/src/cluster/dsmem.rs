//! The `.shared::cluster` window (PTX ISA "Distributed shared memory"): how an address names
//! the shared memory of any CTA of the cluster.
//!
//! A CTA's own `.shared::cta` offsets are valid `.shared::cluster` addresses of itself. `mapa`
//! gives the address of offset `o` in the CTA of rank `r` as [`CLUSTER_WINDOW`]` + (r <<
//! `[`RANK_SHIFT`]`) + o`, and its generic form lies in the generic shared window at that
//! offset. Loads, stores, atomics and mbarrier operations on such an address reach CTA `r`'s
//! shared memory.

use super::shape::MAX_CLUSTER_CTAS;

/// Where the `.shared::cluster` addresses of the cluster's CTAs start (an offset in the
/// shared window; below it lie the executing CTA's own `.shared::cta` offsets).
pub const CLUSTER_WINDOW: u64 = 0x8000_0000;
/// Bits of a `.shared::cluster` address below the CTA rank.
pub const RANK_SHIFT: u32 = 24;

/// The `.shared::cluster` address of offset `off` in the shared memory of CTA `rank`.
#[inline]
pub fn encode(rank: u32, off: u64) -> u64 {
    CLUSTER_WINDOW + (u64::from(rank) << RANK_SHIFT) + off
}

/// The CTA rank and offset of a `.shared::cluster` address made by [`encode`]; `None` for an
/// address below the cluster window (a CTA's own offset) or past its last possible rank.
#[inline]
pub fn decode(addr: u64) -> Option<(u32, u64)> {
    let rel = addr.checked_sub(CLUSTER_WINDOW)?;
    let rank = rel >> RANK_SHIFT;
    (rank < u64::from(MAX_CLUSTER_CTAS)).then_some((rank as u32, rel & ((1 << RANK_SHIFT) - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        assert_eq!(decode(encode(3, 0x40)), Some((3, 0x40)));
        assert_eq!(decode(0x40), None);
        assert_eq!(decode(encode(MAX_CLUSTER_CTAS, 0)), None);
        assert!(encode(MAX_CLUSTER_CTAS - 1, (1 << RANK_SHIFT) - 1) < 1 << 32);
    }
}
