//! The restrictions of `ld`, `ld.global.nc` and `st` (PTX ISA §9.7.9.8, §9.7.9.9, §9.7.9.11 and
//! "Cache Operators"): which semantics, state spaces, cache operators, eviction priorities,
//! vector widths, sinks and register widths go together. Version and target requirements are in
//! `target.rs`.
//!
//! Where NVIDIA's ptxas is stricter or looser than the ISA text, the rule follows ptxas and says
//! so; tests/ptxas holds the recorded verdicts these rules are checked against.

use super::diagnostic::Diagnostic;
use crate::front::quals;
use crate::ir::{
    CacheHints, CacheOp, Function, FunctionKind, Instr, Operand, SpaceQual, Type, TypeClass,
    VecElem, VecWidth,
};
use models::vocab::{LoadSem, ParamWindow, StateSpace, StoreSem};

/// The semantics of a load or store, with what the rules need to know of it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sem {
    /// None written, or `.weak`.
    Weak {
        written: bool,
    },
    Volatile,
    /// `.relaxed`, `.acquire` or `.release` with a scope.
    Ordered(&'static str),
    Mmio,
}

impl Sem {
    fn of_load(s: Option<LoadSem>) -> Sem {
        match s {
            None => Sem::Weak { written: false },
            Some(LoadSem::Weak) => Sem::Weak { written: true },
            Some(LoadSem::Volatile) => Sem::Volatile,
            Some(LoadSem::Relaxed(_)) => Sem::Ordered(".relaxed"),
            Some(LoadSem::Acquire(_)) => Sem::Ordered(".acquire"),
            Some(LoadSem::Mmio) => Sem::Mmio,
        }
    }

    fn of_store(s: Option<StoreSem>) -> Sem {
        match s {
            None => Sem::Weak { written: false },
            Some(StoreSem::Weak) => Sem::Weak { written: true },
            Some(StoreSem::Volatile) => Sem::Volatile,
            Some(StoreSem::Relaxed(_)) => Sem::Ordered(".relaxed"),
            Some(StoreSem::Release(_)) => Sem::Ordered(".release"),
            Some(StoreSem::Mmio) => Sem::Mmio,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Sem::Weak { .. } => ".weak",
            Sem::Volatile => ".volatile",
            Sem::Ordered(n) => n,
            Sem::Mmio => ".mmio",
        }
    }
}

/// What one load or store asks for.
struct Access<'a> {
    store: bool,
    nc: bool,
    sem: Sem,
    space: SpaceQual,
    cop: Option<CacheOp>,
    hints: CacheHints,
    vec: Option<VecWidth>,
    ty: Type,
    /// The data operand (destination of a load, source of a store).
    data: &'a Operand,
}

/// Whether a vector access is one of the 256-bit forms (`.v8` of 32-bit or `.v4` of 64-bit).
pub fn is_256_bit(vec: Option<VecWidth>, ty: Type) -> bool {
    matches!(
        (vec, ty.bits()),
        (Some(VecWidth::V8), 32) | (Some(VecWidth::V4), 64)
    )
}

fn lanes(vec: Option<VecWidth>) -> u32 {
    vec.map_or(1, |v| v.len() as u32)
}

/// `.global`, `.shared::cta`, … as written, or `generic`.
fn space_name(s: SpaceQual) -> String {
    quals::space_name(s).map_or("generic".to_string(), |n| format!(".{n}"))
}

/// Checks the qualifier and operand rules of a load or store.
pub fn check(f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Some(a) = Access::of(i) else {
        return;
    };
    let op = a.op_name();
    let mut err = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        });
    };
    state_space(f, &a, op, &mut err);
    semantics(&a, &mut err);
    cache_operator(&a, op, &mut err);
    hints(f, i, &a, &mut err);
    vector_width(&a, &mut err);
    data_operand(f, &a, op, &mut err);
}

impl<'a> Access<'a> {
    /// The access an `ld` or `st` makes; `None` for any other instruction.
    fn of(i: &'a Instr) -> Option<Access<'a>> {
        Some(match &i.op {
            crate::ir::Op::Ld(l) => Access {
                store: false,
                nc: l.nc(),
                sem: Sem::of_load(l.sem()),
                space: l.space,
                cop: l.cop(),
                hints: l.hints,
                vec: l.vec,
                ty: l.ty,
                data: &i.args[0],
            },
            crate::ir::Op::St(s) => Access {
                store: true,
                nc: false,
                sem: Sem::of_store(s.sem()),
                space: s.space,
                cop: s.cop(),
                hints: s.hints,
                vec: s.vec,
                ty: s.ty,
                data: &i.args[1],
            },
            _ => return None,
        })
    }

    /// The instruction's name in messages.
    fn op_name(&self) -> &'static str {
        if self.store {
            "st"
        } else if self.nc {
            "ld.global.nc"
        } else {
            "ld"
        }
    }

    /// Whether the access is to the generic or the .global state space.
    fn generic_or_global(&self) -> bool {
        matches!(self.space.space, StateSpace::Generic | StateSpace::Global)
    }
}

