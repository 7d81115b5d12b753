//! Conversions in the lane loop: `cvt` (scalar and packed forms) and `cvt.pack`, with the
//! per-lane meaning in `crate::semantics::convert`.

use crate::exec::ctx::{binary, unary, Ctx};
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Extra, Flow};
use crate::ir::{Cvt, CvtPack, CvtRounding, FloatRounding, Instr, Type};
use crate::semantics::convert::{self as sc, CvtMode, Narrow};
use crate::semantics::float::ap_round;

type R = Result<Flow, LaneFault>;
type D = Result<DInstr, DecodeError>;

fn unsupported(ins: &Instr, what: String) -> DecodeError {
    DecodeError::Unsupported {
        what,
        span: ins.span,
    }
}

/// The conversion of one decoded `cvt`, kept in the instruction's `Extra::Param` index into
/// a small table would cost a lookup; instead the types and modifiers are packed here.
fn pack(c: &Cvt) -> u64 {
    let t = |ty: Type| Type::ALL.iter().position(|x| *x == ty).unwrap_or(0) as u64;
    let r = match c.rnd {
        None => 0,
        Some(CvtRounding::Float(f)) => 1 + f as u64,
        Some(CvtRounding::Int(i)) => 16 + i as u64,
    };
    t(c.dst)
        | t(c.src) << 8
        | r << 16
        | u64::from(c.ftz) << 24
        | u64::from(c.sat) << 25
        | u64::from(c.relu) << 26
        | u64::from(c.satfinite) << 27
}

fn unpack(p: u64) -> (Type, Type, CvtMode) {
    let ty = |i: u64| Type::ALL[(i as usize) % Type::ALL.len()];
    let r = (p >> 16) & 0xFF;
    let rnd = if r == 0 {
        None
    } else if r < 16 {
        Some(CvtRounding::Float(match r - 1 {
            0 => FloatRounding::Rn,
            1 => FloatRounding::Rz,
            2 => FloatRounding::Rm,
            3 => FloatRounding::Rp,
            4 => FloatRounding::Rna,
            _ => FloatRounding::Rs,
        }))
    } else {
        Some(CvtRounding::Int(match r - 16 {
            0 => crate::ir::IntRounding::Rni,
            1 => crate::ir::IntRounding::Rzi,
            2 => crate::ir::IntRounding::Rmi,
            _ => crate::ir::IntRounding::Rpi,
        }))
    };
    (
        ty(p & 0xFF),
        ty((p >> 8) & 0xFF),
        CvtMode {
            rnd,
            ftz: (p >> 24) & 1 != 0,
            sat: (p >> 25) & 1 != 0,
            relu: (p >> 26) & 1 != 0,
            satfinite: (p >> 27) & 1 != 0,
        },
    )
}

fn cvt_generic(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let (dst, src, m) = unpack(p);
    unary(c, i, |a| sc::cvt(a, src, dst, m));
    Ok(Flow::Next)
}

/// `cvt.u64.u32`-style zero extension and `cvt.u32.u64` truncation (the destination write
/// masks): the commonest conversions, a plain move.
fn cvt_zext(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(bits) = i.extra else {
        return Ok(Flow::Next);
    };
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    unary(c, i, |a| a & mask);
    Ok(Flow::Next)
}

/// Sign extension from `Param` bits.
fn cvt_sext(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(bits) = i.extra else {
        return Ok(Flow::Next);
    };
    let sh = 64 - bits as u32;
    unary(c, i, |a| (((a << sh) as i64) >> sh) as u64);
    Ok(Flow::Next)
}

fn cvt_f32_s32_rn(c: &mut Ctx<'_>, i: &DInstr) -> R {
    unary(c, i, |a| u64::from(((a as u32 as i32) as f32).to_bits()));
    Ok(Flow::Next)
}

fn cvt_f32_u32_rn(c: &mut Ctx<'_>, i: &DInstr) -> R {
    unary(c, i, |a| u64::from(((a as u32) as f32).to_bits()));
    Ok(Flow::Next)
}

fn cvt_f64_f32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    unary(c, i, |a| {
        let f = f32::from_bits(a as u32);
        if f.is_nan() {
            // Widened payload, quieted (as the GPU does).
            let b = a as u32;
            (u64::from(b >> 31) << 63) | 0x7FF8_0000_0000_0000 | (u64::from(b & 0x003F_FFFF) << 29)
        } else {
            f64::from(f).to_bits()
        }
    });
    Ok(Flow::Next)
}

