//! The static relations of a growing execution, gathered from the universe's one event at a
//! time: local index `k` stands for universe event `ids[k]`.
//!
//! Every static relation of [`Statics`] relates two events by their own attributes, their
//! program order and their dependencies alone, so the relations of a subset of the universe's
//! events are the universe's restricted to it: [`Pairs`] computes them pair by pair.

use super::pairs::Pairs;
use crate::event::{Event, EventKind, FenceKind};
use crate::ptx::{Model, Options, Statics};
use crate::rel::{Rel, Set};
use crate::vocab::Proxy;

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

/// Which relations to gather: those that may have a pair ([`Pairs::present`]), as flags in
/// [`rels`] order.
pub(super) fn present(pairs: &Pairs) -> [bool; 13] {
    std::array::from_fn(|i| pairs.present & (1 << i) != 0)
}

/// Every relation and set at the last of `ids` (the event just added), against the events
/// before it and itself; `events` are the universe's.
pub(super) fn gather(ls: &mut Statics, pairs: &Pairs, events: &[Event], ids: &[usize]) {
    let k = ids.len() - 1;
    let g = ids[k];
    let thread = events[g].thread;
    let mut rs = rels(ls);
    // Row k of each relation, gathered in a word when a row is one word (at most 64 slots).
    let one = rs[0].rows1().is_some() && k < 64;
    let mut row = [0u64; 13];
    // Slot k is clear: never used, or cleared by `forget` when its last event was taken back.
    for (j, &h) in ids.iter().enumerate() {
        let (out, inn) = if j == k {
            let d = pairs.pair(g, g, false, false);
            (d, 0)
        } else {
            let po = thread.is_some() && events[h].thread == thread;
            (pairs.pair(g, h, false, po), pairs.pair(h, g, po, false))
        };
        let mut b = out & pairs.present;
        while b != 0 {
            let r = b.trailing_zeros() as usize;
            if one {
                row[r] |= 1 << j;
            } else {
                rs[r].add(k, j);
            }
            b &= b - 1;
        }
        let mut b = inn & pairs.present;
        while b != 0 {
            rs[b.trailing_zeros() as usize].add(j, k);
            b &= b - 1;
        }
    }
    if one {
        for (rel, bits) in rs.iter_mut().zip(row) {
            if let (Some(rows), true) = (rel.rows1_mut(), bits != 0) {
                rows[k] |= bits;
            }
        }
    }
    let e = &events[g];
    let flags = [
        e.kind == EventKind::Read,
        e.kind == EventKind::Write,
        e.is_mem(),
        e.fence == Some(FenceKind::Sc),
        e.proxy == Some(Proxy::Generic),
        e.fence == Some(FenceKind::Alias),
    ];
    for (l, on) in sets(ls).into_iter().zip(flags) {
        if on {
            l.insert(k);
        } else {
            l.remove(k);
        }
    }
}

/// Forgets local index `k` (its event was taken back). Relations never gathered (`present`)
/// have nothing to clear.
pub(super) fn forget(ls: &mut Statics, present: &[bool; 13], k: usize) {
    for (l, p) in rels(ls).into_iter().zip(present) {
        if *p {
            l.clear_last(k);
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