/// The state spaces each instruction can name.
fn state_space(f: &Function, a: &Access<'_>, op: &str, err: &mut dyn FnMut(&'static str, String)) {
    let space = a.space.space;
    if a.store && space == StateSpace::Const {
        err(
            "st-const",
            "stores to the .const state space are illegal".into(),
        );
    }
    if a.store && space == StateSpace::Param(ParamWindow::Entry) {
        err(
            "st-param-entry",
            "`st` has no .param::entry form: kernel parameters are read-only".into(),
        );
    }
    if space == StateSpace::Param(ParamWindow::Func)
        && a.space.explicit_window
        && f.kind == FunctionKind::Entry
    {
        // ptxas: "Illegal state space for address operand '::func'" — a kernel has no
        // device-function parameters to address.
        err(
            "param-func-in-kernel",
            format!("`{op}.param::func` addresses device-function parameters, which a kernel does not have"),
        );
    }
    if a.nc && space != StateSpace::Global {
        err(
            "nc-global",
            "`ld.nc` reads only the .global state space (write `ld.global.nc`)".into(),
        );
    }
}

/// Semantics are exclusive with `.nc` and with cache operators by construction
/// (`ir::LoadMode`, `ir::StoreMode`); each has its state spaces.
fn semantics(a: &Access<'_>, err: &mut dyn FnMut(&'static str, String)) {
    let space = a.space.space;
    let generic_or_global = a.generic_or_global();
    let sem_spaces_ok = match a.sem {
        Sem::Weak { .. } => true,
        Sem::Ordered(_) => generic_or_global || matches!(space, StateSpace::Shared(_)),
        Sem::Volatile => {
            generic_or_global || matches!(space, StateSpace::Shared(_) | StateSpace::Local)
        }
        Sem::Mmio => generic_or_global,
    };
    if !sem_spaces_ok {
        err(
            "semantics-state-space",
            format!(
                "{} cannot be used with the {} state space",
                a.sem.name(),
                space_name(a.space)
            ),
        );
    }
    if matches!(a.sem, Sem::Volatile | Sem::Mmio)
        && (a.hints.l1.is_some() || a.hints.l2.is_some() || a.hints.cache_hint)
    {
        err(
            "semantics-with-cache-hint",
            format!("{} takes no eviction priority or cache hint", a.sem.name()),
        );
    }
    if matches!(a.sem, Sem::Mmio) && a.vec.is_some() {
        err("mmio-vector", ".mmio accesses are scalar".into());
    }
}

/// The cache operators each instruction takes.
fn cache_operator(a: &Access<'_>, op: &str, err: &mut dyn FnMut(&'static str, String)) {
    if let Some(c) = a.cop {
        // Loads and stores each take only their own operators (by construction);
        // `ld.global.nc` takes only .ca, .cg and .cs.
        if a.nc && !matches!(c, CacheOp::Ca | CacheOp::Cg | CacheOp::Cs) {
            err(
                "cache-operator",
                format!("`{op}` has no cache operator .{}", c.name()),
            );
        }
        // ld.global.nc's first form takes a cache operator and an L2 priority together
        // (ptxas accepts it; the ISA's two syntax lines suggest otherwise).
        if a.hints.l1.is_some() || (a.hints.l2.is_some() && !a.nc) {
            err(
                "cache-operator-with-eviction",
                "a cache operator and an eviction priority cannot be combined (they are alternative forms of the instruction)".into(),
            );
        }
    }
}

/// Eviction priorities, cache hints and their policy operand, prefetch sizes.
fn hints(f: &Function, i: &Instr, a: &Access<'_>, err: &mut dyn FnMut(&'static str, String)) {
    let space = a.space.space;
    let generic_or_global = a.generic_or_global();
    if a.hints.l1.is_some() && matches!(space, StateSpace::Shared(_)) {
        err(
            "eviction-state-space",
            "an L1 eviction priority cannot be used with the .shared state space".into(),
        );
    }
    if a.hints.l2.is_some() && !is_256_bit(a.vec, a.ty) {
        err(
            "l2-eviction-vector",
            "an L2 eviction priority needs a 256-bit access (.v8 of a 32-bit type or .v4 of a 64-bit type)".into(),
        );
    }
    if a.hints.cache_hint && !generic_or_global {
        err(
            "cache-hint-state-space",
            format!(
                ".L2::cache_hint is only for the .global state space (or generic addresses), not {}",
                space_name(a.space)
            ),
        );
    }
    match (i.args.len(), a.hints.cache_hint) {
        (3, false) => err(
            "cache-policy-operand",
            "a cache-policy operand needs the .L2::cache_hint qualifier".into(),
        ),
        (2, true) => err(
            "cache-policy-operand",
            ".L2::cache_hint needs a 64-bit cache-policy operand".into(),
        ),
        (3, true) => policy_operand(f, &i.args[2], err),
        _ => {}
    }
    if a.hints.prefetch.is_some() {
        if a.store {
            err(
                "prefetch-size",
                "`st` takes no prefetch size qualifier".into(),
            );
        } else if !generic_or_global {
            err(
                "prefetch-state-space",
                "a prefetch size is only for the .global state space (or generic addresses)".into(),
            );
        }
    }
}

