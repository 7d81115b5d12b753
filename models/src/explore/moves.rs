//! The moves that extend a partial execution: a thread's end, a read from a present write or
//! from a later one, a write placed in coherence order (and taken as the source of deferred
//! reads), a fence or barrier.

use smallvec::SmallVec;

use super::atomic::{fits, Side};
use super::search::Search;
use crate::event::EventKind;
use crate::rel::Rel;

/// A few local indices, inline (a move is built per choice: no allocation for most).
pub(super) type Few = SmallVec<[usize; 8]>;

/// One way to extend a partial execution.
#[derive(Clone, Copy)]
pub(super) enum Move {
    /// Thread ends with this path.
    End(u32),
    /// Add a read, reading from a present write (local index) or from a later one.
    Read { child: u32, src: Option<usize> },
    /// Add a write, placed in coherence order as [`Moves::orders`]`[order]` says, and the
    /// source of the deferred reads that `takes` picks of that order's readers (bit `i` for
    /// reader `i`).
    Write { child: u32, order: u32, takes: u64 },
    /// Add a fence or barrier.
    Plain { child: u32 },
}

/// A write's place in coherence order: after the `before` writes and before the `after`
/// ones; `readers` indexes [`Moves::readers`] (the deferred reads it may be the source of).
pub(super) struct Order {
    pub(super) before: Few,
    pub(super) after: Few,
    readers: usize,
}

/// The moves of one step, with the coherence placements and deferred readers their writes
/// share (kept apart so that a move is a few words, and reused from step to step).
#[derive(Default)]
pub(super) struct Moves {
    pub(super) list: Vec<Move>,
    pub(super) orders: Vec<Order>,
    readers: Vec<Few>,
}

impl Moves {
    /// The coherence placement and the deferred reads taken of a write move.
    pub(super) fn write(
        &self,
        order: u32,
        takes: u64,
    ) -> (&Order, impl Iterator<Item = usize> + '_) {
        let o = &self.orders[order as usize];
        let readers = &self.readers[o.readers];
        let taken = (0..readers.len().min(64))
            .filter(move |&i| takes >> i & 1 == 1)
            .map(move |i| readers[i]);
        (o, taken)
    }
}

impl Move {
    /// The tree node of the event the move adds, if it adds one.
    pub(super) fn child(&self) -> Option<u32> {
        match self {
            Move::End(_) => None,
            Move::Read { child, .. } | Move::Write { child, .. } | Move::Plain { child } => {
                Some(*child)
            }
        }
    }
}

