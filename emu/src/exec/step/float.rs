//! Floating-point instructions in the lane loop: arithmetic, division and roots, the
//! approximate functions, comparisons (`setp`, `set`, `slct`), `min`/`max`, `testp`,
//! `copysign`, and half-precision forms. The per-lane meaning is in `crate::semantics`; this
//! module picks a specialised function per instruction (a host fast path for plain `.rn`).

use super::{for_lanes, Ctx};
use crate::exec::decode::{DecodeError, FnCtx};
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Dst, Extra, Flow, Src};
use crate::ir::{
    Arith, BoolOp, CmpOp, Div, DivKind, FloatFn, FloatRounding, Instr, MinMax, Op, Operand, Set,
    Setp, Slct, Testp, Type,
};
use crate::semantics::approx;
use crate::semantics::compare::{self, MinMaxMode};
use crate::semantics::float::{self as sf, BinOp, Mode};
use crate::semantics::half::{op16, op16x2, HalfKind, HalfMode, HalfOp};

type R = Result<Flow, LaneFault>;
type D = Result<DInstr, DecodeError>;

/// Which arithmetic operation a float lowering is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `fma`/`mad`
    Fma,
    /// `neg`
    Neg,
    /// `abs`
    Abs,
}

fn unsupported(ins: &Instr, what: String) -> DecodeError {
    DecodeError::Unsupported {
        what,
        span: ins.span,
    }
}

fn invalid(ins: &Instr, what: &str) -> DecodeError {
    DecodeError::Invalid {
        what: what.into(),
        span: ins.span,
    }
}

fn arg(ins: &Instr, k: usize) -> Result<&Operand, DecodeError> {
    ins.args
        .get(k)
        .ok_or_else(|| invalid(ins, "missing operand"))
}

/// Sets `d[0]` and `s[0..n]` for type `ty`.
fn dn(fx: &FnCtx<'_>, ins: &Instr, d: &mut DInstr, ty: Type, n: usize) -> Result<(), DecodeError> {
    d.d[0] = fx.dst(arg(ins, 0)?, ty, ins.span)?;
    for k in 0..n {
        d.s[k] = fx.src(arg(ins, k + 1)?, ty, ins.span)?;
    }
    Ok(())
}

fn rnd_code(r: FloatRounding) -> u64 {
    match r {
        FloatRounding::Rn => 0,
        FloatRounding::Rz => 1,
        FloatRounding::Rm => 2,
        FloatRounding::Rp => 3,
        FloatRounding::Rna => 4,
        FloatRounding::Rs => 5,
    }
}

fn code_rnd(c: u64) -> FloatRounding {
    match c & 7 {
        1 => FloatRounding::Rz,
        2 => FloatRounding::Rm,
        3 => FloatRounding::Rp,
        4 => FloatRounding::Rna,
        5 => FloatRounding::Rs,
        _ => FloatRounding::Rn,
    }
}

fn encode(m: Mode) -> u64 {
    rnd_code(m.rnd) | u64::from(m.ftz) << 3 | u64::from(m.sat) << 4
}

#[inline(always)]
fn mode_of(i: &DInstr) -> Mode {
    let p = match i.extra {
        Extra::Param(p) => p,
        _ => 0,
    };
    Mode {
        rnd: code_rnd(p),
        ftz: p & 8 != 0,
        sat: p & 16 != 0,
    }
}

#[inline(always)]
fn f32of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

#[inline(always)]
fn b32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[inline(always)]
fn canon32(x: f32) -> u64 {
    if x.is_nan() {
        u64::from(sf::NAN32)
    } else {
        b32(x)
    }
}

const ADD: u8 = 0;
const SUB: u8 = 1;
const MUL: u8 = 2;
const DIV: u8 = 3;

fn binop(op: u8) -> BinOp {
    match op {
        ADD => BinOp::Add,
        SUB => BinOp::Sub,
        MUL => BinOp::Mul,
        _ => BinOp::Div,
    }
}

