//! Binary relations over the events of one execution, as bit matrices.
//!
//! Events are numbered `0..n`; a [`Rel`] holds one row of bits per event. The operations are
//! the relation algebra of cat/Alloy models: union `|`, intersection `&`, difference `\`,
//! composition `;`, inverse `^-1`, restriction to a set `[S];r;[S']`, reflexive and transitive
//! closure. Litmus executions have tens of events, so dense bit rows are compact and fast.
//! Cycle witnesses (for "which cycle broke the axiom") use petgraph.

use std::fmt;

use petgraph::graph::{DiGraph, NodeIndex};
use smallvec::{smallvec, SmallVec};

/// Bit words: a set of up to 128 events inline (no allocation); a relation's rows on the heap,
/// so that returning one moves a pointer rather than copying an inline buffer (an inline
/// `SmallVec<[u64; 32]>` made every returned relation a 272-byte copy, a third of the
/// explorer's time).
type SetWords = SmallVec<[u64; 2]>;
type RelWords = Vec<u64>;

/// A set of events, as bits.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Set {
    bits: SetWords,
    n: usize,
}

impl Set {
    /// The empty set over `n` events.
    pub fn empty(n: usize) -> Set {
        Set {
            bits: smallvec![0; n.div_ceil(64).max(1)],
            n,
        }
    }

    /// The set of events for which `f` holds.
    pub fn from_fn(n: usize, f: impl Fn(usize) -> bool) -> Set {
        let mut s = Set::empty(n);
        for i in 0..n {
            if f(i) {
                s.insert(i);
            }
        }
        s
    }

    /// Adds event `i`.
    pub fn insert(&mut self, i: usize) {
        self.bits[i / 64] |= 1 << (i % 64);
    }

    /// Removes event `i`.
    pub fn remove(&mut self, i: usize) {
        self.bits[i / 64] &= !(1 << (i % 64));
    }

    /// Whether event `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        (self.bits[i / 64] >> (i % 64)) & 1 == 1
    }

    /// The events in the set, ascending (found a word at a time).
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + b
                })
            })
        })
    }

    /// Intersection.
    pub fn and(&self, o: &Set) -> Set {
        Set {
            bits: self.bits.iter().zip(&o.bits).map(|(a, b)| a & b).collect(),
            n: self.n,
        }
    }

    /// Union.
    pub fn or(&self, o: &Set) -> Set {
        Set {
            bits: self.bits.iter().zip(&o.bits).map(|(a, b)| a | b).collect(),
            n: self.n,
        }
    }

    /// Whether every element of `self` is in `o`.
    pub fn is_subset(&self, o: &Set) -> bool {
        self.bits.iter().zip(&o.bits).all(|(a, b)| a & !b == 0)
    }

    /// The first word of bits (events `0..64`).
    pub(crate) fn word0(&self) -> u64 {
        self.bits[0]
    }

    /// Complement within `0..n`.
    pub fn not(&self) -> Set {
        Set::from_fn(self.n, |i| !self.contains(i))
    }
}

/// A binary relation over `n` events.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rel {
    rows: RelWords,
    words: usize,
    n: usize,
}

impl Rel {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Rel {
        let words = n.div_ceil(64).max(1);
        Rel {
            rows: vec![0; words * n],
            words,
            n,
        }
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the relation is over no events.
    pub fn is_empty_domain(&self) -> bool {
        self.n == 0
    }

    /// The relation `{(a, b) | f(a, b)}`.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::empty(n);
        for a in 0..n {
            for b in 0..n {
                if f(a, b) {
                    r.add(a, b);
                }
            }
        }
        r
    }

    /// The identity on the events of `s`: `[s]`.
    pub fn id_of(s: &Set) -> Rel {
        let mut r = Rel::empty(s.n);
        for i in s.iter() {
            r.add(i, i);
        }
        r
    }

    /// `s × t`.
    pub fn product(s: &Set, t: &Set) -> Rel {
        let mut r = Rel::empty(s.n);
        for a in s.iter() {
            for (w, tw) in t.bits.iter().enumerate() {
                r.rows[a * r.words + w] = *tw;
            }
        }
        r
    }

    /// Adds the pair `(a, b)`.
    #[inline]
    pub fn add(&mut self, a: usize, b: usize) {
        self.rows[a * self.words + b / 64] |= 1 << (b % 64);
    }

