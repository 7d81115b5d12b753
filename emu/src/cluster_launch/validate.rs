//! Checks of `clusterlaunchcontrol.try_cancel` and `query_cancel` (PTX ISA
//! "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel"): operand kinds, the
//! `.b128` response register, and the PTX version and targets of each form, as ptxas 13.5
//! decides them (tests/ptxas/cutlass.tsv).

use crate::ir::{
    ArchSuffix, ClusterLaunch, Function, Instr, Module, Op, Operand, Type, VecElem, Version,
};
use crate::validate::diagnostic::Diagnostic;

/// Operand count of each form.
pub fn arity(_c: &ClusterLaunch) -> (usize, usize) {
    (2, 2)
}

fn reg_ty(f: &Function, op: &Operand) -> Option<Type> {
    match op {
        Operand::Reg(r) => Some(f.regs[r.index()].ty),
        _ => None,
    }
}

/// Checks one instruction's operands and targets.
pub fn check(m: &Module, f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Op::ClusterLaunch(c) = &i.op else { return };
    let mut push = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        })
    };
    match c {
        ClusterLaunch::TryCancel { .. } => {
            for (k, a) in i.args.iter().enumerate() {
                if !matches!(a, Operand::Address(_)) {
                    push(
                        "operand-kind",
                        format!(
                            "operand {} of clusterlaunchcontrol.try_cancel is an address `[...]`",
                            k + 1
                        ),
                    );
                }
            }
        }
        ClusterLaunch::IsCanceled | ClusterLaunch::FirstCtaid(_) => {
            if reg_ty(f, &i.args[1]) != Some(Type::B128) {
                push(
                    "operand-kind",
                    "the response of clusterlaunchcontrol.query_cancel is a .b128 register".into(),
                );
            }
            match c {
                ClusterLaunch::IsCanceled => {
                    if reg_ty(f, &i.args[0]) != Some(Type::Pred) {
                        push(
                            "operand-kind",
                            "query_cancel.is_canceled writes a predicate register".into(),
                        );
                    }
                }
                // A sink is accepted: ptxas 13.5 crashes on it (tests/ptxas/README.md).
                ClusterLaunch::FirstCtaid(Some(_)) => {
                    let sink = matches!(i.args[0], Operand::Sink);
                    if !sink
                        && !reg_ty(f, &i.args[0]).is_some_and(|t| t.bits() == 32 && t != Type::Pred)
                    {
                        push(
                            "operand-kind",
                            "query_cancel.get_first_ctaid::dim writes a 32-bit register".into(),
                        );
                    }
                }
                ClusterLaunch::FirstCtaid(None) => {
                    let ok = match &i.args[0] {
                        Operand::Vector(v) => {
                            v.len() == 4
                                && v.iter().any(|e| matches!(e, VecElem::Reg(_)))
                                && v.iter().all(|e| match e {
                                    VecElem::Reg(r) => {
                                        let t = f.regs[r.index()].ty;
                                        t.bits() == 32 && t != Type::Pred
                                    }
                                    VecElem::Sink => true,
                                    VecElem::Imm(_) => false,
                                })
                        }
                        _ => false,
                    };
                    if !ok {
                        push(
                            "operand-kind",
                            "query_cancel.get_first_ctaid.v4 writes a vector of four 32-bit registers or sinks {x, y, z, _}".into(),
                        );
                    }
                }
                ClusterLaunch::TryCancel { .. } => {}
            }
        }
    }
    if m.version.major != 0 && m.target.sm != 0 {
        requirements(m, c, &mut push);
    }
}

/// `.multicast::cluster::all` targets: sm_100a, sm_101a/sm_110a, sm_120a, and from PTX ISA 8.8
/// the `f` targets of those families.
fn has_multicast(m: &Module) -> bool {
    let t = &m.target;
    match t.suffix {
        ArchSuffix::Arch => matches!(t.sm, 100 | 101 | 110 | 120),
        ArchSuffix::Family => m.version >= Version::new(8, 8) && t.sm >= 100,
        ArchSuffix::None => false,
    }
}

fn requirements(m: &Module, c: &ClusterLaunch, push: &mut impl FnMut(&'static str, String)) {
    if m.version < Version::new(8, 6) {
        push(
            "requires-ptx-version",
            format!(
                "clusterlaunchcontrol requires PTX ISA 8.6 or later (the module declares {}.{})",
                m.version.major, m.version.minor
            ),
        );
    }
    if m.target.sm < 100 {
        push(
            "requires-target",
            format!(
                "clusterlaunchcontrol requires sm_100 or later (the module targets sm_{})",
                m.target.sm
            ),
        );
    }
    if let ClusterLaunch::TryCancel {
        multicast: true, ..
    } = c
    {
        if !has_multicast(m) {
            push(
                "requires-target",
                ".multicast::cluster::all requires sm_100a, sm_101a, sm_110a or sm_120a (or their f targets from PTX ISA 8.8)".into(),
            );
        }
    }
}
