//! Integer arithmetic and logic over widths of 16, 32 and 64 bits (8 for a few forms),
//! specialised by a const generic width `W` at decode time.
//!
//! Operands arrive as raw register bits; a width-`W` operation reads the low `W` bits and its
//! result is masked to `W` bits (the destination write then applies the register's width and
//! any sign extension). Operations whose exact meaning needs care (division by zero, bit
//! fields, saturation, carries) delegate to `crate::semantics`.

use crate::exec::ctx::{binary, for_lanes, ternary, unary, Ctx};
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};
use crate::semantics::int as si;

type R = Result<Flow, LaneFault>;

/// The low `W` bits of `v`.
#[inline(always)]
pub fn lo<const W: u32>(v: u64) -> u64 {
    si::wrap(v, W)
}

/// `v` read as a signed `W`-bit integer.
#[inline(always)]
pub fn sx<const W: u32>(v: u64) -> i64 {
    si::sign_extend(v, W)
}

/// `add`
pub fn add<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::Add, a, b, W, false));
    Ok(Flow::Next)
}

/// `sub`
pub fn sub<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::Sub, a, b, W, false));
    Ok(Flow::Next)
}

/// `add.sat.s32`
pub fn add_sat_s32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        u64::from(si::add_sat_s32(a as i32, b as i32) as u32)
    });
    Ok(Flow::Next)
}

/// `sub.sat.s32`
pub fn sub_sat_s32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        u64::from(si::sub_sat_s32(a as i32, b as i32) as u32)
    });
    Ok(Flow::Next)
}

/// `mul.lo`
pub fn mul_lo<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::MulLo, a, b, W, false));
    Ok(Flow::Next)
}

/// `mul.hi.uW`
pub fn mul_hi_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        lo::<W>(((u128::from(lo::<W>(a)) * u128::from(lo::<W>(b))) >> W) as u64)
    });
    Ok(Flow::Next)
}

/// `mul.hi.sW`
pub fn mul_hi_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        lo::<W>(((i128::from(sx::<W>(a)) * i128::from(sx::<W>(b))) >> W) as u64)
    });
    Ok(Flow::Next)
}

/// `mul.wide.uW` (W = 16 or 32): a 2W-bit product.
pub fn mul_wide_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| lo::<W>(a).wrapping_mul(lo::<W>(b)));
    Ok(Flow::Next)
}

/// `mul.wide.sW` (W = 16 or 32): a 2W-bit product.
pub fn mul_wide_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| (sx::<W>(a).wrapping_mul(sx::<W>(b))) as u64);
    Ok(Flow::Next)
}

/// `mad.lo`
pub fn mad_lo<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| lo::<W>(a.wrapping_mul(b).wrapping_add(d)));
    Ok(Flow::Next)
}

/// `mad.hi.uW`
pub fn mad_hi_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| {
        lo::<W>((((u128::from(lo::<W>(a)) * u128::from(lo::<W>(b))) >> W) as u64).wrapping_add(d))
    });
    Ok(Flow::Next)
}

/// `mad.hi.sW`
pub fn mad_hi_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| {
        lo::<W>((((i128::from(sx::<W>(a)) * i128::from(sx::<W>(b))) >> W) as u64).wrapping_add(d))
    });
    Ok(Flow::Next)
}

/// `mad.hi.sat.s32`
pub fn mad_hi_sat_s32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| {
        u64::from(si::mad_hi_sat_s32(a as i32, b as i32, d as i32) as u32)
    });
    Ok(Flow::Next)
}

/// `mad.wide.uW`
pub fn mad_wide_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| {
        lo::<W>(a).wrapping_mul(lo::<W>(b)).wrapping_add(d)
    });
    Ok(Flow::Next)
}

/// `mad.wide.sW`
pub fn mad_wide_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| {
        (sx::<W>(a).wrapping_mul(sx::<W>(b))) as u64 + d
    });
    Ok(Flow::Next)
}

/// `mul24.lo` / `mul24.hi` (Param-less: `HI` selects), signed when `S`.
pub fn mul24<const HI: bool, const S: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| u64::from(si::mul24(a as u32, b as u32, HI, S)));
    Ok(Flow::Next)
}

