//! `tcgen05.commit` in the interpreter, and the visibility rule it establishes for the
//! results of `tcgen05.mma` (rule `tcgen05-mma-visibility`, checked at each `tcgen05.ld`).
//! See [`super::tcgen05_mma`] for how MMAs are issued and tracked.

use super::tcgen05_mma::{decoded, line, undefined};
use super::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DAddr, DInstr, Flow};
use crate::ir::{CtaGroup, Tcgen05};
use crate::tcgen05::trace::TmemAction;

type R = Result<Flow, LaneFault>;

/// `tcgen05.commit`: each active lane's MMAs are tracked by one arrival on its mbarrier.
pub fn commit(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let Tcgen05::Commit(m) = x.op else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "tcgen05.commit decoded as another instruction".into(),
        }));
    };
    let pair = m.group == CtaGroup::Two;
    if pair {
        super::tcgen05_pair::pair(c, "tcgen05.commit.cta_group::2")?;
    }
    let mask = c.fetch(&x.mask);
    let Some(mbar) = x.mbar else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "tcgen05.commit without its mbarrier".into(),
        }));
    };
    for (lane, &ctamask) in mask.iter().enumerate() {
        if c.mask & (1 << lane) == 0 {
            continue;
        }
        let own = c.cluster.rank();
        let ranks = if m.multicast {
            let off = super::mem::lane_addr(c, &mbar, lane);
            super::cluster::targets(c, Some(ctamask), off, lane)?.0
        } else {
            vec![own]
        };
        let thread = c.ids.warp * 32 + lane as u32;
        for r in ranks {
            // A peer's Tensor Memory holds this thread's MMAs only for a CTA pair.
            let track = r == own || pair;
            super::tcgen05_pair::with_cta(c, r, lane, |c| {
                commit_one(c, &mbar, lane, thread, track)
            })?;
        }
    }
    Ok(Flow::Next)
}

/// One arrival of `tcgen05.commit` on the mbarrier at `mbar` of the context's CTA; with
/// `track`, the thread's MMAs and copies in the CTA's Tensor Memory complete with it.
fn commit_one(
    c: &mut Ctx<'_>,
    mbar: &DAddr,
    lane: usize,
    thread: u32,
    track: bool,
) -> Result<(), LaneFault> {
    let (off, phase) = super::async_copy::arrive_async(c, mbar, lane)?;
    // The thread's MMAs (tracked here) and tcgen05.cp copies (tracked by async_writes).
    let n = match c.tmem.as_mut() {
        Some(t) if track => {
            t.mma.commit(thread, off, phase) + t.async_writes.commit(thread, off, phase)
        }
        _ => 0,
    };
    let action = TmemAction::Commit {
        thread: lane as u32,
        mbar: off,
        mmas: n as u32,
    };
    super::tcgen05::record(c, None, action, Vec::new());
    Ok(())
}

/// The visibility rule for a `tcgen05.ld` (checked mode): none of the cells `cells(t, j)`
/// (thread `t`, register `j < regs`) may hold a pending MMA result.
pub fn check_ld(
    c: &mut Ctx<'_>,
    regs: u32,
    cells: &dyn Fn(u32, u32) -> smallvec::SmallVec<[(u32, u32); 2]>,
    what: &str,
) -> Result<(), LaneFault> {
    let Some(tm) = c.tmem.as_mut() else {
        return Ok(());
    };
    if !tm.checked() || tm.mma.is_empty() {
        return Ok(());
    }
    let st = &*c.asyncs;
    let done = |off, phase| super::async_copy::phase_done(st, off, phase);
    tm.mma.retire(done);
    let tm = c.tmem.as_ref().map(|t| &t.mma);
    let Some(track) = tm else { return Ok(()) };
    for t in 0..32 {
        for j in 0..regs {
            for (lane, col) in cells(t, j) {
                if lane >= 128 || col >= 512 {
                    continue;
                }
                let Some(rec) = track.pending(lane * 512 + col, done) else {
                    continue;
                };
                let why = match rec.commit {
                    None => format!("before any tcgen05.commit of thread {} tracked it", rec.thread),
                    Some((off, phase)) => format!(
                        "and the mbarrier (shared offset {off}) its tcgen05.commit arrived on has not completed phase {phase}"
                    ),
                };
                return Err(undefined(
                    t as usize,
                    format!(
                        "rule tcgen05-mma-visibility: {what} at line {} reads Tensor Memory cell (lane {lane}, column {col}) that tcgen05.mma at line {} wrote, {why}: the MMA's results may be read only after its commit's mbarrier phase completes (mbarrier wait, then tcgen05.fence::after_thread_sync)",
                        line(c, c.pc),
                        line(c, rec.pc)
                    ),
                ));
            }
        }
    }
    Ok(())
}
