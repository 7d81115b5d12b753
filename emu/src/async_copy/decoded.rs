//! The decoded form of `cp.async` and `mbarrier` instructions (the payload of
//! [`crate::exec::program::Extra::Async`]).

use crate::exec::program::operand::DAddr;

/// The extra data of a decoded async instruction.
#[derive(Clone, Debug)]
pub struct AsyncInstr {
    /// The shared-memory address (copy destination, or the mbarrier).
    pub addr: DAddr,
    /// The global source of a copy.
    pub src: Option<DAddr>,
    /// Operation-specific parameter (copy size, flags).
    pub param: u64,
}
