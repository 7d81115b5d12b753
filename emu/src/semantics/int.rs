//! Integer arithmetic whose exact meaning needs care: saturation, 24-bit multiplies, carry
//! chains, dot products, and division by zero; and the plain `w`-bit operations (wrapping
//! `add`, `sub`, `mul.lo`, the logic operations, `div`, comparisons) that the interpreter and
//! the litmus event mode (`crate::event`) both compute with, so that the two cannot disagree.
//!
//! Deliberate deviations:
//! 1. The PTX ISA leaves division by zero unspecified. ptxemu defines it as NVIDIA's compiled
//!    division sequences behave: `div.u` gives all ones, `div.s` gives -1, and `rem` gives the
//!    dividend; the most negative value divided by -1 wraps to itself (remainder 0).

/// The low `w` bits of `v` (`w` in 1..=64).
#[inline(always)]
pub fn wrap(v: u64, w: u32) -> u64 {
    if w >= 64 {
        v
    } else {
        v & ((1u64 << w) - 1)
    }
}

/// The low `w` bits of `v` read as a signed integer.
#[inline(always)]
pub fn sign_extend(v: u64, w: u32) -> i64 {
    if w >= 64 {
        v as i64
    } else {
        ((v << (64 - w)) as i64) >> (64 - w)
    }
}

/// The plain two-operand integer operations of PTX, on `w`-bit operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul.lo`
    MulLo,
    /// `div` (`signed`: `div.s`)
    Div,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
}

/// `op` on `w`-bit operands (of which only the low `w` bits count), signed or not; the result
/// is `w` bits wide.
#[inline(always)]
pub fn int_op(op: IntOp, a: u64, b: u64, w: u32, signed: bool) -> u64 {
    wrap(
        match op {
            IntOp::Add => a.wrapping_add(b),
            IntOp::Sub => a.wrapping_sub(b),
            IntOp::MulLo => a.wrapping_mul(b),
            IntOp::Div if signed => div_s64(sign_extend(a, w), sign_extend(b, w), w) as u64,
            IntOp::Div => div_u64(wrap(a, w), wrap(b, w), w),
            IntOp::And => a & b,
            IntOp::Or => a | b,
            IntOp::Xor => a ^ b,
        },
        w,
    )
}

/// An integer comparison of `w`-bit operands (`setp`, `set`, `slct`): `.eq`/`.ne` and the
/// unsigned `.lo`/`.ls`/`.hi`/`.hs` compare the bits, `.lt`/`.le`/`.gt`/`.ge` compare as
/// `signed` says; the floating-point-only comparisons are false.
#[inline(always)]
pub fn compare(cmp: crate::ir::CmpOp, a: u64, b: u64, w: u32, signed: bool) -> bool {
    use crate::ir::CmpOp;
    let (ux, uy) = (wrap(a, w), wrap(b, w));
    let (x, y) = if signed {
        (i128::from(sign_extend(a, w)), i128::from(sign_extend(b, w)))
    } else {
        (i128::from(ux), i128::from(uy))
    };
    match cmp {
        CmpOp::Eq => ux == uy,
        CmpOp::Ne => ux != uy,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
        CmpOp::Lo => ux < uy,
        CmpOp::Ls => ux <= uy,
        CmpOp::Hi => ux > uy,
        CmpOp::Hs => ux >= uy,
        CmpOp::Equ
        | CmpOp::Neu
        | CmpOp::Ltu
        | CmpOp::Leu
        | CmpOp::Gtu
        | CmpOp::Geu
        | CmpOp::Num
        | CmpOp::Nan => false,
    }
}

