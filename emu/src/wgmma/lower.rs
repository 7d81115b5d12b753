//! Lowering the warpgroup-level matrix instructions (`wgmma.mma_async`, `.fence`,
//! `.commit_group`, `.wait_group`): resolving D's registers, A's registers or descriptor, B's
//! descriptor, scale-d and the immediates once, so the step functions only gather and scatter.

use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::ir::{Instr, MmaElem, Operand, Type, Wgmma};
use crate::validate::Unguaranteed;
use crate::wgmma::decoded::WgmmaInstr;
use crate::wgmma::exec as step;

/// The registers of fragment operand `k`, as operands.
fn regs(fx: &FnCtx<'_>, ins: &Instr, k: usize) -> Result<Vec<Operand>, DecodeError> {
    Ok(fx
        .validated
        .regs_of(ins, k)?
        .into_iter()
        .map(Operand::Reg)
        .collect())
}

fn int_imm(fx: &FnCtx<'_>, ins: &Instr, k: usize) -> Result<i64, DecodeError> {
    Ok(fx.validated.int_of(ins, k)?)
}

/// Lowers one wgmma instruction into `d`.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu).
pub fn lower(fx: &FnCtx<'_>, ins: &Instr, w: &Wgmma, d: &mut DInstr) -> Result<(), DecodeError> {
    let mut x = WgmmaInstr {
        op: *w,
        d: Vec::new(),
        c: Vec::new(),
        a: Vec::new(),
        a_desc: Src::None,
        b_desc: Src::None,
        scale_d: Src::None,
        neg_a: false,
        neg_b: false,
        trans_a: false,
        trans_b: false,
        wait: 0,
        sm: fx.module.target.sm,
        names: Vec::new(),
    };
    d.exec = match w {
        Wgmma::Fence => step::fence,
        Wgmma::CommitGroup => step::commit_group,
        Wgmma::WaitGroup => {
            // The rule `operand-kind` guarantees a non-negative count; a count past u32
            // waits for every group all the same.
            x.wait = u32::try_from(int_imm(fx, ins, 0)?).unwrap_or(u32::MAX);
            step::wait_group
        }
        Wgmma::MmaAsync(m) => {
            let dty = if m.d == MmaElem::F32 {
                Type::F32
            } else {
                Type::B32
            };
            for o in regs(fx, ins, 0)? {
                if let Operand::Reg(r) = o {
                    x.names.push(fx.func.regs[r.index()].name.clone());
                }
                x.d.push(fx.dst(&o, dty, ins.span)?);
                x.c.push(fx.src(&o, dty, ins.span)?);
            }
            let a_regs = matches!(fx.arg(ins, 1)?, Operand::Vector(_));
            if a_regs {
                for o in regs(fx, ins, 1)? {
                    x.a.push(fx.src(&o, Type::B32, ins.span)?);
                }
            } else {
                x.a_desc = fx.src(fx.arg(ins, 1)?, Type::B64, ins.span)?;
            }
            x.b_desc = fx.src(fx.arg(ins, 2)?, Type::B64, ins.span)?;
            x.scale_d = fx.src(fx.arg(ins, 3)?, Type::Pred, ins.span)?;
            if m.has_scale() {
                x.neg_a = int_imm(fx, ins, 4)? == -1;
                x.neg_b = int_imm(fx, ins, 5)? == -1;
            }
            if m.has_trans() {
                if !a_regs {
                    x.trans_a = int_imm(fx, ins, 6)? == 1;
                }
                x.trans_b = int_imm(fx, ins, ins.args.len() - 1)? == 1;
            }
            // The rule `mma-fragment` (`validate.rs`) sizes the fragments by the shape and
            // makes D's elements 32-bit value registers.
            if x.d.len() as u32 != m.d_regs() || (a_regs && x.a.len() as u32 != m.a_regs()) {
                return Err(Unguaranteed::instr(ins, "fragments of the shape's sizes").into());
            }
            if x.d.iter().any(|r| matches!(r, Dst::Sink | Dst::Pred(_))) {
                return Err(Unguaranteed::instr(ins, "a D of value registers").into());
            }
            step::mma_async
        }
    };
    d.extra = Extra::Wgmma(Box::new(x));
    Ok(())
}
