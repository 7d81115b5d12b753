//! Choosing the execution function and operands of each instruction.
//!
//! One arm per opcode family of [`Op`]; within a family the types and qualifiers pick a
//! specialised function (integer width as a const generic, signedness, float flavour).

use super::operands::imm_bits;
use super::{DecodeError, FnCtx, SlotInfo};
use crate::exec::l1::{L1Use, LoadOp, StoreOp};
use crate::exec::memory::{CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
use crate::exec::program::{
    ArgSource, AtomInfo, BarrierInfo, CallSite, DInstr, Dst, ExecFn, Extra, MemAccess, RetDest,
    Src, GUARD_NEG, NO_GUARD,
};
use crate::exec::step::{atom, bits, control, convert, float, int, mem, warp_ops};
use crate::ir::{
    AtomOp, BarKind, CacheOp, Instr, LabelOrProto, MulMode, Op, Operand, ReduxOp, StateSpace, Type,
    TypeClass, VarRef, VecElem,
};

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
        by_width($ins, $ty, $m::$f::<16>, $m::$f::<32>, $m::$f::<64>)?
    };
    ($ins:expr, $ty:expr, $m:ident :: $f:ident, $($g:tt)*) => {
        by_width($ins, $ty, $m::$f::<16, $($g)*>, $m::$f::<32, $($g)*>, $m::$f::<64, $($g)*>)?
    };
}

fn is_int(ty: Type) -> bool {
    ty.is_integer()
}

