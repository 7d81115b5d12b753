//! The rules of `wmma.load`, `wmma.store` and `wmma.mma` (PTX ISA "Warp Level Matrix Multiply-
//! Accumulate Instructions": wmma): which shapes go with which element types, and the PTX ISA
//! versions and targets each form needs. Operand shapes are checked with the other matrix
//! instructions in `mma.rs`; tests/ptxas/mma.tsv holds the ptxas verdicts.

use crate::ir::{MmaElem, SharedWindow, SpaceQual, StateSpace, WmmaFrag, WmmaMma, WmmaShape};
use crate::mma::validate::{is_int8, needs, Needs};

/// The requirements of a `wmma.mma` form.
///
/// # Errors
/// A message naming what is wrong.
pub fn wmma_form(m: &WmmaMma) -> Result<Needs, String> {
    use MmaElem::{Bf16, Tf32, F16, F32, F64, S32};
    use WmmaShape::*;
    let WmmaMma {
        alayout: _,
        blayout: _,
        shape,
        d,
        a,
        b,
        c,
        satfinite,
        rn,
    } = *m;
    let big = matches!(shape, M16n16k16 | M32n8k16 | M8n32k16);
    let n = if a == F16 && b == F16 && matches!(d, F16 | F32) && matches!(c, F16 | F32) && big {
        if shape == M16n16k16 {
            needs(6, 0, 70)
        } else {
            needs(6, 1, 70)
        }
    } else if (a == Bf16 && b == Bf16 && d == F32 && c == F32 && big)
        || (a == Tf32 && b == Tf32 && d == F32 && c == F32 && shape == M16n16k8)
        // ptxas 13.5 also takes .f64 wmma.mma at m16n16k16 and m16n16k8 (the ISA lists m8n8k4
        // only; wmma.load refuses .f64 fragments of those shapes).
        || ([d, a, b, c] == [F64; 4] && matches!(shape, M8n8k4 | M16n16k16 | M16n16k8))
    {
        needs(7, 0, 80)
    } else if is_int8(a) && a == b && d == S32 && c == S32 && big {
        needs(6, 3, 72)
    } else {
        return Err(format!(
            "wmma.mma has no form .{}.{}.{}.{}.{}",
            shape.name(),
            d.name(),
            a.name(),
            b.name(),
            c.name()
        ));
    };
    if rn && a != F64 {
        return Err(".rn applies to .f64 wmma.mma only".into());
    }
    // ptxas: "wmma.mma with floating point type with .satfinite is not supported starting
    // from PTX ISA version 6.5"; it is accepted for integers only.
    if satfinite && !a.is_integer() {
        return Err(".satfinite applies to integer wmma.mma only".into());
    }
    Ok(n)
}

/// The requirements of a `wmma.load`/`wmma.store` of element type `ty` for matrix `frag` of
/// `shape` (stores are of D, which has C's types).
///
/// # Errors
/// A message naming what is wrong.
pub fn wmma_move_form(frag: WmmaFrag, shape: WmmaShape, ty: MmaElem) -> Result<Needs, String> {
    use MmaElem::{Bf16, Tf32, F16, F32, F64, S32};
    use WmmaShape::*;
    let big = matches!(shape, M16n16k16 | M32n8k16 | M8n32k16);
    let n = match (frag, ty) {
        (_, F16) | (WmmaFrag::C, F32) if big => {
            if shape == M16n16k16 {
                needs(6, 0, 70)
            } else {
                needs(6, 1, 70)
            }
        }
        (WmmaFrag::A | WmmaFrag::B, Bf16) if big => needs(7, 0, 80),
        (WmmaFrag::A | WmmaFrag::B, e) if is_int8(e) && big => needs(6, 3, 72),
        (WmmaFrag::C, S32) if big => needs(6, 3, 72),
        (WmmaFrag::A | WmmaFrag::B, Tf32) | (WmmaFrag::C, F32) if shape == M16n16k8 => {
            needs(7, 0, 80)
        }
        (_, F64) if shape == M8n8k4 => needs(7, 0, 80),
        _ => {
            return Err(format!(
                "wmma has no .{} fragment of .{} for .{}",
                match frag {
                    WmmaFrag::A => "a",
                    WmmaFrag::B => "b",
                    WmmaFrag::C => "c/d",
                },
                ty.name(),
                shape.name()
            ))
        }
    };
    Ok(n)
}

/// Whether `wmma.load`/`wmma.store` may address `space`.
pub fn wmma_space_ok(space: SpaceQual) -> bool {
    matches!(
        space.space,
        StateSpace::Generic | StateSpace::Global | StateSpace::Shared(SharedWindow::Cta)
    )
}
