//! Floating-point and integer comparisons in the lane loop: `setp`, `set` and `slct`, each
//! lowered to one specialised function per comparison class. The per-lane meaning is in
//! `crate::semantics::compare`.

use super::float::{encode, f32of, mode_of, unsupported};
use crate::exec::ctx::Ctx;
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Dst, Extra, Flow, Src};
use crate::ir::{BoolOp, CmpOp, FloatRounding, Instr, Operand, Set, Setp, Slct, Type};
use crate::semantics::compare;
use crate::semantics::float::{self as sf, Mode};

type R = Result<Flow, LaneFault>;
type D = Result<DInstr, DecodeError>;

const ALL_CMP: [CmpOp; 18] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Lo,
    CmpOp::Ls,
    CmpOp::Hi,
    CmpOp::Hs,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];

fn cmp_code(cmp: CmpOp, b: Option<BoolOp>) -> u64 {
    let c = ALL_CMP.iter().position(|x| *x == cmp).unwrap_or(0) as u64;
    let bo = match b {
        None => 0,
        Some(BoolOp::And) => 1,
        Some(BoolOp::Or) => 2,
        Some(BoolOp::Xor) => 3,
    };
    c | bo << 8
}

fn cmp_of(code: u64) -> CmpOp {
    ALL_CMP[(code & 0x1f) as usize % ALL_CMP.len()]
}

fn combine(code: u64, r: u32, c: u32) -> u32 {
    match (code >> 8) & 3 {
        1 => r & c,
        2 => r | c,
        3 => r ^ c,
        _ => r,
    }
}

/// The value of a compared operand as f64 (floats) or i128 (integers).
#[derive(Clone, Copy)]
enum Cls {
    Int { bits: u32, signed: bool },
    Float(Type),
}

#[inline(always)]
fn compare_lanes(cls: Cls, cmp: CmpOp, ftz: bool, a: u64, b: u64) -> bool {
    match cls {
        Cls::Int { bits, signed } => crate::semantics::int::compare(cmp, a, b, bits, signed),
        Cls::Float(Type::F32) => compare::fcmp32(cmp, f32of(a), f32of(b), ftz),
        Cls::Float(ty) => compare::fcmp(
            cmp,
            crate::semantics::convert::to_f64(a, ty, ftz),
            crate::semantics::convert::to_f64(b, ty, ftz),
        ),
    }
}

/// The lanes, of all 32, whose operands compare true: the comparison is chosen once, outside
/// the lane loop, and integers and f32 are compared through order-preserving keys in loops
/// the compiler vectorises (a comparison cannot fault, so lanes that do not execute are
/// computed too and masked by the caller).
fn compare_mask(cls: Cls, cmp: CmpOp, ftz: bool, a: &[u64; 32], b: &[u64; 32]) -> u32 {
    match cls {
        Cls::Int { bits, signed } => {
            let unsigned_op = matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs);
            // The low `bits` bits, zero-extended, or sign-extended (by flipping the sign bit
            // and subtracting it) and then ordered as unsigned keys (by flipping bit 63):
            // masks, XORs and subtractions only, which vectorise on every x86-64 level.
            let width = bits.clamp(1, 64);
            let low = u64::MAX >> (64 - width);
            let sign = 1u64 << (width - 1);
            let (ka, kb): ([u64; 32], [u64; 32]) = if signed && !unsigned_op {
                let key = |v: u64| ((v & low) ^ sign).wrapping_sub(sign) ^ (1 << 63);
                (a.map(key), b.map(key))
            } else {
                (a.map(|v| v & low), b.map(|v| v & low))
            };
            match cmp {
                CmpOp::Eq => lanes_where(&ka, &kb, |x, y| x == y),
                CmpOp::Ne => lanes_where(&ka, &kb, |x, y| x != y),
                CmpOp::Lt | CmpOp::Lo => lanes_where(&ka, &kb, |x, y| x < y),
                CmpOp::Le | CmpOp::Ls => lanes_where(&ka, &kb, |x, y| x <= y),
                CmpOp::Gt | CmpOp::Hi => lanes_where(&ka, &kb, |x, y| x > y),
                CmpOp::Ge | CmpOp::Hs => lanes_where(&ka, &kb, |x, y| x >= y),
                CmpOp::Equ
                | CmpOp::Neu
                | CmpOp::Ltu
                | CmpOp::Leu
                | CmpOp::Gtu
                | CmpOp::Geu
                | CmpOp::Num
                | CmpOp::Nan => 0,
            }
        }
        Cls::Float(Type::F32) => {
            // f32 to f64 is exact, so comparing the f32 values decides as `compare::fcmp32`.
            let f = |v: u64| {
                let x = f32of(v);
                if ftz {
                    sf::ftz32(x)
                } else {
                    x
                }
            };
            let fa: [f32; 32] = std::array::from_fn(|l| f(a[l]));
            let fb: [f32; 32] = std::array::from_fn(|l| f(b[l]));
            let un = |x: f32, y: f32| x.is_nan() || y.is_nan();
            match cmp {
                CmpOp::Eq => lanes_where(&fa, &fb, |x, y| x == y),
                CmpOp::Ne => lanes_where(&fa, &fb, |x, y| !un(x, y) && x != y),
                CmpOp::Lt | CmpOp::Lo => lanes_where(&fa, &fb, |x, y| x < y),
                CmpOp::Le | CmpOp::Ls => lanes_where(&fa, &fb, |x, y| x <= y),
                CmpOp::Gt | CmpOp::Hi => lanes_where(&fa, &fb, |x, y| x > y),
                CmpOp::Ge | CmpOp::Hs => lanes_where(&fa, &fb, |x, y| x >= y),
                CmpOp::Equ => lanes_where(&fa, &fb, |x, y| un(x, y) || x == y),
                CmpOp::Neu => lanes_where(&fa, &fb, |x, y| x != y),
                CmpOp::Ltu => lanes_where(&fa, &fb, |x, y| un(x, y) || x < y),
                CmpOp::Leu => lanes_where(&fa, &fb, |x, y| un(x, y) || x <= y),
                CmpOp::Gtu => lanes_where(&fa, &fb, |x, y| un(x, y) || x > y),
                CmpOp::Geu => lanes_where(&fa, &fb, |x, y| un(x, y) || x >= y),
                CmpOp::Num => lanes_where(&fa, &fb, |x, y| !un(x, y)),
                CmpOp::Nan => lanes_where(&fa, &fb, un),
            }
        }
        Cls::Float(_) => {
            let mut r = 0u32;
            for l in 0..32 {
                r |= u32::from(compare_lanes(cls, cmp, ftz, a[l], b[l])) << l;
            }
            r
        }
    }
}

