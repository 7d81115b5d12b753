//! Operation and operand types of `mov`, the arithmetic, logic, shift, `setp`, `selp`, `atom`
//! and `red` instructions, and the rounding `cvt` must name, as ptxas checks them.
//!
//! An arithmetic operation type says how the bits are read (`.u`, `.s` or a float type), so a
//! bit-size type (`add.b32`) is refused, and `abs`/`neg` need a signed or float type. A
//! register operand must be as wide as the operation type (twice as wide for the `.wide`
//! destination and addend; a shift amount is 32 bits), and of a compatible type: any type for a
//! `.b` operation, `.b`/`.u`/`.s` for an integer one, `.b` or the same type for a float one.
//! An integer operation takes no float literal and an `.f32`/`.f64` one no integer literal.
//! `!` negates predicates only. Logic operations take bit-size types or `.pred`. A `cvt` from
//! float to integer, integer to float, or float to a narrower float names its rounding.
//! The mixed-precision `add`/`sub`/`fma` (`.f32.f16`, `.f32.bf16`) read their narrow operands
//! from `.b16` registers (or `.f16` ones for `.f16`), never immediates, and `fma` names its
//! rounding.

use super::diagnostic::Diagnostic;
use crate::ir::{Cvt, Function, Imm, Instr, MulMode, Op, Operand, Type, TypeClass};

/// The operation type of `mov` and the arithmetic family, and whether it is a `.wide` form.
fn operation_type(op: &Op) -> Option<(Type, bool)> {
    Some(match op {
        Op::Mov(t) => (*t, false),
        Op::Add(a) | Op::Sub(a) | Op::Fma(a) => (a.ty, false),
        Op::Mul(m) | Op::Mad(m) => (m.arith.ty, m.mode == Some(MulMode::Wide)),
        Op::Mul24(m) | Op::Mad24(m) => (m.ty, false),
        Op::Sad(t) | Op::Rem(t) => (*t, false),
        Op::Div(d) => (d.ty, false),
        Op::Abs(u) | Op::Neg(u) => (u.ty, false),
        Op::Min(m) | Op::Max(m) => (m.ty, false),
        Op::Addc(c) | Op::Subc(c) => (c.ty, false),
        Op::Madc(m) => (m.ty, false),
        _ => return None,
    })
}

/// The integer type twice as wide (`.u32` → `.u64`), for `.wide` results.
fn widened(t: Type) -> Option<Type> {
    Some(match t {
        Type::U16 => Type::U32,
        Type::U32 => Type::U64,
        Type::S16 => Type::S32,
        Type::S32 => Type::S64,
        _ => return None,
    })
}

/// Whether a register of type `reg` may be an operand of an operation of type `op`.
fn register_compatible(op: Type, reg: Type) -> bool {
    use TypeClass as C;
    if op.bits() != reg.bits() {
        return false;
    }
    match (op.class(), reg.class()) {
        (C::Pred, C::Pred) => true,
        (C::Pred, _) | (_, C::Pred) => false,
        (C::Bits, _) | (_, C::Bits) => true,
        (C::Unsigned | C::Signed, C::Unsigned | C::Signed) => true,
        _ => op == reg,
    }
}

/// A conversion that PTX makes name its rounding (`cvt`: float to integer, integer to float,
/// and float to a narrower float).
#[derive(Clone, Copy)]
enum RoundedConversion {
    FloatToInt,
    IntToFloat,
    Narrowing,
}

impl RoundedConversion {
    /// The conversion `c` makes, if it is one that needs a rounding modifier.
    fn of(c: &Cvt) -> Option<RoundedConversion> {
        let float = |t: Type| t.class() == TypeClass::Float;
        let int = |t: Type| matches!(t.class(), TypeClass::Unsigned | TypeClass::Signed);
        if float(c.src) && int(c.dst) {
            Some(RoundedConversion::FloatToInt)
        } else if int(c.src) && float(c.dst) {
            Some(RoundedConversion::IntToFloat)
        } else if (float(c.src) && float(c.dst) && c.dst.bits() < c.src.bits())
            || (c.src == Type::F32 && matches!(c.dst, Type::F16x2 | Type::BF16x2))
        {
            Some(RoundedConversion::Narrowing)
        } else {
            None
        }
    }

