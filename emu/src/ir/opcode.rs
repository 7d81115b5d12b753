//! One description per opcode (as wasmi's `for_each_op!` and Cranelift's instruction
//! definitions): the table below has one row per variant of [`Op`], giving its mnemonic's
//! root, the family whose code handles it (parsing and printing its qualifiers in their
//! order, its rules, its lowering and execution), how many operands it takes, the PTX ISA
//! version and target every form of it needs, and its class in the memory model (what the
//! race detector makes of it).
//!
//! The generic passes read the table instead of matching every opcode again: the printer
//! dispatches on [`Family`] (the lowering matches every opcode once, without a wildcard,
//! handing its family the typed payload), the validator's operand count reads [`Arity`] (the
//! family's rules decide [`Arity::Form`]), the target rules read [`OpcodeInfo::requires`],
//! and the race description reads [`MemoryClass`]. The table is written once, by the macro
//! that also writes [`Op::opcode`], so a new variant of [`Op`] does not compile without its
//! row.

use super::Op;

/// The code that handles an opcode: its syntax, rules, lowering and execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Integer and floating-point arithmetic (`add` … `madc`).
    Int,
    /// Bit manipulation and logic (`popc` … `prmt`).
    Bits,
    /// The special functions, `testp`, `copysign`, comparison and selection.
    FloatCmp,
    /// Moves, loads, stores, hints, address conversions and conversions.
    Data,
    /// Warp-level collectives (`shfl`, `vote`, `match`, `redux`, `activemask`, `elect`).
    Warp,
    /// Barriers, fences, atomics and the other synchronisation instructions.
    Sync,
    /// Control flow (`bra`, `brx.idx`, `call`, `ret`, `exit`, `trap`, `brkpt`, `pmevent`).
    Control,
    /// `tcgen05.*` (folder `tcgen05/`).
    Tcgen05,
    /// `cp.async` (folder `async_copy/`).
    CpAsync,
    /// `mbarrier` (folder `async_copy/`).
    Mbarrier,
    /// Bulk and tensor copies and tensor maps (folder `tma/`).
    Tma,
    /// `mapa`, `getctarank`, `barrier.cluster` (folder `cluster/`).
    Cluster,
    /// `clusterlaunchcontrol.try_cancel`, `clusterlaunchcontrol.query_cancel` (folder
    /// `cluster_launch/`).
    ClusterLaunch,
    /// `mma.sync`, `ldmatrix`, `stmatrix`, `movmatrix`, `wmma` (folder `mma/`).
    WarpMatrix,
    /// `wgmma` (folder `wgmma/`).
    Wgmma,
}

/// How many operands an opcode takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Between these two counts (inclusive), whatever its form.
    Fixed(u8, u8),
    /// Decided by its form (qualifiers, a sub-instruction); its family's rules say.
    Form,
}

/// The PTX ISA version and target every form of an opcode needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requires {
    /// The feature's name in messages.
    pub what: &'static str,
    /// PTX ISA version (major, minor).
    pub ptx: (u32, u32),
    /// Target SM.
    pub sm: u32,
}

/// What an opcode is to the memory model (and the race detector).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryClass {
    /// Neither accesses memory nor synchronises.
    None,
    /// A load, store or atomic (some forms: none).
    Access,
    /// A fence (some forms: none).
    Fence,
    /// An asynchronous copy (some forms: none).
    Async,
    /// An mbarrier operation.
    Mbarrier,
    /// The cluster barrier (its arrival; its wait acquires through it).
    ClusterBarrier,
    /// An asynchronous tensor-core operation (some forms: none).
    TensorCore,
}

/// One row of the opcode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode.
    pub opcode: Opcode,
    /// The root of its mnemonic (`add`, `cp.async`, `tcgen05`).
    pub name: &'static str,
    /// The code that handles it.
    pub family: Family,
    /// How many operands it takes.
    pub arity: Arity,
    /// What every form of it needs (a form's qualifiers may need more).
    pub requires: Option<Requires>,
    /// What it is to the memory model.
    pub memory: MemoryClass,
}

const fn fixed(lo: u8, hi: u8) -> Arity {
    Arity::Fixed(lo, hi)
}

const FORM: Arity = Arity::Form;

const fn since(what: &'static str, ptx: (u32, u32), sm: u32) -> Option<Requires> {
    Some(Requires { what, ptx, sm })
}

