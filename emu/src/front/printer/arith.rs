//! Mnemonics of the arithmetic, bit-manipulation, floating-point and comparison instructions.

use crate::ir::*;

use super::qual::*;

/// Writes the mnemonic of an instruction of the integer and floating-point arithmetic group; other opcodes write nothing.
pub(super) fn int(o: &mut String, op: &Op) {
    match op {
        Op::Add(a) => {
            o.push_str("add");
            arith(o, a);
        }
        Op::Sub(a) => {
            o.push_str("sub");
            arith(o, a);
        }
        Op::Mul(mm) | Op::Mad(mm) => {
            o.push_str(if matches!(op, Op::Mul(_)) {
                "mul"
            } else {
                "mad"
            });
            if let Some(md) = mm.mode {
                q(
                    o,
                    match md {
                        MulMode::Lo => "lo",
                        MulMode::Hi => "hi",
                        MulMode::Wide => "wide",
                    },
                );
            }
            arith(o, &mm.arith);
        }
        Op::Fma(a) => {
            o.push_str("fma");
            arith(o, a);
        }
        Op::AddMixed(m) | Op::SubMixed(m) | Op::FmaMixed(m) => {
            o.push_str(op.info().name);
            mixed(o, m);
        }
        Op::Mul24(m) | Op::Mad24(m) => {
            o.push_str(if matches!(op, Op::Mul24(_)) {
                "mul24"
            } else {
                "mad24"
            });
            q(o, if m.hi { "hi" } else { "lo" });
            if m.sat {
                q(o, "sat");
            }
            q(o, m.ty.name());
        }
        Op::Sad(t) => {
            o.push_str("sad");
            q(o, t.name());
        }
        Op::Div(d) => {
            o.push_str("div");
            kind(o, d.kind);
            if d.ftz {
                q(o, "ftz");
            }
            q(o, d.ty.name());
        }
        Op::Rem(t) => {
            o.push_str("rem");
            q(o, t.name());
        }
        Op::Abs(u) | Op::Neg(u) => {
            o.push_str(if matches!(op, Op::Abs(_)) {
                "abs"
            } else {
                "neg"
            });
            if u.ftz {
                q(o, "ftz");
            }
            q(o, u.ty.name());
        }
        Op::Min(m) | Op::Max(m) => {
            o.push_str(if matches!(op, Op::Min(_)) {
                "min"
            } else {
                "max"
            });
            if m.ftz {
                q(o, "ftz");
            }
            if m.nan {
                q(o, "NaN");
            }
            if m.xorsign_abs {
                q(o, "xorsign");
                q(o, "abs");
            }
            if m.relu {
                q(o, "relu");
            }
            if m.packed16 {
                q(o, if m.ty.is_signed() { "s16x2" } else { "u16x2" });
            } else {
                q(o, m.ty.name());
            }
        }
        Op::Addc(c) | Op::Subc(c) => {
            o.push_str(if matches!(op, Op::Addc(_)) {
                "addc"
            } else {
                "subc"
            });
            if c.cc {
                q(o, "cc");
            }
            q(o, c.ty.name());
        }
        Op::Madc(mc) => {
            o.push_str("madc");
            q(o, if mc.hi { "hi" } else { "lo" });
            if mc.cc {
                q(o, "cc");
            }
            q(o, mc.ty.name());
        }
        _ => {}
    }
}

