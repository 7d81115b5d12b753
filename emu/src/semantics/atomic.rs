//! The value functions of `atom` and `red`: for each operation and type, the new value of
//! the location from its old value and the operands (PTX ISA "Parallel Synchronization and
//! Communication Instructions: atom"). One copy, used by the interpreter (chosen at decode
//! time, `exec::step::atom`) and by the litmus event mode (`crate::event`), on raw bits of the
//! type's width.
//!
//! Deliberate deviations: none; `atom.add.f32` flushes subnormal inputs and results, as the
//! hardware does.

use super::float::ftz32;
use crate::ir::{AtomOp, Type, TypeClass};

/// An atomic's value function: `new = f(old, b, c)`, `None` to leave memory unchanged.
pub type ValueFn = fn(u64, u64, u64) -> Option<u64>;

/// The value function of an atomic operation on a type: `new = f(old, b, c)`, `None` to
/// leave memory unchanged. `None` overall when the combination does not exist.
pub fn value_fn(op: AtomOp, ty: Type) -> Option<ValueFn> {
    use crate::semantics::half::{op16, op16x2, HalfKind, HalfMode, HalfOp};
    use AtomOp as A;
    let half: Option<ValueFn> = match (op, ty) {
        (A::Add, Type::F16) => Some(|o, b, _| {
            Some(u64::from(op16(
                HalfKind::F16,
                HalfOp::Add,
                o as u16,
                b as u16,
                0,
                HalfMode::default(),
            )))
        }),
        (A::Add, Type::BF16) => Some(|o, b, _| {
            Some(u64::from(op16(
                HalfKind::BF16,
                HalfOp::Add,
                o as u16,
                b as u16,
                0,
                HalfMode::default(),
            )))
        }),
        (A::Add, Type::F16x2) => Some(|o, b, _| {
            Some(u64::from(op16x2(
                HalfKind::F16,
                HalfOp::Add,
                o as u32,
                b as u32,
                0,
                HalfMode::default(),
            )))
        }),
        (A::Add, Type::BF16x2) => Some(|o, b, _| {
            Some(u64::from(op16x2(
                HalfKind::BF16,
                HalfOp::Add,
                o as u32,
                b as u32,
                0,
                HalfMode::default(),
            )))
        }),
        _ => None,
    };
    if half.is_some() {
        return half;
    }
    let bits = ty.bits();
    let signed = ty.is_signed();
    let f: ValueFn = match (op, ty.class(), bits, signed) {
        (A::Exch, _, 32 | 64, _) => |_, b, _| Some(b),
        (A::Cas, _, 32, _) => |o, b, c| (o as u32 == b as u32).then_some(c),
        (A::Cas, _, 64, _) => |o, b, c| (o == b).then_some(c),
        (A::Cas, _, 16, _) => |o, b, c| (o as u16 == b as u16).then_some(c),
        (A::And, TypeClass::Bits, 32, _) => |o, b, _| Some((o & b) & 0xffff_ffff),
        (A::And, TypeClass::Bits, 64, _) => |o, b, _| Some(o & b),
        (A::Or, TypeClass::Bits, 32, _) => |o, b, _| Some((o | b) & 0xffff_ffff),
        (A::Or, TypeClass::Bits, 64, _) => |o, b, _| Some(o | b),
        (A::Xor, TypeClass::Bits, 32, _) => |o, b, _| Some((o ^ b) & 0xffff_ffff),
        (A::Xor, TypeClass::Bits, 64, _) => |o, b, _| Some(o ^ b),
        (A::Add, TypeClass::Unsigned | TypeClass::Signed, 32, _) => {
            |o, b, _| Some(u64::from((o as u32).wrapping_add(b as u32)))
        }
        (A::Add, TypeClass::Unsigned | TypeClass::Signed, 64, _) => {
            |o, b, _| Some(o.wrapping_add(b))
        }
        (A::Add, TypeClass::Float, 32, _) => |o, b, _| {
            let r = ftz32(ftz32(f32::from_bits(o as u32)) + ftz32(f32::from_bits(b as u32)));
            Some(u64::from(ftz32(r).to_bits()))
        },
        (A::Add, TypeClass::Float, 64, _) => {
            |o, b, _| Some((f64::from_bits(o) + f64::from_bits(b)).to_bits())
        }
        (A::Inc, TypeClass::Unsigned, 32, _) => |o, b, _| {
            let (o, b) = (o as u32, b as u32);
            Some(u64::from(if o >= b { 0 } else { o + 1 }))
        },
        (A::Dec, TypeClass::Unsigned, 32, _) => |o, b, _| {
            let (o, b) = (o as u32, b as u32);
            Some(u64::from(if o == 0 || o > b { b } else { o - 1 }))
        },
        (A::Min, TypeClass::Unsigned, 32, _) => |o, b, _| Some(u64::from((o as u32).min(b as u32))),
        (A::Max, TypeClass::Unsigned, 32, _) => |o, b, _| Some(u64::from((o as u32).max(b as u32))),
        (A::Min, TypeClass::Signed, 32, _) => {
            |o, b, _| Some(u64::from((o as u32 as i32).min(b as u32 as i32) as u32))
        }
        (A::Max, TypeClass::Signed, 32, _) => {
            |o, b, _| Some(u64::from((o as u32 as i32).max(b as u32 as i32) as u32))
        }
        (A::Min, TypeClass::Unsigned, 64, _) => |o, b, _| Some(o.min(b)),
        (A::Max, TypeClass::Unsigned, 64, _) => |o, b, _| Some(o.max(b)),
        (A::Min, TypeClass::Signed, 64, _) => |o, b, _| Some((o as i64).min(b as i64) as u64),
        (A::Max, TypeClass::Signed, 64, _) => |o, b, _| Some((o as i64).max(b as i64) as u64),
        _ => return None,
    };
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_functions() {
        let inc = value_fn(AtomOp::Inc, Type::U32).unwrap();
        assert_eq!(inc(5, 5, 0), Some(0));
        assert_eq!(inc(4, 5, 0), Some(5));
        let dec = value_fn(AtomOp::Dec, Type::U32).unwrap();
        assert_eq!(dec(0, 7, 0), Some(7));
        assert_eq!(dec(9, 7, 0), Some(7));
        assert_eq!(dec(3, 7, 0), Some(2));
        let cas = value_fn(AtomOp::Cas, Type::B32).unwrap();
        assert_eq!(cas(1, 1, 9), Some(9));
        assert_eq!(cas(2, 1, 9), None);
        let mins = value_fn(AtomOp::Min, Type::S32).unwrap();
        assert_eq!(mins(0xffff_ffff, 1, 0), Some(0xffff_ffff));
        let addf = value_fn(AtomOp::Add, Type::F32).unwrap();
        assert_eq!(
            addf(1.5f32.to_bits().into(), 2.0f32.to_bits().into(), 0),
            Some(3.5f32.to_bits().into())
        );
        // atom.add.f32 flushes subnormal inputs and results.
        assert_eq!(addf(1u64, 0, 0), Some(0));
        assert!(value_fn(AtomOp::And, Type::F32).is_none());
        let addh = value_fn(AtomOp::Add, Type::F16).unwrap();
        assert_eq!(addh(0x3C00, 0x4000, 0), Some(0x4200), "1 + 2 = 3 in f16");
        let addh2 = value_fn(AtomOp::Add, Type::F16x2).unwrap();
        assert_eq!(addh2(0x3C00_3C00, 0x3C00_4000, 0), Some(0x4000_4200));
    }
}
