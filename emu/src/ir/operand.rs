//! Instructions, guards and operands: registers, vectors, immediates, symbols and addresses.

use super::*;
use smallvec::SmallVec;

/// One instruction: an optional guard predicate, the opcode with its qualifiers, and operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// `@p` / `@!p`.
    pub guard: Option<Guard>,
    /// Opcode and qualifiers.
    pub op: Op,
    /// Operands in source order (destinations first, as PTX writes them).
    pub args: SmallVec<[Operand; 4]>,
    /// The instruction's text in the source.
    pub span: Span,
}

/// A guard predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The predicate register.
    pub reg: RegId,
    /// `@!p`: execute when the predicate is false.
    pub negated: bool,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register.
    Reg(RegId),
    /// `_|%p`: a discarded destination with a second predicate destination (`elect.sync`).
    SinkDual(RegId),
    /// `!%p`: a negated predicate source.
    NotPred(RegId),
    /// `%d|%p`: a destination with a second predicate destination (`setp`, `shfl`).
    Dual(RegId, RegId),
    /// A special register (`%tid.x`).
    Special(SpecialReg),
    /// An immediate value.
    Imm(Imm),
    /// The address of a variable (`mov.u64 %rd, sym` or `sym+8`), or a function's address.
    Symbol(SymbolAddr),
    /// A braced vector `{a, b, _, d}`.
    Vector(Vec<VecElem>),
    /// A memory address `[base+offset]`.
    Address(Address),
    /// A label (`bra L`).
    Label(LabelId),
    /// `_`: the sink (a destination whose value is discarded).
    Sink,
}

/// An element of a braced vector operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VecElem {
    /// A register.
    Reg(RegId),
    /// `_`: nothing read or written for this element.
    Sink,
    /// An immediate (allowed in some source vectors).
    Imm(Imm),
}

/// An immediate operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Imm {
    /// An integer literal (decimal, hex, octal or binary; `U` suffix allowed), as its value.
    Int(i64),
    /// A float literal, as raw bits.
    Float(FloatImm),
}

/// A floating-point literal: `0fXXXXXXXX` (f32 bits), `0dXXXXXXXXXXXXXXXX` (f64 bits), or a
/// decimal literal (held as f64 bits, as PTX treats decimal float literals as `.f64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatImm {
    /// 32-bit pattern from `0f…`.
    F32(u32),
    /// 64-bit pattern from `0d…` or a decimal literal.
    F64(u64),
}

/// A symbol used as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SymbolAddr {
    /// The symbol.
    pub sym: VarRef,
    /// A byte offset added to its address.
    pub offset: i64,
}

/// A variable or function named in an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarRef {
    /// A module-scope variable.
    Global(GlobalId),
    /// A function-scope variable of the enclosing function.
    Local(LocalId),
    /// A parameter of the enclosing function (index into its `params`).
    Param(u32),
    /// A return parameter of the enclosing function (index into its `returns`).
    Return(u32),
    /// A function (its address).
    Function(FuncId),
}

/// A memory address operand `[base + offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// The base, if any (`[imm]` has none).
    pub base: AddrBase,
    /// A signed byte offset (or the absolute address when there is no base).
    pub offset: i64,
}

/// The base of an [`Address`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    /// `[%rd]`
    Reg(RegId),
    /// `[sym]`
    Var(VarRef),
    /// `[imm]`
    None,
}