impl Search<'_> {
    /// Whether some unfinished thread can still write pair `p` (location and value,
    /// [`super::writable`]); thread `t` is taken at node `x` (where it is about to be).
    fn can_write_later(&self, t: usize, x: u32, p: u32) -> bool {
        let wr = &self.u.writable;
        (0..self.at.len()).any(|t2| {
            self.ended[t2].is_none()
                && wr.can_write_pair(t2, if t2 == t { x } else { self.at[t2] }, p)
        })
    }

    /// Thread `t`'s moves, into `ms` (cleared first).
    pub(super) fn moves(&self, t: usize, ms: &mut Moves) {
        ms.list.clear();
        ms.orders.clear();
        ms.readers.clear();
        let tree = &self.u.trees[t];
        let node = &tree.nodes[self.at[t] as usize];
        let ev = &self.u.events;
        ms.list.extend(node.ends.iter().map(|&e| Move::End(e)));
        // The present RMWs that have read, gathered once for the RMW reads among the children.
        let mut spent = None;
        for &c in &node.children {
            let Some(g) = tree.nodes[c as usize].event else {
                continue;
            };
            let e = &ev[g];
            match e.kind {
                EventKind::Read => {
                    let spent = self.rmw_write_after(t, c, g).map(|gw| {
                        let s = spent.get_or_insert_with(|| self.spent_writes());
                        self.spent_for(s, g, gw)
                    });
                    for (j, &h) in self.ids.iter().enumerate() {
                        let w = &ev[h];
                        if w.kind == EventKind::Write
                            && w.loc == e.loc
                            && w.value == e.value
                            && !spent.as_ref().is_some_and(|s| s.contains(&j))
                        {
                            ms.list.push(Move::Read {
                                child: c,
                                src: Some(j),
                            });
                        }
                    }
                    let present_only = self
                        .ctl
                        .symmetry
                        .as_ref()
                        .is_some_and(|s| s.present_source(g));
                    if !present_only
                        && self.can_write_later(t, c, self.u.writable.pair_of(g))
                        && !self.defer_doomed(t, c, g)
                    {
                        ms.list.push(Move::Read {
                            child: c,
                            src: None,
                        });
                    }
                }
                EventKind::Write => self.write_moves(t, c, g, ms),
                EventKind::Fence | EventKind::Barrier => ms.list.push(Move::Plain { child: c }),
            }
        }
    }

    /// The write of the RMW whose read is `g`, at thread `t`'s tree node `c` (universe
    /// events), if `g` is one.
    fn rmw_write_after(&self, t: usize, c: u32, g: usize) -> Option<usize> {
        let tree = &self.u.trees[t];
        tree.nodes[c as usize]
            .children
            .iter()
            .filter_map(|&k| tree.nodes[k as usize].event)
            .find(|&w| self.us.rmw_read(w) == Some(g))
    }

    /// The ways to add write `g` at tree node `c`: each acyclic orientation against the
    /// present writes it must be ordered with, times each subset of the deferred reads of its
    /// location and value that take it as their source.
    fn write_moves(&self, t: usize, c: u32, g: usize, ms: &mut Moves) {
        let ev = &self.u.events;
        let e = &ev[g];
        let partners: Few = (self.u.inits..self.ids.len())
            .filter(|&j| {
                let h = self.ids[j];
                ev[h].kind == EventKind::Write
                    && ev[h].loc == e.loc
                    && (self.sc || self.us.ms_either(h, g))
            })
            .collect();
        let readers: Few = self
            .deferred
            .iter()
            .copied()
            .filter(|&r| ev[self.ids[r]].loc == e.loc && ev[self.ids[r]].value == e.value)
            .collect();
        let (first, r) = (ms.orders.len(), ms.readers.len());
        let subsets = 1u64 << readers.len().min(63);
        // A deferred read left to a later write when no thread can make one any more fails
        // check 1 at once: such moves are not built.
        let forced =
            if !readers.is_empty() && !self.can_write_later(t, c, self.u.writable.pair_of(g)) {
                subsets - 1
            } else {
                0
            };
        let sides = self.rmw_sides(t, g, &partners);
        let sides = match &self.ctl.symmetry {
            Some(sym) => sym.sides(g, partners.iter().map(|&j| self.ids[j]), sides),
            None => Some(sides),
        };
        // Interchangeable threads' key writes go in thread order: a write that cannot is not
        // built.
        let Some(sides) = sides else {
            return;
        };
        let needs = self.taker_needs(g, &readers, &partners);
        ms.readers.push(readers);
        orient(
            &self.ch.co,
            &partners,
            &sides,
            &mut Few::new(),
            &mut Few::new(),
            &mut |before, after| {
                ms.orders.push(Order {
                    before: before.into(),
                    after: after.into(),
                    readers: r,
                });
            },
        );
        for order in first..ms.orders.len() {
            let order = u32::try_from(order).unwrap_or(u32::MAX);
            let o = &ms.orders[order as usize];
            let fitting = (0..subsets).filter(|&m| m & forced == forced && fits(o, m, &needs));
            for takes in fitting.collect::<SmallVec<[u64; 8]>>() {
                ms.list.push(Move::Write {
                    child: c,
                    order,
                    takes,
                });
            }
        }
    }
}

/// Whether a move leaves every relation between present events, and every constraint on the
/// new event, unchanged, so that only the deferred reads need a look: a thread's end; a
/// deferred read or a fence or barrier, added last in its thread with no edge leaving it (no
/// reads-from, no coherence, no program-order successor, and no pattern can start at it
/// without a later event), so no new path runs through it and none of the axioms'
/// relations gains an edge out of it.
pub(super) fn quiet(m: &Move) -> bool {
    match m {
        Move::End(_) | Move::Plain { .. } | Move::Read { src: None, .. } => true,
        Move::Read { src: Some(_), .. } | Move::Write { .. } => false,
    }
}

/// Every split of `partners` into writes before and after a new write that closes no cycle
/// with `closed` (a write after it must not be coherence-before one before it) and puts each
/// partner on the side `sides` allows ([`super::atomic`]).
fn orient(
    closed: &Rel,
    partners: &[usize],
    sides: &[Side],
    before: &mut Few,
    after: &mut Few,
    out: &mut dyn FnMut(&[usize], &[usize]),
) {
    let (Some((&x, rest)), Some((&side, sides))) = (partners.split_first(), sides.split_first())
    else {
        out(before, after);
        return;
    };
    if side != Side::After && after.iter().all(|&a| !closed.has(a, x)) {
        before.push(x);
        orient(closed, rest, sides, before, after, out);
        before.pop();
    }
    if side != Side::Before && before.iter().all(|&b| !closed.has(x, b)) {
        after.push(x);
        orient(closed, rest, sides, before, after, out);
        after.pop();
    }
}
