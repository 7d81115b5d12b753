//! A complete execution: judged under every Fence-SC order and barrier matching, with the
//! verdict of the reference, and handed to the sink.

use std::collections::HashSet;
use std::sync::atomic::Ordering;

use super::search::Search;
use super::symmetry::Image;
use super::{Halt, Leaf, Sink};
use crate::ptx::{Axiom, Choice, Violation};
use crate::rel::Rel;
use crate::Next;

impl Search<'_> {
    /// A complete execution: judge it under every Fence-SC order and barrier matching.
    pub(super) fn leaf(&mut self, sink: &mut dyn Sink) -> Next {
        let ends: Vec<u32> = self.ended.iter().map(|e| e.unwrap_or(0)).collect();
        let bars = sink.syncbars(&ends, &self.events, self.cap);
        // No Fence-SC order to choose: the empty one, which the partial checks used.
        let orders = self.sc_orders();
        for o in 0..orders.len().max(1) {
            for bar in &bars {
                // Judging one complete execution costs more than a step: look at the brakes.
                if self.brakes() == Next::Stop || self.count_execution() == Next::Stop {
                    return Next::Stop;
                }
                let sc = orders.get(o).unwrap_or(&self.ch.sc);
                let (judged, verdict) = if sc.is_empty() && bar.is_empty() {
                    // The partial execution's checks judged exactly this (an empty Fence-SC
                    // order and barrier matching) after the last step that changed a relation,
                    // and it passed: its choices are the ones they kept.
                    debug_assert!(self.ch.sc.is_empty() && self.ch.syncbar.is_empty());
                    debug_assert!(self.judge(sc, bar) == (self.ch.clone(), Ok(())));
                    (None, Ok(()))
                } else {
                    let (ch, verdict) = self.judge(sc, bar);
                    (Some(ch), verdict)
                };
                let choice = judged.as_ref().unwrap_or(&self.ch);
                let mut visited = 0;
                let r = self.visit_orbit(sink, &ends, choice, &verdict, &mut visited);
                self.stats.executions += visited;
                if verdict.is_ok() {
                    self.stats.allowed += visited;
                }
                if r == Next::Stop {
                    return Next::Stop;
                }
            }
        }
        Next::Continue
    }

    /// Counts a complete execution about to be judged; stops at `max_executions`.
    fn count_execution(&self) -> Next {
        let before = self.ctl.executions.fetch_add(1, Ordering::Relaxed);
        match self.ctl.brakes.max_executions {
            Some(max) if before >= max => {
                self.ctl.halt(Halt::MaxExecutions(max));
                Next::Stop
            }
            _ => Next::Continue,
        }
    }

    /// Hands the sink the present complete execution, judged (counted already), and each of
    /// its images under interchangeable threads ([`super::symmetry`]), counting them in
    /// `visited`.
    fn visit_orbit(
        &self,
        sink: &mut dyn Sink,
        ends: &[u32],
        choice: &Choice,
        verdict: &Result<(), Violation>,
        visited: &mut u64,
    ) -> Next {
        let p = self.ctl.progress;
        let mut visit =
            |sink: &mut dyn Sink, ends: &[u32], events: &[Vec<usize>], ids: &[usize]| {
                *visited += 1;
                p.executions.fetch_add(1, Ordering::Relaxed);
                if verdict.is_ok() {
                    p.allowed.fetch_add(1, Ordering::Relaxed);
                }
                let leaf = Leaf {
                    ends,
                    events,
                    ids,
                    choice,
                    verdict,
                };
                if sink.visit(self.u, &leaf) == Next::Stop {
                    self.ctl.stop_after.fetch_min(self.task, Ordering::Relaxed);
                    return Next::Stop;
                }
                Next::Continue
            };
        if visit(sink, ends, &self.events, &self.ids) == Next::Stop {
            return Next::Stop;
        }
        let Some(sym) = &self.ctl.symmetry else {
            return Next::Continue;
        };
        let mut img = Image {
            ends: ends.to_vec(),
            events: self.events.clone(),
            ids: self.ids.clone(),
        };
        for &s in sym.walk() {
            if self.brakes() == Next::Stop || self.count_execution() == Next::Stop {
                return Next::Stop;
            }
            sym.apply(&mut img, s);
            if visit(sink, &img.ends, &img.events, &img.ids) == Next::Stop {
                return Next::Stop;
            }
        }
        Next::Continue
    }

    /// The verdict on the present complete execution under a Fence-SC order and barrier
    /// matching, and its choices (the coherence closed, unless it is cyclic).
    fn judge(&self, sc: &Rel, bar: &Rel) -> (Choice, Result<(), Violation>) {
        let (cause, co_all) = self.cause_and_co(sc, bar);
        let closed = co_all.plus();
        let cyclic = !closed.irreflexive();
        let ch = Choice {
            rf: self.ch.rf.clone(),
            co: if cyclic { co_all.clone() } else { closed },
            sc: sc.clone(),
            syncbar: bar.clone(),
        };
        let verdict = if cyclic {
            let cycle = co_all.find_cycle().unwrap_or_default();
            let named = [("cause", &cause), ("co", &co_all)];
            Err(self.ls.labelled(Axiom::Coherence, cycle, &named))
        } else {
            self.ls.check(&ch, &cause)
        };
        (ch, verdict)
    }

    /// The distinct Fence-SC orders of the present `fence.sc` events, as
    /// [`crate::enumerate::sc_orders`] builds them; none (for the one empty order) when there
    /// are fewer than two.
    fn sc_orders(&self) -> Vec<Rel> {
        let n = self.cap;
        let fences: Vec<usize> = (0..self.ids.len())
            .filter(|&i| self.ls.f_sc.contains(i))
            .collect();
        if self.sc || fences.len() < 2 {
            return Vec::new();
        }
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut perm = fences;
        crate::enumerate::permute(&mut perm, 0, &mut |p| {
            let mut r = Rel::empty(n);
            for i in 0..p.len() {
                for j in i + 1..p.len() {
                    if self.ls.sr.has(p[i], p[j]) {
                        r.add(p[i], p[j]);
                    }
                }
            }
            if seen.insert(r.clone()) {
                out.push(r);
            }
        });
        out
    }
}
