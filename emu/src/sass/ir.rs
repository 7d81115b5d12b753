//! The typed SASS instructions ptxemu runs: the SPA 5.0 `LD` of the seed with every form, its
//! mirror `ST`, and the companions a runnable program needs.

/// A general register: `R0`…`R254`, or `RZ` (reads zero, writes are dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reg(pub u8);

impl Reg {
    /// `RZ`.
    pub const RZ: Reg = Reg(255);

    /// Whether this is `RZ`.
    pub fn is_rz(self) -> bool {
        self.0 == 255
    }
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_rz() {
            f.write_str("RZ")
        } else {
            write!(f, "R{}", self.0)
        }
    }
}

/// A predicate register: `P0`…`P6`, or `PT` (always true; writes are dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pred(pub u8);

impl Pred {
    /// `PT`.
    pub const PT: Pred = Pred(7);
}

impl std::fmt::Display for Pred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == 7 {
            f.write_str("PT")
        } else {
            write!(f, "P{}", self.0)
        }
    }
}

/// A predicate operand, possibly negated (`!P0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredUse {
    /// The predicate.
    pub pred: Pred,
    /// `!`
    pub negated: bool,
}

/// A source operand of an ALU instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// A register.
    Reg(Reg),
    /// An immediate (its 32-bit pattern).
    Imm(u32),
    /// A constant-bank word `c[bank][offset]`.
    Const {
        /// Bank.
        bank: u8,
        /// Byte offset.
        offset: u32,
    },
}

/// `.cop` of `LD`/`ST`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CacheOp {
    /// `.CA`: cache at all levels (the default).
    #[default]
    Ca,
    /// `.CG`: cache at the global level (L2), not L1.
    Cg,
    /// `.CS`: streaming; the seed maps it to `.CA`.
    Cs,
    /// `.LU`: last use; the seed maps it to `.CG`.
    Lu,
    /// `.CV`: volatile, fetch again.
    Cv,
    /// `.CI`: inconsistent (invariant data).
    Ci,
    /// `.WB` (stores): write back (the default of `ST`).
    Wb,
    /// `.WT` (stores): write through.
    Wt,
}

impl CacheOp {
    /// The operator the hardware applies (`.CS` acts as `.CA`, `.LU` as `.CG`).
    pub fn effective(self) -> CacheOp {
        match self {
            CacheOp::Cs => CacheOp::Ca,
            CacheOp::Lu => CacheOp::Cg,
            c => c,
        }
    }
}

/// `.sz` of `LD`/`ST`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Size {
    /// `.U8`
    U8,
    /// `.S8`
    S8,
    /// `.U16`
    U16,
    /// `.S16`
    S16,
    /// `.32` (the default)
    #[default]
    B32,
    /// `.64`: `{Rd, Rd+1}`
    B64,
    /// `.128`: `Rd…Rd+3`
    B128,
    /// `.U.128`: `.128` with a uniform-address hint
    U128,
}

impl Size {
    /// Bytes accessed.
    pub fn bytes(self) -> u32 {
        match self {
            Size::U8 | Size::S8 => 1,
            Size::U16 | Size::S16 => 2,
            Size::B32 => 4,
            Size::B64 => 8,
            Size::B128 | Size::U128 => 16,
        }
    }

    /// Registers written or read.
    pub fn regs(self) -> u8 {
        match self {
            Size::B64 => 2,
            Size::B128 | Size::U128 => 4,
            _ => 1,
        }
    }
}

/// A memory operand `[Ra + ImmS32]`, `[ImmU32]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    /// The base register (`RZ` when omitted).
    pub base: Reg,
    /// The offset as assembled (a signed offset with a base, an unsigned absolute without).
    pub offset: u32,
}

/// A memory access's qualifiers and operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// `.E`: 64-bit address in `{Ra+1, Ra}`.
    pub extended: bool,
    /// Cache operator.
    pub cop: CacheOp,
    /// Size.
    pub size: Size,
    /// The data register (`Rd` of `LD`, the stored register of `ST`).
    pub data: Reg,
    /// The address.
    pub addr: Address,
    /// `Plg`: true selects the local/global windows, false the shared window (`PT` default).
    pub plg: PredUse,
}

/// Integer comparison of `ISETP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `.LT`
    Lt,
    /// `.EQ`
    Eq,
    /// `.LE`
    Le,
    /// `.GT`
    Gt,
    /// `.NE`
    Ne,
    /// `.GE`
    Ge,
}

/// Boolean combination of `ISETP` with its predicate operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    /// `.AND`
    And,
    /// `.OR`
    Or,
    /// `.XOR`
    Xor,
}

/// Logic operation of `LOP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    /// `.AND`
    And,
    /// `.OR`
    Or,
    /// `.XOR`
    Xor,
}

/// A special register readable by `S2R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialReg {
    /// `SR_TID.X/Y/Z` (0, 1, 2)
    Tid(u8),
    /// `SR_CTAID.X/Y/Z`
    CtaId(u8),
    /// `SR_LANEID`
    LaneId,
}

/// One instruction's operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `LD`
    Ld(MemAccess),
    /// `ST`
    St(MemAccess),
    /// `MOV Rd, src`
    Mov(Reg, Src),
    /// `MOV32I Rd, imm`
    Mov32i(Reg, u32),
    /// `IADD Rd, Ra, src` / `IADD32I Rd, Ra, imm`
    Iadd(Reg, Reg, Src),
    /// `ISCADD Rd, Ra, src, shift`: `(Ra << shift) + src`
    Iscadd(Reg, Reg, Src, u32),
    /// `SHL Rd, Ra, src`
    Shl(Reg, Reg, Src),
    /// `SHR{.U32} Rd, Ra, src` (arithmetic unless `.U32`)
    Shr {
        /// Destination.
        d: Reg,
        /// Value.
        a: Reg,
        /// Amount.
        b: Src,
        /// `.U32`: logical.
        unsigned: bool,
    },
    /// `LOP.op Rd, Ra, src`
    Lop(LogicOp, Reg, Reg, Src),
    /// `ISETP.cmp{.U32}.bop Pd, Pq, Ra, src, Pc`
    Isetp {
        /// Comparison.
        cmp: Cmp,
        /// `.U32`
        unsigned: bool,
        /// Combination with `c`.
        bop: BoolOp,
        /// Gets `(a cmp b) bop c`.
        p: Pred,
        /// Gets `!(a cmp b) bop c`.
        q: Pred,
        /// Left.
        a: Reg,
        /// Right.
        b: Src,
        /// Combined predicate.
        c: PredUse,
    },
    /// `S2R Rd, SR_…`
    S2r(Reg, SpecialReg),
    /// `BRA target` (an instruction index once resolved).
    Bra(usize),
    /// `EXIT`
    Exit,
    /// `NOP`
    Nop,
}

/// A source position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// One instruction with its guard, its scheduling annotations and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// `@P0`, `@!P0` (`PT` when none).
    pub guard: PredUse,
    /// The operation.
    pub op: Op,
    /// Scheduling annotations as written (`&req_6`, `&rd2`, `&wr0`, `?sched`), kept without effect.
    pub annotations: Vec<String>,
    /// The source text of the instruction (without guard-less whitespace changes).
    pub text: String,
    /// Where it starts.
    pub pos: Pos,
}

/// A parsed SASS program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Instructions in order.
    pub instrs: Vec<Instr>,
}
