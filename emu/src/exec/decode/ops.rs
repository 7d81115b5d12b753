//! Choosing the execution function and operands of each instruction.
//!
//! [`lower`] has one arm per opcode of [`Op`], grouped by the opcode table's families
//! ([`crate::ir::opcode`]), and hands each family's lowering the opcode's typed payload:
//! integer arithmetic in `arith`, logic and shifts in `logic`, `mov` in `mov`, memory access
//! and atomics in `memory`, warp-level instructions in `warp`, barriers/branches/calls in
//! `flow`, the floating-point, bit and conversion families in their `exec::step` modules,
//! and the larger families in their own folders (`lower.rs` of `mma`, `wgmma`, `tcgen05`,
//! `tma`, `async_copy`, `cluster`). The match has no wildcard arm, so no family function is
//! handed an opcode that is not its own and none matches the opcode again. Within a family the
//! types and qualifiers pick a specialised function (integer width as a const generic,
//! signedness, float flavour).

use super::context::{FnCtx, SlotInfo};
pub(super) use super::error::unsupported;
use super::error::DecodeError;
use crate::exec::program::{DInstr, Dst, ExecFn, Extra, Src, GUARD_NEG, NO_GUARD};
use crate::exec::step::{bits, control, convert, fence, float, hints, warp_ops};
use crate::ir::{Instr, Op, Type};
use crate::validate::Unguaranteed;

type D = Result<DInstr, DecodeError>;

