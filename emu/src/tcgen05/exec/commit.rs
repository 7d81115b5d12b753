//! `tcgen05.commit` in the interpreter, and the visibility rule it establishes for the
//! results of `tcgen05.mma` and `tcgen05.cp` (rules `tcgen05-mma-visibility` and
//! `tcgen05-cp-visibility`, checked per reading thread at each `tcgen05.ld` and at each
//! `tcgen05.mma` reading A or scale factors from Tensor Memory).
//! See [`crate::tcgen05::exec::mma`] for how MMAs are issued and tracked.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DAddr, DInstr, Flow};
use crate::ir::{CtaGroup, Tcgen05};
use crate::tcgen05::exec::mma::{decoded, line, undefined};
use crate::tcgen05::observe::Seen;
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
        crate::tcgen05::exec::pair::pair(c, "tcgen05.commit.cta_group::2")?;
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
        let (ranks, target) = if m.multicast {
            let off = crate::exec::address::lane_addr(c, &mbar, lane);
            // The same CTA-relative offset in each CTA of the mask.
            let rel = crate::cluster::dsmem::cta_relative(c, &mbar, lane);
            (
                crate::cluster::dsmem::targets(c, Some(ctamask), off, lane)?.0,
                rel,
            )
        } else {
            (vec![own], mbar)
        };
        let thread = c.ids.warp * 32 + lane as u32;
        for r in ranks {
            // A peer's Tensor Memory holds this thread's MMAs only for a CTA pair.
            let track = r == own || pair;
            crate::tcgen05::exec::pair::with_cta(c, r, lane, |c| {
                commit_one(c, &target, lane, thread, track)
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
    let (off, phase) = crate::async_copy::cp_async::arrive_async(c, mbar, lane)?;
    let pc = c.pc;
    // The thread's MMAs (tracked here) and tcgen05.cp copies (tracked by async_writes).
    let n = match c.tmem.as_mut() {
        Some(t) if track => {
            t.mma.commit(thread, off, phase, pc) + t.async_writes.commit(thread, off, phase)
        }
        _ => 0,
    };
    let action = TmemAction::Commit {
        thread: lane as u32,
        mbar: off,
        mmas: n as u32,
    };
    crate::tcgen05::exec::record(c, None, action, Vec::new());
    Ok(())
}

/// The visibility rule for a `tcgen05.ld` (checked mode): each thread `t` may read a cell
/// `cells(t, j)` (register `j < regs`) that a `tcgen05.mma` wrote only once the MMA's commit
/// phase is complete, observed by `t`, and fenced by `t` ([`crate::tcgen05::observe`]).
/// `runs`, when the shape has them ([`crate::tcgen05::exec::ldst`]), gives each thread's
/// cells as one run of a lane's columns, in the same order as `cells`.
pub fn check_ld(
    c: &mut Ctx<'_>,
    regs: u32,
    cells: &dyn Fn(u32, u32) -> smallvec::SmallVec<[(u32, u32); 2]>,
    runs: Option<&[(u32, u32, u32); 32]>,
    what: &str,
) -> Result<(), LaneFault> {
    let Some(tm) = c.tmem.as_ref() else {
        return Ok(());
    };
    if !tm.checked() || tm.mma.is_empty() {
        return Ok(());
    }
    let (warp, strict) = (c.ids.warp, c.tmem_opts.fence);
    for t in 0..32 {
        let reader = Reader {
            t,
            thread: warp * 32 + t,
            strict,
            what,
        };
        // The last MMA found visible to this thread: a load's cells mostly share one writer.
        let mut visible_writer = None;
        match runs {
            Some(runs) => {
                let (lane, first, len) = runs[t as usize];
                for col in first..first + len {
                    visible(c, tm, &reader, (lane, col), &mut visible_writer)?;
                }
            }
            None => {
                for j in 0..regs {
                    for cell in cells(t, j) {
                        visible(c, tm, &reader, cell, &mut visible_writer)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The thread of a `tcgen05.ld` whose reads [`visible`] checks.
struct Reader<'w> {
    /// The lane in the warp.
    t: u32,
    /// The thread in the CTA.
    thread: u32,
    /// `--tmem-check strict`.
    strict: bool,
    what: &'w str,
}

/// The fault when `reader` may not read cell `(lane, col)` yet; `visible_writer` is the
/// last MMA found visible to it, which needs no second look. A cell no MMA wrote, or whose
/// writer is known visible, is passed here, inline; only a new writer is judged
/// ([`judge_writer`]).
#[inline(always)]
fn visible(
    c: &Ctx<'_>,
    tm: &crate::tcgen05::memory::TensorMemory,
    reader: &Reader<'_>,
    (lane, col): (u32, u32),
    visible_writer: &mut Option<u32>,
) -> Result<(), LaneFault> {
    if lane >= 128 || col >= 512 {
        return Ok(());
    }
    match tm.mma.writer_id(lane * 512 + col) {
        None => Ok(()),
        id if id == *visible_writer => Ok(()),
        Some(_) => judge_writer(c, tm, reader, (lane, col), visible_writer),
    }
}

/// [`visible`] for a cell whose writer is not yet known visible to `reader`.
fn judge_writer(
    c: &Ctx<'_>,
    tm: &crate::tcgen05::memory::TensorMemory,
    reader: &Reader<'_>,
    (lane, col): (u32, u32),
    visible_writer: &mut Option<u32>,
) -> Result<(), LaneFault> {
    let Some(rec) = tm.mma.writer(lane * 512 + col) else {
        return Ok(());
    };
    let Some(why) = invisible(c, tm, &rec, reader.thread, reader.strict) else {
        *visible_writer = Some(rec.id);
        return Ok(());
    };
    Err(undefined(
        reader.t as usize,
        format!(
            "rule {}: {} at line {} reads Tensor Memory cell (lane {lane}, column {col}) that {}{} at line {} wrote; {why}. A thread may read the results of an asynchronous tcgen05.mma or tcgen05.cp only after the commit's mbarrier phase completes, the thread waits for it, and then executes tcgen05.fence::after_thread_sync",
            rule(&rec),
            reader.what,
            line(c, c.pc),
            if rec.what == "tcgen05.cp" { "the asynchronous " } else { "" },
            rec.what,
            line(c, rec.pc)
        ),
    ))
}

/// The rule a read of `rec`'s cells breaks.
fn rule(rec: &crate::tcgen05::mma_track::MmaRecord) -> &'static str {
    if rec.what == "tcgen05.cp" {
        "tcgen05-cp-visibility"
    } else {
        "tcgen05-mma-visibility"
    }
}

/// The visibility rule for a `tcgen05.mma` issued by lane `lane` reading Tensor Memory cells
/// `cells` (A, or scale factors: `operand`) in checked mode. A cell another thread's
/// `tcgen05.cp` or `tcgen05.mma` wrote must be visible to the issuing thread as to a
/// `tcgen05.ld` (commit, its phase observed, and with `--tmem-check strict` fenced). One the
/// issuing thread itself wrote asynchronously is ordered before the MMA without a commit: the
/// PTX ISA's pipelined pairs `tcgen05.cp -> tcgen05.mma` and `tcgen05.mma -> tcgen05.mma`
/// from the same thread execute in issue order.
pub fn check_mma_read(
    c: &Ctx<'_>,
    lane: usize,
    cells: &[u32],
    operand: &str,
) -> Result<(), LaneFault> {
    let Some(tm) = c.tmem.as_ref() else {
        return Ok(());
    };
    if !tm.checked() || tm.mma.is_empty() {
        return Ok(());
    }
    let thread = c.ids.warp * 32 + lane as u32;
    for &at in cells {
        let Some(rec) = tm.mma.writer(at) else {
            continue;
        };
        if rec.thread == thread {
            continue;
        }
        let Some(why) = invisible(c, tm, &rec, thread, c.tmem_opts.fence) else {
            continue;
        };
        return Err(undefined(
            lane,
            format!(
                "rule {}: tcgen05.mma at line {} (thread {thread}) reads {operand} from Tensor Memory cell (lane {}, column {}) that {} at line {} (thread {}) wrote; {why}. An asynchronous write of another thread is ordered before the MMA only through its tcgen05.commit, an mbarrier wait by the MMA's thread and tcgen05.fence::after_thread_sync (a tcgen05.cp or tcgen05.mma of the MMA's own thread is ordered by issue)",
                rule(&rec),
                line(c, c.pc),
                at / 512,
                at % 512,
                rec.what,
                line(c, rec.pc),
                rec.thread
            ),
        ));
    }
    Ok(())
}

/// Why the MMA `rec` is not yet visible to `thread`, or `None` when it is: some commit that
/// tracks it has completed its phase and `thread` has observed (and, `strict`, fenced) it.
fn invisible(
    c: &Ctx<'_>,
    tm: &crate::tcgen05::memory::TensorMemory,
    rec: &crate::tcgen05::mma_track::MmaRecord,
    thread: u32,
    strict: bool,
) -> Option<String> {
    let visible_through = |k: &crate::tcgen05::mma_track::Commit| {
        crate::async_copy::cp_async::phase_done(c.asyncs, k.mbar, k.phase)
            && match tm.observe.seen(thread, k.mbar, k.phase) {
                Seen::Fenced => true,
                Seen::Unfenced => !strict,
                Seen::No => false,
            }
    };
    if tm.mma.commits_of(rec).any(visible_through) {
        return None;
    }
    // Why not: the most advanced state among the commits, newest first: observed, completed,
    // issued.
    let mut best: Option<(u8, String)> = None;
    for k in tm.mma.commits_of(rec) {
        let (off, phase) = (k.mbar, k.phase);
        let commit = format!(
            "its tcgen05.commit at line {} arrived on the mbarrier at shared offset {off}",
            line(c, k.pc)
        );
        let (rank, why) = if !crate::async_copy::cp_async::phase_done(c.asyncs, off, phase) {
            (
                0,
                format!("{commit}, which has not completed phase {phase}"),
            )
        } else {
            match tm.observe.seen(thread, off, phase) {
                Seen::Fenced => return None,
                Seen::Unfenced if !strict => return None,
                Seen::Unfenced => (2, format!(
                    "{commit}; thread {thread} observed its phase {phase} complete but executed no tcgen05.fence::after_thread_sync since (missing: the fence)"
                )),
                Seen::No => (1, format!(
                    "{commit}, which completed phase {phase}, but thread {thread} has not observed it: no mbarrier test_wait/try_wait of its own on that phase, nor a bar.sync (or mbarrier phase) after a thread that did (missing: the wait)"
                )),
            }
        };
        if best.as_ref().is_none_or(|(r, _)| rank > *r) {
            best = Some((rank, why));
        }
    }
    Some(best.map_or_else(
        || {
            format!(
                "before any tcgen05.commit of thread {} tracked it",
                rec.thread
            )
        },
        |(_, why)| why,
    ))
}
