//! Atomic read-modify-write instructions: `atom` (returns the old value) and `red` (does not).
//!
//! Lanes perform their operations one after another in lane order; each one is a single
//! indivisible update (a host atomic for global memory, so CTAs on other host threads see it
//! atomically too). The value function of each operation and type is chosen at decode time
//! ([`crate::exec::program::AtomInfo::apply`]).

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Window};
use crate::exec::program::{AddrBase, AddrSpace, AtomInfo, DInstr, Extra, Flow};
pub use crate::semantics::atomic::{value_fn, ValueFn};

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
            AddrSpace::Shared => (AddrSpace::Shared, crate::exec::address::shared_wrap(addr)),
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
                    crate::cluster::dsmem::rmw(c, off, size, lane, addr, |old| apply(old, b, cc))
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
            c.after_rmw(lane, true, off, size, new.is_some());
            Ok(old)
        }
        AddrSpace::Global => match c.global.find(off, u64::from(size)) {
            Some(r) => {
                c.before_global_rmw(lane, off, size);
                let mut wrote = false;
                let old = r.rmw(off, size, |old| {
                    let new = apply(old, b, cc);
                    wrote = new.is_some();
                    new
                });
                c.after_rmw(lane, false, off, size, wrote);
                c.after_global_rmw();
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
