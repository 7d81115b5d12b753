//! Shadow-memory cells: whether an access races with a cell's last write and the earlier
//! accesses it keeps, and how an access is kept (dropping the earlier accesses of the same
//! instruction it stands for, joining a warp group of the same read, folding a run of the same
//! read by threads of several CTAs into one entry).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use models::vocab::Scope;
use smallvec::SmallVec;

use super::super::op::Sem;
use super::super::shadow::{Acc, Cell, Payload, WordHasher, MAX_EARLIER};
use super::super::vc::VIA_SC;
use super::super::RaceShared;
use super::{ms, Thread, AGENTS, PRUNE_AT};

/// An earlier access that races with the current one (a warp group's member, one by one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The earlier access.
    pub earlier: Acc,
    /// Whether this run orders the pair, but only through Fence-SC order (`sc_order`
    /// decides whether another order leaves it unordered).
    pub via_sc: bool,
}

/// Whether access `p` happens before thread `me`'s current point without Fence-SC order.
/// Fast path: a barrier at which every thread of the CTA waited completed after `p`, in
/// `p`'s CTA (`gen` counts them).
#[inline]
fn hb(th: &Thread, me: u32, p: &Acc, gen: (u32, u32, u32)) -> bool {
    debug_assert!(!p.is_run(), "runs are weighed member by member");
    if p.lanes != 0 {
        // A warp's group (one CTA): the barrier holds for all, or each member is ordered.
        return (p.gen < gen.0 && p.gtid.wrapping_sub(gen.1) < gen.2)
            || p.members().all(|m| m == me || th.base.get(m) >= p.clk);
    }
    p.gtid == me
        || (p.gen < gen.0 && p.gtid.wrapping_sub(gen.1) < gen.2)
        || th.base.get(p.gtid) >= p.clk
}

/// Checks `acc` against the last write, the earlier writes and, when `acc` writes, the reads
/// of `cell`, the shadow of word `word`; adds each racing earlier access (each racing member
/// of a warp group) to `found` once.
///
/// An access of several words is checked word by word, lowest first: an earlier access that
/// starts below `word` and covers it also covers the word below, which `acc` covers too, so
/// it was checked there and is skipped here (a long bulk copy's chunk meets the same earlier
/// chunks in each of its 32 words).
pub(super) fn check(
    sh: &RaceShared,
    gen: (u32, u32, u32),
    (th, me): (&Thread, u32),
    acc: &Acc,
    cs: (Sem, Option<Scope>),
    (cell, word): (&Cell, u64),
    found: &mut SmallVec<[Found; 2]>,
) {
    let word_start = word << 2;
    let checked_below = acc.addr < word_start;
    let mut consider_one = |p: &Acc| {
        if checked_below && p.addr < word_start {
            return;
        }
        if !p.overlaps(acc) || hb(th, me, p, gen) || ms(sh, p, acc, cs) {
            return;
        }
        for m in p.members() {
            let earlier = p.member(m);
            if m == me || th.base.get(m) >= p.clk {
                continue;
            }
            let via_sc = sh.sc_order && th.base.get(m | VIA_SC) >= p.clk;
            if !found.iter().any(|f| f.earlier == earlier) {
                found.push(Found { earlier, via_sc });
            }
        }
    };
    // A run's members are weighed as the single accesses they are, in the order added.
    let mut consider = |p: &Acc| {
        if p.is_run() {
            p.members().for_each(|m| consider_one(&p.member(m)));
        } else {
            consider_one(p);
        }
    };
    if let Some(w) = &cell.write {
        consider(w);
    }
    if acc.write {
        if !earlier_before_barrier(cell, gen) {
            cell.earlier.iter().for_each(&mut consider);
        }
    } else if cell.earlier_writes > 0 {
        cell.earlier.iter().filter(|e| e.write).for_each(consider);
    }
}

