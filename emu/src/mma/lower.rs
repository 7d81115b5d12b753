//! Lowering the warp-level matrix instructions (`mma`, `ldmatrix`, `stmatrix`, `movmatrix`):
//! resolving every fragment register and the address once, so the step functions only gather
//! and scatter values.

use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::invalid;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::ir::{Instr, MmaElem, Operand, Type, VecElem, WarpMatrix};
use crate::mma::decoded::MatrixInstr;
use crate::mma::exec as step;
use crate::mma::wmma;

/// The elements of a fragment operand (a brace vector, or movmatrix's bare register) as
/// operands; immediates only where `imm` allows (C of mma).
fn elems(ins: &Instr, o: &Operand, imm: bool) -> Result<Vec<Operand>, DecodeError> {
    match o {
        Operand::Reg(r) => Ok(vec![Operand::Reg(*r)]),
        Operand::Vector(v) => v
            .iter()
            .map(|e| match e {
                VecElem::Reg(r) => Ok(Operand::Reg(*r)),
                VecElem::Imm(i) if imm => Ok(Operand::Imm(*i)),
                VecElem::Sink | VecElem::Imm(_) => {
                    Err(invalid(ins, "matrix fragments hold registers only"))
                }
            })
            .collect(),
        _ => Err(invalid(ins, "expected a vector of registers `{...}`")),
    }
}

fn srcs(fx: &FnCtx<'_>, ins: &Instr, k: usize, ty: Type) -> Result<Vec<Src>, DecodeError> {
    elems(ins, fx.arg(ins, k)?, false)?
        .iter()
        .map(|o| fx.src(o, ty, ins.span))
        .collect()
}

/// C of mma, whose elements may be immediates of the element type `ty`.
fn accumulator(fx: &FnCtx<'_>, ins: &Instr, ty: Type) -> Result<Vec<Src>, DecodeError> {
    elems(ins, fx.arg(ins, 3)?, true)?
        .iter()
        .map(|o| fx.src(o, ty, ins.span))
        .collect()
}

fn dsts(fx: &FnCtx<'_>, ins: &Instr, k: usize, ty: Type) -> Result<Vec<Dst>, DecodeError> {
    elems(ins, fx.arg(ins, k)?, false)?
        .iter()
        .map(|o| fx.dst(o, ty, ins.span))
        .collect()
}

fn reg_type(e: MmaElem) -> Type {
    match e {
        MmaElem::F64 => Type::F64,
        MmaElem::F32 => Type::F32,
        MmaElem::S32 => Type::S32,
        _ => Type::B32,
    }
}

/// Lowers one warp-level matrix instruction into `d`.
///
/// # Errors
/// A malformed instruction the validator should have rejected.
pub fn lower(
    fx: &FnCtx<'_>,
    ins: &Instr,
    w: &WarpMatrix,
    d: &mut DInstr,
) -> Result<(), DecodeError> {
    let mut m = MatrixInstr {
        op: *w,
        d: Vec::new(),
        a: Vec::new(),
        b: Vec::new(),
        c: Vec::new(),
        addr: None,
        stride: Src::None,
        sm: fx.module.target.sm,
    };
    d.exec = match w {
        WarpMatrix::Mma(x) => {
            m.d = dsts(fx, ins, 0, reg_type(x.d))?;
            m.a = srcs(fx, ins, 1, reg_type(x.a))?;
            m.b = srcs(fx, ins, 2, reg_type(x.b))?;
            m.c = accumulator(fx, ins, reg_type(x.c))?;
            let [a, b, c, dd] = x.regs().map(|n| n as usize);
            if (m.a.len(), m.b.len(), m.c.len(), m.d.len()) != (a, b, c, dd) {
                return Err(invalid(ins, "a fragment's size does not match the shape"));
            }
            step::mma
        }
        WarpMatrix::Ldmatrix(x) => {
            m.d = dsts(fx, ins, 0, Type::B32)?;
            m.addr = Some(fx.addr(fx.arg(ins, 1)?, x.space, ins.span)?);
            if m.d.len() as u32 != x.regs() {
                return Err(invalid(ins, "the vector's size does not match .num"));
            }
            step::ldmatrix
        }
        WarpMatrix::Stmatrix(x) => {
            m.addr = Some(fx.addr(fx.arg(ins, 0)?, x.space, ins.span)?);
            m.a = srcs(fx, ins, 1, Type::B32)?;
            if m.a.len() as u32 != x.regs() {
                return Err(invalid(ins, "the vector's size does not match .num"));
            }
            step::stmatrix
        }
        WarpMatrix::Movmatrix => {
            m.d = dsts(fx, ins, 0, Type::B32)?;
            m.a = srcs(fx, ins, 1, Type::B32)?;
            step::movmatrix
        }
        WarpMatrix::WmmaLoad(l) => {
            m.d = dsts(fx, ins, 0, reg_type(l.ty))?;
            m.addr = Some(fx.addr(fx.arg(ins, 1)?, l.space, ins.span)?);
            if let Some(s) = ins.args.get(2) {
                m.stride = fx.src(s, Type::U32, ins.span)?;
            }
            wmma::load
        }
        WarpMatrix::WmmaStore(st) => {
            m.addr = Some(fx.addr(fx.arg(ins, 0)?, st.space, ins.span)?);
            m.a = srcs(fx, ins, 1, reg_type(st.ty))?;
            if let Some(s) = ins.args.get(2) {
                m.stride = fx.src(s, Type::U32, ins.span)?;
            }
            wmma::store
        }
        WarpMatrix::WmmaMma(x) => {
            m.d = dsts(fx, ins, 0, reg_type(x.d))?;
            m.a = srcs(fx, ins, 1, reg_type(x.a))?;
            m.b = srcs(fx, ins, 2, reg_type(x.b))?;
            m.c = srcs(fx, ins, 3, reg_type(x.c))?;
            wmma::mma
        }
    };
    d.extra = Extra::Matrix(Box::new(m));
    Ok(())
}
