//! Where element `(row, col)` of `tcgen05.mma`'s D sits in Tensor Memory, relative to D's
//! address, for the `.cta_group::1` data path layouts (PTX ISA "Data path layout
//! organization", layouts D, E, F and G).
//!
//! | form | ISA layout | lane of `(r, c)` | column of `(r, c)` |
//! |---|---|---|---|
//! | M = 128 (with or without `.ws`) | D | `r` | `c` |
//! | M = 64 | F | `32 (r / 16) + r % 16` | `c` |
//! | M = 64, `.ws` | E | `64 (c / (N/2)) + r` | `c % (N/2)` |
//! | M = 32, `.ws` | G | `32 (c / (N/4)) + r` | `c % (N/4)` |
//!
//! Sources of the `.ws` rows (layouts E and G):
//! * the PTX ISA names layout E for M = 64 `.ws` and layout G for M = 32 `.ws`; both use all
//!   four 32-lane sub-partitions, each sub-partition computing one block of rows for one
//!   block of D's columns (E: two row blocks × two column halves, G: one row block × four
//!   column quarters). The ISA gives these as figures only;
//! * the lane and column numbers are CUTLASS's `UMMA::tmem_frg_ws`
//!   (`include/cute/atom/mma_traits_sm100_frag.hpp`): for M = 64 its "2x2 datapath" atom maps
//!   `(m, (n0, h))` to data path `m + 64 h`, column `n0` (`n = n0 + N/2 · h`); for M = 32 its
//!   "1x4 datapath" atom maps `(m, (n0, q))` to data path `m + 32 q`, column `n0`
//!   (`n = n0 + N/4 · q`). The same file's `tmem_frg` uses the identical "1x4" and "2x2"
//!   atoms for the M = 32 and M = 64 per-CTA halves of `.cta_group::2`, which ptxemu runs as
//!   layout B with the same folding.
//!
//! So a `.ws` D of M = 64 occupies `N/2` columns of all 128 lanes, one of M = 32 `N/4`
//! columns; D's address must be at lane 0. Not compared with hardware.

/// The lane and column offsets (from D's address) of element `(r, c)` of an `m × n` D;
/// `ws` selects the weight-stationary layouts. Shapes outside the table keep `r`'s lane.
pub fn d_position(m: u32, n: u32, ws: bool, r: u32, c: u32) -> (u32, u32) {
    match (m, ws) {
        (64, true) => {
            let w = n / 2;
            (64 * (c / w) + r, c % w)
        }
        (32, true) => {
            let w = n / 4;
            (32 * (c / w) + r, c % w)
        }
        (64, false) => (32 * (r / 16) + r % 16, c),
        _ => (r, c),
    }
}

/// How many Tensor Memory columns D occupies (per lane) for an `m × n` D.
pub fn d_columns(m: u32, n: u32, ws: bool) -> u32 {
    match (m, ws) {
        (64, true) => n / 2,
        (32, true) => n / 4,
        _ => n,
    }
}

/// The lanes (relative to D's address) D occupies: `(first, one past the last)`.
pub fn d_lanes(m: u32, ws: bool) -> (u32, u32) {
    match (m, ws) {
        (64, false) => (0, 112),
        (32 | 64, true) => (0, 128),
        _ => (0, m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ws_layouts_fill_all_lanes_once() {
        for (m, n) in [(64, 64), (64, 256), (32, 64), (32, 128)] {
            let mut seen = HashSet::new();
            for r in 0..m {
                for c in 0..n {
                    let (l, col) = d_position(m, n, true, r, c);
                    assert!(l < 128 && col < d_columns(m, n, true));
                    assert!(seen.insert((l, col)), "({m},{n}) ({r},{c}) twice");
                }
            }
            assert_eq!(seen.len() as u32, 128 * d_columns(m, n, true));
        }
    }

    #[test]
    fn ws_examples_from_cutlass_atoms() {
        // M = 64, N = 128: row 5, column 70 is in the second column half: lane 69, column 6.
        assert_eq!(d_position(64, 128, true, 5, 70), (69, 6));
        assert_eq!(d_position(64, 128, true, 40, 10), (40, 10));
        // M = 32, N = 64: quarters of 16 columns; column 50 is quarter 3.
        assert_eq!(d_position(32, 64, true, 7, 50), (103, 2));
        // Without .ws, M = 64 is layout F.
        assert_eq!(d_position(64, 32, false, 17, 3), (33, 3));
        assert_eq!(d_position(128, 64, true, 100, 63), (100, 63));
    }
}