    /// Removes the pair `(a, b)`.
    #[inline]
    pub fn remove(&mut self, a: usize, b: usize) {
        self.rows[a * self.words + b / 64] &= !(1 << (b % 64));
    }

    /// Whether `(a, b)` is in the relation.
    #[inline]
    pub fn has(&self, a: usize, b: usize) -> bool {
        (self.rows[a * self.words + b / 64] >> (b % 64)) & 1 == 1
    }

    /// Removes every pair that has `k` on either side (event `k` leaves the execution).
    pub fn clear_row_col(&mut self, k: usize) {
        for w in &mut self.rows[k * self.words..(k + 1) * self.words] {
            *w = 0;
        }
        let (word, bit) = (k / 64, 1u64 << (k % 64));
        for a in 0..self.n {
            self.rows[a * self.words + word] &= !bit;
        }
    }

    /// [`Rel::clear_row_col`] where only rows `0..=k` can hold pairs (the explorer takes back
    /// its last event `k`).
    pub fn clear_last(&mut self, k: usize) {
        if self.words == 1 && k < 64 {
            let keep = !(1u64 << k);
            for w in &mut self.rows[..k.min(self.n)] {
                *w &= keep;
            }
            if let Some(w) = self.rows.get_mut(k) {
                *w = 0;
            }
            return;
        }
        for w in &mut self.rows[k * self.words..(k + 1) * self.words] {
            *w = 0;
        }
        let (word, bit) = (k / 64, 1u64 << (k % 64));
        for a in 0..k.min(self.n) {
            self.rows[a * self.words + word] &= !bit;
        }
    }

    /// The rows as one word each, when the relation is over at most 64 events.
    pub(crate) fn rows1(&self) -> Option<&[u64]> {
        (self.words == 1).then_some(&self.rows[..])
    }

    /// [`Rel::rows1`], to change in place.
    pub(crate) fn rows1_mut(&mut self) -> Option<&mut [u64]> {
        (self.words == 1).then_some(&mut self.rows[..])
    }

    fn row(&self, a: usize) -> &[u64] {
        &self.rows[a * self.words..(a + 1) * self.words]
    }

