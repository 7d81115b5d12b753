//! The rules of the warpgroup-level matrix instructions (PTX ISA "Asynchronous Warpgroup Level
//! Matrix Multiply-Accumulate Instructions"): which shapes go with which element types, the
//! operand list of each form (A from a descriptor or from registers; the scale, negate and
//! transpose immediates), the register count and width of D and A, and the targets
//! (`sm_90a`, PTX ISA 8.0).
//!
//! Where NVIDIA's ptxas is stricter or looser than the ISA text, the rule follows ptxas and
//! says so; tests/ptxas/wgmma.tsv holds the recorded verdicts these rules are checked against.

use crate::ir::{
    ArchSuffix, Function, Imm, Instr, MmaElem, Module, Op, Operand, Type, VecElem, Version, Wgmma,
    WgmmaMma,
};
use crate::validate::diagnostic::Diagnostic;

/// Operand counts `(min, max)` of a wgmma instruction (exact counts are checked in [`check`]).
pub fn operand_count(w: &Wgmma) -> (usize, usize) {
    match w {
        Wgmma::Fence | Wgmma::CommitGroup => (0, 0),
        Wgmma::WaitGroup => (1, 1),
        Wgmma::MmaAsync(_) => (4, 8),
    }
}

/// Whether the element types, shape and qualifiers form a `wgmma.mma_async` the ISA lists;
/// the message says what is wrong.
pub fn mma_form(m: &WgmmaMma) -> Result<(), String> {
    use MmaElem::*;
    let ok_types = matches!(
        (m.d, m.a, m.b),
        (F16 | F32, F16, F16)
            | (F32, Bf16, Bf16)
            | (F32, Tf32, Tf32)
            | (F16 | F32, E4m3 | E5m2, E4m3 | E5m2)
            | (S32, S8 | U8, S8 | U8)
            | (S32, B1, B1)
    );
    if !ok_types {
        return Err(format!(
            "wgmma.mma_async has no .{}.{}.{} form",
            m.d.name(),
            m.a.name(),
            m.b.name()
        ));
    }
    if m.k != m.k_of_type() {
        return Err(format!(
            "wgmma.mma_async with .{} inputs has K = {} (not {})",
            m.a.name(),
            m.k_of_type(),
            m.k
        ));
    }
    let int = m.a.is_integer();
    let n_ok = if int {
        matches!(m.n, 8 | 16 | 24) || (m.n.is_multiple_of(16) && (32..=256).contains(&m.n))
    } else {
        m.n.is_multiple_of(8) && (8..=256).contains(&m.n)
    };
    if !n_ok {
        let set = if int {
            "8, 16, 24 or a multiple of 16 from 32 to 256"
        } else {
            "a multiple of 8 from 8 to 256"
        };
        return Err(format!(
            "N = {} is not a wgmma.mma_async shape (N is {set})",
            m.n
        ));
    }
    if m.satfinite && !matches!(m.a, S8 | U8) {
        return Err(".satfinite is for the .s8/.u8 forms of wgmma.mma_async".into());
    }
    if (m.a == B1) != m.bitop.is_some() {
        return Err("the .b1 form of wgmma.mma_async, and only it, takes .and.popc".into());
    }
    Ok(())
}

/// The number of operands of a form: A from registers (`a_regs`) or a descriptor.
pub fn mma_operands(m: &WgmmaMma, a_regs: bool) -> usize {
    match (m.has_trans(), m.has_scale()) {
        (true, _) if a_regs => 7,
        (true, _) => 8,
        (false, true) => 6,
        (false, false) => 4,
    }
}

struct Checker<'a> {
    f: &'a Function,
    i: &'a Instr,
    out: &'a mut Vec<Diagnostic>,
    what: String,
}

