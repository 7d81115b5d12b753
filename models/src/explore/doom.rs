//! Check 4 of the module docs: deferred reads that every write able to serve them would follow
//! causally, so that none can (`rf ; cause` would be reflexive). A read of a plain location is
//! doomed when every unfinished thread that can still write its location and value is *bound
//! after* it: a seed (a present event base-causally after the read), or a thread waiting on a
//! *hand-off* read ([`handoff_reads`]) that only threads bound after the read, or the read's own
//! thread, can serve. The proof is Lemma 4 of docs/spec/explorer.md.

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

/// What check 4 reads of a state: the unfinished threads, each deferred read's writers (the
/// unfinished threads that can still write its location and value) and the deferred
/// hand-off reads of plain locations (thread, writers), threads as bits.
struct Ends {
    live: u64,
    writers: SmallVec<[u64; 8]>,
    handoffs: SmallVec<[(u64, u64); 8]>,
}

impl Search<'_> {
    /// The unfinished threads among `live` that can still write pair `p`; thread `moved`, if
    /// given, taken at that tree node.
    fn writers_of(&self, p: u32, live: u64, moved: Option<(usize, u32)>) -> u64 {
        let wr = &self.u.writable;
        (0..self.at.len())
            .filter(|&t| {
                let x = match moved {
                    Some((m, x)) if m == t => x,
                    _ => self.at[t],
                };
                live >> t & 1 == 1 && wr.can_write_pair(t, x, p)
            })
            .fold(0, |m, t| m | 1 << t)
    }

    /// [`Ends`] of the present state, thread `moved`, if given, taken at that tree node.
    fn ends(&self, moved: Option<(usize, u32)>) -> Ends {
        let ev = &self.u.events;
        let live = (0..self.at.len())
            .filter(|&t| self.ended[t].is_none())
            .fold(0, |m, t| m | 1 << t);
        let writers: SmallVec<[u64; 8]> = self
            .deferred
            .iter()
            .map(|&d| self.writers_of(self.u.writable.pair_of(self.ids[d]), live, moved))
            .collect();
        let handoffs = self
            .deferred
            .iter()
            .zip(&writers)
            .filter(|&(&d, _)| self.us.handoff(self.ids[d]) && self.plain_read(d))
            .map(|(&d, &w)| (1u64 << ev[self.ids[d]].thread.unwrap_or(0), w))
            .collect();
        Ends {
            live,
            writers,
            handoffs,
        }
    }

    /// Whether present event `d` (a local index) accesses a plain location.
    fn plain_read(&self, d: usize) -> bool {
        self.u
            .plain(self.u.events[self.ids[d]].loc.unwrap_or(u32::MAX))
    }

    /// Check 4 of the module docs: whether some deferred read of a plain location can only
    /// take a write of a thread bound after it. `cb` holds the rows of base causality over
    /// the present events; `None` after a quiet step (nothing is base-causally after a read
    /// just deferred, the last event of its thread; earlier deferred reads were looked at
    /// with their seeds before, so leaving those out only finds less). Threads are bits of a
    /// word: with more than 64 the check is not made (it only drops executions early).
    pub(super) fn doomed(&self, cb: Option<&[u64]>) -> bool {
        if self.at.len() > 64 || self.deferred.is_empty() {
            return false;
        }
        let ends = self.ends(None);
        let v75 = self.us.model == Model::PtxV75;
        self.deferred.iter().zip(&ends.writers).any(|(&r, &w)| {
            if !self.plain_read(r) {
                return false;
            }
            let own = 1u64 << self.u.events[self.ids[r]].thread.unwrap_or(0);
            // v7.5 has `po` in `cb`: the own thread's future events follow `r`.
            let mut seed = if v75 { own } else { 0 };
            if let Some(cb) = cb {
                for (t, evs) in self.events.iter().enumerate() {
                    if evs.iter().any(|&k| cb[r] >> k & 1 == 1) {
                        seed |= 1 << t;
                    }
                }
            }
            w & !seed == 0 || w & !bound_after(seed, own, ends.live, &ends.handoffs) == 0
        })
    }

    /// Whether deferring read `g` (a universe event) of thread `t`, at its tree node `c`,
    /// would fail check 4 on the quiet step that defers it: looked at before the move is
    /// built. It sees less than that check (the read itself is no hand-off read yet), so it
    /// drops no more.
    pub(super) fn defer_doomed(&self, t: usize, c: u32, g: usize) -> bool {
        let e = &self.u.events[g];
        if self.sc || self.at.len() > 64 || !self.u.plain(e.loc.unwrap_or(u32::MAX)) {
            return false;
        }
        let moved = Some((t, c));
        let ends = self.ends(moved);
        let w = self.writers_of(self.u.writable.pair_of(g), ends.live, moved);
        let own = 1u64 << t;
        let seed = if self.us.model == Model::PtxV75 {
            own
        } else {
            0
        };
        w & !seed == 0 || w & !bound_after(seed, own, ends.live, &ends.handoffs) == 0
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
