//! Atomic read-modify-write instructions: `atom` (returns the old value) and `red` (does not).
//!
//! Lanes perform their operations one after another in lane order; each one is a single
//! indivisible update (a host atomic for global memory, so CTAs on other host threads see it
//! atomically too). The value function of each operation and type is chosen at decode time
//! ([`crate::exec::program::AtomInfo::apply`]).

use super::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Window};
use crate::exec::program::{AddrBase, AddrSpace, AtomInfo, DInstr, Extra, Flow};

type R = Result<Flow, LaneFault>;

fn info(i: &DInstr) -> Result<&AtomInfo, LaneFault> {
    match &i.extra {
        Extra::Atom(a) => Ok(a),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "atomic without decoded information".into(),
        })),
    }
}

/// Performs one lane's atomic update; returns the old value.
/// `--race`: hands an atomic's access to the race detector.
#[inline]
fn race_rmw(c: &mut Ctx<'_>, lane: usize, shared: bool, addr: u64, size: u32, wrote: bool) {
    let (t, pc) = (c.ids.warp as usize * 32 + lane, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        r.access(
            t,
            pc,
            shared,
            addr,
            size,
            crate::race::cta::Access::Rmw { wrote },
        );
    }
}

fn update(c: &mut Ctx<'_>, a: &AtomInfo, lane: usize, b: u64, cc: u64) -> Result<u64, LaneFault> {
    let base = match a.addr.base {
        AddrBase::Reg(slot) => c.vals[slot as usize * 32 + lane],
        AddrBase::Fixed(v) => v,
        AddrBase::Frame(off) => c.ids.frame_base[lane] + off,
    };
    let addr = base.wrapping_add(a.addr.offset as u64);
    let size = a.size;
    if addr % u64::from(size) != 0 {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align: size },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    let (space, off) =
        match a.addr.space {
            AddrSpace::Generic => match window_of(addr) {
                Window::Shared(o) => (AddrSpace::Shared, o),
                Window::Global(g) => (AddrSpace::Global, g),
                Window::Local(_) | Window::Const(_) | Window::Param(_) => return Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail:
                            "atomic operation on a generic address outside global and shared memory"
                                .into(),
                    },
                    lane: Some(lane as u32),
                    address: Some(addr),
                }),
            },
            AddrSpace::Shared => (AddrSpace::Shared, super::mem::shared_wrap(addr)),
            s => (s, addr),
        };
    let off = if space == AddrSpace::Shared {
        c.own_shared(off)
    } else {
        off
    };
    let apply = a.apply;
    match space {
        AddrSpace::Shared => {
            if !c.shared.contains(off, u64::from(size)) {
                if let Some(r) =
                    super::cluster::rmw(c, off, size, lane, addr, |old| apply(old, b, cc))
                {
                    return r;
                }
                return Err(LaneFault {
                    kind: FaultKind::OutOfBounds {
                        space: "shared".into(),
                        size,
                        detail: format!(
                            "offset {off} is outside the CTA's {} bytes of shared memory",
                            c.shared.data.len()
                        ),
                    },
                    lane: Some(lane as u32),
                    address: Some(addr),
                });
            }
            let old = c.shared.load(off, size);
            let new = apply(old, b, cc);
            if let Some(new) = new {
                c.shared.store(off, size, new);
            }
            race_rmw(c, lane, true, off, size, new.is_some());
            Ok(old)
        }
        AddrSpace::Global => match c.global.find(off, u64::from(size)) {
            Some(r) => {
                if let Some(t) = c.nc {
                    t.write(c.nc_access(lane, off), size);
                }
                let mut wrote = false;
                let old = r.rmw(off, size, |old| {
                    let new = apply(old, b, cc);
                    wrote = new.is_some();
                    new
                });
                race_rmw(c, lane, false, off, size, wrote);
                if let Some(l1) = c.l1 {
                    // Atomics act at L2; the SM's lines may now be stale for this thread.
                    l1.invalidate(c.cta_linear());
                }
                Ok(old)
            }
            None => Err(LaneFault {
                kind: FaultKind::OutOfBounds {
                    space: "global".into(),
                    size,
                    detail: c.global.explain_miss(off, u64::from(size)),
                },
                lane: Some(lane as u32),
                address: Some(addr),
            }),
        },
        AddrSpace::Local | AddrSpace::KernelParam | AddrSpace::Const | AddrSpace::Generic => {
            Err(LaneFault {
                kind: FaultKind::Undefined {
                    detail: "atomic operation outside global and shared memory".into(),
                },
                lane: Some(lane as u32),
                address: Some(addr),
            })
        }
    }
}

/// `atom d, [a], b{, c}`: `s = [b, c]`.
pub fn atom(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = info(i)?;
    let b = c.fetch(&i.s[0]);
    let cc = c.fetch(&i.s[1]);
    let mut out = [0u64; 32];
    let mut m = c.mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        out[l] = update(c, a, l, b[l], cc[l])?;
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `red [a], b`: `s = [b]`.
pub fn red(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = info(i)?;
    let b = c.fetch(&i.s[0]);
    let mut m = c.mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        update(c, a, l, b[l], 0)?;
    }
    Ok(Flow::Next)
}

/// Flushes an f32 subnormal to a zero of the same sign.
fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

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

use crate::ir::{AtomOp, Type, TypeClass};

/// An atomic's value function: `new = f(old, b, c)`, `None` to leave memory unchanged.
pub type ValueFn = fn(u64, u64, u64) -> Option<u64>;

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