/// Plain `.rn` f32 binary operation on the host.
fn f32_rn<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    super::binary(c, i, |a, b| {
        let (a, b) = (f32of(a), f32of(b));
        canon32(match OP {
            ADD => a + b,
            SUB => a - b,
            MUL => a * b,
            _ => a / b,
        })
    });
    Ok(Flow::Next)
}

/// f32 binary operation with modifiers.
fn f32_mode<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    super::binary(c, i, |a, b| {
        b32(sf::bin32(binop(OP), f32of(a), f32of(b), m))
    });
    Ok(Flow::Next)
}

/// Plain `.rn` f64 binary operation on the host.
fn f64_rn<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    super::binary(c, i, |a, b| {
        let (a, b) = (f64::from_bits(a), f64::from_bits(b));
        let r = match OP {
            ADD => a + b,
            SUB => a - b,
            MUL => a * b,
            _ => a / b,
        };
        sf::nan64_of(r, &[a, b]).to_bits()
    });
    Ok(Flow::Next)
}

/// f64 binary operation with modifiers.
fn f64_mode<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    super::binary(c, i, |a, b| {
        sf::bin64(binop(OP), f64::from_bits(a), f64::from_bits(b), m).to_bits()
    });
    Ok(Flow::Next)
}

fn fma32_rn(c: &mut Ctx<'_>, i: &DInstr) -> R {
    super::ternary(c, i, |a, b, d| {
        canon32(f32of(a).mul_add(f32of(b), f32of(d)))
    });
    Ok(Flow::Next)
}

/// `fma.rn.f32` with the host's FMA instruction (chosen at decode time when the CPU has one).
#[cfg(target_arch = "x86_64")]
fn fma32_rn_hw(c: &mut Ctx<'_>, i: &DInstr) -> R {
    #[target_feature(enable = "fma")]
    fn lanes(mask: u32, a: &[u64; 32], b: &[u64; 32], d: &[u64; 32], out: &mut [u64; 32]) {
        use std::arch::x86_64::{_mm_cvtss_f32, _mm_fmadd_ss, _mm_set_ss};
        for_lanes(mask, |l| {
            let r = _mm_cvtss_f32(_mm_fmadd_ss(
                _mm_set_ss(f32of(a[l])),
                _mm_set_ss(f32of(b[l])),
                _mm_set_ss(f32of(d[l])),
            ));
            out[l] = canon32(r);
        });
    }
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let d = c.fetch(&i.s[2]);
    let mut out = [0u64; 32];
    // SAFETY: this function is only selected after `is_x86_feature_detected!("fma")`.
    unsafe { lanes(c.mask, &a, &b, &d, &mut out) };
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// The best plain `fma.rn.f32` for this host.
fn fma32_rn_best() -> crate::exec::program::ExecFn {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("fma") {
            return fma32_rn_hw;
        }
    }
    fma32_rn
}

fn fma32_mode(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    super::ternary(c, i, |a, b, d| {
        b32(sf::fma32(f32of(a), f32of(b), f32of(d), m))
    });
    Ok(Flow::Next)
}

fn fma64_mode(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    super::ternary(c, i, |a, b, d| {
        sf::fma64(f64::from_bits(a), f64::from_bits(b), f64::from_bits(d), m).to_bits()
    });
    Ok(Flow::Next)
}

/// Half-precision operations: `Param` = kind (bit 0: bf16) | packed (bit 1) | op << 4 |
/// ftz << 12 | sat << 13 | relu << 14 | nan << 15.
fn half(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let k = if p & 1 != 0 {
        HalfKind::BF16
    } else {
        HalfKind::F16
    };
    let packed = p & 2 != 0;
    let op = match (p >> 4) & 0xF {
        0 => HalfOp::Add,
        1 => HalfOp::Sub,
        2 => HalfOp::Mul,
        3 => HalfOp::Fma,
        4 => HalfOp::Min,
        5 => HalfOp::Max,
        6 => HalfOp::Neg,
        _ => HalfOp::Abs,
    };
    let m = HalfMode {
        ftz: p & (1 << 12) != 0,
        sat: p & (1 << 13) != 0,
        relu: p & (1 << 14) != 0,
        nan: p & (1 << 15) != 0,
    };
    super::ternary(c, i, |a, b, d| {
        if packed {
            u64::from(op16x2(k, op, a as u32, b as u32, d as u32, m))
        } else {
            u64::from(op16(k, op, a as u16, b as u16, d as u16, m))
        }
    });
    Ok(Flow::Next)
}

