//! The checks of the module docs on a partial execution: the deferred reads' values can still
//! be written (check 1), coherence (check 2) and every axiom (check 3).

use super::search::Search;
use crate::event::EventKind;
use crate::ptx::Choice;
use crate::rel::Rel;

impl Search<'_> {
    /// The checks of the module docs on the current partial execution; updates `closed`.
    /// `quiet`: the last move changed no relation that a check reads (see [`quiet`]).
    pub(super) fn consistent(&mut self, quiet: bool) -> bool {
        let ev = &self.u.events;
        for &r in &self.deferred {
            let e = &ev[self.ids[r]];
            let loc = e.loc.unwrap_or(u32::MAX);
            let possible = (0..self.at.len())
                .any(|t| self.ended[t].is_none() && self.u.can_write(t, self.at[t], loc, e.value));
            if !possible {
                return false;
            }
        }
        if !self.deferred.is_empty() && !self.deferred_producible() {
            return false;
        }
        if quiet {
            return true;
        }
        let none = Rel::empty(self.cap);
        let (cause, co_all) = self.cause_and_co(&none, &none);
        let closed = co_all.plus();
        if !closed.irreflexive() {
            return false;
        }
        let ch = Choice {
            rf: self.rf.clone(),
            co: closed,
            sc: none.clone(),
            syncbar: none,
        };
        let ok = self.ls.check(&ch, &cause).is_ok();
        self.closed = ch.co;
        ok
    }

    /// Whether every deferred read's value can still be written by a write whose own path
    /// can read what it depends on (check 1 of the module docs): the least set `F` of
    /// (location, value) pairs that the unfinished threads can write below where they are,
    /// counting a write only when each read it depends on reads a present write's value or
    /// one of `F`.
    fn deferred_producible(&self) -> bool {
        let ev = &self.u.events;
        let key = |g: usize| (ev[g].loc.unwrap_or(u32::MAX), ev[g].value);
        let mut present: Vec<(u32, i64)> = self
            .ids
            .iter()
            .filter(|&&g| ev[g].kind == EventKind::Write)
            .map(|&g| key(g))
            .collect();
        present.sort_unstable();
        present.dedup();
        let mut future: Vec<(u32, i64)> = Vec::new();
        let live: Vec<usize> = (0..self.at.len())
            .filter(|&t| self.ended[t].is_none())
            .collect();
        loop {
            let mut grew = false;
            for &t in &live {
                for (w, need) in self.u.writes_below(t, self.at[t]) {
                    if future.contains(&w) {
                        continue;
                    }
                    let ok = need
                        .iter()
                        .all(|r| present.binary_search(r).is_ok() || future.contains(r));
                    if ok {
                        future.push(w);
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        self.deferred
            .iter()
            .all(|&r| future.contains(&key(self.ids[r])))
    }

    /// Causality under a Fence-SC order and barrier matching, and the chosen coherence edges
    /// with the Coherence lower bound it gives.
    pub(super) fn cause_and_co(&self, sc: &Rel, bar: &Rel) -> (Rel, Rel) {
        if self.sc {
            return (Rel::empty(self.cap), self.co.clone());
        }
        let cause = self.ls.cause(&self.rf, sc, bar);
        let lower = cause.restrict(&self.ls.w, &self.ls.w).inter(&self.ls.loc);
        let co_all = self.co.union(&lower);
        (cause, co_all)
    }
}
