//! The shared-memory accesses that `cp.async` forbids: an access of bytes a pending copy
//! still writes (no `cp.async.wait_group`/`wait_all` since). The access hook
//! ([`crate::exec::hooks::access`]) asks [`pending_fault`] about every shared access while the
//! CTA has asynchronous operations pending, after the proxy checker.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};

pub(crate) fn fault(lane: usize, addr: u64, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

pub(crate) fn line_of(c: &Ctx<'_>, pc: u32) -> u32 {
    c.prog.info.get(pc as usize).map_or(0, |i| i.span.line)
}

/// The fault for a shared-memory access of bytes a pending copy writes (the access hook
/// asks, [`crate::exec::hooks::access`]).
pub fn pending_fault(
    c: &Ctx<'_>,
    lane: usize,
    addr: u64,
    off: u64,
    size: u64,
    write: bool,
) -> Option<LaneFault> {
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
