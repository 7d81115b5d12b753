//! Operand shapes of each instruction family: how many operands, and which must be
//! registers, addresses or labels.

use super::diagnostic::Diagnostic;
use crate::ir::{
    Arity, BarKind, Function, FunctionKind, Instr, Module, Op, Operand, StateSpace, Type, VarRef,
    VoteMode,
};

/// The operand counts an instruction accepts (inclusive range): the opcode table's, or, for
/// an opcode whose form decides ([`Arity::Form`]), its family's.
fn arity(op: &Op) -> (usize, usize) {
    match op.info().arity {
        Arity::Fixed(lo, hi) => (usize::from(lo), usize::from(hi)),
        Arity::Form => form_arity(op),
    }
}

/// The operand counts of the opcodes whose form decides them.
fn form_arity(op: &Op) -> (usize, usize) {
    match op {
        // `cvt.rn.f16x2.f32 d, a, b` packs two sources (PTX ISA "cvt").
        Op::Cvt(c) if c.src == Type::F32 && c.dst.is_packed_pair() => (3, 3),
        Op::Cvt(_) => (2, 2),
        Op::Setp(s) => {
            if s.bool_op.is_some() {
                (4, 4)
            } else {
                (3, 3)
            }
        }
        Op::Set(s) => {
            if s.bool_op.is_some() {
                (4, 4)
            } else {
                (3, 3)
            }
        }
        Op::Atom(a) => {
            let base = if a.op == crate::ir::AtomOp::Cas { 4 } else { 3 };
            (base, base + usize::from(a.cache_hint))
        }
        Op::Red(r) => (2, 2 + usize::from(r.cache_hint)),
        Op::Shfl(s) => {
            if s.sync {
                (5, 5)
            } else {
                (4, 4)
            }
        }
        Op::Vote(v) => {
            if v.sync {
                (3, 3)
            } else {
                (2, 2)
            }
        }
        Op::CpAsync(c) => crate::async_copy::validate::arity(c),
        Op::Mbarrier(m) => crate::async_copy::validate::mbarrier_arity(m),
        Op::Tma(t) => crate::tma::validate::arity(t),
        Op::Cluster(c) => match c {
            crate::ir::ClusterOp::Mapa { .. } => (3, 3),
            crate::ir::ClusterOp::Getctarank { .. } => (2, 2),
            crate::ir::ClusterOp::Arrive { .. } | crate::ir::ClusterOp::Wait { .. } => (0, 0),
        },
        Op::ClusterLaunch(c) => crate::cluster_launch::validate::arity(c),
        Op::Bar(b) => match b.kind {
            BarKind::Sync | BarKind::Arrive => (1, 2),
            BarKind::Red(_) => (3, 4),
        },
        Op::Fence(crate::ir::Fence::ProxyTensormap { release: false, .. }) => (0, 2),
        Op::Fence(_) => (0, 0),
        Op::Tcgen05(t) => crate::tcgen05::validate::mma::arity(t).unwrap_or_else(|| {
            let n = crate::tcgen05::validate::operand_count(t);
            (n, n)
        }),
        Op::WarpMatrix(w) => crate::mma::validate::operand_count(w),
        Op::Wgmma(w) => crate::wgmma::validate::operand_count(w),
        // The table gives the others a fixed count.
        _ => match op.info().arity {
            Arity::Fixed(lo, hi) => (usize::from(lo), usize::from(hi)),
            Arity::Form => (0, 0),
        },
    }
}

fn name(op: &Op) -> String {
    crate::front::printer::mnemonic(op)
}

