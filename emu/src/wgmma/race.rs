//! `--race` glue for the asynchronous tensor-core instructions: hands the shared-memory
//! operand reads of `wgmma.mma_async` and `tcgen05.mma` (through their matrix descriptors) to
//! the detector as reads of the issuing warp's or thread's tensor-core agent, with the group
//! commits and waits that order them (`race::cta::tensor`, docs/race.md).

use crate::exec::ctx::Ctx;

/// Adds `bytes` at shared offset `off` to `runs`, merged with the last run when contiguous.
pub(crate) fn add_run(runs: &mut Vec<(u64, u64)>, off: u64, bytes: u64) {
    match runs.last_mut() {
        Some((o, n)) if *o + *n == off => *n += bytes,
        Some((o, n)) if *o <= off && off + bytes <= *o + *n => {}
        _ => runs.push((off, bytes)),
    }
}

/// The executing warp's `wgmma.mma_async` read `runs` of shared memory.
pub(crate) fn issued(c: &mut Ctx<'_>, runs: &[(u64, u64)]) {
    let (warp, lanes, pc) = (c.ids.warp as usize, c.mask, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        r.wgmma_reads(warp, lanes, pc, runs);
    }
}

/// The executing warp's `wgmma.commit_group`.
pub(crate) fn committed(c: &mut Ctx<'_>) {
    let warp = c.ids.warp as usize;
    if let Some(r) = c.race.as_deref_mut() {
        r.wgmma_commit(warp);
    }
}

/// The executing warp's `wgmma.wait_group n`.
pub(crate) fn waited(c: &mut Ctx<'_>, n: usize) {
    let (warp, lanes) = (c.ids.warp as usize, c.mask);
    if let Some(r) = c.race.as_deref_mut() {
        r.wgmma_waited(warp, lanes, n);
    }
}

/// `tcgen05.mma` issued by `lane`, reading `runs` of shared memory.
pub(crate) fn tcgen05_issued(c: &mut Ctx<'_>, lane: usize, runs: &[(u64, u64)]) {
    let (t, pc) = (c.ids.warp as usize * 32 + lane, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        r.tcgen05_mma_reads(t, pc, runs);
    }
}

/// `tcgen05.commit` by `lane` arriving on the mbarrier at shared offset `off`.
pub(crate) fn tcgen05_committed(c: &mut Ctx<'_>, lane: usize, off: u64) {
    let t = c.ids.warp as usize * 32 + lane;
    if let Some(r) = c.race.as_deref_mut() {
        r.tcgen05_commit(t, off);
    }
}
