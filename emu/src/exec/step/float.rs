//! Floating-point arithmetic in the lane loop: `add`/`sub`/`mul`/`fma`, division, `neg`/`abs`,
//! the half-precision forms and the mixed-precision `add/sub/fma.f32.{f16,bf16}`, plus the
//! lowering helpers its siblings `float_cmp` (`setp`, `set`, `slct`) and `float_fn`
//! (`min`/`max`, special functions, `testp`, `copysign`) share. The per-lane meaning is in
//! `crate::semantics`; this module picks a specialised function per instruction (a host fast
//! path for plain `.rn`).

use crate::exec::ctx::{for_lanes, Ctx};
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Extra, Flow};
use crate::ir::{Arith, Div, DivKind, FloatRounding, HalfType, Instr, Mixed, Type};
use crate::semantics::approx;
use crate::semantics::float::{self as sf, BinOp, Mode};
use crate::semantics::half::{op16, op16x2, HalfKind, HalfMode, HalfOp};
use crate::semantics::mixed;

pub use super::float_cmp::{lower_set, lower_setp, lower_slct};
pub use super::float_fn::{lower_copysign, lower_fn, lower_minmax, lower_testp};

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

pub(crate) fn unsupported(ins: &Instr, what: String) -> DecodeError {
    DecodeError::Unsupported {
        what,
        span: ins.span,
    }
}

/// Sets `d[0]` and `s[0..n]` for type `ty`.
pub(crate) fn dn(
    fx: &FnCtx<'_>,
    ins: &Instr,
    d: &mut DInstr,
    ty: Type,
    n: usize,
) -> Result<(), DecodeError> {
    d.d[0] = fx.dst(fx.arg(ins, 0)?, ty, ins.span)?;
    for k in 0..n {
        d.s[k] = fx.src(fx.arg(ins, k + 1)?, ty, ins.span)?;
    }
    Ok(())
}

pub(crate) fn rnd_code(r: FloatRounding) -> u64 {
    match r {
        FloatRounding::Rn => 0,
        FloatRounding::Rz => 1,
        FloatRounding::Rm => 2,
        FloatRounding::Rp => 3,
        FloatRounding::Rna => 4,
        FloatRounding::Rs => 5,
    }
}

pub(crate) fn code_rnd(c: u64) -> FloatRounding {
    match c & 7 {
        1 => FloatRounding::Rz,
        2 => FloatRounding::Rm,
        3 => FloatRounding::Rp,
        4 => FloatRounding::Rna,
        5 => FloatRounding::Rs,
        _ => FloatRounding::Rn,
    }
}

pub(crate) fn encode(m: Mode) -> u64 {
    rnd_code(m.rnd) | u64::from(m.ftz) << 3 | u64::from(m.sat) << 4
}

