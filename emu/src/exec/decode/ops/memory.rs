//! Lowering memory instructions: `ld`/`ldu`/`st`, atomics and reductions, `isspacep`, `cvta`.

use super::{dn, unsupported, D};
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::decode::operands::imm_bits;
use crate::exec::l1::{L1Use, LoadOp, StoreOp};
use crate::exec::memory::{CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
use crate::exec::program::{AtomInfo, DInstr, Dst, Extra, MemAccess, Src};
use crate::exec::step::{atom, mem, mov};
use crate::ir::{
    Atom, AtomOp, CacheOp, Cvta, Instr, Ld, Ldu, Operand, Red, St, StateSpace, Type, VecElem,
};
use crate::validate::Unguaranteed;

/// `ld`: the access, its L1 use and a fast path where one applies.
pub(super) fn ld(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, l: &Ld) -> D {
    let acc = mem_access(
        fx,
        ins,
        1,
        0,
        l.space,
        l.vec.map_or(1, |v| v.len()),
        l.ty,
        true,
    )?;
    let acc = MemAccess {
        nc: l.nc(),
        cache: load_l1(l),
        ..acc
    };
    d.exec = mem::fast_path(&acc, true).unwrap_or(mem::ld);
    d.extra = Extra::Mem(acc);
    Ok(d)
}

/// `ldu`.
pub(super) fn ldu(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, l: &Ldu) -> D {
    let acc = mem_access(
        fx,
        ins,
        1,
        0,
        l.space,
        l.vec.map_or(1, |v| v.len()),
        l.ty,
        true,
    )?;
    d.extra = Extra::Mem(acc);
    d.exec = mem::ld;
    Ok(d)
}

/// `st`: the access, its L1 use and a fast path where one applies.
pub(super) fn st(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: &St) -> D {
    let acc = mem_access(
        fx,
        ins,
        0,
        1,
        s.space,
        s.vec.map_or(1, |v| v.len()),
        s.ty,
        false,
    )?;
    let acc = MemAccess {
        cache: store_l1(s),
        ..acc
    };
    d.exec = mem::fast_path(&acc, false).unwrap_or(mem::st);
    d.extra = Extra::Mem(acc);
    Ok(d)
}

/// `isspacep`.
pub(super) fn isspacep(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, space: &StateSpace) -> D {
    d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::Pred, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, Type::U64, ins.span)?;
    d.extra = Extra::Param(window_base(*space));
    d.exec = mov::isspacep;
    Ok(d)
}

/// `cvta`.
pub(super) fn cvta(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, c: &Cvta) -> D {
    dn(fx, ins, &mut d, c.ty, 1)?;
    d.extra = Extra::Param(window_base(c.space.space));
    d.exec = if c.to {
        mov::cvta_from_generic
    } else {
        mov::cvta_to_generic
    };
    Ok(d)
}

/// `atom`.
pub(super) fn atom(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, a: &Atom) -> D {
    let info = atom_info(fx, ins, 1, a.space, a.op, a.ty)?;
    d.d[0] = fx.dst(fx.arg(ins, 0)?, a.ty, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 2)?, a.ty, ins.span)?;
    if a.op == AtomOp::Cas {
        d.s[1] = fx.src(fx.arg(ins, 3)?, a.ty, ins.span)?;
    }
    if a.vec.is_some() {
        return Err(unsupported(ins, "vector atomics"));
    }
    d.extra = Extra::Atom(info);
    d.exec = atom::atom;
    Ok(d)
}

/// `red`.
pub(super) fn red(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, r: &Red) -> D {
    let info = atom_info(fx, ins, 0, r.space, r.op, r.ty)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, r.ty, ins.span)?;
    if r.vec.is_some() {
        return Err(unsupported(ins, "vector reductions"));
    }
    d.extra = Extra::Atom(info);
    d.exec = atom::red;
    Ok(d)
}

/// The generic window base of a space (0 for global).
fn window_base(s: StateSpace) -> u64 {
    match s {
        StateSpace::Shared(_) => SHARED_WINDOW,
        StateSpace::Local => LOCAL_WINDOW,
        StateSpace::Const => CONST_WINDOW,
        StateSpace::Param(_) => PARAM_WINDOW,
        StateSpace::Global | StateSpace::Generic => 0,
    }
}

