//! PTX ISA version and target requirements of the module header and of instructions.

use super::diagnostic::Diagnostic;
use crate::ir::{
    ArchSuffix, BarKind, CacheHints, Fence, Instr, Module, Op, SpaceQual, Type, VecWidth, Version,
};
use models::vocab::{LoadSem, ParamWindow, Scope, SharedWindow, StateSpace, StoreSem};

/// The newest PTX ISA version ptxemu knows.
pub const NEWEST: Version = Version::new(9, 9);

/// Checks `.version` and `.target`.
pub fn check_header(m: &Module, out: &mut Vec<Diagnostic>) {
    // Line 1, column 1 when the module declares nothing to point at (never 0:0).
    let span = m
        .functions
        .first()
        .map(|f| f.span)
        .unwrap_or(crate::ir::Span {
            line: 1,
            col: 1,
            ..Default::default()
        });
    if m.version.major == 0 && m.target.sm == 0 && m.functions.is_empty() && m.globals.is_empty() {
        out.push(Diagnostic {
            rule: "empty-module",
            message: "the file holds no PTX: a module starts with `.version`, `.target` and `.address_size`".into(),
            span,
        });
        return;
    }
    if m.version.major == 0 {
        out.push(Diagnostic {
            rule: "missing-version",
            message: "the module has no .version directive".into(),
            span,
        });
    } else if m.version > NEWEST {
        out.push(Diagnostic {
            rule: "unknown-version",
            message: format!(
                "PTX ISA {}.{} is newer than ptxemu knows ({}.{})",
                m.version.major, m.version.minor, NEWEST.major, NEWEST.minor
            ),
            span,
        });
    }
    if m.target.sm == 0 {
        out.push(Diagnostic {
            rule: "missing-target",
            message: "the module has no .target directive".into(),
            span,
        });
    } else if let Some(need) = known_target(m.target.sm, m.target.suffix)
        .then(|| min_version(m.target.sm, m.target.suffix))
        .filter(|&need| m.version.major != 0 && m.version < need)
    {
        out.push(Diagnostic {
            rule: "target-needs-version",
            message: format!(
                ".target sm_{}{} needs PTX ISA {}.{} or later; the module is .version {}.{}",
                m.target.sm,
                suffix_name(m.target.suffix),
                need.major,
                need.minor,
                m.version.major,
                m.version.minor
            ),
            span,
        });
    } else if !known_target(m.target.sm, m.target.suffix) {
        let suffix = suffix_name(m.target.suffix);
        out.push(Diagnostic {
            rule: "unknown-target",
            message: format!(
                "sm_{}{suffix} is not a PTX target (targets: sm_10 to sm_89 as released, sm_90/90a, and sm_100 to sm_121 with a or f)",
                m.target.sm
            ),
            span,
        });
    }
}

/// The suffix as written after the SM number.
fn suffix_name(s: ArchSuffix) -> &'static str {
    match s {
        ArchSuffix::None => "",
        ArchSuffix::Arch => "a",
        ArchSuffix::Family => "f",
    }
}

/// The first PTX ISA version that knows a target (from sm_80 on as ptxas 13.5 answers when
/// asked for each version in turn; before that the PTX ISA's target notes).
fn min_version(sm: u32, suffix: ArchSuffix) -> Version {
    let (major, minor) = match (sm, suffix) {
        (..=13, _) => (1, 0),
        (20, _) => (2, 0),
        (30, _) => (3, 0),
        (35, _) => (3, 1),
        (32 | 50, _) => (4, 0),
        (37 | 52, _) => (4, 1),
        (53, _) => (4, 2),
        (60..=62, _) => (5, 0),
        (70, _) => (6, 0),
        (72, _) => (6, 1),
        (75, _) => (6, 3),
        (80, _) => (7, 0),
        (86, _) => (7, 1),
        (87, _) => (7, 4),
        (89, _) | (90, ArchSuffix::None) => (7, 8),
        (90, _) => (8, 0),
        (100 | 101, ArchSuffix::None | ArchSuffix::Arch) => (8, 6),
        (120, ArchSuffix::None | ArchSuffix::Arch) => (8, 7),
        (88 | 110, _) => (9, 0),
        _ => (8, 8),
    };
    Version::new(major, minor)
}

/// Whether `name` is a target PTX defines, written as nvcc's `-arch` takes it: `sm_NN` or
/// `compute_NN`, with an `a` or `f` suffix where the architecture has one (`sm_90a`,
/// `compute_100f`).
pub fn is_known_arch_name(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("sm_")
        .or_else(|| name.strip_prefix("compute_"))
    else {
        return false;
    };
    let (digits, suffix) = match rest.strip_suffix('a') {
        Some(d) => (d, ArchSuffix::Arch),
        None => match rest.strip_suffix('f') {
            Some(d) => (d, ArchSuffix::Family),
            None => (rest, ArchSuffix::None),
        },
    };
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits.parse().is_ok_and(|sm| known_target(sm, suffix))
}

