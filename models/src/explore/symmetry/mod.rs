//! Interchangeable threads: threads with the same code, placed alike with respect to every
//! other thread, that differ only in values each of them alone writes (a ticket lock's
//! threads). The search builds one execution of each orbit under permutations of such
//! threads, the *canonical* one (its *key* writes, the first write each thread of a class makes
//! at one level of its tree, in thread order), and hands the sink its images.
//!
//! Swaps are found by matching every thread's tree with its image's (`matching`). Why every
//! execution is visited exactly once, and why a kept swap maps executions to executions with
//! the same verdict, is the symmetry theorem of docs/spec/explorer.md.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::atomic::Side;
use super::pairs::Pairs;
use super::Universe;
use crate::event::EventKind;

mod matching;

use matching::{candidates, key_depth, nodes_at, swap, Facts, Renaming};

/// The most images of one execution: past this, classes are dropped (the last first).
const MAX_ORDER: usize = 40_320;

/// The classes of interchangeable threads of a universe, and the swaps between them.
pub(super) struct Symmetry {
    /// Per thread: the thread before it in its class, whose key write comes first.
    pred: Vec<Option<usize>>,
    /// Per thread: the depth of its key write in its tree (0 outside every class).
    depth: Vec<usize>,
    /// Per universe event: its class and its thread's rank there, when it is a key write.
    key: Vec<Option<(u32, u32)>>,
    /// Per universe event: a key RMW's read that only a present write can serve.
    present_source: Vec<bool>,
    /// Swaps of two threads of one class.
    swaps: Vec<Swap>,
    /// Swaps (indices into `swaps`) that, applied one after another from a canonical
    /// execution, reach each of its other images once.
    walk: Vec<u32>,
}

/// The map of a permutation of threads (a swap of two, or a composition of swaps).
pub(super) struct Swap {
    /// Per thread: the thread it becomes.
    to: Vec<usize>,
    /// Per universe event: its image.
    event: Vec<usize>,
    /// Per thread `t` and path number of `t`: the image path, of `t`'s image thread.
    end: Vec<Vec<u32>>,
}

/// A complete execution's image: what a [`super::Leaf`] names, with threads swapped.
pub(super) struct Image {
    pub(super) ends: Vec<u32>,
    pub(super) events: Vec<Vec<usize>>,
    pub(super) ids: Vec<usize>,
}

impl Symmetry {
    /// The classes of interchangeable threads of `u` (with `us` its pairs, `sc` whether every
    /// two writes of a location are ordered); none when there are none.
    pub(super) fn find(u: &Universe, us: &Pairs, sc: bool) -> Option<Symmetry> {
        let ev = &u.events;
        if ev.iter().any(|e| e.kind == EventKind::Barrier) {
            return None;
        }
        let n = u.trees.len();
        let facts = Facts::new(u);
        let mut sym = Symmetry {
            pred: vec![None; n],
            depth: vec![0; n],
            key: vec![None; ev.len()],
            present_source: vec![false; ev.len()],
            swaps: Vec::new(),
            walk: Vec::new(),
        };
        let mut walks: Vec<Vec<u32>> = Vec::new();
        let mut order = 1usize;
        for group in candidates(u) {
            let Some(depth) = key_depth(u, &group, us, sc) else {
                continue;
            };
            let Some(own) = facts.own_values(&group) else {
                continue;
            };
            let m = group.len();
            let Some(o) = (1..=m).try_fold(order, |acc, k| acc.checked_mul(k)) else {
                continue;
            };
            if o > MAX_ORDER {
                continue;
            }
            // Neighbours' swaps are checked; the others are composed from them, (i j) being
            // (i i+1) (i+1 j) (i i+1), and a composition of maps of the universe onto itself
            // is one.
            let Some(next) = (0..m - 1)
                .map(|i| {
                    swap(
                        u,
                        &facts,
                        group[i],
                        group[i + 1],
                        &Renaming::swap(&own, i, i + 1),
                    )
                })
                .collect::<Option<Vec<Swap>>>()
            else {
                continue;
            };
            let mut pairs: HashMap<(usize, usize), u32> = HashMap::new();
            let mut far: HashMap<(usize, usize), Swap> = HashMap::new();
            for gap in 2..m {
                for i in 0..m - gap {
                    let inner = far.get(&(i + 1, i + gap)).unwrap_or(&next[i + 1]);
                    let s = next[i].then(inner).then(&next[i]);
                    far.insert((i, i + gap), s);
                }
            }
            for (i, s) in next.into_iter().enumerate() {
                pairs.insert((i, i + 1), index(sym.swaps.len()));
                sym.swaps.push(s);
            }
            for (k, s) in far {
                pairs.insert(k, index(sym.swaps.len()));
                sym.swaps.push(s);
            }
            order = o;
            let class = index(walks.len());
            for (rank, &t) in group.iter().enumerate() {
                sym.pred[t] = rank.checked_sub(1).map(|r| group[r]);
                sym.depth[t] = depth;
                for x in nodes_at(u, t, depth) {
                    if let Some(g) = u.trees[t].nodes[x].event {
                        sym.key[g] = Some((class, index(rank)));
                    }
                }
            }
            walks.push(heap_walk(m, &pairs));
        }
        if walks.is_empty() {
            return None;
        }
        sym.mark_present_sources(u, us, sc);
        sym.walk = combined(&walks);
        Some(sym)
    }

    /// Whether thread `t`, which has not made its key write, waits for its class's previous
    /// thread to make its own; `made(t)` is how many events thread `t` has.
    pub(super) fn waits(&self, t: usize, made: &dyn Fn(usize) -> usize) -> bool {
        match self.pred[t] {
            Some(p) => made(t) < self.depth[t] && made(p) < self.depth[p],
            None => false,
        }
    }