/// `add.sat.s32`: the sum clamped to the `i32` range.
#[inline]
pub fn add_sat_s32(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// `sub.sat.s32`: the difference clamped to the `i32` range.
#[inline]
pub fn sub_sat_s32(a: i32, b: i32) -> i32 {
    a.saturating_sub(b)
}

/// `mad.hi.sat.s32`: `(a*b).hi + c`, clamped.
#[inline]
pub fn mad_hi_sat_s32(a: i32, b: i32, c: i32) -> i32 {
    let hi = ((i64::from(a) * i64::from(b)) >> 32) as i32;
    hi.saturating_add(c)
}

/// `mul24.{lo,hi}`: the 48-bit product of the low 24 bits of a and b (sign-extended from
/// bit 23 when signed); `.lo` keeps bits 31..0, `.hi` bits 47..16.
#[inline]
pub fn mul24(a: u32, b: u32, hi: bool, signed: bool) -> u32 {
    let ext = |v: u32| -> i64 {
        if signed {
            i64::from(((v << 8) as i32) >> 8)
        } else {
            i64::from(v & 0x00ff_ffff)
        }
    };
    let p = ext(a) * ext(b);
    if hi {
        (p >> 16) as u32
    } else {
        p as u32
    }
}

/// `min`/`max` `.u16x2`/`.s16x2{.relu}`: each 16-bit half of `a` and `b` compared on its
/// own (as unsigned or signed), `.relu` clamping negative results to 0.
#[must_use]
pub fn minmax_16x2(a: u32, b: u32, max: bool, signed: bool, relu: bool) -> u32 {
    let lane = |k: u32| {
        let (x, y) = ((a >> k) & 0xffff, (b >> k) & 0xffff);
        let r = if signed {
            let (x, y) = (i32::from(x as u16 as i16), i32::from(y as u16 as i16));
            let r = if max { x.max(y) } else { x.min(y) };
            (if relu { r.max(0) } else { r }) as u32 & 0xffff
        } else if max {
            x.max(y)
        } else {
            x.min(y)
        };
        r << k
    };
    lane(0) | lane(16)
}

/// `div.u`: division by zero gives all ones (what NVIDIA hardware returns).
#[inline]
pub fn div_u64(a: u64, b: u64, w: u32) -> u64 {
    a.checked_div(b)
        .unwrap_or(if w >= 64 { u64::MAX } else { (1u64 << w) - 1 })
}

/// `div.s`: division by zero gives -1; the most negative value divided by -1 wraps.
#[inline]
pub fn div_s64(a: i64, b: i64, w: u32) -> i64 {
    let _ = w;
    if b == 0 {
        -1
    } else {
        a.wrapping_div(b)
    }
}

/// `rem.u`: remainder by zero gives the dividend.
#[inline]
pub fn rem_u64(a: u64, b: u64, w: u32) -> u64 {
    let _ = w;
    if b == 0 {
        a
    } else {
        a % b
    }
}

/// `rem.s`: remainder by zero gives the dividend; the most negative value rem -1 is 0.
#[inline]
pub fn rem_s64(a: i64, b: i64, w: u32) -> i64 {
    let _ = w;
    if b == 0 {
        a
    } else {
        a.wrapping_rem(b)
    }
}

/// `w`-bit add with carry-in; returns the sum and carry-out.
#[inline]
pub fn add_carry(a: u64, b: u64, cin: bool, w: u32) -> (u64, bool) {
    let s = u128::from(a) + u128::from(b) + u128::from(cin);
    let mask = if w >= 64 {
        u128::from(u64::MAX)
    } else {
        (1u128 << w) - 1
    };
    ((s & mask) as u64, s >> w != 0)
}

/// `w`-bit subtract with borrow-in; returns the difference and the borrow-out (PTX's
/// `subc` computes `a - (b + CC.CF)`, so the carry flag holds the borrow).
#[inline]
pub fn sub_borrow(a: u64, b: u64, bin: bool, w: u32) -> (u64, bool) {
    let mask = if w >= 64 {
        u128::from(u64::MAX)
    } else {
        (1u128 << w) - 1
    };
    let a = u128::from(a);
    let sub = u128::from(b) + u128::from(bin);
    let d = a.wrapping_sub(sub) & mask;
    (d as u64, a < sub)
}

/// `dp4a`: `c + Σ a.byte[i] * b.byte[i]`, bytes signed or unsigned as given.
#[inline]
pub fn dp4a(a: u32, b: u32, c: u32, a_signed: bool, b_signed: bool) -> u32 {
    let byte = |v: u32, i: u32, s: bool| -> i32 {
        let x = (v >> (8 * i)) & 0xff;
        if s {
            i32::from(x as u8 as i8)
        } else {
            x as i32
        }
    };
    (0..4).fold(c, |acc, i| {
        acc.wrapping_add((byte(a, i, a_signed).wrapping_mul(byte(b, i, b_signed))) as u32)
    })
}

/// `dp2a.{lo,hi}`: `c + Σ a.half[i] * b.byte[i + 2*hi]`.
#[inline]
pub fn dp2a(a: u32, b: u32, c: u32, a_signed: bool, b_signed: bool, hi: bool) -> u32 {
    let half = |i: u32| -> i32 {
        let x = (a >> (16 * i)) & 0xffff;
        if a_signed {
            i32::from(x as u16 as i16)
        } else {
            x as i32
        }
    };
    let byte = |i: u32| -> i32 {
        let x = (b >> (8 * i)) & 0xff;
        if b_signed {
            i32::from(x as u8 as i8)
        } else {
            x as i32
        }
    };
    let off = if hi { 2 } else { 0 };
    (0..2).fold(c, |acc, i| {
        acc.wrapping_add(half(i).wrapping_mul(byte(i + off)) as u32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturating_and_division_edges() {
        assert_eq!(add_sat_s32(i32::MAX, 1), i32::MAX);
        assert_eq!(sub_sat_s32(i32::MIN, 1), i32::MIN);
        assert_eq!(div_u64(7, 0, 32), 0xffff_ffff);
        assert_eq!(div_s64(i64::from(i32::MIN), -1, 32) as i32, i32::MIN);
        assert_eq!(rem_s64(-7, 2, 32), -1);
        assert_eq!(rem_u64(9, 0, 32), 9);
        assert_eq!(mad_hi_sat_s32(i32::MAX, i32::MAX, i32::MAX), i32::MAX);
    }

    #[test]
    fn carries() {
        assert_eq!(add_carry(0xffff_ffff, 1, false, 32), (0, true));
        assert_eq!(add_carry(1, 1, true, 32), (3, false));
        assert_eq!(sub_borrow(0, 1, false, 32), (0xffff_ffff, true));
        assert_eq!(sub_borrow(5, 3, true, 32), (1, false));
    }

    #[test]
    fn mul24_and_dot_products() {
        assert_eq!(mul24(0x00ff_ffff, 2, false, false), 0x01ff_fffe);
        assert_eq!(mul24(0x0080_0000, 2, false, true), (-0x0100_0000i32) as u32);
        assert_eq!(mul24(0x0010_0000, 0x0010_0000, true, false), 0x0100_0000);
        assert_eq!(dp4a(0x0101_0101, 0x0403_0201, 10, false, false), 20);
        assert_eq!(dp4a(0xff, 0x02, 0, true, false), (-2i32) as u32);
        assert_eq!(
            dp2a(0x0002_0003, 0x0000_0504, 1, false, false, false),
            1 + 3 * 4 + 2 * 5
        );
    }
}

#[cfg(test)]
mod tests_16x2 {
    use super::minmax_16x2;

    #[test]
    fn each_half_on_its_own() {
        // unsigned: 0xffff is the largest lane value
        assert_eq!(
            minmax_16x2(0xffff_0001, 0x0002_0003, true, false, false),
            0xffff_0003
        );
        assert_eq!(
            minmax_16x2(0xffff_0001, 0x0002_0003, false, false, false),
            0x0002_0001
        );
        // signed: 0xffff is -1
        assert_eq!(
            minmax_16x2(0xffff_0001, 0x0002_0003, true, true, false),
            0x0002_0003
        );
        assert_eq!(
            minmax_16x2(0xffff_8000, 0x0002_0003, false, true, false),
            0xffff_8000
        );
        // .relu clamps a negative lane to 0
        assert_eq!(minmax_16x2(0xffff_8000, 0x0002_0003, false, true, true), 0);
    }
}
