//! Choosing the execution function and operands of each instruction.
//!
//! One arm per opcode family of [`Op`], dispatching to the family's lowering function: integer
//! arithmetic in `arith`, logic and shifts in `logic`, `mov` in `mov`, memory access and atomics
//! in `memory`, warp-level instructions in `warp`, barriers/branches/calls in `flow`, and the
//! larger families in the sibling modules of `decode` and in `exec::step`. Within a family the
//! types and qualifiers pick a specialised function (integer width as a const generic,
//! signedness, float flavour).

use super::{DecodeError, FnCtx, SlotInfo};
use crate::exec::program::{DInstr, Dst, ExecFn, Extra, Src, GUARD_NEG, NO_GUARD};
use crate::exec::step::{bits, control, convert, float, mem, warp_ops};
use crate::ir::{Instr, Op, Operand, Type};

type D = Result<DInstr, DecodeError>;

fn unsupported(ins: &Instr, what: impl Into<String>) -> DecodeError {
    DecodeError::Unsupported {
        what: what.into(),
        span: ins.span,
    }
}

pub(super) fn invalid(ins: &Instr, what: impl Into<String>) -> DecodeError {
    DecodeError::Invalid {
        what: what.into(),
        span: ins.span,
    }
}

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
        exec: mem::nop,
        guard,
        d: [Dst::Sink; 2],
        s: [Src::None; 4],
        extra: Extra::None,
        control: false,
    })
}

pub(super) fn arg(ins: &Instr, k: usize) -> Result<&Operand, DecodeError> {
    ins.args
        .get(k)
        .ok_or_else(|| invalid(ins, format!("missing operand {}", k + 1)))
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

/// Lowers one instruction.
///
/// # Errors
/// An instruction the interpreter does not implement, or a malformed one.
pub fn lower(fx: &FnCtx<'_>, ins: &Instr) -> D {
    let mut d = base(fx, ins)?;
    match &ins.op {
        Op::Add(a) | Op::Sub(a) => return arith::add_sub(fx, ins, d, a),
        Op::Mul(m) | Op::Mad(m) => return arith::mul_mad(fx, ins, d, m),
        Op::Fma(a) => return float::lower_arith(fx, ins, d, float::Kind::Fma, *a),
        Op::Mul24(m) | Op::Mad24(m) => return arith::mul24(fx, ins, d, m),
        Op::Sad(ty) => return arith::sad(fx, ins, d, ty),
        Op::Div(dv) => return arith::div(fx, ins, d, dv),
        Op::Rem(ty) => return arith::rem(fx, ins, d, ty),
        Op::Abs(u) | Op::Neg(u) => return arith::abs_neg(fx, ins, d, u),
        Op::Min(m) | Op::Max(m) => return arith::min_max(fx, ins, d, m),
        Op::Addc(cy) | Op::Subc(cy) => return arith::addc_subc(fx, ins, d, cy),
        Op::Madc(mc) => return arith::madc(fx, ins, d, mc),
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
        | Op::Prmt(_) => return bits::lower(fx, ins, d),
        Op::Dp4a(p) => return arith::dp4a(fx, ins, d, p),
        Op::Dp2a(p) => return arith::dp2a(fx, ins, d, p),
        Op::And(ty) | Op::Or(ty) | Op::Xor(ty) | Op::Not(ty) | Op::Cnot(ty) => {
            return logic::logic(fx, ins, d, ty)
        }
        Op::Shl(ty) | Op::Shr(ty) => return logic::shift(fx, ins, d, ty),
        Op::Rcp(f)
        | Op::Sqrt(f)
        | Op::Rsqrt(f)
        | Op::Sin(f)
        | Op::Cos(f)
        | Op::Lg2(f)
        | Op::Ex2(f)
        | Op::Tanh(f) => return float::lower_fn(fx, ins, d, *f),
        Op::Testp(t) => return float::lower_testp(fx, ins, d, *t),
        Op::Copysign(ty) => return float::lower_copysign(fx, ins, d, *ty),
        Op::Setp(s) => return float::lower_setp(fx, ins, d, *s),
        Op::Set(s) => return float::lower_set(fx, ins, d, *s),
        Op::Selp(ty) => return logic::selp(fx, ins, d, ty),
        Op::Slct(s) => return float::lower_slct(fx, ins, d, *s),
        Op::Mov(ty) => return mov::lower_mov(fx, ins, d, *ty),
        Op::Ld(l) => return memory::ld(fx, ins, d, l),
        Op::Ldu(l) => return memory::ldu(fx, ins, d, l),
        Op::St(s) => return memory::st(fx, ins, d, s),
        Op::Prefetch(_)
        | Op::ApplyPriority
        | Op::Discard
        | Op::Nanosleep
        | Op::Griddepcontrol(_)
        | Op::Setmaxnreg(_)
        | Op::Pmevent { .. } => {
            d.exec = mem::nop;
        }
        Op::Fence(
            f @ (crate::ir::Fence::ProxyAsync(_)
            | crate::ir::Fence::ProxyTensormap { release: false, .. }),
        ) => return super::tma::lower_fence(fx, ins, f, d),
        Op::Membar(_) | Op::Fence(_) => d.exec = mem::fence,
        Op::CreatePolicy(_) => {
            d.d[0] = fx.dst(arg(ins, 0)?, Type::B64, ins.span)?;
            d.exec = mem::createpolicy;
        }
        Op::Isspacep(space) => return memory::isspacep(fx, ins, d, space),
        Op::Cvta(c) => return memory::cvta(fx, ins, d, c),
        Op::Cvt(c) => return convert::lower_cvt(fx, ins, d, *c),
        Op::CvtPack(c) => return convert::lower_cvt_pack(fx, ins, d, *c),
        Op::Shfl(s) => return warp::shfl(fx, ins, d, s),
        Op::Vote(v) => return warp::vote(fx, ins, d, v),
        Op::Match(m) => return warp::match_sync(fx, ins, d, m),
        Op::Redux(r) => return warp::redux(fx, ins, d, r),
        Op::Activemask => {
            d.d[0] = fx.dst(arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = warp_ops::activemask;
        }
        Op::Elect => return warp::elect(fx, ins, d),
        Op::Bar(b) => return flow::bar(fx, ins, d, b),
        Op::BarWarpSync => {
            d.s[0] = fx.src(arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = control::bar_warp_sync;
        }
        Op::Atom(a) => return memory::atom(fx, ins, d, a),
        Op::Red(r) => return memory::red(fx, ins, d, r),
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
        Op::Tcgen05(t) => super::tcgen05::lower(fx, ins, t, &mut d)?,
        Op::CpAsync(c) => return super::async_copy::lower_cp(fx, ins, c, d),
        Op::Mbarrier(m) => return super::async_copy::lower_mbarrier(fx, ins, m, d),
        Op::Tma(t) => return super::tma::lower(fx, ins, t, d),
        Op::Cluster(c) => super::cluster::lower(fx, ins, c, &mut d)?,
        Op::ClusterLaunch(c) => super::cluster_launch::lower(fx, ins, c, &mut d)?,
        Op::WarpMatrix(w) => super::mma::lower(fx, ins, w, &mut d)?,
        Op::Wgmma(w) => super::wgmma::lower(fx, ins, w, &mut d)?,
    }
    Ok(d)
}
