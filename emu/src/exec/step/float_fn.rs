//! Float `min`/`max`, the special functions (`rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`,
//! `ex2`, `tanh`), `testp` and `copysign` in the lane loop, each lowered to one specialised
//! function. The per-lane meaning is in `crate::semantics`.

use super::float::*;
use crate::exec::ctx::{for_lanes, Ctx};
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Extra, Flow, Src};
use crate::ir::{DivKind, FloatFn, FloatRounding, Instr, MinMax, Op, Testp, Type};
use crate::semantics::approx;
use crate::semantics::compare::{self, MinMaxMode};
use crate::semantics::float::{self as sf, Mode};
use crate::semantics::half::HalfOp;

type R = Result<Flow, LaneFault>;
type D = Result<DInstr, DecodeError>;

/// The modifiers of `min`/`max` from their decoded `Param` (bit 0 `.ftz`, bit 1 `.NaN`,
/// bit 2 `.xorsign.abs`).
fn minmax_mode(p: u64) -> MinMaxMode {
    MinMaxMode {
        ftz: p & 1 != 0,
        nan: p & 2 != 0,
        xorsign_abs: p & 4 != 0,
    }
}

fn minmax32<const MAX: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let m = minmax_mode(p);
    // `min.f32 d, a, a`: ptxas folds it to a move, so a NaN `a` comes back unchanged (an
    // H100 returned 0x7FC00000 for it, where two NaN registers give the canonical NaN).
    let same = matches!((i.s[0], i.s[1]), (Src::Reg(x), Src::Reg(y)) if x == y);
    if same && !m.ftz && !m.nan && !m.xorsign_abs {
        crate::exec::ctx::binary(c, i, |a, _| a & 0xFFFF_FFFF);
        return Ok(Flow::Next);
    }
    crate::exec::ctx::binary(c, i, |a, b| {
        b32(compare::minmax32(f32of(a), f32of(b), MAX, m))
    });
    Ok(Flow::Next)
}

fn minmax64<const MAX: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let m = MinMaxMode {
        ftz: false,
        ..minmax_mode(p)
    };
    crate::exec::ctx::binary(c, i, |a, b| {
        compare::minmax64(f64::from_bits(a), f64::from_bits(b), MAX, m).to_bits()
    });
    Ok(Flow::Next)
}

fn minmax32x3<const MAX: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let m = minmax_mode(p);
    crate::exec::ctx::ternary(c, i, |a, b, d| {
        let ab = compare::minmax32(f32of(a), f32of(b), MAX, m);
        b32(compare::minmax32(ab, f32of(d), MAX, m))
    });
    Ok(Flow::Next)
}

/// Lowers float `min/max`.
pub fn lower_minmax(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, max: bool, m: MinMax) -> D {
    if ins.args.len() > 3 {
        // `min/max{.ftz}{.NaN}{.abs}.f32 d, a, b, c` (PTX 8.8, sm_100): two-input steps.
        if m.ty != Type::F32 || m.relu {
            return Err(unsupported(
                ins,
                format!("three-input min/max on .{}", m.ty),
            ));
        }
        dn(fx, ins, &mut d, m.ty, 3)?;
        d.extra =
            Extra::Param(u64::from(m.ftz) | u64::from(m.nan) << 1 | u64::from(m.xorsign_abs) << 2);
        d.exec = if max {
            minmax32x3::<true>
        } else {
            minmax32x3::<false>
        };
        return Ok(d);
    }
    dn(fx, ins, &mut d, m.ty, 2)?;
    if let Some(h) = half_code(
        m.ty,
        if max { HalfOp::Max } else { HalfOp::Min },
        m.ftz,
        false,
        m.relu,
        m.nan,
    ) {
        d.extra = Extra::Param(h);
        d.exec = half;
        return Ok(d);
    }
    d.extra =
        Extra::Param(u64::from(m.ftz) | u64::from(m.nan) << 1 | u64::from(m.xorsign_abs) << 2);
    d.exec = match (m.ty, max) {
        (Type::F32, false) => minmax32::<false>,
        (Type::F32, true) => minmax32::<true>,
        (Type::F64, false) => minmax64::<false>,
        (Type::F64, true) => minmax64::<true>,
        _ => return Err(unsupported(ins, format!("min/max on .{}", m.ty))),
    };
    Ok(d)
}

/// Float functions by code: `Param` = fn << 8 | ftz.
fn ffn32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let ftz = p & 1 != 0;
    let m = Mode {
        rnd: code_rnd(p >> 4),
        ftz,
        sat: false,
    };
    let f = (p >> 8) & 0xFF;
    crate::exec::ctx::unary(c, i, |a| {
        let x = f32of(a);
        b32(match f {
            0 => approx::rcp32(x, ftz),
            1 => sf::rcp32(x, m),
            2 => approx::sqrt32(x, ftz),
            3 => sf::sqrt32(x, m),
            4 => approx::rsqrt32(x, ftz),
            5 => approx::sin32(x, ftz),
            6 => approx::cos32(x, ftz),
            7 => approx::lg2_32(x, ftz),
            8 => approx::ex2_32(x, ftz),
            _ => approx::tanh32(x),
        })
    });
    Ok(Flow::Next)
}

