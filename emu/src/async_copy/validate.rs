//! Checks of `cp.async` (non-bulk) and `mbarrier` (PTX ISA "cp.async", "cp.async.wait_group",
//! "cp.async.mbarrier.arrive", "mbarrier"): operand counts and kinds, the copy size, and the
//! PTX version and target each form needs, as the ISA's "PTX ISA Notes" / "Target ISA Notes"
//! give them.
//!
//! Not yet checked against ptxas verdicts (the Triton syntax of tests/ptxas/triton.tsv is).

use crate::ir::{
    CpAsync, Function, Imm, Instr, Mbarrier, MbarrierOp, MbarrierSem, Module, Op, Operand, Type,
    Version,
};
use crate::validate::diagnostic::Diagnostic;

/// Operand counts of a `cp.async` instruction.
pub fn arity(c: &CpAsync) -> (usize, usize) {
    match c {
        CpAsync::Copy(cp) => (3, 4 + usize::from(cp.cache_hint)),
        CpAsync::CommitGroup | CpAsync::WaitAll => (0, 0),
        CpAsync::WaitGroup | CpAsync::MbarrierArrive { .. } => (1, 1),
    }
}

/// Operand counts of an `mbarrier` instruction.
pub fn mbarrier_arity(m: &Mbarrier) -> (usize, usize) {
    match m.op {
        MbarrierOp::Init | MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => (2, 2),
        MbarrierOp::Inval => (1, 1),
        MbarrierOp::Arrive {
            expect_tx,
            no_complete,
            ..
        } => {
            if expect_tx || no_complete {
                (3, 3)
            } else {
                (2, 3)
            }
        }
        MbarrierOp::TestWait { .. } => (3, 3),
        MbarrierOp::TryWait { .. } => (3, 4),
        MbarrierOp::PendingCount => (2, 2),
    }
}

fn needs(
    m: &Module,
    what: &str,
    ptx: (u32, u32),
    sm: u32,
    push: &mut dyn FnMut(&'static str, String),
) {
    if m.version.major == 0 || m.target.sm == 0 {
        return;
    }
    if m.version < Version::new(ptx.0, ptx.1) {
        push(
            "requires-ptx-version",
            format!("{what} requires PTX ISA {}.{} or later", ptx.0, ptx.1),
        );
    }
    if m.target.sm < sm {
        push(
            "requires-target",
            format!(
                "{what} requires sm_{sm} or later (the module targets sm_{})",
                m.target.sm
            ),
        );
    }
}

/// Checks one instruction of these families.
pub fn check(m: &Module, f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let mut push = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        })
    };
    let is_addr = |k: usize| matches!(i.args.get(k), Some(Operand::Address(_)));
    let reg_ty = |k: usize| match i.args.get(k) {
        Some(Operand::Reg(r)) => f.regs.get(r.index()).map(|r| r.ty),
        _ => None,
    };
    match &i.op {
        Op::CpAsync(c) => check_cp(m, f, i, c, &mut push),
        Op::Mbarrier(b) => {
            needs(m, "mbarrier", (7, 0), 80, &mut push);
            let Mbarrier {
                op,
                sem,
                scope,
                shared,
                ..
            } = b;
            if *shared == Some(true) {
                needs(m, "mbarrier on .shared::cta", (7, 8), 80, &mut push);
            }
            if *sem != MbarrierSem::Default || scope.is_some() {
                needs(m, "mbarrier with .sem/.scope", (8, 0), 90, &mut push);
            }
            let addr_k = match op {
                MbarrierOp::Init
                | MbarrierOp::Inval
                | MbarrierOp::ExpectTx
                | MbarrierOp::CompleteTx => 0,
                MbarrierOp::Arrive { .. }
                | MbarrierOp::TestWait { .. }
                | MbarrierOp::TryWait { .. } => 1,
                MbarrierOp::PendingCount => {
                    if reg_ty(1).map(Type::bits) != Some(64) {
                        push(
                            "operand-type",
                            "the state of pending_count is a .b64 register".into(),
                        );
                    }
                    return;
                }
            };
            if !is_addr(addr_k) {
                push(
                    "operand-kind",
                    format!("operand {} of mbarrier is an address", addr_k + 1),
                );
            }
            match op {
                MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => {
                    needs(m, "mbarrier.expect_tx/complete_tx", (8, 0), 90, &mut push)
                }
                MbarrierOp::Arrive {
                    expect_tx: true, ..
                } => needs(m, "mbarrier.arrive.expect_tx", (8, 0), 90, &mut push),
                MbarrierOp::TryWait { .. } => needs(m, "mbarrier.try_wait", (7, 8), 90, &mut push),
                MbarrierOp::TestWait { parity: true } => {
                    needs(m, "mbarrier.test_wait.parity", (7, 1), 80, &mut push)
                }
                MbarrierOp::Arrive {
                    expect_tx,
                    no_complete,
                    ..
                } => {
                    if i.args.len() == 3 && !expect_tx && !no_complete {
                        needs(m, "mbarrier.arrive with a count", (7, 8), 80, &mut push);
                    }
                    let ok = matches!(i.args.first(), Some(Operand::Sink))
                        || reg_ty(0).map(Type::bits) == Some(64);
                    if !ok {
                        push(
                            "operand-type",
                            "the state of mbarrier.arrive is a .b64 register or `_`".into(),
                        );
                    }
                }
                MbarrierOp::TestWait { parity: false } => {}
                MbarrierOp::Init | MbarrierOp::Inval | MbarrierOp::PendingCount => {}
            }
            if matches!(op, MbarrierOp::TestWait { .. } | MbarrierOp::TryWait { .. })
                && reg_ty(0) != Some(Type::Pred)
            {
                push(
                    "operand-type",
                    "the result of an mbarrier wait is a predicate".into(),
                );
            }
        }
        _ => {}
    }
}

