//! Lowering integer arithmetic (`add` … `dp2a`); the float forms of shared opcodes go to
//! [`float`]'s lowering.

use super::{dn, is_int, unsupported, D};
use crate::exec::decode::context::FnCtx;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::exec::step::{float, int};
use crate::ir::{
    Arith, Carry, Div, Dp, Dp2a, Instr, Madc, MinMax, Mul, Mul24, MulMode, Op, Type, Unary,
};
use crate::validate::Unguaranteed;

/// `add`/`sub`: integer forms here (carry-out, `.sat`), float forms in [`float`].
pub(super) fn add_sub(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, a: &Arith) -> D {
    let sub = matches!(ins.op, Op::Sub(_));
    let ty = a.ty;
    if is_int(ty) {
        dn(fx, ins, &mut d, ty, 2)?;
        if a.cc {
            d.d[1] = Dst::Pred(fx.cc_slot);
            d.extra = Extra::Param(4 | u64::from(sub));
            d.exec = w!(ins, ty, int::carry);
        } else if a.sat {
            d.exec = if sub {
                int::sub_sat_s32
            } else {
                int::add_sat_s32
            };
        } else {
            d.exec = if sub {
                w!(ins, ty, int::sub)
            } else {
                w!(ins, ty, int::add)
            };
        }
    } else {
        return float::lower_arith(
            fx,
            ins,
            d,
            if sub {
                float::Kind::Sub
            } else {
                float::Kind::Add
            },
            *a,
        );
    }
    Ok(d)
}

/// `mul`/`mad`: the integer `.lo`/`.hi`/`.wide` forms (and `mad.cc`); float forms in [`float`].
pub(super) fn mul_mad(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, m: &Mul) -> D {
    let mad = matches!(ins.op, Op::Mad(_));
    let ty = m.arith.ty;
    if !is_int(ty) {
        let kind = if mad {
            float::Kind::Fma
        } else {
            float::Kind::Mul
        };
        return float::lower_arith(fx, ins, d, kind, m.arith);
    }
    let signed = ty.is_signed();
    let mode = m.mode.unwrap_or(MulMode::Lo);
    if mode == MulMode::Wide {
        // The rule `operation-type` (`validate/types.rs`) widens 16- and 32-bit integers only.
        let wide = wide_of(ty)
            .ok_or_else(|| Unguaranteed::instr(ins, "`.wide` on a 16- or 32-bit integer"))?;
        d.d[0] = fx.dst(fx.arg(ins, 0)?, wide, ins.span)?;
        d.s[0] = fx.src(fx.arg(ins, 1)?, ty, ins.span)?;
        d.s[1] = fx.src(fx.arg(ins, 2)?, ty, ins.span)?;
        if mad {
            d.s[2] = fx.src(fx.arg(ins, 3)?, wide, ins.span)?;
        }
    } else {
        dn(fx, ins, &mut d, ty, if mad { 3 } else { 2 })?;
    }
    d.exec = match (mad, mode, signed) {
        (false, MulMode::Lo, _) => w!(ins, ty, int::mul_lo),
        (false, MulMode::Hi, false) => w!(ins, ty, int::mul_hi_u),
        (false, MulMode::Hi, true) => w!(ins, ty, int::mul_hi_s),
        (false, MulMode::Wide, false) => w!(ins, ty, int::mul_wide_u),
        (false, MulMode::Wide, true) => w!(ins, ty, int::mul_wide_s),
        (true, MulMode::Lo, _) => {
            if m.arith.cc {
                d.s[3] = Src::Pred {
                    slot: fx.cc_slot,
                    neg: false,
                };
                d.d[1] = Dst::Pred(fx.cc_slot);
                d.extra = Extra::Param(4 | if signed { 8 } else { 0 });
                w!(ins, ty, int::madc)
            } else {
                w!(ins, ty, int::mad_lo)
            }
        }
        (true, MulMode::Hi, _) if m.arith.sat => int::mad_hi_sat_s32,
        (true, MulMode::Hi, false) => w!(ins, ty, int::mad_hi_u),
        (true, MulMode::Hi, true) => w!(ins, ty, int::mad_hi_s),
        (true, MulMode::Wide, false) => w!(ins, ty, int::mad_wide_u),
        (true, MulMode::Wide, true) => w!(ins, ty, int::mad_wide_s),
    };
    Ok(d)
}

/// `mul24`/`mad24`.
pub(super) fn mul24(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, m: &Mul24) -> D {
    let mad = matches!(ins.op, Op::Mad24(_));
    dn(fx, ins, &mut d, m.ty, if mad { 3 } else { 2 })?;
    let s = m.ty.is_signed();
    d.exec = match (mad, m.hi, s) {
        (false, false, false) => int::mul24::<false, false>,
        (false, false, true) => int::mul24::<false, true>,
        (false, true, false) => int::mul24::<true, false>,
        (false, true, true) => int::mul24::<true, true>,
        (true, false, false) => int::mad24::<false, false>,
        (true, false, true) => int::mad24::<false, true>,
        (true, true, false) => int::mad24::<true, false>,
        (true, true, true) => int::mad24::<true, true>,
    };
    Ok(d)
}

/// `sad`.
pub(super) fn sad(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: &Type) -> D {
    dn(fx, ins, &mut d, *ty, 3)?;
    d.exec = if ty.is_signed() {
        w!(ins, *ty, int::sad, true)
    } else {
        w!(ins, *ty, int::sad, false)
    };
    Ok(d)
}