/// Checks one instruction's operands.
pub fn check(_m: &Module, f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let (lo, hi) = arity(&i.op);
    let n = i.args.len();
    if n < lo || n > hi {
        let want = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo} to {hi}")
        };
        out.push(Diagnostic {
            rule: "operand-count",
            message: format!("`{}` takes {want} operand(s), found {n}", name(&i.op)),
            span: i.span,
        });
        return;
    }
    let bad = |out: &mut Vec<Diagnostic>, k: usize, what: &str| {
        out.push(Diagnostic {
            rule: "operand-kind",
            message: format!("operand {} of `{}` must be {what}", k + 1, name(&i.op)),
            span: i.span,
        });
    };
    let is_dst = |o: &Operand| {
        matches!(
            o,
            Operand::Reg(_)
                | Operand::Dual(..)
                | Operand::SinkDual(_)
                | Operand::Sink
                | Operand::Vector(_)
        )
    };
    let is_addr = |o: &Operand| matches!(o, Operand::Address(_));
    match &i.op {
        Op::Ld(_) | Op::Ldu(_) => {
            if !is_dst(&i.args[0]) {
                bad(out, 0, "a register or vector of registers");
            }
            if !is_addr(&i.args[1]) {
                bad(out, 1, "an address `[...]`");
            }
        }
        Op::St(_) => {
            if !is_addr(&i.args[0]) {
                bad(out, 0, "an address `[...]`");
            }
        }
        Op::Atom(_) => {
            if !is_dst(&i.args[0]) {
                bad(out, 0, "a register");
            }
            if !is_addr(&i.args[1]) {
                bad(out, 1, "an address `[...]`");
            }
        }
        Op::Red(_) | Op::Prefetch(_) | Op::ApplyPriority | Op::Discard => {
            if !is_addr(&i.args[0]) {
                bad(out, 0, "an address `[...]`");
            }
        }
        Op::Bra { .. } => {
            if !matches!(i.args[0], Operand::Label(_)) {
                bad(out, 0, "a label");
            }
        }
        // `brx.idx index, tlist`: a value, then the label of a `.branchtargets` list.
        Op::BrxIdx { .. } => {
            if matches!(i.args[0], Operand::Address(_) | Operand::Label(_)) {
                bad(out, 0, "a register or immediate");
            }
            let list = match i.args[1] {
                Operand::Label(l) => super::forms::branch_list(f, l),
                _ => None,
            };
            if list.is_none() {
                bad(out, 1, "the label of a `.branchtargets` list");
            }
        }
        Op::Membar(_)
        | Op::Fence(_)
        | Op::Ret { .. }
        | Op::Exit
        | Op::Trap
        | Op::Brkpt
        | Op::Griddepcontrol(_)
        | Op::Setmaxnreg(_)
        | Op::CpAsync(_)
        | Op::Mbarrier(_)
        | Op::Tma(_)
        | Op::Cluster(_)
        | Op::ClusterLaunch(_)
        | Op::BarWarpSync
        | Op::Nanosleep
        | Op::Pmevent { .. }
        | Op::Bar(_) => {}
        Op::Call(c) => call_operands(f, i, c, out),
        // Operand kinds of each sub-instruction are checked in tcgen05.rs.
        Op::Tcgen05(_) => {}
        // Operand kinds of the matrix instructions are checked in mma.rs.
        Op::WarpMatrix(_) => {}
        // Operand kinds of wgmma are checked in wgmma.rs.
        Op::Wgmma(_) => {}
        _ => {
            if !is_dst(&i.args[0]) {
                bad(out, 0, "a destination register");
            }
            for (k, a) in i.args.iter().enumerate().skip(1) {
                if matches!(a, Operand::Address(_) | Operand::Label(_)) {
                    bad(out, k, "a register or immediate");
                }
            }
        }
    }
    sinks_and_pairs(i, &bad, out);
    // The vector `mov` unpacks into holds destinations only.
    if let (Op::Mov(_), Some(Operand::Vector(v))) = (&i.op, i.args.first()) {
        if v.iter().any(|e| matches!(e, crate::ir::VecElem::Imm(_))) {
            bad(out, 0, "a vector of registers or `_`");
        }
    }
    // A predicate destination where a value is produced, or the reverse.
    let wants_pred = match &i.op {
        Op::Setp(_) | Op::Testp(_) | Op::Isspacep(_) => true,
        Op::Vote(v) => v.mode != VoteMode::Ballot,
        Op::Mov(t) | Op::And(t) | Op::Or(t) | Op::Xor(t) | Op::Not(t) | Op::Selp(t) => {
            *t == Type::Pred
        }
        _ => return,
    };
    if let Operand::Reg(r) = &i.args[0] {
        let is_pred = f.regs[r.index()].ty == Type::Pred;
        if is_pred != wants_pred {
            out.push(Diagnostic {
                rule: "operand-type",
                message: format!(
                    "the destination of `{}` must be {}a predicate register",
                    name(&i.op),
                    if wants_pred { "" } else { "a register, not " }
                ),
                span: i.span,
            });
        }
    }
}

