//! Choosing the execution function and operands of each instruction.
//!
//! The opcode table ([`crate::ir::opcode`]) gives each opcode its family; one function per
//! family dispatches to the lowering of its opcodes: integer
//! arithmetic in `arith`, logic and shifts in `logic`, `mov` in `mov`, memory access and atomics
//! in `memory`, warp-level instructions in `warp`, barriers/branches/calls in `flow`, the
//! floating-point, bit and conversion families in their `exec::step` modules, and the larger
//! families in their own folders (`lower.rs` of `mma`, `wgmma`, `tcgen05`, `tma`,
//! `async_copy`, `cluster`). Within a family the
//! types and qualifiers pick a specialised function (integer width as a const generic,
//! signedness, float flavour).

use super::context::{FnCtx, SlotInfo};
use super::error::DecodeError;
pub(super) use super::error::{arg, invalid, unsupported};
use crate::exec::program::{DInstr, Dst, ExecFn, Extra, Src, GUARD_NEG, NO_GUARD};
use crate::exec::step::{bits, control, convert, fence, float, hints, warp_ops};
use crate::ir::Family;
use crate::ir::{Instr, Op, Type};

type D = Result<DInstr, DecodeError>;

fn base(fx: &FnCtx<'_>, ins: &Instr) -> Result<DInstr, DecodeError> {
    let guard = match ins.guard {
        None => NO_GUARD,
        Some(g) => match fx.slot(g.reg) {
            SlotInfo::Pred(s) => s | if g.negated { GUARD_NEG } else { 0 },
            SlotInfo::Val { .. } => {
                return Err(invalid(ins, "the guard is not a predicate register"))
            }
        },
    };
    Ok(DInstr {
        exec: hints::nop,
        guard,
        d: [Dst::Sink; 2],
        s: [Src::None; 4],
        extra: Extra::None,
        control: false,
    })
}

/// Sets `d[0]` from operand 0 and `s[0..n]` from operands 1..=n, all of type `ty`.
fn dn(fx: &FnCtx<'_>, ins: &Instr, d: &mut DInstr, ty: Type, n: usize) -> Result<(), DecodeError> {
    d.d[0] = fx.dst(arg(ins, 0)?, ty, ins.span)?;
    for k in 0..n {
        d.s[k] = fx.src(arg(ins, k + 1)?, ty, ins.span)?;
    }
    Ok(())
}

/// An integer exec function chosen by width.
fn by_width(
    ins: &Instr,
    ty: Type,
    f16: ExecFn,
    f32: ExecFn,
    f64: ExecFn,
) -> Result<ExecFn, DecodeError> {
    match ty.bits() {
        8 | 16 => Ok(f16),
        32 => Ok(f32),
        64 => Ok(f64),
        _ => Err(unsupported(
            ins,
            format!("this instruction with type .{ty}"),
        )),
    }
}

macro_rules! w {
    ($ins:expr, $ty:expr, $m:ident :: $f:ident) => {
        $crate::exec::decode::ops::by_width($ins, $ty, $m::$f::<16>, $m::$f::<32>, $m::$f::<64>)?
    };
    ($ins:expr, $ty:expr, $m:ident :: $f:ident, $($g:tt)*) => {
        $crate::exec::decode::ops::by_width($ins, $ty, $m::$f::<16, $($g)*>, $m::$f::<32, $($g)*>, $m::$f::<64, $($g)*>)?
    };
}

fn is_int(ty: Type) -> bool {
    ty.is_integer()
}

mod arith;
mod flow;
mod logic;
mod memory;
mod mov;
mod warp;

/// Lowers one instruction: the opcode table's family of its opcode lowers it.
///
/// # Errors
/// An instruction the interpreter does not implement, or a malformed one.
pub fn lower(fx: &FnCtx<'_>, ins: &Instr) -> D {
    let d = base(fx, ins)?;
    match ins.op.info().family {
        Family::Int => int(fx, ins, d),
        Family::Bits => bits_family(fx, ins, d),
        Family::FloatCmp => float_cmp(fx, ins, d),
        Family::Data => data(fx, ins, d),
        Family::Warp => warp_family(fx, ins, d),
        Family::Sync => sync(fx, ins, d),
        Family::Control => control(fx, ins, d),
        Family::Tcgen05 => tcgen05(fx, ins, d),
        Family::CpAsync => cp_async(fx, ins, d),
        Family::Mbarrier => mbarrier(fx, ins, d),
        Family::Tma => tma(fx, ins, d),
        Family::Cluster => cluster(fx, ins, d),
        Family::ClusterLaunch => cluster_launch(fx, ins, d),
        Family::WarpMatrix => warp_matrix(fx, ins, d),
        Family::Wgmma => wgmma(fx, ins, d),
    }
}

