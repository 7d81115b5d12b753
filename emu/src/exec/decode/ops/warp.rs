//! Lowering warp-level instructions: `shfl`, `vote`, `match`, `redux`, `elect`.

use super::D;
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Dst, Extra};
use crate::exec::step::warp_ops;
use crate::ir::{Instr, Match, Operand, Redux, ReduxOp, Shfl, Type, Vote};
use crate::validate::Unguaranteed;

/// `shfl`.
pub(super) fn shfl(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: &Shfl) -> D {
    let (dst, p) = dual(fx, ins, fx.arg(ins, 0)?, Type::B32)?;
    d.d = [dst, p];
    d.s[0] = fx.src(fx.arg(ins, 1)?, Type::B32, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, Type::B32, ins.span)?;
    d.s[2] = fx.src(fx.arg(ins, 3)?, Type::B32, ins.span)?;
    if s.sync {
        d.s[3] = fx.src(fx.arg(ins, 4)?, Type::B32, ins.span)?;
    }
    d.extra = Extra::Param(warp_ops::shfl_code(s.mode));
    d.exec = warp_ops::shfl;
    Ok(d)
}

/// `vote`.
pub(super) fn vote(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, v: &Vote) -> D {
    let ty = if v.mode == crate::ir::VoteMode::Ballot {
        Type::B32
    } else {
        Type::Pred
    };
    d.d[0] = fx.dst(fx.arg(ins, 0)?, ty, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, Type::Pred, ins.span)?;
    if v.sync {
        d.s[1] = fx.src(fx.arg(ins, 2)?, Type::B32, ins.span)?;
    }
    d.extra = Extra::Param(warp_ops::vote_code(v.mode));
    d.exec = warp_ops::vote;
    Ok(d)
}

/// `match`.
pub(super) fn match_sync(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, m: &Match) -> D {
    let (dst, p) = dual(fx, ins, fx.arg(ins, 0)?, Type::B32)?;
    d.d = [dst, p];
    d.s[0] = fx.src(fx.arg(ins, 1)?, m.ty, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, Type::B32, ins.span)?;
    d.extra = Extra::Param(u64::from(m.all));
    d.exec = warp_ops::match_sync;
    Ok(d)
}

/// `redux.sync`: integer and `.f32` forms.
pub(super) fn redux(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, r: &Redux) -> D {
    if r.ty == Type::F32 {
        d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::F32, ins.span)?;
        d.s[0] = fx.src(fx.arg(ins, 1)?, Type::F32, ins.span)?;
        d.s[1] = fx.src(fx.arg(ins, 2)?, Type::B32, ins.span)?;
        let max = match r.op {
            ReduxOp::Min => false,
            ReduxOp::Max => true,
            // The rule `operation-type` (`validate/warp_level.rs`) reduces .f32 by min or
            // max only.
            ReduxOp::Add | ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => {
                return Err(Unguaranteed::instr(ins, "`redux.sync.f32` with .min or .max").into())
            }
        };
        d.extra = Extra::Param(warp_ops::redux_f32_code(max, r.abs, r.nan));
        d.exec = warp_ops::redux_f32;
        return Ok(d);
    }
    d.d[0] = fx.dst(fx.arg(ins, 0)?, r.ty, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, r.ty, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, Type::B32, ins.span)?;
    d.extra = Extra::Param(warp_ops::redux_code(r.op, r.ty.is_signed()));
    d.exec = warp_ops::redux;
    Ok(d)
}

/// `elect.sync`.
pub(super) fn elect(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    let (dst, p) = dual(fx, ins, fx.arg(ins, 0)?, Type::B32)?;
    d.d = [dst, p];
    d.s[0] = fx.src(fx.arg(ins, 1)?, Type::B32, ins.span)?;
    d.exec = warp_ops::elect;
    Ok(d)
}

/// A dual destination `d|p` (or a plain `d`).
fn dual(fx: &FnCtx<'_>, ins: &Instr, op: &Operand, ty: Type) -> Result<(Dst, Dst), DecodeError> {
    match op {
        Operand::Dual(a, b) => Ok((fx.reg_dst(*a, ty), fx.reg_dst(*b, Type::Pred))),
        Operand::SinkDual(b) => Ok((Dst::Sink, fx.reg_dst(*b, Type::Pred))),
        other => Ok((fx.dst(other, ty, ins.span)?, Dst::Sink)),
    }
}
