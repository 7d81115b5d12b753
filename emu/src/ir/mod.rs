//! The typed PTX intermediate representation: the one place to read what ptxemu understands.
//!
//! A [`Module`] is what one `.ptx` file declares: its header, module-scope variables and
//! functions. A [`Function`] body is a tree of [`Block`]s whose statements are declarations,
//! labels and [`Instr`]uctions. Every instruction is `Instr { guard, op, args, span }`: the
//! typed opcode-and-qualifier payload [`Op`] (one variant per opcode family, PTX ISA chapter
//! "Instruction Set"), and its operands in source order.
//!
//! Names are resolved by the parser: registers become [`RegId`]s, variables [`VarRef`]s,
//! labels [`LabelId`]s and functions [`FuncId`]s, so nothing downstream looks names up.
//! The memory-model vocabulary (scopes, state spaces, semantics, proxies) comes from `models`.
//!
//! Not represented: debug information (`.loc`, `.file`, `.section` are parsed and dropped),
//! and instruction families the front end reports as unsupported (listed in `front::opcodes`).
//!
//! Deliberate deviations:
//! 1. Qualifier *spelling* that the ISA treats as equivalent is kept only where the assembler
//!    distinguishes it by version or target (`.shared` vs `.shared::cta`, `.weak` written or
//!    not), so a module prints back in a form the same `ptxas` accepts.

pub mod access;
pub mod async_copy;
pub mod mma;
pub mod regalloc;
mod special;
pub mod tcgen05;
pub mod types;

use smallvec::SmallVec;

pub use access::{LoadCop, LoadMode, OrderedLoad, OrderedStore, StoreCop, StoreMode};
pub use async_copy::{CpAsync, CpAsyncCopy, Mbarrier, MbarrierOp, MbarrierSem};
pub use mma::{
    MatrixCount, MatrixFormat, MatrixMove, MatrixShape, Mma, MmaBitOp, MmaElem, MmaLayout,
    MmaShape, WarpMatrix, WmmaFrag, WmmaLoad, WmmaMma, WmmaShape, WmmaStore,
};
pub use models::vocab::{
    FenceSem, LoadSem, ParamWindow, Proxy, RmwSem, Scope, SharedWindow, StateSpace, StoreSem,
};
pub use regalloc::Setmaxnreg;
pub use special::{ReservedSmem, SpecialReg};
pub use tcgen05::{
    CtaGroup, Repeat, Tcgen05, Tcgen05Alloc, Tcgen05Fence, Tcgen05Ld, Tcgen05St, Tcgen05Wait,
    TmemRed, TmemRedOp, TmemRedType, TmemShape, REPEATS,
};
pub use types::{CvtRounding, Dim, FloatRounding, IntRounding, Type, TypeClass, VecWidth};

// ---------------------------------------------------------------------------------------------
// Identifiers and spans
// ---------------------------------------------------------------------------------------------

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The index this identifier stands for.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A register of one function: an index into [`Function::regs`].
    RegId
);
id_type!(
    /// A label of one function: an index into [`Function::labels`].
    LabelId
);
id_type!(
    /// A function of the module: an index into [`Module::functions`].
    FuncId
);
id_type!(
    /// A module-scope variable: an index into [`Module::globals`].
    GlobalId
);
id_type!(
    /// A function-scope variable (`.local`, `.shared`, `.param` declared in a body, including
    /// the `.param` blocks of call sequences): an index into [`Function::locals`].
    LocalId
);
id_type!(
    /// A call prototype (`.callprototype`) of one function: an index into
    /// [`Function::prototypes`].
    ProtoId
);
/// A source file, numbered in the order files were loaded (0 for the first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// Where a construct came from: byte offset and length in the file, and its 1-based line and
/// column (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the span lies in.
    pub file: FileId,
    /// Byte offset of the first character.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
    /// 1-based line of the first character.
    pub line: u32,
    /// 1-based column of the first character.
    pub col: u32,
}

// ---------------------------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------------------------

/// One PTX module: a `.version`, a `.target`, an `.address_size` and its declarations.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `.version major.minor`.
    pub version: Version,
    /// `.target sm_XX[a|f] [, options]`.
    pub target: Target,
    /// `.address_size 32|64` (64 when absent).
    pub address_size: AddressSize,
    /// Module-scope variables, in declaration order.
    pub globals: Vec<Variable>,
    /// Functions and kernels (declarations and definitions), in declaration order.
    pub functions: Vec<Function>,
    /// The order in which module-scope items appeared, for printing.
    pub items: Vec<ModuleItem>,
}

/// A PTX ISA version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl Version {
    /// Builds a version.
    pub const fn new(major: u32, minor: u32) -> Version {
        Version { major, minor }
    }
}

/// The `.target` directive: an architecture and options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The SM version number (`sm_90` → 90).
    pub sm: u32,
    /// `a` (architecture-specific) or `f` (family) suffix.
    pub suffix: ArchSuffix,
    /// Further options (`texmode_unified`, `debug`, `map_f64_to_f32`, …).
    pub options: Vec<TargetOption>,
}

/// The suffix of an architecture name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArchSuffix {
    /// `sm_90`
    None,
    /// `sm_90a`: architecture-specific features.
    Arch,
    /// `sm_100f`: family-specific features.
    Family,
}

/// An option of the `.target` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetOption {
    /// `texmode_unified`
    TexmodeUnified,
    /// `texmode_independent`
    TexmodeIndependent,
    /// `debug`
    Debug,
    /// `map_f64_to_f32`
    MapF64ToF32,
}

/// `.address_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressSize {
    /// 32-bit addresses.
    Bits32,
    /// 64-bit addresses (the default).
    Bits64,
}

/// A module-scope item, in source order.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleItem {
    /// A variable declaration.
    Global(GlobalId),
    /// A function or kernel: its definition, or its only declaration.
    Function(FuncId),
    /// A declaration (prototype only) of a function that is defined later in the module.
    Declaration(FuncId),
}

