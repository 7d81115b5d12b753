//! Bit-manipulation instructions in the lane loop: `popc`, `clz`, `bfind`, `fns`, `brev`,
//! `bfe`, `bfi`, `bmsk`, `szext`, `lop3`, `shf`, `prmt`; per-lane meaning in
//! `crate::semantics::bits`.

use crate::exec::ctx::{quaternary, ternary, unary, Ctx};
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Extra, Flow, Src};
use crate::ir::{Instr, PrmtMode, ShiftMode, Type};
use crate::semantics::bits as sb;

type R = Result<Flow, LaneFault>;

fn p(i: &DInstr) -> u64 {
    match i.extra {
        Extra::Param(p) => p,
        _ => 0,
    }
}

fn width(p: u64) -> u32 {
    if p & 1 != 0 {
        64
    } else {
        32
    }
}

fn popc(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let w = width(p(i));
    unary(c, i, |a| u64::from(sb::popc(a, w)));
    Ok(Flow::Next)
}

fn clz(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let w = width(p(i));
    unary(c, i, |a| u64::from(sb::clz(a, w)));
    Ok(Flow::Next)
}

fn brev(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let w = width(p(i));
    unary(c, i, |a| sb::brev(a, w));
    Ok(Flow::Next)
}

fn bfind(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let q = p(i);
    let (w, signed, amt) = (width(q), q & 2 != 0, q & 4 != 0);
    unary(c, i, |a| u64::from(sb::bfind(a, w, signed, amt)));
    Ok(Flow::Next)
}

fn fns(c: &mut Ctx<'_>, i: &DInstr) -> R {
    ternary(c, i, |m, base, off| {
        u64::from(sb::fns(m as u32, base as u32, off as u32 as i32))
    });
    Ok(Flow::Next)
}

fn bfe(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let q = p(i);
    let (w, signed) = (width(q), q & 2 != 0);
    ternary(c, i, |a, pos, len| {
        sb::bfe(a, pos as u32, len as u32, w, signed)
    });
    Ok(Flow::Next)
}

fn bfi(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let w = width(p(i));
    quaternary(c, i, |a, b, pos, len| {
        sb::bfi(a, b, pos as u32, len as u32, w)
    });
    Ok(Flow::Next)
}

fn shift_mode(q: u64) -> ShiftMode {
    if q & 8 != 0 {
        ShiftMode::Wrap
    } else {
        ShiftMode::Clamp
    }
}

fn bmsk(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = shift_mode(p(i));
    crate::exec::ctx::binary(c, i, |a, b| u64::from(sb::bmsk(a as u32, b as u32, m)));
    Ok(Flow::Next)
}

fn szext(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let q = p(i);
    let (m, signed) = (shift_mode(q), q & 2 != 0);
    crate::exec::ctx::binary(c, i, |a, b| {
        u64::from(sb::szext(a as u32, b as u32, m, signed))
    });
    Ok(Flow::Next)
}

fn lop3(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let lut = (p(i) >> 8) as u8;
    ternary(c, i, |a, b, d| {
        u64::from(sb::lop3(a as u32, b as u32, d as u32, lut))
    });
    Ok(Flow::Next)
}

fn shf(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let q = p(i);
    let (left, m) = (q & 2 != 0, shift_mode(q));
    ternary(c, i, |a, b, n| {
        u64::from(sb::shf(a as u32, b as u32, n as u32, left, m))
    });
    Ok(Flow::Next)
}

fn prmt(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let mode = match p(i) >> 8 {
        1 => Some(PrmtMode::F4e),
        2 => Some(PrmtMode::B4e),
        3 => Some(PrmtMode::Rc8),
        4 => Some(PrmtMode::Ecl),
        5 => Some(PrmtMode::Ecr),
        6 => Some(PrmtMode::Rc16),
        _ => None,
    };
    ternary(c, i, |a, b, s| {
        u64::from(sb::prmt(a as u32, b as u32, s as u32, mode))
    });
    Ok(Flow::Next)
}

