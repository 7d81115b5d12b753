//! Why lowering refuses a module or a function: [`DecodeError`], and the constructors the
//! lowering functions use to name the instruction at fault.

use crate::ir::{Instr, Span};

/// Why a module cannot be run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A construct the interpreter does not implement (a limit of the tool).
    #[error("line {}: unsupported by the interpreter: {what}", span.line)]
    Unsupported {
        /// What.
        what: String,
        /// Where.
        span: Span,
    },
    /// A guarantee of the validator did not hold when lowering read an operand: a bug of
    /// ptxemu, never a malformed module ([`crate::validate::forms`]).
    #[error("{0}")]
    Unguaranteed(#[from] crate::validate::Unguaranteed),
    /// The module's variables do not fit the run's memory budget, or the host refused them.
    #[error("{0}")]
    Memory(crate::exec::reserve::ReserveError),
}

/// The instruction uses a construct the interpreter does not implement.
pub fn unsupported(ins: &Instr, what: impl Into<String>) -> DecodeError {
    DecodeError::Unsupported {
        what: what.into(),
        span: ins.span,
    }
}
