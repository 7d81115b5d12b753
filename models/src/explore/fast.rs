//! Checks 2 and 3 of the module docs on executions of at most 64 events, with each relation
//! a row of one word per event on the stack: the same relations as
//! [`crate::ptx::Statics::cause`] and [`crate::ptx::Statics::check`] build with an empty
//! Fence-SC order and barrier matching, without allocating one. Executions with a proxy fence
//! or an alias fence take the general path. Debug builds check every answer against it.
//!
//! Coherence and causality look only at what changed since the last check on the search path
//! ([`Memo`], kept per search depth); why that is enough is Lemma 9 of
//! docs/spec/explorer.md.

use super::pairs::{ACQ_PAT, DEPS, PFO, REL_PAT, RMW};
use super::search::Search;
use crate::ptx::Model;
use crate::rel::Rel;

/// The most events handled here (one word per row).
const MAX: usize = 64;

/// `a ; b` over `n` rows.
fn seq<const N: usize>(a: &[u64], b: &[u64], n: usize) -> [u64; N] {
    let mut out = [0; N];
    for (o, &row) in out[..n].iter_mut().zip(a) {
        let mut bits = row;
        let mut acc = 0;
        while bits != 0 {
            acc |= b[bits.trailing_zeros() as usize];
            bits &= bits - 1;
        }
        *o = acc;
    }
    out
}

/// `a+`, in place (Warshall: row `k` does not change while `k` is the pivot).
fn plus(a: &mut [u64]) {
    // Only an event with pairs both into it and out of it can be a pivot that adds a pair.
    let mut pivots = a.iter().fold(0, |acc, &r| acc | r);
    while pivots != 0 {
        let k = pivots.trailing_zeros() as usize;
        pivots &= pivots - 1;
        let (bit, rk) = (1u64 << k, a[k]);
        if rk == 0 {
            continue;
        }
        for row in a.iter_mut() {
            if *row & bit != 0 {
                *row |= rk;
            }
        }
    }
}

/// Adds the pair `(a, b)` to the transitive relation `c`, keeping it transitive: every event
/// that reaches `a`, and `a`, now reaches `b` and what `b` reaches.
fn insert(c: &mut [u64], a: usize, b: usize) {
    let add = c[b] | 1 << b;
    let abit = 1u64 << a;
    for (x, row) in c.iter_mut().enumerate() {
        if x == a || *row & abit != 0 {
            *row |= add;
        }
    }
}

/// Whether `a` relates no event to itself.
fn irreflexive(a: &[u64]) -> bool {
    a.iter().enumerate().all(|(i, r)| r >> i & 1 == 0)
}

/// Whether `a` has no cycle.
fn acyclic<const N: usize>(a: &[u64]) -> bool {
    let mut c = [0; N];
    c[..a.len()].copy_from_slice(a);
    plus(&mut c[..a.len()]);
    irreflexive(&c[..a.len()])
}

/// `a?`, in place.
fn opt(a: &mut [u64]) {
    for (i, r) in a.iter_mut().enumerate() {
        *r |= 1 << i;
    }
}

/// What the last check on a search path kept of the relations causality looks at, for the
/// next check on the path to look only at the pairs added since ([`Search::fast_check`]).
#[derive(Clone)]
pub(super) struct Memo {
    /// Whether it was made after the move now at its depth (set by the check, cleared when a
    /// move is applied at that depth).
    pub(super) valid: bool,
    n: usize,
    /// `rf | fr` and causality, rows of the first `n` events.
    from: [u64; MAX],
    cause: [u64; MAX],
}

impl Default for Memo {
    fn default() -> Memo {
        Memo {
            valid: false,
            n: 0,
            from: [0; MAX],
            cause: [0; MAX],
        }
    }
}

fn rows(r: &Rel) -> &[u64] {
    r.rows1().unwrap_or(&[])
}

