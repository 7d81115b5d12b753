//! `--race` glue for bulk and tensor copies: hands a copy's accesses (its source reads and
//! destination writes, global or shared) and the mbarrier it completes on to the detector
//! (`race::cta::bulk`), and the bulk-group commits and waits.

use super::tma::Place;
use super::Ctx;
use crate::exec::cluster::{decode, encode};
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
        fp: 0,
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
                fp: 0,
            }),
        }
    }
    out
}

/// The shared side of a copy into shared memory at offset `o` of each CTA of `ranks` (one
/// CTA, or the CTAs of a multicast), as `.shared::cluster` addresses.
pub(super) fn shared_dst(ranks: &[u32], o: u64, len: u64, reduce: bool) -> Vec<BulkAccess> {
    ranks
        .iter()
        .filter_map(|&r| side(Place::Shared(encode(r, o)), len, true, reduce))
        .collect()
}

/// Fingerprints the bytes each global write of `accesses` left (called after the copy wrote
/// them), so that identical writes by the lanes of one instruction are classified apart.
pub(super) fn fingerprint_writes(c: &Ctx<'_>, accesses: &mut [BulkAccess]) {
    for a in accesses.iter_mut().filter(|a| a.write && !a.shared) {
        if let Some(r) = c.global.find(a.addr, a.len) {
            let mut bytes = vec![0u8; a.len as usize];
            r.read_bytes_into(a.addr - r.base, &mut bytes);
            a.fp = crate::race::cta::fingerprint(&bytes);
        }
    }
}

/// A copy issued by `lane` with these accesses, completing on `mbar` when given. Shared
/// accesses may name a peer CTA's shared memory (`.shared::cluster` addresses): each CTA's
/// are checked against that CTA's shadow, and the mbarrier is the one at its offset in each
/// CTA the copy writes to (docs/race.md, "Clusters").
pub(super) fn copy(c: &mut Ctx<'_>, lane: usize, accesses: &[BulkAccess], mbar: Option<&DAddr>) {
    if c.race.is_none() {
        return;
    }
    let moff = match mbar {
        Some(m) => match super::tma::place(c, m, lane) {
            Ok((_, Place::Shared(o))) => Some(decode(o).map_or(o, |(_, o)| o)),
            _ => return,
        },
        None => None,
    };
    let own = c.cluster.rank();
    // Accesses by CTA rank (global ones go with the executing CTA's).
    let mut groups: Vec<(u32, Vec<BulkAccess>, bool)> = vec![(own, Vec::new(), false)];
    for a in accesses {
        let (rank, a) = match (a.shared, decode(a.addr)) {
            (true, Some((r, o))) => (r, BulkAccess { addr: o, ..*a }),
            _ => (own, *a),
        };
        let k = match groups.iter().position(|g| g.0 == rank) {
            Some(k) => k,
            None => {
                groups.push((rank, Vec::new(), false));
                groups.len() - 1
            }
        };
        groups[k].1.push(a);
        groups[k].2 |= a.shared && a.write;
    }
    let (t, pc) = (c.ids.warp as usize * 32 + lane, c.pc);
    for (rank, acc, dest) in groups {
        // The mbarrier belongs to the CTAs the copy writes to; a copy with one is no bulk
        // group's, in the other CTAs too (u64::MAX: an offset no mbarrier has).
        let m = moff.map(|o| if dest { o } else { u64::MAX });
        if rank != own {
            super::cluster::swap_race(c, rank);
        }
        if let Some(r) = c.race.as_deref_mut() {
            r.bulk_copy(t, pc, &acc, m);
        }
        if rank != own {
            super::cluster::swap_race(c, rank);
        }
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
