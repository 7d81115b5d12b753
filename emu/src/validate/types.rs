//! Operation and operand types of `mov` and the arithmetic instructions, as ptxas checks
//! them.
//!
//! An arithmetic operation type says how the bits are read (`.u`, `.s` or a float type), so a
//! bit-size type (`add.b32`) is refused. A register operand must be as wide as the operation
//! type (twice as wide for the `.wide` destination and addend), and of a compatible type: any
//! type for a `.b` operation, `.b`/`.u`/`.s` for an integer one, `.b` or the same type for a
//! float one.

use super::Diagnostic;
use crate::ir::{Function, Instr, MulMode, Op, Operand, Type, TypeClass};

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
pub fn register_compatible(op: Type, reg: Type) -> bool {
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

/// Checks the operation type and the register operands' types of one instruction.
pub fn check(f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Some((ty, wide)) = operation_type(&i.op) else {
        return;
    };
    let mnemonic = crate::front::printer::mnemonic(&i.op);
    if !matches!(i.op, Op::Mov(_)) && matches!(ty.class(), TypeClass::Bits | TypeClass::Pred) {
        out.push(Diagnostic {
            rule: "operation-type",
            message: format!(
                "`{mnemonic}` needs a type that says how its operands are read (.u, .s or a float type), not .{}",
                ty.name()
            ),
            span: i.span,
        });
        return;
    }
    let wide_ty = if wide { widened(ty) } else { None };
    for (k, a) in i.args.iter().enumerate() {
        let Operand::Reg(r) = a else { continue };
        let Some(reg) = f.regs.get(r.index()) else {
            continue;
        };
        // Carry-out and three-input forms keep the operation type; `.wide` widens the
        // destination and mad's addend.
        let want = match (wide_ty, k) {
            (Some(w), 0) => w,
            (Some(w), 3) if matches!(i.op, Op::Mad(_)) => w,
            _ => ty,
        };
        if !register_compatible(want, reg.ty) {
            out.push(Diagnostic {
                rule: "operand-type",
                message: format!(
                    "operand {} of `{mnemonic}` is `{}`, a .{} register; it takes a {}-bit register of type .b{}{}",
                    k + 1,
                    reg.name,
                    reg.ty.name(),
                    want.bits(),
                    want.bits(),
                    match want.class() {
                        TypeClass::Unsigned | TypeClass::Signed =>
                            format!(", .u{0} or .s{0}", want.bits()),
                        TypeClass::Bits => " or any other type of that size".to_string(),
                        _ => format!(" or .{}", want.name()),
                    }
                ),
                span: i.span,
            });
        }
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
        ] {
            let d = diags(body);
            assert!(d.is_empty(), "{body}: {:?}", d);
        }
    }

    #[test]
    fn forms_ptxas_refuses_fail_with_the_rule() {
        // Each refused by ptxas 13.5 ("Unexpected instruction types", "Arguments mismatch").
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
        ] {
            let d = diags(body);
            assert!(d.iter().any(|d| d.rule == rule), "{body}: {:?}", d);
        }
    }
}