    /// The pairs, in order.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for a in 0..self.n {
            for b in 0..self.n {
                if self.has(a, b) {
                    out.push((a, b));
                }
            }
        }
        out
    }

    /// Whether the relation has no pair.
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|w| *w == 0)
    }

    /// `self | o`.
    pub fn union(&self, o: &Rel) -> Rel {
        self.zip_with(o, |x, y| x | y)
    }

    /// `self & o`.
    pub fn inter(&self, o: &Rel) -> Rel {
        self.zip_with(o, |x, y| x & y)
    }

    /// `self \ o`.
    pub fn minus(&self, o: &Rel) -> Rel {
        self.zip_with(o, |x, y| x & !y)
    }

    /// The relation whose words are `f` of `self`'s and `o`'s (a copy of `self`'s words,
    /// then changed in place: cheaper than collecting an iterator into the inline buffer).
    fn zip_with(&self, o: &Rel, f: impl Fn(u64, u64) -> u64) -> Rel {
        let mut r = self.clone();
        for (x, y) in r.rows.iter_mut().zip(&o.rows) {
            *x = f(*x, *y);
        }
        r
    }

    /// `self := self | o`, in place.
    pub fn union_with(&mut self, o: &Rel) {
        for (x, y) in self.rows.iter_mut().zip(&o.rows) {
            *x |= *y;
        }
    }

    /// `self := self & o`, in place.
    pub fn inter_with(&mut self, o: &Rel) {
        for (x, y) in self.rows.iter_mut().zip(&o.rows) {
            *x &= *y;
        }
    }

    /// `self ; o`.
    pub fn seq(&self, o: &Rel) -> Rel {
        let mut r = Rel::empty(self.n);
        let w = self.words;
        if w == 1 {
            // One word per row (up to 64 events): a row is the union of `o`'s rows it names.
            for (out, &row) in r.rows.iter_mut().zip(&self.rows) {
                let mut bits = row;
                let mut acc = 0;
                while bits != 0 {
                    acc |= o.rows[bits.trailing_zeros() as usize];
                    bits &= bits - 1;
                }
                *out = acc;
            }
            return r;
        }
        for a in 0..self.n {
            for wi in 0..w {
                let mut bits = self.rows[a * w + wi];
                while bits != 0 {
                    let m = wi * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for x in 0..w {
                        r.rows[a * w + x] |= o.rows[m * w + x];
                    }
                }
            }
        }
        r
    }

    /// `self^-1`.
    pub fn inverse(&self) -> Rel {
        let mut r = Rel::empty(self.n);
        let w = self.words;
        for a in 0..self.n {
            for wi in 0..w {
                let mut bits = self.rows[a * w + wi];
                while bits != 0 {
                    let b = wi * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    r.add(b, a);
                }
            }
        }
        r
    }

    /// `[s] ; self ; [t]`.
    pub fn restrict(&self, s: &Set, t: &Set) -> Rel {
        let mut r = Rel::empty(self.n);
        for a in s.iter() {
            let base = a * self.words;
            for w in 0..self.words {
                r.rows[base + w] = self.rows[base + w] & t.bits[w];
            }
        }
        r
    }

    /// `[s] ; self`.
    pub fn from_set(&self, s: &Set) -> Rel {
        self.restrict(s, &Set::from_fn(self.n, |_| true))
    }

    /// `self ; [t]`.
    pub fn to_set(&self, t: &Set) -> Rel {
        self.restrict(&Set::from_fn(self.n, |_| true), t)
    }

    /// `self?`: with the identity added.
    pub fn opt(&self) -> Rel {
        let mut r = self.clone();
        for i in 0..self.n {
            r.add(i, i);
        }
        r
    }

    /// `self+`: the transitive closure (Warshall on bit rows).
    pub fn plus(&self) -> Rel {
        let mut r = self.clone();
        let w = r.words;
        if w == 1 {
            // One word per row: row `k` does not change while `k` is the pivot.
            let rows = &mut r.rows[..self.n];
            for k in 0..rows.len() {
                let (bit, rk) = (1u64 << k, rows[k]);
                if rk == 0 {
                    continue;
                }
                for row in rows.iter_mut() {
                    if *row & bit != 0 {
                        *row |= rk;
                    }
                }
            }
            return r;
        }
        for k in 0..self.n {
            let (word, bit) = (k / 64, 1u64 << (k % 64));
            for a in 0..self.n {
                if r.rows[a * w + word] & bit != 0 {
                    for x in 0..w {
                        let v = r.rows[k * w + x];
                        r.rows[a * w + x] |= v;
                    }
                }
            }
        }
        r
    }

    /// `self*`.
    pub fn star(&self) -> Rel {
        self.plus().opt()
    }

    /// Whether no event relates to itself.
    pub fn irreflexive(&self) -> bool {
        (0..self.n).all(|i| !self.has(i, i))
    }

    /// Whether the relation has no cycle.
    pub fn acyclic(&self) -> bool {
        self.plus().irreflexive()
    }

    /// Whether every pair of `self` is in `o`.
    pub fn subset_of(&self, o: &Rel) -> bool {
        self.rows.iter().zip(&o.rows).all(|(a, b)| a & !b == 0)
    }

    /// The domain (events with an outgoing pair).
    pub fn domain(&self) -> Set {
        Set::from_fn(self.n, |a| self.row(a).iter().any(|w| *w != 0))
    }

    /// The range (events with an incoming pair).
    pub fn range(&self) -> Set {
        let mut s = Set::empty(self.n);
        for a in 0..self.n {
            for (w, x) in self.row(a).iter().enumerate() {
                s.bits[w] |= x;
            }
        }
        s
    }

    /// A shortest cycle of the relation, as the list of events visited (the first event is
    /// not repeated at the end); `None` when acyclic.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        let mut g: DiGraph<usize, ()> = DiGraph::new();
        let nodes: Vec<NodeIndex> = (0..self.n).map(|i| g.add_node(i)).collect();
        for (a, b) in self.pairs() {
            g.add_edge(nodes[a], nodes[b], ());
        }
        let mut best: Option<Vec<usize>> = None;
        for scc in petgraph::algo::tarjan_scc(&g) {
            let single = scc.len() == 1 && !self.has(g[scc[0]], g[scc[0]]);
            if single {
                continue;
            }
            for &start in &scc {
                if let Some(c) = self.shortest_cycle_through(g[start]) {
                    if best.as_ref().is_none_or(|b| c.len() < b.len()) {
                        best = Some(c);
                    }
                }
            }
        }
        best
    }

    /// A shortest cycle through event `s` (breadth-first), if any.
    pub fn shortest_cycle_through(&self, s: usize) -> Option<Vec<usize>> {
        if self.has(s, s) {
            return Some(vec![s]);
        }
        let mut prev = vec![usize::MAX; self.n];
        let mut queue = std::collections::VecDeque::new();
        for (b, p) in prev.iter_mut().enumerate() {
            if self.has(s, b) {
                *p = s;
                queue.push_back(b);
            }
        }
        while let Some(x) = queue.pop_front() {
            if self.has(x, s) {
                let mut path = vec![x];
                let mut cur = x;
                while prev[cur] != s {
                    cur = prev[cur];
                    path.push(cur);
                }
                path.push(s);
                path.reverse();
                return Some(path);
            }
            for (b, p) in prev.iter_mut().enumerate() {
                if self.has(x, b) && *p == usize::MAX && b != s {
                    *p = x;
                    queue.push_back(b);
                }
            }
        }
        None
    }
}