/// Lowers one instruction.
///
/// # Errors
/// An instruction the interpreter does not implement, or a malformed one.
pub fn lower(fx: &FnCtx<'_>, ins: &Instr) -> D {
    let mut d = base(fx, ins)?;
    match &ins.op {
        Op::Add(a) | Op::Sub(a) => {
            let sub = matches!(ins.op, Op::Sub(_));
            let ty = a.ty;
            if is_int(ty) {
                dn(fx, ins, &mut d, ty, 2)?;
                if a.cc {
                    d.d[1] = Dst::Pred(fx.cc_slot);
                    d.extra = Extra::Param(4 | u64::from(sub));
                    d.exec = w!(ins, ty, int::carry);
                } else if a.sat {
                    d.exec = if sub {
                        int::sub_sat_s32
                    } else {
                        int::add_sat_s32
                    };
                } else {
                    d.exec = if sub {
                        w!(ins, ty, int::sub)
                    } else {
                        w!(ins, ty, int::add)
                    };
                }
            } else {
                return float::lower_arith(
                    fx,
                    ins,
                    d,
                    if sub {
                        float::Kind::Sub
                    } else {
                        float::Kind::Add
                    },
                    *a,
                );
            }
        }
        Op::Mul(m) | Op::Mad(m) => {
            let mad = matches!(ins.op, Op::Mad(_));
            let ty = m.arith.ty;
            if !is_int(ty) {
                let kind = if mad {
                    float::Kind::Fma
                } else {
                    float::Kind::Mul
                };
                return float::lower_arith(fx, ins, d, kind, m.arith);
            }
            let signed = ty.is_signed();
            let mode = m.mode.unwrap_or(MulMode::Lo);
            if mode == MulMode::Wide {
                let wide = wide_of(ty)
                    .ok_or_else(|| invalid(ins, "mul.wide needs a 16- or 32-bit type"))?;
                d.d[0] = fx.dst(arg(ins, 0)?, wide, ins.span)?;
                d.s[0] = fx.src(arg(ins, 1)?, ty, ins.span)?;
                d.s[1] = fx.src(arg(ins, 2)?, ty, ins.span)?;
                if mad {
                    d.s[2] = fx.src(arg(ins, 3)?, wide, ins.span)?;
                }
            } else {
                dn(fx, ins, &mut d, ty, if mad { 3 } else { 2 })?;
            }
            d.exec = match (mad, mode, signed) {
                (false, MulMode::Lo, _) => w!(ins, ty, int::mul_lo),
                (false, MulMode::Hi, false) => w!(ins, ty, int::mul_hi_u),
                (false, MulMode::Hi, true) => w!(ins, ty, int::mul_hi_s),
                (false, MulMode::Wide, false) => w!(ins, ty, int::mul_wide_u),
                (false, MulMode::Wide, true) => w!(ins, ty, int::mul_wide_s),
                (true, MulMode::Lo, _) => {
                    if m.arith.cc {
                        d.s[3] = Src::Pred {
                            slot: fx.cc_slot,
                            neg: false,
                        };
                        d.d[1] = Dst::Pred(fx.cc_slot);
                        d.extra = Extra::Param(4 | if signed { 8 } else { 0 });
                        w!(ins, ty, int::madc)
                    } else {
                        w!(ins, ty, int::mad_lo)
                    }
                }
                (true, MulMode::Hi, _) if m.arith.sat => int::mad_hi_sat_s32,
                (true, MulMode::Hi, false) => w!(ins, ty, int::mad_hi_u),
                (true, MulMode::Hi, true) => w!(ins, ty, int::mad_hi_s),
                (true, MulMode::Wide, false) => w!(ins, ty, int::mad_wide_u),
                (true, MulMode::Wide, true) => w!(ins, ty, int::mad_wide_s),
            };
        }
        Op::Fma(a) => return float::lower_arith(fx, ins, d, float::Kind::Fma, *a),
        Op::Mul24(m) | Op::Mad24(m) => {
            let mad = matches!(ins.op, Op::Mad24(_));
            dn(fx, ins, &mut d, m.ty, if mad { 3 } else { 2 })?;
            let s = m.ty.is_signed();
            d.exec = match (mad, m.hi, s) {
                (false, false, false) => int::mul24::<false, false>,
                (false, false, true) => int::mul24::<false, true>,
                (false, true, false) => int::mul24::<true, false>,
                (false, true, true) => int::mul24::<true, true>,
                (true, false, false) => int::mad24::<false, false>,
                (true, false, true) => int::mad24::<false, true>,
                (true, true, false) => int::mad24::<true, false>,
                (true, true, true) => int::mad24::<true, true>,
            };
        }
        Op::Sad(ty) => {
            dn(fx, ins, &mut d, *ty, 3)?;
            d.exec = if ty.is_signed() {
                w!(ins, *ty, int::sad, true)
            } else {
                w!(ins, *ty, int::sad, false)
            };
        }
        Op::Div(dv) => {
            if is_int(dv.ty) {
                dn(fx, ins, &mut d, dv.ty, 2)?;
                d.exec = if dv.ty.is_signed() {
                    w!(ins, dv.ty, int::div_s)
                } else {
                    w!(ins, dv.ty, int::div_u)
                };
            } else {
                return float::lower_div(fx, ins, d, *dv);
            }
        }
        Op::Rem(ty) => {
            dn(fx, ins, &mut d, *ty, 2)?;
            d.exec = if ty.is_signed() {
                w!(ins, *ty, int::rem_s)
            } else {
                w!(ins, *ty, int::rem_u)
            };
        }
        Op::Abs(u) | Op::Neg(u) => {
            let neg = matches!(ins.op, Op::Neg(_));
            if is_int(u.ty) {
                dn(fx, ins, &mut d, u.ty, 1)?;
                d.exec = if neg {
                    w!(ins, u.ty, int::neg)
                } else {
                    w!(ins, u.ty, int::abs_s)
                };
            } else {
                return float::lower_unary(
                    fx,
                    ins,
                    d,
                    if neg {
                        float::Kind::Neg
                    } else {
                        float::Kind::Abs
                    },
                    u.ty,
                    u.ftz,
                );
            }
        }
        Op::Min(m) | Op::Max(m) => {
            let max = matches!(ins.op, Op::Max(_));
            if m.packed16 {
                dn(fx, ins, &mut d, m.ty, 2)?;
                d.exec = match (max, m.ty.is_signed(), m.relu) {
                    (false, false, _) => int::minmax_16x2::<false, false, false>,
                    (true, false, _) => int::minmax_16x2::<true, false, false>,
                    (false, true, false) => int::minmax_16x2::<false, true, false>,
                    (false, true, true) => int::minmax_16x2::<false, true, true>,
                    (true, true, false) => int::minmax_16x2::<true, true, false>,
                    (true, true, true) => int::minmax_16x2::<true, true, true>,
                };
            } else if is_int(m.ty) {
                if ins.args.len() > 3 {
                    return Err(unsupported(ins, "three-input integer min/max"));
                }
                dn(fx, ins, &mut d, m.ty, 2)?;
                d.exec = match (max, m.ty.is_signed(), m.relu) {
                    (false, false, _) => w!(ins, m.ty, int::min_u),
                    (true, false, _) => w!(ins, m.ty, int::max_u),
                    (false, true, false) => w!(ins, m.ty, int::min_s, false),
                    (false, true, true) => w!(ins, m.ty, int::min_s, true),
                    (true, true, false) => w!(ins, m.ty, int::max_s, false),
                    (true, true, true) => w!(ins, m.ty, int::max_s, true),
                };
            } else {
                return float::lower_minmax(fx, ins, d, max, *m);
            }
        }
        Op::Addc(cy) | Op::Subc(cy) => {
            let sub = matches!(ins.op, Op::Subc(_));
            dn(fx, ins, &mut d, cy.ty, 2)?;
            d.s[3] = Src::Pred {
                slot: fx.cc_slot,
                neg: false,
            };
            d.d[1] = Dst::Pred(fx.cc_slot);
            d.extra = Extra::Param(u64::from(sub) | 2 | if cy.cc { 4 } else { 0 });
            d.exec = w!(ins, cy.ty, int::carry);
        }
        Op::Madc(mc) => {
            dn(fx, ins, &mut d, mc.ty, 3)?;
            d.s[3] = Src::Pred {
                slot: fx.cc_slot,
                neg: false,
            };
            d.d[1] = Dst::Pred(fx.cc_slot);
            d.extra = Extra::Param(
                u64::from(mc.hi)
                    | 2
                    | if mc.cc { 4 } else { 0 }
                    | if mc.ty.is_signed() { 8 } else { 0 },
            );
            d.exec = w!(ins, mc.ty, int::madc);
        }
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
        Op::Dp4a(p) => {
            dn(fx, ins, &mut d, Type::U32, 3)?;
            d.extra =
                Extra::Param(u64::from(p.a_ty.is_signed()) | u64::from(p.b_ty.is_signed()) << 1);
            d.exec = int::dp::<false>;
        }
        Op::Dp2a(p) => {
            dn(fx, ins, &mut d, Type::U32, 3)?;
            d.extra = Extra::Param(
                u64::from(p.a_ty.is_signed())
                    | u64::from(p.b_ty.is_signed()) << 1
                    | u64::from(p.hi) << 2,
            );
            d.exec = int::dp::<true>;
        }
        Op::And(ty) | Op::Or(ty) | Op::Xor(ty) | Op::Not(ty) | Op::Cnot(ty) => {
            let n = if matches!(ins.op, Op::Not(_) | Op::Cnot(_)) {
                1
            } else {
                2
            };
            dn(fx, ins, &mut d, *ty, n)?;
            if *ty == Type::Pred {
                let code = match ins.op {
                    Op::And(_) => 0,
                    Op::Or(_) => 1,
                    Op::Xor(_) => 2,
                    _ => 3,
                };
                if matches!(ins.op, Op::Cnot(_)) {
                    return Err(invalid(ins, "cnot has no .pred form"));
                }
                d.extra = Extra::Param(code);
                d.exec = int::pred_logic;
            } else {
                d.exec = match ins.op {
                    Op::And(_) => w!(ins, *ty, int::and),
                    Op::Or(_) => w!(ins, *ty, int::or),
                    Op::Xor(_) => w!(ins, *ty, int::xor),
                    Op::Not(_) => w!(ins, *ty, int::not),
                    _ => w!(ins, *ty, int::cnot),
                };
            }
        }
        Op::Shl(ty) | Op::Shr(ty) => {
            d.d[0] = fx.dst(arg(ins, 0)?, *ty, ins.span)?;
            d.s[0] = fx.src(arg(ins, 1)?, *ty, ins.span)?;
            d.s[1] = fx.src(arg(ins, 2)?, Type::U32, ins.span)?;
            d.exec = match (&ins.op, ty.is_signed()) {
                (Op::Shl(_), _) => w!(ins, *ty, int::shl),
                (_, true) => w!(ins, *ty, int::shr_s),
                (_, false) => w!(ins, *ty, int::shr_u),
            };
        }
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
        Op::Selp(ty) => {
            dn(fx, ins, &mut d, *ty, 2)?;
            d.s[2] = fx.src(arg(ins, 3)?, Type::Pred, ins.span)?;
            d.exec = int::selp;
        }
        Op::Slct(s) => return float::lower_slct(fx, ins, d, *s),
        Op::Mov(ty) => return lower_mov(fx, ins, d, *ty),
        Op::Ld(l) => {
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
                l1: load_l1(l),
                ..acc
            };
            d.exec = mem::fast_path(&acc, true).unwrap_or(mem::ld);
            d.extra = Extra::Mem(acc);
        }
        Op::Ldu(l) => {
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
        }
        Op::St(s) => {
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
                l1: store_l1(s),
                ..acc
            };
            d.exec = mem::fast_path(&acc, false).unwrap_or(mem::st);
            d.extra = Extra::Mem(acc);
        }
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
        Op::Isspacep(space) => {
            d.d[0] = fx.dst(arg(ins, 0)?, Type::Pred, ins.span)?;
            d.s[0] = fx.src(arg(ins, 1)?, Type::U64, ins.span)?;
            d.extra = Extra::Param(window_base(*space));
            d.exec = mem::isspacep;
        }
        Op::Cvta(c) => {
            dn(fx, ins, &mut d, c.ty, 1)?;
            d.extra = Extra::Param(window_base(c.space.space));
            d.exec = if c.to {
                mem::cvta_from_generic
            } else {
                mem::cvta_to_generic
            };
        }
        Op::Cvt(c) => return convert::lower_cvt(fx, ins, d, *c),
        Op::CvtPack(c) => return convert::lower_cvt_pack(fx, ins, d, *c),
        Op::Shfl(s) => {
            let (dst, p) = dual(fx, ins, arg(ins, 0)?, Type::B32)?;
            d.d = [dst, p];
            d.s[0] = fx.src(arg(ins, 1)?, Type::B32, ins.span)?;
            d.s[1] = fx.src(arg(ins, 2)?, Type::B32, ins.span)?;
            d.s[2] = fx.src(arg(ins, 3)?, Type::B32, ins.span)?;
            if s.sync {
                d.s[3] = fx.src(arg(ins, 4)?, Type::B32, ins.span)?;
            }
            d.extra = Extra::Param(warp_ops::shfl_code(s.mode));
            d.exec = warp_ops::shfl;
        }
        Op::Vote(v) => {
            let ty = if v.mode == crate::ir::VoteMode::Ballot {
                Type::B32
            } else {
                Type::Pred
            };
            d.d[0] = fx.dst(arg(ins, 0)?, ty, ins.span)?;
            d.s[0] = fx.src(arg(ins, 1)?, Type::Pred, ins.span)?;
            if v.sync {
                d.s[1] = fx.src(arg(ins, 2)?, Type::B32, ins.span)?;
            }
            d.extra = Extra::Param(warp_ops::vote_code(v.mode));
            d.exec = warp_ops::vote;
        }
        Op::Match(m) => {
            let (dst, p) = dual(fx, ins, arg(ins, 0)?, Type::B32)?;
            d.d = [dst, p];
            d.s[0] = fx.src(arg(ins, 1)?, m.ty, ins.span)?;
            d.s[1] = fx.src(arg(ins, 2)?, Type::B32, ins.span)?;
            d.extra = Extra::Param(u64::from(m.all));
            d.exec = warp_ops::match_sync;
        }
        Op::Redux(r) => {
            if r.ty == Type::F32 {
                d.d[0] = fx.dst(arg(ins, 0)?, Type::F32, ins.span)?;
                d.s[0] = fx.src(arg(ins, 1)?, Type::F32, ins.span)?;
                d.s[1] = fx.src(arg(ins, 2)?, Type::B32, ins.span)?;
                let max = match r.op {
                    ReduxOp::Min => false,
                    ReduxOp::Max => true,
                    ReduxOp::Add | ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => {
                        return Err(invalid(ins, "redux.sync on .f32 is min or max only"))
                    }
                };
                d.extra = Extra::Param(warp_ops::redux_f32_code(max, r.abs, r.nan));
                d.exec = warp_ops::redux_f32;
                return Ok(d);
            }
            d.d[0] = fx.dst(arg(ins, 0)?, r.ty, ins.span)?;
            d.s[0] = fx.src(arg(ins, 1)?, r.ty, ins.span)?;
            d.s[1] = fx.src(arg(ins, 2)?, Type::B32, ins.span)?;
            d.extra = Extra::Param(warp_ops::redux_code(r.op, r.ty.is_signed()));
            d.exec = warp_ops::redux;
        }
        Op::Activemask => {
            d.d[0] = fx.dst(arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = warp_ops::activemask;
        }
        Op::Elect => {
            let (dst, p) = dual(fx, ins, arg(ins, 0)?, Type::B32)?;
            d.d = [dst, p];
            d.s[0] = fx.src(arg(ins, 1)?, Type::B32, ins.span)?;
            d.exec = warp_ops::elect;
        }
        Op::Bar(b) => {
            let (red, first) = match b.kind {
                BarKind::Red(op) => (Some(op), 1),
                BarKind::Sync | BarKind::Arrive => (None, 0),
            };
            if red.is_some() {
                let ty = if red == Some(crate::ir::BarRedOp::Popc) {
                    Type::U32
                } else {
                    Type::Pred
                };
                d.d[0] = fx.dst(arg(ins, 0)?, ty, ins.span)?;
            }
            d.s[0] = fx.src(arg(ins, first)?, Type::U32, ins.span)?;
            let rest = ins.args.len() - first - 1;
            // bar.red: d, a, {b,} {!}c ; bar.sync/arrive: a{, b}.
            if red.is_some() {
                if rest == 2 {
                    d.s[1] = fx.src(arg(ins, first + 1)?, Type::U32, ins.span)?;
                }
                d.s[2] = fx.src(arg(ins, ins.args.len() - 1)?, Type::Pred, ins.span)?;
            } else if rest >= 1 {
                d.s[1] = fx.src(arg(ins, first + 1)?, Type::U32, ins.span)?;
            }
            d.extra = Extra::Barrier(BarrierInfo {
                arrive_only: b.kind == BarKind::Arrive,
                aligned: b.is_aligned(),
                red,
            });
            d.exec = control::bar;
            d.control = true;
        }
        Op::BarWarpSync => {
            d.s[0] = fx.src(arg(ins, 0)?, Type::B32, ins.span)?;
            d.exec = control::bar_warp_sync;
        }
        Op::Atom(a) => {
            let info = atom_info(fx, ins, 1, a.space, a.op, a.ty)?;
            d.d[0] = fx.dst(arg(ins, 0)?, a.ty, ins.span)?;
            d.s[0] = fx.src(arg(ins, 2)?, a.ty, ins.span)?;
            if a.op == AtomOp::Cas {
                d.s[1] = fx.src(arg(ins, 3)?, a.ty, ins.span)?;
            }
            if a.vec.is_some() {
                return Err(unsupported(ins, "vector atomics"));
            }
            d.extra = Extra::Atom(info);
            d.exec = atom::atom;
        }
        Op::Red(r) => {
            let info = atom_info(fx, ins, 0, r.space, r.op, r.ty)?;
            d.s[0] = fx.src(arg(ins, 1)?, r.ty, ins.span)?;
            if r.vec.is_some() {
                return Err(unsupported(ins, "vector reductions"));
            }
            d.extra = Extra::Atom(info);
            d.exec = atom::red;
        }
        Op::Bra { .. } => {
            let Operand::Label(l) = arg(ins, 0)? else {
                return Err(invalid(ins, "bra needs a label"));
            };
            d.extra = Extra::Target(fx.label_pc(*l));
            d.exec = control::bra;
            d.control = true;
        }
        Op::BrxIdx { .. } => {
            d.s[0] = fx.src(arg(ins, 0)?, Type::U32, ins.span)?;
            let Operand::Label(list) = arg(ins, 1)? else {
                return Err(invalid(ins, "brx.idx needs a .branchtargets label"));
            };
            let targets = branch_targets(fx, *list)
                .ok_or_else(|| invalid(ins, "brx.idx label is not a .branchtargets list"))?;
            d.extra = Extra::Elems(
                targets
                    .into_iter()
                    .map(|pc| Src::Imm(u64::from(pc)))
                    .collect(),
                Vec::new(),
            );
            d.exec = control::brx_idx;
            d.control = true;
        }
        Op::Call(c) => {
            d.extra = Extra::Call(Box::new(call_site(fx, ins, c)?));
            d.exec = control::call;
            d.control = true;
        }
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
        Op::WarpMatrix(w) => super::mma::lower(fx, ins, w, &mut d)?,
        Op::Wgmma(w) => super::wgmma::lower(fx, ins, w, &mut d)?,
    }
    Ok(d)
}