impl Checker<'_> {
    fn err(&mut self, rule: &'static str, message: String) {
        self.out.push(Diagnostic {
            rule,
            message: format!("`{}`: {message}", self.what),
            span: self.i.span,
        });
    }

    fn reg_ty(&self, op: &Operand) -> Option<Type> {
        match op {
            Operand::Reg(r) if self.f.regs[r.index()].vec.is_none() => {
                Some(self.f.regs[r.index()].ty)
            }
            _ => None,
        }
    }

    /// A vector of `n` 32-bit registers (`.f32` ones allowed where `float`).
    fn vector(&mut self, k: usize, name: &str, n: u32, float: bool) {
        let Operand::Vector(v) = &self.i.args[k] else {
            return self.err(
                "mma-fragment",
                format!("{name} must be a vector of {n} registers"),
            );
        };
        if v.len() as u32 != n {
            return self.err(
                "mma-fragment",
                format!(
                    "{name} has {} registers; this shape and type need {n}",
                    v.len()
                ),
            );
        }
        let ok = v.iter().all(|e| match e {
            VecElem::Reg(r) => {
                let info = &self.f.regs[r.index()];
                info.vec.is_none()
                    && info.ty.bits() == 32
                    && info.ty != Type::Pred
                    && (float || info.ty != Type::F32)
            }
            VecElem::Sink | VecElem::Imm(_) => false,
        });
        if !ok {
            let kind = if float { "" } else { " non-.f32" };
            self.err(
                "mma-fragment",
                format!("the registers of {name} must be 32-bit{kind} registers"),
            );
        }
    }

    fn descriptor(&mut self, k: usize, name: &str) {
        let ok = self
            .reg_ty(&self.i.args[k])
            .is_some_and(|t| t.bits() == 64 && t != Type::F64);
        if !ok {
            self.err(
                "operand-kind",
                format!("{name} must be a 64-bit register holding a matrix descriptor"),
            );
        }
    }

    fn scale_d(&mut self, k: usize) {
        let ok = match &self.i.args[k] {
            Operand::Reg(_) => self.reg_ty(&self.i.args[k]) == Some(Type::Pred),
            Operand::NotPred(_) => true,
            Operand::Imm(Imm::Int(0 | 1)) => true,
            _ => false,
        };
        if !ok {
            self.err(
                "operand-kind",
                "scale-d must be a predicate or the integer 0 or 1".into(),
            );
        }
    }

    fn imm(&mut self, k: usize, name: &str, allowed: &[i64]) {
        let ok = matches!(&self.i.args[k], Operand::Imm(Imm::Int(v)) if allowed.contains(v));
        if !ok {
            let list: Vec<String> = allowed.iter().map(ToString::to_string).collect();
            self.err(
                "operand-kind",
                format!("{name} must be the integer {}", list.join(" or ")),
            );
        }
    }
}

/// Checks the operands and qualifier rules of a wgmma instruction whose operand count is in
/// the family's range.
pub fn check(f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Op::Wgmma(w) = &i.op else {
        return;
    };
    let what = crate::front::printer::mnemonic(&i.op);
    let mut c = Checker { f, i, out, what };
    match w {
        Wgmma::Fence | Wgmma::CommitGroup => {}
        Wgmma::WaitGroup => {
            // ptxas 13.5 takes any non-negative integer.
            if !matches!(i.args[0], Operand::Imm(Imm::Int(0..))) {
                c.err(
                    "operand-kind",
                    "the group count must be a non-negative integer".into(),
                );
            }
        }
        Wgmma::MmaAsync(m) => {
            if let Err(e) = mma_form(m) {
                return c.err("mma-form", e);
            }
            let a_regs = matches!(i.args[1], Operand::Vector(_));
            let want = mma_operands(m, a_regs);
            if i.args.len() != want {
                let form = if a_regs { "registers" } else { "a descriptor" };
                return c.err(
                    "operand-count",
                    format!(
                        "this form with A from {form} takes {want} operands, not {}",
                        i.args.len()
                    ),
                );
            }
            c.vector(0, "D", m.d_regs(), m.d == MmaElem::F32);
            if a_regs {
                c.vector(1, "A", m.a_regs(), false);
            } else {
                c.descriptor(1, "a-desc");
            }
            c.descriptor(2, "b-desc");
            c.scale_d(3);
            if m.has_scale() {
                c.imm(4, "imm-scale-a", &[1, -1]);
                c.imm(5, "imm-scale-b", &[1, -1]);
            }
            if m.has_trans() {
                if !a_regs {
                    c.imm(6, "imm-trans-a", &[0, 1]);
                }
                c.imm(want - 1, "imm-trans-b", &[0, 1]);
            }
        }
    }
}

/// Checks a wgmma instruction against the module's `.version` and `.target`: PTX ISA 8.0 and
/// `sm_90a`.
pub fn check_target(m: &Module, i: &Instr, out: &mut Vec<Diagnostic>) {
    let what = crate::front::printer::mnemonic(&i.op);
    // Mixed .s8/.u8 inputs came with PTX ISA 8.4 (ptxas: "WGMMA with mixed integer types").
    let mixed = matches!(i.op, Op::Wgmma(Wgmma::MmaAsync(x)) if x.a.is_integer() && x.a != x.b);
    let need = if mixed {
        Version::new(8, 4)
    } else {
        Version::new(8, 0)
    };
    if m.version < need {
        out.push(Diagnostic {
            rule: "requires-ptx-version",
            message: format!(
                "{what} requires PTX ISA {}.{} or later (the module declares {}.{})",
                need.major, need.minor, m.version.major, m.version.minor
            ),
            span: i.span,
        });
    }
    let t = &m.target;
    if !(t.sm == 90 && t.suffix == ArchSuffix::Arch) {
        out.push(Diagnostic {
            rule: "requires-target",
            message: format!("{what} requires sm_90a (the module targets sm_{})", t.sm),
            span: i.span,
        });
    }
}