/// Whether every entry of `earlier` is by a thread of the current CTA (`gen` as in [`hb`])
/// and precedes a full barrier of it (so each is ordered before the current access).
#[inline]
fn earlier_before_barrier(cell: &Cell, gen: (u32, u32, u32)) -> bool {
    cell.one_cta
        && cell.newest_thread.wrapping_sub(gen.1) < gen.2
        && cell.earlier.last().is_some_and(|r| r.gen < gen.0)
}

/// Whether `old` can leave the history because `new` (thread `me`'s current access) stands
/// for it: the same instruction, kind and bytes, and `old` is ordered before `new` (without
/// Fence-SC order), so whatever races with `old` races with `new`.
#[inline]
fn stands_for(th: &Thread, me: u32, new: &Acc, old: &Acc, gen: (u32, u32, u32)) -> bool {
    old.pc == new.pc
        && old.write == new.write
        && old.addr == new.addr
        && old.size == new.size
        && (old.is(me) || hb(th, me, old, gen))
}

/// Whether the two threads (or agents) are threads of one CTA of `n` threads; agents count as
/// apart (the barrier shortcuts do not apply to them).
fn same_cta(a: u32, b: u32, n: u32) -> bool {
    a & AGENTS == 0 && b & AGENTS == 0 && a / n.max(1) == b / n.max(1)
}

/// Thread `me`'s write `acc` becomes the cell's last write; the previous last write stays in
/// the history unless `acc` stands for it, and earlier writes `acc` stands for leave.
pub(super) fn add_write(
    sh: &RaceShared,
    gen: (u32, u32, u32),
    th: &Thread,
    acc: &Acc,
    cell: &mut Cell,
    payload: Option<Payload>,
) {
    let me = acc.gtid;
    if cell.earlier_writes > 0 {
        cell.earlier
            .retain(|e| !(e.write && stands_for(th, me, acc, e, gen)));
        let left = cell.earlier.iter().filter(|e| e.write).count();
        cell.earlier_writes = u16::try_from(left).unwrap_or(u16::MAX);
    }
    if let Some(old) = cell.write.take() {
        if !stands_for(th, me, acc, &old, gen) && kept(cell) < MAX_EARLIER {
            // Older than every entry: it goes first, and the newest entry stays the newest.
            let n = sh.cta_threads;
            if cell.earlier.is_empty() {
                cell.newest_thread = old.gtid;
                cell.one_cta = true;
                cell.oldest_gen = if old.gtid & AGENTS == 0 {
                    old.gen
                } else {
                    u32::MAX
                };
            } else if same_cta(old.gtid, cell.newest_thread, n) {
                cell.oldest_gen = cell.oldest_gen.min(old.gen);
            } else {
                cell.one_cta = false;
            }
            cell.earlier.insert(0, old);
            cell.earlier_writes = cell.earlier_writes.saturating_add(1);
        }
    }
    cell.write = Some(*acc);
    cell.payload = payload;
    cell.writes_seen = cell.writes_seen.wrapping_add(1);
}

