//! The checks of the module docs on a partial execution: the deferred reads' values can still
//! be written (check 1), coherence (check 2) and every axiom (check 3).

use smallvec::{smallvec, SmallVec};

use super::search::{Search, Undo};
use super::writable::loc_bit;
use crate::event::EventKind;
use crate::rel::Rel;

/// The present RMWs whose read has a source ([`Search::spent_writes`]): a few, inline.
pub(super) type Spent = SmallVec<[(usize, usize, usize); 8]>;

/// What check 1 looks at for an RMW's own read: the present writes (pair, local index), the
/// present RMWs that have read one (gathered when first needed, see
/// [`Search::spent_writes`]), and the answers so far by (instruction, pair).
struct Rmws {
    writes: SmallVec<[(u32, usize); 32]>,
    spent: Option<Spent>,
    memo: SmallVec<[(usize, u32, bool); 16]>,
}

impl Search<'_> {
    /// The checks of the module docs on the current partial execution; updates the closed
    /// coherence, keeping the one before in `undo`.
    /// `quiet`: the last move changed no relation that a check reads (see [`super::moves::quiet`]).
    pub(super) fn consistent(&mut self, quiet: bool, undo: &mut Undo) -> bool {
        let wr = &self.u.writable;
        for &r in &self.deferred {
            let p = wr.pair_of(self.ids[r]);
            let possible = (0..self.at.len())
                .any(|t| self.ended[t].is_none() && wr.can_write_pair(t, self.at[t], p));
            if !possible {
                return false;
            }
        }
        if !self.deferred.is_empty() && !self.deferred_producible() {
            return false;
        }
        if quiet {
            // A read just deferred may already be doomed (check 4) by the threads queued
            // behind it.
            let fresh = self.deferred.last() == Some(&(self.ids.len() - 1));
            return !(fresh && !self.sc && self.doomed(None));
        }
        #[cfg(debug_assertions)]
        let general = self.general_check();
        if let Some((ok, old, doomed)) = self.fast_check() {
            #[cfg(debug_assertions)]
            {
                assert_eq!(ok, general.0, "fast and general checks disagree");
                if let Some(closed) = general.1.filter(|_| ok) {
                    assert_eq!(closed, self.ch.co, "fast and general coherence disagree");
                }
            }
            undo.closed = old;
            return ok && !doomed;
        }
        let (ok, closed) = self.general_check();
        if let Some(closed) = closed {
            undo.closed = Some(std::mem::replace(&mut self.ch.co, closed));
        }
        ok
    }

    /// Checks 2 and 3 with the relation algebra of [`crate::ptx::Statics`]: the verdict, and
    /// the closed coherence unless it is cyclic.
    fn general_check(&self) -> (bool, Option<Rel>) {
        let (cause, co_all) = self.cause_and_co(&self.ch.sc, &self.ch.syncbar);
        let closed = co_all.plus();
        if !closed.irreflexive() {
            return (false, None);
        }
        let ch = crate::ptx::Choice {
            rf: self.ch.rf.clone(),
            co: closed,
            sc: self.ch.sc.clone(),
            syncbar: self.ch.syncbar.clone(),
        };
        let ok = self.ls.check(&ch, &cause).is_ok();
        (ok, Some(ch.co))
    }

    /// Whether every deferred read's value can still be written by a write whose own path
    /// can read what it depends on, by a chain of writes no longer than the unfinished
    /// threads can make (check 1 of the module docs). `F` is the least set of (location,
    /// value) pairs that the unfinished threads can write below where they are, counting a
    /// write only when each read it depends on reads a present write's value or one of `F`;
    /// each pair of `F` gets the least `depth`: one plus the largest depth of the pairs of its
    /// own location that a write of it depends on and that no present write has, minimised
    /// over the writes of the pair. A deferred read's pair must be in `F`, and its depth at
    /// most the writes to its location that the unfinished threads can still make.
    ///
    /// `F` and the depths are computed in rounds over the writes below the threads' nodes
    /// whose locations the deferred reads' pairs can depend on ([`super::writable`]'s
    /// `reach`: other pairs' depths cannot change theirs), each round only adding pairs and
    /// lowering depths, stopping at the write that makes every deferred read's pair deep
    /// enough, or when a round changes nothing. An RMW's own read is
    /// looked at for atomicity (its pair counted as present only if a present write of it is
    /// not spent) only when that pair is present.
    fn deferred_producible(&self) -> bool {
        let wr = &self.u.writable;
        let ev = &self.u.events;
        let mut present: SmallVec<[bool; 64]> = smallvec![false; wr.pairs()];
        let mut writes: SmallVec<[(u32, usize); 32]> = SmallVec::new();
        for (i, &g) in self.ids.iter().enumerate() {
            if ev[g].kind == EventKind::Write {
                let p = wr.pair_of(g);
                present[p as usize] = true;
                writes.push((p, i));
            }
        }
        let live: SmallVec<[usize; 8]> = (0..self.at.len())
            .filter(|&t| self.ended[t].is_none())
            .collect();
        let targets: SmallVec<[(u32, u32); 8]> = self
            .deferred
            .iter()
            .map(|&r| {
                let p = wr.pair_of(self.ids[r]);
                let loc = wr.loc(p);
                let left = live
                    .iter()
                    .map(|&t| wr.writes_left(t, self.at[t], loc))
                    .sum();
                (p, left)
            })
            .collect();
        // A target is met only when its depth falls, where the loop below looks.
        if targets.is_empty() {
            return true;
        }
        // Only the locations the deferred reads' depths are computed from matter.
        let relevant = targets
            .iter()
            .fold(0u64, |m, &(p, _)| m | wr.reach(wr.loc(p)));
        let mut depth: SmallVec<[u32; 64]> = smallvec![u32::MAX; wr.pairs()];
        let mut rmws = Rmws {
            writes,
            spent: None,
            memo: SmallVec::new(),
        };
        loop {
            let mut changed = false;
            for &t in &live {
                for &(w, req_id) in wr.below(t, self.at[t]) {
                    if relevant & loc_bit(wr.loc(w)) == 0 {
                        continue;
                    }
                    let req = &wr.reqs[req_id as usize];
                    let mut d = 1u32;
                    let mut ok = true;
                    for &r in &req.need {
                        let own = req.rmw.filter(|&(_, p)| p == r);
                        if present[r as usize] {
                            let Some((rep, _)) = own else { continue };
                            if !self.rmw_blocked(rep, r, &mut rmws) {
                                continue;
                            }
                        }
                        let dr = depth[r as usize];
                        if dr == u32::MAX {
                            ok = false;
                            break;
                        }
                        if wr.loc(r) == wr.loc(w) {
                            d = d.max(dr + 1);
                        }
                    }
                    if ok && d < depth[w as usize] {
                        depth[w as usize] = d;
                        changed = true;
                        // Stop at the write that meets the last target (most checks pass).
                        if targets.iter().any(|&(p, _)| p == w)
                            && targets.iter().all(|&(p, left)| depth[p as usize] <= left)
                        {
                            return true;
                        }
                    }
                }
            }
            if !changed {
                return false;
            }
        }
    }

    /// Whether every present write of pair `p`, which the RMW whose write's instruction is
    /// first seen at `rep` reads, is spent: read by a present RMW that atomicity keeps from
    /// sharing it with this one. The present RMWs and the answers are kept in `rmws` for the
    /// rest of the check.
    fn rmw_blocked(&self, rep: usize, p: u32, rmws: &mut Rmws) -> bool {
        if let Some(&(_, _, b)) = rmws.memo.iter().find(|&&(x, q, _)| (x, q) == (rep, p)) {
            return b;
        }
        let spent = rmws.spent.get_or_insert_with(|| self.spent_writes());
        let r2 = self.u.writable.rmw_read[rep] as usize;
        let b = rmws.writes.iter().filter(|&&(q, _)| q == p).all(|&(_, i)| {
            spent
                .iter()
                .any(|&(s, r1, w1)| s == i && self.rmw_clash(i, r1, w1, r2, rep))
        });
        rmws.memo.push((rep, p, b));
        b
    }

    /// The present RMWs (both halves present) whose read has a source: that source (a local
    /// index), the read and the write (universe events).
    pub(super) fn spent_writes(&self) -> Spent {
        let ev = &self.u.events;
        let inits = self.u.inits;
        let mut out = Spent::new();
        for (k, &g) in self.ids.iter().enumerate().skip(inits) {
            let r = self.u.writable.rmw_read[g];
            if ev[g].kind != EventKind::Write || r == u32::MAX {
                continue;
            }
            let r = r as usize;
            let Some(j) = self.ids[..k].iter().rposition(|&h| h == r) else {
                continue;
            };
            if let Some(i) = (0..k).find(|&i| self.ch.rf.has(i, j)) {
                out.push((i, r, g));
            }
        }
        out
    }

    /// Whether RMWs `(r1, w1)` and `(r2, w2)` (universe events) cannot both read the present
    /// write `w0` (a local index), `r1` reading it already: atomicity's `(fr ; co) & rmw` on
    /// their morally strong pairs (every pair under SC), whichever of `w1`, `w2` is
    /// coherence-first. Both writes are coherence-after `w0`: an initial write comes first;
    /// another under SC by acyclicity (`w0 rf r po w`), and in the PTX models, on a plain
    /// location, by the Coherence lower bound, `w0` being observed by the read and so
    /// causally before the write (`obs ; po` lies in causality: v7.5's proxy-preserved base
    /// causality holds program order on generic same-address pairs, v6.0's causality ends in
    /// `po_loc`).
    pub(super) fn rmw_clash(&self, w0: usize, r1: usize, w1: usize, r2: usize, w2: usize) -> bool {
        if self.sc {
            return true;
        }
        let ms = |a, b| self.us.ms_either(a, b);
        let g0 = self.ids[w0];
        let ordered = w0 < self.u.inits
            || (self.u.plain(self.u.events[g0].loc.unwrap_or(u32::MAX))
                && ms(g0, r1)
                && ms(g0, r2));
        ordered && ms(r2, w1) && ms(r1, w2) && ms(w1, w2)
    }

    /// Causality under a Fence-SC order and barrier matching, and the chosen coherence edges
    /// with the Coherence lower bound it gives.
    pub(super) fn cause_and_co(&self, sc: &Rel, bar: &Rel) -> (Rel, Rel) {
        if self.sc {
            return (Rel::empty(self.cap), self.co.clone());
        }
        let cause = self.ls.cause(&self.ch.rf, sc, bar);
        let lower = cause.restrict(&self.ls.w, &self.ls.w).inter(&self.ls.loc);
        let co_all = self.co.union(&lower);
        (cause, co_all)
    }
}