/// How a module-scope symbol is visible to other modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// No linking directive: private to the module.
    Internal,
    /// `.visible`
    Visible,
    /// `.extern`: declared here, defined elsewhere.
    Extern,
    /// `.weak`
    Weak,
    /// `.common`
    Common,
}

// ---------------------------------------------------------------------------------------------
// Variables
// ---------------------------------------------------------------------------------------------

/// A variable declaration in an addressable state space.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// The variable's name.
    pub name: String,
    /// The state space it lives in.
    pub space: StateSpace,
    /// Linking directive (module scope only).
    pub linkage: Linkage,
    /// `.align N`, if given.
    pub align: Option<u32>,
    /// `.v2/.v4` element vectors.
    pub vec: Option<VecWidth>,
    /// The element type.
    pub ty: Type,
    /// Array dimensions, outermost first; empty for a scalar.
    pub dims: Vec<ArrayDim>,
    /// Initial value, if any.
    pub init: Option<Initializer>,
    /// `.ptr` attributes of a kernel parameter or variable (`.ptr.global.align 16`).
    pub ptr: Option<PtrAttr>,
    /// Where it was declared.
    pub span: Span,
}

impl Variable {
    /// The number of elements (product of dimensions), or `None` when an outer dimension is
    /// unsized (`[]`).
    pub fn element_count(&self) -> Option<u64> {
        let lanes = self.vec.map_or(1, |v| v.len() as u64);
        self.dims.iter().try_fold(lanes, |acc, d| match d {
            ArrayDim::Sized(n) => acc.checked_mul(*n),
            ArrayDim::Unsized => None,
        })
    }

    /// The size in bytes, or `None` when unsized.
    pub fn size_bytes(&self) -> Option<u64> {
        self.element_count()?
            .checked_mul(u64::from(self.ty.bytes()))
    }

    /// Bytes of one entry of dimension `depth` (0: outermost): the inner dimensions' sizes
    /// times the element size, all lanes of a vector element included (`None` if an inner
    /// dimension is unsized or the product overflows).
    pub fn entry_bytes(&self, depth: usize) -> Option<u64> {
        let lanes = self.vec.map_or(1, |v| v.len() as u64);
        let element = u64::from(self.ty.bytes()) * lanes;
        self.dims
            .get(depth + 1..)
            .unwrap_or(&[])
            .iter()
            .try_fold(element, |acc, d| match d {
                ArrayDim::Sized(n) => acc.checked_mul(*n),
                ArrayDim::Unsized => None,
            })
    }

    /// The bytes the variable occupies: its size, or for an array whose outer dimension is
    /// unsized one entry per item of its initialiser's outer list (0 without one, as for
    /// `.extern .shared` arrays; saturating on overflow).
    pub fn allocated_bytes(&self) -> u64 {
        if let Some(n) = self.size_bytes() {
            return n;
        }
        match (&self.init, self.dims.first()) {
            (Some(Initializer::List(items)), Some(ArrayDim::Unsized)) => self
                .entry_bytes(0)
                .map_or(u64::MAX, |e| e.saturating_mul(items.len() as u64)),
            _ => 0,
        }
    }

    /// The alignment the variable must have: its `.align`, else its element size.
    pub fn alignment(&self) -> u32 {
        let elem = self.ty.bytes() * self.vec.map_or(1, |v| v.len() as u32);
        self.align.unwrap_or(elem.max(1))
    }
}

/// One array dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayDim {
    /// `[N]`
    Sized(u64),
    /// `[]`: size taken from the initialiser, or unsized (`.extern .shared`).
    Unsized,
}

/// `.ptr{.space}{.align N}` attributes of a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    /// The space the pointer points to (`Generic` when not given).
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
}

/// A variable initialiser.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// One value.
    Value(InitValue),
    /// `{ … }`: one entry per element (nested for multi-dimensional arrays).
    List(Vec<Initializer>),
}

/// A scalar initial value.
#[derive(Clone, Debug, PartialEq)]
pub enum InitValue {
    /// An integer constant (its 64-bit two's complement pattern).
    Int(i64),
    /// A float constant, as the raw bits of the given width.
    Float(FloatImm),
    /// The address of a variable or function, plus a byte offset; `generic(sym)` when
    /// `generic` is set.
    Address {
        /// The symbol whose address is taken.
        sym: SymbolRef,
        /// A byte offset added to it.
        offset: i64,
        /// Whether written as `generic(sym)`.
        generic: bool,
    },
}

/// A module-scope symbol named in an initialiser or call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolRef {
    /// A module-scope variable.
    Global(GlobalId),
    /// A function.
    Function(FuncId),
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

/// A kernel (`.entry`) or device function (`.func`), declared or defined.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// Kernel or device function.
    pub kind: FunctionKind,
    /// Linking directive.
    pub linkage: Linkage,
    /// Return parameters (`.func` only).
    pub returns: Vec<ParamDecl>,
    /// Parameters.
    pub params: Vec<ParamDecl>,
    /// `.noreturn`
    pub noreturn: bool,
    /// Performance-tuning directives (`.maxntid`, `.reqntid`, …).
    pub perf: Vec<PerfDirective>,
    /// Every register declared in the body, in declaration order.
    pub regs: Vec<RegInfo>,
    /// Every function-scope variable, in declaration order.
    pub locals: Vec<Variable>,
    /// Every label, in declaration order.
    pub labels: Vec<LabelInfo>,
    /// Every `.callprototype` declared in the body.
    pub prototypes: Vec<Prototype>,
    /// The body, or `None` for a declaration.
    pub body: Option<Block>,
    /// Instructions of the body that are PTX but that ptxemu does not implement (`mma`,
    /// `cp.async`, …), left out of the body: what each is and where. The validator reports
    /// them; the interpreter refuses the kernels that reach this function.
    pub unsupported: Vec<(String, Span)>,
    /// Where the function was declared.
    pub span: Span,
}

