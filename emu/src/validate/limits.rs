//! Rules on a module's data declarations that ptxas enforces: an `.align` is a power of two,
//! and the `.const` variables of a module share one 64 KiB constant bank ("File uses too much
//! global constant data").

use super::diagnostic::Diagnostic;
use crate::exec::memory::CONST_BANK_SIZE;
use crate::ir::{ArrayDim, Linkage, Module, StateSpace};

/// Checks every declaration's alignment and size, and the constant bank.
pub fn check_module(m: &Module, out: &mut Vec<Diagnostic>) {
    check_alignments(m, out);
    check_sizes(m, out);
    check_const_bank(m, out);
}

/// Reports variables without a size that are not `.extern` (ptxas: "Non-external variable has
/// incomplete type"): a `[0]` dimension, or `[]` with no initialiser to size it; and every
/// variable whose size in bytes does not fit 64 bits.
fn check_sizes(m: &Module, out: &mut Vec<Diagnostic>) {
    let locals = m.functions.iter().flat_map(|f| {
        f.locals
            .iter()
            .chain(f.params.iter().map(|p| &p.var))
            .chain(f.returns.iter().map(|p| &p.var))
    });
    for v in m.globals.iter().chain(locals) {
        if let Some(d) = size_overflow(v) {
            out.push(d);
            continue;
        }
        if v.linkage == Linkage::Extern || matches!(v.space, StateSpace::Param(_)) {
            continue;
        }
        let zero = v.dims.contains(&ArrayDim::Sized(0));
        let unsized_ = v.dims.first() == Some(&ArrayDim::Unsized) && v.init.is_none();
        if zero || unsized_ {
            out.push(Diagnostic {
                rule: "incomplete-type",
                message: format!(
                    "`{}` has no size; only an .extern variable may (dynamic shared memory is `.extern .shared … []`)",
                    v.name
                ),
                span: v.span,
            });
        }
    }
}

/// The refusal of a variable whose size in bytes overflows 64 bits (`g[4294967295][4294967295]`
/// of `.u32`), in whichever state space it lives: such a size must not wrap to a small one.
fn size_overflow(v: &crate::ir::Variable) -> Option<Diagnostic> {
    let sized = v.dims.iter().all(|d| matches!(d, ArrayDim::Sized(_)));
    let overflows = if sized {
        v.size_bytes().is_none()
    } else {
        match (&v.init, v.dims.first()) {
            (Some(crate::ir::Initializer::List(items)), Some(ArrayDim::Unsized)) => v
                .entry_bytes(0)
                .and_then(|e| e.checked_mul(items.len() as u64))
                .is_none(),
            _ => false,
        }
    };
    overflows.then(|| Diagnostic {
        rule: "size-overflow",
        message: format!(
            "the size of `{}` ({} of {}-byte elements) does not fit 64 bits",
            v.name,
            dims_text(&v.dims),
            u64::from(v.ty.bytes()) * v.vec.map_or(1, |x| x.len() as u64)
        ),
        span: v.span,
    })
}

/// The dimensions as written, `[4294967295][4294967295]`.
fn dims_text(dims: &[ArrayDim]) -> String {
    dims.iter()
        .map(|d| match d {
            ArrayDim::Sized(n) => format!("[{n}]"),
            ArrayDim::Unsized => "[]".to_string(),
        })
        .collect()
}

/// Reports each `.align N` whose N is not a power of two (module variables, function
/// variables, parameters and return parameters).
fn check_alignments(m: &Module, out: &mut Vec<Diagnostic>) {
    let in_functions = m.functions.iter().flat_map(|f| {
        f.locals
            .iter()
            .chain(f.params.iter().map(|p| &p.var))
            .chain(f.returns.iter().map(|p| &p.var))
    });
    for v in m.globals.iter().chain(in_functions) {
        if let Some(a) = v.align.filter(|a| !a.is_power_of_two()) {
            out.push(Diagnostic {
                rule: "alignment",
                message: format!("`.align {a}` on `{}` is not a power of two", v.name),
                span: v.span,
            });
        }
    }
}

