//! The operand forms the validator guarantees, read by lowering as naga's back ends read the
//! `ModuleInfo` its validator returned: one reader per operand shape, on [`Validated`], each
//! naming the rules that guarantee it. Lowering states no condition of its own on these
//! shapes: the condition is checked once, by the validator, with the rule's name and the
//! instruction's position.
//!
//! A reader that finds another form returns [`Unguaranteed`]: a rule the validator is
//! missing, a bug of ptxemu, never a malformed module (a malformed module never becomes a
//! [`Validated`]). The kernels reaching the instruction are refused with it; nothing panics.

use super::Validated;
use crate::ir::{Imm, Instr, LabelId, Operand, RegId, Span, VecElem};

/// A validator guarantee that did not hold when lowering read an operand: a bug of ptxemu.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "line {}: operand {} is not {form}, which the validator guarantees (a bug of ptxemu)",
    span.line,
    operand + 1
)]
pub struct Unguaranteed {
    /// The form the validator guarantees.
    pub form: &'static str,
    /// The operand's index.
    pub operand: usize,
    /// The instruction.
    pub span: Span,
}

fn unguaranteed(ins: &Instr, k: usize, form: &'static str) -> Unguaranteed {
    Unguaranteed {
        form,
        operand: k,
        span: ins.span,
    }
}