fn base(fx: &FnCtx<'_>, ins: &Instr) -> Result<DInstr, DecodeError> {
    let guard = match ins.guard {
        None => NO_GUARD,
        Some(g) => match fx.slot(g.reg) {
            SlotInfo::Pred(s) => s | if g.negated { GUARD_NEG } else { 0 },
            // The rule `operand-type` (`validate/types.rs`) guards with predicates only.
            SlotInfo::Val { .. } => {
                return Err(Unguaranteed::instr(ins, "guarded by a predicate register").into())
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
    d.d[0] = fx.dst(fx.arg(ins, 0)?, ty, ins.span)?;
    for k in 0..n {
        d.s[k] = fx.src(fx.arg(ins, k + 1)?, ty, ins.span)?;
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

/// Lowers one instruction: one arm per opcode of [`Op`] (no wildcard, so a new opcode does
/// not compile without its lowering), grouped by the opcode table's families. Each arm hands
/// its family's lowering the typed payload, so no family function matches the opcode again.
///
/// # Errors
/// An instruction the interpreter does not implement, or a malformed one.
pub fn lower(fx: &FnCtx<'_>, ins: &Instr) -> D {
    let mut d = base(fx, ins)?;
    match &ins.op {
        // ---- Family::Int ----
        Op::Add(a) | Op::Sub(a) => return arith::add_sub(fx, ins, d, a),
        Op::Mul(m) | Op::Mad(m) => return arith::mul_mad(fx, ins, d, m),
        Op::Fma(a) => return float::lower_arith(fx, ins, d, float::Kind::Fma, *a),
        Op::AddMixed(m) => return float::lower_mixed(fx, ins, d, float::Kind::Add, *m),
        Op::SubMixed(m) => return float::lower_mixed(fx, ins, d, float::Kind::Sub, *m),
        Op::FmaMixed(m) => return float::lower_mixed(fx, ins, d, float::Kind::Fma, *m),
        Op::Mul24(m) | Op::Mad24(m) => return arith::mul24(fx, ins, d, m),
        Op::Sad(ty) => return arith::sad(fx, ins, d, ty),
        Op::Div(dv) => return arith::div(fx, ins, d, dv),
        Op::Rem(ty) => return arith::rem(fx, ins, d, ty),
        Op::Abs(u) | Op::Neg(u) => return arith::abs_neg(fx, ins, d, u),
        Op::Min(m) | Op::Max(m) => return arith::min_max(fx, ins, d, m),
        Op::Addc(cy) | Op::Subc(cy) => return arith::addc_subc(fx, ins, d, cy),
        Op::Madc(mc) => return arith::madc(fx, ins, d, mc),
        // ---- Family::Bits ----
        Op::Popc(t) => return bits::lower(fx, ins, d, bits::BitOp::Popc(*t)),
        Op::Clz(t) => return bits::lower(fx, ins, d, bits::BitOp::Clz(*t)),
        Op::Bfind(b) => return bits::lower(fx, ins, d, bits::BitOp::Bfind(*b)),
        Op::Fns => return bits::lower(fx, ins, d, bits::BitOp::Fns),
        Op::Brev(t) => return bits::lower(fx, ins, d, bits::BitOp::Brev(*t)),
        Op::Bfe(t) => return bits::lower(fx, ins, d, bits::BitOp::Bfe(*t)),
        Op::Bfi(t) => return bits::lower(fx, ins, d, bits::BitOp::Bfi(*t)),
        Op::Bmsk(m) => return bits::lower(fx, ins, d, bits::BitOp::Bmsk(*m)),
        Op::Szext(z) => return bits::lower(fx, ins, d, bits::BitOp::Szext(*z)),
        Op::Lop3 => return bits::lower(fx, ins, d, bits::BitOp::Lop3),
        Op::Shf(s) => return bits::lower(fx, ins, d, bits::BitOp::Shf(*s)),
        Op::Prmt(m) => return bits::lower(fx, ins, d, bits::BitOp::Prmt(*m)),
        Op::Dp4a(p) => return arith::dp4a(fx, ins, d, p),
        Op::Dp2a(p) => return arith::dp2a(fx, ins, d, p),
        Op::And(ty) | Op::Or(ty) | Op::Xor(ty) | Op::Not(ty) | Op::Cnot(ty) => {
            return logic::logic(fx, ins, d, ty)
        }
        Op::Shl(ty) | Op::Shr(ty) => return logic::shift(fx, ins, d, ty),
        // ---- Family::FloatCmp ----
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
        // ---- Family::Data ----
        Op::Mov(ty) => return mov::lower_mov(fx, ins, d, *ty),
        Op::Ld(l) => return memory::ld(fx, ins, d, l),
        Op::Ldu(l) => return memory::ldu(fx, ins, d, l),
        Op::St(s) => return memory::st(fx, ins, d, s),
        Op::Prefetch(_)
        | Op::ApplyPriority
        | Op::Discard
        | Op::Nanosleep
        | Op::Griddepcontrol(_)
        | Op::Pmevent { .. } => d.exec = hints::nop,
        Op::CreatePolicy(_) => {
            d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::B64, ins.span)?;
            d.exec = hints::createpolicy;
        }
        Op::Isspacep(space) => return memory::isspacep(fx, ins, d, space),
        Op::Cvta(c) => return memory::cvta(fx, ins, d, c),
        Op::Cvt(c) => return convert::lower_cvt(fx, ins, d, *c),
        Op::CvtPack(c) => return convert::lower_cvt_pack(fx, ins, d, *c),
        // ---- Family::Warp ----
        Op::Shfl(s) => return warp::shfl(fx, ins, d, s),
        Op::Vote(v) => return warp::vote(fx, ins, d, v),
        Op::Match(m) => return warp::match_sync(fx, ins, d, m),
        Op::Redux(r) => return warp::redux(fx, ins, d, r),
        Op::Activemask => {
            d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = warp_ops::activemask;
        }
        Op::Elect => return warp::elect(fx, ins, d),
        // ---- Family::Sync ----
        Op::Fence(crate::ir::Fence::ProxyAsync(s)) => {
            return crate::tma::lower::lower_fence_proxy_async(*s, d)
        }
        Op::Fence(crate::ir::Fence::ProxyTensormap { release: false, .. }) => {
            return crate::tma::lower::lower_fence_proxy_tensormap(fx, ins, d)
        }
        Op::Membar(_) | Op::Fence(_) => d.exec = fence::fence,
        // The opcode table files `setmaxnreg` under synchronisation (its printer's family);
        // it changes no state ptxemu models.
        Op::Setmaxnreg(_) => d.exec = hints::nop,
        Op::Bar(b) => return flow::bar(fx, ins, d, b),
        Op::BarWarpSync => {
            d.s[0] = fx.src(fx.arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = control::bar_warp_sync;
        }
        Op::Atom(a) => return memory::atom(fx, ins, d, a),
        Op::Red(r) => return memory::red(fx, ins, d, r),
        // ---- Family::Control ----
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
        // ---- the families in their folders ----
        Op::Tcgen05(t) => crate::tcgen05::lower::lower(fx, ins, t, &mut d)?,
        Op::CpAsync(c) => return crate::async_copy::lower::lower_cp(fx, ins, c, d),
        Op::Mbarrier(m) => return crate::async_copy::lower::lower_mbarrier(fx, ins, m, d),
        Op::Tma(t) => return crate::tma::lower::lower(fx, ins, t, d),
        Op::Cluster(c) => crate::cluster::lower::lower(fx, ins, c, &mut d)?,
        Op::ClusterLaunch(c) => crate::cluster_launch::lower::lower(fx, ins, c, &mut d)?,
        Op::WarpMatrix(w) => crate::mma::lower::lower(fx, ins, w, &mut d)?,
        Op::Wgmma(w) => crate::wgmma::lower::lower(fx, ins, w, &mut d)?,
    }
    Ok(d)
}
