//! Lowering `tcgen05.mma` and `tcgen05.commit`: resolving D's and A's Tensor Memory addresses
//! or A's descriptor, B's descriptor, the instruction descriptor, `disable-output-lane`,
//! `enable-input-d`, `scale-input-d`, the scale-factor addresses and the mbarrier, once.

use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Extra, Src};
use crate::ir::tcgen05_mma::{Tcgen05Commit, Tcgen05Mma};
use crate::ir::{Imm, Instr, Operand, SpaceQual, Tcgen05, Type};
use crate::tcgen05::decoded::{MmaDInstr, TmemRef};
use crate::tcgen05::exec::mma as step;
use crate::tcgen05::lower::tmem_address;

fn tref(fx: &FnCtx<'_>, ins: &Instr, k: usize) -> Result<TmemRef, DecodeError> {
    let (src, offset) = tmem_address(fx, ins, fx.arg(ins, k)?)?;
    Ok(TmemRef { src, offset })
}

/// The decoded form of `t` with no operand resolved yet.
fn empty(fx: &FnCtx<'_>, t: &Tcgen05) -> MmaDInstr {
    MmaDInstr {
        op: *t,
        d: None,
        a_tmem: None,
        a_desc: Src::None,
        b_desc: Src::None,
        idesc: Src::None,
        disable: Vec::new(),
        enable: Src::None,
        scale_input_d: 0,
        zero_mask: false,
        sfa: None,
        sfb: None,
        mbar: None,
        mask: Src::None,
        sm: fx.module.target.sm,
    }
}

/// Lowers a `tcgen05.mma` (`t`, whose payload is `m`) into `d`.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu).
pub fn lower_mma(
    fx: &FnCtx<'_>,
    ins: &Instr,
    t: &Tcgen05,
    m: &Tcgen05Mma,
    d: &mut DInstr,
) -> Result<(), DecodeError> {
    let mut x = empty(fx, t);
    x.d = Some(tref(fx, ins, 0)?);
    if matches!(fx.arg(ins, 1)?, Operand::Address(_)) {
        x.a_tmem = Some(tref(fx, ins, 1)?);
    } else {
        x.a_desc = fx.src(fx.arg(ins, 1)?, Type::B64, ins.span)?;
    }
    x.b_desc = fx.src(fx.arg(ins, 2)?, Type::B64, ins.span)?;
    x.idesc = fx.src(fx.arg(ins, 3)?, Type::B32, ins.span)?;
    let mut k = 4;
    if m.scale_vec.is_some() {
        x.sfa = Some(tref(fx, ins, 4)?);
        x.sfb = Some(tref(fx, ins, 5)?);
        k = 6;
    } else if let Operand::Vector(_) = fx.arg(ins, 4)? {
        for r in fx.validated.regs_of(ins, 4)? {
            x.disable
                .push(fx.src(&Operand::Reg(r), Type::B32, ins.span)?);
        }
        k = 5;
    }
    x.enable = fx.src(fx.arg(ins, k)?, Type::Pred, ins.span)?;
    if !m.ws {
        if let Some(Operand::Imm(Imm::Int(v))) = ins.args.get(k + 1) {
            x.scale_input_d = (*v).clamp(0, 15) as u32;
        }
    } else {
        x.zero_mask = ins.args.get(k + 1).is_some();
    }
    d.exec = step::mma;
    d.extra = Extra::Tc5Mma(Box::new(x));
    Ok(())
}

/// Lowers a `tcgen05.commit` (`t`, whose payload is `c`) into `d`.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu).
pub fn lower_commit(
    fx: &FnCtx<'_>,
    ins: &Instr,
    t: &Tcgen05,
    c: &Tcgen05Commit,
    d: &mut DInstr,
) -> Result<(), DecodeError> {
    let mut x = empty(fx, t);
    let space = if c.shared_cluster {
        SpaceQual::SHARED_CTA
    } else {
        SpaceQual::GENERIC
    };
    x.mbar = Some(fx.addr(fx.arg(ins, 0)?, space, ins.span)?);
    if c.multicast {
        x.mask = fx.src(fx.arg(ins, 1)?, Type::B16, ins.span)?;
    }
    d.exec = step::commit;
    d.extra = Extra::Tc5Mma(Box::new(x));
    Ok(())
}
