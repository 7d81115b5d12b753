//! The fragment layouts of `mma` (PTX ISA "Matrix Fragments for mma.m8n8k4 with .f16
//! floating point type", "… for mma.m8n8k4 with .f64", "… mma.m16n8k4", "… mma.m16n8k8",
//! "… mma.m16n8k16", "… mma.m16n8k32", "… mma.m16n8k64", "… mma.m8n8k16", "… mma.m8n8k32",
//! "… mma.m8n8k128", "… mma.m16n8k128", "… mma.m16n8k256"): which element of A, B and C/D
//! each lane holds in each register.
//!
//! The ISA's figures follow one rule, written here once. With `groupID = lane / 4`,
//! `threadID_in_group = lane % 4` and `p` elements per register:
//! * A (M×K, row-major fragment), element `i` in register `r = i / p`, position `j = i % p`:
//!   row `groupID + 8·(r mod 2)` (M = 16) or `groupID` (M = 8), column
//!   `threadID_in_group·p + 4p·⌊r/2⌋ + j` (M = 16) or `threadID_in_group·p + 4p·r + j` (M = 8);
//! * B (K×N, column-major fragment): row `threadID_in_group·p + 4p·r + j`, column `groupID`;
//! * C/D (M×N): element `i` at row `groupID + 8·⌊i/2⌋`, column `2·threadID_in_group + i mod 2`.
//!
//! `mma.m8n8k4` with `.f16` inputs is the exception: each of four quad-pairs (lanes
//! `4q..4q+3` and `4q+16..4q+19`) multiplies its own 8×4 by 4×8 matrices, laid out by
//! [`quad_pair_a`], [`quad_pair_b`] and [`quad_pair_c`].

use crate::ir::{Mma, MmaLayout};

/// `(row, column)` of element `i` of lane `lane`'s A fragment.
pub fn a_elem(m: &Mma, lane: u32, i: u32) -> (u32, u32) {
    let p = m.a.per_reg();
    a_elem_at(m.shape.mnk().0 == 16, p, lane, i / p, i % p)
}

/// `(row, column)` of position `j` of register `r` of lane `lane`'s A fragment, with `p`
/// elements per register and M = 16 (`m16`) or 8.
#[inline(always)]
pub fn a_elem_at(m16: bool, p: u32, lane: u32, r: u32, j: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    if m16 {
        (g + 8 * (r % 2), t * p + 4 * p * (r / 2) + j)
    } else {
        (g, t * p + 4 * p * r + j)
    }
}

/// `(row, column)` of element `i` of lane `lane`'s B fragment.
pub fn b_elem(m: &Mma, lane: u32, i: u32) -> (u32, u32) {
    let p = m.b.per_reg();
    b_elem_at(p, lane, i / p, i % p)
}

/// `(row, column)` of position `j` of register `r` of lane `lane`'s B fragment, with `p`
/// elements per register.
#[inline(always)]
pub fn b_elem_at(p: u32, lane: u32, r: u32, j: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (t * p + 4 * p * r + j, g)
}

/// `(row, column)` of element `i` of lane `lane`'s C or D fragment.
pub fn c_elem(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (i / 2), 2 * t + i % 2)
}

/// The quad-pair of a lane in `mma.m8n8k4.f16` and whether it is in the pair's upper half.
pub fn quad_pair(lane: u32) -> (u32, bool) {
    ((lane / 4) % 4, lane >= 16)
}

/// `(row, column)` in its quad-pair's 8×4 A of element `i` (0..4) of `lane`.
pub fn quad_pair_a(layout: MmaLayout, lane: u32, i: u32) -> (u32, u32) {
    let (t, hi) = (lane % 4, 4 * u32::from(lane >= 16));
    match layout {
        MmaLayout::Row => (t + hi, i),
        MmaLayout::Col => (i + hi, t),
    }
}

/// `(row, column)` in its quad-pair's 4×8 B of element `i` (0..4) of `lane`.
pub fn quad_pair_b(layout: MmaLayout, lane: u32, i: u32) -> (u32, u32) {
    let (t, hi) = (lane % 4, 4 * u32::from(lane >= 16));
    match layout {
        MmaLayout::Row => (t, i + hi),
        MmaLayout::Col => (i, t + hi),
    }
}