/// Lowers an arithmetic instruction.
fn int(fx: &FnCtx<'_>, ins: &Instr, d: DInstr) -> D {
    match &ins.op {
        Op::Add(a) | Op::Sub(a) => arith::add_sub(fx, ins, d, a),
        Op::Mul(m) | Op::Mad(m) => arith::mul_mad(fx, ins, d, m),
        Op::Fma(a) => float::lower_arith(fx, ins, d, float::Kind::Fma, *a),
        Op::AddMixed(m) => float::lower_mixed(fx, ins, d, float::Kind::Add, *m),
        Op::SubMixed(m) => float::lower_mixed(fx, ins, d, float::Kind::Sub, *m),
        Op::FmaMixed(m) => float::lower_mixed(fx, ins, d, float::Kind::Fma, *m),
        Op::Mul24(m) | Op::Mad24(m) => arith::mul24(fx, ins, d, m),
        Op::Sad(ty) => arith::sad(fx, ins, d, ty),
        Op::Div(dv) => arith::div(fx, ins, d, dv),
        Op::Rem(ty) => arith::rem(fx, ins, d, ty),
        Op::Abs(u) | Op::Neg(u) => arith::abs_neg(fx, ins, d, u),
        Op::Min(m) | Op::Max(m) => arith::min_max(fx, ins, d, m),
        Op::Addc(cy) | Op::Subc(cy) => arith::addc_subc(fx, ins, d, cy),
        Op::Madc(mc) => arith::madc(fx, ins, d, mc),
        _ => Err(invalid(
            ins,
            "arithmetic lowering given another instruction",
        )),
    }
}

/// Lowers a bit-manipulation instruction.
fn bits_family(fx: &FnCtx<'_>, ins: &Instr, d: DInstr) -> D {
    match &ins.op {
        Op::Popc(_)
        | Op::Clz(_)
        | Op::Bfind(_)
        | Op::Fns
        | Op::Brev(_)
        | Op::Bfe(_)
        | Op::Bfi(_)
        | Op::Bmsk(_)
        | Op::Szext(_)
        | Op::Lop3
        | Op::Shf(_)
        | Op::Prmt(_) => bits::lower(fx, ins, d),
        Op::Dp4a(p) => arith::dp4a(fx, ins, d, p),
        Op::Dp2a(p) => arith::dp2a(fx, ins, d, p),
        Op::And(ty) | Op::Or(ty) | Op::Xor(ty) | Op::Not(ty) | Op::Cnot(ty) => {
            logic::logic(fx, ins, d, ty)
        }
        Op::Shl(ty) | Op::Shr(ty) => logic::shift(fx, ins, d, ty),
        _ => Err(invalid(
            ins,
            "bit-manipulation lowering given another instruction",
        )),
    }
}

/// Lowers a floating-point or comparison instruction.
fn float_cmp(fx: &FnCtx<'_>, ins: &Instr, d: DInstr) -> D {
    match &ins.op {
        Op::Rcp(f)
        | Op::Sqrt(f)
        | Op::Rsqrt(f)
        | Op::Sin(f)
        | Op::Cos(f)
        | Op::Lg2(f)
        | Op::Ex2(f)
        | Op::Tanh(f) => float::lower_fn(fx, ins, d, *f),
        Op::Testp(t) => float::lower_testp(fx, ins, d, *t),
        Op::Copysign(ty) => float::lower_copysign(fx, ins, d, *ty),
        Op::Setp(s) => float::lower_setp(fx, ins, d, *s),
        Op::Set(s) => float::lower_set(fx, ins, d, *s),
        Op::Selp(ty) => logic::selp(fx, ins, d, ty),
        Op::Slct(s) => float::lower_slct(fx, ins, d, *s),
        _ => Err(invalid(
            ins,
            "floating-point or comparison lowering given another instruction",
        )),
    }
}

/// Lowers a data-movement instruction.
fn data(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::Mov(ty) => return mov::lower_mov(fx, ins, d, *ty),
        Op::Ld(l) => return memory::ld(fx, ins, d, l),
        Op::Ldu(l) => return memory::ldu(fx, ins, d, l),
        Op::St(s) => return memory::st(fx, ins, d, s),
        Op::Prefetch(_)
        | Op::ApplyPriority
        | Op::Discard
        | Op::Nanosleep
        | Op::Griddepcontrol(_)
        | Op::Pmevent { .. } => {
            d.exec = hints::nop;
        }
        Op::CreatePolicy(_) => {
            d.d[0] = fx.dst(arg(ins, 0)?, Type::B64, ins.span)?;
            d.exec = hints::createpolicy;
        }
        Op::Isspacep(space) => return memory::isspacep(fx, ins, d, space),
        Op::Cvta(c) => return memory::cvta(fx, ins, d, c),
        Op::Cvt(c) => return convert::lower_cvt(fx, ins, d, *c),
        Op::CvtPack(c) => return convert::lower_cvt_pack(fx, ins, d, *c),
        _ => {
            return Err(invalid(
                ins,
                "data-movement lowering given another instruction",
            ))
        }
    }
    Ok(d)
}

