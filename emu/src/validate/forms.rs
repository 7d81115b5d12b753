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
use crate::ir::{
    Address, Block, Function, Imm, Instr, LabelId, Operand, RegId, Span, SpecialReg, Stmt,
    SymbolAddr, TargetKind, VecElem,
};

/// A guarantee that did not hold when lowering read the module: a rule of the validator, or
/// an invariant of the parser or the layout the rules rely on (a call's callee is resolved, a
/// parameter index is in range, a shared variable in use is placed). A bug of ptxemu, never a
/// malformed module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unguaranteed {
    /// The form the validator guarantees.
    pub form: &'static str,
    /// What lowering read.
    pub part: Part,
    /// The instruction.
    pub span: Span,
}

/// What part of an instruction a guarantee is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The operand of this index.
    Operand(usize),
    /// An operand whose index the reader was not given.
    SomeOperand,
    /// The instruction's qualifiers or guard, or its operands taken together.
    Instruction,
    /// A variable's declaration (its size, its initialiser).
    Declaration,
}

impl std::fmt::Display for Unguaranteed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = self.span.line;
        match self.part {
            Part::Operand(k) => write!(f, "line {line}: operand {} is not {}", k + 1, self.form)?,
            Part::SomeOperand => write!(f, "line {line}: an operand is not {}", self.form)?,
            Part::Instruction => write!(f, "line {line}: the instruction is not {}", self.form)?,
            Part::Declaration => write!(f, "line {line}: the declaration is not {}", self.form)?,
        }
        f.write_str(", which ptxemu guarantees of a validated module (a bug of ptxemu)")
    }
}

impl std::error::Error for Unguaranteed {}

impl Unguaranteed {
    /// An operand of the instruction at `span` that is not `form`, for the guarantees that
    /// depend on a register's type (lowering knows the register's slot, not its index).
    pub(crate) fn at(span: Span, form: &'static str) -> Unguaranteed {
        Unguaranteed {
            form,
            part: Part::SomeOperand,
            span,
        }
    }

    /// The declaration at `span` is not `form`, which the rule named where this is returned
    /// guarantees.
    pub(crate) fn decl(span: Span, form: &'static str) -> Unguaranteed {
        Unguaranteed {
            form,
            part: Part::Declaration,
            span,
        }
    }

    /// The instruction `ins` is not `form` (its qualifiers, guard or operands together), which
    /// the rule named where this is returned guarantees.
    pub(crate) fn instr(ins: &Instr, form: &'static str) -> Unguaranteed {
        Unguaranteed {
            form,
            part: Part::Instruction,
            span: ins.span,
        }
    }
}

fn unguaranteed(ins: &Instr, k: usize, form: &'static str) -> Unguaranteed {
    Unguaranteed {
        form,
        part: Part::Operand(k),
        span: ins.span,
    }
}

/// The entries of the `.branchtargets` list of `f` labelled `list`, if there is one (at any
/// depth of the function's blocks).
pub(crate) fn branch_list(f: &Function, list: LabelId) -> Option<&[LabelId]> {
    fn find(b: &Block, list: LabelId) -> Option<&[LabelId]> {
        b.stmts.iter().find_map(|s| match s {
            Stmt::Targets(t) if t.name == list => match &t.targets {
                TargetKind::Branch(ls) => Some(ls.as_slice()),
                _ => None,
            },
            Stmt::Block(inner) => find(inner, list),
            _ => None,
        })
    }
    find(f.body.as_ref()?, list)
}

/// A value operand, as the validator guarantees it wherever lowering reads a value
/// ([`Validated::value`]).
#[derive(Clone, Copy, Debug)]
pub enum Value<'o> {
    /// A register (a predicate register reads as its truth).
    Reg(RegId),
    /// `!%p`: a negated predicate register (the rule `operand-type`, `validate/types.rs`,
    /// guarantees the register is a predicate).
    NotPred(RegId),
    /// An immediate.
    Imm(Imm),
    /// A special register.
    Special(SpecialReg),
    /// The address of a variable or function.
    Symbol(&'o SymbolAddr),
}

