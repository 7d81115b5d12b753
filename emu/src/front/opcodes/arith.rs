//! Parsing integer and float arithmetic: `add` … `madc`.

use super::float::float_fn;
use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{
    Arith, Carry, Div, FloatRounding, HalfType, Madc, MinMax, Mixed, Mul, Mul24, MulMode, Op, Type,
    Unary,
};

/// `add`/`sub`/`fma`: the one-type forms, or the mixed-precision `.f32.f16`/`.f32.bf16` forms
/// (two type qualifiers).
pub(super) fn add_sub_fma(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    if type_count(q) >= 2 {
        let m = mixed(opcode, q)?;
        return Ok(match opcode {
            "add" => Op::AddMixed(m),
            "sub" => Op::SubMixed(m),
            _ => Op::FmaMixed(m),
        });
    }
    let a = arith(q)?;
    Ok(match opcode {
        "add" => Op::Add(a),
        "sub" => Op::Sub(a),
        _ => Op::Fma(a),
    })
}

/// How many type qualifiers remain.
fn type_count(q: &Quals) -> usize {
    q.remaining()
        .filter(|s| Type::from_name(s).is_some())
        .count()
}

/// The mixed-precision qualifiers `{.rnd}{.sat}.f32.{f16,bf16}` (PTX ISA "Mixed Precision
/// Floating-Point Instructions"): the destination type first, then the narrow operands' type.
fn mixed(opcode: &str, q: &mut Quals) -> Result<Mixed, Error> {
    let forms = format!("`{opcode}.f32.f16` or `{opcode}.f32.bf16`");
    let rnd = q.float_rounding();
    if let Some(r @ (FloatRounding::Rna | FloatRounding::Rs)) = rnd {
        return Err(q.syntax(format!(
            "mixed-precision `{opcode}` rounds with .rn, .rz, .rm or .rp, not .{}",
            r.name()
        )));
    }
    if q.take("ftz") {
        return Err(q.syntax(format!(
            "mixed-precision {forms} takes no .ftz (subnormal inputs and results are kept)"
        )));
    }
    let sat = q.take("sat");
    let (dst, src) = q.two_types()?;
    let half = match (dst, HalfType::of(src)) {
        (Type::F32, Some(h)) => h,
        _ => {
            return Err(q.syntax(format!(
            "`{opcode}.{}.{}` is not a form of `{opcode}`: the mixed-precision forms are {forms}",
            dst.name(),
            src.name()
        )))
        }
    };
    Ok(Mixed { half, rnd, sat })
}

/// `mul`/`mad`: `.lo`/`.hi`/`.wide` and the arithmetic qualifiers.
pub(super) fn mul_mad(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    if type_count(q) >= 2 {
        return Err(q.syntax(format!(
            "`{opcode}` has no mixed-precision form: `.f32.f16` and `.f32.bf16` exist for add, sub and fma only"
        )));
    }
    let mode = mul_mode(q);
    let a = arith(q)?;
    let m = Mul { mode, arith: a };
    let op = if opcode == "mul" {
        Op::Mul(m)
    } else {
        Op::Mad(m)
    };
    Ok(op)
}

/// `mul24`/`mad24`.
pub(super) fn mul24(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let hi = match mul_mode(q) {
        Some(MulMode::Hi) => true,
        Some(MulMode::Lo) => false,
        _ => return Err(q.syntax(format!("`{opcode}` needs .lo or .hi"))),
    };
    let sat = q.take("sat");
    let m = Mul24 {
        hi,
        sat,
        ty: q.ty()?,
    };
    let op = if opcode == "mul24" {
        Op::Mul24(m)
    } else {
        Op::Mad24(m)
    };
    Ok(op)
}

/// `div`: the float kind, rounding and `.ftz`, or an integer type.
pub(super) fn div(q: &mut Quals) -> Result<Op, Error> {
    let f = float_fn(q, false)?;
    Ok(Op::Div(Div {
        ty: f.ty,
        kind: f.kind,
        ftz: f.ftz,
    }))
}

/// `abs`/`neg`.
pub(super) fn abs_neg(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let ftz = q.take("ftz");
    let u = Unary { ty: q.ty()?, ftz };
    let op = if opcode == "abs" {
        Op::Abs(u)
    } else {
        Op::Neg(u)
    };
    Ok(op)
}

/// `min`/`max`, with `.NaN`, `.xorsign.abs`, `.relu` and the packed 16x2 forms.
pub(super) fn min_max(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let ftz = q.take("ftz");
    let nan = q.take("NaN");
    let xorsign_abs = q.take("xorsign");
    if xorsign_abs && !q.take("abs") {
        return Err(q.syntax(".xorsign must be followed by .abs".into()));
    }
    let relu = q.take("relu");
    let packed = if q.take("u16x2") {
        Some(Type::U32)
    } else if q.take("s16x2") {
        Some(Type::S32)
    } else {
        None
    };
    let m = MinMax {
        ty: match packed {
            Some(t) => t,
            None => q.ty()?,
        },
        ftz,
        nan,
        xorsign_abs,
        relu,
        packed16: packed.is_some(),
    };
    let op = if opcode == "min" {
        Op::Min(m)
    } else {
        Op::Max(m)
    };
    Ok(op)
}

/// `addc`/`subc`.
pub(super) fn addc_subc(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let c = Carry {
        cc: q.take("cc"),
        ty: q.ty()?,
    };
    let op = if opcode == "addc" {
        Op::Addc(c)
    } else {
        Op::Subc(c)
    };
    Ok(op)
}

/// `madc`.
pub(super) fn madc(q: &mut Quals) -> Result<Op, Error> {
    let hi = match mul_mode(q) {
        Some(MulMode::Hi) => true,
        Some(MulMode::Lo) | None => false,
        Some(MulMode::Wide) => return Err(q.syntax("madc has no .wide form".into())),
    };
    Ok(Op::Madc(Madc {
        hi,
        cc: q.take("cc"),
        ty: q.ty()?,
    }))
}

pub(super) fn arith(q: &mut Quals) -> Result<Arith, Error> {
    let rnd = q.float_rounding();
    let ftz = q.take("ftz");
    let sat = q.take("sat");
    let cc = q.take("cc");
    let relu = q.take("relu");
    let ty = q.ty()?;
    Ok(Arith {
        ty,
        rnd,
        ftz,
        sat,
        cc,
        relu,
    })
}

pub(super) fn mul_mode(q: &mut Quals) -> Option<MulMode> {
    q.take_map(|s| {
        Some(match s {
            "lo" => MulMode::Lo,
            "hi" => MulMode::Hi,
            "wide" => MulMode::Wide,
            _ => return None,
        })
    })
}