/// Lowers a warp-collective instruction.
fn warp_family(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::Shfl(s) => return warp::shfl(fx, ins, d, s),
        Op::Vote(v) => return warp::vote(fx, ins, d, v),
        Op::Match(m) => return warp::match_sync(fx, ins, d, m),
        Op::Redux(r) => return warp::redux(fx, ins, d, r),
        Op::Activemask => {
            d.d[0] = fx.dst(arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = warp_ops::activemask;
        }
        Op::Elect => return warp::elect(fx, ins, d),
        _ => {
            return Err(invalid(
                ins,
                "warp-collective lowering given another instruction",
            ))
        }
    }
    Ok(d)
}

/// Lowers a synchronisation instruction.
fn sync(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::Fence(
            f @ (crate::ir::Fence::ProxyAsync(_)
            | crate::ir::Fence::ProxyTensormap { release: false, .. }),
        ) => return crate::tma::lower::lower_fence(fx, ins, f, d),
        Op::Membar(_) | Op::Fence(_) => d.exec = fence::fence,
        // The opcode table files `setmaxnreg` under synchronisation (its printer's family);
        // it changes no state ptxemu models.
        Op::Setmaxnreg(_) => d.exec = hints::nop,
        Op::Bar(b) => return flow::bar(fx, ins, d, b),
        Op::BarWarpSync => {
            d.s[0] = fx.src(arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = control::bar_warp_sync;
        }
        Op::Atom(a) => return memory::atom(fx, ins, d, a),
        Op::Red(r) => return memory::red(fx, ins, d, r),
        _ => {
            return Err(invalid(
                ins,
                "synchronisation lowering given another instruction",
            ))
        }
    }
    Ok(d)
}

/// Lowers a control-flow instruction.
fn control(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::Bra { .. } => return flow::bra(fx, ins, d),
        Op::BrxIdx { .. } => return flow::brx_idx(fx, ins, d),
        Op::Call(c) => return flow::call(fx, ins, d, c),
        Op::Ret { .. } => {
            d.exec = control::ret;
            d.control = true;
        }
        Op::Exit => {
            d.exec = control::exit;
            d.control = true;
        }
        Op::Trap => d.exec = control::trap,
        Op::Brkpt => d.exec = control::brkpt,
        _ => {
            return Err(invalid(
                ins,
                "control-flow lowering given another instruction",
            ))
        }
    }
    Ok(d)
}

/// Lowers a tcgen05 instruction.
fn tcgen05(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::Tcgen05(t) => crate::tcgen05::lower::lower(fx, ins, t, &mut d)?,
        _ => return Err(invalid(ins, "tcgen05 lowering given another instruction")),
    }
    Ok(d)
}

/// Lowers a cp.async instruction.
fn cp_async(fx: &FnCtx<'_>, ins: &Instr, d: DInstr) -> D {
    match &ins.op {
        Op::CpAsync(c) => crate::async_copy::lower::lower_cp(fx, ins, c, d),
        _ => Err(invalid(ins, "cp.async lowering given another instruction")),
    }
}

/// Lowers an mbarrier instruction.
fn mbarrier(fx: &FnCtx<'_>, ins: &Instr, d: DInstr) -> D {
    match &ins.op {
        Op::Mbarrier(m) => crate::async_copy::lower::lower_mbarrier(fx, ins, m, d),
        _ => Err(invalid(ins, "mbarrier lowering given another instruction")),
    }
}

/// Lowers a bulk-copy or tensor-map instruction.
fn tma(fx: &FnCtx<'_>, ins: &Instr, d: DInstr) -> D {
    match &ins.op {
        Op::Tma(t) => crate::tma::lower::lower(fx, ins, t, d),
        _ => Err(invalid(
            ins,
            "bulk-copy or tensor-map lowering given another instruction",
        )),
    }
}

/// Lowers a cluster instruction.
fn cluster(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::Cluster(c) => crate::cluster::lower::lower(fx, ins, c, &mut d)?,
        _ => return Err(invalid(ins, "cluster lowering given another instruction")),
    }
    Ok(d)
}

/// Lowers a `clusterlaunchcontrol` instruction.
fn cluster_launch(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::ClusterLaunch(c) => crate::cluster_launch::lower::lower(fx, ins, c, &mut d)?,
        _ => {
            return Err(invalid(
                ins,
                "clusterlaunchcontrol lowering given another instruction",
            ))
        }
    }
    Ok(d)
}

/// Lowers a warp-level matrix instruction.
fn warp_matrix(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::WarpMatrix(w) => crate::mma::lower::lower(fx, ins, w, &mut d)?,
        _ => {
            return Err(invalid(
                ins,
                "warp-level matrix lowering given another instruction",
            ))
        }
    }
    Ok(d)
}

/// Lowers a wgmma instruction.
fn wgmma(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    match &ins.op {
        Op::Wgmma(w) => crate::wgmma::lower::lower(fx, ins, w, &mut d)?,
        _ => return Err(invalid(ins, "wgmma lowering given another instruction")),
    }
    Ok(d)
}