/// `(row, column)` in its quad-pair's 8×8 C/D of element `i` (0..8) of `lane`; `f32` for an
/// `.f32` accumulator, which is spread differently from an `.f16` one.
pub fn quad_pair_c(f32: bool, lane: u32, i: u32) -> (u32, u32) {
    let (t, hi) = (lane % 4, 4 * u32::from(lane >= 16));
    if f32 {
        ((t & 1) + (i & 2) + hi, (i & 4) + (t & 2) + (i & 1))
    } else {
        (t + hi, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{MmaElem, MmaShape};

    fn mma(shape: MmaShape, a: MmaElem, c: MmaElem) -> Mma {
        Mma {
            shape,
            alayout: MmaLayout::Row,
            blayout: MmaLayout::Col,
            satfinite: false,
            d: c,
            a,
            b: a,
            c,
            bitop: None,
            rn: false,
        }
    }

    /// Every (row, column) of every fragment is held by exactly one (lane, element).
    fn covers(m: &Mma) {
        let (mm, n, k) = m.shape.mnk();
        let (ea, eb, ec) = m.elems_per_thread();
        let mut seen_a = vec![0u32; (mm * k) as usize];
        let mut seen_b = vec![0u32; (k * n) as usize];
        let mut seen_c = vec![0u32; (mm * n) as usize];
        for lane in 0..32 {
            for i in 0..ea {
                let (r, c) = a_elem(m, lane, i);
                seen_a[(r * k + c) as usize] += 1;
            }
            for i in 0..eb {
                let (r, c) = b_elem(m, lane, i);
                seen_b[(r * n + c) as usize] += 1;
            }
            for i in 0..ec {
                let (r, c) = c_elem(lane, i);
                seen_c[(r * n + c) as usize] += 1;
            }
        }
        assert!(seen_a.iter().all(|&x| x == 1), "{m:?} A");
        assert!(seen_b.iter().all(|&x| x == 1), "{m:?} B");
        assert!(seen_c.iter().all(|&x| x == 1), "{m:?} C");
    }

    #[test]
    fn layouts_are_bijections() {
        use MmaElem::*;
        use MmaShape::*;
        for (s, a, c) in [
            (M16n8k8, F16, F32),
            (M16n8k16, F16, F32),
            (M16n8k16, Bf16, F32),
            (M16n8k4, Tf32, F32),
            (M16n8k8, Tf32, F32),
            (M8n8k4, F64, F64),
            (M16n8k4, F64, F64),
            (M16n8k8, F64, F64),
            (M16n8k16, F64, F64),
            (M8n8k16, S8, S32),
            (M16n8k16, S8, S32),
            (M16n8k32, U8, S32),
            (M8n8k32, S4, S32),
            (M16n8k32, S4, S32),
            (M16n8k64, U4, S32),
            (M8n8k128, B1, S32),
            (M16n8k128, B1, S32),
            (M16n8k256, B1, S32),
            (M16n8k32, E4m3, F32),
        ] {
            covers(&mma(s, a, c));
        }
    }

    /// Cases read off the ISA's figures.
    #[test]
    fn figure_cases() {
        let m = mma(MmaShape::M16n8k16, MmaElem::F16, MmaElem::F32);
        // Lane 5 (groupID 1, threadID_in_group 1): a0 at (1, 2), a3 at (9, 3), a4 at (1, 10).
        assert_eq!(a_elem(&m, 5, 0), (1, 2));
        assert_eq!(a_elem(&m, 5, 3), (9, 3));
        assert_eq!(a_elem(&m, 5, 4), (1, 10));
        // b2 of lane 5 at (10, 1); c3 of lane 5 at (9, 3).
        assert_eq!(b_elem(&m, 5, 2), (10, 1));
        assert_eq!(c_elem(5, 3), (9, 3));
        let t = mma(MmaShape::M16n8k8, MmaElem::Tf32, MmaElem::F32);
        // tf32 m16n8k8: a1 at (groupID + 8, threadID_in_group), a2 at (groupID, tig + 4).
        assert_eq!(a_elem(&t, 6, 1), (9, 2));
        assert_eq!(a_elem(&t, 6, 2), (1, 6));
        let s = mma(MmaShape::M16n8k32, MmaElem::S8, MmaElem::S32);
        // s8 m16n8k32: a9 of lane 3 at (8, 3·4 + 16 + 1)... register 2 is rows 0-7 again.
        assert_eq!(a_elem(&s, 3, 9), (0, 29));
        assert_eq!(a_elem(&s, 3, 5), (8, 13));
    }

    #[test]
    fn quad_pair_layouts_cover_each_pair() {
        for f32 in [false, true] {
            for q in 0..4 {
                let mut seen = [0u32; 64];
                for lane in (0..32).filter(|l| quad_pair(*l).0 == q) {
                    for i in 0..8 {
                        let (r, c) = quad_pair_c(f32, lane, i);
                        seen[(r * 8 + c) as usize] += 1;
                    }
                }
                assert!(seen.iter().all(|&x| x == 1));
            }
        }
        for layout in [MmaLayout::Row, MmaLayout::Col] {
            let mut a = [0u32; 32];
            let mut b = [0u32; 32];
            for lane in (0..32).filter(|l| quad_pair(*l).0 == 2) {
                for i in 0..4 {
                    let (r, c) = quad_pair_a(layout, lane, i);
                    a[(r * 4 + c) as usize] += 1;
                    let (r, c) = quad_pair_b(layout, lane, i);
                    b[(r * 8 + c) as usize] += 1;
                }
            }
            assert!(a.iter().all(|&x| x == 1) && b.iter().all(|&x| x == 1));
        }
    }
}
