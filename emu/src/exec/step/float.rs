//! Floating-point arithmetic, comparisons (`setp`, `set`, `slct`) and float functions.
//!
//! (Interim: integer comparisons are complete; floating-point families are wired to
//! `crate::semantics` next.)

use super::int::{lo, sx};
use super::{for_lanes, Ctx};
use crate::exec::decode::{DecodeError, FnCtx};
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Dst, Extra, Flow, Src};
use crate::ir::{
    Arith, BoolOp, CmpOp, Div, FloatFn, Instr, MinMax, Operand, Set, Setp, Slct, Testp, Type,
};

type R = Result<Flow, LaneFault>;
type D = Result<DInstr, DecodeError>;

/// Which arithmetic operation a float lowering is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `fma`/`mad`
    Fma,
    /// `neg`
    Neg,
    /// `abs`
    Abs,
}

fn unsupported(ins: &Instr, what: String) -> DecodeError {
    DecodeError::Unsupported {
        what,
        span: ins.span,
    }
}

/// Lowers float `add/sub/mul/fma`.
pub fn lower_arith(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, kind: Kind, a: Arith) -> D {
    Err(unsupported(ins, format!("{kind:?} on .{}", a.ty)))
}

/// Lowers float `div`.
pub fn lower_div(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, dv: Div) -> D {
    Err(unsupported(ins, format!("div on .{}", dv.ty)))
}

/// Lowers float `neg/abs`.
pub fn lower_unary(
    _fx: &FnCtx<'_>,
    ins: &Instr,
    _d: DInstr,
    kind: Kind,
    ty: Type,
    _ftz: bool,
) -> D {
    Err(unsupported(ins, format!("{kind:?} on .{ty}")))
}

/// Lowers float `min/max`.
pub fn lower_minmax(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, _max: bool, m: MinMax) -> D {
    Err(unsupported(ins, format!("min/max on .{}", m.ty)))
}

/// Lowers `rcp/sqrt/rsqrt/sin/cos/lg2/ex2/tanh`.
pub fn lower_fn(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, f: FloatFn) -> D {
    Err(unsupported(ins, format!("float function on .{}", f.ty)))
}

/// Lowers `testp`.
pub fn lower_testp(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, t: Testp) -> D {
    Err(unsupported(ins, format!("testp on .{}", t.ty)))
}

/// Lowers `copysign`.
pub fn lower_copysign(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, ty: Type) -> D {
    Err(unsupported(ins, format!("copysign on .{ty}")))
}

/// The `Extra::Param` encoding of a comparison: cmp in bits 0..4, bool op in bits 8..9
/// (0 none, 1 and, 2 or, 3 xor).
fn cmp_code(cmp: CmpOp, b: Option<BoolOp>) -> u64 {
    let c = cmp as u64;
    let bo = match b {
        None => 0,
        Some(BoolOp::And) => 1,
        Some(BoolOp::Or) => 2,
        Some(BoolOp::Xor) => 3,
    };
    c | bo << 8
}

fn cmp_of(code: u64) -> CmpOp {
    use CmpOp as C;
    const ALL: [CmpOp; 18] = [
        C::Eq,
        C::Ne,
        C::Lt,
        C::Le,
        C::Gt,
        C::Ge,
        C::Lo,
        C::Ls,
        C::Hi,
        C::Hs,
        C::Equ,
        C::Neu,
        C::Ltu,
        C::Leu,
        C::Gtu,
        C::Geu,
        C::Num,
        C::Nan,
    ];
    ALL[(code & 0x1f) as usize % ALL.len()]
}