/// Kernel or device function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `.entry`: launched from the host.
    Entry,
    /// `.func`: called from device code.
    Func,
}

/// A function parameter (or return value).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    /// The parameter's name (may be empty in declarations and prototypes).
    pub name: String,
    /// `.param` or `.reg`.
    pub kind: ParamKind,
    /// The parameter as a variable: type, alignment, array dimensions, `.ptr` attributes.
    pub var: Variable,
}

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// In the `.param` state space.
    Param,
    /// In a register (`.reg` parameters of `.func`).
    Reg(RegId),
}

/// A performance-tuning directive of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerfDirective {
    /// `.maxntid x[, y[, z]]`
    Maxntid(Vec<u32>),
    /// `.reqntid x[, y[, z]]`
    Reqntid(Vec<u32>),
    /// `.minnctapersm n`
    Minnctapersm(u32),
    /// `.maxnctapersm n`
    Maxnctapersm(u32),
    /// `.maxnreg n`
    Maxnreg(u32),
    /// `.maxclusterrank n`
    Maxclusterrank(u32),
    /// `.reqnctapercluster x[, y[, z]]`
    Reqnctapercluster(Vec<u32>),
    /// `.explicitcluster`
    Explicitcluster,
    /// `.pragma "…"` attached to the function.
    Pragma(String),
    /// `.blocksareclusters`
    Blocksareclusters,
}

/// A declared register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    /// The register's full name (`%r12`).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `.v2/.v4` vector registers.
    pub vec: Option<VecWidth>,
}

/// A declared label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelInfo {
    /// The label's name.
    pub name: String,
}

/// A `.callprototype` declaration: the signature of indirect call targets.
#[derive(Clone, Debug, PartialEq)]
pub struct Prototype {
    /// The label naming it.
    pub name: String,
    /// Return parameters.
    pub returns: Vec<ParamDecl>,
    /// Parameters.
    pub params: Vec<ParamDecl>,
    /// `.noreturn`
    pub noreturn: bool,
}

/// A `{ … }` block: a scope for declarations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// The closing `}`.
    pub close: Span,
}

/// A statement in a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// A register declaration.
    Regs(RegDecl),
    /// A function-scope variable declaration.
    Var(LocalId),
    /// A `.callprototype` declaration.
    Prototype(ProtoId),
    /// `name: .branchtargets L1, L2, …;` or `name: .calltargets f1, f2, …;`.
    Targets(TargetList),
    /// A label definition.
    Label(LabelId),
    /// An instruction.
    Instr(Instr),
    /// A nested block.
    Block(Block),
    /// `.pragma "…";` inside a body.
    Pragma(String),
}

/// A `.reg` declaration statement, remembered as written so it prints back the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDecl {
    /// The registers' type.
    pub ty: Type,
    /// `.v2/.v4` vector registers.
    pub vec: Option<VecWidth>,
    /// The registers it declares, in order (possibly none: `%r<0>`).
    pub regs: Vec<RegId>,
    /// `%r<37>` (a parameterised range with this prefix and count) or a list of names.
    pub form: RegDeclForm,
}

/// How a `.reg` declaration names its registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegDeclForm {
    /// `.reg .b32 %r<37>;`: registers `%r0` … `%r36`.
    Range {
        /// The common prefix.
        prefix: String,
        /// How many.
        count: u32,
    },
    /// `.reg .b32 a, b, c;`
    List,
}

/// A branch-target or call-target list (for `brx.idx` and indirect calls).
#[derive(Clone, Debug, PartialEq)]
pub struct TargetList {
    /// The list's own label.
    pub name: LabelId,
    /// The targets.
    pub targets: TargetKind,
}

/// The entries of a [`TargetList`].
#[derive(Clone, Debug, PartialEq)]
pub enum TargetKind {
    /// `.branchtargets`
    Branch(Vec<LabelId>),
    /// `.calltargets`
    Call(Vec<FuncId>),
}

// ---------------------------------------------------------------------------------------------
// Instructions and operands
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Opcodes
// ---------------------------------------------------------------------------------------------

