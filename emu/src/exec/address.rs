//! Address resolution, the memory service every instruction family uses: a lane's address
//! for a decoded address (`lane_addr`), and its resolution in a state space or through the
//! generic windows (`resolve`) to a location in global, shared (the CTA's own or, through
//! `.shared::cluster`, a peer's), local, parameter or constant memory, checked for bounds,
//! alignment and writability; loads and stores at a resolved location.
//!
//! A `.shared` state-space address is 32 bits wide: `base + offset` is taken modulo 2³², as
//! the hardware computes it (nvcc emits `[%r+68]` with `%r` briefly negative, e.g. in
//! Rodinia's needleman-wunsch). Generic addresses are 64-bit and do not wrap. A shared access
//! while asynchronous operations are pending is checked by the access hook
//! ([`crate::exec::hooks::access`]).

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Region, Window};
use crate::exec::program::{AddrBase, AddrSpace, DAddr};

/// A resolved memory location.
pub(crate) enum Loc<'g> {
    Global(&'g Region, u64),
    Shared(u64),
    /// Bytes of another CTA of the cluster: its rank and offset.
    Peer(u32, u64),
    Local(u64),
    Param(u64),
    Const(u64),
}

pub(crate) fn space_name(s: AddrSpace) -> &'static str {
    match s {
        AddrSpace::Generic => "generic",
        AddrSpace::Global => "global",
        AddrSpace::Shared => "shared",
        AddrSpace::Local => "local",
        AddrSpace::KernelParam => "param",
        AddrSpace::Const => "const",
    }
}

