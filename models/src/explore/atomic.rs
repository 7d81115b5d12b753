//! Where the axioms put a new write in coherence order, and which writes a read may take,
//! when a read-modify-write is involved, so that [`super::moves`] builds only the moves that
//! can pass the checks: the source comes first, nothing comes between, no sharing
//! ([`Search::rmw_clash`]). Why a placement dropped here fails a check in every completion is
//! Lemma 8 of docs/spec/explorer.md.

use smallvec::SmallVec;

use super::check::Spent;
use super::moves::{Few, Order};
use super::search::Search;

/// Which side of a new write a present write must take.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Side {
    /// Either: both placements are built.
    Either,
    /// Coherence-before the new write.
    Before,
    /// Coherence-after the new write.
    After,
}

/// What taking a deferred RMW read asks of the new write's placement: its write `w` (local
/// index) after the new write, when [`Need::follows`], and the writes coherence-before `w`
/// before it.
pub(super) struct Need {
    reader: usize,
    w: usize,
    follows: bool,
    before: Few,
}

impl Search<'_> {
    /// Whether write `gs` must come before the write of an RMW whose read `gr` takes it
    /// (universe events).
    fn source_first(&self, gs: usize, gr: usize) -> bool {
        self.sc
            || (self.u.plain(self.u.events[gr].loc.unwrap_or(u32::MAX))
                && self.us.ms_either(gs, gr))
    }

    /// Whether write `gx` may not lie between an RMW's read `gr` and write `gw` (universe
    /// events).
    fn inside_forbidden(&self, gx: usize, gr: usize, gw: usize) -> bool {
        self.sc || (self.us.ms_either(gx, gr) && self.us.ms_either(gx, gw))
    }

    /// The side each of `partners` (local indices) must take against write `g` (universe
    /// event), added next by thread `t`, when `g` is the write of an RMW whose read (thread
    /// `t`'s last event) has its source.
    pub(super) fn rmw_sides(&self, t: usize, g: usize, partners: &[usize]) -> SmallVec<[Side; 8]> {
        let mut sides: SmallVec<[Side; 8]> = partners.iter().map(|_| Side::Either).collect();
        let Some(&r) = self.events[t].last() else {
            return sides;
        };
        let gr = self.ids[r];
        if self.us.rmw_read(g) != Some(gr) {
            return sides;
        }
        let Some(s) = (0..self.ids.len()).find(|&j| self.ch.rf.has(j, r)) else {
            return sides;
        };
        let closed = &self.ch.co;
        for (side, &x) in sides.iter_mut().zip(partners) {
            if x == s {
                if self.source_first(self.ids[s], gr) {
                    *side = Side::Before;
                }
            } else if closed.has(s, x) && self.inside_forbidden(self.ids[x], gr, g) {
                *side = Side::After;
            }
        }
        sides
    }

    /// For each deferred reader (local indices) of a new write `g` (universe event) that is
    /// the read of a present RMW: what taking it asks of `g`'s placement among `partners`.
    pub(super) fn taker_needs(
        &self,
        g: usize,
        readers: &[usize],
        partners: &[usize],
    ) -> SmallVec<[Need; 2]> {
        let mut out = SmallVec::new();
        for (i, &r) in readers.iter().enumerate() {
            let gr = self.ids[r];
            let Some(t) = self.u.events[gr].thread.map(|t| t as usize) else {
                continue;
            };
            let evs = &self.events[t];
            let Some(p) = evs.iter().position(|&k| k == r) else {
                continue;
            };
            let Some(&w) = evs.get(p + 1) else {
                continue;
            };
            let gw = self.ids[w];
            if self.us.rmw_read(gw) != Some(gr) {
                continue;
            }
            let closed = &self.ch.co;
            let before: Few = partners
                .iter()
                .copied()
                .filter(|&x| {
                    x != w && closed.has(x, w) && self.inside_forbidden(self.ids[x], gr, gw)
                })
                .collect();
            out.push(Need {
                reader: i,
                w,
                follows: partners.contains(&w) && self.source_first(g, gr),
                before,
            });
        }
        out
    }

    /// The present writes (local indices) that the read `gr` of an RMW with write `gw`
    /// (universe events) cannot take: each is read already by one of the present RMWs
    /// `spent` ([`Search::spent_writes`]) that would clash with it ([`Search::rmw_clash`],
    /// the atomicity argument of check 1). Only writes of the read's location and value are
    /// looked at (the others are no source of it).
    pub(super) fn spent_for(&self, spent: &Spent, gr: usize, gw: usize) -> Few {
        let ev = &self.u.events;
        let (loc, value) = (ev[gr].loc, ev[gr].value);
        spent
            .iter()
            .filter(|&&(w0, _, _)| {
                let e = &ev[self.ids[w0]];
                e.loc == loc && e.value == value
            })
            .filter(|&&(w0, r1, w1)| self.rmw_clash(w0, r1, w1, gr, gw))
            .map(|&(w0, _, _)| w0)
            .collect()
    }
}

/// Whether a placement and a choice of taken readers (bit `i` for reader `i`) meet the needs
/// of the RMW reads taken.
pub(super) fn fits(o: &Order, takes: u64, needs: &[Need]) -> bool {
    needs.iter().all(|n| {
        takes >> n.reader & 1 == 0
            || ((!n.follows || o.after.contains(&n.w))
                && n.before.iter().all(|x| !o.after.contains(x)))
    })
}