    fn what(self) -> &'static str {
        match self {
            RoundedConversion::FloatToInt => "a float to an integer",
            RoundedConversion::IntToFloat => "an integer to a float",
            RoundedConversion::Narrowing => "a float to a narrower float",
        }
    }

    fn roundings(self) -> &'static str {
        match self {
            RoundedConversion::FloatToInt => ".rni, .rzi, .rmi or .rpi",
            RoundedConversion::IntToFloat | RoundedConversion::Narrowing => ".rn, .rz, .rm or .rp",
        }
    }
}

/// The type operand `k` of `op` must have, for the operands checked here.
fn expected(op: &Op, k: usize) -> Option<Type> {
    match op {
        // Destination and data operands (the address is operand 1 of atom, 0 of red).
        Op::Atom(a) if a.vec.is_none() => (k != 1).then_some(a.ty),
        Op::Red(r) if r.vec.is_none() => (k != 0).then_some(r.ty),
        Op::And(t) | Op::Or(t) | Op::Xor(t) | Op::Not(t) | Op::Cnot(t) => Some(*t),
        Op::Shl(t) | Op::Shr(t) => Some(if k < 2 { *t } else { Type::U32 }),
        Op::Setp(s) => (k == 1 || k == 2).then_some(s.ty),
        Op::Selp(t) => (k < 3).then_some(*t),
        Op::AddMixed(m) | Op::SubMixed(m) | Op::FmaMixed(m) => Some(if is_narrow(op, k) {
            m.half.ty()
        } else {
            Type::F32
        }),
        _ => {
            let (ty, wide) = operation_type(op)?;
            let widen = wide && (k == 0 || (k == 3 && matches!(op, Op::Mad(_))));
            Some(if widen { widened(ty)? } else { ty })
        }
    }
}

/// Whether operand `k` of a mixed-precision instruction is one of its narrow (`.f16`/`.bf16`)
/// operands: `a` of `add`/`sub` (`d, a, c`), `a` and `b` of `fma` (`d, a, b, c`).
fn is_narrow(op: &Op, k: usize) -> bool {
    match op {
        Op::FmaMixed(_) => k == 1 || k == 2,
        _ => k == 1,
    }
}

