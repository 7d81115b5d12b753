//! Qualifier spellings shared by the mnemonic printers.

use crate::front::quals::{l1_evict_name, l2_evict_name, prefetch_name};
use crate::ir::*;
use models::vocab::RmwSem;

pub(super) fn q(out: &mut String, s: &str) {
    out.push('.');
    out.push_str(s);
}

pub(super) fn arith(out: &mut String, a: &Arith) {
    let Arith {
        ty,
        rnd,
        ftz,
        sat,
        cc,
        relu,
    } = *a;
    if let Some(r) = rnd {
        q(out, r.name());
    }
    if ftz {
        q(out, "ftz");
    }
    if sat {
        q(out, "sat");
    }
    if relu {
        q(out, "relu");
    }
    if cc {
        q(out, "cc");
    }
    q(out, ty.name());
}

/// `{.rnd}{.sat}.f32.{f16,bf16}` of the mixed-precision `add`, `sub` and `fma`.
pub(super) fn mixed(out: &mut String, m: &Mixed) {
    let Mixed { half, rnd, sat } = *m;
    if let Some(r) = rnd {
        q(out, r.name());
    }
    if sat {
        q(out, "sat");
    }
    q(out, Type::F32.name());
    q(out, half.ty().name());
}

pub(super) fn hints(out: &mut String, h: &CacheHints) {
    let CacheHints {
        l1,
        l2,
        cache_hint,
        prefetch,
    } = *h;
    if let Some(e) = l1 {
        q(out, l1_evict_name(e));
    }
    if let Some(e) = l2 {
        q(out, l2_evict_name(e));
    }
    if cache_hint {
        q(out, "L2::cache_hint");
    }
    if let Some(p) = prefetch {
        q(out, prefetch_name(p));
    }
}

pub(super) fn cmp_name(c: CmpOp) -> &'static str {
    use CmpOp as C;
    match c {
        C::Eq => "eq",
        C::Ne => "ne",
        C::Lt => "lt",
        C::Le => "le",
        C::Gt => "gt",
        C::Ge => "ge",
        C::Lo => "lo",
        C::Ls => "ls",
        C::Hi => "hi",
        C::Hs => "hs",
        C::Equ => "equ",
        C::Neu => "neu",
        C::Ltu => "ltu",
        C::Leu => "leu",
        C::Gtu => "gtu",
        C::Geu => "geu",
        C::Num => "num",
        C::Nan => "nan",
    }
}

pub(super) fn bool_name(b: BoolOp) -> &'static str {
    match b {
        BoolOp::And => "and",
        BoolOp::Or => "or",
        BoolOp::Xor => "xor",
    }
}

pub(super) fn kind(out: &mut String, k: DivKind) {
    match k {
        DivKind::Exact => {}
        DivKind::Approx => q(out, "approx"),
        DivKind::Full => q(out, "full"),
        DivKind::Rounded(r) => q(out, r.name()),
    }
}

pub(super) fn shift_mode(m: ShiftMode) -> &'static str {
    match m {
        ShiftMode::Clamp => "clamp",
        ShiftMode::Wrap => "wrap",
    }
}

pub(super) fn atom_op(o: AtomOp) -> &'static str {
    match o {
        AtomOp::And => "and",
        AtomOp::Or => "or",
        AtomOp::Xor => "xor",
        AtomOp::Cas => "cas",
        AtomOp::Exch => "exch",
        AtomOp::Add => "add",
        AtomOp::Inc => "inc",
        AtomOp::Dec => "dec",
        AtomOp::Min => "min",
        AtomOp::Max => "max",
    }
}

pub(super) fn rmw(out: &mut String, sem: Option<RmwSem>, scope: Option<models::vocab::Scope>) {
    if let Some(s) = sem {
        q(out, s.name());
    }
    if let Some(s) = scope {
        q(out, s.name());
    }
}