/// Thread `me`'s read `acc` joins the history: earlier reads of the same instruction and
/// bytes ordered before it leave (it stands for them), and the same read by another lane of
/// the warp at the same clock joins its entry. `again`: the thread's previous read was this
/// one's instruction and address (a poll), so its entry is looked for among the newest.
pub(super) fn add_read(gen: (u32, u32, u32), th: &Thread, acc: &Acc, cell: &mut Cell, again: bool) {
    let me = acc.gtid;
    let same = |r: &Acc| !r.write && r.pc == acc.pc && r.addr == acc.addr && r.size == acc.size;
    let cheap_due = |cell: &Cell, n: usize| {
        n > 0 && (cell.newest_thread == me || barrier_prune_due(cell, acc, gen))
    };
    if cell.folded > 0 {
        // What looks at kept reads one by one below sees runs' members one by one.
        if again || full_prune_due(cell) || cheap_due(cell, kept(cell)) {
            unfold(cell);
        }
    }
    if again {
        drop_own_recent_read(&mut cell.earlier, acc);
    }
    let n = kept(cell);
    let in_cta = |r: &Acc| r.gtid.wrapping_sub(gen.1) < gen.2;
    // Reads of the same thread, or before a full-CTA barrier since, leave at once (cheap: no
    // clock lookup); the others once as many reads as the list holds have been added since the
    // last such pruning, so that a read costs O(1) amortised.
    let cheap = |r: &Acc| same(r) && (r.is(me) || (r.gen < gen.0 && in_cta(r)));
    cell.reads_since_prune = cell.reads_since_prune.saturating_add(1);
    let pruned = if n >= PRUNE_AT && usize::from(cell.reads_since_prune) >= n {
        cell.earlier
            .retain(|r| !(same(r) && (r.is(me) || hb(th, me, r, gen))));
        drop_reads_read_again(&mut cell.earlier);
        cell.reads_since_prune = 0;
        true
    } else if cheap_due(cell, n) {
        cell.earlier.retain(|r| !cheap(r));
        cell.barrier_pruned = (acc.pc, gen.0, gen.1);
        true
    } else {
        false
    };
    if pruned || n == 0 {
        let oldest = cell
            .earlier
            .iter()
            .filter(|r| in_cta(r))
            .map(|r| r.gen)
            .min();
        cell.oldest_gen = oldest.unwrap_or(u32::MAX);
    }
    if in_cta(acc) {
        cell.oldest_gen = cell.oldest_gen.min(acc.gen);
    }
    let one_cta = in_cta(acc)
        && (cell.earlier.is_empty()
            || cell.one_cta && cell.newest_thread.wrapping_sub(gen.1) < gen.2);
    cell.newest_thread = me;
    cell.one_cta = false;
    if cell
        .earlier
        .last()
        .is_some_and(|l| l.is_run() && joins_group(&l.newest_member(), acc, gen))
    {
        // The run's newest member is the entry a lane of its warp joins: it leaves the run.
        split_newest(cell);
    }
    if let Some(last) = cell.earlier.last_mut().filter(|l| joins_group(l, acc, gen)) {
        // The same read by another lane of the warp at the same clock joins its entry.
        join_group(last, me, gen);
        cell.one_cta = one_cta;
    } else if kept(cell) < MAX_EARLIER {
        match cell.earlier.last_mut() {
            Some(last) if extends_run(last, acc) => {
                fold(last, acc);
                cell.folded += 1;
            }
            _ => cell.earlier.push(*acc),
        }
        cell.one_cta = one_cta;
    }
}

/// The common case of a weak read, decided from the cell alone: `check` would find nothing
/// (the word has no earlier writes, and its last write, if any, is the thread's own or
/// precedes a full barrier of this CTA), no pruning is due, and the read joins the newest
/// entry's warp group, extends its run, or is added after it. Then it does what `check` and
/// [`add_read`] would have done and answers true; otherwise it changes nothing and answers
/// false. `again` as in [`add_read`].
#[inline]
pub(super) fn add_clean_read(
    gen: (u32, u32, u32),
    acc: &Acc,
    cell: &mut Cell,
    again: bool,
) -> bool {
    let me = acc.gtid;
    let in_cta = |g: u32| g.wrapping_sub(gen.1) < gen.2;
    if again || cell.earlier_writes > 0 || cell.newest_thread == me {
        return false;
    }
    if let Some(w) = &cell.write {
        if !(w.gtid == me || w.gen < gen.0 && in_cta(w.gtid)) {
            return false;
        }
    }
    let n = kept(cell);
    if full_prune_due(cell) || n > 0 && barrier_prune_due(cell, acc, gen) {
        return false;
    }
    let empty = cell.earlier.is_empty();
    let one_cta = in_cta(me) && (empty || cell.one_cta && in_cta(cell.newest_thread));
    // As `add_read` does on this path, in its order.
    match cell.earlier.last_mut() {
        Some(last) if last.is_run() && joins_group(&last.newest_member(), acc, gen) => {
            return false;
        }
        Some(last) if joins_group(last, acc, gen) => join_group(last, me, gen),
        Some(last) if n < MAX_EARLIER && extends_run(last, acc) => {
            fold(last, acc);
            cell.folded += 1;
        }
        _ if n < MAX_EARLIER => cell.earlier.push(*acc),
        _ => return false,
    }
    cell.reads_since_prune = cell.reads_since_prune.saturating_add(1);
    if empty {
        cell.oldest_gen = u32::MAX;
    }
    if in_cta(me) {
        cell.oldest_gen = cell.oldest_gen.min(acc.gen);
    }
    cell.one_cta = one_cta;
    cell.newest_thread = me;
    true
}

