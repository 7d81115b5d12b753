//! Enumerating the candidate executions of an event skeleton and judging each.
//!
//! A candidate chooses, for every read, a write of the same physical location and value
//! (reads-from); a total order of the `fence.sc` events, restricted to the pairs whose scopes
//! include each other (the Fence-SC order); one of the barrier matchings the caller supplies;
//! and a coherence order.
//!
//! Coherence is partial in PTX. Causality does not depend on it, so for each (rf, sc, barrier)
//! choice the enumerator builds the *smallest* coherence order the axioms demand — initial
//! writes first, plus `[W];cause;[W] & loc` (the Coherence axiom) — and then each orientation of
//! the remaining write pairs that must be ordered (morally strong pairs, Coherence2; every pair
//! for SC). A smaller coherence order only removes from-reads edges, so no allowed outcome is
//! lost (litmus-format spec §3.6, "minimal-co trick"), and its co-maximal writes are exactly
//! the possible final values.
//!
//! Choices that break no-thin-air, coherence or causality before coherence is completed are
//! reported once, as a single forbidden candidate.

use std::collections::HashSet;

use crate::event::FenceKind;
use crate::ptx::{Axiom, Choice, Model, Options, Skeleton, Statics, Violation};
use crate::rel::Rel;

/// Counts of an enumeration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Candidate executions judged.
    pub candidates: u64,
    /// Of which allowed by the model.
    pub allowed: u64,
    /// Set when the enumeration gave up: more than 2^20 coherence orders (acyclic
    /// orientations of unordered morally strong write pairs) for one choice (the counts are
    /// then incomplete).
    pub gave_up: bool,
}

/// What the visitor asks of the enumeration after each candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Keep going.
    Continue,
    /// Stop now.
    Stop,
}

/// The most coherence orders enumerated for one reads-from choice before giving up.
const MAX_ORDERS: u64 = 1 << 20;

/// Calls `visit` with every acyclic orientation of the `open` pairs added to the transitively
/// closed `co`, closed again. The order is that of counting in binary with the first pair as
/// the lowest bit (0: `(a, b)`, 1: `(b, a)`), skipping orientations that close a cycle; the
/// work is proportional to the orientations that exist, not to 2^pairs.
fn orientations(open: &[(usize, usize)], co: &Rel, visit: &mut dyn FnMut(&Rel) -> Next) -> Next {
    let Some((&(a, b), rest)) = open.split_last() else {
        return visit(co);
    };
    for (x, y) in [(a, b), (b, a)] {
        if co.has(y, x) {
            continue;
        }
        let next = if co.has(x, y) {
            co.clone()
        } else {
            let mut c = co.clone();
            c.add(x, y);
            c.plus()
        };
        if orientations(rest, &next, visit) == Next::Stop {
            return Next::Stop;
        }
    }
    Next::Continue
}

/// The reads-from candidates of each read: writes of the same physical location and value.
pub fn rf_candidates(sk: &Skeleton) -> Vec<(usize, Vec<usize>)> {
    let ev = &sk.events;
    (0..ev.len())
        .filter(|&r| ev[r].kind == crate::event::EventKind::Read)
        .map(|r| {
            let ws = (0..ev.len())
                .filter(|&w| {
                    w != r
                        && ev[w].kind == crate::event::EventKind::Write
                        && ev[w].loc == ev[r].loc
                        && ev[w].value == ev[r].value
                })
                .collect();
            (r, ws)
        })
        .collect()
}

/// The distinct Fence-SC orders: every total order of the `fence.sc` events, restricted to
/// distinct pairs whose scopes include each other's threads.
pub fn sc_orders(sk: &Skeleton, st: &Statics) -> Vec<Rel> {
    let n = sk.events.len();
    if st.model == Model::Sc {
        return vec![Rel::empty(n)];
    }
    let fences: Vec<usize> = (0..n)
        .filter(|&i| sk.events[i].fence == Some(FenceKind::Sc))
        .collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut perm = fences.clone();
    permute(&mut perm, 0, &mut |p| {
        let mut r = Rel::empty(n);
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                if st.sr.has(p[i], p[j]) {
                    r.add(p[i], p[j]);
                }
            }
        }
        if seen.insert(r.clone()) {
            out.push(r);
        }
    });
    out
}

pub(crate) fn permute(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
    if k >= v.len() {
        f(v);
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permute(v, k + 1, f);
        v.swap(k, i);
    }
}

/// Enumerates every candidate execution of `sk` under `model`, with one of `syncbars` as the
/// barrier matching, calling `visit` with each choice and its verdict.
pub fn enumerate(
    sk: &Skeleton,
    syncbars: &[Rel],
    model: Model,
    opts: Options,
    visit: &mut dyn FnMut(&Choice, &Result<(), Violation>) -> Next,
) -> Counts {
    enumerate_towards(sk, syncbars, model, opts, &[], visit)
}

