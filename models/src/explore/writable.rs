//! What each thread can still write from each node of its tree, precomputed once per universe
//! for check 1 of the module docs: the (location, value) pairs as dense ids, the writes below
//! every node with what their dependencies must read, and the most writes to each location
//! on one path below it.

use std::collections::{HashMap, HashSet};

use super::Tree;
use crate::event::{Event, EventKind};

/// What a write's path must read for it to write what it writes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Req {
    /// The pairs its dependencies read, sorted.
    pub need: Vec<u32>,
    /// For an RMW's write whose read is one of its dependencies: the first event of the
    /// write's instruction (standing for every copy: they have the same attributes) and the
    /// pair its read reads.
    pub rmw: Option<(usize, u32)>,
}

/// The writes below every node, over dense (location, value) pair ids.
#[derive(Clone, Debug)]
pub(super) struct Writable {
    /// Every (location, value) pair an event of the universe reads or writes, sorted: a pair's
    /// id is its index.
    pairs: Vec<(u32, i64)>,
    /// Per event: its pair (`u32::MAX` for an event without one).
    pair: Vec<u32>,
    /// Per tree, per node: the writes strictly below it, as (pair, requirement) sorted and
    /// without repeats; the requirement indexes `reqs`.
    below: Vec<Vec<Vec<(u32, u32)>>>,
    /// What a write's path must read for it to write what it writes. Entry 0 asks nothing.
    pub reqs: Vec<Req>,
    /// Per event: for the write of an RMW whose read is one of its dependencies, that read
    /// (`u32::MAX` otherwise).
    pub rmw_read: Vec<u32>,
    /// Per tree, per node: for each location, the most writes to it on one path strictly
    /// below the node, as (location, count) sorted by location.
    wmax: Vec<Vec<Vec<(u32, u32)>>>,
    /// Per location below 64: the locations (bits, [`loc_bit`]) whose pairs a write of it
    /// needs, directly or through the writes of those pairs, itself included; every bit when
    /// one of them is 63 or more.
    reach: Vec<u64>,
}

impl Writable {
    /// Precomputes the writes below every node of `trees` over `events`, with the universe's
    /// read-modify-write pairs and dependencies.
    pub(super) fn new(
        events: &[Event],
        trees: &[Tree],
        rmw: &[(usize, usize)],
        deps: &[(usize, usize)],
    ) -> Writable {
        let key = |g: usize| (events[g].loc.unwrap_or(u32::MAX), events[g].value);
        let mem = |g: usize| matches!(events[g].kind, EventKind::Read | EventKind::Write);
        let mut pairs: Vec<(u32, i64)> = (0..events.len()).filter(|&g| mem(g)).map(key).collect();
        pairs.sort_unstable();
        pairs.dedup();
        let pair: Vec<u32> = (0..events.len())
            .map(|g| {
                if mem(g) {
                    pairs.binary_search(&key(g)).map_or(u32::MAX, index)
                } else {
                    u32::MAX
                }
            })
            .collect();
        let mut needs: Vec<Vec<u32>> = vec![Vec::new(); events.len()];
        for &(r, g) in deps {
            if events[r].kind == EventKind::Read && events[g].kind == EventKind::Write {
                needs[g].push(pair[r]);
            }
        }
        // An RMW's write whose read is one of its dependencies: the first such event of its
        // instruction (every copy has the same attributes) and its read.
        let mut rmw_read = vec![u32::MAX; events.len()];
        let dep_set: HashSet<(usize, usize)> = deps.iter().copied().collect();
        for &(r, w) in rmw {
            if dep_set.contains(&(r, w)) {
                rmw_read[w] = index(r);
            }
        }
        let mut rep_of: HashMap<(Option<u32>, u32), usize> = HashMap::new();
        let mut reqs: Vec<Req> = vec![Req::default()];
        let mut req_of: HashMap<Req, u32> = HashMap::from([(Req::default(), 0)]);
        let mut req_id = |g: usize| {
            let mut need = std::mem::take(&mut needs[g]);
            need.sort_unstable();
            need.dedup();
            let rmw = (rmw_read[g] != u32::MAX).then(|| {
                let rep = *rep_of
                    .entry((events[g].thread, events[g].instr))
                    .or_insert(g);
                (rep, pair[rmw_read[g] as usize])
            });
            let req = Req { need, rmw };
            let next = index(reqs.len());
            *req_of.entry(req.clone()).or_insert_with(|| {
                reqs.push(req);
                next
            })
        };
        let mut below = Vec::new();
        let mut wmax = Vec::new();
        for t in trees {
            let mut b: Vec<Vec<(u32, u32)>> = vec![Vec::new(); t.nodes.len()];
            let mut most: Vec<Vec<(u32, u32)>> = vec![Vec::new(); t.nodes.len()];
            // Parents come first, so children are finished when their parent is reached.
            for x in (0..t.nodes.len()).rev() {
                let mut acc = Vec::new();
                for &c in &t.nodes[x].children {
                    let c = c as usize;
                    acc.extend(b[c].iter().copied());
                    let own = t.nodes[c]
                        .event
                        .filter(|&g| events[g].kind == EventKind::Write);
                    if let Some(g) = own {
                        acc.push((pair[g], req_id(g)));
                    }
                    let m = most_with(&most[c], own.map(|g| key(g).0));
                    most[x] = max_merge(&most[x], &m);
                }
                acc.sort_unstable();
                acc.dedup();
                b[x] = acc;
            }
            below.push(b);
            wmax.push(most);
        }
        let reach = reach(&pairs, &below, &reqs);
        Writable {
            pairs,
            pair,
            below,
            reqs,
            rmw_read,
            wmax,
            reach,
        }
    }

