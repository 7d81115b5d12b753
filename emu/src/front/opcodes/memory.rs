//! Parsing memory instructions: `ld`, `ldu`, `st`, prefetch and cache hints, `createpolicy`, `isspacep`, `cvta`, `atom`/`red`.

use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{
    Atom, AtomOp, CreatePolicy, Cvta, Ld, Ldu, LoadMode, Op, PolicyKind, Prefetch, PrefetchLevel,
    Red, St, StateSpace, StoreMode,
};
use models::vocab::{LoadSem, RmwSem, Scope, StoreSem};

/// `ld`: semantics, space, `.nc`, cache operator, hints, vector, type.
pub(super) fn ld(q: &mut Quals) -> Result<Op, Error> {
    let sem = load_sem(q)?;
    let space = q.space();
    let nc = q.take("nc");
    let cop = q.cache_op();
    let mode = LoadMode::new(sem, nc, cop).map_err(|m| q.syntax(m))?;
    let hints = q.hints();
    let vec = q.vec();
    Ok(Op::Ld(Ld {
        mode,
        space,
        hints,
        vec,
        ty: q.ty()?,
    }))
}

/// `ldu`.
pub(super) fn ldu(q: &mut Quals) -> Result<Op, Error> {
    let space = q.space();
    let vec = q.vec();
    Ok(Op::Ldu(Ldu {
        space,
        vec,
        ty: q.ty()?,
    }))
}

/// `st`: semantics, space, cache operator, hints, vector, type.
pub(super) fn st(q: &mut Quals) -> Result<Op, Error> {
    let sem = store_sem(q)?;
    let space = q.space();
    let cop = q.cache_op();
    let mode = StoreMode::new(sem, cop).map_err(|m| q.syntax(m))?;
    let hints = q.hints();
    let vec = q.vec();
    Ok(Op::St(St {
        mode,
        space,
        hints,
        vec,
        ty: q.ty()?,
    }))
}

/// `prefetch`/`prefetchu` and the level.
pub(super) fn prefetch(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let space = q.space();
    let level = q
        .take_map(|s| {
            Some(match s {
                "L1" => PrefetchLevel::L1,
                "L2" => PrefetchLevel::L2,
                "L2::evict_last" => PrefetchLevel::L2EvictLast,
                "L2::evict_normal" => PrefetchLevel::L2EvictNormal,
                "tensormap" => PrefetchLevel::Tensormap,
                _ => return None,
            })
        })
        .ok_or_else(|| q.syntax("prefetch needs a level (.L1, .L2, …)".into()))?;
    Ok(Op::Prefetch(Prefetch {
        uniform: opcode == "prefetchu",
        space,
        level,
    }))
}

/// `applypriority.global.L2::evict_normal`.
pub(super) fn applypriority(q: &mut Quals) -> Result<Op, Error> {
    q.take("global");
    q.take("L2::evict_normal");
    Ok(Op::ApplyPriority)
}

/// `discard.global.L2`.
pub(super) fn discard(q: &mut Quals) -> Result<Op, Error> {
    q.take("global");
    q.take("L2");
    Ok(Op::Discard)
}

/// `createpolicy`: kind and eviction priorities.
pub(super) fn createpolicy(q: &mut Quals) -> Result<Op, Error> {
    let kind = if q.take("fractional") {
        PolicyKind::Fractional
    } else if q.take("range") {
        PolicyKind::Range
    } else if q.take("cvt") {
        q.take("L2");
        PolicyKind::Cvt
    } else {
        return Err(q.syntax("createpolicy needs .fractional, .range or .cvt".into()));
    };
    let evicts = q.take_all(crate::front::quals::l2_evict_of);
    let unchanged = q.take("L2::evict_unchanged");
    q.ty()?;
    let primary = evicts
        .first()
        .copied()
        .unwrap_or(crate::ir::L2Evict::Normal);
    let secondary = evicts.get(1).copied().or(if unchanged {
        Some(crate::ir::L2Evict::Normal)
    } else {
        None
    });
    Ok(Op::CreatePolicy(CreatePolicy {
        kind,
        primary,
        secondary,
    }))
}

/// `isspacep`.
pub(super) fn isspacep(q: &mut Quals) -> Result<Op, Error> {
    let s = q.space();
    if s.space == StateSpace::Generic {
        return Err(q.syntax("isspacep needs a state space".into()));
    }
    Ok(Op::Isspacep(s.space))
}

/// `cvta{.to}`.
pub(super) fn cvta(q: &mut Quals) -> Result<Op, Error> {
    let to = q.take("to");
    let space = q.space();
    if space.space == StateSpace::Generic {
        return Err(q.syntax("cvta needs a state space".into()));
    }
    Ok(Op::Cvta(Cvta {
        to,
        space,
        ty: q.ty()?,
    }))
}

/// `atom`/`red`: semantics, scope, space, operation, vector, type.
pub(super) fn atom_red(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let sem = rmw_sem(q);
    let scope = q.scope();
    let space = q.space();
    let op = q
        .take_map(atom_op)
        .ok_or_else(|| q.syntax(format!("`{opcode}` needs an operation (.add, .cas, …)")))?;
    let noftz = q.take("noftz");
    let cache_hint = q.take("L2::cache_hint");
    let vec = q.vec();
    let ty = q.ty()?;
    let rmw = if opcode == "atom" {
        Op::Atom(Atom {
            sem,
            scope,
            space,
            op,
            vec,
            ty,
            noftz,
            cache_hint,
        })
    } else {
        Op::Red(Red {
            sem,
            scope,
            space,
            op,
            vec,
            ty,
            noftz,
            cache_hint,
        })
    };
    Ok(rmw)
}