/// `div`: integer forms here, float forms in [`float`].
pub(super) fn div(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, dv: &Div) -> D {
    if is_int(dv.ty) {
        dn(fx, ins, &mut d, dv.ty, 2)?;
        d.exec = if dv.ty.is_signed() {
            w!(ins, dv.ty, int::div_s)
        } else {
            w!(ins, dv.ty, int::div_u)
        };
    } else {
        return float::lower_div(fx, ins, d, *dv);
    }
    Ok(d)
}

/// `rem`.
pub(super) fn rem(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: &Type) -> D {
    dn(fx, ins, &mut d, *ty, 2)?;
    d.exec = if ty.is_signed() {
        w!(ins, *ty, int::rem_s)
    } else {
        w!(ins, *ty, int::rem_u)
    };
    Ok(d)
}

/// `abs`/`neg`: integer forms here, float forms in [`float`].
pub(super) fn abs_neg(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, u: &Unary) -> D {
    let neg = matches!(ins.op, Op::Neg(_));
    if is_int(u.ty) {
        dn(fx, ins, &mut d, u.ty, 1)?;
        d.exec = if neg {
            w!(ins, u.ty, int::neg)
        } else {
            w!(ins, u.ty, int::abs_s)
        };
    } else {
        return float::lower_unary(
            fx,
            ins,
            d,
            if neg {
                float::Kind::Neg
            } else {
                float::Kind::Abs
            },
            u.ty,
            u.ftz,
        );
    }
    Ok(d)
}

/// `min`/`max`: packed 16x2 and integer forms here, float forms in [`float`].
pub(super) fn min_max(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, m: &MinMax) -> D {
    let max = matches!(ins.op, Op::Max(_));
    if m.packed16 {
        dn(fx, ins, &mut d, m.ty, 2)?;
        d.exec = match (max, m.ty.is_signed(), m.relu) {
            (false, false, _) => int::minmax_16x2::<false, false, false>,
            (true, false, _) => int::minmax_16x2::<true, false, false>,
            (false, true, false) => int::minmax_16x2::<false, true, false>,
            (false, true, true) => int::minmax_16x2::<false, true, true>,
            (true, true, false) => int::minmax_16x2::<true, true, false>,
            (true, true, true) => int::minmax_16x2::<true, true, true>,
        };
    } else if is_int(m.ty) {
        if ins.args.len() > 3 {
            return Err(unsupported(ins, "three-input integer min/max"));
        }
        dn(fx, ins, &mut d, m.ty, 2)?;
        d.exec = match (max, m.ty.is_signed(), m.relu) {
            (false, false, _) => w!(ins, m.ty, int::min_u),
            (true, false, _) => w!(ins, m.ty, int::max_u),
            (false, true, false) => w!(ins, m.ty, int::min_s, false),
            (false, true, true) => w!(ins, m.ty, int::min_s, true),
            (true, true, false) => w!(ins, m.ty, int::max_s, false),
            (true, true, true) => w!(ins, m.ty, int::max_s, true),
        };
    } else {
        return float::lower_minmax(fx, ins, d, max, *m);
    }
    Ok(d)
}

/// `addc`/`subc`: add or subtract with the carry flag.
pub(super) fn addc_subc(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, cy: &Carry) -> D {
    let sub = matches!(ins.op, Op::Subc(_));
    dn(fx, ins, &mut d, cy.ty, 2)?;
    d.s[3] = Src::Pred {
        slot: fx.cc_slot,
        neg: false,
    };
    d.d[1] = Dst::Pred(fx.cc_slot);
    d.extra = Extra::Param(u64::from(sub) | 2 | if cy.cc { 4 } else { 0 });
    d.exec = w!(ins, cy.ty, int::carry);
    Ok(d)
}

/// `madc`: multiply-add with the carry flag.
pub(super) fn madc(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, mc: &Madc) -> D {
    dn(fx, ins, &mut d, mc.ty, 3)?;
    d.s[3] = Src::Pred {
        slot: fx.cc_slot,
        neg: false,
    };
    d.d[1] = Dst::Pred(fx.cc_slot);
    d.extra = Extra::Param(
        u64::from(mc.hi) | 2 | if mc.cc { 4 } else { 0 } | if mc.ty.is_signed() { 8 } else { 0 },
    );
    d.exec = w!(ins, mc.ty, int::madc);
    Ok(d)
}

/// `dp4a`.
pub(super) fn dp4a(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, p: &Dp) -> D {
    dn(fx, ins, &mut d, Type::U32, 3)?;
    d.extra = Extra::Param(u64::from(p.a_ty.is_signed()) | u64::from(p.b_ty.is_signed()) << 1);
    d.exec = int::dp::<false>;
    Ok(d)
}

/// `dp2a`.
pub(super) fn dp2a(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, p: &Dp2a) -> D {
    dn(fx, ins, &mut d, Type::U32, 3)?;
    d.extra = Extra::Param(
        u64::from(p.a_ty.is_signed()) | u64::from(p.b_ty.is_signed()) << 1 | u64::from(p.hi) << 2,
    );
    d.exec = int::dp::<true>;
    Ok(d)
}

/// The double-width type of a `mul.wide`/`mad.wide` source type.
fn wide_of(ty: Type) -> Option<Type> {
    Some(match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        Type::B16 => Type::B32,
        Type::B32 => Type::B64,
        _ => return None,
    })
}