    /// The locations whose pairs' depths the depths of pairs of `loc` are computed from
    /// (itself included), as bits ([`loc_bit`]).
    pub(super) fn reach(&self, loc: u32) -> u64 {
        self.reach.get(loc as usize).copied().unwrap_or(u64::MAX)
    }

    /// How many pairs there are.
    pub(super) fn pairs(&self) -> usize {
        self.pairs.len()
    }

    /// The location of pair `p`.
    pub(super) fn loc(&self, p: u32) -> u32 {
        self.pairs[p as usize].0
    }

    /// The pair of universe event `g` (`u32::MAX` for an event without one).
    pub(super) fn pair_of(&self, g: usize) -> u32 {
        self.pair[g]
    }

    /// Whether thread `t`, at node `x`, can still write pair `p`.
    pub(super) fn can_write_pair(&self, t: usize, x: u32, p: u32) -> bool {
        let b = &self.below[t][x as usize];
        let i = b.partition_point(|&(q, _)| q < p);
        b.get(i).is_some_and(|&(q, _)| q == p)
    }

    /// The most writes to physical location `loc` that thread `t` can still make at node `x`
    /// (on any one of its paths from there).
    pub(super) fn writes_left(&self, t: usize, x: u32, loc: u32) -> u32 {
        let m = &self.wmax[t][x as usize];
        m.binary_search_by_key(&loc, |&(l, _)| l)
            .map_or(0, |i| m[i].1)
    }

    /// The writes thread `t` can still make at node `x`: (pair, requirement).
    pub(super) fn below(&self, t: usize, x: u32) -> &[(u32, u32)] {
        &self.below[t][x as usize]
    }
}

/// The bit standing for location `loc` in a set of locations (63: every location from 63 on).
pub(super) fn loc_bit(loc: u32) -> u64 {
    1u64 << loc.min(63)
}

/// Per location below 64 (location ids are dense and small): the locations a write of it
/// needs, closed under the needs of those locations' writes, itself included.
fn reach(pairs: &[(u32, i64)], below: &[Vec<Vec<(u32, u32)>>], reqs: &[Req]) -> Vec<u64> {
    let n = pairs
        .iter()
        .map(|&(l, _)| l as usize + 1)
        .filter(|&l| l <= 64)
        .max()
        .unwrap_or(0);
    let mut reach: Vec<u64> = (0..n).map(|l| loc_bit(l as u32)).collect();
    for b in below {
        for &(w, r) in b.first().map_or(&[][..], |v| &v[..]) {
            let l = pairs[w as usize].0 as usize;
            let needs = reqs[r as usize]
                .need
                .iter()
                .fold(0, |m, &q| m | loc_bit(pairs[q as usize].0));
            if let Some(x) = reach.get_mut(l) {
                *x |= needs;
            }
        }
    }
    loop {
        let before = reach.clone();
        for m in &mut reach {
            for (k, &r) in before.iter().enumerate() {
                if *m >> k & 1 == 1 {
                    *m |= r;
                }
            }
        }
        if reach == before {
            // Bit 63 stands for locations whose needs are not followed: any location.
            for x in &mut reach {
                if *x >> 63 & 1 == 1 {
                    *x = u64::MAX;
                }
            }
            return reach;
        }
    }
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// `counts` (location, count) with one more write to `loc`, if any.
fn most_with(counts: &[(u32, u32)], loc: Option<u32>) -> Vec<(u32, u32)> {
    let mut out = counts.to_vec();
    if let Some(l) = loc {
        match out.binary_search_by_key(&l, |&(x, _)| x) {
            Ok(i) => out[i].1 += 1,
            Err(i) => out.insert(i, (l, 1)),
        }
    }
    out
}

/// The per-location maximum of two sorted (location, count) lists.
fn max_merge(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = a.to_vec();
    for &(l, c) in b {
        match out.binary_search_by_key(&l, |&(x, _)| x) {
            Ok(i) => out[i].1 = out[i].1.max(c),
            Err(i) => out.insert(i, (l, c)),
        }
    }
    out
}
