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
    let present = pairs.present;
    let rs = rels(ls);
    // Slot k is clear: never used, or cleared by `forget` when its last event was taken back.
    if k < 64 && rs[0].rows1().is_some() {
        // One word per row: each pair's relations first, then relation by relation, row k as
        // one word and column k over the rows before, without a branch per pair.
        let mut rows: [&mut [u64]; 13] = rs.map(|r| r.rows1_mut().unwrap_or_default());
        let (mut outs, mut inns) = ([0u16; 64], [0u16; 64]);
        pairs.both_all(g, &ids[..k], &mut outs, &mut inns);
        outs[k] = pairs.itself(g);
        let (outs, inns) = (&outs[..=k], &inns[..k]);
        let mut b = present;
        while b != 0 {
            let r = b.trailing_zeros();
            b &= b - 1;
            let row: u64 = outs
                .iter()
                .enumerate()
                .fold(0, |acc, (j, &o)| acc | u64::from(o >> r & 1) << j);
            let rel = &mut rows[r as usize];
            rel[k] |= row;
            for (x, &i) in rel[..k].iter_mut().zip(inns) {
                *x |= u64::from(i >> r & 1) << k;
            }
        }
    } else {
        for (j, &h) in ids[..k].iter().enumerate() {
            let (out, inn) = pairs.both(g, h);
            let mut b = out & present;
            while b != 0 {
                rs[b.trailing_zeros() as usize].add(k, j);
                b &= b - 1;
            }
            let mut b = inn & present;
            while b != 0 {
                rs[b.trailing_zeros() as usize].add(j, k);
                b &= b - 1;
            }
        }
        let mut b = pairs.itself(g) & present;
        while b != 0 {
            rs[b.trailing_zeros() as usize].add(k, k);
            b &= b - 1;
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