/// Packed conversions to `.f16x2`/`.bf16x2` from two f32 (`d = {cvt(a), cvt(b)}` with a in
/// the high half): `Param` = bf16 flag | rounding << 4 | relu << 8 | satfinite << 9.
fn cvt_x2_from_f32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let ty = if p & 1 != 0 { Type::BF16 } else { Type::F16 };
    let m = CvtMode {
        rnd: Some(CvtRounding::Float(if (p >> 4) & 1 != 0 {
            FloatRounding::Rz
        } else {
            FloatRounding::Rn
        })),
        relu: (p >> 8) & 1 != 0,
        satfinite: (p >> 9) & 1 != 0,
        ..CvtMode::default()
    };
    binary(c, i, |a, b| {
        (sc::cvt(a & 0xFFFF_FFFF, Type::F32, ty, m) << 16)
            | sc::cvt(b & 0xFFFF_FFFF, Type::F32, ty, m)
    });
    Ok(Flow::Next)
}

fn narrow_of(ty: Type) -> Option<Narrow> {
    match ty {
        Type::E4M3x2 => Some(Narrow::E4M3),
        Type::E5M2x2 => Some(Narrow::E5M2),
        _ => None,
    }
}

/// `cvt.rn.satfinite{.relu}.e4m3x2/e5m2x2.f32 d, a, b`: `Param` = e5m2 | relu << 1.
fn cvt_f8x2_from_f32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let n = if p & 1 != 0 {
        Narrow::E5M2
    } else {
        Narrow::E4M3
    };
    let relu = p & 2 != 0;
    let one = |v: u64| {
        let x = f64::from(f32::from_bits(v as u32));
        let x = if relu && x < 0.0 { 0.0 } else { x };
        sc::f64_to_narrow(x, n, rustc_apfloat::Round::NearestTiesToEven, true)
    };
    binary(c, i, |a, b| (one(a) << 8) | one(b));
    Ok(Flow::Next)
}

/// `cvt.rn.f16x2.e4m3x2/e5m2x2 d, a` and `cvt.bf16x2.e4m3x2/e5m2x2 d, a` (exact: bfloat16
/// holds every FP8 value): `Param` = e5m2 | relu << 1 | bf16 << 2.
fn cvt_f16x2_from_f8x2(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let n = if p & 1 != 0 {
        Narrow::E5M2
    } else {
        Narrow::E4M3
    };
    let relu = p & 2 != 0;
    let to = if p & 4 != 0 {
        Narrow::BF16
    } else {
        Narrow::F16
    };
    let one = |v: u64| {
        let x = sc::narrow_to_f64(v & 0xFF, n);
        let x = if relu && x < 0.0 { 0.0 } else { x };
        sc::f64_to_narrow(x, to, rustc_apfloat::Round::NearestTiesToEven, false)
    };
    unary(c, i, |a| (one(a >> 8) << 16) | one(a));
    Ok(Flow::Next)
}