/// Builds the access of a load (`addr_k` = address operand index, `data_k` = data operand
/// index) or store.
#[allow(clippy::too_many_arguments)]
fn mem_access(
    fx: &FnCtx<'_>,
    ins: &Instr,
    addr_k: usize,
    data_k: usize,
    space: crate::ir::SpaceQual,
    count: usize,
    ty: Type,
    load: bool,
) -> Result<MemAccess, DecodeError> {
    let addr = fx.addr(fx.arg(ins, addr_k)?, space, ins.span)?;
    let size = ty.bytes();
    let data = fx.arg(ins, data_k)?;
    let elems: Vec<&Operand> = Vec::new();
    let _ = elems;
    let mut dsts = Vec::new();
    let mut srcs = Vec::new();
    let one = |op: &Operand| -> Result<(Dst, Src), DecodeError> {
        if load {
            Ok((fx.dst(op, ty, ins.span)?, Src::None))
        } else {
            Ok((Dst::Sink, fx.src(op, ty, ins.span)?))
        }
    };
    match data {
        Operand::Vector(v) => {
            for e in v {
                match e {
                    VecElem::Reg(r) => {
                        let (dd, ss) = one(&Operand::Reg(*r))?;
                        dsts.push(dd);
                        srcs.push(ss);
                    }
                    VecElem::Sink => {
                        dsts.push(Dst::Sink);
                        srcs.push(Src::None);
                    }
                    VecElem::Imm(i) => {
                        dsts.push(Dst::Sink);
                        srcs.push(Src::Imm(imm_bits(*i, ty)));
                    }
                }
            }
        }
        Operand::Reg(r) if fx.func.regs[r.index()].vec.is_some() => {
            // A vector register (`.reg .v4 .s32 Q`): its elements sit in consecutive slots.
            let (dd, ss) = one(data)?;
            for k in 0..fx.func.regs[r.index()].vec.map_or(1, |v| v.len()) as u32 {
                dsts.push(match dd {
                    Dst::Reg {
                        slot,
                        bits,
                        sext_from,
                    } => Dst::Reg {
                        slot: slot + k,
                        bits,
                        sext_from,
                    },
                    other => other,
                });
                srcs.push(match ss {
                    Src::Reg(slot) => Src::Reg(slot + k),
                    other => other,
                });
            }
        }
        other => {
            let (dd, ss) = one(other)?;
            dsts.push(dd);
            srcs.push(ss);
        }
    }
    // The rules `vector-operand` and `operand-kind` (`validate/memory.rs`) give the data
    // operand as many elements as the vector width.
    if dsts.len() != count {
        return Err(Unguaranteed::instr(
            ins,
            "an access with one data element per lane of its vector",
        )
        .into());
    }
    Ok(MemAccess {
        addr,
        size,
        count: count as u32,
        sext_from: if ty.is_signed() { ty.bits() as u8 } else { 0 },
        dsts,
        srcs,
        nc: false,
        cache: L1Use::Bypass,
    })
}

/// How a load meets the L1 model: weak loads by their cache operator; acquires at `gpu` scope
/// or wider invalidate; other strong loads and `.nc` bypass.
fn load_l1(l: &crate::ir::Ld) -> L1Use {
    use models::vocab::{LoadSem, Scope};
    if l.nc() {
        return L1Use::Bypass;
    }
    match l.sem() {
        None | Some(LoadSem::Weak) => L1Use::Load(match l.cop() {
            Some(CacheOp::Cg) => LoadOp::Cg,
            Some(CacheOp::Cs) => LoadOp::Cs,
            Some(CacheOp::Lu) => LoadOp::Lu,
            Some(CacheOp::Cv) => LoadOp::Cv,
            _ => LoadOp::Ca,
        }),
        Some(LoadSem::Acquire(Scope::Cta)) => L1Use::Bypass,
        Some(LoadSem::Acquire(_)) => L1Use::Acquire,
        Some(_) => L1Use::Bypass,
    }
}

/// How a store meets the L1 model: by its cache operator (strong stores as `.wb`).
fn store_l1(s: &crate::ir::St) -> L1Use {
    L1Use::Store(match s.cop() {
        Some(CacheOp::Cg) => StoreOp::Cg,
        Some(CacheOp::Cs) => StoreOp::Cs,
        Some(CacheOp::Wt) => StoreOp::Wt,
        _ => StoreOp::Wb,
    })
}

fn atom_info(
    fx: &FnCtx<'_>,
    ins: &Instr,
    addr_k: usize,
    space: crate::ir::SpaceQual,
    op: AtomOp,
    ty: Type,
) -> Result<AtomInfo, DecodeError> {
    let addr = fx.addr(fx.arg(ins, addr_k)?, space, ins.span)?;
    let apply =
        atom::value_fn(op, ty).ok_or_else(|| unsupported(ins, format!("atom.{op:?}.{ty}")))?;
    Ok(AtomInfo {
        addr,
        size: ty.bytes(),
        apply,
    })
}
