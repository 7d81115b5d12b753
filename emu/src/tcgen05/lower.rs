//! Lowering `tcgen05` instructions: resolving `taddr`, `immHalfSplitoff`, the register vector,
//! `redval`, `nCols` and alloc's destination once, so the step functions only fetch values.

pub mod mma;

use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::ir::{Instr, Operand, SpaceQual, Tcgen05, TmemShape, Type};
use crate::tcgen05::decoded::TmemInstr;
use crate::tcgen05::exec as step;
use crate::validate::Unguaranteed;

/// immHalfSplitoff, operand `k`: a 32-bit quantity; wider literals are truncated as ptxas
/// does.
fn split_offset(fx: &FnCtx<'_>, ins: &Instr, k: usize) -> Result<u32, DecodeError> {
    let [b0, b1, b2, b3, ..] = fx.validated.int_of(ins, k)?.to_le_bytes();
    Ok(u32::from_le_bytes([b0, b1, b2, b3]))
}

/// The registers of the brace vector operand `k`, with their names.
fn vector(
    fx: &FnCtx<'_>,
    ins: &Instr,
    k: usize,
) -> Result<(Vec<crate::ir::RegId>, Vec<String>), DecodeError> {
    let regs = fx.validated.regs_of(ins, k)?;
    let names = regs
        .iter()
        .map(|r| fx.func.regs[r.index()].name.clone())
        .collect();
    Ok((regs, names))
}

/// `taddr` in brackets: its register and constant offset.
pub(crate) fn tmem_address(
    fx: &FnCtx<'_>,
    ins: &Instr,
    o: &Operand,
) -> Result<(Src, i64), DecodeError> {
    let a = fx.addr(o, SpaceQual::GENERIC, ins.span)?;
    match a.base {
        crate::exec::program::AddrBase::Reg(slot) => Ok((Src::Reg(slot), a.offset)),
        // `[imm]`: a constant Tensor Memory address.
        crate::exec::program::AddrBase::Fixed(v) => Ok((Src::Imm(v), a.offset)),
        // The rule `operand-kind` (`validate.rs`) names no variable as a Tensor Memory
        // address.
        crate::exec::program::AddrBase::Frame(_) => {
            Err(Unguaranteed::instr(ins, "a Tensor Memory address `[reg]` or `[imm]`").into())
        }
    }
}

/// Lowers one `tcgen05` instruction into `d`.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu), or a construct the
/// interpreter does not implement.
pub fn lower(fx: &FnCtx<'_>, ins: &Instr, t: &Tcgen05, d: &mut DInstr) -> Result<(), DecodeError> {
    let mut m = TmemInstr {
        op: *t,
        taddr: Src::None,
        taddr_offset: 0,
        split: 0,
        dsts: Vec::new(),
        srcs: Vec::new(),
        redval: Dst::Sink,
        ncols: Src::None,
        dst: None,
        names: Vec::new(),
    };
    d.exec = match t {
        Tcgen05::Alloc(a) => {
            let space = if a.shared_cta {
                SpaceQual::SHARED_CTA
            } else {
                SpaceQual::GENERIC
            };
            m.dst = Some(fx.addr(fx.arg(ins, 0)?, space, ins.span)?);
            m.ncols = fx.src(fx.arg(ins, 1)?, Type::U32, ins.span)?;
            step::alloc::alloc
        }
        Tcgen05::Dealloc(_) => {
            m.taddr = fx.src(fx.arg(ins, 0)?, Type::U32, ins.span)?;
            m.ncols = fx.src(fx.arg(ins, 1)?, Type::U32, ins.span)?;
            step::alloc::dealloc
        }
        Tcgen05::Relinquish(_) => step::alloc::relinquish,
        Tcgen05::Wait(_) => step::ordering::wait,
        Tcgen05::Fence(_) => step::ordering::fence,
        Tcgen05::Shift(_) => {
            (m.taddr, m.taddr_offset) = tmem_address(fx, ins, fx.arg(ins, 0)?)?;
            step::shift::shift
        }
        Tcgen05::Cp(_) => {
            (m.taddr, m.taddr_offset) = tmem_address(fx, ins, fx.arg(ins, 0)?)?;
            m.srcs = vec![fx.src(fx.arg(ins, 1)?, Type::B64, ins.span)?];
            crate::tcgen05::exec::cp::cp
        }
        Tcgen05::Ld(l) => {
            let split = usize::from(l.shape == TmemShape::S16x32bx2);
            let red = usize::from(l.red.is_some());
            let (regs, names) = vector(fx, ins, 0)?;
            m.dsts = regs
                .iter()
                .map(|r| fx.dst(&Operand::Reg(*r), Type::B32, ins.span))
                .collect::<Result<_, _>>()?;
            m.names = names;
            if red == 1 {
                m.redval = fx.dst(fx.arg(ins, 1)?, Type::B32, ins.span)?;
            }
            (m.taddr, m.taddr_offset) = tmem_address(fx, ins, fx.arg(ins, 1 + red)?)?;
            if split == 1 {
                m.split = split_offset(fx, ins, 2 + red)?;
            }
            if m.dsts.len() as u32 != l.shape.regs(l.num.count()) {
                // The rule `tcgen05-vector-size` (`validate.rs`) sizes it by the shape.
                return Err(Unguaranteed::instr(ins, "a vector of the shape's size").into());
            }
            step::ldst::ld
        }
        Tcgen05::St(s) => {
            let split = usize::from(s.shape == TmemShape::S16x32bx2);
            (m.taddr, m.taddr_offset) = tmem_address(fx, ins, fx.arg(ins, 0)?)?;
            if split == 1 {
                m.split = split_offset(fx, ins, 1)?;
            }
            let (regs, names) = vector(fx, ins, 1 + split)?;
            m.srcs = regs
                .iter()
                .map(|r| fx.src(&Operand::Reg(*r), Type::B32, ins.span))
                .collect::<Result<_, _>>()?;
            m.names = names;
            if m.srcs.len() as u32 != s.shape.regs(s.num.count()) {
                // The rule `tcgen05-vector-size` (`validate.rs`) sizes it by the shape.
                return Err(Unguaranteed::instr(ins, "a vector of the shape's size").into());
            }
            step::ldst::st
        }
        Tcgen05::Mma(mm) => return mma::lower_mma(fx, ins, t, mm, d),
        Tcgen05::Commit(c) => return mma::lower_commit(fx, ins, t, c, d),
    };
    d.extra = Extra::Tmem(Box::new(m));
    Ok(())
}