fn half_code(ty: Type, op: HalfOp, ftz: bool, sat: bool, relu: bool, nan: bool) -> Option<u64> {
    let (bf, packed) = match ty {
        Type::F16 => (0, 0),
        Type::BF16 => (1, 0),
        Type::F16x2 => (0, 2),
        Type::BF16x2 => (1, 2),
        _ => return None,
    };
    let opc = match op {
        HalfOp::Add => 0,
        HalfOp::Sub => 1,
        HalfOp::Mul => 2,
        HalfOp::Fma => 3,
        HalfOp::Min => 4,
        HalfOp::Max => 5,
        HalfOp::Neg => 6,
        HalfOp::Abs => 7,
    };
    Some(
        bf | packed
            | opc << 4
            | u64::from(ftz) << 12
            | u64::from(sat) << 13
            | u64::from(relu) << 14
            | u64::from(nan) << 15,
    )
}

/// Lowers float `add/sub/mul/fma` (and `mad` on floats).
pub fn lower_arith(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, kind: Kind, a: Arith) -> D {
    let ty = a.ty;
    if ty == Type::F32x2 {
        return super::packed::lower_f32x2(fx, ins, d, kind, a);
    }
    let n = if kind == Kind::Fma { 3 } else { 2 };
    dn(fx, ins, &mut d, ty, n)?;
    let m = Mode {
        rnd: a.rnd.unwrap_or(FloatRounding::Rn),
        ftz: a.ftz,
        sat: a.sat,
    };
    if let Some(h) = half_code(
        ty,
        match kind {
            Kind::Add => HalfOp::Add,
            Kind::Sub => HalfOp::Sub,
            Kind::Mul => HalfOp::Mul,
            Kind::Fma | Kind::Neg | Kind::Abs => HalfOp::Fma,
        },
        a.ftz,
        a.sat,
        a.relu,
        false,
    ) {
        d.extra = Extra::Param(h);
        d.exec = half;
        return Ok(d);
    }
    d.extra = Extra::Param(encode(m));
    d.exec = match (ty, kind, m.is_plain()) {
        (Type::F32, Kind::Add, true) => f32_rn::<ADD>,
        (Type::F32, Kind::Sub, true) => f32_rn::<SUB>,
        (Type::F32, Kind::Mul, true) => f32_rn::<MUL>,
        (Type::F32, Kind::Fma, true) => fma32_rn_best(),
        (Type::F32, Kind::Add, false) => f32_mode::<ADD>,
        (Type::F32, Kind::Sub, false) => f32_mode::<SUB>,
        (Type::F32, Kind::Mul, false) => f32_mode::<MUL>,
        (Type::F32, Kind::Fma, false) => fma32_mode,
        (Type::F64, Kind::Add, true) => f64_rn::<ADD>,
        (Type::F64, Kind::Sub, true) => f64_rn::<SUB>,
        (Type::F64, Kind::Mul, true) => f64_rn::<MUL>,
        (Type::F64, Kind::Add, false) => f64_mode::<ADD>,
        (Type::F64, Kind::Sub, false) => f64_mode::<SUB>,
        (Type::F64, Kind::Mul, false) => f64_mode::<MUL>,
        (Type::F64, Kind::Fma, _) => fma64_mode,
        _ => return Err(unsupported(ins, format!("{kind:?} on .{ty}"))),
    };
    Ok(d)
}

fn div_approx(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    super::binary(c, i, |a, b| b32(approx::div32(f32of(a), f32of(b), ftz)));
    Ok(Flow::Next)
}

fn div_full(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    super::binary(c, i, |a, b| {
        b32(approx::div_full32(f32of(a), f32of(b), ftz))
    });
    Ok(Flow::Next)
}

