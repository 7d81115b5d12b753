//! Parsing integer and float arithmetic: `add` … `madc`.

use super::float::float_fn;
use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{Arith, Carry, Div, Madc, MinMax, Mul, Mul24, MulMode, Op, Type, Unary};

/// `mul`/`mad`: `.lo`/`.hi`/`.wide` and the arithmetic qualifiers.
pub(super) fn mul_mad(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
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