const ANY: Option<Requires> = None;

// The mixed-precision forms, named as ptxas names them ("Feature 'add.f32.f16' requires ...").
const MIXED_ADD: &str = "add.f32.f16/add.f32.bf16";
const MIXED_SUB: &str = "sub.f32.f16/sub.f32.bf16";
const MIXED_FMA: &str = "fma.f32.f16/fma.f32.bf16";

macro_rules! opcodes {
    ($( $code:ident = $pat:pat => $name:literal, $family:ident, $arity:expr, $req:expr, $mem:ident; )*) => {
        /// Every opcode of [`Op`], without its payload (in the table's order).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $name, "`")]
                $code,
            )*
        }

        impl Op {
            /// The operation's opcode.
            pub fn opcode(&self) -> Opcode {
                match self {
                    $( $pat => Opcode::$code, )*
                }
            }

            /// The operation's row of the opcode table.
            pub fn info(&self) -> &'static OpcodeInfo {
                self.opcode().info()
            }
        }

        /// The opcode table, one row per opcode, in [`Opcode`]'s order.
        pub static OPCODES: &[OpcodeInfo] = &[
            $(
                OpcodeInfo {
                    opcode: Opcode::$code,
                    name: $name,
                    family: Family::$family,
                    arity: $arity,
                    requires: $req,
                    memory: MemoryClass::$mem,
                },
            )*
        ];
    };
}

impl Opcode {
    /// The opcode's row of the table.
    pub fn info(self) -> &'static OpcodeInfo {
        &OPCODES[self as usize]
    }
}