/// Lowers float `div`.
pub fn lower_div(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, dv: Div) -> D {
    dn(fx, ins, &mut d, dv.ty, 2)?;
    let rnd = match dv.kind {
        DivKind::Rounded(r) => r,
        DivKind::Exact | DivKind::Approx | DivKind::Full => FloatRounding::Rn,
    };
    let m = Mode {
        rnd,
        ftz: dv.ftz,
        sat: false,
    };
    d.extra = Extra::Param(encode(m));
    d.exec = match (dv.ty, dv.kind) {
        (Type::F32, DivKind::Approx) => div_approx,
        (Type::F32, DivKind::Full) => div_full,
        (Type::F32, DivKind::Rounded(_) | DivKind::Exact) => {
            if m.is_plain() {
                f32_rn::<DIV>
            } else {
                f32_mode::<DIV>
            }
        }
        (Type::F64, DivKind::Rounded(_) | DivKind::Exact) => {
            if m.is_plain() {
                f64_rn::<DIV>
            } else {
                f64_mode::<DIV>
            }
        }
        _ => return Err(unsupported(ins, format!("div on .{}", dv.ty))),
    };
    Ok(d)
}

fn neg_abs<const NEG: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    super::unary(c, i, |a| {
        b32(if NEG {
            sf::neg32(f32of(a), ftz)
        } else {
            sf::abs32(f32of(a), ftz)
        })
    });
    Ok(Flow::Next)
}

fn neg_abs64<const NEG: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    super::unary(c, i, |a| {
        let x = f64::from_bits(a);
        (if NEG { sf::neg64(x) } else { sf::abs64(x) }).to_bits()
    });
    Ok(Flow::Next)
}