/// Whether the next read of `cell` prunes its history by clocks ([`add_read`]: once as many
/// reads as the history holds have been added since the last such pruning).
#[inline]
fn full_prune_due(cell: &Cell) -> bool {
    let n = kept(cell);
    n >= PRUNE_AT && usize::from(cell.reads_since_prune) + 1 >= n
}

/// Whether read `acc` drops the reads that precede a full barrier of its CTA ([`add_read`]'s
/// cheap pruning): some are older than the last one, and this instruction has not pruned
/// since.
#[inline]
fn barrier_prune_due(cell: &Cell, acc: &Acc, gen: (u32, u32, u32)) -> bool {
    cell.oldest_gen < gen.0 && cell.barrier_pruned != (acc.pc, gen.0, gen.1)
}

/// Accesses the history of `cell` holds (a run counts its members).
#[inline]
fn kept(cell: &Cell) -> usize {
    cell.earlier.len() + cell.folded as usize
}

/// Replaces each run of `cell`'s history by its members, in order.
fn unfold(cell: &mut Cell) {
    let mut out: SmallVec<[Acc; 1]> = SmallVec::with_capacity(kept(cell));
    for e in &cell.earlier {
        if e.is_run() {
            out.extend(e.members().map(|m| e.member(m)));
        } else {
            out.push(*e);
        }
    }
    cell.earlier = out;
    cell.folded = 0;
}

/// Takes the newest member out of the run that ends `cell`'s history, as an entry of its own
/// after it (a run of two leaves two single accesses).
fn split_newest(cell: &mut Cell) {
    let Some(last) = cell.earlier.last_mut().filter(|l| l.is_run()) else {
        return;
    };
    let newest = last.newest_member();
    last.lanes &= !(1 << (31 - last.lanes.leading_zeros().min(31)));
    if last.lanes == 1 {
        *last = last.member(last.gtid);
    }
    cell.earlier.push(newest);
    cell.folded = cell.folded.saturating_sub(1);
}

/// Whether read `acc` (a single access) can join `last`, the newest entry, as a run's next
/// member: a single thread's read or a run, of the same instruction, bytes, clock and barrier
/// generation, by a thread (no agent) further on at the run's step (two singles set it),
/// within 32 steps of the first member.
#[inline]
fn extends_run(last: &Acc, acc: &Acc) -> bool {
    if acc.lanes != 0 || acc.write || last.write || last.lanes != 0 && !last.is_run() {
        return false;
    }
    let same = last.pc == acc.pc
        && last.clk == acc.clk
        && last.gen == acc.gen
        && last.addr == acc.addr
        && last.size == acc.size
        && last.shared == acc.shared
        && last.fp == acc.fp;
    if !same || (acc.gtid | last.gtid) & AGENTS != 0 || acc.gtid <= last.gtid {
        return false;
    }
    let d = acc.gtid - last.gtid;
    if !last.is_run() {
        return true;
    }
    let top = 31 - last.lanes.leading_zeros().min(31);
    d.is_multiple_of(last.step) && d / last.step < 32 && d / last.step > top
}

/// Adds read `acc` to `last` as [`extends_run`] allows.
#[inline]
fn fold(last: &mut Acc, acc: &Acc) {
    if last.is_run() {
        last.lanes |= 1 << ((acc.gtid - last.gtid) / last.step);
    } else {
        last.step = acc.gtid - last.gtid;
        last.lanes = 0b11;
    }
}

/// Entries from the newest back that [`drop_own_recent_read`] looks through.
const RECENT: usize = 8;

