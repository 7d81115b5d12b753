//! The rules of the `tcgen05` instructions ptxemu executes (PTX ISA "Tensorcore 5th Generation
//! Instructions": tcgen05.alloc/dealloc/relinquish_alloc_permit, tcgen05.ld, tcgen05.st,
//! tcgen05.wait, tcgen05.fence, tcgen05.shift): operand forms, the vector size each shape and
//! `.num` need, the `.num` limit per shape, what `.red` allows, constant `nCols` and
//! `immHalfSplitoff`, and the PTX ISA versions and targets ("PTX ISA Notes", "Target ISA
//! Notes").
//!
//! Where NVIDIA's ptxas is stricter or looser than the ISA text, the rule follows ptxas and says
//! so; tests/ptxas/tcgen05.tsv holds the recorded verdicts these rules are checked against.

pub mod cp;
pub mod group;
pub mod mma;

use crate::ir::{
    ArchSuffix, Function, Imm, Instr, Module, Op, Operand, Target, Tcgen05, Tcgen05Ld, Tcgen05St,
    TmemShape, Type, VecElem, Version,
};
use crate::validate::diagnostic::Diagnostic;

struct Checker<'a> {
    f: &'a Function,
    i: &'a Instr,
    out: &'a mut Vec<Diagnostic>,
}