/// The mixed-precision `add`/`sub`/`fma` (PTX 8.6, sm_100): `fma` names its rounding, and the
/// narrow operands are registers (ptxas 13.5: "Rounding modifier required for instruction
/// 'fma'", and "Arguments mismatch" for an immediate narrow operand).
fn check_mixed(i: &Instr, mnemonic: &str, push: &mut dyn FnMut(&'static str, String)) {
    let (Op::AddMixed(m) | Op::SubMixed(m) | Op::FmaMixed(m)) = &i.op else {
        return;
    };
    if matches!(i.op, Op::FmaMixed(_)) && m.rnd.is_none() {
        push(
            "rounding",
            format!("`{mnemonic}` needs a rounding modifier (.rn, .rz, .rm or .rp)"),
        );
    }
    for (k, a) in i.args.iter().enumerate() {
        if is_narrow(&i.op, k) && matches!(a, Operand::Imm(_)) {
            push(
                "operand-type",
                format!(
                    "operand {} of `{mnemonic}` is an immediate; its .{} operands are registers (.b16{})",
                    k + 1,
                    m.half.ty().name(),
                    if m.half.ty() == Type::F16 { " or .f16" } else { "" }
                ),
            );
        }
    }
}

/// Checks the operation type and the operands' types of one instruction.
pub fn check(f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let mnemonic = crate::front::printer::mnemonic(&i.op);
    let mut push = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        })
    };
    negated_predicates(f, i, &mut push);
    // A guard `@p` is a predicate register (lowering reads it as a predicate slot).
    if let Some(g) = i.guard {
        if let Some(reg) = f.regs.get(g.reg.index()).filter(|r| r.ty != Type::Pred) {
            push(
                "operand-type",
                format!(
                    "the guard `@{}` must be a predicate register, not {} .{} register",
                    reg.name,
                    reg.ty.article(),
                    reg.ty.name()
                ),
            );
        }
    }
    predicate_addresses(f, i, &mut push);
    // The truth table of `lop3` is an immediate (PTX ISA "lop3"): lowering reads it as one.
    if matches!(i.op, Op::Lop3) && !matches!(i.args.get(4), Some(Operand::Imm(Imm::Int(_)))) {
        push(
            "lop3-table",
            "the truth table of `lop3` (operand 5) must be an integer constant".into(),
        );
    }
    if let Op::And(t) | Op::Or(t) | Op::Xor(t) | Op::Not(t) | Op::Cnot(t) = i.op {
        if !matches!(t.class(), TypeClass::Bits | TypeClass::Pred) {
            push(
                "operation-type",
                format!(
                    "`{mnemonic}` takes a bit-size type (.b16, .b32, .b64) or .pred, not .{}",
                    t.name()
                ),
            );
            return;
        }
    }
    // `cnot` has no `.pred` form (PTX ISA "cnot"); lowering reads the others only.
    if i.op == Op::Cnot(Type::Pred) {
        push(
            "operation-type",
            "`cnot` takes a bit-size type (.b16, .b32, .b64), not .pred".into(),
        );
        return;
    }
    // `.wide` doubles a 16- or 32-bit integer (PTX ISA "mul", "mad").
    if let Op::Mul(m) | Op::Mad(m) = &i.op {
        if m.mode == Some(MulMode::Wide)
            && m.arith.ty.is_integer()
            && !matches!(m.arith.ty.bits(), 16 | 32)
        {
            push(
                "operation-type",
                format!(
                    "`{mnemonic}` doubles a 16- or 32-bit integer type, not .{}",
                    m.arith.ty.name()
                ),
            );
            return;
        }
    }
    if let Op::Cvt(c) = &i.op {
        check_cvt(f, i, c, &mnemonic, &mut push);
    }
    check_mixed(i, &mnemonic, &mut push);
    if let Some((ty, _)) = operation_type(&i.op) {
        if !matches!(i.op, Op::Mov(_)) && matches!(ty.class(), TypeClass::Bits | TypeClass::Pred) {
            push(
                "operation-type",
                format!(
                    "`{mnemonic}` needs a type that says how its operands are read (.u, .s or a float type), not .{}",
                    ty.name()
                ),
            );
            return;
        }
        if ty == Type::F32x2 {
            check_f32x2(i, &mnemonic, &mut push);
        }
        if let Op::Min(mm) | Op::Max(mm) = &i.op {
            if i.args.len() == 4 && (ty != Type::F32 || mm.relu || mm.xorsign_abs) {
                push(
                    "operand-count",
                    format!("three-input `{mnemonic}` exists for .f32 only, without .relu or .xorsign.abs"),
                );
            }
        }
        if matches!(i.op, Op::Abs(_) | Op::Neg(_)) && ty.class() == TypeClass::Unsigned {
            push(
                "operation-type",
                format!(
                    "`{mnemonic}` applies to signed and float types, not .{}",
                    ty.name()
                ),
            );
            return;
        }
    }
    operand_types(f, i, &mnemonic, &mut push);
}