/// `mad24.lo` / `mad24.hi`, signed when `S`.
pub fn mad24<const HI: bool, const S: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| {
        u64::from(si::mul24(a as u32, b as u32, HI, S).wrapping_add(d as u32))
    });
    Ok(Flow::Next)
}

/// `sad`: `c + |a - b|`.
pub fn sad<const W: u32, const S: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |a, b, d| {
        let diff = if S {
            (sx::<W>(a) - sx::<W>(b)).unsigned_abs()
        } else {
            lo::<W>(a).abs_diff(lo::<W>(b))
        };
        lo::<W>(d.wrapping_add(diff))
    });
    Ok(Flow::Next)
}

/// `div.uW`
pub fn div_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::Div, a, b, W, false));
    Ok(Flow::Next)
}

/// `div.sW`
pub fn div_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::Div, a, b, W, true));
    Ok(Flow::Next)
}

/// `rem.uW`
pub fn rem_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| lo::<W>(si::rem_u64(lo::<W>(a), lo::<W>(b), W)));
    Ok(Flow::Next)
}

/// `rem.sW`
pub fn rem_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        lo::<W>(si::rem_s64(sx::<W>(a), sx::<W>(b), W) as u64)
    });
    Ok(Flow::Next)
}

/// `abs.sW` (the most negative value stays itself).
pub fn abs_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    unary(c, i, |a| lo::<W>(sx::<W>(a).wrapping_abs() as u64));
    Ok(Flow::Next)
}

/// `neg.sW`
pub fn neg<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    unary(c, i, |a| lo::<W>(a.wrapping_neg()));
    Ok(Flow::Next)
}

/// `min.uW`
pub fn min_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| lo::<W>(a).min(lo::<W>(b)));
    Ok(Flow::Next)
}

/// `max.uW`
pub fn max_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| lo::<W>(a).max(lo::<W>(b)));
    Ok(Flow::Next)
}

/// `min.sW{.relu}`
pub fn min_s<const W: u32, const RELU: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        let r = sx::<W>(a).min(sx::<W>(b));
        lo::<W>(if RELU { r.max(0) } else { r } as u64)
    });
    Ok(Flow::Next)
}

/// `max.sW{.relu}`
pub fn max_s<const W: u32, const RELU: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        let r = sx::<W>(a).max(sx::<W>(b));
        lo::<W>(if RELU { r.max(0) } else { r } as u64)
    });
    Ok(Flow::Next)
}

/// `min`/`max` `.u16x2`/`.s16x2{.relu}`
pub fn minmax_16x2<const MAX: bool, const SIGNED: bool, const RELU: bool>(
    c: &mut Ctx<'_>,
    i: &DInstr,
) -> R {
    binary(c, i, |a, b| {
        u64::from(si::minmax_16x2(a as u32, b as u32, MAX, SIGNED, RELU))
    });
    Ok(Flow::Next)
}

/// `and`
pub fn and<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::And, a, b, W, false));
    Ok(Flow::Next)
}

/// `or`
pub fn or<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::Or, a, b, W, false));
    Ok(Flow::Next)
}

/// `xor`
pub fn xor<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| si::int_op(si::IntOp::Xor, a, b, W, false));
    Ok(Flow::Next)
}

/// `not`
pub fn not<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    unary(c, i, |a| lo::<W>(!a));
    Ok(Flow::Next)
}

/// `cnot`: `d = (a == 0)`.
pub fn cnot<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    unary(c, i, |a| u64::from(lo::<W>(a) == 0));
    Ok(Flow::Next)
}

/// Predicate `and` / `or` / `xor` / `not` (`Param` 0..3) on lane masks.
pub fn pred_logic(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = c.fetch_mask(&i.s[0]);
    let b = c.fetch_mask(&i.s[1]);
    let r = match i.extra {
        crate::exec::program::Extra::Param(0) => a & b,
        crate::exec::program::Extra::Param(1) => a | b,
        crate::exec::program::Extra::Param(2) => a ^ b,
        _ => !a,
    };
    c.write_mask(&i.d[0], r);
    Ok(Flow::Next)
}

