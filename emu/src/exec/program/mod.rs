//! The decoded program: a module lowered once into a flat, compact form the interpreter runs.
//!
//! Every function's instructions are laid end to end in one array, so a program counter
//! (`pc`) identifies both the function and the position. Registers are resolved to per-function
//! slots (value slots hold 32 lanes of `u64`; predicate slots hold one 32-bit lane mask).
//! Each instruction carries the function that executes it ([`ExecFn`]), chosen at decode time
//! for its opcode and types, so the hot loop dispatches once per warp instruction and the lane
//! loop inside is specialised.

pub mod info;
pub mod operand;

pub use info::InstrInfo;
pub use operand::{AddrBase, AddrSpace, DAddr, Dst, Src};

use super::ctx::Ctx;
use super::fault::LaneFault;

/// What a decoded instruction tells the warp scheduler after it executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Continue with the next instruction.
    Next,
    /// The executing lanes branch to `target`; the others fall through.
    Branch(u32),
    /// The executing lanes call a function.
    Call,
    /// The executing lanes return from the current function.
    Ret,
    /// The executing lanes exit.
    Exit,
    /// The executing lanes arrive at a CTA barrier and (unless `wait` is false) wait there.
    Barrier,
    /// The executing lanes must wait for other lanes of the warp to reach this collective.
    WaitCollective,
    /// Continue with the next instruction, but on the warp's next turn: it polled for
    /// something another warp or agent must do first (an `mbarrier` wait that found its
    /// phase incomplete), so running it on now would only repeat the poll. Ending the turn
    /// early is one more interleaving the scheduler may choose; nothing else changes.
    Yield,
}

/// The function that executes one decoded instruction for the lanes in `ctx.mask`.
pub type ExecFn = fn(&mut Ctx<'_>, &DInstr) -> Result<Flow, LaneFault>;

/// The operation-specific part of a decoded instruction.
#[derive(Clone, Debug)]
pub enum Extra {
    /// Nothing more.
    None,
    /// A memory access: address, element size, element count and extension rule.
    Mem(MemAccess),
    /// A branch target.
    Target(u32),
    /// A call.
    Call(Box<CallSite>),
    /// A barrier.
    Barrier(BarrierInfo),
    /// Vector element slots (for `mov` pack/unpack): destinations or sources.
    Elems(Vec<Src>, Vec<Dst>),
    /// An atomic or reduction.
    Atom(AtomInfo),
    /// A small immediate parameter (shift mode, prmt mode, lut, …) decoded by the op.
    Param(u64),
    /// A `tcgen05` instruction.
    Tmem(Box<crate::tcgen05::decoded::TmemInstr>),
    /// A `cp.async` or `mbarrier` instruction.
    Async(Box<crate::async_copy::decoded::AsyncInstr>),
    /// A bulk-copy, tensor-copy or tensor-map instruction, or a proxy fence.
    Tma(Box<crate::tma::decoded::TmaInstr>),
    /// A warp-level matrix instruction (`mma`, `ldmatrix`, `stmatrix`, `movmatrix`).
    Matrix(Box<crate::mma::decoded::MatrixInstr>),
    /// A warpgroup-level matrix instruction (`wgmma`).
    Wgmma(Box<crate::wgmma::decoded::WgmmaInstr>),
    /// `tcgen05.mma` or `tcgen05.commit`.
    Tc5Mma(Box<crate::tcgen05::decoded::MmaDInstr>),
    /// `clusterlaunchcontrol.try_cancel`.
    ClusterLaunch(Box<crate::cluster_launch::decoded::CancelInstr>),
}

/// A decoded load or store.
#[derive(Clone, Debug, PartialEq)]
pub struct MemAccess {
    /// The address.
    pub addr: DAddr,
    /// Bytes per element.
    pub size: u32,
    /// Elements (1 for scalars; vector width otherwise).
    pub count: u32,
    /// Sign-extend loaded values of this many bits (signed types); 0 for zero extension.
    pub sext_from: u8,
    /// Element registers (destinations of a load, sources of a store); `Sink` skips one.
    pub dsts: Vec<Dst>,
    /// Element sources of a store.
    pub srcs: Vec<Src>,
    /// `ld.global.nc`: the read-only path.
    pub nc: bool,
    /// How the access meets the L1 model (`--cache-model l1`).
    pub cache: crate::exec::l1::L1Use,
}

/// A decoded atomic: address, size and the operation's value function.
#[derive(Clone, Debug)]
pub struct AtomInfo {
    /// The address.
    pub addr: DAddr,
    /// Bytes.
    pub size: u32,
    /// Computes the new value from the old one and the operands (`b`, `c`); `None` leaves
    /// memory unchanged.
    pub apply: fn(u64, u64, u64) -> Option<u64>,
}

/// A decoded barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierInfo {
    /// Arrive only (do not wait).
    pub arrive_only: bool,
    /// `.aligned` (all lanes of a warp execute it together; counted per warp).
    pub aligned: bool,
    /// `bar.red` reduction, if any.
    pub red: Option<crate::ir::BarRedOp>,
}

