//! The element operations of `cp.reduce.async.bulk(.tensor)` (PTX ISA "cp.reduce.async.bulk":
//! `.add .min .max .inc .dec .and .or .xor` on integers, and `.add .min .max` on
//! `.f16/.bf16/.f32/.f64`).

use super::half::{op16, HalfKind, HalfMode, HalfOp};
use super::tma::Dtype;

/// A reduction operation of `cp.reduce.async.bulk(.tensor)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedOp {
    /// `.add`
    Add,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.inc` (wrapping at the memory value's bound)
    Inc,
    /// `.dec`
    Dec,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// How a reduction reads its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedKind {
    /// Unsigned integer of this many bytes (also `.b32/.b64`).
    U(u32),
    /// Signed integer of this many bytes.
    S(u32),
    /// binary16
    F16,
    /// bfloat16
    Bf16,
    /// binary32 (flush denormals to zero when `ftz`)
    F32,
    /// binary64
    F64,
}

fn sext(v: u64, bytes: u32) -> i64 {
    let sh = 64 - 8 * bytes;
    ((v << sh) as i64) >> sh
}

/// `mem op= src` for one element of `kind` (raw bits in, raw bits out); `.inc`/`.dec` treat
/// `src` as the bound, as `atom.inc/dec` do.
pub fn reduce(op: RedOp, kind: RedKind, mem: u64, src: u64) -> u64 {
    match kind {
        RedKind::U(b) | RedKind::S(b) => {
            let mask = if b >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * b)) - 1
            };
            let (m, s) = (mem & mask, src & mask);
            let signed = matches!(kind, RedKind::S(_));
            let lt = if signed {
                sext(m, b) < sext(s, b)
            } else {
                m < s
            };
            let r = match op {
                RedOp::Add => m.wrapping_add(s),
                RedOp::Min => {
                    if lt {
                        m
                    } else {
                        s
                    }
                }
                RedOp::Max => {
                    if lt {
                        s
                    } else {
                        m
                    }
                }
                RedOp::Inc => {
                    if m >= s {
                        0
                    } else {
                        m + 1
                    }
                }
                RedOp::Dec => {
                    if m == 0 || m > s {
                        s
                    } else {
                        m - 1
                    }
                }
                RedOp::And => m & s,
                RedOp::Or => m | s,
                RedOp::Xor => m ^ s,
            };
            r & mask
        }
        RedKind::F16 | RedKind::Bf16 => {
            let k = if kind == RedKind::F16 {
                HalfKind::F16
            } else {
                HalfKind::BF16
            };
            let hop = match op {
                RedOp::Min => HalfOp::Min,
                RedOp::Max => HalfOp::Max,
                _ => HalfOp::Add,
            };
            u64::from(op16(k, hop, mem as u16, src as u16, 0, HalfMode::default()))
        }
        RedKind::F32 => {
            let (a, b) = (f32::from_bits(mem as u32), f32::from_bits(src as u32));
            let r = match op {
                RedOp::Min => a.min(b),
                RedOp::Max => a.max(b),
                _ => a + b,
            };
            u64::from(r.to_bits())
        }
        RedKind::F64 => {
            let (a, b) = (f64::from_bits(mem), f64::from_bits(src));
            let r = match op {
                RedOp::Min => a.min(b),
                RedOp::Max => a.max(b),
                _ => a + b,
            };
            r.to_bits()
        }
    }
}

/// The reduction kind of a tensor map's element type.
pub fn red_kind(d: Dtype) -> RedKind {
    match d {
        Dtype::U8 => RedKind::U(1),
        Dtype::U16 => RedKind::U(2),
        Dtype::U32 => RedKind::U(4),
        Dtype::S32 => RedKind::S(4),
        Dtype::U64 => RedKind::U(8),
        Dtype::S64 => RedKind::S(8),
        Dtype::F16 => RedKind::F16,
        Dtype::Bf16 => RedKind::Bf16,
        Dtype::F32 | Dtype::F32Ftz | Dtype::Tf32 | Dtype::Tf32Ftz => RedKind::F32,
        Dtype::F64 => RedKind::F64,
    }
}