/// `_` and `d|p` are destinations: where a value is read they are refused, and `d|p` (or
/// `_|p`) is the destination of `setp` (`p|q`), `shfl`, `match` and `elect` only, the others
/// writing one register (rule `operand-kind`; lowering reads values and destinations through
/// the readers of `validate/forms.rs`). The families with their own operand rules
/// (`tcgen05`, the warp-level matrix instructions, `wgmma`) and `call` (whose lists are
/// checked against the prototype) are left to them.
fn sinks_and_pairs(
    i: &Instr,
    bad: &dyn Fn(&mut Vec<Diagnostic>, usize, &str),
    out: &mut Vec<Diagnostic>,
) {
    if matches!(
        i.op,
        Op::Tcgen05(_) | Op::WarpMatrix(_) | Op::Wgmma(_) | Op::Call(_)
    ) {
        return;
    }
    // The instructions whose first operand is read, not written.
    let first_read = matches!(
        i.op,
        Op::Bar(_)
            | Op::BarWarpSync
            | Op::Nanosleep
            | Op::BrxIdx { .. }
            | Op::Pmevent { .. }
            | Op::Setmaxnreg(_)
            | Op::Griddepcontrol(_)
    );
    for (k, a) in i.args.iter().enumerate() {
        let sink = matches!(a, Operand::Sink);
        let pair = matches!(a, Operand::Dual(..) | Operand::SinkDual(_));
        if k > 0 || first_read {
            if sink || pair {
                bad(out, k, "a register or immediate, not `_` or a pair `d|p`");
            }
        } else if pair {
            let takes = matches!(
                (&i.op, a),
                (Op::Setp(_), Operand::Dual(..)) | (Op::Shfl(_) | Op::Match(_) | Op::Elect, _)
            );
            if !takes {
                bad(out, 0, "one register, not a pair `d|p`");
            }
        }
    }
}

/// The operands of a call site, as lowering reads them: the callee is a function or a
/// register holding its address (not a predicate), each argument a value (a register, a
/// constant or a variable's address; `!p` of a predicate), each return value a register or
/// a variable of the calling function's frame (its `.param`/`.local` variables, a `.func`'s
/// parameters and return values), never a module variable, shared memory or a kernel's
/// parameter (rules `operand-kind` and `operand-type`).
fn call_operands(f: &Function, i: &Instr, c: &crate::ir::Call, out: &mut Vec<Diagnostic>) {
    let mut push = |rule: &'static str, message: &str| {
        out.push(Diagnostic {
            rule,
            message: message.into(),
            span: i.span,
        });
    };
    let is_pred = |r: &crate::ir::RegId| f.regs.get(r.index()).is_some_and(|r| r.ty == Type::Pred);
    if let Operand::Reg(r) = &c.callee {
        if is_pred(r) {
            push(
                "operand-type",
                "the callee of `call` is a function or a register holding its address, not a predicate",
            );
        }
    }
    let value = |a: &Operand| match a {
        Operand::Reg(_) | Operand::Imm(_) | Operand::Special(_) | Operand::Symbol(_) => true,
        Operand::NotPred(r) => is_pred(r),
        Operand::Dual(..)
        | Operand::SinkDual(_)
        | Operand::Vector(_)
        | Operand::Address(_)
        | Operand::Label(_)
        | Operand::Sink => false,
    };
    if !c.args.iter().all(value) {
        push(
            "operand-kind",
            "the arguments of `call` are registers, constants or variables",
        );
    }
    let frame = |a: &Operand| match a {
        Operand::Reg(_) => true,
        Operand::Symbol(s) => match s.sym {
            VarRef::Local(id) => f
                .locals
                .get(id.index())
                .is_some_and(|v| !matches!(v.space, StateSpace::Shared(_))),
            VarRef::Param(_) => f.kind == FunctionKind::Func,
            VarRef::Return(_) => true,
            VarRef::Global(_) | VarRef::Function(_) => false,
        },
        _ => false,
    };
    if !c.returns.iter().all(frame) {
        push(
            "operand-kind",
            "the return values of `call` are registers or variables of the calling function's frame",
        );
    }
}
