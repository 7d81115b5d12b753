//! Lowering logic, shifts and `selp`.

use super::{dn, D};
use crate::exec::decode::context::FnCtx;
use crate::exec::program::{DInstr, Extra};
use crate::exec::step::int;
use crate::ir::{Instr, Op, Type};
use crate::validate::Unguaranteed;

/// `and`/`or`/`xor`/`not`/`cnot`, on predicates or integers.
pub(super) fn logic(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: &Type) -> D {
    let n = if matches!(ins.op, Op::Not(_) | Op::Cnot(_)) {
        1
    } else {
        2
    };
    dn(fx, ins, &mut d, *ty, n)?;
    if *ty == Type::Pred {
        let code = match ins.op {
            Op::And(_) => 0,
            Op::Or(_) => 1,
            Op::Xor(_) => 2,
            _ => 3,
        };
        if matches!(ins.op, Op::Cnot(_)) {
            // The rule `operation-type` (`validate/types.rs`) refuses `cnot.pred`.
            return Err(Unguaranteed::instr(ins, "`cnot` on a bit-size type").into());
        }
        d.extra = Extra::Param(code);
        d.exec = int::pred_logic;
    } else {
        d.exec = match ins.op {
            Op::And(_) => w!(ins, *ty, int::and),
            Op::Or(_) => w!(ins, *ty, int::or),
            Op::Xor(_) => w!(ins, *ty, int::xor),
            Op::Not(_) => w!(ins, *ty, int::not),
            _ => w!(ins, *ty, int::cnot),
        };
    }
    Ok(d)
}

/// `shl`/`shr`.
pub(super) fn shift(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: &Type) -> D {
    d.d[0] = fx.dst(fx.arg(ins, 0)?, *ty, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, *ty, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, Type::U32, ins.span)?;
    d.exec = match (&ins.op, ty.is_signed()) {
        (Op::Shl(_), _) => w!(ins, *ty, int::shl),
        (_, true) => w!(ins, *ty, int::shr_s),
        (_, false) => w!(ins, *ty, int::shr_u),
    };
    Ok(d)
}

/// `selp`.
pub(super) fn selp(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: &Type) -> D {
    dn(fx, ins, &mut d, *ty, 2)?;
    d.s[2] = fx.src(fx.arg(ins, 3)?, Type::Pred, ins.span)?;
    d.exec = int::selp;
    Ok(d)
}