fn atom_op(s: &str) -> Option<AtomOp> {
    Some(match s {
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "cas" => AtomOp::Cas,
        "exch" => AtomOp::Exch,
        "add" => AtomOp::Add,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        _ => return None,
    })
}

fn rmw_sem(q: &mut Quals) -> Option<RmwSem> {
    q.take_map(|s| {
        Some(match s {
            "relaxed" => RmwSem::Relaxed,
            "acquire" => RmwSem::Acquire,
            "release" => RmwSem::Release,
            "acq_rel" => RmwSem::AcqRel,
            _ => return None,
        })
    })
}

/// The semantics qualifiers of one access kind, as values of its own semantics type.
struct SemForms<T> {
    weak: T,
    volatile: T,
    mmio: T,
    relaxed: fn(Scope) -> T,
    /// The ordering qualifier with a scope (without its dot) and its form: `acquire` for a
    /// load, `release` for a store.
    ordered: (&'static str, fn(Scope) -> T),
}

/// Reads the semantics of a load or store: `.weak`, `.volatile`, `.relaxed.S`, the ordered
/// form with its scope (`.acquire.S` or `.release.S`), `.mmio.relaxed.sys`.
fn access_sem<T>(q: &mut Quals, forms: SemForms<T>) -> Result<Option<T>, Error> {
    if q.take("weak") {
        return Ok(Some(forms.weak));
    }
    if q.take("volatile") {
        return Ok(Some(forms.volatile));
    }
    if q.take("mmio") {
        if !q.take("relaxed") || q.scope() != Some(Scope::Sys) {
            return Err(q.syntax(".mmio must be written .mmio.relaxed.sys".into()));
        }
        return Ok(Some(forms.mmio));
    }
    for (name, form) in [("relaxed", forms.relaxed), forms.ordered] {
        if q.take(name) {
            let s = q
                .scope()
                .ok_or_else(|| q.syntax(format!(".{name} needs a scope")))?;
            return Ok(Some(form(s)));
        }
    }
    Ok(None)
}

/// Reads the semantics of a load: `.weak`, `.volatile`, `.relaxed.S`, `.acquire.S`,
/// `.mmio.relaxed.sys`.
fn load_sem(q: &mut Quals) -> Result<Option<LoadSem>, Error> {
    access_sem(
        q,
        SemForms {
            weak: LoadSem::Weak,
            volatile: LoadSem::Volatile,
            mmio: LoadSem::Mmio,
            relaxed: LoadSem::Relaxed,
            ordered: ("acquire", LoadSem::Acquire),
        },
    )
}

/// Reads the semantics of a store: `.weak`, `.volatile`, `.relaxed.S`, `.release.S`,
/// `.mmio.relaxed.sys`.
fn store_sem(q: &mut Quals) -> Result<Option<StoreSem>, Error> {
    access_sem(
        q,
        SemForms {
            weak: StoreSem::Weak,
            volatile: StoreSem::Volatile,
            mmio: StoreSem::Mmio,
            relaxed: StoreSem::Relaxed,
            ordered: ("release", StoreSem::Release),
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::front::parse_module;

    /// The first error of a kernel holding `line`, as `ptxemu check` words it (None: valid).
    fn error(line: &str) -> Option<String> {
        let src = format!(
            ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{line}\nret;\n}}\n"
        );
        parse_module(&src, "k.ptx").err().map(|e| e.to_string())
    }

    #[test]
    fn load_and_store_semantics_name_the_qualifier_that_needs_a_scope() {
        let cases = [
            (
                "ld.relaxed.global.u32 %r1, [%rd1];",
                ".relaxed needs a scope",
            ),
            (
                "ld.acquire.global.u32 %r1, [%rd1];",
                ".acquire needs a scope",
            ),
            (
                "st.relaxed.global.u32 [%rd1], %r1;",
                ".relaxed needs a scope",
            ),
            (
                "st.release.global.u32 [%rd1], %r1;",
                ".release needs a scope",
            ),
            (
                "ld.mmio.relaxed.gpu.global.u32 %r1, [%rd1];",
                ".mmio must be written .mmio.relaxed.sys",
            ),
            (
                "st.mmio.global.u32 [%rd1], %r1;",
                ".mmio must be written .mmio.relaxed.sys",
            ),
            // The ordered form of the other access kind is no semantics of this one.
            (
                "ld.release.gpu.global.u32 %r1, [%rd1];",
                "unknown qualifier `.release` on `ld`",
            ),
            (
                "st.acquire.gpu.global.u32 [%rd1], %r1;",
                "unknown qualifier `.acquire` on `st`",
            ),
        ];
        for (line, want) in cases {
            let got = error(line).unwrap_or_default();
            assert!(got.ends_with(want), "{line}: {got}");
        }
        for line in [
            "ld.weak.global.u32 %r1, [%rd1];",
            "ld.volatile.global.u32 %r1, [%rd1];",
            "ld.acquire.gpu.global.u32 %r1, [%rd1];",
            "ld.mmio.relaxed.sys.global.u32 %r1, [%rd1];",
            "st.release.cta.global.u32 [%rd1], %r1;",
            "st.relaxed.sys.global.u32 [%rd1], %r1;",
        ] {
            assert_eq!(error(line), None, "{line}");
        }
    }
}
