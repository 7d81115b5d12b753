//! The rules of the warp-level matrix instructions (PTX ISA "Warp Level Matrix Multiply-
//! Accumulate Instructions": mma, ldmatrix, stmatrix, movmatrix): which shapes go with which
//! element types and layouts, the register count and width of every fragment, and the PTX ISA
//! versions and targets each form needs ("PTX ISA Notes", "Target ISA Notes").
//!
//! Where NVIDIA's ptxas is stricter or looser than the ISA text, the rule follows ptxas and says
//! so; tests/ptxas/mma.tsv holds the recorded verdicts these rules are checked against.

pub mod wmma;

use crate::ir::{
    ArchSuffix, Function, Instr, MatrixCount, MatrixFormat, MatrixMove, MatrixShape, Mma, MmaBitOp,
    MmaElem, MmaLayout, MmaShape, Module, Op, Operand, StateSpace, Type, VecElem, Version,
    WarpMatrix, WmmaFrag,
};
use crate::validate::diagnostic::Diagnostic;

/// What a valid form needs: the lowest PTX ISA version and SM, and whether only the
/// architecture- or family-specific targets (`sm_100a`, …) have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// PTX ISA version.
    pub ptx: Version,
    /// Lowest SM.
    pub sm: u32,
    /// Only on `a`/`f` targets.
    pub specific: bool,
}

pub(crate) const fn needs(major: u32, minor: u32, sm: u32) -> Needs {
    Needs {
        ptx: Version::new(major, minor),
        sm,
        specific: false,
    }
}

pub(crate) fn is_int8(e: MmaElem) -> bool {
    matches!(e, MmaElem::S8 | MmaElem::U8)
}

fn is_int4(e: MmaElem) -> bool {
    matches!(e, MmaElem::S4 | MmaElem::U4)
}

fn is_fp8(e: MmaElem) -> bool {
    matches!(e, MmaElem::E4m3 | MmaElem::E5m2)
}

/// The requirements of an `mma` form, or why the combination of shape, types and qualifiers is
/// not one the PTX ISA lists.
///
/// # Errors
/// A message naming what is wrong.
pub fn mma_form(m: &Mma) -> Result<Needs, String> {
    use MmaElem::{Bf16, Tf32, B1, F16, F32, F64, S32};
    use MmaShape::*;
    let Mma {
        shape,
        alayout,
        blayout,
        satfinite,
        d,
        a,
        b,
        c,
        bitop,
        rn,
    } = *m;
    let row_col = alayout == MmaLayout::Row && blayout == MmaLayout::Col;
    let float_dc = |x: MmaElem| matches!(x, F16 | F32);
    let int = a.is_integer();
    let n = if a == F16 && b == F16 && float_dc(d) && float_dc(c) {
        // ptxas: the m16n8 shapes need D and C of one type; m8n8k4 refuses only f16 D with
        // f32 C.
        if d != c && (shape != M8n8k4 || d == F16) {
            return Err(format!(
                "mma.{} has no form with a .{} D and a .{} C",
                shape.name(),
                d.name(),
                c.name()
            ));
        }
        match shape {
            M8n8k4 => needs(6, 4, 70),
            M16n8k8 => needs(6, 5, 75),
            M16n8k16 => needs(7, 0, 80),
            _ => return Err(format!(".f16 mma has no shape .{}", shape.name())),
        }
    } else if a == Bf16 && b == Bf16 && d == F32 && c == F32 {
        match shape {
            M16n8k8 | M16n8k16 => needs(7, 0, 80),
            _ => return Err(format!(".bf16 mma has no shape .{}", shape.name())),
        }
    } else if a == Tf32 && b == Tf32 && d == F32 && c == F32 {
        match shape {
            M16n8k4 | M16n8k8 => needs(7, 0, 80),
            _ => return Err(format!(".tf32 mma has no shape .{}", shape.name())),
        }
    } else if [d, a, b, c] == [F64; 4] {
        match shape {
            M8n8k4 => needs(7, 0, 80),
            M16n8k4 | M16n8k8 | M16n8k16 => needs(7, 8, 90),
            _ => return Err(format!(".f64 mma has no shape .{}", shape.name())),
        }
    } else if is_int8(a) && is_int8(b) && d == S32 && c == S32 {
        match shape {
            M8n8k16 => needs(6, 5, 75),
            M16n8k16 | M16n8k32 => needs(7, 0, 80),
            _ => return Err(format!("8-bit integer mma has no shape .{}", shape.name())),
        }
    } else if is_int4(a) && is_int4(b) && d == S32 && c == S32 {
        match shape {
            M8n8k32 => needs(6, 5, 75),
            M16n8k32 | M16n8k64 => needs(7, 0, 80),
            _ => return Err(format!("4-bit integer mma has no shape .{}", shape.name())),
        }
    } else if a == B1 && b == B1 && d == S32 && c == S32 {
        let Some(op) = bitop else {
            return Err("single-bit mma needs .and.popc or .xor.popc".into());
        };
        let base = match shape {
            M8n8k128 => needs(6, 5, 75),
            M16n8k128 | M16n8k256 => needs(7, 0, 80),
            _ => return Err(format!("single-bit mma has no shape .{}", shape.name())),
        };
        // ptxas refuses `.xor.popc` before PTX ISA 7.0 and `.and.popc` before 7.1.
        match op {
            MmaBitOp::And => needs(7, 1, 80),
            MmaBitOp::Xor => Needs {
                ptx: base.ptx.max(Version::new(7, 0)),
                ..base
            },
        }
    } else if is_fp8(a) && is_fp8(b) && float_dc(d) && d == c {
        match (shape, d) {
            (M16n8k32, F32) => needs(8, 4, 89),
            (M16n8k32 | M16n8k16, _) => needs(8, 7, 89),
            _ => return Err(format!("FP8 mma has no shape .{}", shape.name())),
        }
    } else {
        return Err(format!(
            "mma has no form with types .{}.{}.{}.{}",
            d.name(),
            a.name(),
            b.name(),
            c.name()
        ));
    };
    if !row_col && !m.is_quad_pair() {
        return Err(format!(
            "mma.{} with .{} inputs is .row.col only",
            shape.name(),
            a.name()
        ));
    }
    if satfinite && !int {
        return Err(".satfinite applies to integer mma only".into());
    }
    if bitop.is_some() && a != B1 {
        return Err(".and/.xor.popc apply to single-bit mma only".into());
    }
    if rn && a != F64 {
        return Err(".rn applies to .f64 mma only".into());
    }
    Ok(n)
}

