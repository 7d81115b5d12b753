//! The forms of `prefetch` and `prefetchu` (PTX ISA "prefetch, prefetchu"), as ptxas 13.5
//! accepts them (tests/ptxas/cutlass.tsv):
//!
//! - `prefetch{.global,.local}.L1/.L2 [a]`; the eviction priorities `.L2::evict_last` and
//!   `.L2::evict_normal` generic or `.global` only;
//! - `prefetch{.const,.param}.tensormap [a]` (generic without a space), from PTX ISA 8.0 and
//!   sm_90;
//! - `prefetchu.L1 [a]`, generic only.
//!
//! Where ptxas departs from the ISA text, the rule follows ptxas: the eviction priorities are
//! accepted without `.global`; an address register may be 32 bits wide; a variable named in
//! the address must be in the instruction's state space, and a generic prefetch may name a
//! `.global` or `.shared` variable (not a `.const` or `.param` one). Every form is a hint: it
//! has no effect in ptxemu.

use super::Diagnostic;
use crate::ir::{
    AddrBase, Function, Instr, Module, Op, Operand, Prefetch, PrefetchLevel, VarRef, Version,
};
use models::vocab::StateSpace;

/// Checks one `prefetch`/`prefetchu`.
pub fn check(m: &Module, f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Op::Prefetch(p) = &i.op else { return };
    let mut push = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        })
    };
    let Prefetch {
        uniform,
        space,
        level,
    } = *p;
    let tensormap = level == PrefetchLevel::Tensormap;
    let evict = matches!(
        level,
        PrefetchLevel::L2EvictLast | PrefetchLevel::L2EvictNormal
    );
    let generic = space.space == StateSpace::Generic;
    let space_ok = !space.explicit_window
        && match space.space {
            StateSpace::Generic => true,
            StateSpace::Global => !uniform && !tensormap,
            StateSpace::Local => !uniform && !tensormap && !evict,
            StateSpace::Const | StateSpace::Param(_) => !uniform && tensormap,
            StateSpace::Shared(_) => false,
        };
    if !space_ok {
        push(
            "prefetch-state-space",
            format!(
                "`{}`: .L1/.L2 prefetch generic, .global or .local addresses; eviction priorities generic or .global ones; .tensormap generic, .const or .param ones; prefetchu.L1 generic ones only",
                crate::front::printer::mnemonic(&i.op)
            ),
        );
    }
    if uniform && level != PrefetchLevel::L1 {
        push(
            "prefetch-level",
            "prefetchu prefetches to the uniform cache: its only level is .L1".into(),
        );
    }
    match i.args.first() {
        Some(Operand::Address(a)) => {
            if let AddrBase::Var(v) = a.base {
                let vs = var_space(m, f, v);
                let ok = match vs {
                    Some(s) if generic => {
                        matches!(s, StateSpace::Global | StateSpace::Shared(_))
                    }
                    Some(s) => same_space(s, space.space),
                    None => false,
                };
                if !ok {
                    push(
                        "prefetch-address-space",
                        "the variable named in the address is not in the prefetch's state space"
                            .into(),
                    );
                }
            }
        }
        _ => push(
            "operand-kind",
            "the operand of prefetch is an address `[...]`".into(),
        ),
    }
    if tensormap && m.version.major != 0 && m.target.sm != 0 {
        if m.version < Version::new(8, 0) {
            push(
                "requires-ptx-version",
                "prefetch.tensormap requires PTX ISA 8.0 or later".into(),
            );
        }
        if m.target.sm < 90 {
            push(
                "requires-target",
                format!(
                    "prefetch.tensormap requires sm_90 or later (the module targets sm_{})",
                    m.target.sm
                ),
            );
        }
    }
    if evict && m.version.major != 0 && m.version < Version::new(7, 4) {
        push(
            "requires-ptx-version",
            "prefetch eviction priorities require PTX ISA 7.4 or later".into(),
        );
    }
}

fn same_space(var: StateSpace, instr: StateSpace) -> bool {
    match (var, instr) {
        (StateSpace::Param(_), StateSpace::Param(_)) => true,
        (a, b) => a == b,
    }
}

/// The state space of the variable `v` names (`None`: a function's address).
pub(crate) fn var_space(m: &Module, f: &Function, v: VarRef) -> Option<StateSpace> {
    match v {
        VarRef::Global(g) => m.globals.get(g.index()).map(|x| x.space),
        VarRef::Local(l) => f.locals.get(l.index()).map(|x| x.space),
        VarRef::Param(p) => f.params.get(p as usize).map(|x| x.var.space),
        VarRef::Return(r) => f.returns.get(r as usize).map(|x| x.var.space),
        VarRef::Function(_) => None,
    }
}