/// `!` negates only predicate registers.
fn negated_predicates(f: &Function, i: &Instr, push: &mut dyn FnMut(&'static str, String)) {
    for a in &i.args {
        if let Operand::NotPred(r) = a {
            if let Some(reg) = f.regs.get(r.index()).filter(|r| r.ty != Type::Pred) {
                push(
                    "operand-type",
                    format!(
                        "`!` negates a predicate, but `{}` is {} .{} register",
                        reg.name,
                        reg.ty.article(),
                        reg.ty.name()
                    ),
                );
            }
        }
    }
}

/// An address `[r+off]` is based on a value register, never a predicate (lowering reads the
/// base as a value slot).
fn predicate_addresses(f: &Function, i: &Instr, push: &mut dyn FnMut(&'static str, String)) {
    for a in &i.args {
        if let Operand::Address(crate::ir::Address {
            base: crate::ir::AddrBase::Reg(r),
            ..
        }) = a
        {
            if let Some(reg) = f.regs.get(r.index()).filter(|r| r.ty == Type::Pred) {
                push(
                    "operand-type",
                    format!(
                        "an address is based on a register holding an address, but `{}` is a predicate",
                        reg.name
                    ),
                );
            }
        }
    }
}

/// `cvt`'s destination width and rounding-modifier rules.
fn check_cvt(
    f: &Function,
    i: &Instr,
    c: &Cvt,
    mnemonic: &str,
    push: &mut dyn FnMut(&'static str, String),
) {
    // ptxas takes a 64-bit destination for `cvt.rn.f16x2.f32` but not for `.bf16x2`.
    if let (Type::BF16x2, Type::F32, Some(Operand::Reg(r))) = (c.dst, c.src, i.args.first()) {
        if f.regs.get(r.index()).is_some_and(|r| r.ty.bits() != 32) {
            push(
                "operand-type",
                format!("the destination of `{mnemonic}` must be a 32-bit register"),
            );
        }
    }
    if let Some(conv) = RoundedConversion::of(c).filter(|_| c.rnd.is_none()) {
        push(
            "cvt-rounding",
            format!(
                "`{mnemonic}` converts {}, so it needs a rounding modifier ({})",
                conv.what(),
                conv.roundings()
            ),
        );
    }
}

/// Each operand's register type, kind and literal form against what the opcode takes there.
fn operand_types(
    f: &Function,
    i: &Instr,
    mnemonic: &str,
    push: &mut dyn FnMut(&'static str, String),
) {
    for (k, a) in i.args.iter().enumerate() {
        let Some(want) = expected(&i.op, k) else {
            continue;
        };
        match a {
            Operand::Reg(r) => {
                let Some(reg) = f.regs.get(r.index()) else {
                    continue;
                };
                if !register_compatible(want, reg.ty) {
                    push(
                        "operand-type",
                        format!(
                            "operand {} of `{mnemonic}` is `{}`, {} .{} register; it takes {} {}-bit register of type .b{}{}",
                            k + 1,
                            reg.name,
                            reg.ty.article(),
                            reg.ty.name(),
                            Type::bits_article(want.bits()),
                            want.bits(),
                            want.bits(),
                            match want.class() {
                                TypeClass::Unsigned | TypeClass::Signed =>
                                    format!(", .u{0} or .s{0}", want.bits()),
                                TypeClass::Bits => " or any other type of that size".to_string(),
                                _ => format!(" or .{}", want.name()),
                            }
                        ),
                    );
                }
            }
            Operand::Vector(_) if !matches!(i.op, Op::Mov(_)) => push(
                "operand-kind",
                format!("operand {} of `{mnemonic}` is a vector; `{mnemonic}` takes none", k + 1),
            ),
            Operand::Imm(Imm::Int(_)) if matches!(want, Type::F32 | Type::F64) => push(
                "operand-type",
                format!(
                    "operand {} of `{mnemonic}` is an integer literal; {} .{} operand is written as a float (1.0, 0f3F800000)",
                    k + 1,
                    want.article(),
                    want.name()
                ),
            ),
            Operand::Imm(Imm::Float(_))
                if matches!(want.class(), TypeClass::Unsigned | TypeClass::Signed) =>
            {
                push(
                    "operand-type",
                    format!(
                        "operand {} of `{mnemonic}` is a float literal; {} .{} operand takes an integer",
                        k + 1,
                        want.article(),
                        want.name()
                    ),
                )
            }
            _ => {}
        }
    }
}

/// `.f32x2` (PTX 8.6, sm_100) exists for `add`, `sub`, `mul` and `fma` only, takes no `.sat`
/// and no immediate operand (ptxas: "Illegal modifier '.sat'", "Arguments mismatch").
fn check_f32x2(i: &Instr, mnemonic: &str, push: &mut dyn FnMut(&'static str, String)) {
    let sat = match &i.op {
        Op::Add(a) | Op::Sub(a) | Op::Fma(a) => a.sat,
        Op::Mul(m) => m.arith.sat,
        _ => {
            push(
                "operation-type",
                format!("`{mnemonic}` has no .f32x2 form (only add, sub, mul and fma do)"),
            );
            return;
        }
    };
    if sat {
        push("modifier", format!("`{mnemonic}` takes no .sat on .f32x2"));
    }
    if let Op::Fma(a) = &i.op {
        if a.rnd.is_none() {
            push(
                "rounding",
                "`fma.f32x2` needs a rounding modifier (.rn, .rz, .rm or .rp)".into(),
            );
        }
    }
    if i.args.iter().any(|a| matches!(a, Operand::Imm(_))) {
        push(
            "operand-type",
            format!("`{mnemonic}` takes .b64 registers only; an immediate is not a .f32x2 operand"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diags(body: &str) -> Vec<Diagnostic> {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<4>;\n.reg .u32 %u<4>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n\
             .reg .b16 %h<4>;\n.reg .pred %p<2>;\n{body}\nret;\n}}\n"
        );
        let m = crate::front::parse_module(&src, "t.ptx").expect("parses");
        crate::validate::validate_module(&m)
    }

    #[test]
    fn lop3_takes_a_constant_truth_table() {
        assert!(diags("lop3.b32 %r1, %r2, %r3, %r0, 0x96;").is_empty());
        let d = diags("lop3.b32 %r1, %r2, %r3, %r0, %r1;");
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].rule, "lop3-table");
        assert_eq!(d[0].span.line, 12);
    }

    #[test]
    fn forms_ptxas_accepts_pass() {
        for body in [
            "add.s32 %r1, %r2, %r3;",
            "add.f32 %r1, %r2, %r3;",
            "add.u32 %u1, %r2, %u3;",
            "mov.b32 %r1, %f1;",
            "mov.f32 %f1, %r1;",
            "mov.b32 %r1, 5;",
            "mov.b64 %rd1, {%r1,%r2};",
            "mov.pred %p1, %p0;",
            "mul.wide.u32 %rd1, %r2, %r3;",
            "mad.wide.s32 %rd1, %r2, %r3, %rd2;",
            "add.f16 %h1, %h2, %h3;",
            "neg.f32 %f1, %f2;",
            "min.u32 %r1, %u2, 7;",
            "and.b32 %r1, %f1, 3;",
            "shl.b64 %rd1, %rd2, %r1;",
            "shr.s32 %r1, %r2, 3;",
            "setp.lt.f32 %p1, %f1, 0f00000000;",
            "selp.b32 %r1, %r2, 7, %p1;",
            "add.f32 %f1, %f2, 1.0;",
            "mov.b32 %r1, 0f3F800000;",
            "not.pred %p1, %p0;",
            "selp.f32 %f1, %f2, %f3, !%p0;",
            "and.pred %p1, %p0, !%p0;",
            "setp.eq.u32 %p1, %u1, 7;",
            "abs.s32 %r1, %r2;",
            "shr.u16 %h1, %h2, 3;",
            "cnot.b32 %r1, %r2;",
            "setp.ne.b16 %p1, %h1, 0;",
            "cvt.rzi.u32.f32 %r1, %f1;",
            "cvt.rn.f32.s32 %f1, %r1;",
            "cvt.f64.f32 %rd1, %f1;",
            "cvt.u32.u64 %r1, %rd1;",
            "cvt.rni.f32.f32 %f1, %f2;",
            "cvt.rna.tf32.f32 %r1, %f1;",
            "cvt.f32.f16 %f1, %h1;",
            "cvt.s8.s32 %h1, %r1;",
            "atom.global.cas.b32 %r1, [%rd1], %f1, %r3;",
            "atom.global.add.f32 %r1, [%rd1], %f1;",
        ] {
            let d = diags(body);
            assert!(d.is_empty(), "{body}: {:?}", d);
        }
    }

    #[test]
    fn forms_ptxas_refuses_fail_with_the_rule() {
        // Each refused by ptxas 13.5 ("Unexpected instruction types", "Arguments mismatch",
        // "applies only to signed numeric types", "Illegal argument to predicate negation",
        // "Rounding modifier required").
        for (body, rule) in [
            ("add.b32 %r1, %r2, %r3;", "operation-type"),
            ("div.b32 %r1, %r2, %r3;", "operation-type"),
            ("mad.lo.b32 %r1, %r2, %r3, %r1;", "operation-type"),
            ("neg.b32 %r1, %r2;", "operation-type"),
            ("mov.u32 %r1, %f1;", "operand-type"),
            ("mov.b64 %rd1, %f1;", "operand-type"),
            ("mov.u16 %r1, %r2;", "operand-type"),
            ("mov.u64 %rd1, %r1;", "operand-type"),
            ("add.u32 %rd1, %r2, %r3;", "operand-type"),
            ("add.u32 %r1, %rd2, %r3;", "operand-type"),
            ("add.u16 %r1, %r2, %r3;", "operand-type"),
            ("mul.wide.u32 %r1, %r2, %r3;", "operand-type"),
            ("and.b16 %r2, %r1, 876;", "operand-type"),
            ("shl.b16 %r1, %r1, 2;", "operand-type"),
            ("setp.eq.u64 %p1, %r1, 1;", "operand-type"),
            ("setp.le.s32 %p1, %r1, %p0;", "operand-type"),
            ("xor.b64 %r1, %r2, %r3;", "operand-type"),
            ("fma.rn.f32 %f1, %f2, %f3, 5;", "operand-type"),
            ("mov.f32 %f1, 128;", "operand-type"),
            ("mul.lo.s32 %r1, %r2, -1.5;", "operand-type"),
            ("abs.u32 %r1, %r2;", "operation-type"),
            ("neg.u64 %rd1, %rd2;", "operation-type"),
            ("add.s32 %r1, %r2, !%r3;", "operand-type"),
            ("shl.b32 %r1, %r2, %rd1;", "operand-type"),
            ("add.f32 %f1, %f2, 1;", "operand-type"),
            ("selp.u32 %r1, 1.5, 2, %p0;", "operand-type"),
            ("cvt.u32.f32 %r1, %f1;", "cvt-rounding"),
            ("cvt.f32.s32 %f1, %r1;", "cvt-rounding"),
            ("cvt.f64.s32 %rd1, %r1;", "cvt-rounding"),
            ("cvt.bf16.f32 %h1, %f1;", "cvt-rounding"),
            ("not.u32 %r1, %r2;", "operation-type"),
            ("and.u32 %r1, %r2, %r3;", "operation-type"),
            ("xor.s32 %r1, %r2, %r3;", "operation-type"),
            ("cnot.u32 %r1, %r2;", "operation-type"),
            ("atom.global.add.u64 %r1, [%rd1], 1;", "operand-type"),
            (
                "atom.global.cas.b32 %r1, [%rd1], %rd2, %r3;",
                "operand-type",
            ),
            ("atom.global.exch.b64 %rd1, [%rd1], %r2;", "operand-type"),
            ("red.global.add.u64 [%rd1], %r1;", "operand-type"),
        ] {
            let d = diags(body);
            assert!(d.iter().any(|d| d.rule == rule), "{body}: {:?}", d);
        }
    }
}
