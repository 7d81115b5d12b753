//! `tcgen05.ld.red`'s `redval`: the minimum or maximum of the values one thread loaded (PTX
//! ISA "tcgen05.ld"; spec tcgen05.md §5).
//!
//! The PTX ISA gives the syntax only; ptxemu follows the semantics of `min`/`max`:
//! 1. Without `.NaN`, NaN inputs are ignored; the result is NaN only when every input is.
//! 2. With `.NaN`, any NaN input makes the result NaN.
//! 3. NaN results are the canonical `0x7FFFFFFF`.
//! 4. −0.0 is less than +0.0.
//! 5. `.abs` reduces magnitudes (the result is never negative); the destination registers
//!    still receive the values as loaded.

use crate::ir::{TmemRed, TmemRedOp, TmemRedType};

/// The canonical NaN of a reduction.
pub const CANONICAL_NAN: u32 = 0x7FFF_FFFF;

/// The reduction of `values` (raw 32-bit cells) by `red`; `values` is never empty for a valid
/// instruction (`.num` ≥ 2), and an empty list gives the identity's bits of nothing, 0.
pub fn reduce(red: TmemRed, values: &[u32]) -> u32 {
    let max = red.op == TmemRedOp::Max;
    match red.ty {
        TmemRedType::U32 => {
            let it = values.iter().copied();
            if max { it.max() } else { it.min() }.unwrap_or(0)
        }
        TmemRedType::S32 => {
            let it = values.iter().map(|&v| v as i32);
            (if max { it.max() } else { it.min() }).unwrap_or(0) as u32
        }
        TmemRedType::F32 { abs, nan } => {
            let mut best: Option<f32> = None;
            let mut saw_nan = false;
            for &v in values {
                let x = f32::from_bits(if abs { v & 0x7FFF_FFFF } else { v });
                if x.is_nan() {
                    saw_nan = true;
                    continue;
                }
                best = Some(match best {
                    None => x,
                    // total_cmp orders −0.0 below +0.0 and agrees with < elsewhere.
                    Some(b) if (x.total_cmp(&b).is_gt()) == max => x,
                    Some(b) => b,
                });
            }
            match best {
                Some(b) if !(nan && saw_nan) => b.to_bits(),
                _ if values.is_empty() => 0,
                _ => CANONICAL_NAN,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(op: TmemRedOp, abs: bool, nan: bool) -> TmemRed {
        TmemRed {
            op,
            ty: TmemRedType::F32 { abs, nan },
        }
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn floats_ignore_nan_unless_asked_and_order_signed_zeros() {
        let v = bits(&[1.5, f32::NAN, -3.0, 2.0]);
        assert_eq!(
            reduce(f(TmemRedOp::Max, false, false), &v),
            2.0f32.to_bits()
        );
        assert_eq!(
            reduce(f(TmemRedOp::Min, false, false), &v),
            (-3.0f32).to_bits()
        );
        assert_eq!(reduce(f(TmemRedOp::Max, false, true), &v), CANONICAL_NAN);
        assert_eq!(reduce(f(TmemRedOp::Max, true, false), &v), 3.0f32.to_bits());
        assert_eq!(reduce(f(TmemRedOp::Min, true, false), &v), 1.5f32.to_bits());
        let z = bits(&[0.0, -0.0]);
        assert_eq!(
            reduce(f(TmemRedOp::Min, false, false), &z),
            (-0.0f32).to_bits()
        );
        assert_eq!(
            reduce(f(TmemRedOp::Max, false, false), &z),
            0.0f32.to_bits()
        );
        assert_eq!(
            reduce(f(TmemRedOp::Min, true, false), &z),
            0.0f32.to_bits(),
            ".abs makes both +0"
        );
        let all_nan = bits(&[f32::NAN, -f32::NAN]);
        assert_eq!(
            reduce(f(TmemRedOp::Min, false, false), &all_nan),
            CANONICAL_NAN
        );
        let inf = bits(&[f32::NEG_INFINITY, 7.0]);
        assert_eq!(
            reduce(f(TmemRedOp::Max, true, false), &inf),
            f32::INFINITY.to_bits()
        );
    }

    #[test]
    fn integers_compare_by_their_type() {
        let v = [5u32, 0xFFFF_FFFE, 3];
        let r = |op, ty| reduce(TmemRed { op, ty }, &v);
        assert_eq!(r(TmemRedOp::Max, TmemRedType::U32), 0xFFFF_FFFE);
        assert_eq!(r(TmemRedOp::Min, TmemRedType::U32), 3);
        assert_eq!(r(TmemRedOp::Max, TmemRedType::S32), 5);
        assert_eq!(r(TmemRedOp::Min, TmemRedType::S32), 0xFFFF_FFFE);
    }
}
