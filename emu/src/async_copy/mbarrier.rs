//! Executing `mbarrier` (PTX ISA "mbarrier": phases, pending arrivals, transaction counts),
//! including operations on a peer CTA's mbarrier through `.shared::cluster` addresses, and the
//! completions other asynchronous operations (bulk copies, `tcgen05.commit`) signal on one.
//! The object model and the deliberate deviations are described in `async_copy`.

use crate::async_copy::cp_async::*;
use crate::async_copy::state::{AsyncState, MbarrierObj, Slot, PEER_CHANGE};
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::hooks::events::MbarrierEvent;
use crate::exec::hooks::sync;
use crate::exec::program::{DAddr, DInstr, Flow};

type R = Result<Flow, LaneFault>;

pub(crate) fn obj(
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
pub(crate) fn settle(o: &mut MbarrierObj) {
    if o.pending == 0 && o.tx == 0 {
        o.phase = o.phase.wrapping_add(1);
        o.pending = o.expected;
    }
}

/// [`settle`], telling the race detector (when `ev` is given) that the phase completed.
pub(crate) fn settled(o: &mut MbarrierObj, off: u64, ev: Option<&mut Vec<MbarrierEvent>>) {
    let before = o.phase;
    settle(o);
    if let (Some(ev), true) = (ev, before != o.phase) {
        ev.push(MbarrierEvent::PhaseDone(off, before));
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
    let at = |c: &Ctx<'_>, l: usize| crate::exec::address::lane_addr(c, &a.addr, l);
    if let Some(r) = crate::cluster::dsmem::per_peer(c, i, at, mbarrier_here) {
        return r;
    }
    mbarrier_here(c, i)
}

/// [`mbarrier`] for lanes whose mbarrier lies in the shared memory the context holds.
pub(crate) fn mbarrier_here(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = async_of(i)?.clone();
    let arg = c.fetch(&i.s[0]);
    let mut run = MbarLanes {
        p: a.param,
        kind: a.param & 0xff,
        step: c.clock.wrapping_add(c.cta_step_offset),
        observed: c.observes_mbarriers(),
        out: [0u64; 32],
        pmask: 0,
        ev: Vec::new(),
    };
    let mut lanes = Vec::new();
    crate::exec::ctx::for_lanes(c.mask, |l| lanes.push(l));
    let mut err = None;
    for l in lanes {
        if let Err(e) = run.lane(c, i, &a.addr, arg[l], l) {
            err = Some(e);
            break;
        }
    }
    c.after_mbarrier(&run.ev);
    if let Some(e) = err {
        return Err(e);
    }
    if run.kind == op::WAIT {
        c.write_mask(&i.d[0], run.pmask);
        if run.pmask == 0 {
            // No lane's phase is complete: the warp polls again only after others ran.
            return Ok(Flow::Yield);
        }
    } else if run.kind == op::ARRIVE {
        c.write(&i.d[0], &run.out);
    }
    Ok(Flow::Next)
}

/// One `mbarrier` instruction as its lanes perform it, one after another.
struct MbarLanes {
    /// The instruction's param bits ([`op`]).
    p: u64,
    /// The operation (`p & 0xff`).
    kind: u64,
    /// The CTA's schedule position, for the deadlock count.
    step: u64,
    /// Whether an observer wants the mbarrier events.
    observed: bool,
    /// What `arrive` writes to each lane's state operand.
    out: [u64; 32],
    /// The lanes whose wait saw the phase complete.
    pmask: u32,
    /// For the observers: what each lane did to the mbarrier, in order.
    ev: Vec<MbarrierEvent>,
}

impl MbarLanes {
    /// Performs the instruction for lane `l`, whose operand value is `arg`.
    fn lane(
        &mut self,
        c: &mut Ctx<'_>,
        i: &DInstr,
        at: &DAddr,
        arg: u64,
        l: usize,
    ) -> Result<(), LaneFault> {
        let t = thread(c, l) as usize;
        let addr = crate::exec::address::lane_addr(c, at, l);
        let off = shared_offset(c, at, l, 8)?;
        if self.observed {
            self.ev
                .push(MbarrierEvent::Touch(t, off, self.kind != op::WAIT));
        }
        if self.kind == op::CP_ARRIVE {
            let done = c.asyncs.copies.take_all(t as u32);
            if self.observed {
                self.ev
                    .push(MbarrierEvent::CopiesArrive(t, off, done.len()));
            }
            deliver(c, done);
        }
        let st = &mut *c.asyncs;
        match self.kind {
            op::INIT => {
                self.init(st, off, arg as u32);
                return Ok(());
            }
            op::INVAL => return self.inval(st, off, l, addr),
            _ => {}
        }
        if st.last_change == PEER_CHANGE {
            st.last_change = self.step;
        }
        let r = match self.kind {
            op::ARRIVE | op::CP_ARRIVE => {
                let o = obj(st, off, l, addr)?;
                sync::mbarrier_arrived(c.tmem, t as u32, off, o.phase);
                self.arrive(o, i, arg, t, l, off)
            }
            op::EXPECT_TX => {
                obj(st, off, l, addr)?.tx += arg as i64;
                Ok(())
            }
            op::COMPLETE_TX => {
                let o = obj(st, off, l, addr)?;
                o.tx -= arg as i64;
                settled(o, off, self.observed.then_some(&mut self.ev));
                Ok(())
            }
            _ => return self.wait(st, c.tmem, off, arg, t, l, addr),
        };
        st.last_change = self.step;
        r.map_err(|detail| fault(l, addr, detail))
    }

    /// `mbarrier.init`: a fresh object expecting `n` arrivals per phase.
    fn init(&mut self, st: &mut AsyncState, off: u64, n: u32) {
        st.mbarriers.insert(
            off,
            Slot::Valid(MbarrierObj {
                expected: n,
                pending: n,
                tx: 0,
                phase: 0,
            }),
        );
        st.last_change = self.step;
        if self.observed {
            self.ev.push(MbarrierEvent::Reset(off));
        }
    }

    /// `mbarrier.inval` of an initialised object.
    fn inval(
        &mut self,
        st: &mut AsyncState,
        off: u64,
        l: usize,
        addr: u64,
    ) -> Result<(), LaneFault> {
        obj(st, off, l, addr)?;
        st.mbarriers.insert(off, Slot::Invalidated);
        st.last_change = self.step;
        if self.observed {
            self.ev.push(MbarrierEvent::Reset(off));
        }
        Ok(())
    }

    /// An arrival (`mbarrier.arrive{.expect_tx}{_drop}`, `cp.async.mbarrier.arrive`) on `o`;
    /// the error says what the arrival breaks.
    fn arrive(
        &mut self,
        o: &mut MbarrierObj,
        i: &DInstr,
        arg: u64,
        t: usize,
        l: usize,
        off: u64,
    ) -> Result<(), String> {
        let p = self.p;
        let (count, tx) = if self.kind == op::CP_ARRIVE {
            if p & op::NOINC == 0 {
                o.pending += 1;
            }
            (1, 0)
        } else if p & op::TX != 0 {
            (1, arg as i64)
        } else if i.s[0] == crate::exec::program::Src::None {
            (1, 0)
        } else {
            (arg as u32, 0)
        };
        self.out[l] = u64::from(o.phase);
        o.tx += tx;
        if count > o.pending {
            return Err(format!(
                "an arrival count of {count} exceeds the {} arrivals pending in phase {} of the mbarrier at shared offset {off}",
                o.pending, o.phase
            ));
        }
        o.pending -= count;
        if p & op::DROP != 0 {
            o.expected = o.expected.saturating_sub(count);
        }
        self.out[l] |= u64::from(o.pending) << 32;
        if p & op::NO_COMPLETE != 0 && o.pending == 0 && o.tx == 0 {
            return Err(format!(
                "mbarrier.arrive.noComplete completes phase {} of the mbarrier at shared offset {off}",
                o.phase
            ));
        }
        if self.observed && self.kind == op::ARRIVE {
            self.ev.push(MbarrierEvent::Arrive(t, off));
        }
        settled(o, off, self.observed.then_some(&mut self.ev));
        Ok(())
    }

    /// `test_wait` / `try_wait`: whether the phase named by `arg` (a state, or a parity) is
    /// complete; a `try_wait` that nothing can complete any more is a deadlock.
    #[allow(clippy::too_many_arguments)]
    fn wait(
        &mut self,
        st: &mut AsyncState,
        tmem: &mut Option<Box<crate::tcgen05::memory::TensorMemory>>,
        off: u64,
        arg: u64,
        t: usize,
        l: usize,
        addr: u64,
    ) -> Result<(), LaneFault> {
        let p = self.p;
        let last_change = st.last_change;
        let o = obj(st, off, l, addr)?;
        let done = if p & op::PARITY != 0 {
            (o.phase & 1) != (arg as u32 & 1)
        } else {
            o.phase != arg as u32
        };
        if done {
            self.pmask |= 1 << l;
            if self.observed {
                // The phase seen complete: the state's, or (parity) the last one.
                let seen = if p & op::PARITY != 0 {
                    o.phase.wrapping_sub(1)
                } else {
                    arg as u32
                };
                self.ev.push(MbarrierEvent::Waited(t, off, seen));
            }
            let ph = o.phase;
            sync::phase_observed(st, tmem, t as u32, off, ph);
        } else if p & op::TRY != 0 && self.step.wrapping_sub(last_change) > DEADLOCK_STEPS {
            return Err(LaneFault {
                kind: FaultKind::BarrierDeadlock {
                    detail: format!(
                        "mbarrier at shared offset {off} waits for phase {} to complete, which still misses {} arrival(s) and {} transaction byte(s), and nothing changed in {DEADLOCK_STEPS} warp instructions",
                        o.phase, o.pending, o.tx
                    ),
                },
                lane: Some(l as u32),
                address: Some(addr),
            });
        }
        Ok(())
    }
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
    let addr = crate::exec::address::lane_addr(c, a, lane);
    let off = shared_offset(c, a, lane, 8)?;
    let step = c.clock.wrapping_add(c.cta_step_offset);
    let st = &mut *c.asyncs;
    let o = obj(st, off, lane, addr)?;
    let phase = o.phase;
    o.tx -= bytes as i64;
    settle(o);
    let completed = phase != o.phase;
    st.last_change = step;
    if completed {
        c.after_phase_done(off, phase);
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
    let addr = crate::exec::address::lane_addr(c, a, lane);
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
    c.after_tcgen05_commit(lane, off);
    if completed {
        c.after_phase_done(off, phase);
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
