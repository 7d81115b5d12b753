//! The rules of `tcgen05.cp` (PTX ISA "tcgen05.cp"): the operands `[taddr], s-desc`, and which
//! multicast each shape needs. tests/ptxas/tcgen05_cp.tsv holds the ptxas verdicts these rules
//! are checked against (tests/tests/ptxas_agreement.rs).

use crate::ir::{AddrBase, CpMulticast, CpShape, Function, Instr, Operand, Tcgen05Cp, Type};
use crate::validate::diagnostic::Diagnostic;

fn err(out: &mut Vec<Diagnostic>, i: &Instr, rule: &'static str, message: String) {
    out.push(Diagnostic {
        rule,
        message,
        span: i.span,
    });
}

fn reg_type(f: &Function, o: &Operand) -> Option<Type> {
    match o {
        Operand::Reg(r) => {
            let info = &f.regs[r.index()];
            info.vec.is_none().then_some(info.ty)
        }
        _ => None,
    }
}

/// The multicasts `shape` may take (`None`: none written).
pub fn multicast_ok(shape: CpShape, m: Option<CpMulticast>) -> bool {
    match shape {
        CpShape::S64x128b => matches!(
            m,
            Some(CpMulticast::Warpx2_02_13 | CpMulticast::Warpx2_01_23)
        ),
        CpShape::S32x128b => m == Some(CpMulticast::Warpx4),
        CpShape::S128x256b | CpShape::S4x256b | CpShape::S128x128b => m.is_none(),
    }
}

/// Checks `tcgen05.cp`'s two operands and its shape and multicast.
pub fn check(f: &Function, i: &Instr, c: &Tcgen05Cp, what: &str, out: &mut Vec<Diagnostic>) {
    if !multicast_ok(c.shape, c.multicast) {
        let needs = match c.shape {
            CpShape::S64x128b => ".64x128b needs .warpx2::02_13 or .warpx2::01_23".to_string(),
            CpShape::S32x128b => ".32x128b needs .warpx4".to_string(),
            s => format!(".{} takes no multicast", s.name()),
        };
        let found = c
            .multicast
            .map_or_else(|| "none".to_string(), |m| format!(".{}", m.name()));
        err(
            out,
            i,
            "tcgen05-cp-multicast",
            format!("`{what}`: {needs} (found {found})"),
        );
    }
    let taddr_ok = match &i.args[0] {
        Operand::Address(a) => match a.base {
            AddrBase::Reg(r) => {
                let ty = reg_type(f, &Operand::Reg(r));
                matches!(ty, Some(Type::B32 | Type::U32 | Type::S32))
            }
            // ptxas crashes on an immediate address `[16]`; ptxemu accepts it, as for
            // tcgen05.shift.
            AddrBase::None => true,
            AddrBase::Var(_) => false,
        },
        _ => false,
    };
    if !taddr_ok {
        err(
            out,
            i,
            "operand-kind",
            format!("`{what}`: the Tensor Memory address must be `[reg]` or `[reg+imm]` with a 32-bit integer register"),
        );
    }
    // ptxas also takes a constant descriptor.
    let desc_ok = matches!(i.args[1], Operand::Imm(crate::ir::Imm::Int(_)))
        || matches!(
            reg_type(f, &i.args[1]),
            Some(Type::B64 | Type::U64 | Type::S64)
        );
    if !desc_ok {
        err(
            out,
            i,
            "operand-kind",
            format!("`{what}`: the shared-memory descriptor s-desc must be a 64-bit integer register or a constant"),
        );
    }
}