/// An opcode with its qualifiers: one variant per instruction family.
///
/// Operand layout for each family is documented on its variant; the validator checks it.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    // ---- integer and floating-point arithmetic -------------------------------------------
    /// `add` — `d, a, b`.
    Add(Arith),
    /// `sub` — `d, a, b`.
    Sub(Arith),
    /// `mul` — `d, a, b`.
    Mul(Mul),
    /// `mad` — `d, a, b, c`.
    Mad(Mul),
    /// `fma` — `d, a, b, c` (floats only; a rounding is required).
    Fma(Arith),
    /// `mul24` — `d, a, b`.
    Mul24(Mul24),
    /// `mad24` — `d, a, b, c`.
    Mad24(Mul24),
    /// `sad` — `d, a, b, c`: `c + |a - b|`.
    Sad(Type),
    /// `div` — `d, a, b`.
    Div(Div),
    /// `rem` — `d, a, b`.
    Rem(Type),
    /// `abs` — `d, a`.
    Abs(Unary),
    /// `neg` — `d, a`.
    Neg(Unary),
    /// `min` — `d, a, b` (also three-input and `.relu` forms).
    Min(MinMax),
    /// `max` — `d, a, b`.
    Max(MinMax),
    /// `addc{.cc}` — `d, a, b`: add with carry-in.
    Addc(Carry),
    /// `subc{.cc}` — `d, a, b`: subtract with borrow-in.
    Subc(Carry),
    /// `madc{.lo,.hi}{.cc}` — `d, a, b, c`: multiply-add with carry-in.
    Madc(Madc),

    // ---- bit manipulation and logic ------------------------------------------------------
    /// `popc` — `d, a` (d is `.u32`).
    Popc(Type),
    /// `clz` — `d, a` (d is `.u32`).
    Clz(Type),
    /// `bfind{.shiftamt}` — `d, a`.
    Bfind(Bfind),
    /// `fns.b32` — `d, mask, base, offset`.
    Fns,
    /// `brev` — `d, a`.
    Brev(Type),
    /// `bfe` — `d, a, pos, len`.
    Bfe(Type),
    /// `bfi` — `f, a, b, pos, len`.
    Bfi(Type),
    /// `bmsk.{clamp,wrap}.b32` — `d, a, b`.
    Bmsk(ShiftMode),
    /// `szext.{clamp,wrap}.{u32,s32}` — `d, a, b`.
    Szext(Szext),
    /// `dp4a.atype.btype` — `d, a, b, c`.
    Dp4a(Dp),
    /// `dp2a.{lo,hi}.atype.btype` — `d, a, b, c`.
    Dp2a(Dp2a),
    /// `and` — `d, a, b`.
    And(Type),
    /// `or` — `d, a, b`.
    Or(Type),
    /// `xor` — `d, a, b`.
    Xor(Type),
    /// `not` — `d, a`.
    Not(Type),
    /// `cnot` — `d, a`: `d = (a == 0)`.
    Cnot(Type),
    /// `lop3.b32` — `d, a, b, c, immLut`.
    Lop3,
    /// `shf.{l,r}.{wrap,clamp}.b32` — `d, a, b, c`: funnel shift.
    Shf(Shf),
    /// `shl` — `d, a, b`.
    Shl(Type),
    /// `shr` — `d, a, b` (arithmetic for signed types).
    Shr(Type),
    /// `prmt.b32{.mode}` — `d, a, b, c`.
    Prmt(Option<PrmtMode>),

    // ---- floating point only -------------------------------------------------------------
    /// `rcp` — `d, a`.
    Rcp(FloatFn),
    /// `sqrt` — `d, a`.
    Sqrt(FloatFn),
    /// `rsqrt.approx` — `d, a`.
    Rsqrt(FloatFn),
    /// `sin.approx` — `d, a`.
    Sin(FloatFn),
    /// `cos.approx` — `d, a`.
    Cos(FloatFn),
    /// `lg2.approx` — `d, a`.
    Lg2(FloatFn),
    /// `ex2.approx` — `d, a`.
    Ex2(FloatFn),
    /// `tanh.approx` — `d, a`.
    Tanh(FloatFn),
    /// `testp.class` — `p, a`.
    Testp(Testp),
    /// `copysign` — `d, a, b`: magnitude of b, sign of a.
    Copysign(Type),

    // ---- comparison and selection --------------------------------------------------------
    /// `setp.cmp{.bool}` — `p[|q], a, b[, {!}c]`.
    Setp(Setp),
    /// `set.cmp{.bool}.dtype.stype` — `d, a, b[, {!}c]`.
    Set(Set),
    /// `selp` — `d, a, b, p`.
    Selp(Type),
    /// `slct.dtype.ctype` — `d, a, b, c`.
    Slct(Slct),

    // ---- data movement and conversion ----------------------------------------------------
    /// `mov` — `d, a` (also vector pack/unpack and symbol addresses).
    Mov(Type),
    /// `ld` — `d, [a]{, cache-policy}`.
    Ld(Ld),
    /// `ldu` — `d, [a]`.
    Ldu(Ldu),
    /// `st` — `[a], b{, cache-policy}`.
    St(St),
    /// `prefetch{.space}.level` / `prefetchu.L1` — `[a]`.
    Prefetch(Prefetch),
    /// `applypriority.global.L2::evict_normal` — `[a], size`.
    ApplyPriority,
    /// `discard.global.L2` — `[a], 128`.
    Discard,
    /// `createpolicy` — `policy, …`.
    CreatePolicy(CreatePolicy),
    /// `isspacep.space` — `p, a`.
    Isspacep(StateSpace),
    /// `cvta{.to}.space.size` — `d, a`.
    Cvta(Cvta),
    /// `cvt` — `d, a` (two sources for packing conversions).
    Cvt(Cvt),
    /// `cvt.pack.sat.convertType.abType{.cType}` — `d, a, b{, c}`.
    CvtPack(CvtPack),

    // ---- warp-level and synchronisation --------------------------------------------------
    /// `shfl{.sync}.mode.b32` — `d[|p], a, b, c{, membermask}`.
    Shfl(Shfl),
    /// `vote{.sync}.mode` — `d, {!}a{, membermask}`.
    Vote(Vote),
    /// `match.{any,all}.sync.type` — `d[|p], a, membermask`.
    Match(Match),
    /// `redux.sync.op.type` — `d, a, membermask`.
    Redux(Redux),
    /// `activemask.b32` — `d`.
    Activemask,
    /// `elect.sync` — `d|p, membermask`.
    Elect,
    /// `bar`, `barrier` — `a{, b}` (sync/arrive) or `d, a{, b}, {!}c` (red).
    Bar(Bar),
    /// `bar.warp.sync` — `membermask`.
    BarWarpSync,
    /// `membar.level` — no operands.
    Membar(MembarLevel),
    /// `fence…` — no operands.
    Fence(Fence),
    /// `atom` — `d, [a], b{, c}{, cache-policy}`.
    Atom(Atom),
    /// `red` — `[a], b{, cache-policy}`.
    Red(Red),
    /// `nanosleep.u32` — `t`.
    Nanosleep,
    /// `griddepcontrol.{launch_dependents,wait}`.
    Griddepcontrol(GriddepAction),
    /// `cp.async…` (non-bulk copies, groups and the mbarrier arrive they trigger).
    CpAsync(CpAsync),
    /// `mbarrier…` — operands per [`MbarrierOp`].
    Mbarrier(Mbarrier),
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32` — `imm-reg-count`.
    Setmaxnreg(Setmaxnreg),
    /// `pmevent{.mask}` — `a`.
    Pmevent {
        /// `.mask` form.
        mask: bool,
    },

    // ---- tcgen05 and Tensor Memory ---------------------------------------------------------
    /// `tcgen05.alloc/dealloc/relinquish_alloc_permit/ld/st/wait/fence/shift`.
    Tcgen05(Tcgen05),

    // ---- warp-level matrix instructions ----------------------------------------------------
    /// `mma.sync.aligned`, `ldmatrix`, `stmatrix`, `movmatrix`.
    WarpMatrix(WarpMatrix),

    // ---- control flow --------------------------------------------------------------------
    /// `bra{.uni}` — `label`.
    Bra {
        /// `.uni`: the branch is known not to diverge.
        uni: bool,
    },
    /// `brx.idx{.uni}` — `index, targets-label`.
    BrxIdx {
        /// `.uni`
        uni: bool,
    },
    /// `call{.uni}` — operands are in the payload.
    Call(Box<Call>),
    /// `ret{.uni}`
    Ret {
        /// `.uni`
        uni: bool,
    },
    /// `exit`
    Exit,
    /// `trap`
    Trap,
    /// `brkpt`
    Brkpt,
}

/// Arithmetic qualifiers shared by `add`, `sub` and `fma`: the type and the modifiers that
/// apply to it (integer `.sat`/`.cc`, float `.rnd`/`.ftz`/`.sat`, packed `.relu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arith {
    /// The operation type.
    pub ty: Type,
    /// Float rounding (`None`: the default, `.rn`, which also allows contraction).
    pub rnd: Option<FloatRounding>,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.cc`: write the carry flag (integer add/sub).
    pub cc: bool,
    /// `.relu` (f16/bf16 forms).
    pub relu: bool,
}

impl Arith {
    /// Plain arithmetic of type `ty` with no modifiers.
    pub fn plain(ty: Type) -> Arith {
        Arith {
            ty,
            rnd: None,
            ftz: false,
            sat: false,
            cc: false,
            relu: false,
        }
    }
}

/// Which part of a product `mul`/`mad` keeps (integers only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulMode {
    /// `.lo`: the low half.
    Lo,
    /// `.hi`: the high half.
    Hi,
    /// `.wide`: the whole double-width product.
    Wide,
}

/// Qualifiers of `mul` and `mad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mul {
    /// `.lo/.hi/.wide` for integers; `None` for floats.
    pub mode: Option<MulMode>,
    /// Type and modifiers (`mad.hi.sat.s32`, `mad.lo.cc`, float rounding).
    pub arith: Arith,
}

/// Qualifiers of `mul24`/`mad24`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mul24 {
    /// `.hi` (else `.lo`).
    pub hi: bool,
    /// `.sat` (`mad24.hi.sat.s32`).
    pub sat: bool,
    /// `.u32` or `.s32`.
    pub ty: Type,
}

