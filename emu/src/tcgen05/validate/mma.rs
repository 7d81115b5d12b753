//! The rules of `tcgen05.mma` (and `.ws`) and `tcgen05.commit` (PTX ISA "tcgen05.mma",
//! "tcgen05.commit"): the operand forms of each variant, the size of `disable-output-lane`
//! (4 registers for `.cta_group::1`, 8 for `::2`), the range of `scale-input-d`, `.ws` only with
//! `.cta_group::1`, the collector buffer of each form, `ctaMask` exactly with
//! `.multicast::cluster`, and the targets. Where ptxas is stricter or looser than the ISA text
//! the rule follows ptxas (tests/ptxas/tcgen05_mma.tsv holds its verdicts).
//!
//! The instruction descriptor is a run-time value; it is decoded, and its reserved or
//! contradictory fields reported, when the instruction executes.

use crate::ir::{
    AddrBase, CollectorBuffer, CtaGroup, Function, Imm, Instr, Operand, Tcgen05, Tcgen05Commit,
    Tcgen05Mma, Type, VecElem,
};
use crate::validate::diagnostic::Diagnostic;

/// The fewest and most operands of a `tcgen05.mma` or `tcgen05.commit` (`None` for the other
/// tcgen05 instructions).
pub fn arity(t: &Tcgen05) -> Option<(usize, usize)> {
    match t {
        Tcgen05::Mma(m) if m.scale_vec.is_some() => Some((7, 7)),
        Tcgen05::Mma(m) if m.ws => Some((5, 6)),
        Tcgen05::Mma(_) => Some((5, 7)),
        Tcgen05::Commit(c) if c.multicast => Some((2, 2)),
        Tcgen05::Commit(_) => Some((1, 1)),
        _ => None,
    }
}

struct Checker<'a> {
    f: &'a Function,
    i: &'a Instr,
    what: String,
    out: &'a mut Vec<Diagnostic>,
}

impl Checker<'_> {
    fn err(&mut self, rule: &'static str, message: String) {
        self.out.push(Diagnostic {
            rule,
            message: format!("`{}`: {message}", self.what),
            span: self.i.span,
        });
    }

    fn reg_ty(&self, o: &Operand) -> Option<Type> {
        match o {
            Operand::Reg(r) => {
                let info = &self.f.regs[r.index()];
                info.vec.is_none().then_some(info.ty)
            }
            _ => None,
        }
    }

    fn is_int(&self, o: &Operand, bits: u32) -> bool {
        match self.reg_ty(o) {
            Some(t) => match bits {
                32 => matches!(t, Type::B32 | Type::U32 | Type::S32),
                64 => matches!(t, Type::B64 | Type::U64 | Type::S64),
                _ => matches!(t, Type::B16 | Type::U16 | Type::S16),
            },
            None => false,
        }
    }

    /// `[reg]`/`[reg+imm]` with a 32-bit register (a Tensor Memory address).
    fn tmem(&self, o: &Operand) -> bool {
        matches!(o, Operand::Address(a) if matches!(a.base, AddrBase::Reg(r) if self.is_int(&Operand::Reg(r), 32)))
    }

    fn need(&mut self, ok: bool, what: &str) {
        if !ok {
            self.err("operand-kind", what.to_string());
        }
    }

    fn mma(&mut self, m: &Tcgen05Mma) {
        let a = &self.i.args;
        if m.ws && m.group == CtaGroup::Two {
            self.err(
                "tcgen05-mma-ws",
                "`.ws` takes only .cta_group::1 (ptxas: illegal modifier)".into(),
            );
        }
        if m.ws && m.kind.block_scaled() {
            self.err(
                "tcgen05-mma-ws",
                format!(
                    "`.ws` does not take the block-scaled .kind::{}",
                    m.kind.name()
                ),
            );
        }
        if let Some(c) = m.collector {
            let ok = match c.buffer {
                CollectorBuffer::A => !m.ws,
                // Without .ws: a PTX ISA 9.4 feature (check_target).
                CollectorBuffer::B(_) => true,
            };
            if !ok {
                self.err(
                    "tcgen05-mma-collector",
                    format!(
                        ".{} is not allowed with .ws (which takes collector buffers b0..b3)",
                        c.name()
                    ),
                );
            }
        }
        self.need(
            self.tmem(&a[0]),
            "D must be a Tensor Memory address `[reg]` with a 32-bit register",
        );
        self.need(
            self.is_int(&a[1], 64) || self.tmem(&a[1]),
            "A must be a 64-bit shared-memory descriptor register or a Tensor Memory address `[reg]`",
        );
        self.need(
            self.is_int(&a[2], 64),
            "B must be a 64-bit shared-memory descriptor register",
        );
        self.need(
            self.is_int(&a[3], 32) || matches!(a[3], Operand::Imm(Imm::Int(_))),
            "the instruction descriptor must be a 32-bit register or a constant",
        );
        let mut k = 4;
        if m.scale_vec.is_some() {
            self.need(
                self.tmem(&a[4]) && self.tmem(&a[5]),
                "the scale factors must be Tensor Memory addresses `[reg]`",
            );
            k = 6;
        } else if let Operand::Vector(v) = &a[4] {
            let want = if m.group == CtaGroup::One { 4 } else { 8 };
            let regs = v
                .iter()
                .all(|e| matches!(e, VecElem::Reg(r) if self.is_int(&Operand::Reg(*r), 32)));
            if m.ws || v.len() != want || !regs {
                self.err(
                    "operand-kind",
                    format!("disable-output-lane must be {want} 32-bit registers for .{} (and is not taken by .ws)", m.group.name()),
                );
            }
            k = 5;
        }
        let Some(enable) = a.get(k) else {
            self.err("operand-count", "enable-input-d is missing".into());
            return;
        };
        let pred =
            self.reg_ty(enable) == Some(Type::Pred) || matches!(enable, Operand::Imm(Imm::Int(_)));
        self.need(pred, "enable-input-d must be a predicate or a constant");
        if let Some(last) = a.get(k + 1) {
            if m.ws {
                self.need(
                    self.is_int(last, 64),
                    "zero-column-mask-desc must be a 64-bit register",
                );
            } else {
                match last {
                    Operand::Imm(Imm::Int(_)) if m.kind == crate::ir::MmaKind::F8f6f4 => self.err(
                        "operand-kind",
                        "scale-input-d is not taken by .kind::f8f6f4 (ptxas: arguments mismatch)"
                            .into(),
                    ),
                    Operand::Imm(Imm::Int(v)) if (0..=15).contains(v) => {}
                    _ => self.err(
                        "operand-kind",
                        "scale-input-d must be a constant from 0 to 15".into(),
                    ),
                }
            }
        }
        if a.len() > k + 2 {
            self.err("operand-count", "too many operands".into());
        }
    }

    fn commit(&mut self, c: &Tcgen05Commit) {
        let a = &self.i.args;
        let addr_ok = match &a[0] {
            Operand::Address(x) => match x.base {
                AddrBase::Reg(r) => {
                    self.is_int(&Operand::Reg(r), 64) || self.is_int(&Operand::Reg(r), 32)
                }
                AddrBase::Var(_) => true,
                AddrBase::None => false,
            },
            _ => false,
        };
        self.need(
            addr_ok,
            "the mbarrier must be an address `[reg]` or `[var]`",
        );
        if c.multicast {
            let mask_ok = self.is_int(&a[1], 16) || matches!(a[1], Operand::Imm(Imm::Int(_)));
            self.need(mask_ok, "ctaMask must be a 16-bit register or a constant");
        }
    }
}