pub(crate) fn oob(space: &str, size: u32, detail: String, lane: usize, addr: u64) -> LaneFault {
    LaneFault {
        kind: FaultKind::OutOfBounds {
            space: space.to_string(),
            size,
            detail,
        },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

/// The address of a lane for a decoded address (before the element offset).
#[inline(always)]
pub(crate) fn lane_addr(c: &Ctx<'_>, a: &DAddr, lane: usize) -> u64 {
    let base = match a.base {
        AddrBase::Reg(slot) => c.vals[slot as usize * 32 + lane],
        AddrBase::Fixed(v) => v,
        AddrBase::Frame(off) => c.ids.frame_base[lane] + off,
    };
    base.wrapping_add(a.offset as u64)
}

/// Resolves `addr` in `space` for `size` bytes for one lane, checking bounds and alignment.
#[inline]
pub(crate) fn resolve<'g>(
    c: &Ctx<'g>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    align: u32,
    lane: usize,
    write: bool,
) -> Result<Loc<'g>, LaneFault> {
    let addr = match space {
        AddrSpace::Shared => shared_wrap(addr),
        AddrSpace::Generic
        | AddrSpace::Global
        | AddrSpace::Local
        | AddrSpace::KernelParam
        | AddrSpace::Const => addr,
    };
    if align > 1 && !addr.is_multiple_of(u64::from(align)) {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    let (space, off) = match space {
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => (AddrSpace::Shared, o),
            Window::Local(o) => (AddrSpace::Local, o),
            Window::Const(o) => (AddrSpace::Const, o),
            Window::Param(o) => (AddrSpace::KernelParam, o),
            Window::Global(g) => (AddrSpace::Global, g),
        },
        s => (s, addr),
    };
    let off = if space == AddrSpace::Shared {
        c.own_shared(off)
    } else {
        off
    };
    let sz = u64::from(size);
    match space {
        AddrSpace::Global | AddrSpace::Generic => match c.global.find(off, sz) {
            Some(r) => Ok(Loc::Global(r, off)),
            None => Err(oob(
                "global",
                size,
                c.global.explain_miss(off, sz),
                lane,
                addr,
            )),
        },
        AddrSpace::Shared => {
            if c.asyncs.has_pending() {
                if let Some(f) = c.before_shared_access(lane, addr, off, sz, write) {
                    return Err(f);
                }
            }
            if c.shared.contains(off, sz) {
                Ok(Loc::Shared(off))
            } else if let Some(r) = crate::cluster::dsmem::locate(c, off, sz) {
                match r {
                    Ok((rank, o)) if rank == c.cluster.rank() => Ok(Loc::Shared(o)),
                    Ok((rank, o)) => Ok(Loc::Peer(rank, o)),
                    Err(detail) => Err(oob("shared::cluster", size, detail, lane, addr)),
                }
            } else {
                Err(oob(
                    "shared",
                    size,
                    format!(
                        "offset {off} is outside the CTA's {} bytes of shared memory",
                        c.shared.data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
        AddrSpace::Local => {
            if c.local[lane].contains(off, sz) {
                Ok(Loc::Local(off))
            } else {
                Err(oob(
                    "local",
                    size,
                    format!(
                        "offset {off} is outside the thread's {} bytes of local memory",
                        c.local[lane].data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
        AddrSpace::KernelParam => {
            if write {
                return Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail: "store to kernel parameter memory, which is read-only".into(),
                    },
                    lane: Some(lane as u32),
                    address: Some(addr),
                });
            }
            if c.params.contains(off, sz) {
                Ok(Loc::Param(off))
            } else {
                Err(oob(
                    "param",
                    size,
                    format!(
                        "offset {off} is outside the {} bytes of kernel parameters",
                        c.params.data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
        AddrSpace::Const => {
            if write {
                return Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail: "store to constant memory".into(),
                    },
                    lane: Some(lane as u32),
                    address: Some(addr),
                });
            }
            if c.consts.contains(off, sz) {
                Ok(Loc::Const(off))
            } else {
                Err(oob(
                    "const",
                    size,
                    format!(
                        "offset {off} is outside the {} bytes of constant memory",
                        c.consts.data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
    }
}

#[inline]
pub(crate) fn load_at(c: &Ctx<'_>, loc: &Loc<'_>, size: u32, lane: usize) -> u64 {
    match *loc {
        Loc::Global(r, a) => r.load(a, size),
        Loc::Shared(o) => c.shared.load(o, size),
        Loc::Peer(r, o) => crate::cluster::dsmem::peer_load(c, r, o, size),
        Loc::Local(o) => c.local[lane].load(o, size),
        Loc::Param(o) => c.params.load(o, size),
        Loc::Const(o) => c.consts.load(o, size),
    }
}

#[inline]
pub(crate) fn store_at(c: &mut Ctx<'_>, loc: &Loc<'_>, size: u32, lane: usize, v: u64) {
    match *loc {
        Loc::Global(r, a) => r.store(a, size, v),
        Loc::Shared(o) => c.shared.store(o, size, v),
        Loc::Peer(r, o) => crate::cluster::dsmem::peer_store(c, r, o, size, v),
        Loc::Local(o) => c.local[lane].store(o, size, v),
        Loc::Param(_) | Loc::Const(_) => {}
    }
}

/// Stores the 32-bit `v` at `a` for `lane`, an address that must lie in the CTA's shared
/// memory (a `.shared::cta` address, or a generic one in the shared window); returns it.
///
/// # Errors
/// An address outside the CTA's shared memory, or not 4-byte aligned.
pub fn store_shared_u32(c: &mut Ctx<'_>, a: &DAddr, lane: usize, v: u32) -> Result<u64, LaneFault> {
    let addr = lane_addr(c, a, lane);
    store_shared(c, a.space, addr, 4, 4, lane, u64::from(v))?;
    Ok(addr)
}

/// The offset in the CTA's shared memory of `addr`, a `.shared::cta` address or a generic one
/// in the shared window.
pub(crate) fn shared_offset(space: AddrSpace, addr: u64, lane: usize) -> Result<u64, LaneFault> {
    let offset = match space {
        AddrSpace::Shared => Some(addr),
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => Some(o),
            Window::Local(_) | Window::Const(_) | Window::Param(_) | Window::Global(_) => None,
        },
        AddrSpace::Global | AddrSpace::Local | AddrSpace::KernelParam | AddrSpace::Const => None,
    };
    let Some(off) = offset else {
        return Err(LaneFault {
            kind: FaultKind::Undefined {
                detail: format!("the address 0x{addr:x} is not in the CTA's shared memory"),
            },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    };
    Ok(off)
}

/// Loads `size` bytes at `addr` in `space` (any state space, or generic) for `lane`, aligned
/// to `size`.
///
/// # Errors
/// An address outside every allocation of the space, or misaligned.
pub fn load_elem(
    c: &Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    lane: usize,
) -> Result<u64, LaneFault> {
    let loc = resolve(c, space, addr, size, size, lane, false)?;
    Ok(load_at(c, &loc, size, lane))
}

/// Stores `size` bytes of `v` at `addr` in `space` (any writable state space, or generic) for
/// `lane`, aligned to `size`.
///
/// # Errors
/// An address outside every allocation of the space, misaligned, or read-only.
pub fn store_elem(
    c: &mut Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    lane: usize,
    v: u64,
) -> Result<(), LaneFault> {
    let loc = resolve(c, space, addr, size, size, lane, true)?;
    store_at(c, &loc, size, lane, v);
    Ok(())
}

/// Loads `size` bytes (aligned to `align`) at `addr` in the CTA's shared memory (`space`:
/// `.shared` or generic) for `lane`.
///
/// # Errors
/// An address outside the CTA's shared memory, or misaligned.
pub fn load_shared(
    c: &Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    align: u32,
    lane: usize,
) -> Result<u64, LaneFault> {
    let off = shared_offset(space, addr, lane)?;
    let loc = resolve(c, AddrSpace::Shared, off, size, align, lane, false)?;
    Ok(load_at(c, &loc, size, lane))
}

/// Stores `size` bytes of `v` (aligned to `align`) at `addr` in the CTA's shared memory
/// (`space`: `.shared` or generic) for `lane`.
///
/// # Errors
/// An address outside the CTA's shared memory, or misaligned.
pub fn store_shared(
    c: &mut Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    align: u32,
    lane: usize,
    v: u64,
) -> Result<(), LaneFault> {
    let off = shared_offset(space, addr, lane)?;
    let loc = resolve(c, AddrSpace::Shared, off, size, align, lane, true)?;
    store_at(c, &loc, size, lane, v);
    Ok(())
}

pub(crate) fn shift<'g>(loc: &Loc<'g>, by: u64) -> Loc<'g> {
    match *loc {
        Loc::Global(r, a) => Loc::Global(r, a + by),
        Loc::Shared(o) => Loc::Shared(o + by),
        Loc::Peer(r, o) => Loc::Peer(r, o + by),
        Loc::Local(o) => Loc::Local(o + by),
        Loc::Param(o) => Loc::Param(o + by),
        Loc::Const(o) => Loc::Const(o + by),
    }
}

#[doc(hidden)]
pub fn space_label(s: AddrSpace) -> &'static str {
    space_name(s)
}

/// A `.shared` state-space address taken modulo 2³² (shared addresses are 32-bit).
#[inline(always)]
pub(crate) fn shared_wrap(addr: u64) -> u64 {
    addr & 0xffff_ffff
}
