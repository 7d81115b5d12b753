//! Lowering `mov`: plain, predicate, and vector pack/unpack forms.

use super::{unsupported, D};
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::operands::imm_bits;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::exec::step::{int, mov};
use crate::ir::{Instr, Operand, Type, VecElem};

pub(super) fn lower_mov(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: Type) -> D {
    let dst = fx.arg(ins, 0)?;
    let src = fx.arg(ins, 1)?;
    match (dst, src) {
        (Operand::Vector(_), s) => {
            let dsts: Vec<Dst> = fx
                .validated
                .dests_of(ins, 0)?
                .into_iter()
                .map(|r| r.map_or(Dst::Sink, |r| fx.reg_dst(r, Type::B64)))
                .collect();
            let n = dsts.len() as u32;
            d.s[0] = fx.src(s, ty, ins.span)?;
            d.s[1] = Src::Imm(u64::from(ty.bits().min(64 * 2) / n.max(1)));
            if ty == Type::B128 {
                return Err(unsupported(ins, "unpacking a .b128 register"));
            }
            d.extra = Extra::Elems(Vec::new(), dsts);
            d.exec = mov::mov_unpack;
        }
        (dst, Operand::Vector(elems)) => {
            let n = elems.len() as u32;
            let srcs = elems
                .iter()
                .map(|e| match e {
                    VecElem::Reg(r) => fx.src(&Operand::Reg(*r), Type::B64, ins.span),
                    VecElem::Imm(i) => Ok(Src::Imm(imm_bits(*i, Type::B64))),
                    VecElem::Sink => Ok(Src::Imm(0)),
                })
                .collect::<Result<Vec<_>, _>>()?;
            if ty == Type::B128 {
                return Err(unsupported(ins, "packing a .b128 register"));
            }
            d.d[0] = fx.dst(dst, ty, ins.span)?;
            d.s[1] = Src::Imm(u64::from(ty.bits() / n.max(1)));
            d.extra = Extra::Elems(srcs, Vec::new());
            d.exec = mov::mov_pack;
        }
        (dst, src) => {
            if let (Operand::Reg(a), Operand::Reg(b)) = (dst, src) {
                if fx.reg_ty(*a) == Type::B128 || fx.reg_ty(*b) == Type::B128 {
                    return Err(unsupported(ins, "mov of .b128 registers"));
                }
            }
            d.d[0] = fx.dst(dst, ty, ins.span)?;
            d.s[0] = fx.src(src, ty, ins.span)?;
            d.exec = if ty == Type::Pred {
                int::pred_logic
            } else {
                mov::mov
            };
            if ty == Type::Pred {
                d.s[1] = d.s[0];
                d.extra = Extra::Param(0);
            }
        }
    }
    Ok(d)
}
