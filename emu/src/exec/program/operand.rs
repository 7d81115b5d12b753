//! The operands of a decoded instruction: sources and destinations resolved to register
//! slots, immediates and special registers, and addresses resolved to a base, an offset and a
//! state space.

use crate::ir::SpecialReg;

/// A source operand, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    /// A value slot.
    Reg(u32),
    /// A predicate slot, possibly negated (`!%p`).
    Pred {
        /// The slot.
        slot: u32,
        /// `!`
        neg: bool,
    },
    /// An immediate, already converted to the instruction's type (raw bits).
    Imm(u64),
    /// A special register.
    Special(SpecialReg),
    /// The local-space address `frame base + offset` of a variable in the lane's current
    /// activation frame (function-scope `.local`/`.param` variables, `.func` parameters).
    Frame(u64),
    /// The `.shared::cta` address of a shared variable (plus an offset): the offset itself in
    /// a CTA of rank 0, else the CTA's own `.shared::cluster` address of it, which carries its
    /// cluster rank from bit 24 as sm_90 and sm_100 shared addresses do
    /// ([`crate::cluster::dsmem`]).
    SharedSym(u64),
    /// No operand.
    None,
}

/// A destination operand, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dst {
    /// A value slot, with the width of the register and whether a narrower result is
    /// sign-extended into it.
    Reg {
        /// The slot.
        slot: u32,
        /// The register's width in bits (results are masked or extended to it).
        bits: u8,
        /// Sign-extend a narrower result (signed instruction types).
        sext_from: u8,
    },
    /// A predicate slot.
    Pred(u32),
    /// `_`: discard.
    Sink,
}

/// Where a memory instruction's address points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrSpace {
    /// Generic addressing: each lane's address is decoded through the windows.
    Generic,
    /// Global memory.
    Global,
    /// The CTA's shared memory.
    Shared,
    /// The lane's local memory (also `.param` variables of device functions).
    Local,
    /// The kernel's parameter buffer.
    KernelParam,
    /// The constant banks.
    Const,
}

/// The base of a decoded address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrBase {
    /// A register's value.
    Reg(u32),
    /// A fixed address in the instruction's space.
    Fixed(u64),
    /// The lane's frame base (a frame variable).
    Frame(u64),
}

/// A decoded address: `base + offset` in a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DAddr {
    /// The base.
    pub base: AddrBase,
    /// The byte offset.
    pub offset: i64,
    /// The space the address is in.
    pub space: AddrSpace,
}