/// Checks a `cp.async` instruction.
fn check_cp(
    m: &Module,
    f: &Function,
    i: &Instr,
    c: &CpAsync,
    push: &mut dyn FnMut(&'static str, String),
) {
    let mut push = push;
    let is_addr = |k: usize| matches!(i.args.get(k), Some(Operand::Address(_)));
    let reg_ty = |k: usize| match i.args.get(k) {
        Some(Operand::Reg(r)) => f.regs.get(r.index()).map(|r| r.ty),
        _ => None,
    };
    needs(m, "cp.async", (7, 0), 80, &mut push);
    match c {
        CpAsync::Copy(cp) => {
            if cp.cache_hint || cp.prefetch.is_some() {
                needs(m, "cp.async with L2 qualifiers", (7, 4), 80, &mut push);
            }
            if !is_addr(0) || !is_addr(1) {
                push("operand-kind", "cp.async takes [dst], [src], size".into());
            }
            let size = match i.args.get(2) {
                Some(Operand::Imm(Imm::Int(n @ (4 | 8 | 16)))) => *n,
                _ => {
                    push("operand-kind", "the cp.async size is 4, 8 or 16".into());
                    return;
                }
            };
            if cp.cg && size != 16 {
                push("operand-kind", "cp.async.cg copies 16 bytes".into());
            }
            let pred =
                matches!(i.args.get(3), Some(Operand::NotPred(_))) || reg_ty(3) == Some(Type::Pred);
            // With .L2::cache_hint the last operand is the policy, not src-size.
            let fourth = if i.args.len() > 3 + usize::from(cp.cache_hint) {
                i.args.get(3)
            } else {
                None
            };
            match fourth {
                Some(Operand::Imm(Imm::Int(n))) if *n < 0 || *n > size => {
                    push("operand-kind", format!("src-size {n} is not in 0..={size}"))
                }
                Some(_) if pred => needs(m, "cp.async with ignore-src", (7, 5), 80, &mut push),
                Some(Operand::Reg(_)) if reg_ty(3).map(Type::bits) != Some(32) => push(
                    "operand-type",
                    "src-size is a 32-bit register or a constant".into(),
                ),
                _ => {}
            }
            // ptxas takes a 32-bit global source address only before PTX 7.5.
            if let Some(Operand::Address(a)) = i.args.get(1) {
                if let crate::ir::AddrBase::Reg(r) = a.base {
                    let bits = f.regs.get(r.index()).map_or(64, |r| r.ty.bits());
                    if bits != 64 && m.version >= Version::new(7, 5) {
                        push(
                            "operand-type",
                            "the global source address of cp.async is a 64-bit register".into(),
                        );
                    }
                }
            }
        }
        CpAsync::WaitGroup => {
            if !matches!(i.args.first(), Some(Operand::Imm(Imm::Int(n))) if *n >= 0) {
                push(
                    "operand-kind",
                    "cp.async.wait_group takes an integer constant".into(),
                );
            }
        }
        CpAsync::MbarrierArrive { shared, .. } => {
            if *shared == Some(true) {
                let what = "cp.async.mbarrier.arrive on .shared::cta";
                needs(m, what, (7, 8), 80, &mut push);
            }
            if !is_addr(0) {
                push(
                    "operand-kind",
                    "cp.async.mbarrier.arrive takes [addr]".into(),
                );
            }
        }
        CpAsync::CommitGroup | CpAsync::WaitAll => {}
    }
}
