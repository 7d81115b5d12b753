//! Why lowering refuses a module or a function: [`DecodeError`], and the constructors the
//! lowering functions use to name the instruction at fault.

use crate::ir::{Instr, Operand, Span};

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
    /// A malformed instruction the validator should have rejected.
    #[error("line {}: {what}", span.line)]
    Invalid {
        /// What is wrong.
        what: String,
        /// Where.
        span: Span,
    },
    /// The module's variables do not fit the run's memory budget, or the host refused them.
    #[error("{0}")]
    Memory(crate::exec::reserve::ReserveError),
}

/// Operand `k` of the instruction, or an error naming the missing operand.
///
/// # Errors
/// The instruction has fewer operands.
pub fn arg(ins: &Instr, k: usize) -> Result<&Operand, DecodeError> {
    ins.args
        .get(k)
        .ok_or_else(|| invalid(ins, format!("missing operand {}", k + 1)))
}

/// The instruction uses a construct the interpreter does not implement.
pub fn unsupported(ins: &Instr, what: impl Into<String>) -> DecodeError {
    DecodeError::Unsupported {
        what: what.into(),
        span: ins.span,
    }
}

/// The instruction is malformed in a way the validator should have rejected.
pub fn invalid(ins: &Instr, what: impl Into<String>) -> DecodeError {
    DecodeError::Invalid {
        what: what.into(),
        span: ins.span,
    }
}
