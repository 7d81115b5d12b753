//! Conversions: `cvt` between integer and float types with rounding, saturation and
//! flushing, and `cvt.pack`.
//!
//! (Interim: integer-to-integer conversions are complete; float conversions are wired to
//! `crate::semantics` next.)

use super::int::{lo, sx};
use super::{unary, Ctx};
use crate::exec::decode::{DecodeError, FnCtx};
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Extra, Flow};
use crate::ir::{Cvt, CvtPack, Instr};

type R = Result<Flow, LaneFault>;
type D = Result<DInstr, DecodeError>;

fn unsupported(ins: &Instr, what: String) -> DecodeError {
    DecodeError::Unsupported {
        what,
        span: ins.span,
    }
}

/// Integer → integer: `Param` = src bits | src signed << 8 | dst bits << 16 | dst signed << 24
/// | sat << 25.
fn cvt_int(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(p) = i.extra else {
        return Ok(Flow::Next);
    };
    let sbits = (p & 0xff) as u32;
    let ssig = (p >> 8) & 1 == 1;
    let dbits = ((p >> 16) & 0xff) as u32;
    let dsig = (p >> 24) & 1 == 1;
    let sat = (p >> 25) & 1 == 1;
    unary(c, i, |a| {
        let v: i128 = if ssig {
            i128::from(sign_extend(a, sbits))
        } else {
            i128::from(mask(a, sbits))
        };
        let out = if sat {
            let (min, max) = if dsig {
                (-(1i128 << (dbits - 1)), (1i128 << (dbits - 1)) - 1)
            } else {
                (0, (1i128 << dbits) - 1)
            };
            v.clamp(min, max)
        } else {
            v
        };
        mask(out as u64, dbits)
    });
    Ok(Flow::Next)
}

fn mask(v: u64, bits: u32) -> u64 {
    match bits {
        8 => lo::<8>(v),
        16 => lo::<16>(v),
        32 => lo::<32>(v),
        _ => v,
    }
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    match bits {
        8 => sx::<8>(v),
        16 => sx::<16>(v),
        32 => sx::<32>(v),
        _ => v as i64,
    }
}

/// Lowers `cvt`.
pub fn lower_cvt(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr, c: Cvt) -> D {
    if c.dst.is_integer() && c.src.is_integer() {
        let dop = ins
            .args
            .first()
            .ok_or_else(|| unsupported(ins, "cvt needs operands".into()))?;
        let sop = ins
            .args
            .get(1)
            .ok_or_else(|| unsupported(ins, "cvt needs operands".into()))?;
        d.d[0] = fx.dst(dop, c.dst, ins.span)?;
        d.s[0] = fx.src(sop, c.src, ins.span)?;
        let p = u64::from(c.src.bits())
            | u64::from(c.src.is_signed()) << 8
            | u64::from(c.dst.bits()) << 16
            | u64::from(c.dst.is_signed()) << 24
            | u64::from(c.sat) << 25;
        d.extra = Extra::Param(p);
        d.exec = cvt_int;
        return Ok(d);
    }
    Err(unsupported(ins, format!("cvt.{}.{}", c.dst, c.src)))
}

/// Lowers `cvt.pack`.
pub fn lower_cvt_pack(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr, c: CvtPack) -> D {
    Err(unsupported(ins, format!("cvt.pack to .{}", c.dst)))
}