impl Checker<'_> {
    fn err(&mut self, rule: &'static str, message: String) {
        self.out.push(Diagnostic {
            rule,
            message,
            span: self.i.span,
        });
    }

    fn is_b32_reg(&self, o: &Operand) -> bool {
        match o {
            Operand::Reg(r) => {
                let info = &self.f.regs[r.index()];
                info.vec.is_none() && is_32_bit(info.ty)
            }
            _ => false,
        }
    }

    /// A 32-bit register that is not `.f32` (ptxas refuses float registers for `nCols` and
    /// `taddr`).
    fn is_int32_reg(&self, o: &Operand) -> bool {
        self.is_b32_reg(o) && matches!(o, Operand::Reg(r) if self.f.regs[r.index()].ty != Type::F32)
    }

    /// `nCols`: a 32-bit register, or a constant power of two in [32, 512].
    fn ncols(&mut self, o: &Operand, what: &str) {
        match o {
            Operand::Imm(Imm::Int(n)) => {
                if !(32..=512).contains(n) || n.count_ones() != 1 {
                    self.err(
                        "tcgen05-ncols",
                        format!("`{what}`: nCols must be a power of two from 32 to 512, found {n}"),
                    );
                }
            }
            o if self.is_int32_reg(o) => {}
            _ => self.err(
                "operand-kind",
                format!("`{what}`: nCols must be a 32-bit integer register or a constant"),
            ),
        }
    }

    /// `taddr` in brackets: a 32-bit register with an optional constant offset.
    fn tmem_address(&mut self, o: &Operand, what: &str) {
        let ok = match o {
            Operand::Address(a) => match a.base {
                crate::ir::AddrBase::Reg(r) => self.is_int32_reg(&Operand::Reg(r)),
                crate::ir::AddrBase::Var(_) | crate::ir::AddrBase::None => false,
            },
            _ => false,
        };
        if !ok {
            self.err(
                "operand-kind",
                format!("`{what}`: the Tensor Memory address must be `[reg]` or `[reg+imm]` with a 32-bit register"),
            );
        }
    }

    fn split_offset(&mut self, o: &Operand, what: &str) {
        if !matches!(o, Operand::Imm(Imm::Int(_))) {
            self.err(
                "tcgen05-imm-half-splitoff",
                format!("`{what}`: immHalfSplitoff must be a constant"),
            );
        }
    }

    /// The brace vector of 32-bit registers, exactly `want` of them.
    fn registers(&mut self, o: &Operand, want: u32, what: &str) {
        let Operand::Vector(v) = o else {
            self.err(
                "operand-kind",
                format!("`{what}`: the data must be a brace-enclosed vector of registers"),
            );
            return;
        };
        if v.len() != want as usize {
            self.err(
                "tcgen05-vector-size",
                format!(
                    "`{what}` moves {want} register(s) per thread, the vector has {}",
                    v.len()
                ),
            );
            return;
        }
        let bad = v.iter().any(|e| match e {
            VecElem::Reg(r) => {
                let info = &self.f.regs[r.index()];
                info.vec.is_some() || !is_32_bit(info.ty)
            }
            VecElem::Sink | VecElem::Imm(_) => true,
        });
        if bad {
            self.err(
                "operand-type",
                format!("`{what}`: every element of the vector must be a 32-bit register"),
            );
        }
    }

    fn num(&mut self, shape: TmemShape, num: u32, what: &str) {
        if !shape.num_ok(num) {
            self.err(
                "tcgen05-num",
                format!(
                    "`{what}`: .x{num} is too many repeats for .{} (at most .x{})",
                    shape.name(),
                    shape.max_num()
                ),
            );
        }
    }

    fn ld(&mut self, l: &Tcgen05Ld, what: &str) {
        let Tcgen05Ld {
            shape,
            num,
            pack,
            red,
        } = *l;
        let split = shape == TmemShape::S16x32bx2;
        let base = 2 + usize::from(red.is_some());
        let args = &self.i.args;
        self.num(shape, num.count(), what);
        self.registers(&args[0], shape.regs(num.count()), what);
        if let Operand::Vector(v) = &args[0] {
            let regs: Vec<_> = v
                .iter()
                .filter_map(|e| match e {
                    VecElem::Reg(r) => Some(*r),
                    VecElem::Sink | VecElem::Imm(_) => None,
                })
                .collect();
            let repeated = regs
                .iter()
                .enumerate()
                .find(|(k, r)| regs[..*k].contains(r));
            if let Some((_, r)) = repeated {
                self.err(
                    "tcgen05-distinct-registers",
                    format!(
                        "`{what}` loads register {} twice",
                        self.f.regs[r.index()].name
                    ),
                );
            }
        }
        if red.is_some() {
            if !self.is_b32_reg(&args[1]) {
                self.err(
                    "operand-kind",
                    format!("`{what}`: redval must be a 32-bit register"),
                );
            }
            // redval is a destination too: it may not be one of the loaded registers.
            if let (Operand::Reg(rv), Operand::Vector(v)) = (&args[1], &args[0]) {
                if v.contains(&VecElem::Reg(*rv)) {
                    self.err(
                        "tcgen05-distinct-registers",
                        format!(
                            "`{what}`: redval {} is also one of the loaded registers",
                            self.f.regs[rv.index()].name
                        ),
                    );
                }
            }
            if !matches!(shape, TmemShape::S32x32b | TmemShape::S16x32bx2) {
                self.err(
                    "tcgen05-red-shape",
                    format!(
                        "`{what}`: .red takes only .32x32b and .16x32bx2, not .{}",
                        shape.name()
                    ),
                );
            }
            if num.count() < 2 {
                self.err(
                    "tcgen05-red-num",
                    format!("`{what}`: .red needs at least .x2"),
                );
            }
            if pack {
                self.err(
                    "tcgen05-red-pack",
                    format!("`{what}`: .red cannot be combined with .pack::16b"),
                );
            }
        }
        self.tmem_address(&args[base - 1], what);
        if split {
            self.split_offset(&args[base], what);
        }
    }

    fn st(&mut self, s: &Tcgen05St, what: &str) {
        let Tcgen05St { shape, num, .. } = *s;
        let split = usize::from(shape == TmemShape::S16x32bx2);
        let args = &self.i.args;
        self.num(shape, num.count(), what);
        self.tmem_address(&args[0], what);
        if split == 1 {
            self.split_offset(&args[1], what);
        }
        self.registers(&args[1 + split], shape.regs(num.count()), what);
    }
}

fn is_32_bit(t: Type) -> bool {
    matches!(t, Type::B32 | Type::U32 | Type::S32 | Type::F32)
}

/// How many operands a `tcgen05` instruction takes.
pub fn operand_count(t: &Tcgen05) -> usize {
    let split = |shape| usize::from(shape == TmemShape::S16x32bx2);
    match t {
        Tcgen05::Alloc(_) | Tcgen05::Dealloc(_) => 2,
        Tcgen05::Relinquish(_) | Tcgen05::Wait(_) | Tcgen05::Fence(_) => 0,
        Tcgen05::Shift(_) => 1,
        Tcgen05::Cp(_) => 2,
        Tcgen05::Ld(l) => 2 + usize::from(l.red.is_some()) + split(l.shape),
        Tcgen05::St(s) => 2 + split(s.shape),
        // Variable: see validate::mma::arity.
        Tcgen05::Mma(_) | Tcgen05::Commit(_) => 0,
    }
}

