//! Shadow-memory cells: whether an access races with a cell's last write and kept reads,
//! and how a read is kept (pruned of reads it covers, joined to a warp group of the same read).

use models::vocab::Scope;
use smallvec::SmallVec;

use super::super::op::{RaceOp, Sem};
use super::super::shadow::{Acc, Cell, MAX_READS};
use super::super::RaceShared;
use super::{ms, Thread, PRUNE_AT};

fn strong(sh: &RaceShared, a: &Acc) -> bool {
    matches!(sh.ops.get(a.pc as usize).and_then(RaceOp::mem), Some((_, sem, _)) if sem.strong())
}

/// Whether access `p` happens before thread `me`'s current point. Fast path: a barrier at
/// which every thread of the CTA waited completed after `p`, in `p`'s CTA (`gen` counts them).
#[inline]
fn hb(th: &Thread, me: u32, p: &Acc, gen: (u32, u32, u32)) -> bool {
    if p.lanes != 0 {
        // A warp's group (one CTA): the barrier holds for all, or each member is ordered.
        return (p.gen < gen.0 && p.gtid.wrapping_sub(gen.1) < gen.2)
            || p.members().all(|m| m == me || th.base.get(m) >= p.clk);
    }
    p.gtid == me
        || (p.gen < gen.0 && p.gtid.wrapping_sub(gen.1) < gen.2)
        || th.base.get(p.gtid) >= p.clk
}

/// Checks `acc` against the cell's last write and, when `acc` writes, its reads.
pub(super) fn check(
    sh: &RaceShared,
    gen: (u32, u32, u32),
    (th, me): (&Thread, u32),
    acc: &Acc,
    cs: (Sem, Option<Scope>),
    cell: &Cell,
    found: &mut SmallVec<[Acc; 2]>,
) {
    let racy = |p: &Acc| p.overlaps(acc) && !hb(th, me, p, gen) && !ms(sh, p, acc, cs);
    if let Some(w) = &cell.write {
        if racy(w) && !found.contains(w) {
            found.push(*w);
        }
    }
    if acc.write && !reads_before_barrier(cell, gen) {
        for r in &cell.reads {
            if racy(r) && !found.iter().any(|f| f.pc == r.pc) {
                // A group's first member that is not ordered stands for it.
                let m = r.members().map(|m| r.member(m)).find(|m| racy(m));
                found.extend(m);
            }
        }
    }
}

/// Whether every kept read of the cell is by a thread of the current CTA (`gen` as in [`hb`])
/// and precedes a full barrier of it (so each is ordered before the current access).
#[inline]
fn reads_before_barrier(cell: &Cell, gen: (u32, u32, u32)) -> bool {
    cell.reads_one_cta
        && cell.last_reader.wrapping_sub(gen.1) < gen.2
        && cell.reads.last().is_some_and(|r| r.gen < gen.0)
}

pub(super) fn add_read(
    sh: &RaceShared,
    gen: (u32, u32, u32),
    th: &Thread,
    acc: &Acc,
    sem: Sem,
    cell: &mut Cell,
) {
    let me = acc.gtid;
    let n = cell.reads.len();
    // A read ordered before this one (and no stronger) is covered by it. Reads of the same
    // thread, or before a full-CTA barrier since, are dropped at once (cheap: no clock
    // lookup); the others when the list has doubled, so that a read costs O(1) amortised.
    let covered = |r: &Acc| !sem.strong() || strong(sh, r);
    let cheap =
        |r: &Acc| r.is(me) || (r.gen < gen.0 && r.gtid.wrapping_sub(gen.1) < gen.2 && covered(r));
    let in_cta = |r: &Acc| r.gtid.wrapping_sub(gen.1) < gen.2;
    let pruned = if n >= PRUNE_AT && n.is_power_of_two() {
        cell.reads
            .retain(|r| !(r.is(me) || (hb(th, me, r, gen) && covered(r))));
        true
    } else if n > 0 && (cell.last_reader == me || cell.reads_gen < gen.0) {
        cell.reads.retain(|r| !cheap(r));
        true
    } else {
        false
    };
    if pruned || n == 0 {
        let oldest = cell.reads.iter().filter(|r| in_cta(r)).map(|r| r.gen).min();
        cell.reads_gen = oldest.unwrap_or(u32::MAX);
    }
    if in_cta(acc) {
        cell.reads_gen = cell.reads_gen.min(acc.gen);
    }
    let one_cta = in_cta(acc)
        && (cell.reads.is_empty()
            || cell.reads_one_cta && cell.last_reader.wrapping_sub(gen.1) < gen.2);
    cell.last_reader = me;
    cell.reads_one_cta = false;
    if let Some(last) = cell.reads.last_mut().filter(|l| joins_group(l, acc, gen)) {
        // The same read by another lane of the warp at the same clock joins its entry.
        let base = me - (me - gen.1) % 32;
        let had = if last.lanes == 0 {
            1 << (last.gtid - base)
        } else {
            last.lanes
        };
        last.lanes = had | 1 << (me - base);
        last.gtid = base;
        cell.reads_one_cta = one_cta;
    } else if cell.reads.len() < MAX_READS {
        cell.reads.push(*acc);
        cell.reads_one_cta = one_cta;
    }
}

/// Whether read `acc` (a single thread's, in the current CTA) can join the entry `last`: the
/// same instruction, bytes, clock and barrier generation, by another lane of the same warp.
#[inline]
fn joins_group(last: &Acc, acc: &Acc, gen: (u32, u32, u32)) -> bool {
    let t = acc.gtid.wrapping_sub(gen.1);
    if t >= gen.2 || last.write || acc.lanes != 0 {
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
