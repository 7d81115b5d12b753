//! Threads with the same *shape*: the same code except for the immediate values their `st`
//! instructions write. Such threads have the same paths under the same value domains, in the
//! same order, with the same events except for those stores' write values: an immediate a
//! `st` writes reaches no register, so it decides no branch and feeds no other event. Event
//! mode runs one thread of each shape, and the others' paths are its paths with their own
//! store values ([`Shapes::value`]).

use emu::event::{EvKind, Trace, TraceEvent};
use emu::ir::{Imm, Instr, Op, Operand};

use crate::lower::Lowered;

/// The shape of each thread of a test.
pub(super) struct Shapes {
    /// For each thread, the first thread of its shape (itself when it is the first).
    pub(super) first: Vec<usize>,
    /// For each thread and instruction, the immediate value a `st` writes.
    imm: Vec<Vec<Option<i64>>>,
}

impl Shapes {
    /// The shapes of `threads`.
    pub(super) fn of(threads: &[Lowered]) -> Shapes {
        let imm: Vec<Vec<Option<i64>>> = threads
            .iter()
            .map(|l| l.code.instrs.iter().map(store_imm).collect())
            .collect();
        let first = (0..threads.len())
            .map(|t| {
                (0..t)
                    .find(|&u| same_shape(&threads[u], &threads[t]))
                    .unwrap_or(t)
            })
            .collect();
        Shapes { first, imm }
    }

    /// Every thread its own shape: each one explored (for tests comparing with [`Shapes::of`]).
    #[cfg(test)]
    pub(super) fn none(threads: &[Lowered]) -> Shapes {
        Shapes {
            first: (0..threads.len()).collect(),
            imm: threads
                .iter()
                .map(|l| vec![None; l.code.instrs.len()])
                .collect(),
        }
    }

    /// The threads whose paths are those of thread `t`'s exploration (none unless `t` is the
    /// first of its shape).
    pub(super) fn class(&self, t: usize) -> Vec<usize> {
        (t..self.first.len())
            .filter(|&u| self.first[u] == t)
            .collect()
    }

    /// The value that a write `e` of value `value`, on a path of the first thread of `t`'s
    /// shape, writes on thread `t`'s copy of that path.
    pub(super) fn written(&self, t: usize, e: &TraceEvent, value: i64) -> i64 {
        self.imm[t].get(e.instr).copied().flatten().unwrap_or(value)
    }

    /// Thread `t`'s copy of a path of the first thread of its shape.
    pub(super) fn copy(&self, t: usize, tr: &Trace) -> Trace {
        let mut c = tr.clone();
        for e in &mut c.events {
            if let EvKind::Write { loc, value } = e.kind {
                e.kind = EvKind::Write {
                    loc,
                    value: self.written(t, e, value),
                };
            }
        }
        c
    }
}

/// The immediate integer a `st` instruction writes.
fn store_imm(i: &Instr) -> Option<i64> {
    match (&i.op, i.args.get(1)) {
        (Op::St(_), Some(Operand::Imm(Imm::Int(v)))) => Some(*v),
        _ => None,
    }
}

/// Whether two threads have the same code up to the immediates their `st`s write (and the
/// instructions' source spans, which event mode does not read).
fn same_shape(a: &Lowered, b: &Lowered) -> bool {
    let (x, y) = (&a.code, &b.code);
    x.labels == y.labels
        && x.proxies == y.proxies
        && x.nregs == y.nregs
        && x.reg_init == y.reg_init
        && x.instrs.len() == y.instrs.len()
        && x.instrs.iter().zip(&y.instrs).all(|(i, j)| {
            let args = match (store_imm(i), store_imm(j)) {
                (Some(_), Some(_)) => {
                    i.args.len() == j.args.len()
                        && i.args[0] == j.args[0]
                        && i.args[2..] == j.args[2..]
                }
                _ => i.args == j.args,
            };
            i.guard == j.guard && i.op == j.op && args
        })
}