opcodes! {
    // ---- integer and floating-point arithmetic ------------------------------------------
    Add = Op::Add(_) => "add", Int, fixed(3, 3), ANY, None;
    Sub = Op::Sub(_) => "sub", Int, fixed(3, 3), ANY, None;
    Mul = Op::Mul(_) => "mul", Int, fixed(3, 3), ANY, None;
    Mad = Op::Mad(_) => "mad", Int, fixed(4, 4), ANY, None;
    Fma = Op::Fma(_) => "fma", Int, fixed(4, 4), ANY, None;
    AddMixed = Op::AddMixed(_) => "add", Int, fixed(3, 3), since(MIXED_ADD, (8, 6), 100), None;
    SubMixed = Op::SubMixed(_) => "sub", Int, fixed(3, 3), since(MIXED_SUB, (8, 6), 100), None;
    FmaMixed = Op::FmaMixed(_) => "fma", Int, fixed(4, 4), since(MIXED_FMA, (8, 6), 100), None;
    Mul24 = Op::Mul24(_) => "mul24", Int, fixed(3, 3), ANY, None;
    Mad24 = Op::Mad24(_) => "mad24", Int, fixed(4, 4), ANY, None;
    Sad = Op::Sad(_) => "sad", Int, fixed(4, 4), ANY, None;
    Div = Op::Div(_) => "div", Int, fixed(3, 3), ANY, None;
    Rem = Op::Rem(_) => "rem", Int, fixed(3, 3), ANY, None;
    Abs = Op::Abs(_) => "abs", Int, fixed(2, 2), ANY, None;
    Neg = Op::Neg(_) => "neg", Int, fixed(2, 2), ANY, None;
    Min = Op::Min(_) => "min", Int, fixed(3, 4), ANY, None;
    Max = Op::Max(_) => "max", Int, fixed(3, 4), ANY, None;
    Addc = Op::Addc(_) => "addc", Int, fixed(3, 3), ANY, None;
    Subc = Op::Subc(_) => "subc", Int, fixed(3, 3), ANY, None;
    Madc = Op::Madc(_) => "madc", Int, fixed(4, 4), ANY, None;
    // ---- bit manipulation and logic ------------------------------------------------------
    Popc = Op::Popc(_) => "popc", Bits, fixed(2, 2), ANY, None;
    Clz = Op::Clz(_) => "clz", Bits, fixed(2, 2), ANY, None;
    Bfind = Op::Bfind(_) => "bfind", Bits, fixed(2, 2), ANY, None;
    Fns = Op::Fns => "fns", Bits, fixed(4, 4), ANY, None;
    Brev = Op::Brev(_) => "brev", Bits, fixed(2, 2), ANY, None;
    Bfe = Op::Bfe(_) => "bfe", Bits, fixed(4, 4), ANY, None;
    Bfi = Op::Bfi(_) => "bfi", Bits, fixed(5, 5), ANY, None;
    Bmsk = Op::Bmsk(_) => "bmsk", Bits, fixed(3, 3), since("bmsk/szext", (7, 6), 70), None;
    Szext = Op::Szext(_) => "szext", Bits, fixed(3, 3), since("bmsk/szext", (7, 6), 70), None;
    Dp4a = Op::Dp4a(_) => "dp4a", Bits, fixed(4, 4), since("dp4a/dp2a", (5, 0), 61), None;
    Dp2a = Op::Dp2a(_) => "dp2a", Bits, fixed(4, 4), since("dp4a/dp2a", (5, 0), 61), None;
    And = Op::And(_) => "and", Bits, fixed(3, 3), ANY, None;
    Or = Op::Or(_) => "or", Bits, fixed(3, 3), ANY, None;
    Xor = Op::Xor(_) => "xor", Bits, fixed(3, 3), ANY, None;
    Not = Op::Not(_) => "not", Bits, fixed(2, 2), ANY, None;
    Cnot = Op::Cnot(_) => "cnot", Bits, fixed(2, 2), ANY, None;
    Lop3 = Op::Lop3 => "lop3", Bits, fixed(5, 5), ANY, None;
    Shf = Op::Shf(_) => "shf", Bits, fixed(4, 4), ANY, None;
    Shl = Op::Shl(_) => "shl", Bits, fixed(3, 3), ANY, None;
    Shr = Op::Shr(_) => "shr", Bits, fixed(3, 3), ANY, None;
    Prmt = Op::Prmt(_) => "prmt", Bits, fixed(4, 4), ANY, None;
    // ---- floating point only, comparison and selection -----------------------------------
    Rcp = Op::Rcp(_) => "rcp", FloatCmp, fixed(2, 2), ANY, None;
    Sqrt = Op::Sqrt(_) => "sqrt", FloatCmp, fixed(2, 2), ANY, None;
    Rsqrt = Op::Rsqrt(_) => "rsqrt", FloatCmp, fixed(2, 2), ANY, None;
    Sin = Op::Sin(_) => "sin", FloatCmp, fixed(2, 2), ANY, None;
    Cos = Op::Cos(_) => "cos", FloatCmp, fixed(2, 2), ANY, None;
    Lg2 = Op::Lg2(_) => "lg2", FloatCmp, fixed(2, 2), ANY, None;
    Ex2 = Op::Ex2(_) => "ex2", FloatCmp, fixed(2, 2), ANY, None;
    Tanh = Op::Tanh(_) => "tanh", FloatCmp, fixed(2, 2), since("tanh", (7, 0), 75), None;
    Testp = Op::Testp(_) => "testp", FloatCmp, fixed(2, 2), ANY, None;
    Copysign = Op::Copysign(_) => "copysign", FloatCmp, fixed(3, 3), since("copysign", (4, 2), 20), None;
    Setp = Op::Setp(_) => "setp", FloatCmp, FORM, ANY, None;
    Set = Op::Set(_) => "set", FloatCmp, FORM, ANY, None;
    Selp = Op::Selp(_) => "selp", FloatCmp, fixed(4, 4), ANY, None;
    Slct = Op::Slct(_) => "slct", FloatCmp, fixed(4, 4), ANY, None;
    // ---- data movement and conversion ----------------------------------------------------
    Mov = Op::Mov(_) => "mov", Data, fixed(2, 2), ANY, None;
    Ld = Op::Ld(_) => "ld", Data, fixed(2, 3), ANY, Access;
    Ldu = Op::Ldu(_) => "ldu", Data, fixed(2, 2), ANY, Access;
    St = Op::St(_) => "st", Data, fixed(2, 3), ANY, Access;
    Prefetch = Op::Prefetch(_) => "prefetch", Data, fixed(1, 1), ANY, None;
    ApplyPriority = Op::ApplyPriority => "applypriority", Data, fixed(2, 2), ANY, None;
    Discard = Op::Discard => "discard", Data, fixed(2, 2), ANY, None;
    CreatePolicy = Op::CreatePolicy(_) => "createpolicy", Data, fixed(2, 4), since("createpolicy", (7, 4), 80), None;
    Isspacep = Op::Isspacep(_) => "isspacep", Data, fixed(2, 2), ANY, None;
    Cvta = Op::Cvta(_) => "cvta", Data, fixed(2, 2), ANY, None;
    Cvt = Op::Cvt(_) => "cvt", Data, FORM, ANY, None;
    CvtPack = Op::CvtPack(_) => "cvt.pack", Data, fixed(3, 4), ANY, None;
    // ---- warp-level collectives ------------------------------------------------------------
    Shfl = Op::Shfl(_) => "shfl", Warp, FORM, ANY, None;
    Vote = Op::Vote(_) => "vote", Warp, FORM, ANY, None;
    Match = Op::Match(_) => "match", Warp, fixed(3, 4), since("match.sync", (6, 0), 70), None;
    Redux = Op::Redux(_) => "redux", Warp, fixed(3, 3), since("redux.sync", (7, 0), 80), None;
    Activemask = Op::Activemask => "activemask", Warp, fixed(1, 1), since("activemask", (6, 2), 30), None;
    Elect = Op::Elect => "elect", Warp, fixed(2, 2), since("elect.sync", (8, 0), 90), None;
    // ---- synchronisation and atomics -----------------------------------------------------
    Bar = Op::Bar(_) => "bar", Sync, FORM, ANY, None;
    BarWarpSync = Op::BarWarpSync => "bar.warp.sync", Sync, fixed(1, 1), since("bar.warp.sync", (6, 0), 30), None;
    Membar = Op::Membar(_) => "membar", Sync, fixed(0, 0), ANY, Fence;
    Fence = Op::Fence(_) => "fence", Sync, FORM, ANY, Fence;
    Atom = Op::Atom(_) => "atom", Sync, FORM, ANY, Access;
    Red = Op::Red(_) => "red", Sync, FORM, ANY, Access;
    Nanosleep = Op::Nanosleep => "nanosleep", Sync, fixed(1, 1), since("nanosleep", (6, 3), 70), None;
    Griddepcontrol = Op::Griddepcontrol(_) => "griddepcontrol", Sync, fixed(0, 0), since("griddepcontrol", (7, 8), 90), None;
    Setmaxnreg = Op::Setmaxnreg(_) => "setmaxnreg", Sync, fixed(1, 1), ANY, None;
    // ---- the families with folders of their own ------------------------------------------
    CpAsync = Op::CpAsync(_) => "cp.async", CpAsync, FORM, ANY, Async;
    Mbarrier = Op::Mbarrier(_) => "mbarrier", Mbarrier, FORM, ANY, Mbarrier;
    Tma = Op::Tma(_) => "cp.async.bulk", Tma, FORM, ANY, Async;
    Cluster = Op::Cluster(_) => "mapa", Cluster, FORM, ANY, ClusterBarrier;
    ClusterLaunch = Op::ClusterLaunch(_) => "clusterlaunchcontrol", ClusterLaunch, FORM, ANY, Async;
    Tcgen05 = Op::Tcgen05(_) => "tcgen05", Tcgen05, FORM, ANY, TensorCore;
    WarpMatrix = Op::WarpMatrix(_) => "mma", WarpMatrix, FORM, ANY, Access;
    Wgmma = Op::Wgmma(_) => "wgmma", Wgmma, FORM, ANY, TensorCore;
    // ---- control flow --------------------------------------------------------------------
    Pmevent = Op::Pmevent { .. } => "pmevent", Control, fixed(1, 1), ANY, None;
    Bra = Op::Bra { .. } => "bra", Control, fixed(1, 1), ANY, None;
    BrxIdx = Op::BrxIdx { .. } => "brx.idx", Control, fixed(2, 2), ANY, None;
    Call = Op::Call(_) => "call", Control, fixed(0, 0), ANY, None;
    Ret = Op::Ret { .. } => "ret", Control, fixed(0, 0), ANY, None;
    Exit = Op::Exit => "exit", Control, fixed(0, 0), ANY, None;
    Trap = Op::Trap => "trap", Control, fixed(0, 0), ANY, None;
    Brkpt = Op::Brkpt => "brkpt", Control, fixed(0, 0), ANY, None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_opcode_order() {
        for (k, row) in OPCODES.iter().enumerate() {
            assert_eq!(row.opcode as usize, k, "{}", row.name);
        }
    }
}
