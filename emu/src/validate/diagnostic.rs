//! What the validator reports: a broken rule at a position ([`Diagnostic`]).

use crate::front::error::render_at;
use crate::ir::Span;

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