impl Search<'_> {
    /// Checks 2 and 3 on the present partial execution, keeping the closed coherence in
    /// `self.ch.co` (the one before is returned with the verdict), and whether check 4 (a
    /// deferred read doomed by causality, [`Search::doomed`]) drops it; `None` when the
    /// execution is not one handled here.
    pub(super) fn fast_check(&mut self) -> Option<(bool, Option<Rel>, bool)> {
        let n = self.ids.len();
        if n > MAX || self.ch.rf.rows1().is_none() {
            return None;
        }
        // Rows on the stack, as few as the execution needs.
        if n <= 16 {
            self.fast_check_n::<16>()
        } else if n <= 32 {
            self.fast_check_n::<32>()
        } else {
            self.fast_check_n::<MAX>()
        }
    }

    fn fast_check_n<const N: usize>(&mut self) -> Option<(bool, Option<Rel>, bool)> {
        let n = self.ids.len();
        let ls = &self.ls;
        let rf = &rows(&self.ch.rf)[..n];
        let (ms, rmw) = (&rows(&ls.ms)[..n], &rows(&ls.rmw)[..n]);
        let (w, loc) = (ls.w.word0(), &rows(&ls.loc)[..n]);
        // Base causality too, for check 4 (none under SC, which has no causality order).
        let mut base = [0; N];
        let cause = match ls.model {
            Model::Sc => [0; N],
            Model::PtxV75 => {
                if (self.has(PFO) && !ls.pfo.is_empty()) || ls.alias.word0() != 0 {
                    return None;
                }
                let mut obs = [0; N];
                for i in 0..n {
                    obs[i] = ms[i] & rf[i] | rmw[i];
                }
                let mut obs_plus = obs;
                if self.may_sync() {
                    plus(&mut obs_plus[..n]);
                }
                let cb = self.cause_base::<N>(&obs_plus[..n]);
                base = cb;
                // Proxy-preserved causality without proxy or alias fences: its first two
                // clauses.
                let (gen, m) = (ls.gen.word0(), ls.m.word0());
                let (vloc, sp, scta) = (rows(&ls.vloc), rows(&ls.same_proxy), rows(&ls.scta));
                let mut pp = [0; N];
                for i in 0..n {
                    let vcb = vloc[i] & cb[i];
                    if gen >> i & 1 == 1 {
                        pp[i] = vcb & gen;
                    }
                    if m & !gen != 0 && m >> i & 1 == 1 {
                        pp[i] |= sp[i] & scta[i] & vcb & m;
                    }
                }
                opt(&mut obs[..n]);
                seq::<N>(&obs[..n], &pp[..n], n)
            }
            Model::PtxV60 => {
                let mut ms_rf = [0; N];
                for i in 0..n {
                    ms_rf[i] = ms[i] & rf[i];
                }
                // obs = ms_rf ; (rmw ; ms_rf)*
                let mut chain = seq::<N>(rmw, &ms_rf[..n], n);
                plus(&mut chain[..n]);
                opt(&mut chain[..n]);
                let obs = seq::<N>(&ms_rf[..n], &chain[..n], n);
                let cb = self.cause_base::<N>(&obs[..n]);
                base = cb;
                let po_loc = rows(&ls.po_loc);
                let mut tail = [0; N];
                for i in 0..n {
                    tail[i] = cb[i] | po_loc[i];
                }
                let mut c = seq::<N>(&obs[..n], &tail[..n], n);
                for i in 0..n {
                    c[i] |= cb[i];
                }
                c
            }
        };
        // Coherence: the chosen edges and `[W];cause;[W] & loc`, closed. Both only grow along
        // a search path, so the closure is the one kept for the partial execution before
        // (`self.ch.co`, over the events before the new one) with the new pairs inserted.
        let co = rows(&self.co);
        let mut closed = [0; N];
        closed[..n].copy_from_slice(&rows(&self.ch.co)[..n]);
        let mut changed = false;
        for i in 0..n {
            let mut want = co[i];
            if w >> i & 1 == 1 {
                want |= cause[i] & w & loc[i];
            }
            let mut new = want & !closed[i];
            while new != 0 {
                insert(&mut closed[..n], i, new.trailing_zeros() as usize);
                changed = true;
                new &= !closed[i];
            }
        }
        if !irreflexive(&closed[..n]) {
            return Some((false, None, false));
        }
        // fr = rf^-1 ; co: a read's row is its source's.
        let mut fr = [0; N];
        for (i, &row) in rf.iter().enumerate() {
            let mut bits = row;
            while bits != 0 {
                fr[bits.trailing_zeros() as usize] = closed[i];
                bits &= bits - 1;
            }
        }
        let mut from = [0; N];
        for i in 0..n {
            from[i] = rf[i] | fr[i];
        }
        let ok =
            self.axioms::<N>(rf, &closed[..n], &fr[..n]) && self.causality(&from[..n], &cause[..n]);
        if ok {
            let d = self.path.len();
            if self.memo.len() <= d {
                self.memo.resize(d + 1, Memo::default());
            }
            let m = &mut self.memo[d];
            m.valid = true;
            m.n = n;
            m.from[..n].copy_from_slice(&from[..n]);
            m.cause[..n].copy_from_slice(&cause[..n]);
        }
        // An unchanged closure stays where it is (nothing to restore).
        let old = changed.then(|| {
            let mut new = self.spare.pop().unwrap_or_else(|| Rel::empty(self.cap));
            if let Some(out) = new.rows1_mut() {
                out[..n].copy_from_slice(&closed[..n]);
                out[n..].fill(0);
            }
            std::mem::replace(&mut self.ch.co, new)
        });
        let doomed = ok && ls.model != Model::Sc && self.doomed(Some(&base[..n]));
        Some((ok, old, doomed))
    }

    /// Whether the universe's events can have a pair of relation `bit` ([`super::pairs::Pairs::present`]).
    fn has(&self, bit: u16) -> bool {
        self.us.present & bit != 0
    }

    /// Whether synchronisation can have a pair: some release pattern and some acquire pattern
    /// (flags of the universe first, as looking at the relations costs a pass over them).
    fn may_sync(&self) -> bool {
        self.has(REL_PAT)
            && self.has(ACQ_PAT)
            && !self.ls.rel_pat.is_empty()
            && !self.ls.acq_pat.is_empty()
    }

    /// Base causality with an empty Fence-SC order and barrier matching, `obs_chain` the
    /// observation chain `sync` goes through (`obs+` in v7.5, `obs` in v6.0).
    fn cause_base<const N: usize>(&self, obs_chain: &[u64]) -> [u64; N] {
        let ls = &self.ls;
        let n = obs_chain.len();
        let po = &rows(&ls.po)[..n];
        let mut sb = [0; N];
        if self.may_sync() {
            let t = seq::<N>(&rows(&ls.rel_pat)[..n], obs_chain, n);
            let t = seq::<N>(&t[..n], rows(&ls.acq_pat), n);
            let ms = rows(&ls.ms);
            for i in 0..n {
                sb[i] = ms[i] & t[i];
            }
        }
        let v75 = ls.model == Model::PtxV75;
        if sb[..n].iter().all(|&r| r == 0) {
            let mut out = [0; N];
            if v75 {
                out[..n].copy_from_slice(po);
            }
            return out;
        }
        let mut po_opt = [0; N];
        po_opt[..n].copy_from_slice(po);
        opt(&mut po_opt[..n]);
        let mut s = seq::<N>(&sb[..n], &po_opt[..n], n);
        plus(&mut s[..n]);
        let mut cb = seq::<N>(&po_opt[..n], &s[..n], n);
        if v75 {
            for i in 0..n {
                cb[i] |= po[i];
            }
        }
        cb
    }

    /// The axioms of [`crate::ptx::Statics::check`] with an empty Fence-SC order and barrier
    /// matching, on `n`-event rows.
    fn axioms<const N: usize>(&self, rf: &[u64], co: &[u64], fr: &[u64]) -> bool {
        let ls = &self.ls;
        let n = rf.len();
        let (po, ms, rmw) = (&rows(&ls.po)[..n], &rows(&ls.ms)[..n], &rows(&ls.rmw)[..n]);
        // No write between an RMW's read and its write: `(fr' ; co') & rmw` empty, with fr'
        // and co' restricted to morally strong pairs outside SC.
        let sc = ls.model == Model::Sc;
        if self.has(RMW) && rmw.iter().any(|&r| r != 0) {
            let mut co_m = [0; N];
            for i in 0..n {
                co_m[i] = if sc { co[i] } else { co[i] & ms[i] };
            }
            for i in 0..n {
                let fr_m = if sc { fr[i] } else { fr[i] & ms[i] };
                if rmw[i] != 0 && seq::<1>(&[fr_m], &co_m[..n], 1)[0] & rmw[i] != 0 {
                    return false;
                }
            }
        }
        let mut r = [0; N];
        if sc {
            for i in 0..n {
                r[i] = po[i] | rf[i] | co[i] | fr[i];
            }
            return acyclic::<N>(&r[..n]);
        }
        let deps = &rows(&ls.deps)[..n];
        if self.has(DEPS) && deps.iter().any(|&d| d != 0) {
            for i in 0..n {
                r[i] = rf[i] | deps[i];
            }
            if !acyclic::<N>(&r[..n]) {
                return false;
            }
        }
        if ls.model == Model::PtxV60 {
            let po_loc = rows(&ls.po_loc);
            for i in 0..n {
                r[i] = ms[i] & (rf[i] | co[i] | fr[i]) | po_loc[i];
            }
            if !acyclic::<N>(&r[..n]) {
                return false;
            }
        }
        true
    }

    /// Causality, `irreflexive((rf | fr) ; cause)`, with `from` = `rf | fr`. Both relations
    /// only grow along a search path, and the last check on the path ([`Memo`]) found no pair
    /// of the two closing a loop, so only pairs added since can close one.
    fn causality(&self, from: &[u64], cause: &[u64]) -> bool {
        let d = self.path.len().min(self.memo.len());
        let prev = self.memo[..d].iter().rev().find(|m| m.valid);
        let (old_from, old_cause) = prev.map_or((&[][..], &[][..]), |m| {
            let k = m.n.min(from.len());
            (&m.from[..k], &m.cause[..k])
        });
        for x in 0..from.len() {
            let (f0, c0) = (
                old_from.get(x).copied().unwrap_or(0),
                old_cause.get(x).copied().unwrap_or(0),
            );
            // New `from` pairs (x, y): is y causally before x?
            let mut bits = from[x] & !f0;
            while bits != 0 {
                let y = bits.trailing_zeros() as usize;
                if cause[y] >> x & 1 == 1 {
                    return false;
                }
                bits &= bits - 1;
            }
            // New causality pairs (x, y): does y read from or before x?
            let mut bits = cause[x] & !c0;
            while bits != 0 {
                let y = bits.trailing_zeros() as usize;
                if from[y] >> x & 1 == 1 {
                    return false;
                }
                bits &= bits - 1;
            }
        }
        true
    }
}