/// Integer comparison of width `W`, signed when `S`.
#[inline(always)]
fn icmp<const W: u32, const S: bool>(cmp: CmpOp, a: u64, b: u64) -> bool {
    use CmpOp as C;
    let (ua, ub) = (lo::<W>(a), lo::<W>(b));
    let (sa, sb) = (sx::<W>(a), sx::<W>(b));
    match cmp {
        C::Eq => ua == ub,
        C::Ne => ua != ub,
        C::Lt => {
            if S {
                sa < sb
            } else {
                ua < ub
            }
        }
        C::Le => {
            if S {
                sa <= sb
            } else {
                ua <= ub
            }
        }
        C::Gt => {
            if S {
                sa > sb
            } else {
                ua > ub
            }
        }
        C::Ge => {
            if S {
                sa >= sb
            } else {
                ua >= ub
            }
        }
        C::Lo => ua < ub,
        C::Ls => ua <= ub,
        C::Hi => ua > ub,
        C::Hs => ua >= ub,
        C::Equ | C::Neu | C::Ltu | C::Leu | C::Gtu | C::Geu | C::Num | C::Nan => false,
    }
}

/// Combines a comparison result mask with the optional third predicate.
fn combine(code: u64, r: u32, c: u32) -> u32 {
    match (code >> 8) & 3 {
        1 => r & c,
        2 => r | c,
        3 => r ^ c,
        _ => r,
    }
}

/// `setp` on integers: `d = [p, q]`, `s = [a, b, c]`.
fn setp_int<const W: u32, const S: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(code) = i.extra else {
        return Ok(Flow::Next);
    };
    let cmp = cmp_of(code);
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let mut r = 0u32;
    for_lanes(c.mask, |l| {
        if icmp::<W, S>(cmp, a[l], b[l]) {
            r |= 1 << l;
        }
    });
    let third = if i.s[2] == Src::None {
        0
    } else {
        c.fetch_mask(&i.s[2])
    };
    c.write_mask(&i.d[0], combine(code, r, third));
    if i.d[1] != Dst::Sink {
        c.write_mask(&i.d[1], combine(code, !r, third));
    }
    Ok(Flow::Next)
}

fn setp_fn(ty: Type) -> Option<fn(&mut Ctx<'_>, &DInstr) -> R> {
    let s = ty.is_signed();
    Some(match (ty.bits(), s) {
        (8 | 16, false) => setp_int::<16, false>,
        (8 | 16, true) => setp_int::<16, true>,
        (32, false) => setp_int::<32, false>,
        (32, true) => setp_int::<32, true>,
        (64, false) => setp_int::<64, false>,
        (64, true) => setp_int::<64, true>,
        _ => return None,
    })
}

/// Lowers `setp`.
pub fn lower_setp(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: Setp) -> D {
    if !s.ty.is_integer() {
        return Err(unsupported(ins, format!("setp on .{}", s.ty)));
    }
    let Some(f) = setp_fn(s.ty) else {
        return Err(unsupported(ins, format!("setp on .{}", s.ty)));
    };
    let op0 = ins
        .args
        .first()
        .ok_or_else(|| unsupported(ins, "setp without operands".into()))?;
    match op0 {
        Operand::Dual(p, q) => {
            d.d[0] = fx.reg_dst(*p, Type::Pred);
            d.d[1] = fx.reg_dst(*q, Type::Pred);
        }
        other => d.d[0] = fx.dst(other, Type::Pred, ins.span)?,
    }
    for k in 0..2 {
        let op = ins
            .args
            .get(k + 1)
            .ok_or_else(|| unsupported(ins, "setp needs two sources".into()))?;
        d.s[k] = fx.src(op, s.ty, ins.span)?;
    }
    if let Some(op) = ins.args.get(3) {
        d.s[2] = fx.src(op, Type::Pred, ins.span)?;
    }
    d.extra = Extra::Param(cmp_code(s.cmp, s.bool_op));
    d.exec = f;
    Ok(d)
}

/// Lowers `set`.
pub fn lower_set(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, s: Set) -> D {
    Err(unsupported(ins, format!("set.{}.{}", s.dst, s.src)))
}

/// Lowers `slct`.
pub fn lower_slct(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, s: Slct) -> D {
    Err(unsupported(ins, format!("slct.{}.{}", s.dst, s.sel)))
}