/// A bit-manipulation opcode with its qualifiers: the dispatcher's typed view of the
/// [`Op`](crate::ir::Op) variants this module lowers.
#[derive(Clone, Copy, Debug)]
pub enum BitOp {
    /// `popc`.
    Popc(Type),
    /// `clz`.
    Clz(Type),
    /// `bfind`.
    Bfind(crate::ir::Bfind),
    /// `fns`.
    Fns,
    /// `brev`.
    Brev(Type),
    /// `bfe`.
    Bfe(Type),
    /// `bfi`.
    Bfi(Type),
    /// `bmsk`.
    Bmsk(ShiftMode),
    /// `szext`.
    Szext(crate::ir::Szext),
    /// `lop3`.
    Lop3,
    /// `shf`.
    Shf(crate::ir::Shf),
    /// `prmt`.
    Prmt(Option<PrmtMode>),
}

/// Lowers a bit-manipulation instruction.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu): the operand count, or
/// `lop3`'s immediate truth table.
pub fn lower(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, op: BitOp) -> Result<DInstr, DecodeError> {
    let arg = |k: usize| fx.arg(ins, k);
    let (ty, dst_ty) = match op {
        BitOp::Popc(t) | BitOp::Clz(t) => (t, Type::U32),
        BitOp::Bfind(b) => (b.ty, Type::U32),
        BitOp::Brev(t) | BitOp::Bfe(t) | BitOp::Bfi(t) => (t, t),
        BitOp::Szext(z) => (z.ty, z.ty),
        BitOp::Fns | BitOp::Bmsk(_) | BitOp::Lop3 | BitOp::Shf(_) | BitOp::Prmt(_) => {
            (Type::B32, Type::B32)
        }
    };
    d.d[0] = fx.dst(arg(0)?, dst_ty, ins.span)?;
    let n = ins.args.len() - 1;
    for k in 0..n.min(4) {
        let t = if k == 0 || matches!(op, BitOp::Bfi(_)) && k == 1 {
            ty
        } else {
            Type::U32
        };
        let t = if matches!(op, BitOp::Fns) && k == 2 {
            Type::S32
        } else {
            t
        };
        d.s[k] = fx.src(arg(k + 1)?, t, ins.span)?;
    }
    let w64 = u64::from(ty.bits() == 64);
    let signed = u64::from(ty.is_signed()) << 1;
    let (param, exec): (u64, super::super::program::ExecFn) = match op {
        BitOp::Popc(_) => (w64, popc),
        BitOp::Clz(_) => (w64, clz),
        BitOp::Brev(_) => (w64, brev),
        BitOp::Bfind(b) => (w64 | signed | u64::from(b.shiftamt) << 2, bfind),
        BitOp::Fns => (0, fns),
        BitOp::Bfe(_) => (w64 | signed, bfe),
        BitOp::Bfi(_) => (w64, bfi),
        BitOp::Bmsk(m) => (u64::from(m == ShiftMode::Wrap) << 3, bmsk),
        BitOp::Szext(z) => (signed | u64::from(z.mode == ShiftMode::Wrap) << 3, szext),
        BitOp::Lop3 => {
            // The table's low byte, whatever its width (the rule `lop3-table`).
            let lut = u64::from(fx.validated.int_of(ins, 4)?.to_le_bytes()[0]);
            d.s[3] = Src::None;
            (lut << 8, lop3)
        }
        BitOp::Shf(s) => (
            u64::from(s.left) << 1 | u64::from(s.mode == ShiftMode::Wrap) << 3,
            shf,
        ),
        BitOp::Prmt(m) => {
            let code = match m {
                None => 0,
                Some(PrmtMode::F4e) => 1,
                Some(PrmtMode::B4e) => 2,
                Some(PrmtMode::Rc8) => 3,
                Some(PrmtMode::Ecl) => 4,
                Some(PrmtMode::Ecr) => 5,
                Some(PrmtMode::Rc16) => 6,
            };
            (code << 8, prmt)
        }
    };
    d.extra = Extra::Param(param);
    d.exec = exec;
    Ok(d)
}
