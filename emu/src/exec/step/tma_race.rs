//! `--race` glue for bulk and tensor copies: hands a copy's accesses (its source reads and
//! destination writes, global or shared) and the mbarrier it completes on to the detector
//! (`race::cta::bulk`), and the bulk-group commits and waits.

use super::tma::Place;
use super::Ctx;
use crate::exec::program::DAddr;
use crate::race::cta::BulkAccess;

/// One side of a copy at `place`, of `len` bytes (global or shared memory only).
pub(super) fn side(place: Place, len: u64, write: bool, reduce: bool) -> Option<BulkAccess> {
    let (shared, addr) = match place {
        Place::Global(g) => (false, g),
        Place::Shared(o) => (true, o),
        Place::Param(_) | Place::Const(_) => return None,
    };
    Some(BulkAccess {
        shared,
        addr,
        len,
        write,
        reduce: reduce && write,
    })
}

/// The global elements of a tensor copy (`e` bytes at each address), as runs of contiguous
/// bytes.
pub(super) fn global_runs(
    addrs: impl Iterator<Item = u64>,
    e: u64,
    write: bool,
    reduce: bool,
) -> Vec<BulkAccess> {
    let mut out: Vec<BulkAccess> = Vec::new();
    for g in addrs {
        match out.last_mut() {
            Some(r) if r.addr + r.len == g => r.len += e,
            _ => out.push(BulkAccess {
                shared: false,
                addr: g,
                len: e,
                write,
                reduce: reduce && write,
            }),
        }
    }
    out
}

/// A copy issued by `lane` with these accesses, completing on `mbar` when given.
pub(super) fn copy(c: &mut Ctx<'_>, lane: usize, accesses: &[BulkAccess], mbar: Option<&DAddr>) {
    if c.race.is_none() {
        return;
    }
    let moff = match mbar {
        Some(m) => match super::tma::place(c, m, lane) {
            Ok((_, Place::Shared(o))) => Some(o),
            _ => return,
        },
        None => None,
    };
    let (t, pc) = (c.ids.warp as usize * 32 + lane, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        r.bulk_copy(t, pc, accesses, moff);
    }
}

/// `cp.async.bulk.commit_group` by `lane`.
pub(super) fn commit(c: &mut Ctx<'_>, lane: usize) {
    let t = c.ids.warp as usize * 32 + lane;
    if let Some(r) = c.race.as_deref_mut() {
        r.bulk_commit(t);
    }
}

/// `cp.async.bulk.wait_group{.read} n` by `lane`.
pub(super) fn waited(c: &mut Ctx<'_>, lane: usize, n: usize) {
    let t = c.ids.warp as usize * 32 + lane;
    if let Some(r) = c.race.as_deref_mut() {
        r.bulk_waited(t, n);
    }
}