/// The architectures PTX defines, and which take the `a` and `f` suffixes (ptxas 13.5 refuses
/// the others as an unsupported `.target`).
fn known_target(sm: u32, suffix: ArchSuffix) -> bool {
    const RELEASED: &[u32] = &[
        10, 11, 12, 13, 20, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89,
        90, 100, 101, 103, 110, 120, 121,
    ];
    RELEASED.contains(&sm)
        && match suffix {
            ArchSuffix::None => true,
            ArchSuffix::Arch => sm >= 90,
            ArchSuffix::Family => sm >= 100,
        }
}

/// A feature's requirements.
struct Req {
    what: &'static str,
    ptx: Version,
    sm: u32,
}

fn reqs(i: &Instr) -> Vec<Req> {
    let mut r = Vec::new();
    let mut add = |what: &'static str, ptx: (u32, u32), sm: u32| {
        r.push(Req {
            what,
            ptx: Version::new(ptx.0, ptx.1),
            sm,
        })
    };
    let cluster = |s: Option<Scope>| s == Some(Scope::Cluster);
    // What every form of the opcode needs (the opcode table), then what this form needs.
    if let Some(need) = i.op.info().requires {
        add(need.what, need.ptx, need.sm);
    }
    match &i.op {
        Op::Shfl(s) if s.sync => add("shfl.sync", (6, 0), 30),
        Op::Vote(v) if v.sync => add("vote.sync", (6, 0), 30),
        Op::Bar(b) if b.barrier => add("barrier", (6, 0), 30),
        Op::Bar(b) if matches!(b.kind, BarKind::Arrive | BarKind::Red(_)) => {
            add("bar.arrive/bar.red", (2, 0), 20)
        }
        Op::Fence(Fence::Memory { scope, .. }) => {
            add("fence", (6, 0), 70);
            if cluster(Some(*scope)) {
                add(".cluster scope", (7, 8), 90);
            }
        }
        Op::Fence(Fence::ProxyAlias) => add("fence.proxy.alias", (7, 5), 70),
        Op::Fence(Fence::MbarrierInit) => add("fence.mbarrier_init", (8, 0), 90),
        Op::Fence(Fence::ProxyAsync(_)) => add("fence.proxy.async", (8, 0), 90),
        Op::Fence(Fence::ProxyTensormap { .. }) => add("fence.proxy.tensormap", (8, 3), 90),
        Op::Add(a) | Op::Sub(a) | Op::Fma(a) if a.ty == Type::F32x2 => {
            add("arithmetic on .f32x2", (8, 6), 100)
        }
        Op::Mul(m) if m.arith.ty == Type::F32x2 => add("arithmetic on .f32x2", (8, 6), 100),
        Op::Min(m) | Op::Max(m) if m.packed16 => add("min/max .u16x2/.s16x2", (8, 0), 90),
        Op::Min(_) | Op::Max(_) if i.args.len() == 4 => add("three-input min/max", (8, 8), 100),
        Op::Cvt(c) if c.satfinite && matches!(c.dst, Type::F16x2 | Type::BF16x2) => {
            add("cvt.satfinite to .f16x2/.bf16x2", (8, 1), 80)
        }
        Op::Ld(l) => {
            if matches!(
                l.sem(),
                Some(LoadSem::Weak | LoadSem::Relaxed(_) | LoadSem::Acquire(_))
            ) {
                add("ld with .weak/.relaxed/.acquire", (6, 0), 70);
            }
            if l.sem() == Some(LoadSem::Mmio) {
                add("ld.mmio", (8, 2), 70);
            }
            if cluster(l.sem().and_then(LoadSem::scope)) {
                add(".cluster scope", (7, 8), 90);
            }
            if l.nc() {
                add("ld.global.nc", (3, 1), 32);
            }
            if l.sem() == Some(LoadSem::Volatile) && l.space.space == StateSpace::Local {
                add("ld.volatile.local", (9, 1), 20);
            }
            if l.hints.prefetch.is_some() {
                add("a prefetch size (.L2::64B/128B/256B)", (7, 4), 75);
            }
            if l.ty == Type::B128 && l.sem().and_then(LoadSem::scope) == Some(Scope::Sys) {
                add(".b128 at .sys scope", (8, 4), 70);
            }
            memory_reqs(l.space, l.hints, l.vec, l.ty, &mut add);
        }
        Op::St(s) => {
            if matches!(
                s.sem(),
                Some(StoreSem::Weak | StoreSem::Relaxed(_) | StoreSem::Release(_))
            ) {
                add("st with .weak/.relaxed/.release", (6, 0), 70);
            }
            if s.sem() == Some(StoreSem::Mmio) {
                add("st.mmio", (8, 2), 70);
            }
            if cluster(s.sem().and_then(StoreSem::scope)) {
                add(".cluster scope", (7, 8), 90);
            }
            if s.sem() == Some(StoreSem::Volatile) && s.space.space == StateSpace::Local {
                add("st.volatile.local", (9, 1), 20);
            }
            if s.ty == Type::B128 && s.sem().and_then(StoreSem::scope) == Some(Scope::Sys) {
                add(".b128 at .sys scope", (8, 4), 70);
            }
            memory_reqs(s.space, s.hints, s.vec, s.ty, &mut add);
        }
        Op::Atom(a) => {
            if a.sem.is_some() || a.scope.is_some() {
                add("atom with .sem/.scope", (6, 0), 70);
            }
            if cluster(a.scope) {
                add(".cluster scope", (7, 8), 90);
            }
        }
        Op::Red(a) if a.sem.is_some() || a.scope.is_some() => {
            add("red with .sem/.scope", (6, 0), 70);
        }
        _ => {}
    }
    r
}

