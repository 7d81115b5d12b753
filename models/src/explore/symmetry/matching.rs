//! Finding interchangeable threads: candidate groups of trees of one shape, their key
//! depth, their own values, and the check that a swap of two threads maps the universe onto
//! itself (the conditions are in the parent module's docs).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::super::pairs::Pairs;
use super::super::Universe;
use super::Swap;
use crate::event::{Event, EventKind, ThreadPos};

/// Per location, each class thread's own value (by rank in the class), for the locations
/// where the class's threads have one.
pub(super) type Own = HashMap<u32, Vec<i64>>;

/// A map of values, one bijection per location: a swap's two own values exchanged.
pub(super) struct Renaming(Vec<(u32, i64, i64)>);

impl Renaming {
    pub(super) fn swap(own: &Own, i: usize, j: usize) -> Renaming {
        Renaming(own.iter().map(|(&l, v)| (l, v[i], v[j])).collect())
    }

    fn value(&self, loc: Option<u32>, v: i64) -> i64 {
        for &(l, x, y) in &self.0 {
            if Some(l) == loc {
                if v == x {
                    return y;
                }
                if v == y {
                    return x;
                }
            }
        }
        v
    }
}

/// What the search for classes asks of every thread.
pub(super) struct Facts {
    /// Per thread: its placement, when it has an event.
    pos: Vec<Option<ThreadPos>>,
    /// Per thread and location: the values it writes.
    writes: Vec<HashMap<u32, BTreeSet<i64>>>,
    /// Per location: the initial values.
    inits: HashMap<u32, BTreeSet<i64>>,
    /// What a swap's check of read-modify-write pairs and dependencies looks at.
    ancestry: Ancestry,
}

/// The read-modify-write pairs and dependencies, as a swap's check reads them.
enum Ancestry {
    /// Per event: the tree depths of the events it depends on and of its RMW read, as bits
    /// (both kinds of pairs relate events of one path, an ancestor and a descendant).
    Depths(Vec<(u64, u64)>),
    /// The pairs themselves, sorted, when some depth is past 63.
    Sorted {
        rmw: Vec<(usize, usize)>,
        deps: Vec<(usize, usize)>,
    },
}

impl Facts {
    pub(super) fn new(u: &Universe) -> Facts {
        let n = u.trees.len();
        let mut f = Facts {
            pos: vec![None; n],
            writes: vec![HashMap::new(); n],
            inits: HashMap::new(),
            ancestry: match depth_bits(u) {
                Some(bits) => Ancestry::Depths(bits),
                None => Ancestry::Sorted {
                    rmw: sorted(&u.rmw),
                    deps: sorted(&u.deps),
                },
            },
        };
        for e in &u.events {
            let Some(l) = e.loc.filter(|_| e.kind == EventKind::Write) else {
                if let Some(t) = e.thread {
                    f.pos[t as usize] = Some(e.pos);
                }
                continue;
            };
            match e.thread {
                Some(t) => {
                    f.pos[t as usize] = Some(e.pos);
                    f.writes[t as usize].entry(l).or_default().insert(e.value);
                }
                None => {
                    f.inits.entry(l).or_default().insert(e.value);
                }
            }
        }
        f
    }

    /// The own values of the threads of `group`: per location, the one value each writes
    /// that not all of them write; `None` when some thread has none or several there, two
    /// share one, or another thread or an initial write makes one.
    pub(super) fn own_values(&self, group: &[usize]) -> Option<Own> {
        let locs: BTreeSet<u32> = group
            .iter()
            .flat_map(|&t| self.writes[t].keys().copied())
            .collect();
        let empty = BTreeSet::new();
        let mut own = Own::new();
        for l in locs {
            let of = |t: usize| self.writes[t].get(&l).unwrap_or(&empty);
            let common: BTreeSet<i64> = group
                .iter()
                .map(|&t| of(t).clone())
                .reduce(|a, b| a.intersection(&b).copied().collect())
                .unwrap_or_default();
            let mine: Vec<Vec<i64>> = group
                .iter()
                .map(|&t| of(t).difference(&common).copied().collect())
                .collect();
            if mine.iter().all(Vec::is_empty) {
                continue;
            }
            if mine.iter().any(|v| v.len() != 1) {
                return None;
            }
            let vals: Vec<i64> = mine.iter().map(|v| v[0]).collect();
            let distinct: HashSet<i64> = vals.iter().copied().collect();
            let others = (0..self.writes.len())
                .filter(|t| !group.contains(t))
                .any(|t| vals.iter().any(|v| of(t).contains(v)));
            let init = self.inits.get(&l).unwrap_or(&empty);
            if distinct.len() != vals.len() || others || vals.iter().any(|v| init.contains(v)) {
                return None;
            }
            own.insert(l, vals);
        }
        Some(own)
    }