/// Lowers `cvt`.
pub fn lower_cvt(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, c: Cvt) -> D {
    let dst_ty = match c.dst {
        Type::F16x2 | Type::BF16x2 | Type::TF32 => Type::B32,
        Type::E4M3x2 | Type::E5M2x2 => Type::B16,
        t => t,
    };
    d.d[0] = fx.dst(fx.arg(ins, 0)?, dst_ty, ins.span)?;
    let src_ty = match c.src {
        Type::E4M3x2 | Type::E5M2x2 => Type::B16,
        Type::F16x2 | Type::BF16x2 => Type::B32,
        t => t,
    };
    d.s[0] = fx.src(fx.arg(ins, 1)?, src_ty, ins.span)?;
    let plain = !c.ftz && !c.sat && !c.relu && !c.satfinite;
    // Packed destinations take two sources.
    if matches!(c.dst, Type::F16x2 | Type::BF16x2) && c.src == Type::F32 {
        d.s[1] = fx.src(fx.arg(ins, 2)?, Type::F32, ins.span)?;
        let rz = c.rnd == Some(CvtRounding::Float(FloatRounding::Rz));
        d.extra = Extra::Param(
            u64::from(c.dst == Type::BF16x2)
                | u64::from(rz) << 4
                | u64::from(c.relu) << 8
                | u64::from(c.satfinite) << 9,
        );
        d.exec = cvt_x2_from_f32;
        return Ok(d);
    }
    if let Some(n) = narrow_of(c.dst) {
        if c.src != Type::F32 {
            return Err(unsupported(ins, format!("cvt.{}.{}", c.dst, c.src)));
        }
        d.s[1] = fx.src(fx.arg(ins, 2)?, Type::F32, ins.span)?;
        d.extra = Extra::Param(u64::from(n == Narrow::E5M2) | u64::from(c.relu) << 1);
        d.exec = cvt_f8x2_from_f32;
        return Ok(d);
    }
    if let Some(n) = narrow_of(c.src) {
        if !matches!(c.dst, Type::F16x2 | Type::BF16x2) {
            return Err(unsupported(ins, format!("cvt.{}.{}", c.dst, c.src)));
        }
        d.extra = Extra::Param(
            u64::from(n == Narrow::E5M2)
                | u64::from(c.relu) << 1
                | u64::from(c.dst == Type::BF16x2) << 2,
        );
        d.exec = cvt_f16x2_from_f8x2;
        return Ok(d);
    }
    if matches!(c.src, Type::F16x2 | Type::BF16x2) || matches!(c.dst, Type::F16x2 | Type::BF16x2) {
        return Err(unsupported(ins, format!("cvt.{}.{}", c.dst, c.src)));
    }
    let int = |t: Type| t.is_integer();
    if plain && int(c.src) && int(c.dst) {
        if c.dst.bits() <= c.src.bits() || !c.src.is_signed() {
            d.extra = Extra::Param(u64::from(c.src.bits().min(c.dst.bits())));
            d.exec = cvt_zext;
        } else {
            d.extra = Extra::Param(u64::from(c.src.bits()));
            d.exec = cvt_sext;
        }
        return Ok(d);
    }
    let rn = matches!(c.rnd, None | Some(CvtRounding::Float(FloatRounding::Rn)));
    d.extra = Extra::Param(pack(&c));
    d.exec = match (c.dst, c.src) {
        (Type::F32, Type::S32) if plain && rn => cvt_f32_s32_rn,
        (Type::F32, Type::U32) if plain && rn => cvt_f32_u32_rn,
        (Type::F64, Type::F32) if plain => cvt_f64_f32,
        _ => cvt_generic,
    };
    let _ = ap_round;
    Ok(d)
}

/// `cvt.pack.sat.{u8,s8,u16,s16}.s32.b32 d, a, b, c`: saturates a and b to the narrow type
/// and packs them into the low bits of d, above c's bits shifted up (PTX ISA "cvt.pack").
fn cvt_pack_exec(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let bits = (p & 0xFF) as u32;
    let signed = (p >> 8) & 1 != 0;
    let src_signed = (p >> 9) & 1 != 0;
    let has_c = (p >> 10) & 1 != 0;
    let sat = |v: u64| -> u64 {
        let x: i64 = if src_signed {
            i64::from(v as u32 as i32)
        } else {
            i64::from(v as u32)
        };
        let (lo, hi) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        (x.clamp(lo, hi) as u64) & ((1u64 << bits) - 1)
    };
    crate::exec::ctx::ternary(c, i, |a, b, cc| {
        let base = if has_c {
            (cc << (2 * bits)) & 0xFFFF_FFFF
        } else {
            0
        };
        base | (sat(a) << bits) | sat(b)
    });
    Ok(Flow::Next)
}

/// Lowers `cvt.pack`.
pub fn lower_cvt_pack(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, c: CvtPack) -> D {
    d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::B32, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, c.src, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, c.src, ins.span)?;
    if let Some(op) = ins.args.get(3) {
        d.s[2] = fx.src(op, Type::B32, ins.span)?;
    }
    if !matches!(c.dst, Type::U8 | Type::S8 | Type::U16 | Type::S16) {
        return Err(unsupported(ins, format!("cvt.pack to .{}", c.dst)));
    }
    d.extra = Extra::Param(
        u64::from(c.dst.bits())
            | u64::from(c.dst.is_signed()) << 8
            | u64::from(c.src.is_signed()) << 9
            | u64::from(ins.args.len() > 3) << 10,
    );
    d.exec = cvt_pack_exec;
    Ok(d)
}