/// The requirements of an `ldmatrix`/`stmatrix` form.
///
/// # Errors
/// A message naming what is wrong.
pub fn move_form(m: &MatrixMove, store: bool) -> Result<Needs, String> {
    let MatrixMove {
        shape,
        num,
        trans,
        space,
        format,
    } = *m;
    let what = if store { "stmatrix" } else { "ldmatrix" };
    if !matches!(space.space, StateSpace::Generic | StateSpace::Shared(_))
        || space.explicit_window && space.space != StateSpace::Shared(crate::ir::SharedWindow::Cta)
    {
        return Err(format!(
            "{what} reads shared memory: .shared or .shared::cta only"
        ));
    }
    let specific = Needs {
        ptx: Version::new(8, 6),
        sm: 100,
        specific: true,
    };
    match (store, shape, format) {
        (false, MatrixShape::M8n8, MatrixFormat::B16) => Ok(needs(6, 5, 75)),
        (true, MatrixShape::M8n8, MatrixFormat::B16) => Ok(needs(7, 8, 90)),
        (false, MatrixShape::M16n16, MatrixFormat::B8 | MatrixFormat::B6x16P32)
        | (false, MatrixShape::M16n16, MatrixFormat::B4x16P64) => {
            if !trans {
                Err("ldmatrix.m16n16 needs .trans".into())
            } else if num == MatrixCount::X4 {
                Err("ldmatrix.m16n16 takes .x1 or .x2".into())
            } else {
                Ok(specific)
            }
        }
        (false, MatrixShape::M8n16, MatrixFormat::B6x16P32 | MatrixFormat::B4x16P64) => {
            if trans {
                Err("ldmatrix.m8n16 has no .trans".into())
            } else {
                Ok(specific)
            }
        }
        (true, MatrixShape::M16n8, MatrixFormat::B8) => {
            if trans {
                Ok(specific)
            } else {
                Err("stmatrix.m16n8 needs .trans".into())
            }
        }
        _ => Err(format!(
            "{what} has no form .{}.{}",
            shape.name(),
            format.name()
        )),
    }
}

