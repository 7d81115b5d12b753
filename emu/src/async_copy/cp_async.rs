//! Executing `cp.async` (non-bulk; PTX ISA "cp.async", "cp.async.wait_group",
//! "cp.async.mbarrier.arrive") and the per-CTA state it shares with `mbarrier` (executed in
//! the sibling module `mbarrier`: phases, pending arrivals, transaction counts).
//!
//! Each CTA keeps an [`AsyncState`](crate::async_copy::state::AsyncState): the copies its threads issued and not yet delivered, each
//! thread's committed groups, and its mbarrier objects (by shared-memory offset).
//!
//! Copies complete as late as the ISA allows: a copy reads its source when issued (a legal
//! completion order) but writes shared memory only when its thread waits for it
//! (`cp.async.wait_group` / `wait_all`, or `cp.async.mbarrier.arrive`), or when the thread
//! exits. A missing wait therefore shows up as stale data, and, in checked mode, as a fault:
//! any shared-memory access of bytes a pending copy targets names both the access and the
//! copy's line.
//!
//! An mbarrier object has an expected arrival count, a pending arrival count, a transaction
//! count and a phase number. A phase completes when its pending arrivals reach zero and its
//! transaction count is zero; then the phase number increments and the pending count is reset
//! to the expected count. `state` values returned by `arrive` hold the phase number (low 32
//! bits) and the pending count after the arrival (high 32 bits).
//!
//! Deliberate deviations:
//! 1. `try_wait` does not suspend: like `test_wait` it returns whether the phase completed
//!    (the ISA lets it return false on a time-out). A wait that finds no lane's phase complete
//!    ends the warp's turn ([`Flow::Yield`]), so a spin loop polls once per round of the
//!    scheduler, not for a whole share of instructions; the other warps (a producer, say)
//!    run meanwhile. A wait that has failed while no mbarrier
//!    of the CTA changed and no copy was delivered for [`DEADLOCK_STEPS`] warp instructions of
//!    the CTA is reported as a deadlock naming the barrier, its phase and what is missing.
//! 2. The `.sem`/`.scope` qualifiers add no ordering beyond the interpreter's sequentially
//!    consistent shared memory (the race detector, `--race`, follows them: docs/race.md).

pub(crate) use crate::async_copy::access_check::fault;
use crate::async_copy::decoded::AsyncInstr;
use crate::async_copy::pending::PendingCopy;
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Window};
use crate::exec::program::{AddrSpace, DAddr, DInstr, Extra, Flow};

pub use crate::async_copy::mbarrier::{
    arrive_async, complete_tx, mbarrier, op, pending_count, phase_done,
};

type R = Result<Flow, LaneFault>;

/// CTA warp instructions without any mbarrier change after which a failing wait is a deadlock.
pub const DEADLOCK_STEPS: u64 = 4_000_000;

pub(crate) fn async_of(i: &DInstr) -> Result<&AsyncInstr, LaneFault> {
    match &i.extra {
        Extra::Async(a) => Ok(a),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "an async instruction without its operands".into(),
        })),
    }
}

pub(crate) fn thread(c: &Ctx<'_>, lane: usize) -> u32 {
    c.ids.warp * 32 + lane as u32
}