fn ffn64(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let ftz = p & 1 != 0;
    let m = Mode {
        rnd: code_rnd(p >> 4),
        ftz: false,
        sat: false,
    };
    let f = (p >> 8) & 0xFF;
    crate::exec::ctx::unary(c, i, |a| {
        let x = f64::from_bits(a);
        (match f {
            0 => approx::rcp64_ftz(x),
            1 => sf::rcp64(x, m),
            3 => sf::sqrt64(x, m),
            _ => approx::rsqrt64(x, ftz),
        })
        .to_bits()
    });
    Ok(Flow::Next)
}

/// `ex2`/`tanh` `.approx` on `.f16/.bf16` (and packed): computed in f32, rounded once.
fn ffn16(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let bf = p & 1 != 0;
    let packed = p & 2 != 0;
    let tanh = p & 4 != 0;
    let ty = if bf { Type::BF16 } else { Type::F16 };
    let one = |h: u64| -> u64 {
        let x = crate::semantics::convert::to_f64(h & 0xFFFF, ty, false) as f32;
        let y = if tanh {
            approx::tanh32(x)
        } else {
            approx::ex2_32(x, false)
        };
        crate::semantics::convert::f64_to_float(
            f64::from(y),
            ty,
            rustc_apfloat::Round::NearestTiesToEven,
            false,
        )
    };
    crate::exec::ctx::unary(c, i, |a| {
        if packed {
            (one(a >> 16) << 16) | one(a)
        } else {
            one(a)
        }
    });
    Ok(Flow::Next)
}

/// Lowers `rcp/sqrt/rsqrt/sin/cos/lg2/ex2/tanh`.
pub fn lower_fn(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, f: FloatFn) -> D {
    dn(fx, ins, &mut d, f.ty, 1)?;
    let approx_kind = matches!(f.kind, DivKind::Approx | DivKind::Full);
    let rnd = match f.kind {
        DivKind::Rounded(r) => r,
        DivKind::Exact | DivKind::Approx | DivKind::Full => FloatRounding::Rn,
    };
    let code = match (&ins.op, approx_kind) {
        (Op::Rcp(_), true) => 0,
        (Op::Rcp(_), false) => 1,
        (Op::Sqrt(_), true) => 2,
        (Op::Sqrt(_), false) => 3,
        (Op::Rsqrt(_), _) => 4,
        (Op::Sin(_), _) => 5,
        (Op::Cos(_), _) => 6,
        (Op::Lg2(_), _) => 7,
        (Op::Ex2(_), _) => 8,
        _ => 9,
    };
    d.extra = Extra::Param(u64::from(f.ftz) | rnd_code(rnd) << 4 | code << 8);
    d.exec = match f.ty {
        Type::F32 => ffn32,
        Type::F64 if matches!(code, 0 | 1 | 3 | 4) => ffn64,
        Type::F16 | Type::BF16 | Type::F16x2 | Type::BF16x2 if matches!(code, 8 | 9) => {
            let bf = matches!(f.ty, Type::BF16 | Type::BF16x2);
            let packed = matches!(f.ty, Type::F16x2 | Type::BF16x2);
            d.extra =
                Extra::Param(u64::from(bf) | u64::from(packed) << 1 | u64::from(code == 9) << 2);
            ffn16
        }
        _ => return Err(unsupported(ins, format!("{:?} on .{}", ins.op, f.ty))),
    };
    Ok(d)
}

fn testp_exec(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let is64 = p & 1 != 0;
    let class = match p >> 4 {
        0 => crate::ir::TestpClass::Finite,
        1 => crate::ir::TestpClass::Infinite,
        2 => crate::ir::TestpClass::Number,
        3 => crate::ir::TestpClass::NotANumber,
        4 => crate::ir::TestpClass::Normal,
        _ => crate::ir::TestpClass::Subnormal,
    };
    let a = c.fetch(&i.s[0]);
    let mut m = 0u32;
    for_lanes(c.mask, |l| {
        let (x, sub) = if is64 {
            let x = f64::from_bits(a[l]);
            (x, x.is_subnormal())
        } else {
            let x = f32of(a[l]);
            (f64::from(x), x.is_subnormal())
        };
        if compare::testp(class, x, sub) {
            m |= 1 << l;
        }
    });
    c.write_mask(&i.d[0], m);
    Ok(Flow::Next)
}

/// Lowers `testp`.
pub fn lower_testp(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, t: Testp) -> D {
    d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::Pred, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, t.ty, ins.span)?;
    let class = t.class as u64;
    d.extra = Extra::Param(u64::from(t.ty == Type::F64) | class << 4);
    d.exec = testp_exec;
    Ok(d)
}

fn copysign_exec<const W64: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    crate::exec::ctx::binary(c, i, |a, b| {
        if W64 {
            compare::copysign64(f64::from_bits(a), f64::from_bits(b)).to_bits()
        } else {
            b32(compare::copysign32(f32of(a), f32of(b)))
        }
    });
    Ok(Flow::Next)
}

/// Lowers `copysign`.
pub fn lower_copysign(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: Type) -> D {
    dn(fx, ins, &mut d, ty, 2)?;
    d.exec = match ty {
        Type::F32 => copysign_exec::<false>,
        Type::F64 => copysign_exec::<true>,
        _ => return Err(unsupported(ins, format!("copysign on .{ty}"))),
    };
    Ok(d)
}