/// Reports the first module-scope `.const` variable that does not fit the constant bank.
fn check_const_bank(m: &Module, out: &mut Vec<Diagnostic>) {
    let mut used = 0u64;
    for v in m.globals.iter().filter(|v| v.space == StateSpace::Const) {
        let align = u64::from(v.alignment()).max(1);
        used = used.div_ceil(align).saturating_mul(align);
        used = used.saturating_add(v.allocated_bytes());
        if used > CONST_BANK_SIZE {
            out.push(Diagnostic {
                rule: "const-bank-full",
                message: format!(
                    "with `{}` the module's .const variables take {used} bytes; a constant bank holds {CONST_BANK_SIZE}",
                    v.name
                ),
                span: v.span,
            });
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diags(decls: &str) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        check_module(&crate::validate::module_declaring(decls), &mut out);
        out
    }

    #[test]
    fn the_constant_bank_holds_64_kib_as_ptxas_counts_it() {
        // ptxas 13.5 accepts exactly 0x10000 bytes and refuses .const .u32 c[20000] (0x13880).
        assert!(diags(".const .u32 c[16384];").is_empty());
        assert!(diags(".const .u32 a[16000];\n.const .u32 b[384];").is_empty());
        let d = diags(".const .u32 a[16000];\n.const .u8 pad;\n.const .u32 b[384];");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].rule, "const-bank-full");
        assert!(
            d[0].message.contains("with `b`") && d[0].message.contains("65540"),
            "{}",
            d[0].message
        );
        assert_eq!(diags(".const .u32 c[20000];").len(), 1);
        assert!(
            diags(".global .u32 g[20000];").is_empty(),
            "only .const counts"
        );
    }

    #[test]
    fn a_size_that_overflows_64_bits_is_refused_naming_the_variable() {
        // Issue 23: these became 0-byte variables that aliased argument 0's buffer.
        for decl in [
            ".global .u32 g[4294967295][4294967295];",
            ".global .u32 g[4611686018427387904];",
            ".shared .u64 g[4611686018427387904];",
            ".const .u32 g[4294967295][4294967295];",
            ".extern .shared .u32 g[4294967295][4294967295];",
        ] {
            let d = diags(decl);
            let o = d.iter().find(|d| d.rule == "size-overflow");
            let o = o.unwrap_or_else(|| panic!("{decl}: {d:?}"));
            assert!(o.message.contains("`g`"), "{}", o.message);
        }
        let m = crate::front::parse_module(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k()\n{\n.local .u64 l[4294967295][4294967295];\nret;\n}\n",
            "t.ptx",
        )
        .unwrap();
        let mut out = Vec::new();
        check_module(&m, &mut out);
        assert!(
            out.iter()
                .any(|d| d.rule == "size-overflow" && d.message.contains("`l`")),
            "{out:?}"
        );
        // The largest product that fits is not an overflow.
        assert!(diags(".global .u8 g[4294967295][4294967295];")
            .iter()
            .all(|d| d.rule != "size-overflow"));
    }

    #[test]
    fn only_extern_variables_may_lack_a_size() {
        // ptxas 13.5 refuses the first three, accepts the last three.
        for decl in [
            ".shared .align 4 .b32 slots[0];",
            ".global .b32 g[0];",
            ".shared .b32 s[];",
        ] {
            let d = diags(decl);
            assert!(d.iter().any(|d| d.rule == "incomplete-type"), "{decl}");
        }
        for decl in [
            ".extern .shared .align 4 .b32 slots[0];",
            ".extern .shared .align 16 .b8 smem[];",
            ".global .b32 s[] = {1,2};",
        ] {
            assert!(diags(decl).is_empty(), "{decl}");
        }
    }

    #[test]
    fn alignments_are_powers_of_two() {
        // ptxas 13.5: "Alignment must be a power of two" for 0 and 3.
        assert!(diags(".global .align 16 .b8 s[4];").is_empty());
        for decl in [".global .align 0 .b8 s[4];", ".global .align 3 .b8 s[4];"] {
            let d = diags(decl);
            assert_eq!(d.len(), 1, "{decl}");
            assert_eq!(d[0].rule, "alignment");
        }
        let m = crate::front::parse_module(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .align 6 .b8 p[12])\n{\n.local .align 12 .b8 l[12];\nret;\n}\n",
            "t.ptx",
        )
        .unwrap();
        let mut out = Vec::new();
        check_module(&m, &mut out);
        assert_eq!(out.len(), 2, "the parameter and the local: {out:?}");
    }
}
