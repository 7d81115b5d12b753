//! Checks of the warp-level instructions Triton and CUTLASS emit: `redux.sync` (PTX ISA
//! "Parallel Synchronization and Communication Instructions: redux.sync"), `elect.sync` and
//! `setmaxnreg` ("Miscellaneous Instructions"), as ptxas 13.5 applies them
//! (tests/ptxas/triton.tsv).
//!
//! * `redux.sync`: `.add/.min/.max` take `.u32`/`.s32`, `.and/.or/.xor` take `.b32`;
//!   `.min/.max` also take `.f32` (PTX 8.6, arch-specific sm_100a/sm_101a/sm_103a targets
//!   only), the only type that allows `.abs` and `.NaN`. The operands are 32-bit.
//! * `elect.sync`: the destination is `d|p` or `_|p` with a 32-bit `d`.
//! * `setmaxnreg`: `.sync.aligned` and an immediate count in 24..=256, a multiple of 8, at an
//!   arch-specific (`a`) target of sm_90 or later.

use super::diagnostic::Diagnostic;
use crate::ir::{
    ArchSuffix, Function, Instr, Module, Op, Operand, ReduxOp, Setmaxnreg, Type, Version,
};

/// Checks one instruction of these families.
pub fn check(m: &Module, f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let mut push = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        })
    };
    let reg_bits = |o: &Operand| match o {
        Operand::Reg(r) => f.regs.get(r.index()).map(|r| r.ty.bits()),
        _ => None,
    };
    match &i.op {
        Op::Redux(r) => {
            let ok = match r.op {
                ReduxOp::Add => matches!(r.ty, Type::U32 | Type::S32),
                ReduxOp::Min | ReduxOp::Max => matches!(r.ty, Type::U32 | Type::S32 | Type::F32),
                ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => r.ty == Type::B32,
            };
            if !ok {
                push(
                    "operation-type",
                    format!(
                        "`redux.sync` has no .{} form of this operation (.add/.min/.max take .u32 or .s32, .min/.max also .f32, .and/.or/.xor take .b32)",
                        r.ty.name()
                    ),
                );
            }
            if (r.abs || r.nan) && r.ty != Type::F32 {
                push(
                    "modifier",
                    "`redux.sync` takes .abs and .NaN only with .f32".into(),
                );
            }
            if r.ty == Type::F32 && ok {
                let t = &m.target;
                let arch = t.suffix == ArchSuffix::Arch && (100..=103).contains(&t.sm);
                if !arch {
                    push(
                        "requires-target",
                        format!(
                            "`redux.sync` on .f32 requires sm_100a, sm_101a or sm_103a (the module targets sm_{})",
                            t.sm
                        ),
                    );
                }
                if m.version < Version::new(8, 6) {
                    push(
                        "requires-ptx-version",
                        "`redux.sync` on .f32 requires PTX ISA 8.6 or later".into(),
                    );
                }
            }
            if let Some(d) = i.args.first() {
                if reg_bits(d) != Some(32) {
                    push(
                        "operand-type",
                        "the destination of `redux.sync` must be a 32-bit register".into(),
                    );
                }
            }
        }
        Op::Elect => {
            let ok = match i.args.first() {
                Some(Operand::SinkDual(_)) => true,
                Some(Operand::Dual(d, p)) => {
                    let ty = |r: &crate::ir::RegId| f.regs.get(r.index()).map(|r| r.ty);
                    ty(d).is_some_and(|t| t.bits() == 32 && t != Type::Pred)
                        && ty(p) == Some(Type::Pred)
                }
                _ => false,
            };
            if !ok {
                push(
                    "operand-kind",
                    "the destination of `elect.sync` is `d|p` (a 32-bit register or `_`, and a predicate)".into(),
                );
            }
        }
        Op::Setmaxnreg(s) => setmaxnreg(m, i, s, &mut push),
        _ => {}
    }
}

fn setmaxnreg(m: &Module, i: &Instr, s: &Setmaxnreg, push: &mut dyn FnMut(&'static str, String)) {
    let Setmaxnreg {
        inc: _,
        sync_aligned,
        ty,
    } = *s;
    if !sync_aligned {
        push("modifier", "`setmaxnreg` needs .sync.aligned".into());
    }
    if !matches!(ty, Type::U32 | Type::S32) {
        push("operation-type", "`setmaxnreg` takes .u32".into());
    }
    match i.args.first() {
        Some(Operand::Imm(crate::ir::Imm::Int(n))) if (24..=256).contains(n) && n % 8 == 0 => {}
        _ => push(
            "operand-kind",
            "the register count of `setmaxnreg` is an immediate in 24..=256 and a multiple of 8"
                .into(),
        ),
    }
    if m.target.sm != 0 && (m.target.sm < 90 || m.target.suffix != ArchSuffix::Arch) {
        push(
            "requires-target",
            format!(
                "`setmaxnreg` requires an arch-specific target (sm_90a, sm_100a, …); the module targets sm_{}",
                m.target.sm
            ),
        );
    }
}
