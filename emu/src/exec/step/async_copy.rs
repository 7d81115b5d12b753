//! Executing `cp.async` (non-bulk) and `mbarrier` (PTX ISA "cp.async", "cp.async.wait_group",
//! "cp.async.mbarrier.arrive", "mbarrier": phases, pending arrivals, transaction counts).
//!
//! Each CTA keeps an [`AsyncState`]: the copies its threads issued and not yet delivered, each
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
//!    (the ISA lets it return false on a time-out). A wait that has failed while no mbarrier
//!    of the CTA changed and no copy was delivered for [`DEADLOCK_STEPS`] warp instructions of
//!    the CTA is reported as a deadlock naming the barrier, its phase and what is missing.
//! 2. The `.sem`/`.scope` qualifiers add no ordering beyond the interpreter's sequentially
//!    consistent shared memory (the race detector, `--race`, follows them: docs/race.md).

use std::collections::HashMap;

use super::async_pending::{PendingCopies, PendingCopy};
use super::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Window};
use crate::exec::program::{AddrSpace, DAddr, DInstr, Extra, Flow};
use crate::race::cta::MbarEvent;

type R = Result<Flow, LaneFault>;

/// CTA warp instructions without any mbarrier change after which a failing wait is a deadlock.
pub const DEADLOCK_STEPS: u64 = 4_000_000;

/// One mbarrier object.
#[derive(Clone, Debug)]
struct MbarrierObj {
    expected: u32,
    pending: u32,
    tx: i64,
    phase: u32,
}

/// What the CTA knows about an mbarrier offset.
#[derive(Clone, Debug)]
enum Slot {
    Valid(MbarrierObj),
    Invalidated,
}

/// The asynchronous-copy and mbarrier state of one CTA.
#[derive(Clone, Debug, Default)]
pub struct AsyncState {
    copies: PendingCopies,
    mbarriers: HashMap<u64, Slot>,
    /// The CTA step of the last mbarrier change or copy delivery.
    last_change: u64,
    /// Bulk async-groups and the proxy checker's shadow state.
    pub tma: super::tma_proxy::ProxyState,
}

impl AsyncState {
    /// Whether any copy is still pending (the shared-memory fast paths check this).
    #[inline]
    pub fn has_pending(&self) -> bool {
        !self.copies.is_empty() || self.tma.watch
    }

    /// Whether a pending copy may write bytes of `[off, off + size)` (a cheap test; `false`
    /// is certain).
    #[inline]
    pub fn may_touch(&self, off: u64, size: u64) -> bool {
        self.copies.may_touch(off, size)
    }

    /// The pending copy that overlaps `[off, off + size)`, as (line pc, thread), if any.
    pub fn overlapping(&self, off: u64, size: u64) -> Option<(u32, u32)> {
        self.copies.overlapping(off, size)
    }
}

/// The extra data of a decoded async instruction.
#[derive(Clone, Debug)]
pub struct AsyncInstr {
    /// The shared-memory address (copy destination, or the mbarrier).
    pub addr: DAddr,
    /// The global source of a copy.
    pub src: Option<DAddr>,
    /// Operation-specific parameter (copy size, flags).
    pub param: u64,
}

fn async_of(i: &DInstr) -> Result<&AsyncInstr, LaneFault> {
    match &i.extra {
        Extra::Async(a) => Ok(a),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "an async instruction without its operands".into(),
        })),
    }
}

fn thread(c: &Ctx<'_>, lane: usize) -> u32 {
    c.ids.warp * 32 + lane as u32
}