    /// Whether threads `a` and `b` are placed alike against every other thread.
    fn placed_alike(&self, a: usize, b: usize) -> bool {
        let (Some(pa), Some(pb)) = (self.pos[a], self.pos[b]) else {
            return false;
        };
        let pattern = |x: &ThreadPos, y: &ThreadPos| {
            (
                x.gpu == y.gpu,
                x.gpu == y.gpu && x.cluster == y.cluster,
                x.gpu == y.gpu && x.cta == y.cta,
            )
        };
        self.pos.iter().enumerate().all(|(k, p)| {
            k == a || k == b || p.is_none_or(|pk| pattern(&pa, &pk) == pattern(&pb, &pk))
        })
    }
}

/// Groups of threads (two or more, in increasing order) whose trees have the same shape:
/// the same nodes with events of the same kind, location and instruction.
pub(super) fn candidates(u: &Universe) -> Vec<Vec<usize>> {
    type Shape = Vec<(Option<(EventKind, Option<u32>, u32)>, usize, usize)>;
    let shape = |t: usize| -> Shape {
        u.trees[t]
            .nodes
            .iter()
            .map(|x| {
                let e = x.event.map(|g| &u.events[g]);
                (
                    e.map(|e| (e.kind, e.loc, e.instr)),
                    x.children.len(),
                    x.ends.len(),
                )
            })
            .collect()
    };
    let mut groups: Vec<(Shape, Vec<usize>)> = Vec::new();
    for t in 0..u.trees.len() {
        if u.trees[t].nodes.len() < 2 {
            continue;
        }
        let s = shape(t);
        match groups.iter_mut().find(|(k, _)| *k == s) {
            Some((_, g)) => g.push(t),
            None => groups.push((s, vec![t])),
        }
    }
    groups
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| g.len() >= 2)
        .collect()
}

/// The nodes of thread `t`'s tree at `depth` (the root is at 0).
pub(super) fn nodes_at(u: &Universe, t: usize, depth: usize) -> Vec<usize> {
    let nodes = &u.trees[t].nodes;
    let mut level = vec![0usize];
    for _ in 0..depth {
        level = level
            .iter()
            .flat_map(|&x| nodes[x].children.iter().map(|&c| c as usize))
            .collect();
    }
    level
}

/// The key depth of a group: the least depth above which no path ends and at which every
/// node of every thread is a write to one location, with the same attributes within a
/// thread, and every two threads' key writes must be ordered in coherence.
pub(super) fn key_depth(u: &Universe, group: &[usize], us: &Pairs, sc: bool) -> Option<usize> {
    let ev = &u.events;
    let nodes = &u.trees[group[0]].nodes;
    let mut level = vec![0usize];
    for depth in 1.. {
        if level.iter().any(|&x| !nodes[x].ends.is_empty()) {
            return None;
        }
        level = level
            .iter()
            .flat_map(|&x| nodes[x].children.iter().map(|&c| c as usize))
            .collect();
        if level.is_empty() {
            return None;
        }
        let Some(reps) = group
            .iter()
            .map(|&t| key_event(u, t, depth))
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        let loc = ev[reps[0]].loc;
        let ordered = reps.iter().enumerate().all(|(i, &a)| {
            ev[a].loc == loc && reps[i + 1..].iter().all(|&b| sc || us.ms_either(a, b))
        });
        if ordered {
            return Some(depth);
        }
    }
    None
}

/// A key write of thread `t` at `depth`, when every node there is a write to one location
/// with the same attributes.
fn key_event(u: &Universe, t: usize, depth: usize) -> Option<usize> {
    let ev = &u.events;
    let mut gs = nodes_at(u, t, depth)
        .into_iter()
        .map(|x| u.trees[t].nodes[x].event);
    let first = gs.next()??;
    let e = &ev[first];
    if e.kind != EventKind::Write || e.loc.is_none() {
        return None;
    }
    for g in gs {
        let f = &ev[g?];
        if f.kind != EventKind::Write || !same_attrs(e, f) {
            return None;
        }
    }
    Some(first)
}

/// Whether `f` is `e`'s image: the same attributes, on thread `thread`, with `pi`'s image of
/// `e`'s value.
fn alike(e: &Event, f: &Event, thread: Option<u32>, pi: &Renaming) -> bool {
    f.thread == thread && f.value == pi.value(e.loc, e.value) && same_attrs(e, f)
}

/// Whether two events have the same attributes, apart from their thread and value.
fn same_attrs(e: &Event, f: &Event) -> bool {
    e.kind == f.kind
        && e.loc == f.loc
        && e.vloc == f.vloc
        && e.strong == f.strong
        && e.scope == f.scope
        && e.acquire == f.acquire
        && e.release == f.release
        && e.fence == f.fence
        && e.proxy == f.proxy
        && e.rmw == f.rmw
        && e.red == f.red
        && e.barrier == f.barrier
        && e.instr == f.instr
}

