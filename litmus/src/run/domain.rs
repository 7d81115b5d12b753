//! The paths of each thread, over per-location *value domains*: the values a read may return.
//!
//! # The domains
//!
//! A read can only return a value some write writes, so a location's domain starts with its
//! initial value and grows, round by round, with the values that the paths under the current
//! domains write there (the writes of paths dropped at a backward jump, up to the jump,
//! included: a thread that writes and then awaits writes even on the paths whose await fails
//! under domains that lack the awaited value).
//!
//! Each (location, value) pair of a domain carries a *depth*: 0 for the initial value; for a
//! written value, the least, over the writes of it on the paths, of one plus the largest depth
//! of the same-location values read by the reads the write depends on (data and control).
//! Each location `L` has a bound `W_L`: the sum over threads of the most writes to `L` on one
//! path (complete or dropped) of that thread. A written value joins the domain only when its
//! depth is at most `W_L`, and at the end a path is kept only when each of its writes has a
//! depth (computed along the path in the same way) at most `W_L`. Domains only grow, depths
//! only shrink and each `W_L` only grows from round to round; the rounds stop at a fixpoint,
//! or after as many rounds as the test has write instructions plus one.
//!
//! A ticket lock's `atom.add` chain so stops at the tickets the threads can draw (5 values of
//! `in` at 4 threads, not the 13 the rounds alone reach), and paths that draw a ticket past
//! the last are dropped.
//!
//! # Why no consistent execution is lost
//!
//! Let `E` be a complete execution that the model allows. Every model forbids cycles of
//! reads-from and dependencies (no-thin-air; SC's acyclicity contains it), and a path takes no
//! backward jump before its end (await semantics), so each instruction runs at most once on a
//! path and `E` has at most as many writes as the test has write instructions. For a write
//! `w` of `E` to `L`, let `c(w)` be the longest `rf;deps` chain of writes ending in `w` (any
//! locations) and `chain(w)` the longest such chain of writes to `L` only, each linked to the
//! next through a read of `L` that the next depends on: its writes are distinct, so
//! `chain(w) <= ` the writes to `L` in `E`.
//!
//! By induction on `c(w)`: after round `c(w)`, the value of `w` is in the domain with a depth
//! at most `chain(w)`. The reads `w` depends on read writes of smaller `c`, in the domains by
//! then with small enough depths (or initial values, depth 0). The path of `w`'s thread up to
//! `w` is fixed by the values of the reads that decided its branches (all in `w`'s control
//! dependencies, as event mode's taint tracking records them), and `w`'s value by those and
//! its data dependencies; every other read of that prefix can return any domain value without
//! changing it. So the exploration under those domains walks that prefix and writes `w`'s
//! value, with a depth at most `1 + max chain(w')` over the same-location writes `w'` read,
//! which is at most `chain(w)`. And `chain(w) <= W_L`: the writes of `w`'s same-location chain
//! made by one thread lie on that thread's prefix up to the last of them, walked in the same
//! way, so `W_L` counts them all. The bound on rounds covers `c(w)`.
//!
//! Then every read of `E` returns a domain value, each thread's path of `E` is among the
//! paths, `W_L` is at least the writes to `L` in `E`, and each write's depth along its path is
//! at most its `chain`, at most `W_L`: the path is kept. The pruning only removes paths and
//! values that no allowed execution uses, so states, counts of allowed executions and
//! verdicts are unchanged. The same argument is check 1's `depth` in `models::explore`,
//! applied before the search instead of during it.
//!
//! Each round explores one thread of each shape (the same code up to the immediates its
//! `st`s write, see [`super::shape`]) and notes its paths once per thread of that shape, with
//! that thread's store values; after the last round the other threads' paths are copies.
//! Those are exactly the paths and writes that exploring each thread gives, so nothing above
//! changes.
//!
//! An explanation's [`Focus`] asks for candidates the model forbids (values out of thin
//! air), so with a focus the domains grow by rounds alone, unpruned.

use std::collections::BTreeMap;

use emu::event::{traces_and_dropped, EvKind, EventError, Limits, Trace, TraceEvent};
use emu::ir::Op;

use super::shape::Shapes;
use super::{Focus, Prepared, RunError};