/// The requirements `ld` and `st` share: state-space windows, cache hints, wide vectors, `.b128`.
fn memory_reqs(
    space: SpaceQual,
    hints: CacheHints,
    vec: Option<VecWidth>,
    ty: Type,
    add: &mut dyn FnMut(&'static str, (u32, u32), u32),
) {
    if space.explicit_window {
        match space.space {
            StateSpace::Shared(SharedWindow::Cta) => add("the ::cta sub-qualifier", (7, 8), 30),
            StateSpace::Shared(SharedWindow::Cluster) => {
                add("the ::cluster sub-qualifier", (7, 8), 90)
            }
            StateSpace::Param(ParamWindow::Entry) => add("the ::entry sub-qualifier", (8, 3), 20),
            StateSpace::Param(ParamWindow::Func) => add("the ::func sub-qualifier", (8, 3), 20),
            _ => {}
        }
    }
    if hints.l1.is_some() {
        add("an L1 eviction priority", (7, 4), 70);
    }
    if hints.cache_hint {
        add(".L2::cache_hint", (7, 4), 80);
    }
    if hints.l2.is_some() {
        add("an L2 eviction priority", (8, 8), 100);
    }
    if super::memory::is_256_bit(vec, ty) {
        add(
            "256-bit loads and stores (.v8 of 32-bit, .v4 of 64-bit types)",
            (8, 8),
            100,
        );
    }
    if ty == Type::B128 {
        add(".b128", (8, 3), 70);
    }
}

/// Checks an instruction against the module's `.version` and `.target`.
pub fn check_instr(m: &Module, i: &Instr, out: &mut Vec<Diagnostic>) {
    if m.version.major == 0 || m.target.sm == 0 {
        return;
    }
    if let Op::Tcgen05(t) = &i.op {
        crate::tcgen05::validate::check_target(m, i, t, out);
    }
    if let Op::WarpMatrix(w) = &i.op {
        crate::mma::validate::check_target(m, i, w, out);
    }
    if let Op::Wgmma(_) = &i.op {
        crate::wgmma::validate::check_target(m, i, out);
    }
    for r in reqs(i) {
        if m.version < r.ptx {
            out.push(Diagnostic {
                rule: "requires-ptx-version",
                message: format!(
                    "{} requires PTX ISA {}.{} or later (the module declares {}.{})",
                    r.what, r.ptx.major, r.ptx.minor, m.version.major, m.version.minor
                ),
                span: i.span,
            });
        }
        if m.target.sm < r.sm {
            out.push(Diagnostic {
                rule: "requires-target",
                message: format!(
                    "{} requires sm_{} or later (the module targets sm_{})",
                    r.what, r.sm, m.target.sm
                ),
                span: i.span,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::front::parse_module;

    #[test]
    fn an_empty_file_is_reported_at_line_1_as_empty() {
        // Issue 23: an empty file was reported at 0:0 as two missing directives.
        for src in ["", "\n\n", "// nothing here\n"] {
            let m = parse_module(src, "e.ptx").unwrap();
            let d = crate::validate::validate_module(&m);
            assert_eq!(d.len(), 1, "{d:?}");
            assert_eq!(d[0].rule, "empty-module");
            assert_eq!((d[0].span.line, d[0].span.col), (1, 1));
        }
    }

    #[test]
    fn version_0_is_refused_as_such_not_as_missing() {
        // Issue 23: `.version 0.0` was reported as "no .version directive".
        let e =
            parse_module(".version 0.0\n.target sm_90\n.address_size 64\n", "v.ptx").unwrap_err();
        assert!(
            e.to_string()
                .contains("v.ptx:1:10: PTX ISA 0.0 does not exist"),
            "{e}"
        );
    }
}