/// The swap of threads `a` and `b` with the value map `pi`, if it maps the universe onto
/// itself.
pub(super) fn swap(u: &Universe, facts: &Facts, a: usize, b: usize, pi: &Renaming) -> Option<Swap> {
    if !facts.placed_alike(a, b) {
        return None;
    }
    let to: Vec<usize> = (0..u.trees.len())
        .map(|t| match t {
            _ if t == a => b,
            _ if t == b => a,
            _ => t,
        })
        .collect();
    let mut event: Vec<usize> = (0..u.events.len()).collect();
    let mut end = Vec::with_capacity(u.trees.len());
    for (t, &s) in to.iter().enumerate() {
        end.push(match_trees(u, t, s, pi, &mut event)?);
    }
    // A pair of events the swap leaves in place maps onto itself. Both kinds of pairs join an
    // event to an ancestor in its tree, and the tree matching keeps depths and ancestry, so
    // the pairs into an event map onto the pairs into its image when the ancestors' depths
    // agree.
    let maps = |sorted: &[(usize, usize)]| {
        sorted
            .iter()
            .filter(|&&(x, y)| event[x] != x || event[y] != y)
            .all(|&(x, y)| sorted.binary_search(&(event[x], event[y])).is_ok())
    };
    let kept = match &facts.ancestry {
        Ancestry::Depths(bits) => {
            (0..event.len()).all(|x| event[x] == x || bits[x] == bits[event[x]])
        }
        Ancestry::Sorted { rmw, deps } => maps(rmw) && maps(deps),
    };
    kept.then_some(Swap { to, event, end })
}

/// Matches thread `t`'s tree with thread `s`'s under the value map `pi`, writing the events'
/// images into `event`; the map of `t`'s path numbers to `s`'s.
fn match_trees(
    u: &Universe,
    t: usize,
    s: usize,
    pi: &Renaming,
    event: &mut [usize],
) -> Option<Vec<u32>> {
    let (from, to) = (&u.trees[t].nodes, &u.trees[s].nodes);
    if from.len() != to.len() {
        return None;
    }
    let paths = from
        .iter()
        .flat_map(|x| x.ends.iter())
        .map(|&e| e as usize + 1)
        .max()
        .unwrap_or(0);
    let mut end = vec![u32::MAX; paths];
    let mut image = vec![usize::MAX; from.len()];
    let mut taken = vec![false; to.len()];
    image[0] = 0;
    let thread = Some(u32::try_from(s).ok()?);
    // Parents come before their children, so a node's image is known when it is reached.
    for x in 0..from.len() {
        let y = *image.get(x).filter(|&&y| y != usize::MAX)?;
        let (nx, ny) = (&from[x], &to[y]);
        if nx.children.len() != ny.children.len() || nx.ends.len() != ny.ends.len() {
            return None;
        }
        if nx.ends.len() > 1 {
            return None;
        }
        if let (Some(&p), Some(&q)) = (nx.ends.first(), ny.ends.first()) {
            end[p as usize] = q;
        }
        for &c in &nx.children {
            let e = &u.events[from[c as usize].event?];
            let mut found = ny.children.iter().filter(|&&d| {
                to[d as usize]
                    .event
                    .is_some_and(|g| alike(e, &u.events[g], thread, pi))
            });
            let d = *found.next()? as usize;
            if found.next().is_some() || std::mem::replace(&mut taken[d], true) {
                return None;
            }
            image[c as usize] = d;
            event[from[c as usize].event?] = to[d].event?;
        }
    }
    Some(end)
}

/// Per event, the depths of its dependencies' and its RMW read's events, as bits ([`Facts`]).
fn depth_bits(u: &Universe) -> Option<Vec<(u64, u64)>> {
    let mut depth = vec![0usize; u.events.len()];
    for tree in &u.trees {
        let mut at = vec![0usize; tree.nodes.len()];
        for (x, node) in tree.nodes.iter().enumerate() {
            for &c in &node.children {
                at[c as usize] = at[x] + 1;
            }
            if let Some(g) = node.event {
                depth[g] = at[x];
            }
        }
    }
    let mut bits = vec![(0u64, 0u64); u.events.len()];
    for (pairs, rmw) in [(&u.deps, false), (&u.rmw, true)] {
        for &(from, to) in pairs {
            let bit = 1u64.checked_shl(u32::try_from(depth[from]).ok()?)?;
            if rmw {
                bits[to].1 |= bit;
            } else {
                bits[to].0 |= bit;
            }
        }
    }
    Some(bits)
}

fn sorted(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut v = pairs.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}
