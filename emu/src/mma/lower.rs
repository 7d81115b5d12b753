//! Lowering the warp-level matrix instructions (`mma`, `ldmatrix`, `stmatrix`, `movmatrix`):
//! resolving every fragment register and the address once, so the step functions only gather
//! and scatter values.

use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::ir::{Instr, MmaElem, Type, WarpMatrix};
use crate::mma::decoded::MatrixInstr;
use crate::mma::exec as step;
use crate::mma::wmma;
use crate::validate::forms::Value;
use crate::validate::Unguaranteed;

/// Fragment `k`, a vector of registers (the rule `mma-fragment`, `validate.rs`), read as
/// values of type `ty`.
fn srcs(fx: &FnCtx<'_>, ins: &Instr, k: usize, ty: Type) -> Result<Vec<Src>, DecodeError> {
    fx.validated
        .regs_of(ins, k)?
        .into_iter()
        .map(|r| fx.src_of(Value::Reg(r), ty, ins.span))
        .collect()
}

/// C of mma, whose elements may be immediates of the element type `ty` (the rule
/// `mma-fragment`).
fn accumulator(fx: &FnCtx<'_>, ins: &Instr, ty: Type) -> Result<Vec<Src>, DecodeError> {
    fx.validated
        .values_of(ins, 3)?
        .into_iter()
        .map(|v| fx.src_of(v, ty, ins.span))
        .collect()
}

/// Fragment `k`, a vector of registers (the rule `mma-fragment`), written as type `ty`.
fn dsts(fx: &FnCtx<'_>, ins: &Instr, k: usize, ty: Type) -> Result<Vec<Dst>, DecodeError> {
    Ok(fx
        .validated
        .regs_of(ins, k)?
        .into_iter()
        .map(|r| fx.reg_dst(r, ty))
        .collect())
}

/// The fragments' sizes the shape needs: the rule `mma-fragment` guarantees them.
fn sized(ins: &Instr, ok: bool) -> Result<(), DecodeError> {
    if ok {
        Ok(())
    } else {
        Err(Unguaranteed::instr(ins, "fragments of the sizes its shape needs").into())
    }
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
/// A guarantee of the validator that did not hold (a bug of ptxemu).
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
            sized(
                ins,
                (m.a.len(), m.b.len(), m.c.len(), m.d.len()) == (a, b, c, dd),
            )?;
            step::mma
        }
        WarpMatrix::Ldmatrix(x) => {
            m.d = dsts(fx, ins, 0, Type::B32)?;
            m.addr = Some(fx.addr(fx.arg(ins, 1)?, x.space, ins.span)?);
            sized(ins, m.d.len() as u32 == x.regs())?;
            step::ldmatrix
        }
        WarpMatrix::Stmatrix(x) => {
            m.addr = Some(fx.addr(fx.arg(ins, 0)?, x.space, ins.span)?);
            m.a = srcs(fx, ins, 1, Type::B32)?;
            sized(ins, m.a.len() as u32 == x.regs())?;
            step::stmatrix
        }
        // One register each, without braces (the rule `mma-fragment`).
        WarpMatrix::Movmatrix => {
            m.d = vec![fx.reg_dst(fx.validated.reg_of(ins, 0)?, Type::B32)];
            m.a = vec![fx.src_of(
                Value::Reg(fx.validated.reg_of(ins, 1)?),
                Type::B32,
                ins.span,
            )?];
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
