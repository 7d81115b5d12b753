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
//! Debug information: the `.file` table and each `.loc` ([`debug_info`]); `.section` contents are
//! skipped. Not represented: instruction families the front end reports as unsupported (listed in `front::opcodes`).
//!
//! Deliberate deviations:
//! 1. Qualifier *spelling* that the ISA treats as equivalent is kept only where the assembler
//!    distinguishes it by version or target (`.shared` vs `.shared::cta`, `.weak` written or
//!    not), so a module prints back in a form the same `ptxas` accepts.

pub mod access;
mod arith;
pub mod async_copy;
pub mod cluster;
pub mod cluster_launch;
mod convert;
pub mod debug_info;
mod function;
mod ids;
pub mod kernel_name;
mod memory_ops;
pub mod mma;
mod module;
pub mod opcode;
mod operand;
pub mod setmaxnreg;
mod special;
mod sync;
pub mod tcgen05;
pub mod tcgen05_cp;
pub mod tcgen05_mma;
pub mod tma;
pub mod types;
mod variable;
mod warp;
pub mod wgmma;

pub use arith::*;
pub use convert::*;
pub use debug_info::{FileDecl, InlinedAt, Loc, SourcePos};
pub use function::*;
pub use ids::*;
pub use memory_ops::*;
pub use module::*;
pub use operand::*;
pub use sync::*;
pub use variable::*;
pub use warp::*;

pub use access::{LoadCop, LoadMode, OrderedLoad, OrderedStore, StoreCop, StoreMode};
pub use async_copy::{CpAsync, CpAsyncCopy, Mbarrier, MbarrierOp, MbarrierSem};
pub use cluster::ClusterOp;
pub use cluster_launch::ClusterLaunch;
pub use mma::{
    MatrixCount, MatrixFormat, MatrixMove, MatrixShape, Mma, MmaBitOp, MmaElem, MmaLayout,
    MmaShape, WarpMatrix, WmmaFrag, WmmaLoad, WmmaMma, WmmaShape, WmmaStore,
};
pub use models::vocab::{
    FenceSem, LoadSem, ParamWindow, Proxy, RmwSem, Scope, SharedWindow, StateSpace, StoreSem,
};
pub use opcode::{Arity, Family, MemoryClass, Opcode, OpcodeInfo, Requires, OPCODES};
pub use setmaxnreg::Setmaxnreg;
pub use special::{ReservedSmem, SpecialReg};
pub use tcgen05::{
    CtaGroup, Repeat, Tcgen05, Tcgen05Alloc, Tcgen05Fence, Tcgen05Ld, Tcgen05St, Tcgen05Wait,
    TmemRed, TmemRedOp, TmemRedType, TmemShape, REPEATS,
};
pub use tcgen05_cp::{CpDecompress, CpMulticast, CpShape, Tcgen05Cp};
pub use tcgen05_mma::{
    Collector, CollectorBuffer, CollectorOp, MmaKind, ScaleVec, Tcgen05Commit, Tcgen05Mma,
};
pub use tma::Tma;
pub use types::{CvtRounding, Dim, FloatRounding, IntRounding, Type, TypeClass, VecWidth};
pub use wgmma::{Wgmma, WgmmaMma};

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
    /// Mixed-precision `add.f32.{f16,bf16}` — `d, a, c`: `d = f32(a) + c` (sm_100).
    AddMixed(Mixed),
    /// Mixed-precision `sub.f32.{f16,bf16}` — `d, a, c`: `d = f32(a) - c` (sm_100).
    SubMixed(Mixed),
    /// Mixed-precision `fma.rnd.f32.{f16,bf16}` — `d, a, b, c`: `d = f32(a) * f32(b) + c`,
    /// rounded once (sm_100).
    FmaMixed(Mixed),
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
    /// `cp.async.bulk…`, `cp.reduce.async.bulk…`, `tensormap…` — operands per [`tma`].
    Tma(Tma),
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32` — `imm-reg-count`.
    Setmaxnreg(Setmaxnreg),
    /// `mapa`, `getctarank`, `barrier.cluster.{arrive,wait}` — operands per [`ClusterOp`].
    Cluster(ClusterOp),
    /// `clusterlaunchcontrol.try_cancel` — `[addr], [mbar]`; `clusterlaunchcontrol.query_cancel`
    /// — `p, response` / `d, response` / `{x, y, z, _}, response` (per [`ClusterLaunch`]).
    ClusterLaunch(ClusterLaunch),
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
    /// `wgmma.mma_async`, `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`.
    Wgmma(Wgmma),

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