/// Qualifiers of `div`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Div {
    /// The operation type.
    pub ty: Type,
    /// How a float division is computed; `Exact` for integers.
    pub kind: DivKind,
    /// `.ftz`
    pub ftz: bool,
}

/// The flavour of a float division or reciprocal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DivKind {
    /// Integers (and `.f64` in very old PTX without a rounding).
    Exact,
    /// `.approx`
    Approx,
    /// `.full` (f32 only; within 2 ulp)
    Full,
    /// `.rn/.rz/.rm/.rp`: IEEE-rounded.
    Rounded(FloatRounding),
}

/// Qualifiers of `abs` and `neg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unary {
    /// The operation type.
    pub ty: Type,
    /// `.ftz`
    pub ftz: bool,
}

/// Qualifiers of `min` and `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MinMax {
    /// The operation type.
    pub ty: Type,
    /// `.ftz`
    pub ftz: bool,
    /// `.NaN`: propagate NaN inputs.
    pub nan: bool,
    /// `.xorsign.abs`
    pub xorsign_abs: bool,
    /// `.relu` (integer s32 and half forms).
    pub relu: bool,
}

/// Qualifiers of `addc`/`subc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Carry {
    /// `.cc`: also write the carry flag.
    pub cc: bool,
    /// `.u32/.s32/.u64/.s64`.
    pub ty: Type,
}

/// Qualifiers of `madc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Madc {
    /// `.hi` (else `.lo`).
    pub hi: bool,
    /// `.cc`
    pub cc: bool,
    /// `.u32/.s32/.u64/.s64`.
    pub ty: Type,
}

/// Qualifiers of `bfind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bfind {
    /// `.shiftamt`: return a left-shift amount instead of a bit position.
    pub shiftamt: bool,
    /// `.u32/.s32/.u64/.s64`.
    pub ty: Type,
}

/// `.clamp` or `.wrap` for shift-like instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftMode {
    /// Shift amounts past the width saturate.
    Clamp,
    /// Shift amounts are taken modulo the width.
    Wrap,
}

/// Qualifiers of `szext`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Szext {
    /// Clamp or wrap the bit count.
    pub mode: ShiftMode,
    /// `.u32` (zero-extend) or `.s32` (sign-extend).
    pub ty: Type,
}

/// Qualifiers of `dp4a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dp {
    /// Type of a's bytes (`.u32/.s32`).
    pub a_ty: Type,
    /// Type of b's bytes.
    pub b_ty: Type,
}

/// Qualifiers of `dp2a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dp2a {
    /// `.hi` (else `.lo`): which half of b.
    pub hi: bool,
    /// Type of a's halves.
    pub a_ty: Type,
    /// Type of b's bytes.
    pub b_ty: Type,
}

/// Qualifiers of `shf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shf {
    /// `.l` (else `.r`).
    pub left: bool,
    /// `.wrap` or `.clamp`.
    pub mode: ShiftMode,
}

/// The mode of `prmt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate 8.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate 16.
    Rc16,
}

/// Qualifiers of `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFn {
    /// The operation type.
    pub ty: Type,
    /// `.approx`, `.approx.ftz.f64` forms, or an IEEE rounding.
    pub kind: DivKind,
    /// `.ftz`
    pub ftz: bool,
}