impl fmt::Debug for Rel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

impl fmt::Debug for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    fn rel(n: usize, pairs: &[(usize, usize)]) -> Rel {
        let mut r = Rel::empty(n);
        for &(a, b) in pairs {
            r.add(a, b);
        }
        r
    }

    #[test]
    fn composition_and_closure() {
        let r = rel(4, &[(0, 1), (1, 2), (2, 3)]);
        assert_eq!(r.seq(&r).pairs(), vec![(0, 2), (1, 3)]);
        let p = r.plus();
        assert!(p.has(0, 3) && !p.has(3, 0));
        assert!(r.acyclic());
        let c = rel(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
        assert!(!c.acyclic());
        assert_eq!(c.find_cycle().map(|v| v.len()), Some(3));
        assert_eq!(rel(3, &[(1, 1)]).find_cycle(), Some(vec![1]));
        assert_eq!(rel(3, &[(0, 1)]).find_cycle(), None);
    }

    #[test]
    fn restriction_and_sets() {
        let r = Rel::from_fn(3, |a, b| a != b);
        let s = Set::from_fn(3, |i| i == 0);
        let t = Set::from_fn(3, |i| i == 2);
        assert_eq!(r.restrict(&s, &t).pairs(), vec![(0, 2)]);
        assert_eq!(
            r.inverse().pairs(),
            r.pairs()
                .iter()
                .map(|&(a, b)| (b, a))
                .collect::<Vec<_>>()
                .into_iter()
                .fold(Vec::new(), |mut v, p| {
                    v.push(p);
                    v.sort();
                    v
                })
        );
        assert_eq!(Rel::product(&s, &t).pairs(), vec![(0, 2)]);
        assert_eq!(Rel::id_of(&t).pairs(), vec![(2, 2)]);
    }

    #[test]
    fn many_events_cross_word_boundaries() {
        let n = 130;
        let chain = Rel::from_fn(n, |a, b| b == a + 1);
        let p = chain.plus();
        assert!(p.has(0, 129) && p.has(63, 64) && !p.has(129, 0));
        assert_eq!(chain.range().iter().count(), 129);
    }

    fn arb_rel(edges: Vec<(u8, u8)>) -> Rel {
        let mut r = Rel::empty(8);
        for (a, b) in edges {
            r.add(usize::from(a % 8), usize::from(b % 8));
        }
        r
    }

    quickcheck! {
        fn composition_is_associative(a: Vec<(u8, u8)>, b: Vec<(u8, u8)>, c: Vec<(u8, u8)>) -> bool {
            let (a, b, c) = (arb_rel(a), arb_rel(b), arb_rel(c));
            a.seq(&b).seq(&c) == a.seq(&b.seq(&c))
        }

        fn inverse_distributes_over_composition(a: Vec<(u8, u8)>, b: Vec<(u8, u8)>) -> bool {
            let (a, b) = (arb_rel(a), arb_rel(b));
            a.seq(&b).inverse() == b.inverse().seq(&a.inverse())
        }

        fn closure_is_transitive_and_minimal(a: Vec<(u8, u8)>) -> bool {
            let a = arb_rel(a);
            let p = a.plus();
            p.seq(&p).subset_of(&p) && a.subset_of(&p) && p == a.union(&a.seq(&p))
        }

        fn a_found_cycle_is_a_cycle(a: Vec<(u8, u8)>) -> bool {
            let a = arb_rel(a);
            match a.find_cycle() {
                None => a.acyclic(),
                Some(c) => !a.acyclic() && (0..c.len()).all(|i| a.has(c[i], c[(i + 1) % c.len()])),
            }
        }
    }
}