/// Checks the operands and qualifier rules of a `tcgen05` instruction whose operand count is
/// right ([`operand_count`]); other instructions are left alone.
pub fn check(f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Op::Tcgen05(t) = &i.op else {
        return;
    };
    if matches!(t, Tcgen05::Mma(_) | Tcgen05::Commit(_)) {
        return crate::tcgen05::validate::mma::check(f, i, t, out);
    }
    let what = crate::front::printer::mnemonic(&i.op);
    let mut c = Checker { f, i, out };
    match t {
        Tcgen05::Alloc(_) => {
            if !matches!(i.args[0], Operand::Address(_)) {
                c.err(
                    "operand-kind",
                    format!("`{what}`: the destination must be a shared-memory address `[...]`"),
                );
            }
            c.ncols(&i.args[1], &what);
        }
        Tcgen05::Dealloc(_) => {
            if !c.is_int32_reg(&i.args[0]) && !matches!(i.args[0], Operand::Imm(Imm::Int(_))) {
                c.err(
                    "operand-kind",
                    format!("`{what}`: taddr must be a 32-bit integer register or a constant"),
                );
            }
            c.ncols(&i.args[1], &what);
        }
        Tcgen05::Relinquish(_) | Tcgen05::Wait(_) | Tcgen05::Fence(_) => {}
        Tcgen05::Cp(cp) => crate::tcgen05::validate::cp::check(f, i, cp, &what, c.out),
        Tcgen05::Ld(l) => c.ld(l, &what),
        Tcgen05::St(s) => c.st(s, &what),
        Tcgen05::Mma(_) | Tcgen05::Commit(_) => {}
        Tcgen05::Shift(_) => {
            // ptxas also takes (and crashes on) an immediate address `[16]`.
            let immediate =
                matches!(&i.args[0], Operand::Address(a) if a.base == crate::ir::AddrBase::None);
            if !immediate {
                c.tmem_address(&i.args[0], &what);
            }
        }
    }
}

/// Architectures with Tensor Memory: sm_100 (B200), sm_101 (renamed sm_110 from PTX ISA 9.0),
/// sm_103 (B300), sm_110, each with its `a` or `f` suffix.
fn has_tcgen05(t: &Target) -> bool {
    matches!(t.suffix, ArchSuffix::Arch | ArchSuffix::Family)
        && matches!(t.sm, 100 | 101 | 103 | 110)
}

/// `tcgen05.ld.red` lacks sm_100a/f.
fn has_ld_red(t: &Target) -> bool {
    has_tcgen05(t) && t.sm != 100
}

/// Checks a `tcgen05` instruction against the module's `.version` and `.target` (the module
/// declares both).
pub fn check_target(m: &Module, i: &Instr, t: &Tcgen05, out: &mut Vec<Diagnostic>) {
    crate::tcgen05::validate::mma::check_target(m, i, t, out);
    let red = matches!(t, Tcgen05::Ld(l) if l.red.is_some());
    let shift = matches!(t, Tcgen05::Shift(_));
    let (what, version, ok, targets) = if shift {
        // ptxas refuses tcgen05.shift on every family (`f`) target.
        (
            "tcgen05.shift",
            Version::new(8, 6),
            has_tcgen05(&m.target) && m.target.suffix == ArchSuffix::Arch,
            "sm_100a, sm_101a, sm_103a or sm_110a",
        )
    } else if red {
        (
            "tcgen05.ld.red",
            Version::new(8, 8),
            has_ld_red(&m.target),
            "sm_101a, sm_103a/f or sm_110a/f",
        )
    } else {
        (
            "tcgen05",
            Version::new(8, 6),
            has_tcgen05(&m.target),
            "sm_100a/f, sm_101a, sm_103a/f or sm_110a/f",
        )
    };
    if m.version < version {
        out.push(Diagnostic {
            rule: "requires-ptx-version",
            message: format!(
                "{what} requires PTX ISA {}.{} or later (the module declares {}.{})",
                version.major, version.minor, m.version.major, m.version.minor
            ),
            span: i.span,
        });
    }
    if !ok {
        out.push(Diagnostic {
            rule: "requires-target",
            message: format!(
                "{what} requires {targets} (the module targets {})",
                target_name(&m.target)
            ),
            span: i.span,
        });
    }
}

fn target_name(t: &Target) -> String {
    let s = match t.suffix {
        ArchSuffix::None => "",
        ArchSuffix::Arch => "a",
        ArchSuffix::Family => "f",
    };
    format!("sm_{}{s}", t.sm)
}