/// Qualifiers of `testp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Testp {
    /// What is tested.
    pub class: TestpClass,
    /// `.f32` or `.f64`.
    pub ty: Type,
}

/// The property `testp` tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestpClass {
    /// `.finite`
    Finite,
    /// `.infinite`
    Infinite,
    /// `.number`
    Number,
    /// `.notanumber`
    NotANumber,
    /// `.normal`
    Normal,
    /// `.subnormal`
    Subnormal,
}

/// A comparison operator of `setp`, `set` and `slct`-like instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `eq`
    Eq,
    /// `ne`
    Ne,
    /// `lt`
    Lt,
    /// `le`
    Le,
    /// `gt`
    Gt,
    /// `ge`
    Ge,
    /// `lo`: unsigned lower.
    Lo,
    /// `ls`: unsigned lower or same.
    Ls,
    /// `hi`: unsigned higher.
    Hi,
    /// `hs`: unsigned higher or same.
    Hs,
    /// `equ`: equal or unordered.
    Equ,
    /// `neu`
    Neu,
    /// `ltu`
    Ltu,
    /// `leu`
    Leu,
    /// `gtu`
    Gtu,
    /// `geu`
    Geu,
    /// `num`: both are numbers.
    Num,
    /// `nan`: either is NaN.
    Nan,
}

/// A boolean operator combining a comparison with a third predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// Qualifiers of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setp {
    /// The comparison.
    pub cmp: CmpOp,
    /// The combining operator, if a third predicate operand is given.
    pub bool_op: Option<BoolOp>,
    /// `.ftz`
    pub ftz: bool,
    /// The type of the compared operands.
    pub ty: Type,
}

/// Qualifiers of `set`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Set {
    /// The comparison.
    pub cmp: CmpOp,
    /// The combining operator.
    pub bool_op: Option<BoolOp>,
    /// `.ftz`
    pub ftz: bool,
    /// Destination type (`.u32/.s32/.f32`, …).
    pub dst: Type,
    /// Source type.
    pub src: Type,
}

/// Qualifiers of `slct`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slct {
    /// `.ftz` (with an `.f32` selector).
    pub ftz: bool,
    /// Type of the selected operands.
    pub dst: Type,
    /// Type of the selector (`.s32` or `.f32`).
    pub sel: Type,
}

/// A cache operator of `ld`/`st` (PTX ISA "Cache Operators").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    /// `.ca`: cache at all levels (the default load).
    Ca,
    /// `.cg`: cache in L2, not L1.
    Cg,
    /// `.cs`: streaming.
    Cs,
    /// `.lu`: last use.
    Lu,
    /// `.cv`: do not cache; fetch again.
    Cv,
    /// `.wb`: write back (the default store).
    Wb,
    /// `.wt`: write through.
    Wt,
}

impl CacheOp {
    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            CacheOp::Ca => "ca",
            CacheOp::Cg => "cg",
            CacheOp::Cs => "cs",
            CacheOp::Lu => "lu",
            CacheOp::Cv => "cv",
            CacheOp::Wb => "wb",
            CacheOp::Wt => "wt",
        }
    }
}

/// An L1 eviction priority (`.L1::evict_*`, `.L1::no_allocate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L1Evict {
    /// `.L1::evict_normal`
    Normal,
    /// `.L1::evict_unchanged`
    Unchanged,
    /// `.L1::evict_first`
    First,
    /// `.L1::evict_last`
    Last,
    /// `.L1::no_allocate`
    NoAllocate,
}

/// An L2 eviction priority (`.L2::evict_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L2Evict {
    /// `.L2::evict_normal`
    Normal,
    /// `.L2::evict_first`
    First,
    /// `.L2::evict_last`
    Last,
}

/// An L2 prefetch size hint (`.L2::64B/128B/256B`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrefetchSize {
    /// `.L2::64B`
    B64,
    /// `.L2::128B`
    B128,
    /// `.L2::256B`
    B256,
}

/// The cache hints of a memory instruction, none of which changes values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CacheHints {
    /// `.L1::…` eviction priority.
    pub l1: Option<L1Evict>,
    /// `.L2::evict_…` priority.
    pub l2: Option<L2Evict>,
    /// `.L2::cache_hint`: a cache-policy operand follows the others.
    pub cache_hint: bool,
    /// `.L2::64B/128B/256B`.
    pub prefetch: Option<PrefetchSize>,
}

/// The state space qualifier of a memory instruction, remembering whether a `::` window was
/// written (`.shared` and `.shared::cta` mean the same; only PTX ≥ 7.8 accepts the latter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpaceQual {
    /// The state space meant.
    pub space: StateSpace,
    /// Whether the `::cta`/`::cluster`/`::entry`/`::func` sub-qualifier was written.
    pub explicit_window: bool,
}

impl SpaceQual {
    /// Generic addressing (no state space written).
    pub const GENERIC: SpaceQual = SpaceQual {
        space: StateSpace::Generic,
        explicit_window: false,
    };

    /// A space written without a `::` sub-qualifier.
    pub fn plain(space: StateSpace) -> SpaceQual {
        SpaceQual {
            space,
            explicit_window: false,
        }
    }
}

/// Qualifiers of `ld`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ld {
    /// Semantics, `.nc` and cache operator, in the combinations PTX allows.
    pub mode: LoadMode,
    /// The state space.
    pub space: SpaceQual,
    /// Cache hints.
    pub hints: CacheHints,
    /// `.v2/.v4/.v8`.
    pub vec: Option<VecWidth>,
    /// The memory type.
    pub ty: Type,
}

impl Ld {
    /// `.weak/.volatile/.relaxed.S/.acquire.S/.mmio.relaxed.sys`; `None` when none is written
    /// (the load is then weak).
    pub fn sem(&self) -> Option<LoadSem> {
        self.mode.sem()
    }

    /// `.nc`: the non-coherent read-only path (`ld.global.nc`).
    pub fn nc(&self) -> bool {
        self.mode.nc()
    }