/// Like [`enumerate`], but only the candidates whose final value of each listed physical
/// location is the listed value: for every choice of a write of that value, its coherence order
/// puts every other write of the location before it.
///
/// The minimal coherence order of [`enumerate`] never orders writes against causality, so an
/// outcome whose final values need that has no candidate there. Here the required order is
/// added first, and a candidate where it contradicts causality is reported as violating the
/// Coherence axiom, with the cycle — the candidate an explanation of the outcome shows.
pub fn enumerate_towards(
    sk: &Skeleton,
    syncbars: &[Rel],
    model: Model,
    opts: Options,
    finals: &[(u32, i64)],
    visit: &mut dyn FnMut(&Choice, &Result<(), Violation>) -> Next,
) -> Counts {
    let forced_orders = final_orders(sk, finals);
    let st = Statics::new(sk, model, opts);
    let n = sk.events.len();
    let mut counts = Counts::default();
    let rfc = rf_candidates(sk);
    if rfc.iter().any(|(_, ws)| ws.is_empty()) {
        return counts;
    }
    let scs = sc_orders(sk, &st);
    let must = st.must_order(&sk.events);
    let mut idx = vec![0usize; rfc.len()];
    let empty_bar = [Rel::empty(n)];
    let bars: &[Rel] = if syncbars.is_empty() {
        &empty_bar
    } else {
        syncbars
    };
    'rf: loop {
        let mut rf = Rel::empty(n);
        for (k, (r, ws)) in rfc.iter().enumerate() {
            rf.add(ws[idx[k]], *r);
        }
        let nta = if model == Model::Sc {
            Ok(())
        } else {
            st.no_thin_air(&rf)
        };
        if let Err(v) = nta {
            counts.candidates += 1;
            let ch = Choice {
                rf: rf.clone(),
                co: Rel::empty(n),
                sc: Rel::empty(n),
                syncbar: Rel::empty(n),
            };
            if visit(&ch, &Err(v)) == Next::Stop {
                return counts;
            }
        } else {
            for sc in &scs {
                for bar in bars {
                    let cause = if model == Model::Sc {
                        Rel::empty(n)
                    } else {
                        st.cause(&rf, sc, bar)
                    };
                    for forced in &forced_orders {
                        let ch = Choice {
                            rf: rf.clone(),
                            co: forced.clone(),
                            sc: sc.clone(),
                            syncbar: bar.clone(),
                        };
                        if judge_co(sk, &st, &must, &ch, &cause, &mut counts, visit) == Next::Stop {
                            return counts;
                        }
                    }
                }
            }
        }
        // Next rf choice (odometer).
        let mut k = 0;
        loop {
            if k == idx.len() {
                break 'rf;
            }
            idx[k] += 1;
            if idx[k] < rfc[k].1.len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
    counts
}

/// The coherence edges each choice of final writes needs: one relation per combination of a
/// write of the required value at each listed location (none when some value is never
/// written; a single empty relation when nothing is required).
fn final_orders(sk: &Skeleton, finals: &[(u32, i64)]) -> Vec<Rel> {
    let ev = &sk.events;
    let n = ev.len();
    let mut out = vec![Rel::empty(n)];
    for &(loc, value) in finals {
        let writes: Vec<usize> = (0..n)
            .filter(|&w| ev[w].kind == crate::event::EventKind::Write && ev[w].loc == Some(loc))
            .collect();
        let mut next = Vec::new();
        for r in &out {
            for &last in writes.iter().filter(|&&w| ev[w].value == value) {
                let mut r2 = r.clone();
                for &w in writes.iter().filter(|&&w| w != last) {
                    r2.add(w, last);
                }
                next.push(r2);
            }
        }
        out = next;
    }
    out
}

/// Judges the candidates of one (rf, sc, barrier) choice; `base.co` holds the coherence edges
/// required in advance (usually none).
fn judge_co(
    sk: &Skeleton,
    st: &Statics,
    must: &[(usize, usize)],
    base: &Choice,
    cause: &Rel,
    counts: &mut Counts,
    visit: &mut dyn FnMut(&Choice, &Result<(), Violation>) -> Next,
) -> Next {
    let n = sk.events.len();
    let (rf, sc, bar) = (&base.rf, &base.sc, &base.syncbar);
    let lower_edges = st.co_lower_bound(&sk.events, cause).union(&base.co);
    let lower = lower_edges.plus();
    let base = Choice {
        co: lower.clone(),
        ..base.clone()
    };
    if let Some(c) = lower_edges.find_cycle() {
        counts.candidates += 1;
        // An edge of the cycle is causality's, or else a coherence edge (initial writes first,
        // or one the caller required).
        let v = st.labelled(
            Axiom::Coherence,
            c,
            &[("cause", cause), ("co", &lower_edges)],
        );
        let shown = Choice {
            co: lower_edges,
            ..base
        };
        return visit(&shown, &Err(v));
    }
    if st.model != Model::Sc {
        // rf;cause must be irreflexive whatever the coherence order.
        let none = Rel::empty(n);
        if let Err(v) = st.causality(rf, &none, cause) {
            counts.candidates += 1;
            return visit(&base, &Err(v));
        }
    }
    let open: Vec<(usize, usize)> = must
        .iter()
        .copied()
        .filter(|&(a, b)| !lower.has(a, b) && !lower.has(b, a))
        .collect();
    let mut orders = 0u64;
    let mut each = |co: &Rel| -> Next {
        orders += 1;
        if orders > MAX_ORDERS {
            // Give up rather than report a partial answer as complete.
            counts.gave_up = true;
            return Next::Stop;
        }
        counts.candidates += 1;
        let ch = Choice {
            rf: rf.clone(),
            co: co.clone(),
            sc: sc.clone(),
            syncbar: bar.clone(),
        };
        let r = st.check(&ch, cause);
        if r.is_ok() {
            counts.allowed += 1;
        }
        visit(&ch, &r)
    };
    if orientations(&open, &lower, &mut each) == Next::Stop {
        return Next::Stop;
    }
    Next::Continue
}

/// The co-maximal writes of each physical location under a coherence order: the writes no
/// other write follows.
pub fn co_maximal(sk: &Skeleton, co: &Rel) -> Vec<usize> {
    let ev = &sk.events;
    (0..ev.len())
        .filter(|&w| {
            ev[w].kind == crate::event::EventKind::Write && (0..ev.len()).all(|x| !co.has(w, x))
        })
        .collect()
}
