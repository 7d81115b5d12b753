//! The static relations of a growing execution, gathered from the universe's one event at a
//! time: local index `k` stands for universe event `ids[k]`.
//!
//! Every static relation of [`Statics`] relates two events by their own attributes and their
//! program order alone, so the relations of a subset of the universe's events are the
//! universe's restricted to it.

use crate::ptx::{Model, Options, Statics};
use crate::rel::{Rel, Set};

/// Statics over `n` local slots, every set and relation empty.
pub(super) fn blank(model: Model, opts: Options, n: usize) -> Statics {
    let (s, r) = (Set::empty(n), Rel::empty(n));
    Statics {
        model,
        opts,
        n,
        r: s.clone(),
        w: s.clone(),
        m: s.clone(),
        f_sc: s.clone(),
        loc: r.clone(),
        vloc: r.clone(),
        po: r.clone(),
        po_loc: r.clone(),
        ms: r.clone(),
        rel_pat: r.clone(),
        acq_pat: r.clone(),
        scta: r.clone(),
        sr: r.clone(),
        same_proxy: r.clone(),
        pfo: r.clone(),
        gen: s.clone(),
        alias: s,
        rmw: r.clone(),
        deps: r,
    }
}

fn gather_rel(l: &mut Rel, u: &Rel, ids: &[usize]) {
    let k = ids.len() - 1;
    let g = ids[k];
    // Slot k is clear: never used, or cleared by `forget` when its last event was taken back.
    for (j, &h) in ids.iter().enumerate() {
        if u.has(g, h) {
            l.add(k, j);
        }
        if u.has(h, g) {
            l.add(j, k);
        }
    }
}

fn gather_set(l: &mut Set, u: &Set, g: usize, k: usize) {
    if u.contains(g) {
        l.insert(k);
    } else {
        l.remove(k);
    }
}

/// Every relation and set of the universe's `us` at the last of `ids` (the event just added),
/// against the events before it.
/// Which of the universe's relations (in [`rels`] order) have a pair: the others stay empty
/// locally, so gathering and forgetting skip them.
pub(super) fn present(us: &Statics) -> [bool; 13] {
    rels_ref(us).map(|u| !u.is_empty())
}

pub(super) fn gather(ls: &mut Statics, us: &Statics, present: &[bool; 13], ids: &[usize]) {
    let k = ids.len() - 1;
    let g = ids[k];
    for ((l, u), p) in rels(ls).into_iter().zip(rels_ref(us)).zip(present) {
        if *p {
            gather_rel(l, u, ids);
        }
    }
    for (l, u) in sets(ls).into_iter().zip(sets_ref(us)) {
        gather_set(l, u, g, k);
    }
}

/// Forgets local index `k` (its event was taken back). Relations empty in the universe
/// (`present`) were never gathered, so they have nothing to clear.
pub(super) fn forget(ls: &mut Statics, present: &[bool; 13], k: usize) {
    for (l, p) in rels(ls).into_iter().zip(present) {
        if *p {
            l.clear_row_col(k);
        }
    }
    for l in sets(ls) {
        l.remove(k);
    }
}

/// The relations, in one fixed order (every relation field, so a new one breaks the build
/// here until it is gathered).
fn rels(s: &mut Statics) -> [&mut Rel; 13] {
    let Statics {
        model: _,
        opts: _,
        n: _,
        r: _,
        w: _,
        m: _,
        f_sc: _,
        loc,
        vloc,
        po,
        po_loc,
        ms,
        rel_pat,
        acq_pat,
        scta,
        sr,
        same_proxy,
        pfo,
        gen: _,
        alias: _,
        rmw,
        deps,
    } = s;
    [
        loc, vloc, po, po_loc, ms, rel_pat, acq_pat, scta, sr, same_proxy, pfo, rmw, deps,
    ]
}

fn rels_ref(s: &Statics) -> [&Rel; 13] {
    [
        &s.loc,
        &s.vloc,
        &s.po,
        &s.po_loc,
        &s.ms,
        &s.rel_pat,
        &s.acq_pat,
        &s.scta,
        &s.sr,
        &s.same_proxy,
        &s.pfo,
        &s.rmw,
        &s.deps,
    ]
}

/// The sets, in one fixed order.
fn sets(s: &mut Statics) -> [&mut Set; 6] {
    let Statics {
        r,
        w,
        m,
        f_sc,
        gen,
        alias,
        ..
    } = s;
    [r, w, m, f_sc, gen, alias]
}

fn sets_ref(s: &Statics) -> [&Set; 6] {
    [&s.r, &s.w, &s.m, &s.f_sc, &s.gen, &s.alias]
}