fn fault(lane: usize, addr: u64, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

/// The shared-memory offset of `a` for `lane`, checked for `size` bytes and alignment.
fn shared_offset(c: &Ctx<'_>, a: &DAddr, lane: usize, size: u64) -> Result<u64, LaneFault> {
    let addr = super::mem::lane_addr(c, a, lane);
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
    let off = match crate::exec::cluster::decode(off) {
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

fn line_of(c: &Ctx<'_>, pc: u32) -> u32 {
    c.prog.info.get(pc as usize).map_or(0, |i| i.span.line)
}

/// The fault for a shared-memory access of bytes a pending copy writes.
pub fn pending_fault(
    c: &Ctx<'_>,
    lane: usize,
    addr: u64,
    off: u64,
    size: u64,
    write: bool,
) -> Option<LaneFault> {
    if c.asyncs.tma.watch {
        if let Some(f) = super::tma_proxy::shared_access(c, lane, addr, off, size, write) {
            return Some(f);
        }
    }
    let (pc, t) = c.asyncs.overlapping(off, size)?;
    Some(fault(
        lane,
        addr,
        format!(
            "shared-memory {} of offset {off}, which the cp.async at line {} (thread {t}) still writes: no cp.async.wait_group/wait_all (and barrier) since",
            if write { "write" } else { "read" },
            line_of(c, pc)
        ),
    ))
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
    super::for_lanes(c.mask, |l| {
        if err.is_some() {
            return;
        }
        let r = (|| {
            let dst = shared_offset(c, &a.addr, l, size)?;
            let s_addr = super::mem::lane_addr(c, &src, l);
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
                if let Some(race) = c.race.as_deref_mut() {
                    race.cp_async(p.thread as usize, p.pc, read, p.dst, u32::from(p.len));
                }
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
    super::for_lanes(c.mask, |l| {
        let t = thread(c, l);
        c.asyncs.copies.commit(t);
    });
    Ok(Flow::Next)
}

/// Writes `done` (taken from the pending copies, in issue order) to shared memory.
fn deliver(c: &mut Ctx<'_>, done: Vec<(u64, PendingCopy)>) {
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
    super::for_lanes(c.mask, |l| lanes.push(thread(c, l)));
    for t in lanes {
        let done = c.asyncs.copies.wait_group(t, n);
        if let Some(r) = c.race.as_deref_mut() {
            r.cp_async_waited(t as usize, done.len());
        }
        deliver(c, done);
    }
    Ok(Flow::Next)
}

/// `cp.async.wait_all`: deliver every copy of the executing threads.
pub fn wait_all(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    let mut lanes = Vec::new();
    super::for_lanes(c.mask, |l| lanes.push(thread(c, l)));
    for t in lanes {
        let done = c.asyncs.copies.take_all(t);
        if let Some(r) = c.race.as_deref_mut() {
            r.cp_async_waited(t as usize, done.len());
        }
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

fn obj(
    st: &mut AsyncState,
    off: u64,
    lane: usize,
    addr: u64,
) -> Result<&mut MbarrierObj, LaneFault> {
    match st.mbarriers.get_mut(&off) {
        Some(Slot::Valid(o)) => Ok(o),
        Some(Slot::Invalidated) => Err(fault(
            lane,
            addr,
            format!("the mbarrier at shared offset {off} is used after mbarrier.inval"),
        )),
        None => Err(fault(
            lane,
            addr,
            format!("the mbarrier at shared offset {off} is used before mbarrier.init"),
        )),
    }
}

/// Completes the current phase if nothing is pending.
fn settle(o: &mut MbarrierObj) {
    if o.pending == 0 && o.tx == 0 {
        o.phase = o.phase.wrapping_add(1);
        o.pending = o.expected;
    }
}

/// [`settle`], telling the race detector (when `ev` is given) that the phase completed.
fn settled(o: &mut MbarrierObj, off: u64, ev: Option<&mut Vec<MbarEvent>>) {
    let before = o.phase;
    settle(o);
    if let (Some(ev), true) = (ev, before != o.phase) {
        ev.push(MbarEvent::PhaseDone(off, before));
    }
}

/// Param bits of `mbarrier` instructions.
pub mod op {
    /// `init`
    pub const INIT: u64 = 0;
    /// `inval`
    pub const INVAL: u64 = 1;
    /// `arrive` (flags below)
    pub const ARRIVE: u64 = 2;
    /// `expect_tx`
    pub const EXPECT_TX: u64 = 3;
    /// `complete_tx`
    pub const COMPLETE_TX: u64 = 4;
    /// `test_wait` / `try_wait` (flags below)
    pub const WAIT: u64 = 5;
    /// `cp.async.mbarrier.arrive`
    pub const CP_ARRIVE: u64 = 6;
    /// flag: `arrive_drop`
    pub const DROP: u64 = 1 << 8;
    /// flag: `.expect_tx`
    pub const TX: u64 = 1 << 9;
    /// flag: `.noComplete`
    pub const NO_COMPLETE: u64 = 1 << 10;
    /// flag: `.parity`
    pub const PARITY: u64 = 1 << 11;
    /// flag: `try_wait` (else `test_wait`)
    pub const TRY: u64 = 1 << 12;
    /// flag: `.noinc`
    pub const NOINC: u64 = 1 << 13;
}

/// An `mbarrier` instruction (or `cp.async.mbarrier.arrive`): `addr` is the object; `s[0]` the
/// count / txCount / state / parity operand; `d[0]` the state or wait result.
pub fn mbarrier(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = async_of(i)?.clone();
    let at = |c: &Ctx<'_>, l: usize| super::mem::lane_addr(c, &a.addr, l);
    if let Some(r) = super::cluster::per_peer(c, i, at, mbarrier_here) {
        return r;
    }
    mbarrier_here(c, i)
}

/// Marks `st` as changed by another CTA's instruction, at a time its own CTA's step count
/// cannot express: its next failing wait restarts the deadlock count.
pub fn mark_peer_change(st: &mut AsyncState) {
    st.last_change = PEER_CHANGE;
}

/// [`AsyncState::last_change`] after a change made by another CTA of the cluster.
const PEER_CHANGE: u64 = u64::MAX;

/// [`mbarrier`] for lanes whose mbarrier lies in the shared memory the context holds.
fn mbarrier_here(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = async_of(i)?.clone();
    let p = a.param;
    let kind = p & 0xff;
    let arg = c.fetch(&i.s[0]);
    let step = c.clock.wrapping_add(c.cta_step_offset);
    let mut out = [0u64; 32];
    let mut pmask = 0u32;
    let mut err = None;
    let mut lanes = Vec::new();
    super::for_lanes(c.mask, |l| lanes.push(l));
    // `--race`: what each lane did to the mbarrier, in order.
    let mut ev: Vec<MbarEvent> = Vec::new();
    let race = c.race.is_some();
    for l in lanes {
        let t = thread(c, l) as usize;
        let addr = super::mem::lane_addr(c, &a.addr, l);
        let off = match shared_offset(c, &a.addr, l, 8) {
            Ok(o) => o,
            Err(e) => {
                err = Some(e);
                break;
            }
        };
        if race {
            ev.push(MbarEvent::Touch(t, off, kind != op::WAIT));
        }
        if kind == op::CP_ARRIVE {
            let done = c.asyncs.copies.take_all(t as u32);
            if race {
                ev.push(MbarEvent::CopiesArrive(t, off, done.len()));
            }
            deliver(c, done);
        }
        let st = &mut *c.asyncs;
        if kind == op::INIT {
            let n = arg[l] as u32;
            st.mbarriers.insert(
                off,
                Slot::Valid(MbarrierObj {
                    expected: n,
                    pending: n,
                    tx: 0,
                    phase: 0,
                }),
            );
            st.last_change = step;
            if race {
                ev.push(MbarEvent::Reset(off));
            }
            continue;
        }
        if kind == op::INVAL {
            if let Err(e) = obj(st, off, l, addr) {
                err = Some(e);
                break;
            }
            st.mbarriers.insert(off, Slot::Invalidated);
            st.last_change = step;
            if race {
                ev.push(MbarEvent::Reset(off));
            }
            continue;
        }
        if st.last_change == PEER_CHANGE {
            st.last_change = step;
        }
        let last_change = st.last_change;
        let o = match obj(st, off, l, addr) {
            Ok(o) => o,
            Err(e) => {
                err = Some(e);
                break;
            }
        };
        let r: Result<(), String> = match kind {
            op::ARRIVE | op::CP_ARRIVE => {
                let (count, tx) = if kind == op::CP_ARRIVE {
                    if p & op::NOINC == 0 {
                        o.pending += 1;
                    }
                    (1, 0)
                } else if p & op::TX != 0 {
                    (1, arg[l] as i64)
                } else if i.s[0] == crate::exec::program::Src::None {
                    (1, 0)
                } else {
                    (arg[l] as u32, 0)
                };
                out[l] = u64::from(o.phase);
                o.tx += tx;
                if count > o.pending {
                    Err(format!(
                        "an arrival count of {count} exceeds the {} arrivals pending in phase {} of the mbarrier at shared offset {off}",
                        o.pending, o.phase
                    ))
                } else {
                    o.pending -= count;
                    if p & op::DROP != 0 {
                        o.expected = o.expected.saturating_sub(count);
                    }
                    out[l] |= u64::from(o.pending) << 32;
                    if p & op::NO_COMPLETE != 0 && o.pending == 0 && o.tx == 0 {
                        Err(format!(
                            "mbarrier.arrive.noComplete completes phase {} of the mbarrier at shared offset {off}",
                            o.phase
                        ))
                    } else {
                        if race && kind == op::ARRIVE {
                            ev.push(MbarEvent::Arrive(t, off));
                        }
                        settled(o, off, race.then_some(&mut ev));
                        Ok(())
                    }
                }
            }
            op::EXPECT_TX => {
                o.tx += arg[l] as i64;
                Ok(())
            }
            op::COMPLETE_TX => {
                o.tx -= arg[l] as i64;
                settled(o, off, race.then_some(&mut ev));
                Ok(())
            }
            _ => {
                // test_wait / try_wait
                let done = if p & op::PARITY != 0 {
                    (o.phase & 1) != (arg[l] as u32 & 1)
                } else {
                    o.phase != arg[l] as u32
                };
                if done {
                    pmask |= 1 << l;
                    if race {
                        // The phase seen complete: the state's, or (parity) the last one.
                        let seen = if p & op::PARITY != 0 {
                            o.phase.wrapping_sub(1)
                        } else {
                            arg[l] as u32
                        };
                        ev.push(MbarEvent::Waited(t, off, seen));
                    }
                    let ph = o.phase;
                    st.tma.observed(off, ph);
                    if let Some(t) = c.tmem.as_mut() {
                        t.async_writes.observed(off, ph);
                    }
                } else if p & op::TRY != 0 && step.wrapping_sub(last_change) > DEADLOCK_STEPS {
                    err = Some(LaneFault {
                        kind: FaultKind::BarrierDeadlock {
                            detail: format!(
                                "mbarrier at shared offset {off} waits for phase {} to complete, which still misses {} arrival(s) and {} transaction byte(s), and nothing changed in {DEADLOCK_STEPS} warp instructions",
                                o.phase, o.pending, o.tx
                            ),
                        },
                        lane: Some(l as u32),
                        address: Some(addr),
                    });
                    break;
                }
                continue;
            }
        };
        st.last_change = step;
        if let Err(detail) = r {
            err = Some(fault(l, addr, detail));
            break;
        }
    }
    if let Some(r) = c.race.as_deref_mut() {
        r.mbarrier_events(c.pc, &ev);
    }
    if let Some(e) = err {
        return Err(e);
    }
    if kind == op::WAIT {
        c.write_mask(&i.d[0], pmask);
    } else if kind == op::ARRIVE {
        c.write(&i.d[0], &out);
    }
    Ok(Flow::Next)
}

/// Completes `bytes` transactions of a bulk copy on the mbarrier at `a` (lane `lane`);
/// returns the mbarrier's shared offset and the phase the bytes counted in.
///
/// # Errors
/// A bad mbarrier address, or an mbarrier not initialised.
pub fn complete_tx(
    c: &mut Ctx<'_>,
    a: &DAddr,
    lane: usize,
    bytes: u64,
) -> Result<(u64, u32), LaneFault> {
    let addr = super::mem::lane_addr(c, a, lane);
    let off = shared_offset(c, a, lane, 8)?;
    let step = c.clock.wrapping_add(c.cta_step_offset);
    let st = &mut *c.asyncs;
    let o = obj(st, off, lane, addr)?;
    let phase = o.phase;
    o.tx -= bytes as i64;
    settle(o);
    let completed = phase != o.phase;
    st.last_change = step;
    if let (Some(r), true) = (c.race.as_deref_mut(), completed) {
        r.mbarrier_events(c.pc, &[MbarEvent::PhaseDone(off, phase)]);
    }
    Ok((off, phase))
}

/// One arrival (as `mbarrier.arrive`) of lane `lane` on the mbarrier at `a`, made by an
/// asynchronous operation's completion (`tcgen05.commit`); returns the mbarrier's shared
/// offset and the phase the arrival counted in.
///
/// # Errors
/// A bad mbarrier address, an mbarrier not initialised, or no arrival pending.
pub fn arrive_async(c: &mut Ctx<'_>, a: &DAddr, lane: usize) -> Result<(u64, u32), LaneFault> {
    let addr = super::mem::lane_addr(c, a, lane);
    let off = shared_offset(c, a, lane, 8)?;
    let step = c.clock.wrapping_add(c.cta_step_offset);
    let st = &mut *c.asyncs;
    let o = obj(st, off, lane, addr)?;
    let phase = o.phase;
    if o.pending == 0 {
        return Err(fault(
            lane,
            addr,
            format!("an arrival on the mbarrier at shared offset {off} with no arrival pending in phase {phase}"),
        ));
    }
    o.pending -= 1;
    settle(o);
    let completed = phase != o.phase;
    st.last_change = step;
    if let (Some(r), true) = (c.race.as_deref_mut(), completed) {
        r.mbarrier_events(c.pc, &[MbarEvent::PhaseDone(off, phase)]);
    }
    Ok((off, phase))
}

/// Whether phase `phase` of the mbarrier at shared offset `off` has completed (an mbarrier
/// invalidated or re-initialised since counts as completed).
pub fn phase_done(st: &AsyncState, off: u64, phase: u32) -> bool {
    match st.mbarriers.get(&off) {
        Some(Slot::Valid(o)) => o.phase.wrapping_sub(phase) as i32 > 0,
        _ => true,
    }
}

/// `mbarrier.pending_count.b64 count, state`: the pending count a `state` recorded.
pub fn pending_count(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let s = c.fetch(&i.s[0]);
    let mut out = [0u64; 32];
    for (o, v) in out.iter_mut().zip(s) {
        *o = v >> 32;
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}