/// Per physical location: the domain's values, each with its depth.
type Domains = Vec<BTreeMap<i64, u32>>;

/// Every path of every thread, under the value domains (see the module docs).
///
/// # Errors
/// Event-mode failures.
pub fn thread_paths(
    p: &Prepared,
    liveness: bool,
    limits: Limits,
) -> Result<Vec<Vec<Trace>>, RunError> {
    paths_by_shape(p, &Shapes::of(&p.threads), liveness, limits)
}

/// As [`thread_paths`], exploring the first thread of each shape only.
fn paths_by_shape(
    p: &Prepared,
    shapes: &Shapes,
    liveness: bool,
    limits: Limits,
) -> Result<Vec<Vec<Trace>>, RunError> {
    let prune = p.focus == Focus::default();
    let nphys = p.phys.len();
    let mut base: Domains = vec![BTreeMap::new(); nphys];
    for (k, &ph) in p.phys.iter().enumerate() {
        base[ph as usize].insert(p.init[k], 0);
        for &v in &p.focus.values {
            base[ph as usize].insert(v, 0);
        }
    }
    let writes: usize = p
        .threads
        .iter()
        .flat_map(|l| &l.code.instrs)
        .filter(|i| matches!(i.op, Op::St(_) | Op::Atom(_) | Op::Red(_)))
        .count();
    let mut dom = base.clone();
    let mut all = Vec::new();
    let mut bound = vec![0u32; nphys];
    for k in 0..=writes {
        let round = Round::run(p, shapes, &dom, liveness, limits)?;
        let mut next = base.clone();
        for (loc, made) in round.produced.iter().enumerate() {
            for (&v, &d) in made {
                if prune && d > round.bound[loc] {
                    continue;
                }
                let e = next[loc].entry(v).or_insert(d);
                *e = (*e).min(d);
            }
        }
        all = round.paths;
        bound = round.bound;
        if next == dom || k == writes {
            break;
        }
        dom = next;
    }
    if prune {
        for ts in &mut all {
            ts.retain(|tr| within_bounds(p, &tr.events, &dom, &bound));
        }
    }
    // A path's depths do not depend on the values its writes write: the kept paths of a
    // thread of an earlier thread's shape are the copies of that thread's kept paths.
    for (t, &f) in shapes.first.iter().enumerate() {
        if f != t {
            all[t] = all[f].iter().map(|tr| shapes.copy(t, tr)).collect();
        }
    }
    Ok(all)
}

/// One round: every thread's paths under some domains, the values they write to each
/// physical location with their least depth, and each location's bound `W_L`.
struct Round {
    paths: Vec<Vec<Trace>>,
    produced: Domains,
    bound: Vec<u32>,
}

impl Round {
    fn run(
        p: &Prepared,
        shapes: &Shapes,
        dom: &Domains,
        liveness: bool,
        limits: Limits,
    ) -> Result<Round, RunError> {
        let nphys = p.phys.len();
        let mut produced: Domains = vec![BTreeMap::new(); nphys];
        let mut bound = vec![0u32; nphys];
        let mut paths = Vec::new();
        // Each physical location's values, once per round (reads look them up by name).
        let values: Vec<Vec<i64>> = dom.iter().map(|d| d.keys().copied().collect()).collect();
        let d = |loc: u32| values[p.phys[loc as usize] as usize].as_slice();
        for (t, l) in p.threads.iter().enumerate() {
            // A thread of an earlier thread's shape was noted with it; its paths are copied
            // once the rounds end.
            let class = shapes.class(t);
            if class.is_empty() {
                paths.push(Vec::new());
                continue;
            }
            // Which writes a path makes, their depths and so the bounds are the same on every
            // thread of the shape; only the values written differ.
            let mut most = vec![0u32; nphys];
            let mut count = vec![0u32; nphys];
            let mut note = |evs: &[TraceEvent]| {
                count.fill(0);
                for (i, e) in evs.iter().enumerate() {
                    if let EvKind::Write { loc, value } = e.kind {
                        let ph = p.phys[loc as usize];
                        count[ph as usize] += 1;
                        let d = write_depth(p, evs, i, dom);
                        for &u in &class {
                            let value = shapes.written(u, e, value);
                            let slot = produced[ph as usize].entry(value).or_insert(d);
                            *slot = (*slot).min(d);
                        }
                    }
                }
                for (m, &c) in most.iter_mut().zip(&count) {
                    *m = (*m).max(c);
                }
            };
            let ts = traces_and_dropped(&l.code, &d, liveness, limits, &mut note).map_err(|e| {
                match e {
                    // The caller names the brake with its value (`RunOptions::halted`).
                    EventError::TimedOut => RunError::Halted {
                        brake: "--timeout".into(),
                        explored: 0,
                        executions: 0,
                        allowed: 0,
                        millis: 0,
                    },
                    e => RunError::Event {
                        thread: t,
                        message: e.to_string(),
                    },
                }
            })?;
            for tr in &ts {
                note(&tr.events);
            }
            for (b, m) in bound.iter_mut().zip(most) {
                *b += m * class.len() as u32;
            }
            paths.push(ts);
        }
        Ok(Round {
            paths,
            produced,
            bound,
        })
    }
}

