//! The bytes a bulk or tensor copy reads and writes (its source and destination runs, global
//! or shared, a multicast's in each CTA), as the hooks of asynchronous operations describe
//! them ([`crate::exec::hooks::asyncs`]).

use crate::cluster::dsmem::{decode, encode};
use crate::exec::ctx::Ctx;
use crate::exec::hooks::events::AsyncAccess;
use crate::exec::program::DAddr;
use crate::tma::copy::Place;

/// One side of a copy at `place`, of `len` bytes (global or shared memory only).
pub(crate) fn side(place: Place, len: u64, write: bool, reduce: bool) -> Option<AsyncAccess> {
    let (shared, addr) = match place {
        Place::Global(g) => (false, g),
        Place::Shared(o) => (true, o),
        Place::Param(_) | Place::Const(_) => return None,
    };
    Some(AsyncAccess {
        shared,
        addr,
        len,
        write,
        reduce: reduce && write,
        fp: 0,
    })
}

/// The global elements of a tensor copy (`e` bytes at each address), as runs of contiguous
/// bytes.
pub(crate) fn global_runs(
    addrs: impl Iterator<Item = u64>,
    e: u64,
    write: bool,
    reduce: bool,
) -> Vec<AsyncAccess> {
    let mut out: Vec<AsyncAccess> = Vec::new();
    for g in addrs {
        match out.last_mut() {
            Some(r) if r.addr + r.len == g => r.len += e,
            _ => out.push(AsyncAccess {
                shared: false,
                addr: g,
                len: e,
                write,
                reduce: reduce && write,
                fp: 0,
            }),
        }
    }
    out
}

/// The shared side of a copy into shared memory at offset `o` of each CTA of `ranks` (one
/// CTA, or the CTAs of a multicast), as `.shared::cluster` addresses.
pub(crate) fn shared_dst(ranks: &[u32], o: u64, len: u64, reduce: bool) -> Vec<AsyncAccess> {
    ranks
        .iter()
        .filter_map(|&r| side(Place::Shared(encode(r, o)), len, true, reduce))
        .collect()
}

/// Fingerprints the bytes each global write of `accesses` left (called after the copy wrote
/// them), so that identical writes by the lanes of one instruction are classified apart.
pub(crate) fn fingerprint_writes(c: &Ctx<'_>, accesses: &mut [AsyncAccess]) {
    for a in accesses.iter_mut().filter(|a| a.write && !a.shared) {
        if let Some(r) = c.global.find(a.addr, a.len) {
            let mut bytes = vec![0u8; a.len as usize];
            r.read_bytes_into(a.addr - r.base, &mut bytes);
            a.fp = crate::exec::hooks::events::fingerprint(&bytes);
        }
    }
}

/// Reports a copy issued by `lane` with these accesses to the hooks, completing on the
/// mbarrier at `mbar` when given (nothing when that mbarrier address is not in shared memory).
pub(crate) fn report(c: &mut Ctx<'_>, lane: usize, accesses: &[AsyncAccess], mbar: Option<&DAddr>) {
    if !c.observes_async() {
        return;
    }
    let moff = match mbar {
        Some(m) => match crate::tma::copy::place(c, m, lane) {
            Ok((_, Place::Shared(o))) => Some(decode(o).map_or(o, |(_, o)| o)),
            _ => return,
        },
        None => None,
    };
    c.after_bulk_copy(lane, accesses, moff);
}