    /// The cache operator, if written.
    pub fn cop(&self) -> Option<CacheOp> {
        self.mode.cop()
    }
}

impl St {
    /// `.weak/.volatile/.relaxed.S/.release.S/.mmio.relaxed.sys`; `None` when none written.
    pub fn sem(&self) -> Option<StoreSem> {
        self.mode.sem()
    }

    /// The cache operator, if written.
    pub fn cop(&self) -> Option<CacheOp> {
        self.mode.cop()
    }
}

/// Qualifiers of `ldu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ldu {
    /// `.global` or generic.
    pub space: SpaceQual,
    /// `.v2/.v4`.
    pub vec: Option<VecWidth>,
    /// The memory type.
    pub ty: Type,
}

/// Qualifiers of `st`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct St {
    /// Semantics and cache operator, in the combinations PTX allows.
    pub mode: StoreMode,
    /// The state space.
    pub space: SpaceQual,
    /// Cache hints.
    pub hints: CacheHints,
    /// `.v2/.v4/.v8`.
    pub vec: Option<VecWidth>,
    /// The memory type.
    pub ty: Type,
}

/// Qualifiers of `prefetch`/`prefetchu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prefetch {
    /// `prefetchu` (uniform, L1 only).
    pub uniform: bool,
    /// `.global/.local` or generic.
    pub space: SpaceQual,
    /// The level written (`L1`, `L2`, `L2::evict_last`, `L2::evict_normal`, `tensormap`).
    pub level: PrefetchLevel,
}

/// The cache level of a `prefetch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrefetchLevel {
    /// `.L1`
    L1,
    /// `.L2`
    L2,
    /// `.L2::evict_last`
    L2EvictLast,
    /// `.L2::evict_normal`
    L2EvictNormal,
    /// `.tensormap`
    Tensormap,
}

/// Qualifiers of `createpolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CreatePolicy {
    /// `.fractional` (else `.range`; `.cvt` converts an old policy).
    pub kind: PolicyKind,
    /// Primary priority.
    pub primary: L2Evict,
    /// Secondary priority (`.L2::evict_first`/`evict_unchanged`), if given.
    pub secondary: Option<L2Evict>,
}

/// How `createpolicy` builds its policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// `.fractional`: applies to a fraction of accesses.
    Fractional,
    /// `.range`: applies to an address range.
    Range,
    /// `.cvt.L2.b64`: converts an older policy.
    Cvt,
}

/// Qualifiers of `cvta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvta {
    /// `.to`: generic → space (else space → generic).
    pub to: bool,
    /// The non-generic space.
    pub space: SpaceQual,
    /// `.u32` or `.u64`.
    pub ty: Type,
}

/// Qualifiers of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvt {
    /// Destination type.
    pub dst: Type,
    /// Source type.
    pub src: Type,
    /// Rounding, if written.
    pub rnd: Option<CvtRounding>,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.relu`
    pub relu: bool,
    /// `.satfinite`
    pub satfinite: bool,
}

/// Qualifiers of `cvt.pack`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CvtPack {
    /// The narrow element type (`.u8/.s8/.u4/.s4/.u2/.s2` encoded by bit width).
    pub dst: Type,
    /// The source type (`.s32/.u32`).
    pub src: Type,
    /// `.b32` type of c when present.
    pub c: Option<Type>,
}

/// The mode of `shfl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`
    Up,
    /// `.down`
    Down,
    /// `.bfly`
    Bfly,
    /// `.idx`
    Idx,
}

/// Qualifiers of `shfl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shfl {
    /// `.sync` (takes a membermask operand).
    pub sync: bool,
    /// The exchange pattern.
    pub mode: ShflMode,
}

/// The mode of `vote`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.all`
    All,
    /// `.any`
    Any,
    /// `.uni`
    Uni,
    /// `.ballot.b32`
    Ballot,
}

/// Qualifiers of `vote`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vote {
    /// `.sync` (takes a membermask operand).
    pub sync: bool,
    /// The vote.
    pub mode: VoteMode,
}

/// Qualifiers of `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Match {
    /// `.all` (else `.any`).
    pub all: bool,
    /// `.b32` or `.b64`.
    pub ty: Type,
}

/// The operation of `redux.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    /// `.add`
    Add,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// Qualifiers of `redux.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Redux {
    /// The reduction.
    pub op: ReduxOp,
    /// The type.
    pub ty: Type,
    /// `.abs` (f32 min/max).
    pub abs: bool,
    /// `.NaN` (f32 min/max).
    pub nan: bool,
}

/// Which barrier instruction spelling, and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bar {
    /// `barrier` (else `bar`).
    pub barrier: bool,
    /// `.cta` written.
    pub cta: bool,
    /// Sync, arrive or reduce.
    pub kind: BarKind,
    /// `.aligned` written (for `barrier`; `bar` is always aligned).
    pub aligned: bool,
}

impl Bar {
    /// Whether every thread of a warp must execute this barrier together (`bar` always;
    /// `barrier` only with `.aligned`).
    pub fn is_aligned(&self) -> bool {
        !self.barrier || self.aligned
    }
}

/// What a barrier does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarKind {
    /// `.sync`: arrive and wait (also the bare `bar 0` of old PTX).
    Sync,
    /// `.arrive`: arrive without waiting.
    Arrive,
    /// `.red.op.type`: arrive, wait, and reduce a predicate.
    Red(BarRedOp),
}

/// The reduction of `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    /// `.popc.u32`: count of true predicates.
    Popc,
    /// `.and.pred`
    And,
    /// `.or.pred`
    Or,
}

/// The level of a `membar`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MembarLevel {
    /// `.cta`
    Cta,
    /// `.gl` (gpu scope)
    Gl,
    /// `.sys`
    Sys,
}

impl MembarLevel {
    /// The scope of the `fence.sc` this `membar` is a synonym for.
    pub fn scope(self) -> Scope {
        match self {
            MembarLevel::Cta => Scope::Cta,
            MembarLevel::Gl => Scope::Gpu,
            MembarLevel::Sys => Scope::Sys,
        }
    }
}

