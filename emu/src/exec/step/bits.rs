//! Bit-manipulation instructions: `popc`, `clz`, `bfind`, `fns`, `brev`, `bfe`, `bfi`,
//! `bmsk`, `szext`, `lop3`, `shf`, `prmt`.
//!
//! (Interim: wired to `crate::semantics` next.)

use crate::exec::decode::{DecodeError, FnCtx};
use crate::exec::program::DInstr;
use crate::ir::Instr;

/// Lowers a bit-manipulation instruction.
pub fn lower(_fx: &FnCtx<'_>, ins: &Instr, _d: DInstr) -> Result<DInstr, DecodeError> {
    Err(DecodeError::Unsupported {
        what: format!("{:?}", ins.op),
        span: ins.span,
    })
}