/// Checks the operands of a `tcgen05.mma`/`tcgen05.commit` whose count [`arity`] accepted.
pub fn check(f: &Function, i: &Instr, t: &Tcgen05, out: &mut Vec<Diagnostic>) {
    let what = crate::front::printer::mnemonic(&i.op);
    let mut c = Checker { f, i, what, out };
    match t {
        Tcgen05::Mma(m) => c.mma(m),
        Tcgen05::Commit(x) => c.commit(x),
        _ => {}
    }
}

/// The target rules ptxas 13.5 applies to `tcgen05.mma` beyond tcgen05's own (recorded in
/// tests/ptxas/tcgen05_mma.tsv): `.kind::i8` only on sm_100a and sm_110a; an explicit
/// `.scale_vec::NX` not on family (`f`) targets; `.block16`/`.block32` from PTX ISA 8.8; `.kind::mxf4nvf4` from PTX ISA 8.7;
/// `scale-input-d` not on sm_110 (except with `.kind::i8`); collector buffers `b0..b3` without `.ws` from PTX ISA 9.4.
pub fn check_target(m: &crate::ir::Module, i: &Instr, t: &Tcgen05, out: &mut Vec<Diagnostic>) {
    use crate::ir::{ArchSuffix, Version};
    let Tcgen05::Mma(x) = t else {
        return;
    };
    let tg = &m.target;
    let mut err = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        })
    };
    let name = format!("tcgen05.mma.kind::{}", x.kind.name());
    if x.kind == crate::ir::MmaKind::I8
        && !(tg.suffix == ArchSuffix::Arch && matches!(tg.sm, 100 | 110))
    {
        err(
            "requires-target",
            format!("{name} requires sm_100a or sm_110a"),
        );
    }
    if x.scale_vec_written && tg.suffix == ArchSuffix::Family {
        err(
            "requires-target",
            format!("{name} with an explicit .scale_vec is not supported on family (`f`) targets"),
        );
    }
    if x.block_alias && m.version < Version::new(8, 8) {
        err(
            "requires-ptx-version",
            format!("{name} with .block16/.block32 requires PTX ISA 8.8 or later"),
        );
    }
    if x.kind == crate::ir::MmaKind::MxF4Nvf4 && m.version < Version::new(8, 7) {
        err(
            "requires-ptx-version",
            format!("{name} requires PTX ISA 8.7 or later"),
        );
    }
    let n = i.args.len();
    let scale_input_d = !x.ws
        && x.scale_vec.is_none()
        && (n == 7 || (n == 6 && !matches!(i.args[4], Operand::Vector(_))));
    if tg.sm == 110 && scale_input_d && x.kind != crate::ir::MmaKind::I8 {
        err(
            "requires-target",
            format!("{name}: scale-input-d is not supported on sm_110"),
        );
    }
    let b_buffer = matches!(x.collector, Some(c) if matches!(c.buffer, CollectorBuffer::B(_)));
    if b_buffer && !x.ws && m.version < Version::new(9, 4) {
        err(
            "requires-ptx-version",
            format!("{name} with a collector buffer b0..b3 and without .ws requires PTX ISA 9.4 or later"),
        );
    }
}