impl Validated {
    /// Operand `k` of `ins`, whatever its form.
    ///
    /// Guaranteed by the rule `operand-count` (`validate/instr.rs`), which bounds the
    /// operands of every opcode by the opcode table's arity or, where the form decides, by
    /// the family's (`arity`); lowering reads an operand past the lower bound only where the
    /// form that admits it is present.
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn operand<'i>(&self, ins: &'i Instr, k: usize) -> Result<&'i Operand, Unguaranteed> {
        ins.args
            .get(k)
            .ok_or_else(|| unguaranteed(ins, k, "present"))
    }

    /// Operand `k` of `ins`, a label.
    ///
    /// Guaranteed by the rule `operand-kind` for the target of `bra` and the list of
    /// `brx.idx` (`validate/instr.rs`).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn label_of(&self, ins: &Instr, k: usize) -> Result<LabelId, Unguaranteed> {
        match ins.args.get(k) {
            Some(Operand::Label(l)) => Ok(*l),
            _ => Err(unguaranteed(ins, k, "a label")),
        }
    }

    /// Operand `k` of `ins`, a brace vector of registers only (no `_`, no immediate).
    ///
    /// Guaranteed by the rules `mma-fragment` (the fragments of `wgmma.mma_async`,
    /// `wgmma/validate.rs`), `operand-kind` and `operand-type` (the data of
    /// `tcgen05.ld`/`st` and `disable-output-lane` of `tcgen05.mma`, `tcgen05/validate*`).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn regs_of(&self, ins: &Instr, k: usize) -> Result<Vec<RegId>, Unguaranteed> {
        const FORM: &str = "a vector of registers `{...}`";
        let Some(Operand::Vector(v)) = ins.args.get(k) else {
            return Err(unguaranteed(ins, k, FORM));
        };
        v.iter()
            .map(|e| match e {
                VecElem::Reg(r) => Ok(*r),
                VecElem::Sink | VecElem::Imm(_) => Err(unguaranteed(ins, k, FORM)),
            })
            .collect()
    }

    /// Operand `k` of `ins`, an integer immediate.
    ///
    /// Guaranteed by the rules `lop3-table` (the truth table of `lop3`,
    /// `validate/types.rs`), `operand-kind` (the immediates of `wgmma.mma_async` and the
    /// count of `wgmma.wait_group`, `wgmma/validate.rs`) and `tcgen05-imm-half-splitoff`
    /// (`tcgen05.ld.16x32bx2`, `tcgen05/validate.rs`), each of which also bounds the value
    /// where the instruction does.
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn int_of(&self, ins: &Instr, k: usize) -> Result<i64, Unguaranteed> {
        match ins.args.get(k) {
            Some(Operand::Imm(Imm::Int(v))) => Ok(*v),
            _ => Err(unguaranteed(ins, k, "an integer immediate")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel for `target` (PTX ISA `version`) whose body is `body`, at line 10.
    fn module(version: &str, target: &str, body: &str) -> crate::ir::Module {
        let src = format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<8>;\n.reg .pred %p<2>;\n\
             {body}\nret;\n}}\n"
        );
        crate::front::parse_module(&src, "t.ptx").expect("parses")
    }

    /// The validator refuses the body with `rule`, at line 10.
    fn refused(version: &str, target: &str, body: &str, rule: &str) {
        let diags = Validated::new(module(version, target, body)).expect_err(body);
        assert!(
            diags.iter().any(|d| d.rule == rule && d.span.line == 10),
            "{body}: {diags:?}"
        );
    }

    #[test]
    fn an_operand_is_present_where_operand_reads_one() {
        refused("8.0", "sm_90", "add.s32 %r1, %r2;", "operand-count");
        refused(
            "8.0",
            "sm_90",
            "setp.eq.and.s32 %p1, %r1, %r2;",
            "operand-count",
        );
        let v = Validated::new(module("8.0", "sm_90", "add.s32 %r1, %r2, 3;")).expect("valid");
        let f = &v.module().functions[0];
        let Some(crate::ir::Stmt::Instr(add)) = f.body.as_ref().and_then(|b| {
            b.stmts
                .iter()
                .find(|s| matches!(s, crate::ir::Stmt::Instr(_)))
        }) else {
            panic!("no instruction")
        };
        assert!(v.operand(add, 2).is_ok());
        assert_eq!(v.operand(add, 3).map_err(|u| u.form), Err("present"));
    }

    #[test]
    fn a_label_is_guaranteed_where_label_of_reads_one() {
        refused("8.0", "sm_90", "bra %r1;", "operand-kind");
        refused("8.0", "sm_90", "bra 3;", "operand-kind");
        refused("8.0", "sm_90", "brx.idx %r1, %r2;", "operand-kind");
        let v = Validated::new(module("8.0", "sm_90", "$L: bra $L;")).expect("valid");
        let f = &v.module().functions[0];
        let Some(crate::ir::Stmt::Instr(bra)) = f.body.as_ref().and_then(|b| {
            b.stmts
                .iter()
                .find(|s| matches!(s, crate::ir::Stmt::Instr(_)))
        }) else {
            panic!("no instruction")
        };
        assert!(v.label_of(bra, 0).is_ok());
        assert_eq!(
            v.int_of(bra, 0).map_err(|u| u.form),
            Err("an integer immediate")
        );
    }

    #[test]
    fn a_vector_of_registers_is_guaranteed_where_regs_of_reads_one() {
        let wgmma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";
        refused(
            "8.0",
            "sm_90a",
            &format!("{wgmma} {{%f1,%f2,_,%f4}}, %rd1, %rd2, 1, 1, 1, 0, 0;"),
            "mma-fragment",
        );
        refused(
            "8.0",
            "sm_90a",
            &format!("{wgmma} {{%f1,%f2,7,%f4}}, %rd1, %rd2, 1, 1, 1, 0, 0;"),
            "mma-fragment",
        );
        refused(
            "8.6",
            "sm_100a",
            "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, _}, [%r3];",
            "operand-type",
        );
        refused(
            "8.6",
            "sm_100a",
            "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r3], %r1;",
            "operand-kind",
        );
        refused(
            "8.6",
            "sm_100a",
            "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r3, %r4, %r5, 7}, %p1;",
            "operand-kind",
        );
    }

    #[test]
    fn an_integer_is_guaranteed_where_int_of_reads_one() {
        let wgmma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";
        refused(
            "8.0",
            "sm_90a",
            "wgmma.wait_group.sync.aligned %r1;",
            "operand-kind",
        );
        refused(
            "8.0",
            "sm_90a",
            "wgmma.wait_group.sync.aligned -1;",
            "operand-kind",
        );
        refused(
            "8.0",
            "sm_90a",
            &format!("{wgmma} {{%f1,%f2,%f3,%f4}}, %rd1, %rd2, 1, %r1, 1, 0, 0;"),
            "operand-kind",
        );
        refused(
            "8.6",
            "sm_100a",
            "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r3], %r4;",
            "tcgen05-imm-half-splitoff",
        );
        refused(
            "8.0",
            "sm_90",
            "lop3.b32 %r1, %r2, %r3, %r4, %r5;",
            "lop3-table",
        );
    }
}
