//! Lowering control flow: barriers, branches and calls.

use super::D;
use crate::exec::decode::context::{FnCtx, SlotInfo};
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{ArgSource, BarrierInfo, CallSite, DInstr, Dst, Extra, RetDest, Src};
use crate::exec::step::control;
use crate::ir::{Bar, BarKind, Call, Instr, LabelOrProto, Operand, Type, VarRef};
use crate::validate::Unguaranteed;

/// `bar`/`barrier`: sync, arrive and the `.red` reductions.
pub(super) fn bar(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, b: &Bar) -> D {
    let (red, first) = match b.kind {
        BarKind::Red(op) => (Some(op), 1),
        BarKind::Sync | BarKind::Arrive => (None, 0),
    };
    if red.is_some() {
        let ty = if red == Some(crate::ir::BarRedOp::Popc) {
            Type::U32
        } else {
            Type::Pred
        };
        d.d[0] = fx.dst(fx.arg(ins, 0)?, ty, ins.span)?;
    }
    d.s[0] = fx.src(fx.arg(ins, first)?, Type::U32, ins.span)?;
    let rest = ins.args.len() - first - 1;
    // bar.red: d, a, {b,} {!}c ; bar.sync/arrive: a{, b}.
    if red.is_some() {
        if rest == 2 {
            d.s[1] = fx.src(fx.arg(ins, first + 1)?, Type::U32, ins.span)?;
        }
        d.s[2] = fx.src(fx.arg(ins, ins.args.len() - 1)?, Type::Pred, ins.span)?;
    } else if rest >= 1 {
        d.s[1] = fx.src(fx.arg(ins, first + 1)?, Type::U32, ins.span)?;
    }
    d.extra = Extra::Barrier(BarrierInfo {
        arrive_only: b.kind == BarKind::Arrive,
        aligned: b.is_aligned(),
        red,
    });
    d.exec = control::bar;
    d.control = true;
    Ok(d)
}

/// `bra`.
pub(super) fn bra(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    let l = fx.validated.label_of(ins, 0)?;
    d.extra = Extra::Target(fx.label_pc(l));
    d.exec = control::bra;
    d.control = true;
    Ok(d)
}

/// `brx.idx`: the index and the program counters of its `.branchtargets` list.
pub(super) fn brx_idx(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    d.s[0] = fx.src(fx.arg(ins, 0)?, Type::U32, ins.span)?;
    let targets: Vec<u32> = fx
        .validated
        .branch_targets_of(fx.func, ins, 1)?
        .iter()
        .map(|l| fx.label_pc(*l))
        .collect();
    d.extra = Extra::Elems(
        targets
            .into_iter()
            .map(|pc| Src::Imm(u64::from(pc)))
            .collect(),
        Vec::new(),
    );
    d.exec = control::brx_idx;
    d.control = true;
    Ok(d)
}

/// `call`.
pub(super) fn call(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, c: &Call) -> D {
    d.extra = Extra::Call(Box::new(call_site(fx, ins, c)?));
    d.exec = control::call;
    d.control = true;
    Ok(d)
}

fn call_site(fx: &FnCtx<'_>, ins: &Instr, c: &crate::ir::Call) -> Result<CallSite, DecodeError> {
    // The parser resolves the callee to a function or a register, and the rule
    // `operand-type` (`validate/instr.rs`) refuses a predicate there.
    const CALLEE: &str = "a call of a function or of a register holding its address";
    let (callee, target_reg) = match &c.callee {
        Operand::Symbol(s) => match s.sym {
            VarRef::Function(f) => (Some(f.0), None),
            _ => return Err(Unguaranteed::instr(ins, CALLEE).into()),
        },
        Operand::Reg(r) => match fx.slot(*r) {
            SlotInfo::Val { slot, .. } => (None, Some(slot)),
            SlotInfo::Pred(_) => return Err(Unguaranteed::instr(ins, CALLEE).into()),
        },
        _ => return Err(Unguaranteed::instr(ins, CALLEE).into()),
    };
    // The rule `operand-kind` (`validate/instr.rs`) returns into registers and the calling
    // function's frame only.
    const RETURNS: &str = "a call returning into registers or the caller's frame";
    let _ = LabelOrProto::Proto;
    let args = c
        .args
        .iter()
        .map(|a| match a {
            Operand::Symbol(s) => match fx.sym_place(s.sym, ins.span)? {
                crate::exec::decode::operands::SymPlace::Frame(off) => Ok(ArgSource::Frame {
                    offset: off.wrapping_add(s.offset as u64),
                    size: var_size(fx, s.sym),
                }),
                crate::exec::decode::operands::SymPlace::Reg(slot) => {
                    Ok(ArgSource::Value(Src::Reg(slot)))
                }
                crate::exec::decode::operands::SymPlace::Fixed(addr, _) => {
                    Ok(ArgSource::Value(Src::Imm(addr)))
                }
            },
            other => Ok(ArgSource::Value(fx.src(other, Type::B64, ins.span)?)),
        })
        .collect::<Result<Vec<_>, DecodeError>>()?;
    let rets = c
        .returns
        .iter()
        .map(|r| match r {
            Operand::Symbol(s) => match fx.sym_place(s.sym, ins.span)? {
                crate::exec::decode::operands::SymPlace::Frame(off) => Ok(RetDest::Frame {
                    offset: off,
                    size: var_size(fx, s.sym),
                }),
                crate::exec::decode::operands::SymPlace::Reg(slot) => Ok(RetDest::Reg(Dst::Reg {
                    slot,
                    bits: 64,
                    sext_from: 0,
                })),
                crate::exec::decode::operands::SymPlace::Fixed(..) => {
                    Err(Unguaranteed::instr(ins, RETURNS).into())
                }
            },
            Operand::Reg(reg) => Ok(RetDest::Reg(fx.reg_dst(*reg, fx.reg_ty(*reg)))),
            _ => Err(Unguaranteed::instr(ins, RETURNS).into()),
        })
        .collect::<Result<Vec<_>, DecodeError>>()?;
    Ok(CallSite {
        callee,
        target_reg,
        args,
        rets,
    })
}

fn var_size(fx: &FnCtx<'_>, v: VarRef) -> u64 {
    let var = match v {
        VarRef::Local(id) => fx.func.locals.get(id.index()),
        VarRef::Param(i) => fx.func.params.get(i as usize).map(|p| &p.var),
        VarRef::Return(i) => fx.func.returns.get(i as usize).map(|p| &p.var),
        VarRef::Global(g) => fx.module.globals.get(g.index()),
        VarRef::Function(_) => None,
    };
    var.and_then(|v| v.size_bytes()).unwrap_or(8)
}
