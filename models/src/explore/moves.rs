//! The moves that extend a partial execution: a thread's end, a read from a present write or
//! from a later one, a write placed in coherence order (and taken as the source of deferred
//! reads), a fence or barrier.

use smallvec::SmallVec;

use super::search::Search;
use crate::event::EventKind;
use crate::rel::Rel;

/// A few local indices, inline (a move is built per choice: no allocation for most).
pub(super) type Few = SmallVec<[usize; 8]>;

/// One way to extend a partial execution.
pub(super) enum Move {
    /// Thread ends with this path.
    End(u32),
    /// Add a read, reading from a present write (local index) or from a later one.
    Read { child: u32, src: Option<usize> },
    /// Add a write, after the `before` writes and before the `after` ones, and the source of
    /// the deferred reads in `takes`.
    Write {
        child: u32,
        before: Few,
        after: Few,
        takes: Few,
    },
    /// Add a fence or barrier.
    Plain { child: u32 },
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
    /// Whether some unfinished thread can still write `value` to `loc`; thread `t` is taken at
    /// node `x` (where it is about to be).
    fn can_write_later(&self, t: usize, x: u32, loc: u32, value: i64) -> bool {
        (0..self.at.len()).any(|t2| {
            self.ended[t2].is_none()
                && self
                    .u
                    .can_write(t2, if t2 == t { x } else { self.at[t2] }, loc, value)
        })
    }

    pub(super) fn moves(&self, t: usize) -> Vec<Move> {
        let tree = &self.u.trees[t];
        let node = &tree.nodes[self.at[t] as usize];
        let ev = &self.u.events;
        let mut out: Vec<Move> = node.ends.iter().map(|&e| Move::End(e)).collect();
        for &c in &node.children {
            let Some(g) = tree.nodes[c as usize].event else {
                continue;
            };
            let e = &ev[g];
            match e.kind {
                EventKind::Read => {
                    for (j, &h) in self.ids.iter().enumerate() {
                        let w = &ev[h];
                        if w.kind == EventKind::Write && w.loc == e.loc && w.value == e.value {
                            out.push(Move::Read {
                                child: c,
                                src: Some(j),
                            });
                        }
                    }
                    if self.can_write_later(t, c, e.loc.unwrap_or(u32::MAX), e.value) {
                        out.push(Move::Read {
                            child: c,
                            src: None,
                        });
                    }
                }
                EventKind::Write => self.write_moves(c, g, &mut out),
                EventKind::Fence | EventKind::Barrier => out.push(Move::Plain { child: c }),
            }
        }
        out
    }

    /// The ways to add write `g` at tree node `c`: each acyclic orientation against the
    /// present writes it must be ordered with, times each subset of the deferred reads of its
    /// location and value that take it as their source.
    fn write_moves(&self, c: u32, g: usize, out: &mut Vec<Move>) {
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
        let mut orders = Vec::new();
        orient(
            &self.ch.co,
            &partners,
            &mut Few::new(),
            &mut Few::new(),
            &mut orders,
        );
        let readers: Few = self
            .deferred
            .iter()
            .copied()
            .filter(|&r| ev[self.ids[r]].loc == e.loc && ev[self.ids[r]].value == e.value)
            .collect();
        for (before, after) in orders {
            for mask in 0..1u64 << readers.len().min(63) {
                let takes = (0..readers.len())
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| readers[i])
                    .collect();
                out.push(Move::Write {
                    child: c,
                    before: before.clone(),
                    after: after.clone(),
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
/// with `closed` (a write after it must not be coherence-before one before it).
fn orient(
    closed: &Rel,
    partners: &[usize],
    before: &mut Few,
    after: &mut Few,
    out: &mut Vec<(Few, Few)>,
) {
    let Some((&x, rest)) = partners.split_first() else {
        out.push((before.clone(), after.clone()));
        return;
    };
    if after.iter().all(|&a| !closed.has(a, x)) {
        before.push(x);
        orient(closed, rest, before, after, out);
        before.pop();
    }
    if before.iter().all(|&b| !closed.has(x, b)) {
        after.push(x);
        orient(closed, rest, before, after, out);
        after.pop();
    }
}