/// A decoded call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    /// The callee, or `None` for an indirect call through `target_reg`.
    pub callee: Option<u32>,
    /// The register holding the callee's address (indirect calls).
    pub target_reg: Option<u32>,
    /// Each argument: where its bytes come from in the caller.
    pub args: Vec<ArgSource>,
    /// Each return value: where its bytes go in the caller.
    pub rets: Vec<RetDest>,
}

/// Where a call argument comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgSource {
    /// Bytes of a caller frame variable (`.param` declared in the call block).
    Frame {
        /// Frame offset.
        offset: u64,
        /// Size in bytes.
        size: u64,
    },
    /// A register or immediate value.
    Value(Src),
}

/// Where a call's return value goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetDest {
    /// Bytes of a caller frame variable.
    Frame {
        /// Frame offset.
        offset: u64,
        /// Size in bytes.
        size: u64,
    },
    /// A register.
    Reg(Dst),
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub struct DInstr {
    /// Executes it.
    pub exec: ExecFn,
    /// The guard predicate slot with [`GUARD_NEG`] set for `@!p`; [`NO_GUARD`] when none.
    pub guard: u32,
    /// Destinations (up to two: `d` and a second predicate).
    pub d: [Dst; 2],
    /// Sources (up to four).
    pub s: [Src; 4],
    /// Operation-specific data.
    pub extra: Extra,
    /// Whether the instruction changes control flow (it must run even when no lane is
    /// enabled by its guard, so the scheduler sees the fall-through).
    pub control: bool,
}

/// `DInstr::guard` value meaning "no guard".
pub const NO_GUARD: u32 = u32::MAX;
/// Bit set in `DInstr::guard` for a negated guard.
pub const GUARD_NEG: u32 = 1 << 31;

/// How a function's activation frame is laid out in the lane's local memory.
#[derive(Clone, Debug)]
pub struct FrameLayout {
    /// Total bytes of one activation.
    pub size: u64,
    /// Frame offset of each parameter (in declaration order) and its size.
    pub params: Vec<(u64, u64)>,
    /// Frame offset of each return parameter and its size.
    pub returns: Vec<(u64, u64)>,
}

/// A built-in device function ptxemu implements itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `vprintf(format, args)`.
    Vprintf,
    /// `malloc(size)`.
    Malloc,
    /// `free(ptr)`.
    Free,
    /// `__assertfail(message, file, line, function, char_size)`.
    AssertFail,
}

/// What a decoded function is.
#[derive(Clone, Debug)]
pub enum DFuncKind {
    /// A function with a body starting at `entry`.
    Code {
        /// The first instruction.
        entry: u32,
        /// One past the last instruction.
        end: u32,
    },
    /// A built-in.
    Builtin(Builtin),
    /// A declaration with no definition and no built-in.
    Undefined,
}

/// A decoded function.
#[derive(Clone, Debug)]
pub struct DFunc {
    /// Its name.
    pub name: String,
    /// Code, built-in or undefined.
    pub kind: DFuncKind,
    /// Value slots its registers need.
    pub value_slots: u32,
    /// Predicate slots its registers need.
    pub pred_slots: u32,
    /// Frame layout.
    pub frame: FrameLayout,
    /// Value slots of `.reg` parameters, in parameter order (`None` for `.param` ones).
    pub reg_params: Vec<Option<u32>>,
    /// Value slots of `.reg` return values.
    pub reg_returns: Vec<Option<u32>>,
    /// For a kernel: its CTA's shared memory layout.
    pub shared: crate::exec::launch::shared_layout::KernelSharedInfo,
    /// Why the function cannot run (a construct in it or in a function it calls that the
    /// interpreter does not implement); a kernel with a reason is refused at launch.
    pub refused: Option<crate::exec::decode::error::DecodeError>,
}

/// A whole decoded module.
#[derive(Clone, Debug)]
pub struct Program {
    /// Every instruction of every function.
    pub code: Vec<DInstr>,
    /// Per instruction: span and text.
    pub info: Vec<InstrInfo>,
    /// Every function, indexed like the module's functions.
    pub funcs: Vec<DFunc>,
    /// Which function each pc belongs to.
    pub func_of_pc: Vec<u32>,
    /// Initial contents of the constant bank.
    pub const_bank: Vec<u8>,
    /// Module-scope `.global` variables: the globals region's size and initialisers.
    pub globals_image: GlobalsImage,
    /// Where the globals region is placed.
    pub globals_base: u64,
    /// Bytes of module-scope `.local` variables at the start of each lane's local memory.
    pub module_local_size: u64,
    /// The source file's name (for fault reports).
    pub file_name: String,
    /// Per instruction: what it is to the race detector (`--race`).
    pub race_ops: Vec<crate::race::RaceOp>,
}

/// The initial contents of the module's `.global` variables: the region's size, and each
/// initialiser's bytes at its offset (every other byte is zero). Kept sparse so that a large
/// uninitialised array costs nothing until it is placed in device memory, where the run's
/// memory budget counts it.
#[derive(Clone, Debug, Default)]
pub struct GlobalsImage {
    /// Bytes of the region.
    pub len: u64,
    /// (offset, bytes) of each initialised variable, in declaration order.
    pub inits: Vec<(u64, Vec<u8>)>,
}

impl GlobalsImage {
    /// Whether the region is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