/// How many operands a warp-level matrix instruction takes (wmma.load/store: 2 or 3).
pub fn operand_count(w: &WarpMatrix) -> (usize, usize) {
    match w {
        WarpMatrix::Mma(_) | WarpMatrix::WmmaMma(_) => (4, 4),
        WarpMatrix::Ldmatrix(_) | WarpMatrix::Stmatrix(_) | WarpMatrix::Movmatrix => (2, 2),
        WarpMatrix::WmmaLoad(_) | WarpMatrix::WmmaStore(_) => (2, 3),
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
            message,
            span: self.i.span,
        });
    }

    fn reg_bits(&self, r: crate::ir::RegId) -> Option<u32> {
        let info = &self.f.regs[r.index()];
        (info.vec.is_none() && info.ty != Type::Pred).then(|| info.ty.bits())
    }

    /// Operand `k`, a fragment of `n` registers of `bits` bits in braces; `packed` fragments
    /// (elements narrower than 32 bits) may not be `.f32` registers, and immediates are allowed
    /// where `imm` says (ptxas accepts them in C).
    fn fragment(&mut self, k: usize, name: &str, n: u32, bits: u32, packed: bool, imm: bool) {
        let regs: Vec<Option<u32>> = match &self.i.args[k] {
            Operand::Vector(v) => v
                .iter()
                .map(|e| match e {
                    VecElem::Reg(r) => {
                        let float = self.f.regs[r.index()].ty == Type::F32;
                        self.reg_bits(*r).filter(|_| !(packed && float))
                    }
                    VecElem::Imm(_) if imm => Some(bits),
                    VecElem::Sink | VecElem::Imm(_) => None,
                })
                .collect(),
            _ => {
                let what = self.what.clone();
                return self.err(
                    "mma-fragment",
                    format!("`{what}`: {name} must be a vector of {n} registers"),
                );
            }
        };
        let what = self.what.clone();
        if regs.len() as u32 != n {
            self.err(
                "mma-fragment",
                format!(
                    "`{what}`: {name} has {} registers; this shape and type need {n}",
                    regs.len()
                ),
            );
        } else if regs.iter().any(|b| *b != Some(bits)) {
            let kind = if packed { " non-.f32" } else { "" };
            self.err(
                "mma-fragment",
                format!("`{what}`: the registers of {name} must be {bits}-bit{kind} registers"),
            );
        }
    }

    /// Operand `k` of movmatrix: one 32-bit register (`.f32` included), without braces.
    fn scalar(&mut self, k: usize, name: &str) {
        let ok = matches!(&self.i.args[k], Operand::Reg(r) if self.reg_bits(*r) == Some(32));
        if !ok {
            let what = self.what.clone();
            self.err(
                "mma-fragment",
                format!("`{what}`: {name} must be a 32-bit register, without braces"),
            );
        }
    }

    /// The optional stride operand `k` of wmma.load/store: a 32-bit register or an integer.
    fn stride(&mut self, k: usize) {
        let ok = match self.i.args.get(k) {
            None | Some(Operand::Imm(crate::ir::Imm::Int(_))) => true,
            Some(Operand::Reg(r)) => self.reg_bits(*r) == Some(32),
            Some(_) => false,
        };
        if !ok {
            let what = self.what.clone();
            self.err(
                "operand-kind",
                format!("`{what}`: the stride must be a 32-bit register or an integer"),
            );
        }
    }

    fn address(&mut self, k: usize) {
        if !matches!(self.i.args[k], Operand::Address(_)) {
            let what = self.what.clone();
            self.err(
                "operand-kind",
                format!("operand {} of `{what}` must be an address `[...]`", k + 1),
            );
        }
    }
}

/// Checks the operands and qualifier rules of a warp-level matrix instruction whose operand
/// count is right.
pub fn check(f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Op::WarpMatrix(w) = &i.op else {
        return;
    };
    let what = crate::front::printer::mnemonic(&i.op);
    let mut c = Checker { f, i, out, what };
    match w {
        WarpMatrix::Mma(m) => match mma_form(m) {
            Err(e) => c.err("mma-form", e),
            Ok(_) => {
                let [a, b, cc, d] = m.regs();
                let packed = |e: MmaElem| e.bits() < 32;
                c.fragment(0, "D", d, bits(m.d), packed(m.d), false);
                c.fragment(1, "A", a, bits(m.a), packed(m.a), false);
                c.fragment(2, "B", b, bits(m.b), packed(m.b), false);
                c.fragment(3, "C", cc, bits(m.c), packed(m.c), true);
            }
        },
        WarpMatrix::Ldmatrix(m) | WarpMatrix::Stmatrix(m) => {
            let store = matches!(w, WarpMatrix::Stmatrix(_));
            match move_form(m, store) {
                Err(e) => c.err("mma-form", e),
                Ok(_) => {
                    let (v, a) = if store { (1, 0) } else { (0, 1) };
                    // ptxas takes any 32-bit registers here, `.f32` ones included.
                    c.fragment(v, "the register vector", m.regs(), 32, false, false);
                    c.address(a);
                }
            }
        }
        WarpMatrix::Movmatrix => {
            c.scalar(0, "the destination");
            c.scalar(1, "the source");
        }
        WarpMatrix::WmmaLoad(l) => {
            match crate::mma::validate::wmma::wmma_move_form(l.frag, l.shape, l.ty) {
                Err(e) => c.err("mma-form", e),
                Ok(_) if !crate::mma::validate::wmma::wmma_space_ok(l.space) => c.err(
                    "mma-form",
                    "wmma.load reads .global or .shared memory (or generic addresses)".into(),
                ),
                Ok(_) => {
                    let n = crate::ir::mma::wmma_regs(l.frag, l.shape, l.ty);
                    c.fragment(0, "the fragment", n, bits(l.ty), false, false);
                    c.address(1);
                    c.stride(2);
                }
            }
        }
        WarpMatrix::WmmaStore(st) => {
            match crate::mma::validate::wmma::wmma_move_form(WmmaFrag::C, st.shape, st.ty) {
                Err(e) => c.err("mma-form", e),
                Ok(_) if !crate::mma::validate::wmma::wmma_space_ok(st.space) => c.err(
                    "mma-form",
                    "wmma.store writes .global or .shared memory (or generic addresses)".into(),
                ),
                Ok(_) => {
                    let n = crate::ir::mma::wmma_regs(WmmaFrag::C, st.shape, st.ty);
                    c.address(0);
                    c.fragment(1, "the fragment", n, bits(st.ty), false, false);
                    c.stride(2);
                }
            }
        }
        WarpMatrix::WmmaMma(m) => match crate::mma::validate::wmma::wmma_form(m) {
            Err(e) => c.err("mma-form", e),
            Ok(_) => {
                use crate::ir::mma::wmma_regs;
                c.fragment(
                    0,
                    "D",
                    wmma_regs(WmmaFrag::C, m.shape, m.d),
                    bits(m.d),
                    false,
                    false,
                );
                c.fragment(
                    1,
                    "A",
                    wmma_regs(WmmaFrag::A, m.shape, m.a),
                    bits(m.a),
                    false,
                    false,
                );
                c.fragment(
                    2,
                    "B",
                    wmma_regs(WmmaFrag::B, m.shape, m.b),
                    bits(m.b),
                    false,
                    false,
                );
                c.fragment(
                    3,
                    "C",
                    wmma_regs(WmmaFrag::C, m.shape, m.c),
                    bits(m.c),
                    false,
                    false,
                );
            }
        },
    }
}

