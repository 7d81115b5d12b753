//! One CTA group per function: ptxas rejects a function whose tcgen05 instructions use both
//! `.cta_group::1` and `.cta_group::2` ("uses single CTA and CTA pair granularity"; ptxas
//! 13.5 verdicts). Reported at the first instruction of the group that came second.

use crate::ir::{CtaGroup, Function, Op, Stmt};
use crate::validate::diagnostic::Diagnostic;

fn name(g: CtaGroup) -> &'static str {
    match g {
        CtaGroup::One => ".cta_group::1",
        CtaGroup::Two => ".cta_group::2",
    }
}

/// The rule for function `f`.
pub fn check_function(f: &Function, out: &mut Vec<Diagnostic>) {
    let Some(body) = &f.body else { return };
    let mut first: Option<(CtaGroup, u32)> = None;
    let mut stack = vec![body];
    let mut instrs = Vec::new();
    while let Some(b) = stack.pop() {
        for s in &b.stmts {
            match s {
                Stmt::Instr(i) => instrs.push(i),
                Stmt::Block(inner) => stack.push(inner),
                _ => {}
            }
        }
    }
    instrs.sort_by_key(|i| (i.span.line, i.span.col));
    for i in instrs {
        let Op::Tcgen05(t) = &i.op else { continue };
        let Some(g) = t.group() else { continue };
        match first {
            None => first = Some((g, i.span.line)),
            Some((g0, line)) if g0 != g => {
                out.push(Diagnostic {
                    rule: "tcgen05-cta-group",
                    message: format!(
                        "function `{}` uses {} here and {} at line {line}: the tcgen05 instructions of a function must all name the same CTA group (ptxas: single CTA and CTA pair granularity are not allowed together)",
                        f.name,
                        name(g),
                        name(g0)
                    ),
                    span: i.span,
                });
                return;
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    fn diags(body: &str) -> Vec<crate::tcgen05::validate::group::Diagnostic> {
        let src = format!(
            ".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 r<4>;\n.reg .b64 d<4>;\n.reg .pred p;\n{body}\nret;\n}}\n"
        );
        let m = crate::front::parse_module(&src, "t.ptx").expect("parses");
        crate::validate::validate_module(&m)
    }

    #[test]
    fn mixing_the_groups_is_rejected_as_ptxas_does() {
        let d = diags(
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [r1], 32;\ntcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [r1], 32;",
        );
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].rule, "tcgen05-cta-group");
        assert_eq!(d[0].span.line, 10);
        assert!(d[0]
            .message
            .contains(".cta_group::2 here and .cta_group::1 at line 9"));
    }

    #[test]
    fn one_group_is_accepted() {
        let d = diags(
            "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [r1], 32;\ntcgen05.shift.cta_group::2.down [r1];\ntcgen05.ld.sync.aligned.32x32b.x1.b32 {r2}, [r1];",
        );
        assert!(d.is_empty(), "{d:?}");
    }
}