/// Lowers float `neg/abs`.
pub fn lower_unary(
    fx: &FnCtx<'_>,
    ins: &Instr,
    mut d: DInstr,
    kind: Kind,
    ty: Type,
    ftz: bool,
) -> D {
    dn(fx, ins, &mut d, ty, 1)?;
    let neg = kind == Kind::Neg;
    if let Some(h) = half_code(
        ty,
        if neg { HalfOp::Neg } else { HalfOp::Abs },
        ftz,
        false,
        false,
        false,
    ) {
        d.extra = Extra::Param(h);
        d.exec = half;
        return Ok(d);
    }
    d.extra = Extra::Param(encode(Mode {
        rnd: FloatRounding::Rn,
        ftz,
        sat: false,
    }));
    d.exec = match (ty, neg) {
        (Type::F32, true) => neg_abs::<true>,
        (Type::F32, false) => neg_abs::<false>,
        (Type::F64, true) => neg_abs64::<true>,
        (Type::F64, false) => neg_abs64::<false>,
        _ => return Err(unsupported(ins, format!("{kind:?} on .{ty}"))),
    };
    Ok(d)
}

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
    super::binary(c, i, |a, b| {
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
    super::binary(c, i, |a, b| {
        compare::minmax64(f64::from_bits(a), f64::from_bits(b), MAX, m).to_bits()
    });
    Ok(Flow::Next)
}

fn minmax32x3<const MAX: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let m = minmax_mode(p);
    super::ternary(c, i, |a, b, d| {
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
    super::unary(c, i, |a| {
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
    super::unary(c, i, |a| {
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
    super::unary(c, i, |a| {
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
    d.d[0] = fx.dst(arg(ins, 0)?, Type::Pred, ins.span)?;
    d.s[0] = fx.src(arg(ins, 1)?, t.ty, ins.span)?;
    let class = t.class as u64;
    d.extra = Extra::Param(u64::from(t.ty == Type::F64) | class << 4);
    d.exec = testp_exec;
    Ok(d)
}

fn copysign_exec<const W64: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    super::binary(c, i, |a, b| {
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

// ---- comparisons ------------------------------------------------------------------------

const ALL_CMP: [CmpOp; 18] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Lo,
    CmpOp::Ls,
    CmpOp::Hi,
    CmpOp::Hs,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];

fn cmp_code(cmp: CmpOp, b: Option<BoolOp>) -> u64 {
    let c = ALL_CMP.iter().position(|x| *x == cmp).unwrap_or(0) as u64;
    let bo = match b {
        None => 0,
        Some(BoolOp::And) => 1,
        Some(BoolOp::Or) => 2,
        Some(BoolOp::Xor) => 3,
    };
    c | bo << 8
}

fn cmp_of(code: u64) -> CmpOp {
    ALL_CMP[(code & 0x1f) as usize % ALL_CMP.len()]
}

fn combine(code: u64, r: u32, c: u32) -> u32 {
    match (code >> 8) & 3 {
        1 => r & c,
        2 => r | c,
        3 => r ^ c,
        _ => r,
    }
}

/// The value of a compared operand as f64 (floats) or i128 (integers).
#[derive(Clone, Copy)]
enum Cls {
    Int { bits: u32, signed: bool },
    Float(Type),
}

#[inline(always)]
fn compare_lanes(cls: Cls, cmp: CmpOp, ftz: bool, a: u64, b: u64) -> bool {
    match cls {
        Cls::Int { bits, signed } => {
            let ext = |v: u64| -> i128 {
                if signed {
                    let sh = 64 - bits;
                    i128::from(((v << sh) as i64) >> sh)
                } else if bits >= 64 {
                    i128::from(v)
                } else {
                    i128::from(v & ((1u64 << bits) - 1))
                }
            };
            let uns = |v: u64| -> u128 {
                if bits >= 64 {
                    u128::from(v)
                } else {
                    u128::from(v & ((1u64 << bits) - 1))
                }
            };
            let (x, y) = (ext(a), ext(b));
            let (ux, uy) = (uns(a), uns(b));
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
        Cls::Float(Type::F32) => compare::fcmp32(cmp, f32of(a), f32of(b), ftz),
        Cls::Float(ty) => compare::fcmp(
            cmp,
            crate::semantics::convert::to_f64(a, ty, ftz),
            crate::semantics::convert::to_f64(b, ty, ftz),
        ),
    }
}

fn cls_of(ty: Type) -> Option<Cls> {
    if ty.is_integer() {
        Some(Cls::Int {
            bits: ty.bits().min(64),
            signed: ty.is_signed(),
        })
    } else if matches!(ty, Type::F32 | Type::F64 | Type::F16 | Type::BF16) {
        Some(Cls::Float(ty))
    } else {
        None
    }
}

fn cls_param(c: Cls) -> u64 {
    match c {
        Cls::Int { bits, signed } => u64::from(bits) | u64::from(signed) << 8,
        Cls::Float(Type::F32) => 1 << 9,
        Cls::Float(Type::F64) => 2 << 9,
        Cls::Float(Type::F16) => 3 << 9,
        Cls::Float(_) => 4 << 9,
    }
}

fn param_cls(p: u64) -> Cls {
    match (p >> 9) & 7 {
        1 => Cls::Float(Type::F32),
        2 => Cls::Float(Type::F64),
        3 => Cls::Float(Type::F16),
        4 => Cls::Float(Type::BF16),
        _ => Cls::Int {
            bits: (p & 0xFF) as u32,
            signed: (p >> 8) & 1 != 0,
        },
    }
}

/// `setp`: `Param` = cmp code | ftz << 16 | class << 20; `d = [p, q]`, `s = [a, b, c]`.
fn setp_exec(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let cmp = cmp_of(p);
    let ftz = (p >> 16) & 1 != 0;
    let cls = param_cls(p >> 20);
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let mut r = 0u32;
    for_lanes(c.mask, |l| {
        if compare_lanes(cls, cmp, ftz, a[l], b[l]) {
            r |= 1 << l;
        }
    });
    let third = if i.s[2] == Src::None {
        0
    } else {
        c.fetch_mask(&i.s[2])
    };
    c.write_mask(&i.d[0], combine(p, r, third));
    if i.d[1] != Dst::Sink {
        c.write_mask(&i.d[1], combine(p, !r, third));
    }
    Ok(Flow::Next)
}

/// Lowers `setp`.
pub fn lower_setp(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: Setp) -> D {
    let Some(cls) = cls_of(s.ty) else {
        return Err(unsupported(ins, format!("setp on .{}", s.ty)));
    };
    match arg(ins, 0)? {
        Operand::Dual(p, q) => {
            d.d[0] = fx.reg_dst(*p, Type::Pred);
            d.d[1] = fx.reg_dst(*q, Type::Pred);
        }
        other => d.d[0] = fx.dst(other, Type::Pred, ins.span)?,
    }
    d.s[0] = fx.src(arg(ins, 1)?, s.ty, ins.span)?;
    d.s[1] = fx.src(arg(ins, 2)?, s.ty, ins.span)?;
    if let Some(op) = ins.args.get(3) {
        d.s[2] = fx.src(op, Type::Pred, ins.span)?;
    }
    d.extra =
        Extra::Param(cmp_code(s.cmp, s.bool_op) | u64::from(s.ftz) << 16 | cls_param(cls) << 20);
    d.exec = setp_exec;
    Ok(d)
}

/// `set`: like `setp`, writing all ones (integer destinations) or 1.0 (`.f32`).
fn set_exec(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let cmp = cmp_of(p);
    let ftz = (p >> 16) & 1 != 0;
    let float_dst = (p >> 17) & 1 != 0;
    let cls = param_cls(p >> 20);
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let third = if i.s[2] == Src::None {
        0
    } else {
        c.fetch_mask(&i.s[2])
    };
    let mut r = 0u32;
    for_lanes(c.mask, |l| {
        if compare_lanes(cls, cmp, ftz, a[l], b[l]) {
            r |= 1 << l;
        }
    });
    let r = combine(p, r, third);
    let t = if float_dst {
        u64::from(1.0f32.to_bits())
    } else {
        0xFFFF_FFFF
    };
    let out: [u64; 32] = std::array::from_fn(|l| if r & (1 << l) != 0 { t } else { 0 });
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// Lowers `set`.
pub fn lower_set(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: Set) -> D {
    let Some(cls) = cls_of(s.src) else {
        return Err(unsupported(ins, format!("set on .{}", s.src)));
    };
    d.d[0] = fx.dst(arg(ins, 0)?, s.dst, ins.span)?;
    d.s[0] = fx.src(arg(ins, 1)?, s.src, ins.span)?;
    d.s[1] = fx.src(arg(ins, 2)?, s.src, ins.span)?;
    if let Some(op) = ins.args.get(3) {
        d.s[2] = fx.src(op, Type::Pred, ins.span)?;
    }
    d.extra = Extra::Param(
        cmp_code(s.cmp, s.bool_op)
            | u64::from(s.ftz) << 16
            | u64::from(s.dst == Type::F32) << 17
            | cls_param(cls) << 20,
    );
    d.exec = set_exec;
    Ok(d)
}

fn slct_exec<const F: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    super::ternary(c, i, |a, b, s| {
        let take_a = if F {
            let x = f32of(s);
            let x = if ftz { sf::ftz32(x) } else { x };
            x >= 0.0
        } else {
            (s as u32 as i32) >= 0
        };
        if take_a {
            a
        } else {
            b
        }
    });
    Ok(Flow::Next)
}

/// Lowers `slct`.
pub fn lower_slct(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: Slct) -> D {
    d.d[0] = fx.dst(arg(ins, 0)?, s.dst, ins.span)?;
    d.s[0] = fx.src(arg(ins, 1)?, s.dst, ins.span)?;
    d.s[1] = fx.src(arg(ins, 2)?, s.dst, ins.span)?;
    d.s[2] = fx.src(arg(ins, 3)?, s.sel, ins.span)?;
    d.extra = Extra::Param(encode(Mode {
        rnd: FloatRounding::Rn,
        ftz: s.ftz,
        sat: false,
    }));
    d.exec = if s.sel == Type::F32 {
        slct_exec::<true>
    } else {
        slct_exec::<false>
    };
    Ok(d)
}