/// The register width of a fragment of `e`.
fn bits(e: MmaElem) -> u32 {
    if e == MmaElem::F64 {
        64
    } else {
        32
    }
}

/// ptxas refuses the `::cta` window before PTX ISA 7.8.
fn explicit_window(mut n: Needs, space: crate::ir::SpaceQual) -> Needs {
    if space.explicit_window {
        n.ptx = n.ptx.max(Version::new(7, 8));
    }
    n
}

/// The requirements of an instruction, when its form is valid.
fn needs_of(w: &WarpMatrix) -> Option<(&'static str, Needs)> {
    match w {
        WarpMatrix::Mma(m) => mma_form(m).ok().map(|n| ("this mma form", n)),
        WarpMatrix::Ldmatrix(m) | WarpMatrix::Stmatrix(m) => {
            let store = matches!(w, WarpMatrix::Stmatrix(_));
            let n = explicit_window(move_form(m, store).ok()?, m.space);
            let what = if store {
                "this stmatrix form"
            } else {
                "this ldmatrix form"
            };
            Some((what, n))
        }
        WarpMatrix::Movmatrix => Some(("movmatrix", needs(7, 8, 75))),
        WarpMatrix::WmmaLoad(l) => {
            crate::mma::validate::wmma::wmma_move_form(l.frag, l.shape, l.ty)
                .ok()
                .map(|n| ("this wmma.load form", explicit_window(n, l.space)))
        }
        WarpMatrix::WmmaStore(st) => {
            crate::mma::validate::wmma::wmma_move_form(WmmaFrag::C, st.shape, st.ty)
                .ok()
                .map(|n| ("this wmma.store form", explicit_window(n, st.space)))
        }
        WarpMatrix::WmmaMma(m) => crate::mma::validate::wmma::wmma_form(m)
            .ok()
            .map(|n| ("this wmma.mma form", n)),
    }
}

/// Checks a warp-level matrix instruction against the module's `.version` and `.target`.
pub fn check_target(m: &Module, i: &Instr, w: &WarpMatrix, out: &mut Vec<Diagnostic>) {
    let Some((what, n)) = needs_of(w) else {
        return;
    };
    if m.version < n.ptx {
        out.push(Diagnostic {
            rule: "requires-ptx-version",
            message: format!(
                "{what} requires PTX ISA {}.{} or later (the module declares {}.{})",
                n.ptx.major, n.ptx.minor, m.version.major, m.version.minor
            ),
            span: i.span,
        });
    }
    let t = &m.target;
    let ok = t.sm >= n.sm && (!n.specific || t.suffix != ArchSuffix::None);
    if !ok {
        out.push(Diagnostic {
            rule: "requires-target",
            message: format!(
                "{what} requires sm_{}{} or later (the module targets sm_{})",
                n.sm,
                if n.specific { "a" } else { "" },
                t.sm
            ),
            span: i.span,
        });
    }
}