/// The lanes where `f` holds of the two operands' lane values.
#[inline(always)]
fn lanes_where<T: Copy>(a: &[T; 32], b: &[T; 32], f: impl Fn(T, T) -> bool) -> u32 {
    let mut r = 0u32;
    for l in 0..32 {
        r |= u32::from(f(a[l], b[l])) << l;
    }
    r
}

fn cls_of(ty: Type) -> Option<Cls> {
    if ty.is_integer() {
        Some(Cls::Int {
            bits: ty.bits().min(64),
            signed: ty.is_signed(),
        })
    } else if matches!(ty, Type::F32 | Type::F64 | Type::F16 | Type::BF16) {
        Some(Cls::Float(ty))
    } else {
        None
    }
}

fn cls_param(c: Cls) -> u64 {
    match c {
        Cls::Int { bits, signed } => u64::from(bits) | u64::from(signed) << 8,
        Cls::Float(Type::F32) => 1 << 9,
        Cls::Float(Type::F64) => 2 << 9,
        Cls::Float(Type::F16) => 3 << 9,
        Cls::Float(_) => 4 << 9,
    }
}

fn param_cls(p: u64) -> Cls {
    match (p >> 9) & 7 {
        1 => Cls::Float(Type::F32),
        2 => Cls::Float(Type::F64),
        3 => Cls::Float(Type::F16),
        4 => Cls::Float(Type::BF16),
        _ => Cls::Int {
            bits: (p & 0xFF) as u32,
            signed: (p >> 8) & 1 != 0,
        },
    }
}

/// `setp`: `Param` = cmp code | ftz << 16 | class << 20; `d = [p, q]`, `s = [a, b, c]`.
fn setp_exec(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let cmp = cmp_of(p);
    let ftz = (p >> 16) & 1 != 0;
    let cls = param_cls(p >> 20);
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let r = compare_mask(cls, cmp, ftz, &a, &b) & c.mask;
    let third = if i.s[2] == Src::None {
        0
    } else {
        c.fetch_mask(&i.s[2])
    };
    c.write_mask(&i.d[0], combine(p, r, third));
    if i.d[1] != Dst::Sink {
        c.write_mask(&i.d[1], combine(p, !r, third));
    }
    Ok(Flow::Next)
}

/// Lowers `setp`.
pub fn lower_setp(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: Setp) -> D {
    let Some(cls) = cls_of(s.ty) else {
        return Err(unsupported(ins, format!("setp on .{}", s.ty)));
    };
    match fx.arg(ins, 0)? {
        Operand::Dual(p, q) => {
            d.d[0] = fx.reg_dst(*p, Type::Pred);
            d.d[1] = fx.reg_dst(*q, Type::Pred);
        }
        other => d.d[0] = fx.dst(other, Type::Pred, ins.span)?,
    }
    d.s[0] = fx.src(fx.arg(ins, 1)?, s.ty, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, s.ty, ins.span)?;
    if let Some(op) = ins.args.get(3) {
        d.s[2] = fx.src(op, Type::Pred, ins.span)?;
    }
    d.extra =
        Extra::Param(cmp_code(s.cmp, s.bool_op) | u64::from(s.ftz) << 16 | cls_param(cls) << 20);
    d.exec = setp_exec;
    Ok(d)
}