/// Writes the mnemonic of an instruction of the bit manipulation and logic group; other opcodes write nothing.
pub(super) fn bits(o: &mut String, op: &Op) {
    match op {
        Op::Popc(t) => {
            o.push_str("popc");
            q(o, t.name());
        }
        Op::Clz(t) => {
            o.push_str("clz");
            q(o, t.name());
        }
        Op::Bfind(b) => {
            o.push_str("bfind");
            if b.shiftamt {
                q(o, "shiftamt");
            }
            q(o, b.ty.name());
        }
        Op::Fns => o.push_str("fns.b32"),
        Op::Brev(t) => {
            o.push_str("brev");
            q(o, t.name());
        }
        Op::Bfe(t) => {
            o.push_str("bfe");
            q(o, t.name());
        }
        Op::Bfi(t) => {
            o.push_str("bfi");
            q(o, t.name());
        }
        Op::Bmsk(m) => {
            o.push_str("bmsk");
            q(o, shift_mode(*m));
            q(o, "b32");
        }
        Op::Szext(z) => {
            o.push_str("szext");
            q(o, shift_mode(z.mode));
            q(o, z.ty.name());
        }
        Op::Dp4a(d) => {
            o.push_str("dp4a");
            q(o, d.a_ty.name());
            q(o, d.b_ty.name());
        }
        Op::Dp2a(d) => {
            o.push_str("dp2a");
            q(o, if d.hi { "hi" } else { "lo" });
            q(o, d.a_ty.name());
            q(o, d.b_ty.name());
        }
        Op::And(t) | Op::Or(t) | Op::Xor(t) | Op::Not(t) | Op::Cnot(t) => {
            o.push_str(match op {
                Op::And(_) => "and",
                Op::Or(_) => "or",
                Op::Xor(_) => "xor",
                Op::Not(_) => "not",
                _ => "cnot",
            });
            q(o, t.name());
        }
        Op::Lop3 => o.push_str("lop3.b32"),
        Op::Shf(sh) => {
            o.push_str("shf");
            q(o, if sh.left { "l" } else { "r" });
            q(o, shift_mode(sh.mode));
            q(o, "b32");
        }
        Op::Shl(t) => {
            o.push_str("shl");
            q(o, t.name());
        }
        Op::Shr(t) => {
            o.push_str("shr");
            q(o, t.name());
        }
        Op::Prmt(md) => {
            o.push_str("prmt.b32");
            if let Some(md) = md {
                q(
                    o,
                    match md {
                        PrmtMode::F4e => "f4e",
                        PrmtMode::B4e => "b4e",
                        PrmtMode::Rc8 => "rc8",
                        PrmtMode::Ecl => "ecl",
                        PrmtMode::Ecr => "ecr",
                        PrmtMode::Rc16 => "rc16",
                    },
                );
            }
        }
        _ => {}
    }
}

/// Writes the mnemonic of an instruction of the floating-point functions, comparison and selection group; other opcodes write nothing.
pub(super) fn float_cmp(o: &mut String, op: &Op) {
    match op {
        Op::Rcp(f)
        | Op::Sqrt(f)
        | Op::Rsqrt(f)
        | Op::Sin(f)
        | Op::Cos(f)
        | Op::Lg2(f)
        | Op::Ex2(f)
        | Op::Tanh(f) => {
            o.push_str(match op {
                Op::Rcp(_) => "rcp",
                Op::Sqrt(_) => "sqrt",
                Op::Rsqrt(_) => "rsqrt",
                Op::Sin(_) => "sin",
                Op::Cos(_) => "cos",
                Op::Lg2(_) => "lg2",
                Op::Ex2(_) => "ex2",
                _ => "tanh",
            });
            kind(o, f.kind);
            if f.ftz {
                q(o, "ftz");
            }
            q(o, f.ty.name());
        }
        Op::Testp(t) => {
            o.push_str("testp");
            q(
                o,
                match t.class {
                    TestpClass::Finite => "finite",
                    TestpClass::Infinite => "infinite",
                    TestpClass::Number => "number",
                    TestpClass::NotANumber => "notanumber",
                    TestpClass::Normal => "normal",
                    TestpClass::Subnormal => "subnormal",
                },
            );
            q(o, t.ty.name());
        }
        Op::Copysign(t) => {
            o.push_str("copysign");
            q(o, t.name());
        }
        Op::Setp(sp) => {
            o.push_str("setp");
            q(o, cmp_name(sp.cmp));
            if let Some(b) = sp.bool_op {
                q(o, bool_name(b));
            }
            if sp.ftz {
                q(o, "ftz");
            }
            q(o, sp.ty.name());
        }
        Op::Set(st) => {
            o.push_str("set");
            q(o, cmp_name(st.cmp));
            if let Some(b) = st.bool_op {
                q(o, bool_name(b));
            }
            if st.ftz {
                q(o, "ftz");
            }
            q(o, st.dst.name());
            q(o, st.src.name());
        }
        Op::Selp(t) => {
            o.push_str("selp");
            q(o, t.name());
        }
        Op::Slct(sl) => {
            o.push_str("slct");
            if sl.ftz {
                q(o, "ftz");
            }
            q(o, sl.dst.name());
            q(o, sl.sel.name());
        }
        _ => {}
    }
}