/// `shl` (amounts ≥ W give 0).
pub fn shl<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        let n = b & 0xffff_ffff;
        if n >= u64::from(W) {
            0
        } else {
            lo::<W>(a << n)
        }
    });
    Ok(Flow::Next)
}

/// `shr.uW`/`shr.bW` (amounts ≥ W give 0).
pub fn shr_u<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        let n = b & 0xffff_ffff;
        if n >= u64::from(W) {
            0
        } else {
            lo::<W>(a) >> n
        }
    });
    Ok(Flow::Next)
}

/// `shr.sW` (amounts ≥ W fill with the sign).
pub fn shr_s<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    binary(c, i, |a, b| {
        let n = (b & 0xffff_ffff).min(u64::from(W) - 1);
        lo::<W>((sx::<W>(a) >> n) as u64)
    });
    Ok(Flow::Next)
}

/// `selp d, a, b, p`: `s = [a, b, p]`.
pub fn selp(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let p = c.fetch_mask(&i.s[2]);
    let mut out = [0u64; 32];
    for_lanes(c.mask, |l| {
        out[l] = if p & (1 << l) != 0 { a[l] } else { b[l] }
    });
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `add.cc` / `sub.cc` / `addc{.cc}` / `subc{.cc}` / `madc`: carry-chain arithmetic through
/// the hidden carry predicate `s[3]` (read) and `d[1]` (written). `Param` bit 0: subtract;
/// bit 1: use carry-in; bit 2: write carry-out.
pub fn carry<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let crate::exec::program::Extra::Param(flags) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let cin = if flags & 2 != 0 {
        c.fetch_mask(&i.s[3])
    } else {
        0
    };
    let mut out = [0u64; 32];
    let mut cout = 0u32;
    for_lanes(c.mask, |l| {
        let ci = (cin >> l) & 1 == 1;
        let (r, co) = if flags & 1 != 0 {
            si::sub_borrow(lo::<W>(a[l]), lo::<W>(b[l]), ci, W)
        } else {
            si::add_carry(lo::<W>(a[l]), lo::<W>(b[l]), ci, W)
        };
        out[l] = r;
        if co {
            cout |= 1 << l;
        }
    });
    c.write(&i.d[0], &out);
    if flags & 4 != 0 {
        c.write_mask(&i.d[1], cout);
    }
    Ok(Flow::Next)
}

/// `madc.{lo,hi}{.cc}`: `d = (a*b).{lo,hi} + c + carry-in`; `Param` bit 0: hi; bit 1: use
/// carry-in; bit 2: write carry-out; bit 3: signed.
pub fn madc<const W: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let crate::exec::program::Extra::Param(flags) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let d = c.fetch(&i.s[2]);
    let cin = if flags & 2 != 0 {
        c.fetch_mask(&i.s[3])
    } else {
        0
    };
    let mut out = [0u64; 32];
    let mut cout = 0u32;
    for_lanes(c.mask, |l| {
        let prod: u128 = if flags & 8 != 0 {
            (i128::from(sx::<W>(a[l])) * i128::from(sx::<W>(b[l]))) as u128
        } else {
            u128::from(lo::<W>(a[l])) * u128::from(lo::<W>(b[l]))
        };
        let part = if flags & 1 != 0 {
            (prod >> W) as u64
        } else {
            prod as u64
        };
        let (r, co) = si::add_carry(lo::<W>(part), lo::<W>(d[l]), (cin >> l) & 1 == 1, W);
        out[l] = r;
        if co {
            cout |= 1 << l;
        }
    });
    c.write(&i.d[0], &out);
    if flags & 4 != 0 {
        c.write_mask(&i.d[1], cout);
    }
    Ok(Flow::Next)
}

/// `dp4a`/`dp2a` via `crate::semantics`; `Param` encodes signedness and the half.
pub fn dp<const TWO: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let crate::exec::program::Extra::Param(flags) = i.extra else {
        return Ok(Flow::Next);
    };
    let (as_, bs, hi) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
    ternary(c, i, |a, b, d| {
        let r = if TWO {
            si::dp2a(a as u32, b as u32, d as u32, as_, bs, hi)
        } else {
            si::dp4a(a as u32, b as u32, d as u32, as_, bs)
        };
        u64::from(r)
    });
    Ok(Flow::Next)
}
