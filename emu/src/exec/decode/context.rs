//! What lowering one instruction may know about its function: [`FnCtx`] (the module, the
//! function, its register slots and label addresses) and where each register lives
//! ([`SlotInfo`]).

use super::error::DecodeError;
use super::layout::Layout;
use crate::ir::{Function, Instr, LabelId, Module, Operand, RegId, Type};
use crate::validate::Validated;

/// Where a register lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotInfo {
    /// Value slots starting at `slot` (`count` > 1 for `.b128` and vector registers).
    Val {
        /// First slot.
        slot: u32,
        /// Width in bits of one element.
        bits: u8,
        /// Number of consecutive slots.
        count: u8,
    },
    /// A predicate slot.
    Pred(u32),
}

/// What lowering an instruction may need to know about its function.
pub struct FnCtx<'a> {
    /// The module.
    pub module: &'a Module,
    /// The module as the validator accepted it: its readers give the operand forms the
    /// validator guarantees ([`crate::validate::forms`]).
    pub validated: &'a Validated,
    /// The function.
    pub func: &'a Function,
    /// Its index.
    pub fid: u32,
    /// The module's layout.
    pub layout: &'a Layout,
    /// Register → slot.
    pub slots: Vec<SlotInfo>,
    /// Label → pc.
    pub labels: Vec<u32>,
    /// The hidden predicate slot holding the carry flag (`.cc`).
    pub cc_slot: u32,
}

impl FnCtx<'_> {
    /// Operand `k` of `ins`: the validator's [`Validated::operand`] (the rule
    /// `operand-count` guarantees it is present).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu).
    pub fn arg<'i>(&self, ins: &'i Instr, k: usize) -> Result<&'i Operand, DecodeError> {
        Ok(self.validated.operand(ins, k)?)
    }

    /// The slot of a register.
    pub fn slot(&self, r: RegId) -> SlotInfo {
        self.slots[r.index()]
    }

    /// The type a register was declared with.
    pub fn reg_ty(&self, r: RegId) -> Type {
        self.func.regs[r.index()].ty
    }

    /// The pc of a label.
    pub fn label_pc(&self, l: LabelId) -> u32 {
        self.labels[l.index()]
    }
}