    /// The side each of `partners` (universe events) must take of key write `g`, merged into
    /// `sides`; `None` when a partner must take both.
    pub(super) fn sides(
        &self,
        g: usize,
        partners: impl Iterator<Item = usize>,
        mut sides: SmallVec<[Side; 8]>,
    ) -> Option<SmallVec<[Side; 8]>> {
        let Some((class, rank)) = self.key[g] else {
            return Some(sides);
        };
        for (side, h) in sides.iter_mut().zip(partners) {
            let Some((c, r)) = self.key[h] else {
                continue;
            };
            if c != class {
                continue;
            }
            let want = if r < rank { Side::Before } else { Side::After };
            match *side {
                Side::Either => *side = want,
                s if s == want => {}
                _ => return None,
            }
        }
        Some(sides)
    }

    /// Whether read `g` (a universe event) must read from a present write: it is the read of
    /// a key RMW, whose location only key writes of its class write, each morally strong
    /// with it (any under SC), on a plain location (any under SC). Sound because, when the
    /// read is added, the key writes of its class's lower threads are present (they wait,
    /// [`Symmetry::waits`]), so a later source would be a key write `w'` of a higher thread,
    /// coherence-after the RMW's own write `w` in a canonical execution; and `w' rf r po w`
    /// orders `w'` before `w` (under SC by acyclicity; in the PTX models `rf ; po` between
    /// morally strong accesses of a plain location lies in causality, and the Coherence
    /// lower bound orders the two writes), a coherence cycle.
    pub(super) fn present_source(&self, g: usize) -> bool {
        self.present_source.get(g).copied().unwrap_or(false)
    }

    fn mark_present_sources(&mut self, u: &Universe, us: &Pairs, sc: bool) {
        let ev = &u.events;
        let keys: Vec<usize> = (0..ev.len()).filter(|&g| self.key[g].is_some()).collect();
        let mut only: HashMap<(u32, u32), bool> = HashMap::new();
        // Per thread: one key write (the key writes of a thread share their attributes).
        let mut reps: Vec<usize> = Vec::new();
        for &k in &keys {
            if !reps.iter().any(|&h| ev[h].thread == ev[k].thread) {
                reps.push(k);
            }
        }
        for &w in &keys {
            let Some(r) = us.rmw_read(w) else {
                continue;
            };
            let (Some((class, _)), Some(loc)) = (self.key[w], ev[w].loc) else {
                continue;
            };
            let only_keys = *only.entry((class, loc)).or_insert_with(|| {
                ev.iter().enumerate().all(|(h, e)| {
                    e.thread.is_none()
                        || e.kind != EventKind::Write
                        || e.loc != Some(loc)
                        || self.key[h].is_some_and(|(c, _)| c == class)
                })
            });
            let strong = sc
                || (u.plain(loc)
                    && reps.iter().all(|&k| {
                        self.key[k].is_none_or(|(c, _)| c != class)
                            || ev[k].thread == ev[r].thread
                            || us.ms_either(r, k)
                    }));
            self.present_source[r] = only_keys && strong;
        }
    }

    /// The swaps that, applied one after another to a canonical execution's [`Image`] with
    /// [`Symmetry::apply`], reach each of its other images once.
    pub(super) fn walk(&self) -> &[u32] {
        &self.walk
    }

    /// Applies swap `s` (from [`Symmetry::walk`]) to `img`.
    pub(super) fn apply(&self, img: &mut Image, s: u32) {
        if let Some(s) = self.swaps.get(s as usize) {
            img.apply(s);
        }
    }
}

impl Swap {
    /// `self`, then `next`.
    fn then(&self, next: &Swap) -> Swap {
        let to = self.to.iter().map(|&t| next.to[t]).collect();
        let event = self.event.iter().map(|&g| next.event[g]).collect();
        let end = (0..self.end.len())
            .map(|t| {
                let to = self.to[t];
                self.end[t]
                    .iter()
                    .map(|&e| next.end[to].get(e as usize).copied().unwrap_or(e))
                    .collect()
            })
            .collect();
        Swap { to, event, end }
    }
}

impl Image {
    fn apply(&mut self, s: &Swap) {
        for id in &mut self.ids {
            *id = s.event[*id];
        }
        let (ends, events) = (self.ends.clone(), std::mem::take(&mut self.events));
        self.events = vec![Vec::new(); events.len()];
        for (t, (&e, evs)) in ends.iter().zip(events).enumerate() {
            let to = s.to[t];
            self.ends[to] = s.end[t].get(e as usize).copied().unwrap_or(e);
            self.events[to] = evs;
        }
    }
}

/// Heap's sequence of swaps of `m` positions (each a swap index from `pairs`): applied one
/// after another, they reach every other permutation once.
fn heap_walk(m: usize, pairs: &HashMap<(usize, usize), u32>) -> Vec<u32> {
    let mut out = Vec::new();
    let mut c = vec![0usize; m];
    let mut i = 1;
    while i < m {
        if c[i] < i {
            let j = if i % 2 == 0 { 0 } else { c[i] };
            out.extend(pairs.get(&(j.min(i), j.max(i))).copied());
            c[i] += 1;
            i = 1;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    out
}

/// The walk of a product of classes: the last class's whole walk between every two steps of
/// the ones before (the classes' swaps commute).
fn combined(walks: &[Vec<u32>]) -> Vec<u32> {
    match walks.split_last() {
        None => Vec::new(),
        Some((last, rest)) => {
            let head = combined(rest);
            let mut out = last.clone();
            for &s in &head {
                out.push(s);
                out.extend_from_slice(last);
            }
            out
        }
    }
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}