/// A destination operand of one register, as the validator guarantees it wherever lowering
/// writes one ([`Validated::dest`]).
#[derive(Clone, Copy, Debug)]
pub enum Dest<'o> {
    /// A register.
    Reg(RegId),
    /// `_`: nothing written.
    Sink,
    /// A `.reg` parameter or return value named by its symbol (the rule `operand-kind`
    /// guarantees the others are not destinations).
    Symbol(&'o SymbolAddr),
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

    /// `op`, an operand of the instruction at `span` that lowering reads as a value.
    ///
    /// Guaranteed by the rule `operand-kind` (`validate/instr.rs`): no address or label among
    /// the values of the instructions without an operand rule of their own, no vector where
    /// the instruction takes none (`validate/types.rs`), and no `_` or `d|p` where a value is
    /// read (`sinks_and_pairs`); the families with rules of their own (`tcgen05`, the
    /// warp-level matrix instructions, `wgmma`, the call sites) guarantee their values.
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn value<'o>(&self, span: Span, op: &'o Operand) -> Result<Value<'o>, Unguaranteed> {
        match op {
            Operand::Reg(r) => Ok(Value::Reg(*r)),
            Operand::NotPred(r) => Ok(Value::NotPred(*r)),
            Operand::Imm(i) => Ok(Value::Imm(*i)),
            Operand::Special(s) => Ok(Value::Special(*s)),
            Operand::Symbol(sa) => Ok(Value::Symbol(sa)),
            Operand::Dual(..)
            | Operand::SinkDual(_)
            | Operand::Vector(_)
            | Operand::Address(_)
            | Operand::Label(_)
            | Operand::Sink => Err(Unguaranteed::at(span, "a value")),
        }
    }

    /// `op`, an operand of the instruction at `span` that lowering writes as one register.
    ///
    /// Guaranteed by the rule `operand-kind` (`validate/instr.rs`): the first operand of the
    /// instructions without an operand rule of their own, and of `ld` and `atom`, is a
    /// register, `_` or a vector (a vector where the instruction takes one, which lowering
    /// reads element by element), and a pair `d|p` only where the instruction writes two
    /// (`sinks_and_pairs`, read by lowering as the pair).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn dest<'o>(&self, span: Span, op: &'o Operand) -> Result<Dest<'o>, Unguaranteed> {
        match op {
            Operand::Reg(r) => Ok(Dest::Reg(*r)),
            Operand::Sink => Ok(Dest::Sink),
            Operand::Symbol(sa) => Ok(Dest::Symbol(sa)),
            Operand::NotPred(_)
            | Operand::Dual(..)
            | Operand::SinkDual(_)
            | Operand::Special(_)
            | Operand::Imm(_)
            | Operand::Vector(_)
            | Operand::Address(_)
            | Operand::Label(_) => Err(Unguaranteed::at(span, "a destination register")),
        }
    }

    /// `op`, an operand of the instruction at `span` that lowering reads as an address.
    ///
    /// Guaranteed by the rule `operand-kind`: the address of `ld`, `ldu`, `st`, `atom`,
    /// `red`, `prefetch`, `applypriority` and `discard` (`validate/instr.rs`), and of the
    /// families' memory instructions (their `validate` modules).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn address<'o>(&self, span: Span, op: &'o Operand) -> Result<&'o Address, Unguaranteed> {
        match op {
            Operand::Address(a) => Ok(a),
            _ => Err(Unguaranteed::at(span, "an address `[...]`")),
        }
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
    /// `wgmma/validate.rs`, and of `mma`, `ldmatrix`, `stmatrix` and `wmma`,
    /// `mma/validate.rs`), `operand-kind` and `operand-type` (the data of
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

    /// The entries of the `.branchtargets` list that operand `k` of `ins`, an instruction of
    /// `f`, names.
    ///
    /// Guaranteed by the rule `operand-kind` for the list of `brx.idx` (`validate/instr.rs`).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn branch_targets_of<'f>(
        &self,
        f: &'f Function,
        ins: &Instr,
        k: usize,
    ) -> Result<&'f [LabelId], Unguaranteed> {
        const FORM: &str = "the label of a `.branchtargets` list";
        let l = self
            .label_of(ins, k)
            .map_err(|_| unguaranteed(ins, k, FORM))?;
        branch_list(f, l).ok_or_else(|| unguaranteed(ins, k, FORM))
    }

    /// Operand `k` of `ins`, a brace vector of values: registers and immediates (never `_`),
    /// as [`Value::Reg`] and [`Value::Imm`].
    ///
    /// Guaranteed by the rule `operand-kind` for the coordinates and im2col offsets of the
    /// bulk-tensor instructions (`tma/validate.rs`: the vector, its length and its elements),
    /// and by `mma-fragment` for C of `mma` (`mma/validate.rs`).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn values_of(&self, ins: &Instr, k: usize) -> Result<Vec<Value<'static>>, Unguaranteed> {
        const FORM: &str = "a vector of registers and constants";
        let Some(Operand::Vector(v)) = ins.args.get(k) else {
            return Err(unguaranteed(ins, k, FORM));
        };
        v.iter()
            .map(|e| match e {
                VecElem::Reg(r) => Ok(Value::Reg(*r)),
                VecElem::Imm(i) => Ok(Value::Imm(*i)),
                VecElem::Sink => Err(unguaranteed(ins, k, FORM)),
            })
            .collect()
    }

    /// Operand `k` of `ins`, a register.
    ///
    /// Guaranteed by the rule `operand-kind` for the response of
    /// `clusterlaunchcontrol.query_cancel` (`cluster_launch/validate.rs`, which also makes it
    /// a `.b128` register), and by `mma-fragment` for the operands of `movmatrix`
    /// (`mma/validate.rs`).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn reg_of(&self, ins: &Instr, k: usize) -> Result<RegId, Unguaranteed> {
        match ins.args.get(k) {
            Some(Operand::Reg(r)) => Ok(*r),
            _ => Err(unguaranteed(ins, k, "a register")),
        }
    }

    /// Operand `k` of `ins`, a brace vector of destinations: registers, or `_` (`None`).
    ///
    /// Guaranteed by the rule `operand-kind` for the vector `mov` unpacks into
    /// (`validate/instr.rs`) and the vector of `query_cancel.get_first_ctaid.v4`
    /// (`cluster_launch/validate.rs`).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn dests_of(&self, ins: &Instr, k: usize) -> Result<Vec<Option<RegId>>, Unguaranteed> {
        const FORM: &str = "a vector of registers or `_`";
        let Some(Operand::Vector(v)) = ins.args.get(k) else {
            return Err(unguaranteed(ins, k, FORM));
        };
        v.iter()
            .map(|e| match e {
                VecElem::Reg(r) => Ok(Some(*r)),
                VecElem::Sink => Ok(None),
                VecElem::Imm(_) => Err(unguaranteed(ins, k, FORM)),
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
    fn values_destinations_and_addresses_are_guaranteed_where_lowering_reads_them() {
        for body in [
            "add.s32 %r1, _, %r2;",
            "add.s32 %r1, %r2|%r3, %r2;",
            "add.s32 %r1|%r2, %r2, %r2;",
            "atom.shared.add.u32 %r1, [%r2], _;",
            "atom.shared.add.u32 %r1|%r3, [%r2], %r4;",
            "setp.eq.s32 _|%p1, %r1, %r2;",
            "selp.b32 %r1, %r2, %r3, _;",
            "bar.sync _;",
            "nanosleep.u32 _;",
            "mov.u32 %r1, _;",
            "add.s32 %r1, [%rd1], %r2;",
            "add.s32 %r1, {%r2, %r3}, %r2;",
            "mov.b64 {%r1, 3}, %rd1;",
        ] {
            refused("8.0", "sm_90", body, "operand-kind");
        }
        for body in [
            "ld.shared.u32 %r1, [%p1];",
            "st.shared.u32 [%p1], %r1;",
            "red.shared.add.u32 [%p1], %r1;",
            "mbarrier.init.shared.b64 [%p1], 1;",
            "add.s32 %r1, !%r2, %r3;",
        ] {
            refused("8.0", "sm_90", body, "operand-type");
        }
        for body in [
            "setp.eq.s32 %p0|%p1, %r1, %r2;",
            "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, 0xffffffff;",
            "elect.sync _|%p1, 0xffffffff;",
            "mbarrier.arrive.shared.b64 _, [%r1];",
            "mov.b64 %rd1, {%r1, %r2};",
            "ld.shared.u32 %r1, [%r2+4];",
        ] {
            let v = Validated::new(module("8.0", "sm_90", body));
            assert!(v.is_ok(), "{body}: {:?}", v.err());
        }
    }

    #[test]
    fn the_forms_lowering_refuses_as_unguaranteed_are_refused_by_the_validator() {
        refused("8.0", "sm_90", "@%r1 add.s32 %r1, %r1, 1;", "operand-type");
        refused("8.0", "sm_90", "@!%r1 bra $L;\n$L:", "operand-type");
        refused("8.0", "sm_90", "cnot.pred %p1, %p0;", "operation-type");
        refused(
            "8.0",
            "sm_90",
            "mul.wide.u64 %rd1, %rd2, %rd3;",
            "operation-type",
        );
        refused(
            "8.0",
            "sm_90",
            "mad.wide.s64 %rd1, %rd2, %rd3, %rd1;",
            "operation-type",
        );
        refused(
            "8.0",
            "sm_90",
            "redux.sync.add.f32 %f1, %f2, 0xffffffff;",
            "operation-type",
        );
        refused(
            "8.0",
            "sm_90",
            "cp.async.ca.shared.global [%r1], [%rd1], 12;",
            "operand-kind",
        );
        refused(
            "8.0",
            "sm_90",
            "ld.shared.v2.u32 {%r1, %r2, %r3}, [%r4];",
            "vector-operand",
        );
        for body in [
            "@%p1 add.s32 %r1, %r1, 1;",
            "mul.wide.u32 %rd1, %r2, %r3;",
            "mad.wide.s16 %r1, 3, 4, %r1;",
            "cnot.b32 %r1, %r2;",
        ] {
            let v = Validated::new(module("8.0", "sm_90", body));
            assert!(v.is_ok(), "{body}: {:?}", v.err());
        }
    }

    #[test]
    fn a_register_and_a_vector_of_destinations_are_guaranteed_where_reg_of_and_dests_of_read_them()
    {
        let q = "clusterlaunchcontrol.query_cancel";
        let check = |body: &str| {
            let src = format!(
                ".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\
                 .reg .b32 %r<4>;\n.reg .b128 %q;\n.reg .b64 %rd1;\n.reg .pred %p<2>;\n\
                 {body}\nret;\n}}\n"
            );
            Validated::new(crate::front::parse_module(&src, "t.ptx").expect("parses"))
        };
        for body in [
            format!("{q}.get_first_ctaid.v4.b32.b128 {{%r1, %r2, 3, _}}, %q;"),
            format!("{q}.get_first_ctaid.v4.b32.b128 %r1, %q;"),
            format!("{q}.get_first_ctaid::x.b32.b128 %r1, %rd1;"),
            format!("{q}.is_canceled.pred.b128 %p1, 5;"),
        ] {
            let diags = check(&body).expect_err(&body);
            assert!(
                diags
                    .iter()
                    .any(|d| d.rule == "operand-kind" && d.span.line == 10),
                "{body}: {diags:?}"
            );
        }
        let ok = format!("{q}.get_first_ctaid.v4.b32.b128 {{%r1, %r2, %r3, _}}, %q;");
        let v = check(&ok).expect("valid");
        let f = &v.module().functions[0];
        let Some(crate::ir::Stmt::Instr(ins)) = f.body.as_ref().and_then(|b| {
            b.stmts
                .iter()
                .find(|s| matches!(s, crate::ir::Stmt::Instr(_)))
        }) else {
            panic!("no instruction")
        };
        assert_eq!(v.dests_of(ins, 0).map(|d| d[3]), Ok(None));
        assert!(v.reg_of(ins, 1).is_ok());
        assert_eq!(v.reg_of(ins, 0).map_err(|u| u.form), Err("a register"));
    }

    #[test]
    fn a_branch_target_list_is_guaranteed_where_branch_targets_of_reads_one() {
        refused("8.0", "sm_90", "brx.idx %r1, $L;\n$L:", "operand-kind");
        let v = Validated::new(module(
            "8.0",
            "sm_90",
            "$T: .branchtargets $L0, $L1;\nbrx.idx %r1, $T;\n$L0:\n$L1:",
        ))
        .expect("valid");
        let f = &v.module().functions[0];
        let Some(crate::ir::Stmt::Instr(brx)) = f.body.as_ref().and_then(|b| {
            b.stmts
                .iter()
                .find(|s| matches!(s, crate::ir::Stmt::Instr(_)))
        }) else {
            panic!("no instruction")
        };
        assert_eq!(v.branch_targets_of(f, brx, 1).map(<[_]>::len), Ok(2));
        assert_eq!(
            v.branch_targets_of(f, brx, 0).map_err(|u| u.form),
            Err("the label of a `.branchtargets` list")
        );
    }

    #[test]
    fn the_coordinates_of_a_tensor_instruction_are_guaranteed_where_values_of_reads_them() {
        let copy =
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes";
        refused(
            "8.0",
            "sm_90a",
            &format!("{copy} [%r1], [%rd1, {{%r2, _}}], [%r3];"),
            "operand-kind",
        );
        refused(
            "8.3",
            "sm_90a",
            "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 5, %r1;",
            "operand-kind",
        );
        let body = format!("{copy} [%r1], [%rd1, {{%r2, 3}}], [%r3];");
        let v = Validated::new(module("8.0", "sm_90a", &body)).expect("valid");
        let f = &v.module().functions[0];
        let Some(crate::ir::Stmt::Instr(cp)) = f.body.as_ref().and_then(|b| {
            b.stmts
                .iter()
                .find(|s| matches!(s, crate::ir::Stmt::Instr(_)))
        }) else {
            panic!("no instruction")
        };
        let k = cp
            .args
            .iter()
            .position(|a| matches!(a, Operand::Vector(_)))
            .expect("a coordinate vector");
        assert!(matches!(
            v.values_of(cp, k).as_deref(),
            Ok([Value::Reg(_), Value::Imm(Imm::Int(3))])
        ));
    }

    #[test]
    fn the_operands_of_a_call_are_guaranteed_where_lowering_reads_them() {
        let check = |body: &str| {
            let src = format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n\
                 .func (.param .b32 r) f(.param .b32 a)\n{{\nret;\n}}\n\
                 .visible .entry k(.param .b32 kp)\n{{\n.reg .b32 %r<2>;\n.reg .pred %p<2>;\n\
                 .param .b32 pa;\n.param .b32 pr;\n.shared .b32 sh;\n\
                 {body}\nret;\n}}\n"
            );
            Validated::new(crate::front::parse_module(&src, "t.ptx").expect("parses"))
        };
        for (body, rule) in [
            ("call (pr), %p1, (pa);", "operand-type"),
            ("call (3), f, (pa);", "operand-kind"),
            ("call (sh), f, (pa);", "operand-kind"),
            ("call (kp), f, (pa);", "operand-kind"),
            ("call (pr), f, (_);", "operand-kind"),
            ("call (pr), f, (!%r1);", "operand-kind"),
        ] {
            let diags = check(body).expect_err(body);
            assert!(
                diags.iter().any(|d| d.rule == rule && d.span.line == 15),
                "{body}: {diags:?}"
            );
        }
        for body in ["call (pr), f, (pa);", "call (%r1), f, (%r0);"] {
            assert!(check(body).is_ok(), "{body}: {:?}", check(body).err());
        }
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
