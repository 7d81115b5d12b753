//! Validation of a parsed module: operand shapes and types per instruction family, and the
//! PTX ISA version and target each feature requires ("PTX ISA Notes", "Target ISA Notes").
//!
//! The interpreter trusts a module that validates; everything it could stumble on is caught
//! here with the rule's name and the instruction's position.

pub mod diagnostic;
pub mod forms;
pub mod init;
mod instr;
mod limits;
mod memory;
pub(crate) mod prefetch;
mod target;

pub use target::is_known_arch_name;
mod types;
pub mod validated;
mod warp_level;

pub use diagnostic::{Diagnostic, UNSUPPORTED};
pub use forms::{Part, Unguaranteed};
pub use validated::Validated;

use crate::ir::{Module, Stmt};

/// Checks a module; returns every diagnostic, in source order.
pub fn validate_module(m: &Module) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    target::check_header(m, &mut out);
    init::check_module(m, &mut out);
    limits::check_module(m, &mut out);
    for f in &m.functions {
        for (what, span) in &f.unsupported {
            out.push(Diagnostic {
                rule: UNSUPPORTED,
                message: format!("not supported by ptxemu: {what}"),
                span: *span,
            });
        }
        crate::tcgen05::validate::group::check_function(f, &mut out);
        let Some(body) = &f.body else { continue };
        let mut stack = vec![body];
        while let Some(b) = stack.pop() {
            for s in &b.stmts {
                match s {
                    Stmt::Instr(i) => {
                        let before = out.len();
                        instr::check(m, f, i, &mut out);
                        if out.len() == before {
                            memory::check(f, i, &mut out);
                            prefetch::check(m, f, i, &mut out);
                            types::check(f, i, &mut out);
                            crate::tcgen05::validate::check(f, i, &mut out);
                            warp_level::check(m, f, i, &mut out);
                            crate::async_copy::validate::check(m, f, i, &mut out);
                            crate::tma::validate::check(m, f, i, &mut out);
                            crate::cluster_launch::validate::check(m, f, i, &mut out);
                            crate::mma::validate::check(f, i, &mut out);
                            crate::wgmma::validate::check(f, i, &mut out);
                        }
                        target::check_instr(m, i, &mut out);
                    }
                    Stmt::Block(inner) => stack.push(inner),
                    Stmt::Regs(_)
                    | Stmt::Var(_)
                    | Stmt::Prototype(_)
                    | Stmt::Targets(_)
                    | Stmt::Label(_)
                    | Stmt::Pragma(_)
                    | Stmt::Loc(_) => {}
                }
            }
        }
    }
    out.sort_by_key(|d| (d.span.line, d.span.col));
    out
}

/// A module of the given module-scope declarations and one empty kernel (for unit tests of
/// the declaration rules).
#[cfg(test)]
fn module_declaring(decls: &str) -> Module {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n{decls}\n.visible .entry k()\n{{\nret;\n}}\n"
    );
    crate::front::parse_module(&src, "t.ptx").expect("parses")
}