/// The vector widths, 256-bit forms included.
fn vector_width(a: &Access<'_>, err: &mut dyn FnMut(&'static str, String)) {
    let generic_or_global = a.generic_or_global();
    let bits = a.ty.bits() * lanes(a.vec);
    if is_256_bit(a.vec, a.ty) {
        if !generic_or_global {
            err(
                "wide-vector-state-space",
                "256-bit loads and stores are only for the .global state space (or generic addresses)".into(),
            );
        }
    } else if bits > 128 {
        err(
            "vector-width",
            format!(
                "a vector of {} {}-bit elements is {bits} bits; the limit is 128 (256 for .v8 of 32-bit and .v4 of 64-bit types)",
                lanes(a.vec),
                a.ty.bits()
            ),
        );
    }
}

fn policy_operand(f: &Function, o: &Operand, err: &mut dyn FnMut(&'static str, String)) {
    let ok = match o {
        Operand::Reg(r) => f.regs[r.index()].ty.bits() == 64,
        Operand::Imm(_) => true,
        _ => false,
    };
    if !ok {
        err(
            "cache-policy-operand",
            "the cache-policy operand must be a 64-bit register".into(),
        );
    }
}

fn data_operand(f: &Function, a: &Access<'_>, op: &str, err: &mut dyn FnMut(&'static str, String)) {
    let want = lanes(a.vec) as usize;
    let mut regs = Vec::new();
    match (a.vec, a.data) {
        (None, Operand::Reg(r)) if f.regs[r.index()].vec.is_none() => regs.push(*r),
        // A vector register (`.reg .v4 .s32 Q`) holds a whole vector of its own width.
        (Some(v), Operand::Reg(r)) if f.regs[r.index()].vec == Some(v) => regs.push(*r),
        (None, Operand::Imm(_)) if a.store => {}
        (None, Operand::Sink) if !a.store => {}
        // A one-element brace vector stands for its element (`ld.global.b32 { %r1 }, [a]`,
        // as Triton writes every unvectorised access); ptxas accepts it and refuses `{_}`.
        (None, Operand::Vector(elems)) if elems.len() == 1 => match elems[0] {
            VecElem::Reg(r) => regs.push(r),
            VecElem::Imm(_) if a.store => {}
            VecElem::Sink | VecElem::Imm(_) => {
                err(
                    "operand-kind",
                    format!("the one-element vector of `{op}` must hold a register"),
                );
                return;
            }
        },
        (None, _) => {
            err(
                "operand-kind",
                format!("the data operand of `{op}` must be a register"),
            );
            return;
        }
        (Some(_), Operand::Vector(elems)) => {
            if elems.len() != want {
                err(
                    "vector-operand",
                    format!(
                        "`.v{want}` needs a vector of {want} elements, found {}",
                        elems.len()
                    ),
                );
                return;
            }
            for e in elems {
                match e {
                    VecElem::Reg(r) => regs.push(*r),
                    VecElem::Sink if a.store && !is_256_bit(a.vec, a.ty) => err(
                        "sink",
                        "a sink `_` in the data of `st` is only allowed in 256-bit vectors".into(),
                    ),
                    VecElem::Sink => {}
                    _ if a.store => {}
                    _ => err(
                        "operand-kind",
                        format!("the elements of a `{op}` destination must be registers"),
                    ),
                }
            }
        }
        (Some(_), _) => {
            err(
                "vector-operand",
                format!("`.v{want}` needs a braced vector of {want} registers"),
            );
            return;
        }
    }
    for r in regs {
        let rt = f.regs[r.index()].ty;
        if !register_fits(a.ty, rt) {
            err(
                "register-type",
                format!(
                    "{} .{} register cannot hold the data of `{op}.{}`",
                    rt.article(),
                    rt.name(),
                    a.ty.name()
                ),
            );
            return;
        }
    }
}

/// Whether a register of type `reg` can be the data of an access of type `ty` (PTX ISA
/// "Operand Size Exceeding Instruction-Type Size", as ptxas applies it to `ld`/`st`):
/// `.b128` only in `.b128` registers; an integer type in a non-float register at least as wide;
/// a float type in a float register of its own size or a non-float one at least as wide; a bit
/// type in any register at least as wide.
pub fn register_fits(ty: Type, reg: Type) -> bool {
    if ty == Type::B128 {
        return reg == Type::B128;
    }
    if reg == Type::Pred {
        return false;
    }
    let wide_enough = reg.bits() >= ty.bits();
    match ty.class() {
        TypeClass::Bits => wide_enough,
        TypeClass::Float | TypeClass::PackedFloat => {
            if reg.is_float() {
                reg.bits() == ty.bits()
            } else {
                wide_enough
            }
        }
        TypeClass::Unsigned | TypeClass::Signed => !reg.is_float() && wide_enough,
        TypeClass::Pred => false,
    }
}
