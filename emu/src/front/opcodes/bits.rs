//! Parsing bit manipulation: `bfind`, `bmsk`, `szext`, `dp4a`/`dp2a`, `shf`, `prmt`.

use super::arith::mul_mode;
use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{Bfind, Dp, Dp2a, MulMode, Op, PrmtMode, Shf, ShiftMode, Szext};

/// `bfind{.shiftamt}`.
pub(super) fn bfind(q: &mut Quals) -> Result<Op, Error> {
    let shiftamt = q.take("shiftamt");
    Ok(Op::Bfind(Bfind {
        shiftamt,
        ty: q.ty()?,
    }))
}

/// `bmsk.{clamp,wrap}`.
pub(super) fn bmsk(q: &mut Quals) -> Result<Op, Error> {
    let m = shift_mode(q)?;
    q.ty()?;
    Ok(Op::Bmsk(m))
}

/// `szext.{clamp,wrap}`.
pub(super) fn szext(q: &mut Quals) -> Result<Op, Error> {
    let mode = shift_mode(q)?;
    Ok(Op::Szext(Szext { mode, ty: q.ty()? }))
}

/// `dp4a`.
pub(super) fn dp4a(q: &mut Quals) -> Result<Op, Error> {
    let (a_ty, b_ty) = q.two_types()?;
    Ok(Op::Dp4a(Dp { a_ty, b_ty }))
}

/// `dp2a.{lo,hi}`.
pub(super) fn dp2a(q: &mut Quals) -> Result<Op, Error> {
    let hi = match mul_mode(q) {
        Some(MulMode::Hi) => true,
        Some(MulMode::Lo) => false,
        _ => return Err(q.syntax("dp2a needs .lo or .hi".into())),
    };
    let (a_ty, b_ty) = q.two_types()?;
    Ok(Op::Dp2a(Dp2a { hi, a_ty, b_ty }))
}

/// `shf.{l,r}.{clamp,wrap}`.
pub(super) fn shf(q: &mut Quals) -> Result<Op, Error> {
    let left = if q.take("l") {
        true
    } else if q.take("r") {
        false
    } else {
        return Err(q.syntax("shf needs .l or .r".into()));
    };
    let mode = shift_mode(q)?;
    q.ty()?;
    Ok(Op::Shf(Shf { left, mode }))
}

/// `prmt` and its mode.
pub(super) fn prmt(q: &mut Quals) -> Result<Op, Error> {
    q.ty()?;
    Ok(Op::Prmt(q.take_map(|s| {
        Some(match s {
            "f4e" => PrmtMode::F4e,
            "b4e" => PrmtMode::B4e,
            "rc8" => PrmtMode::Rc8,
            "ecl" => PrmtMode::Ecl,
            "ecr" => PrmtMode::Ecr,
            "rc16" => PrmtMode::Rc16,
            _ => return None,
        })
    })))
}

fn shift_mode(q: &mut Quals) -> Result<ShiftMode, Error> {
    q.take_map(|s| match s {
        "clamp" => Some(ShiftMode::Clamp),
        "wrap" => Some(ShiftMode::Wrap),
        _ => None,
    })
    .ok_or_else(|| q.syntax(format!("`{}` needs .clamp or .wrap", q.opcode)))
}