/// Qualifiers of a `fence`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// `fence{.sem}.scope`: a memory fence (`sem` `None` means the default `.acq_rel`).
    Memory {
        /// The semantics as written.
        sem: Option<FenceSem>,
        /// The scope.
        scope: Scope,
    },
    /// `fence.proxy.alias`: orders accesses through virtual aliases.
    ProxyAlias,
    /// `fence.proxy.async{.space}`: orders generic-proxy and async-proxy accesses.
    ProxyAsync(Option<StateSpace>),
    /// `fence.proxy.P` for the litmus dialect's texture/surface/constant/generic proxies.
    /// Not accepted in `.ptx` modules.
    ProxyKind(Proxy),
    /// `fence.proxy.tensormap::generic.{release,acquire}.scope`.
    ProxyTensormap {
        /// `.release` (else `.acquire`).
        release: bool,
        /// The scope.
        scope: Scope,
    },
}

/// The operation of `atom`/`red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
    /// `.cas`: compare and swap (two value operands).
    Cas,
    /// `.exch`: exchange.
    Exch,
    /// `.add`
    Add,
    /// `.inc`: `old >= b ? 0 : old + 1`.
    Inc,
    /// `.dec`: `(old == 0 || old > b) ? b : old - 1`.
    Dec,
    /// `.min`
    Min,
    /// `.max`
    Max,
}

/// Qualifiers of `atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// `.relaxed/.acquire/.release/.acq_rel`; `None` when not written (relaxed).
    pub sem: Option<RmwSem>,
    /// `.cta/.cluster/.gpu/.sys`; `None` when not written (gpu).
    pub scope: Option<Scope>,
    /// The state space.
    pub space: SpaceQual,
    /// The operation.
    pub op: AtomOp,
    /// `.v2/.v4/.v8` (vector float atomics on sm_90).
    pub vec: Option<VecWidth>,
    /// The type.
    pub ty: Type,
    /// `.noftz` (f16/bf16 add).
    pub noftz: bool,
    /// `.L2::cache_hint`.
    pub cache_hint: bool,
}

/// Qualifiers of `red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Red {
    /// `.relaxed/.release`; `None` when not written.
    pub sem: Option<RmwSem>,
    /// The scope; `None` when not written (gpu).
    pub scope: Option<Scope>,
    /// The state space.
    pub space: SpaceQual,
    /// The operation (never `cas`/`exch`).
    pub op: AtomOp,
    /// `.v2/.v4/.v8`.
    pub vec: Option<VecWidth>,
    /// The type.
    pub ty: Type,
    /// `.noftz`.
    pub noftz: bool,
    /// `.L2::cache_hint`.
    pub cache_hint: bool,
}

/// The action of `griddepcontrol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GriddepAction {
    /// `.launch_dependents`
    LaunchDependents,
    /// `.wait`
    Wait,
}

/// A call: `call{.uni} (ret…), callee, (args…){, prototype-or-targets};`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// `.uni`
    pub uni: bool,
    /// Return-value operands (`.param` symbols, or registers for `.reg` returns).
    pub returns: Vec<Operand>,
    /// The callee: `Operand::Symbol` of a function, or a register for an indirect call.
    pub callee: Operand,
    /// Argument operands.
    pub args: Vec<Operand>,
    /// For indirect calls: the prototype or `.calltargets` list label.
    pub target_info: Option<LabelOrProto>,
}

/// The last operand of an indirect call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelOrProto {
    /// A `.callprototype` label.
    Proto(ProtoId),
    /// A `.calltargets` list label.
    Targets(LabelId),
}

impl Module {
    /// Finds a function by name.
    pub fn function(&self, name: &str) -> Option<(FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    /// The kernels (`.entry` functions with bodies) of the module.
    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FunctionKind::Entry && f.body.is_some())
            .map(|(i, f)| (FuncId(i as u32), f))
    }
}

impl Function {
    /// The register a [`RegId`] names.
    pub fn reg(&self, r: RegId) -> &RegInfo {
        &self.regs[r.index()]
    }

    /// Visits every instruction of the body in order, depth first.
    pub fn instructions(&self) -> Vec<&Instr> {
        fn walk<'a>(b: &'a Block, out: &mut Vec<&'a Instr>) {
            for s in &b.stmts {
                match s {
                    Stmt::Instr(i) => out.push(i),
                    Stmt::Block(inner) => walk(inner, out),
                    Stmt::Regs(_)
                    | Stmt::Var(_)
                    | Stmt::Prototype(_)
                    | Stmt::Targets(_)
                    | Stmt::Label(_)
                    | Stmt::Pragma(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        if let Some(b) = &self.body {
            walk(b, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ir_nodes_stay_small_enough_to_copy_around() {
        // The IR is not the interpreter's hot path, but instructions are cloned by printers
        // and validators; keep them from growing by accident.
        assert!(
            std::mem::size_of::<Operand>() <= 40,
            "{}",
            std::mem::size_of::<Operand>()
        );
        assert!(
            std::mem::size_of::<Instr>() <= 256,
            "{}",
            std::mem::size_of::<Instr>()
        );
    }

    #[test]
    fn variable_sizes() {
        let v = Variable {
            name: "a".into(),
            space: StateSpace::Shared(SharedWindow::Cta),
            linkage: Linkage::Internal,
            align: None,
            vec: Some(VecWidth::V2),
            ty: Type::F32,
            dims: vec![ArrayDim::Sized(3), ArrayDim::Sized(4)],
            init: None,
            ptr: None,
            span: Span::default(),
        };
        assert_eq!(v.element_count(), Some(24));
        assert_eq!(v.size_bytes(), Some(96));
        assert_eq!(v.alignment(), 8);
        let u = Variable {
            dims: vec![ArrayDim::Unsized],
            ..v
        };
        assert_eq!(u.size_bytes(), None);
    }
}
