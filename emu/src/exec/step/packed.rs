//! Packed single-precision arithmetic: `add`, `sub`, `mul` and `fma` on `.f32x2` (PTX ISA
//! "Floating Point Instructions: add/sub/mul/fma", the `.f32x2` forms of PTX 8.6, sm_100).
//!
//! A `.f32x2` operand is a `.b64` register holding two binary32 values, the first in the low
//! 32 bits. Each half is computed on its own with the scalar `.f32` semantics of
//! `crate::semantics::float` (rounding, `.ftz`, `.sat`), so the two halves round exactly as
//! two scalar instructions would.
//!
//! Deliberate deviations: none known. A missing rounding modifier is taken as `.rn`, as for
//! scalar `.f32`.

use crate::exec::ctx::Ctx;
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Extra, Flow};
use crate::ir::{Arith, FloatRounding, Instr, Type};
use crate::semantics::float::{self as sf, BinOp, Mode};

use super::float::Kind;

type R = Result<Flow, LaneFault>;

fn encode(m: Mode) -> u64 {
    let r = match m.rnd {
        FloatRounding::Rn | FloatRounding::Rna | FloatRounding::Rs => 0,
        FloatRounding::Rz => 1,
        FloatRounding::Rm => 2,
        FloatRounding::Rp => 3,
    };
    r | u64::from(m.ftz) << 2 | u64::from(m.sat) << 3
}

fn decode_mode(i: &DInstr) -> Mode {
    let p = match i.extra {
        Extra::Param(p) => p,
        _ => 0,
    };
    Mode {
        rnd: match p & 3 {
            1 => FloatRounding::Rz,
            2 => FloatRounding::Rm,
            3 => FloatRounding::Rp,
            _ => FloatRounding::Rn,
        },
        ftz: p & 4 != 0,
        sat: p & 8 != 0,
    }
}

/// The two binary32 halves of a `.f32x2` value, low half first.
pub fn unpack(v: u64) -> (f32, f32) {
    (f32::from_bits(v as u32), f32::from_bits((v >> 32) as u32))
}

/// Packs two binary32 values into a `.f32x2` value, `lo` in the low half.
pub fn pack(lo: f32, hi: f32) -> u64 {
    u64::from(lo.to_bits()) | u64::from(hi.to_bits()) << 32
}

/// `op` applied to each half of `a` and `b`.
pub fn bin_f32x2(op: BinOp, a: u64, b: u64, m: Mode) -> u64 {
    let ((a0, a1), (b0, b1)) = (unpack(a), unpack(b));
    pack(sf::bin32(op, a0, b0, m), sf::bin32(op, a1, b1, m))
}

/// `a * b + c` on each half, rounded once per half.
pub fn fma_f32x2(a: u64, b: u64, c: u64, m: Mode) -> u64 {
    let ((a0, a1), (b0, b1), (c0, c1)) = (unpack(a), unpack(b), unpack(c));
    pack(sf::fma32(a0, b0, c0, m), sf::fma32(a1, b1, c1, m))
}

fn add(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decode_mode(i);
    crate::exec::ctx::binary(c, i, |a, b| bin_f32x2(BinOp::Add, a, b, m));
    Ok(Flow::Next)
}

fn sub(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decode_mode(i);
    crate::exec::ctx::binary(c, i, |a, b| bin_f32x2(BinOp::Sub, a, b, m));
    Ok(Flow::Next)
}

fn mul(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decode_mode(i);
    crate::exec::ctx::binary(c, i, |a, b| bin_f32x2(BinOp::Mul, a, b, m));
    Ok(Flow::Next)
}

fn fma(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decode_mode(i);
    crate::exec::ctx::ternary(c, i, |a, b, d| fma_f32x2(a, b, d, m));
    Ok(Flow::Next)
}

/// Lowers `add/sub/mul/fma.f32x2`.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu), or `neg`/`abs`, which
/// have no `.f32x2` form.
pub fn lower_f32x2(
    fx: &FnCtx<'_>,
    ins: &Instr,
    mut d: DInstr,
    kind: Kind,
    a: Arith,
) -> Result<DInstr, DecodeError> {
    let n = if kind == Kind::Fma { 3 } else { 2 };
    d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::B64, ins.span)?;
    for k in 0..n {
        d.s[k] = fx.src(fx.arg(ins, k + 1)?, Type::B64, ins.span)?;
    }
    d.extra = Extra::Param(encode(Mode {
        rnd: a.rnd.unwrap_or(FloatRounding::Rn),
        ftz: a.ftz,
        sat: a.sat,
    }));
    d.exec = match kind {
        Kind::Add => add,
        Kind::Sub => sub,
        Kind::Mul => mul,
        Kind::Fma => fma,
        Kind::Neg | Kind::Abs => {
            return Err(DecodeError::Unsupported {
                what: format!("{kind:?} on .f32x2"),
                span: ins.span,
            })
        }
    };
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: Mode = Mode {
        rnd: FloatRounding::Rn,
        ftz: false,
        sat: false,
    };

    #[test]
    fn halves_are_independent() {
        let a = pack(1.5, -2.0);
        let b = pack(0.25, 8.0);
        assert_eq!(unpack(bin_f32x2(BinOp::Add, a, b, RN)), (1.75, 6.0));
        assert_eq!(unpack(bin_f32x2(BinOp::Sub, a, b, RN)), (1.25, -10.0));
        assert_eq!(unpack(bin_f32x2(BinOp::Mul, a, b, RN)), (0.375, -16.0));
        assert_eq!(unpack(fma_f32x2(a, b, pack(1.0, 1.0), RN)), (1.375, -15.0));
    }

    #[test]
    fn rounding_applies_to_each_half() {
        // 1 + 2^-24 is a tie at binary32: .rn keeps 1, .rp goes up one ulp.
        let a = pack(1.0, -1.0);
        let b = pack(f32::EPSILON / 2.0, -f32::EPSILON / 2.0);
        let rp = Mode {
            rnd: FloatRounding::Rp,
            ..RN
        };
        assert_eq!(unpack(bin_f32x2(BinOp::Add, a, b, RN)), (1.0, -1.0));
        assert_eq!(
            unpack(bin_f32x2(BinOp::Add, a, b, rp)),
            (1.0 + f32::EPSILON, -1.0)
        );
    }

    #[test]
    fn sat_clamps_each_half() {
        let sat = Mode { sat: true, ..RN };
        let r = bin_f32x2(BinOp::Mul, pack(3.0, -3.0), pack(1.0, 1.0), sat);
        assert_eq!(unpack(r), (1.0, 0.0));
    }
}
