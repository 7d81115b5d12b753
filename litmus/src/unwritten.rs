//! Conditions on registers that no instruction writes.
//!
//! A register that no instruction of its thread writes keeps its initial value for the whole
//! test: 0, unless the prologue sets it. A condition (or a `locations` / `filter` term) that
//! reads such a register is almost always a slip: a misspelt register (`r2` for `r1`), or a
//! register of the wrong thread (`P0:r0` for `P1:r0`). The test still runs, and `ptxemu
//! litmus` warns; with `--strict` the warning is an error.
//!
//! A register counts as written when the prologue gives it a value or some instruction names
//! it as a destination. Destinations are an instruction's first operand when it is a register,
//! a pair or a vector (PTX writes destinations first: `ld r0, [x]`, `atom.add r1, [x], 1`, `setp.eq %p|%q, ...`); an
//! instruction whose first operand is an address, a label or an immediate writes no register.
//! This may count a register written where it is only read (a register first operand that is
//! a source), which can only hide a warning, never raise a false one.

use std::fmt;

use emu::ir::{Instr, Operand, RegId, VecElem};

use crate::ast::{Expr, Term, Test};
use crate::lower::Lowered;
use crate::run::prepare;

/// A register that a test's condition, `locations` or `filter` reads and that no instruction
/// of its thread writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnwrittenRegister {
    /// The thread (`P1` → 1).
    pub thread: u32,
    /// The register as the condition writes it (`r5`, `%r5`).
    pub register: String,
    /// The value it always holds (its prologue value would make it written, so 0).
    pub value: i64,
}

impl fmt::Display for UnwrittenRegister {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the condition reads P{t}:{r}, but no instruction of P{t} writes {r}: it is always {v} \
             (a misspelt register, or another thread's?)",
            t = self.thread,
            r = self.register,
            v = self.value
        )
    }
}

/// The registers that `test`'s condition, `locations` and `filter` read but that no
/// instruction of their thread writes, in the order the terms appear, each once. A test whose
/// threads cannot be lowered gives none (running it reports that error).
pub fn unwritten_registers(test: &Test) -> Vec<UnwrittenRegister> {
    let Ok(prepared) = prepare(test) else {
        return Vec::new();
    };
    let mut terms = test.condition.terms();
    terms.extend(test.observed.iter().cloned());
    terms.extend(test.filter.as_ref().map(Expr::terms).unwrap_or_default());
    let mut out: Vec<UnwrittenRegister> = Vec::new();
    for t in terms {
        let Term::Reg(thread, register) = t else {
            continue;
        };
        let Some(lowered) = prepared.threads.get(thread as usize) else {
            continue;
        };
        let already = out
            .iter()
            .any(|u| u.thread == thread && same_register(&u.register, &register));
        if !already && !written(lowered, &register) {
            out.push(UnwrittenRegister {
                thread,
                register,
                value: 0,
            });
        }
    }
    out
}

/// `r1` and `%r1` name one register.
fn same_register(a: &str, b: &str) -> bool {
    a.trim_start_matches('%') == b.trim_start_matches('%')
}

/// Whether the prologue or some instruction of the thread writes `register`.
fn written(lowered: &Lowered, register: &str) -> bool {
    let Some(id) = lowered.regs.get(register) else {
        return false;
    };
    lowered.code.reg_init.iter().any(|(r, _)| *r == id)
        || lowered
            .code
            .instrs
            .iter()
            .any(|i| destinations(i).contains(&id))
}

/// The registers an instruction writes: its first operand, when that is a register, a
/// destination pair or a vector of registers (PTX writes destinations first; the operands
/// after them are sources, and a first operand that is an address, a label or an immediate
/// means the instruction writes no register).
fn destinations(ins: &Instr) -> Vec<RegId> {
    match ins.args.first() {
        Some(Operand::Reg(r)) => vec![*r],
        Some(Operand::Dual(d, p)) => vec![*d, *p],
        Some(Operand::SinkDual(p)) => vec![*p],
        Some(Operand::Vector(elems)) => elems
            .iter()
            .filter_map(|e| match e {
                VecElem::Reg(r) => Some(*r),
                VecElem::Sink | VecElem::Imm(_) => None,
            })
            .collect(),
        Some(
            Operand::Sink
            | Operand::NotPred(_)
            | Operand::Special(_)
            | Operand::Imm(_)
            | Operand::Symbol(_)
            | Operand::Address(_)
            | Operand::Label(_),
        )
        | None => Vec::new(),
    }
}

/// The 1-based line of a litmus source's final condition (`exists`, `~exists`, `forall`), for
/// messages that point at it.
pub fn condition_line(src: &str) -> Option<usize> {
    src.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            ["exists", "~exists", "~ exists", "forall"]
                .iter()
                .any(|k| t.starts_with(k))
        })
        .map(|(i, _)| i + 1)
        .last()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(src: &str) -> Vec<String> {
        let test = crate::parse(src).expect("a valid test");
        unwritten_registers(&test)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    const MP: &str = "PTX MP\n{\n x=0; y=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
                      st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;\n \
                      st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;\n";

    #[test]
    fn registers_the_threads_write_are_fine() {
        let src = format!("{MP}exists (P1:r0 == 1 /\\ P1:r1 == 0)\n");
        assert!(warnings(&src).is_empty());
        let src = format!("{MP}exists (P1:r0 == 1 /\\ x == 1)\n");
        assert!(warnings(&src).is_empty());
    }

    #[test]
    fn a_misspelt_register_or_the_wrong_thread_is_reported_once() {
        let src = format!("{MP}exists (P1:r2 == 1 /\\ P0:r0 == 0 \\/ P1:r2 == 0)\n");
        assert_eq!(
            warnings(&src),
            [
                "the condition reads P1:r2, but no instruction of P1 writes r2: it is always 0 \
                 (a misspelt register, or another thread's?)",
                "the condition reads P0:r0, but no instruction of P0 writes r0: it is always 0 \
                 (a misspelt register, or another thread's?)",
            ]
        );
    }

    #[test]
    fn a_register_only_read_counts_as_unwritten_and_a_prologue_value_as_written() {
        // P0 reads r9 (stores it) but nothing writes it.
        let src = "PTX R\n{\n x=0;\n}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu x, r9 ;\n\
                   exists (P0:r9 == 0)\n";
        assert_eq!(warnings(src).len(), 1);
        let src = "PTX R\n{\n x=0; P0:r9=3;\n}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu x, r9 ;\n\
                   exists (P0:r9 == 3)\n";
        assert!(warnings(src).is_empty(), "{:?}", warnings(src));
    }

    #[test]
    fn the_condition_line_is_the_last_quantifier_line() {
        assert_eq!(
            condition_line(&format!("{MP}exists (P1:r0 == 1)\n")),
            Some(8)
        );
        assert_eq!(condition_line("no condition"), None);
    }
}