/// `set`: like `setp`, writing all ones (integer destinations) or 1.0 (`.f32`).
fn set_exec(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let cmp = cmp_of(p);
    let ftz = (p >> 16) & 1 != 0;
    let float_dst = (p >> 17) & 1 != 0;
    let cls = param_cls(p >> 20);
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let third = if i.s[2] == Src::None {
        0
    } else {
        c.fetch_mask(&i.s[2])
    };
    let r = compare_mask(cls, cmp, ftz, &a, &b) & c.mask;
    let r = combine(p, r, third);
    let t = if float_dst {
        u64::from(1.0f32.to_bits())
    } else {
        0xFFFF_FFFF
    };
    let out: [u64; 32] = std::array::from_fn(|l| if r & (1 << l) != 0 { t } else { 0 });
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// Lowers `set`.
pub fn lower_set(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: Set) -> D {
    let Some(cls) = cls_of(s.src) else {
        return Err(unsupported(ins, format!("set on .{}", s.src)));
    };
    d.d[0] = fx.dst(fx.arg(ins, 0)?, s.dst, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, s.src, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, s.src, ins.span)?;
    if let Some(op) = ins.args.get(3) {
        d.s[2] = fx.src(op, Type::Pred, ins.span)?;
    }
    d.extra = Extra::Param(
        cmp_code(s.cmp, s.bool_op)
            | u64::from(s.ftz) << 16
            | u64::from(s.dst == Type::F32) << 17
            | cls_param(cls) << 20,
    );
    d.exec = set_exec;
    Ok(d)
}

fn slct_exec<const F: bool>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let ftz = mode_of(i).ftz;
    crate::exec::ctx::ternary(c, i, |a, b, s| {
        let take_a = if F {
            let x = f32of(s);
            let x = if ftz { sf::ftz32(x) } else { x };
            x >= 0.0
        } else {
            (s as u32 as i32) >= 0
        };
        if take_a {
            a
        } else {
            b
        }
    });
    Ok(Flow::Next)
}

/// Lowers `slct`.
pub fn lower_slct(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, s: Slct) -> D {
    d.d[0] = fx.dst(fx.arg(ins, 0)?, s.dst, ins.span)?;
    d.s[0] = fx.src(fx.arg(ins, 1)?, s.dst, ins.span)?;
    d.s[1] = fx.src(fx.arg(ins, 2)?, s.dst, ins.span)?;
    d.s[2] = fx.src(fx.arg(ins, 3)?, s.sel, ins.span)?;
    d.extra = Extra::Param(encode(Mode {
        rnd: FloatRounding::Rn,
        ftz: s.ftz,
        sat: false,
    }));
    d.exec = if s.sel == Type::F32 {
        slct_exec::<true>
    } else {
        slct_exec::<false>
    };
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole-warp comparison agrees, lane by lane, with the per-lane semantics for every
    /// operator, class and the values at the edges (NaN, infinities, signed zeros,
    /// subnormals, each width's extremes, bits above the width).
    #[test]
    fn compare_mask_agrees_with_the_lane_semantics() {
        let f32s = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE / 4.0,
            -f32::MIN_POSITIVE / 4.0,
            3.5,
            -3.5,
            f32::MAX,
        ];
        let ints = [
            0u64,
            1,
            u64::MAX,
            0x7f,
            0x80,
            0xff,
            0x7fff,
            0x8000,
            0xffff_ffff,
            0x8000_0000,
            0x7fff_ffff,
            1 << 63,
            0x1_0000_0005,
            5,
        ];
        let mut classes = vec![Cls::Float(Type::F32)];
        for bits in [8, 16, 32, 64] {
            for signed in [false, true] {
                classes.push(Cls::Int { bits, signed });
            }
        }
        for cls in classes {
            let vals: Vec<u64> = match cls {
                Cls::Float(_) => f32s.iter().map(|x| u64::from(x.to_bits())).collect(),
                Cls::Int { .. } => ints.to_vec(),
            };
            let pairs: Vec<(u64, u64)> = vals
                .iter()
                .flat_map(|a| vals.iter().map(move |b| (*a, *b)))
                .collect();
            for chunk in pairs.chunks(32) {
                let a: [u64; 32] = std::array::from_fn(|l| chunk.get(l).map_or(0, |p| p.0));
                let b: [u64; 32] = std::array::from_fn(|l| chunk.get(l).map_or(0, |p| p.1));
                for cmp in ALL_CMP {
                    for ftz in [false, true] {
                        let got = compare_mask(cls, cmp, ftz, &a, &b);
                        for l in 0..32 {
                            let want = compare_lanes(cls, cmp, ftz, a[l], b[l]);
                            assert_eq!(
                                got >> l & 1 != 0,
                                want,
                                "{cmp:?} ftz={ftz} on {:#x} and {:#x}",
                                a[l],
                                b[l]
                            );
                        }
                    }
                }
            }
        }
    }
}