/// The depth of the write `evs[i]`: one plus the largest depth of the values of its own
/// location that the reads it depends on (data, control) read.
fn write_depth(p: &Prepared, evs: &[TraceEvent], i: usize, dom: &Domains) -> u32 {
    let e = &evs[i];
    let EvKind::Write { loc, .. } = e.kind else {
        return 0;
    };
    let ph = p.phys[loc as usize];
    let mut d = 0u32;
    for &r in e.data.iter().chain(e.ctrl.iter()) {
        if let Some(EvKind::Read { loc: rl, value }) = evs.get(r).map(|x| &x.kind) {
            if p.phys[*rl as usize] == ph {
                // A read's value is in the domain it was drawn from.
                let dr = dom[ph as usize].get(value).copied().unwrap_or(0);
                d = d.max(dr);
            }
        }
    }
    d + 1
}

/// Whether every write of a path has a depth at most its location's bound.
fn within_bounds(p: &Prepared, evs: &[TraceEvent], dom: &Domains, bound: &[u32]) -> bool {
    evs.iter().enumerate().all(|(i, e)| match e.kind {
        EvKind::Write { loc, .. } => {
            write_depth(p, evs, i, dom) <= bound[p.phys[loc as usize] as usize]
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads of one shape (the same code up to the values their `st`s write: the ticket
    /// lock's, and a family's `st x, 2i+1`) get the paths that exploring each one gives, in
    /// the same order, in both modes; threads of different shapes (IRIW's readers, a `st`
    /// from a register) are explored each.
    #[test]
    fn shared_shapes_give_each_threads_paths() {
        let ticket = crate::parse(
            "PTX t\n{ in=0; out=0; x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n \
             atom.acquire.gpu.add r1, in, 1 | atom.acquire.gpu.add r1, in, 1 | atom.acquire.gpu.add r1, in, 1 ;\n \
             LC00: | LC00: | LC00: ;\n \
             ld.acquire.gpu r2, out | ld.acquire.gpu r2, out | ld.acquire.gpu r2, out ;\n \
             beq r1,r2,LC01 | beq r1,r2,LC01 | beq r1,r2,LC01 ;\n \
             goto LC00 | goto LC00 | goto LC00 ;\n \
             LC01: | LC01: | LC01: ;\n \
             ld.weak r3, x | ld.weak r3, x | ld.weak r3, x ;\n \
             st.weak x, 1 | st.weak x, 2 | st.weak x, r1 ;\n \
             atom.release.gpu.add r4, out, 1 | atom.release.gpu.add r4, out, 1 | atom.release.gpu.add r4, out, 1 ;\n\
             exists (P0:r3 == 0 /\\ P1:r3 == 0)\n",
        )
        .expect("parses");
        let p = crate::run::prepare(&ticket).expect("prepares");
        let shapes = Shapes::of(&p.threads);
        assert_eq!(shapes.first, vec![0, 0, 2]);
        for liveness in [false, true] {
            let limits = Limits::default();
            let shared = paths_by_shape(&p, &shapes, liveness, limits).expect("paths");
            let each =
                paths_by_shape(&p, &Shapes::none(&p.threads), liveness, limits).expect("paths");
            assert!(shared.iter().all(|ts| !ts.is_empty()));
            assert_eq!(shared, each);
        }
    }
}