/// The shared-memory offset of `a` for `lane`, checked for `size` bytes and alignment.
pub(crate) fn shared_offset(
    c: &Ctx<'_>,
    a: &DAddr,
    lane: usize,
    size: u64,
) -> Result<u64, LaneFault> {
    let addr = crate::exec::address::lane_addr(c, a, lane);
    let off = match a.space {
        AddrSpace::Shared => Some(addr),
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => Some(o),
            Window::Local(_) | Window::Const(_) | Window::Param(_) | Window::Global(_) => None,
        },
        AddrSpace::Global | AddrSpace::Local | AddrSpace::KernelParam | AddrSpace::Const => None,
    };
    let Some(off) = off else {
        return Err(fault(
            lane,
            addr,
            format!("0x{addr:x} is not a shared-memory address"),
        ));
    };
    // A `.shared::cluster` address of the CTA whose mbarriers the context holds.
    let off = match crate::cluster::dsmem::decode(off) {
        Some((r, o)) if r == c.cluster.view() => o,
        _ => off,
    };
    if !off.is_multiple_of(size) {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align: size as u32 },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    if !c.shared.contains(off, size) {
        return Err(fault(
            lane,
            addr,
            format!(
                "offset {off} is outside the CTA's {} bytes of shared memory",
                c.shared.data.len()
            ),
        ));
    }
    Ok(off)
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size | ignore-src}`:
/// `s[0]` = src-size (or the size), `s[1]` = ignore-src (or 0); `param` = size.
pub fn copy(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = async_of(i)?.clone();
    let Some(src) = a.src else {
        return Ok(Flow::Next);
    };
    let size = a.param;
    let src_size = c.fetch(&i.s[0]);
    let ignore = c.fetch(&i.s[1]);
    let mut err = None;
    crate::exec::ctx::for_lanes(c.mask, |l| {
        if err.is_some() {
            return;
        }
        let r = (|| {
            let dst = shared_offset(c, &a.addr, l, size)?;
            let s_addr = crate::exec::address::lane_addr(c, &src, l);
            let n = if ignore[l] & 1 != 0 {
                0
            } else {
                src_size[l].min(size)
            };
            if src_size[l] > size {
                return Err(fault(
                    l,
                    s_addr,
                    format!(
                        "cp.async src-size {} exceeds the copy size {size}",
                        src_size[l]
                    ),
                ));
            }
            let mut bytes = [0u8; 16];
            let mut read = None;
            if n > 0 {
                let g = match window_of(s_addr) {
                    Window::Global(g) => g,
                    Window::Shared(_) | Window::Local(_) | Window::Const(_) | Window::Param(_) => {
                        s_addr
                    }
                };
                if !g.is_multiple_of(size) {
                    return Err(LaneFault {
                        kind: FaultKind::Misaligned { align: size as u32 },
                        lane: Some(l as u32),
                        address: Some(s_addr),
                    });
                }
                // Only the src-size bytes are read.
                let region = c.global.find(g, n).ok_or_else(|| LaneFault {
                    kind: FaultKind::OutOfBounds {
                        space: "global".into(),
                        size: n as u32,
                        detail: c.global.explain_miss(g, n),
                    },
                    lane: Some(l as u32),
                    address: Some(s_addr),
                })?;
                read = Some((g, n as u32));
                if n == size {
                    // Whole and aligned (checked above): words of up to eight bytes.
                    let w = size.min(8);
                    for k in (0..n).step_by(w as usize) {
                        let v = region.load(g + k, w as u32).to_le_bytes();
                        bytes[k as usize..(k + w) as usize].copy_from_slice(&v[..w as usize]);
                    }
                } else {
                    for k in 0..n {
                        bytes[k as usize] = region.load(g + k, 1) as u8;
                    }
                }
            }
            Ok((
                PendingCopy {
                    thread: thread(c, l),
                    group: None,
                    dst,
                    bytes,
                    len: size as u8,
                    pc: c.pc,
                },
                read,
            ))
        })();
        match r {
            Ok((p, read)) => {
                c.after_copy_issued(p.thread as usize, p.pc, read, p.dst, u32::from(p.len));
                c.asyncs.copies.push(p)
            }
            Err(e) => err = Some(e),
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(Flow::Next),
    }
}

/// `cp.async.commit_group`: each thread's uncommitted copies become its newest group.
pub fn commit_group(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    crate::exec::ctx::for_lanes(c.mask, |l| {
        let t = thread(c, l);
        c.asyncs.copies.commit(t);
    });
    Ok(Flow::Next)
}

/// Writes `done` (taken from the pending copies, in issue order) to shared memory.
pub(crate) fn deliver(c: &mut Ctx<'_>, done: Vec<(u64, PendingCopy)>) {
    if !done.is_empty() {
        c.asyncs.last_change = c.clock.wrapping_add(c.cta_step_offset);
    }
    for (_, p) in done {
        let o = p.dst as usize;
        c.shared.data[o..o + usize::from(p.len)].copy_from_slice(&p.bytes[..usize::from(p.len)]);
    }
}

/// `cp.async.wait_group N` (`s[0]` = N): deliver each thread's groups but its N newest.
pub fn wait_group(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let n = c.fetch(&i.s[0])[0] as usize;
    let mut lanes = Vec::new();
    crate::exec::ctx::for_lanes(c.mask, |l| lanes.push(thread(c, l)));
    for t in lanes {
        let done = c.asyncs.copies.wait_group(t, n);
        c.after_copies_waited(t as usize, done.len());
        deliver(c, done);
    }
    Ok(Flow::Next)
}

/// `cp.async.wait_all`: deliver every copy of the executing threads.
pub fn wait_all(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    let mut lanes = Vec::new();
    crate::exec::ctx::for_lanes(c.mask, |l| lanes.push(thread(c, l)));
    for t in lanes {
        let done = c.asyncs.copies.take_all(t);
        c.after_copies_waited(t as usize, done.len());
        deliver(c, done);
    }
    Ok(Flow::Next)
}

/// Delivers every copy of the threads of warp `warp` in `lanes` (they exit), in issue order.
pub fn deliver_on_exit(c: &mut Ctx<'_>, lanes: u32) {
    let w = c.ids.warp;
    let mut done = Vec::new();
    for l in 0..32 {
        if lanes & (1 << l) != 0 {
            done.extend(c.asyncs.copies.take_all(w * 32 + l));
        }
    }
    done.sort_by_key(|(seq, _)| *seq);
    deliver(c, done);
}
