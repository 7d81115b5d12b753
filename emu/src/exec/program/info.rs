//! Cold information about each decoded instruction, for the reports that name a line:
//! faults, the race detector's report, the nc check's, the proxy checker's.

use crate::ir::Span;

/// Cold information about an instruction, for fault reports.
#[derive(Clone, Debug)]
pub struct InstrInfo {
    /// Its span in the source.
    pub span: Span,
    /// Its text as printed.
    pub text: String,
    /// The program's source line, from the `.loc` before it (shared by the instructions it
    /// covers).
    pub source: Option<std::sync::Arc<crate::exec::fault::SourceLine>>,
}