/// Takes thread `acc.gtid`'s previous read of the same instruction and bytes out of the newest
/// [`RECENT`] entries (out of its warp group, or the entry itself): `acc`, later in program
/// order, stands for it. A warp spinning on a flag then keeps one entry per warp, not one
/// per round.
fn drop_own_recent_read(earlier: &mut SmallVec<[Acc; 1]>, acc: &Acc) {
    let me = acc.gtid;
    let stop = earlier.len().saturating_sub(RECENT);
    for i in (stop..earlier.len()).rev() {
        let r = &mut earlier[i];
        if r.write || r.pc != acc.pc || r.addr != acc.addr || r.size != acc.size {
            continue;
        }
        if r.is(me) {
            earlier.remove(i);
            return;
        }
        let bit = me.wrapping_sub(r.gtid);
        if r.lanes != 0 && bit < 32 && r.lanes & 1 << bit != 0 {
            r.lanes &= !(1 << bit);
            if r.lanes.is_power_of_two() {
                r.gtid += r.lanes.trailing_zeros();
                r.lanes = 0;
            }
            return;
        }
    }
}

/// Drops from the history each thread's read that the same thread read again later (the same
/// instruction and bytes): program order puts the old read before the new one, which stands
/// for it. A warp group loses those members (a spinning warp's reads of a flag would
/// otherwise pile up one group per round, since lanes of a warp are not ordered with each
/// other); a group left with one member becomes that thread's access.
fn drop_reads_read_again(earlier: &mut SmallVec<[Acc; 1]>) {
    // (instruction, address, size, 32-thread window) -> threads with a newer read.
    let mut seen: HashMap<(u32, u64, u8, u32), u32, BuildHasherDefault<WordHasher>> =
        HashMap::default();
    let mut keep = vec![true; earlier.len()];
    for (i, r) in earlier.iter_mut().enumerate().rev() {
        if r.write {
            continue;
        }
        let mut left = 0u32;
        for m in r.members() {
            let bits = seen.entry((r.pc, r.addr, r.size, m / 32)).or_insert(0);
            if *bits & 1 << (m % 32) == 0 {
                *bits |= 1 << (m % 32);
                left |= 1 << (m - r.gtid);
            }
        }
        if left == 0 {
            keep[i] = false;
        } else if r.lanes != 0 && left != r.lanes {
            if left.is_power_of_two() {
                r.gtid += left.trailing_zeros();
                r.lanes = 0;
            } else {
                r.lanes = left;
            }
        }
    }
    let mut i = 0;
    earlier.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

/// Thread `me`'s read joins `last`, the same read by other lanes of its warp
/// ([`joins_group`]): `last` becomes (or stays) the warp's group, with `me`'s lane added.
#[inline]
fn join_group(last: &mut Acc, me: u32, gen: (u32, u32, u32)) {
    let base = me - (me - gen.1) % 32;
    let had = if last.lanes == 0 {
        1 << (last.gtid - base)
    } else {
        last.lanes
    };
    last.lanes = had | 1 << (me - base);
    last.gtid = base;
}

/// Whether read `acc` (a single thread's, in the current CTA) can join the entry `last`: the
/// same instruction, bytes, clock and barrier generation, by another lane of the same warp
/// (never a run: its newest member is taken out of it first).
#[inline]
fn joins_group(last: &Acc, acc: &Acc, gen: (u32, u32, u32)) -> bool {
    let t = acc.gtid.wrapping_sub(gen.1);
    if t >= gen.2 || last.write || acc.lanes != 0 || last.is_run() {
        return false;
    }
    let base = acc.gtid - t % 32;
    let same = last.pc == acc.pc
        && last.clk == acc.clk
        && last.gen == acc.gen
        && last.addr == acc.addr
        && last.size == acc.size
        && last.shared == acc.shared;
    let off = last.gtid.wrapping_sub(base);
    same && off < 32
        && last.gtid.wrapping_sub(gen.1) < gen.2
        && if last.lanes == 0 {
            last.gtid != acc.gtid
        } else {
            last.gtid == base
        }
}