#[inline(always)]
pub(crate) fn mode_of(i: &DInstr) -> Mode {
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
pub(crate) fn f32of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

#[inline(always)]
pub(crate) fn b32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[inline(always)]
pub(crate) fn canon32(x: f32) -> u64 {
    if x.is_nan() {
        u64::from(sf::NAN32)
    } else {
        b32(x)
    }
}

pub(crate) const ADD: u8 = 0;
pub(crate) const SUB: u8 = 1;
pub(crate) const MUL: u8 = 2;
pub(crate) const DIV: u8 = 3;

pub(crate) fn binop(op: u8) -> BinOp {
    match op {
        ADD => BinOp::Add,
        SUB => BinOp::Sub,
        MUL => BinOp::Mul,
        _ => BinOp::Div,
    }
}

/// Plain `.rn` f32 binary operation on the host.
pub(crate) fn f32_rn<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    crate::exec::ctx::binary(c, i, |a, b| {
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
pub(crate) fn f32_mode<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    crate::exec::ctx::binary(c, i, |a, b| {
        b32(sf::bin32(binop(OP), f32of(a), f32of(b), m))
    });
    Ok(Flow::Next)
}

/// Plain `.rn` f64 binary operation on the host.
pub(crate) fn f64_rn<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    crate::exec::ctx::binary(c, i, |a, b| {
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
pub(crate) fn f64_mode<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    crate::exec::ctx::binary(c, i, |a, b| {
        sf::bin64(binop(OP), f64::from_bits(a), f64::from_bits(b), m).to_bits()
    });
    Ok(Flow::Next)
}

pub(crate) fn fma32_rn(c: &mut Ctx<'_>, i: &DInstr) -> R {
    crate::exec::ctx::ternary(c, i, |a, b, d| {
        canon32(f32of(a).mul_add(f32of(b), f32of(d)))
    });
    Ok(Flow::Next)
}

/// `fma.rn.f32` with the host's FMA instruction (chosen at decode time when the CPU has one).
#[cfg(target_arch = "x86_64")]
pub(crate) fn fma32_rn_hw(c: &mut Ctx<'_>, i: &DInstr) -> R {
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
pub(crate) fn fma32_rn_best() -> crate::exec::program::ExecFn {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("fma") {
            return fma32_rn_hw;
        }
    }
    fma32_rn
}

pub(crate) fn fma32_mode(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    crate::exec::ctx::ternary(c, i, |a, b, d| {
        b32(sf::fma32(f32of(a), f32of(b), f32of(d), m))
    });
    Ok(Flow::Next)
}

pub(crate) fn fma64_mode(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mode_of(i);
    crate::exec::ctx::ternary(c, i, |a, b, d| {
        sf::fma64(f64::from_bits(a), f64::from_bits(b), f64::from_bits(d), m).to_bits()
    });
    Ok(Flow::Next)
}

/// Half-precision operations: `Param` = kind (bit 0: bf16) | packed (bit 1) | op << 4 |
/// ftz << 12 | sat << 13 | relu << 14 | nan << 15.
pub(crate) fn half(c: &mut Ctx<'_>, i: &DInstr) -> R {
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
    crate::exec::ctx::ternary(c, i, |a, b, d| {
        if packed {
            u64::from(op16x2(k, op, a as u32, b as u32, d as u32, m))
        } else {
            u64::from(op16(k, op, a as u16, b as u16, d as u16, m))
        }
    });
    Ok(Flow::Next)
}

pub(crate) fn half_code(
    ty: Type,
    op: HalfOp,
    ftz: bool,
    sat: bool,
    relu: bool,
    nan: bool,
) -> Option<u64> {
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

/// The `Param` bit of a mixed-precision instruction whose narrow operands are `.bf16` (beside
/// `encode`'s rounding and `.sat`).
const MIXED_BF16: u64 = 1 << 5;

fn mixed_kind(p: u64) -> HalfKind {
    if p & MIXED_BF16 != 0 {
        HalfKind::BF16
    } else {
        HalfKind::F16
    }
}

fn param(i: &DInstr) -> u64 {
    match i.extra {
        Extra::Param(p) => p,
        _ => 0,
    }
}

/// Mixed-precision `add`/`sub.f32.{f16,bf16} d, a, c`.
pub(crate) fn mixed_add_sub<const OP: u8>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let (m, k) = (mode_of(i), mixed_kind(param(i)));
    crate::exec::ctx::binary(c, i, |a, x| {
        b32(mixed::add_sub(
            binop(OP),
            a as u16,
            f32of(x),
            k,
            m.rnd,
            m.sat,
        ))
    });
    Ok(Flow::Next)
}

/// Mixed-precision `fma.rnd.f32.{f16,bf16} d, a, b, c`.
pub(crate) fn mixed_fma(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let (m, k) = (mode_of(i), mixed_kind(param(i)));
    crate::exec::ctx::ternary(c, i, |a, b, x| {
        b32(mixed::fma(a as u16, b as u16, f32of(x), k, m.rnd, m.sat))
    });
    Ok(Flow::Next)
}

/// Lowers the mixed-precision `add`/`sub`/`fma` (`kind`): the narrow operands are read as
/// their 16-bit type, `c` and `d` as `.f32`.
pub fn lower_mixed(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, kind: Kind, m: Mixed) -> D {
    let narrow = if kind == Kind::Fma { 2 } else { 1 };
    d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::F32, ins.span)?;
    for k in 0..=narrow {
        let ty = if k < narrow { m.half.ty() } else { Type::F32 };
        d.s[k] = fx.src(fx.arg(ins, k + 1)?, ty, ins.span)?;
    }
    let bf16 = match m.half {
        HalfType::F16 => 0,
        HalfType::BF16 => MIXED_BF16,
    };
    d.extra = Extra::Param(encode(mixed::mode(m.rnd.unwrap_or(FloatRounding::Rn), m.sat)) | bf16);
    d.exec = match kind {
        Kind::Add => mixed_add_sub::<ADD>,
        Kind::Sub => mixed_add_sub::<SUB>,
        Kind::Fma => mixed_fma,
        Kind::Mul | Kind::Neg | Kind::Abs => {
            return Err(unsupported(ins, format!("mixed-precision {kind:?}")))
        }
    };
    Ok(d)
}

pub(crate) fn div_approx(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    crate::exec::ctx::binary(c, i, |a, b| b32(approx::div32(f32of(a), f32of(b), ftz)));
    Ok(Flow::Next)
}

pub(crate) fn div_full(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    crate::exec::ctx::binary(c, i, |a, b| {
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

pub(crate) fn neg_abs<const NEG: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    crate::exec::ctx::unary(c, i, |a| {
        b32(if NEG {
            sf::neg32(f32of(a), ftz)
        } else {
            sf::abs32(f32of(a), ftz)
        })
    });
    Ok(Flow::Next)
}

pub(crate) fn neg_abs64<const NEG: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    crate::exec::ctx::unary(c, i, |a| {
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
