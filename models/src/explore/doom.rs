//! Check 4 of the module docs: deferred reads that every write able to serve them would follow
//! causally, so that none can (`rf ; cause` would be reflexive).
//!
//! A read `r` of a plain location is doomed when every unfinished thread that can still write
//! its location and value is *bound after* `r`: each of that thread's future events is
//! base-causally after `r` (`cb`) in every consistent completion. The threads bound after `r`
//! include the greatest set `A` of unfinished threads such that each `u` in `A`
//!
//! - has a present event `e` with `cb(r, e)` (a *seed*), or
//! - has a deferred *hand-off* read `a` ([`handoff_reads`]: an acquire read of a plain
//!   location that only release writes morally strong with it can serve) such that every
//!   unfinished thread that can write `a`'s location and value is in `A` or is `r`'s own
//!   thread.
//!
//! Why every future event `f` of `u ∈ A` is `cb`-after `r`, in a consistent completion: for a
//! seed, `f` is program-order after `e` and `cb ; po ⊆ cb`. Otherwise `f` is program-order
//! after `a` (present), and `a` reads a future write `W` of a thread `v` in `A` or `r`'s
//! thread; `W` is a release morally strong with `a`, so `sync(W, a)`. If `v` is `r`'s thread,
//! `W` is program-order after `r` and `po ; sb ; po ⊆ cb` gives `cb(r, f)`. If `v` is in `A`,
//! the same argument for `W` (a future event of `v`) gives `cb(r, W)` and `cb ; sb ; po ⊆ cb`
//! gives `cb(r, f)`. The argument does not go round for ever: the writes `W₁, W₂, …` it visits
//! satisfy `cb(Wᵢ₊₁, Wᵢ)` (`sb ; po`), and were one visited twice, `Wⱼ₊₁` would read-from
//! into a read `a` with `cb(a, Wⱼ₊₁)` (`po` then the cycle), a reflexive `rf ; cause` on
//! `a`'s plain location, which no consistent completion has. (`cb` is `po? ; (sb ; po?)+` in
//! v6.0, with `po` added in v7.5; both are transitive and absorb `po` on either side.)
//!
//! So `r`, on a plain location, reading a future write of a thread bound after it, would have
//! `rf(w, r)` and `cause(r, w)` (`cause ⊇ cb` between two generic accesses of one address):
//! the Causality axiom fails in every completion. A ticket lock's critical-section read that
//! waits for a thread still queued behind the lock is dropped at once, not when that thread
//! is finally synchronised after it.

use smallvec::SmallVec;

use super::pairs::Pairs;
use super::search::Search;
use crate::event::{Event, EventKind};
use crate::ptx::Model;

/// Per universe event: whether it is a *hand-off* read, an acquire read (the first and last
/// event of an acquire pattern) whose every possible source among the threads' writes of its
/// location and value is a strong release write morally strong with it. Whichever of those
/// writes it takes synchronises with it.
pub(super) fn handoff_reads(events: &[Event], us: &Pairs) -> Vec<bool> {
    let mut writes: std::collections::HashMap<(u32, i64), Vec<usize>> =
        std::collections::HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if e.kind == EventKind::Write && e.thread.is_some() {
            if let Some(l) = e.loc {
                writes.entry((l, e.value)).or_default().push(i);
            }
        }
    }
    events
        .iter()
        .enumerate()
        .map(|(a, e)| {
            e.kind == EventKind::Read
                && us.acquires(a)
                && e.loc.is_some_and(|l| {
                    writes
                        .get(&(l, e.value))
                        .is_none_or(|ws| ws.iter().all(|&w| us.releases(w) && us.ms_either(w, a)))
                })
        })
        .collect()
}

impl Search<'_> {
    /// Check 4 of the module docs: whether some deferred read of a plain location can only
    /// take a write of a thread bound after it. `cb` holds the rows of base causality over
    /// the present events; `None` after a quiet step (nothing is base-causally after a read
    /// just deferred, the last event of its thread; earlier deferred reads were looked at
    /// with their seeds before, so leaving those out only finds less). Threads are bits of a
    /// word: with more than 64 the check is not made (it only drops executions early).
    pub(super) fn doomed(&self, cb: Option<&[u64]>) -> bool {
        let n = self.at.len();
        if n > 64 || self.deferred.is_empty() {
            return false;
        }
        let (ev, wr) = (&self.u.events, &self.u.writable);
        let bit = |t: u32| 1u64 << t;
        let live = (0..n)
            .filter(|&t| self.ended[t].is_none())
            .fold(0, |m, t| m | 1 << t);
        // Per deferred read: the unfinished threads that can still write its value.
        let writers: SmallVec<[u64; 8]> = self
            .deferred
            .iter()
            .map(|&d| {
                let p = wr.pair_of(self.ids[d]);
                (0..n)
                    .filter(|&t| live >> t & 1 == 1 && wr.can_write_pair(t, self.at[t], p))
                    .fold(0, |m, t| m | 1 << t)
            })
            .collect();
        let plain = |d: usize| self.u.plain(ev[self.ids[d]].loc.unwrap_or(u32::MAX));
        let thread = |d: usize| ev[self.ids[d]].thread.unwrap_or(0);
        // The deferred hand-off reads: their thread and their writers.
        let handoffs: SmallVec<[(u64, u64); 8]> = self
            .deferred
            .iter()
            .zip(&writers)
            .filter(|&(&d, _)| self.us.handoff(self.ids[d]) && plain(d))
            .map(|(&d, &w)| (bit(thread(d)), w))
            .collect();
        let v75 = self.us.model == Model::PtxV75;
        self.deferred.iter().zip(&writers).any(|(&r, &w)| {
            if !plain(r) {
                return false;
            }
            let own = bit(thread(r));
            // v7.5 has `po` in `cb`: the own thread's future events follow `r`.
            let mut seed = if v75 { own } else { 0 };
            if let Some(cb) = cb {
                for (t, evs) in self.events.iter().enumerate() {
                    if evs.iter().any(|&k| cb[r] >> k & 1 == 1) {
                        seed |= 1 << t;
                    }
                }
            }
            w & !seed == 0 || w & !bound_after(seed, own, live, &handoffs) == 0
        })
    }
}

/// The greatest set of threads (bits) bound after a read of thread `own` (the module docs),
/// given the seeds and the unfinished threads: a thread that is no seed stays only while one
/// of its deferred hand-off reads (thread, writers) can be served by threads still in or by
/// `own` alone.
fn bound_after(seed: u64, own: u64, live: u64, handoffs: &[(u64, u64)]) -> u64 {
    let mut bound = seed | live;
    loop {
        let held = handoffs
            .iter()
            .filter(|&&(u, w)| bound & u != 0 && w & !(bound | own) == 0)
            .fold(0, |m, &(u, _)| m | u);
        let next = seed | (bound & held);
        if next == bound {
            return bound;
        }
        bound = next;
    }
}