/// The double-width type of a `mul.wide`/`mad.wide` source type.
fn wide_of(ty: Type) -> Option<Type> {
    Some(match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        Type::B16 => Type::B32,
        Type::B32 => Type::B64,
        _ => return None,
    })
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

/// A dual destination `d|p` (or a plain `d`).
fn dual(fx: &FnCtx<'_>, ins: &Instr, op: &Operand, ty: Type) -> Result<(Dst, Dst), DecodeError> {
    match op {
        Operand::Dual(a, b) => Ok((fx.reg_dst(*a, ty), fx.reg_dst(*b, Type::Pred))),
        Operand::SinkDual(b) => Ok((Dst::Sink, fx.reg_dst(*b, Type::Pred))),
        other => Ok((fx.dst(other, ty, ins.span)?, Dst::Sink)),
    }
}

fn lower_mov(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, ty: Type) -> D {
    let dst = arg(ins, 0)?;
    let src = arg(ins, 1)?;
    match (dst, src) {
        (Operand::Vector(elems), s) => {
            let n = elems.len() as u32;
            let dsts = elems
                .iter()
                .map(|e| match e {
                    VecElem::Reg(r) => Ok(fx.reg_dst(*r, Type::B64)),
                    VecElem::Sink => Ok(Dst::Sink),
                    VecElem::Imm(_) => Err(invalid(ins, "an immediate cannot be a destination")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            d.s[0] = fx.src(s, ty, ins.span)?;
            d.s[1] = Src::Imm(u64::from(ty.bits().min(64 * 2) / n.max(1)));
            if ty == Type::B128 {
                return Err(unsupported(ins, "unpacking a .b128 register"));
            }
            d.extra = Extra::Elems(Vec::new(), dsts);
            d.exec = mem::mov_unpack;
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
            d.exec = mem::mov_pack;
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
                mem::mov
            };
            if ty == Type::Pred {
                d.s[1] = d.s[0];
                d.extra = Extra::Param(0);
            }
        }
    }
    Ok(d)
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
    let addr = fx.addr(arg(ins, addr_k)?, space, ins.span)?;
    let size = ty.bytes();
    let data = arg(ins, data_k)?;
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
    if dsts.len() != count {
        return Err(invalid(
            ins,
            format!("expected {count} data operand(s), found {}", dsts.len()),
        ));
    }
    Ok(MemAccess {
        addr,
        size,
        count: count as u32,
        sext_from: if ty.is_signed() { ty.bits() as u8 } else { 0 },
        dsts,
        srcs,
        nc: false,
        l1: L1Use::Bypass,
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
    let addr = fx.addr(arg(ins, addr_k)?, space, ins.span)?;
    let apply =
        atom::value_fn(op, ty).ok_or_else(|| unsupported(ins, format!("atom.{op:?}.{ty}")))?;
    Ok(AtomInfo {
        addr,
        size: ty.bytes(),
        apply,
    })
}

fn branch_targets(fx: &FnCtx<'_>, list: crate::ir::LabelId) -> Option<Vec<u32>> {
    fn find(b: &crate::ir::Block, list: crate::ir::LabelId) -> Option<Vec<crate::ir::LabelId>> {
        for s in &b.stmts {
            match s {
                crate::ir::Stmt::Targets(t) if t.name == list => {
                    if let crate::ir::TargetKind::Branch(ls) = &t.targets {
                        return Some(ls.clone());
                    }
                }
                crate::ir::Stmt::Block(inner) => {
                    if let Some(v) = find(inner, list) {
                        return Some(v);
                    }
                }
                _ => {}
            }
        }
        None
    }
    let labels = find(fx.func.body.as_ref()?, list)?;
    Some(labels.into_iter().map(|l| fx.label_pc(l)).collect())
}

fn call_site(fx: &FnCtx<'_>, ins: &Instr, c: &crate::ir::Call) -> Result<CallSite, DecodeError> {
    let (callee, target_reg) = match &c.callee {
        Operand::Symbol(s) => match s.sym {
            VarRef::Function(f) => (Some(f.0), None),
            _ => return Err(invalid(ins, "call of something that is not a function")),
        },
        Operand::Reg(r) => match fx.slot(*r) {
            SlotInfo::Val { slot, .. } => (None, Some(slot)),
            SlotInfo::Pred(_) => return Err(invalid(ins, "call through a predicate")),
        },
        _ => return Err(invalid(ins, "call target must be a function or a register")),
    };
    let _ = LabelOrProto::Proto;
    let args = c
        .args
        .iter()
        .map(|a| match a {
            Operand::Symbol(s) => match fx.sym_place(s.sym, ins.span)? {
                super::operands::SymPlace::Frame(off) => Ok(ArgSource::Frame {
                    offset: off.wrapping_add(s.offset as u64),
                    size: var_size(fx, s.sym),
                }),
                super::operands::SymPlace::Reg(slot) => Ok(ArgSource::Value(Src::Reg(slot))),
                super::operands::SymPlace::Fixed(addr, _) => Ok(ArgSource::Value(Src::Imm(addr))),
            },
            other => Ok(ArgSource::Value(fx.src(other, Type::B64, ins.span)?)),
        })
        .collect::<Result<Vec<_>, DecodeError>>()?;
    let rets = c
        .returns
        .iter()
        .map(|r| match r {
            Operand::Symbol(s) => match fx.sym_place(s.sym, ins.span)? {
                super::operands::SymPlace::Frame(off) => Ok(RetDest::Frame {
                    offset: off,
                    size: var_size(fx, s.sym),
                }),
                super::operands::SymPlace::Reg(slot) => Ok(RetDest::Reg(Dst::Reg {
                    slot,
                    bits: 64,
                    sext_from: 0,
                })),
                super::operands::SymPlace::Fixed(..) => {
                    Err(invalid(ins, "a call cannot return into that variable"))
                }
            },
            Operand::Reg(reg) => Ok(RetDest::Reg(fx.reg_dst(*reg, fx.reg_ty(*reg)))),
            _ => Err(invalid(ins, "bad return operand")),
        })
        .collect::<Result<Vec<_>, DecodeError>>()?;
    Ok(CallSite {
        callee,
        target_reg,
        args,
        rets,
    })
}

fn var_size(fx: &FnCtx<'_>, v: VarRef) -> u64 {
    let var = match v {
        VarRef::Local(id) => fx.func.locals.get(id.index()),
        VarRef::Param(i) => fx.func.params.get(i as usize).map(|p| &p.var),
        VarRef::Return(i) => fx.func.returns.get(i as usize).map(|p| &p.var),
        VarRef::Global(g) => fx.module.globals.get(g.index()),
        VarRef::Function(_) => None,
    };
    var.and_then(|v| v.size_bytes()).unwrap_or(8)
}

#[allow(dead_code)]
fn class(ty: Type) -> TypeClass {
    ty.class()
}
