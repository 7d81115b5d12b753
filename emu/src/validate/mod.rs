//! Validation of a parsed module: operand shapes and types per instruction family, and the
//! PTX ISA version and target each feature requires ("PTX ISA Notes", "Target ISA Notes").
//!
//! The interpreter trusts a module that validates; everything it could stumble on is caught
//! here with the rule's name and the instruction's position.

mod async_copy;
mod cluster_launch;
pub mod init;
mod instr;
mod limits;
mod memory;
pub mod mma;
mod prefetch;
mod target;

pub use target::is_known_arch_name;
mod tcgen05;
mod tcgen05_cp;
mod tcgen05_group;
mod tcgen05_mma;
mod tma;
mod types;
mod warp_level;
mod wgmma;
mod wmma;

use crate::front::error::render_at;
use crate::ir::{Module, Span, Stmt};

/// A broken rule, at a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// A short name of the rule (`operand-count`, `requires-sm_70`, …).
    pub rule: &'static str,
    /// What is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl Diagnostic {
    /// Renders `file:line:col: error[rule]: message` with the source line and a caret.
    pub fn render(&self, src: &str, file: &str) -> String {
        render_at(
            src,
            file,
            self.span,
            &format!("error[{}]: {}", self.rule, self.message),
        )
    }
}

/// The rule of a diagnostic for an instruction ptxemu does not implement. Such an instruction
/// does not make the module invalid to run: only the kernels that reach it are refused.
pub const UNSUPPORTED: &str = "unsupported";

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
        tcgen05_group::check_function(f, &mut out);
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
                            tcgen05::check(f, i, &mut out);
                            warp_level::check(m, f, i, &mut out);
                            async_copy::check(m, f, i, &mut out);
                            tma::check(m, f, i, &mut out);
                            cluster_launch::check(m, f, i, &mut out);
                            mma::check(f, i, &mut out);
                            wgmma::check(f, i, &mut out);
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
