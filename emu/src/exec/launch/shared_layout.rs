//! Where each kernel's `.shared` variables live: one layout per kernel, as ptxas makes it.
//!
//! PTX ISA "State Spaces" (`.shared`) gives a variable's address space but leaves the layout to
//! the assembler. ptxas 13.5 (read from `cuobjdump -res-usage` and the SASS of small kernels
//! compiled for sm_80, sm_90, sm_100 and sm_120) lays out each kernel separately:
//!
//! 1. For sm_90 and later, the CTA's shared window opens with a 1 KiB region reserved for the
//!    system software (`SHARED:` in `-res-usage` counts it: a kernel with one 16-byte array
//!    reports 1040), and the kernel's variables start at offset 1024. Before sm_90 the
//!    variables start at 0 and the reserved region follows the CTA's shared memory.
//! 2. The kernel's own function-scope `.shared` variables come first, in declaration order,
//!    each at its alignment; then the module-scope `.shared` variables that the kernel or a
//!    function it calls refers to, in declaration order. A module variable no instruction of
//!    the kernel reaches takes no space in it. Function-scope variables of device functions the
//!    kernel calls come last (ptxas gives each kernel its own copy of such a function).
//! 3. Dynamic shared memory (`.extern .shared` arrays) starts after the static variables, at
//!    the largest alignment any of them asks for (at least 16).
//!
//! The reserved region's special registers (PTX ISA "Special Registers":
//! `%reserved_smem_offset_begin`, `_end`, `_cap`, `_0`, `_1`) read, on sm_90, `begin` = `_0` =
//! 0 and `cap` = 1024 (constants in the SASS ptxas emits), while `end` and `_1` are loaded from
//! the driver's constant bank.
//!
//! Deliberate deviations (choices where the driver, not ptxas, decides):
//! 1. `%reserved_smem_offset_end` is the end of the region (1024 on sm_90), and
//!    `%reserved_smem_offset_1` is the last [`CG_SCRATCH`] bytes of it, the space cooperative
//!    groups' multi-warp tiles need there (their headers assume at least 288 bytes).
//! 2. Before sm_90 the region starts at the end of the CTA's static and dynamic shared memory
//!    (`begin` = `_0`), rounded up to 16.
//! 3. `%total_smem_size` reads the kernel's static and dynamic bytes, not rounded to an
//!    allocation unit, and `%aggr_smem_size` that plus the reserved KiB (ptxas reads both from
//!    `SR_SMEMSZ` and the driver's constant bank).
//! 4. A device function that refers to a shared variable which two of its calling kernels
//!    place at different offsets is refused (in those kernels only): ptxemu decodes one copy of
//!    each function.

use std::collections::HashMap;

use crate::exec::decode::error::DecodeError;
use crate::ir::{
    AddrBase, Block, FuncId, FunctionKind, Instr, Module, Op, Operand, Span, StateSpace, Stmt,
    VarRef, Variable,
};

/// Bytes of the reserved region at the start of the shared window (sm_90 and later).
pub const RESERVED_BYTES: u64 = 1024;
/// Bytes at the end of the reserved region that `%reserved_smem_offset_1` points to.
pub const CG_SCRATCH: u64 = 288;

/// A shared variable: module-scope (by index) or function-scope (function, local index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedKey {
    /// A module-scope variable.
    Global(u32),
    /// A function-scope variable of a function.
    Local(u32, u32),
    /// The start of dynamic shared memory (any unsized `.extern .shared` array).
    Dynamic,
}

/// The reserved region of a CTA, as its `%reserved_smem_offset_*` registers read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reserved {
    /// `%reserved_smem_offset_begin` (also `%reserved_smem_offset_0`).
    pub begin: u32,
    /// `%reserved_smem_offset_end`.
    pub end: u32,
    /// `%reserved_smem_offset_cap`.
    pub cap: u32,
    /// `%reserved_smem_offset_1`.
    pub offset1: u32,
}

impl Reserved {
    /// The region of 1 KiB starting at `begin`.
    pub fn at(begin: u64) -> Reserved {
        let b = u32::try_from(begin).unwrap_or(u32::MAX);
        let end = b.saturating_add(RESERVED_BYTES as u32);
        Reserved {
            begin: b,
            end,
            cap: end,
            offset1: end - CG_SCRATCH as u32,
        }
    }

    /// The value of a `%reserved_smem_offset_*` register.
    pub fn value(&self, r: crate::ir::ReservedSmem) -> u32 {
        match r {
            crate::ir::ReservedSmem::Begin => self.begin,
            crate::ir::ReservedSmem::End => self.end,
            crate::ir::ReservedSmem::Cap => self.cap,
            crate::ir::ReservedSmem::Offset(0) => self.begin,
            crate::ir::ReservedSmem::Offset(_) => self.offset1,
        }
    }
}

/// A CTA's shared memory for one launch: how many bytes, where the reserved region is, and
/// what `%total_smem_size` and `%aggr_smem_size` read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaShared {
    /// Bytes the CTA's shared store holds (reserved region included).
    pub bytes: u64,
    /// The kernel's static and dynamic bytes (the reserved region excluded): what the
    /// per-CTA limit applies to, and what `%total_smem_size` reads.
    pub user_bytes: u64,
    /// The reserved region.
    pub reserved: Reserved,
}

impl CtaShared {
    /// The shared memory of a CTA of a kernel laid out as `k` with `dynamic` bytes of dynamic
    /// shared memory.
    pub fn of(k: &KernelSharedInfo, dynamic: u64) -> CtaShared {
        let end = k.dynamic_offset + dynamic;
        let user_bytes = end - k.base;
        if k.base >= RESERVED_BYTES {
            CtaShared {
                bytes: end,
                user_bytes,
                reserved: Reserved::at(0),
            }
        } else {
            let begin = align_to(end, 16);
            CtaShared {
                bytes: begin + RESERVED_BYTES,
                user_bytes,
                reserved: Reserved::at(begin),
            }
        }
    }
}

/// The shared memory of one kernel.
#[derive(Clone, Debug, Default)]
pub struct KernelShared {
    /// Offset of every variable the kernel reaches.
    pub offsets: HashMap<SharedKey, u64>,
    /// Where the static variables end (including the reserved region before them).
    pub static_end: u64,
    /// Where dynamic shared memory starts.
    pub dynamic_offset: u64,
    /// Bytes before the kernel's variables (the reserved region on sm_90 and later).
    pub base: u64,
}

/// The shared placements of a module: one layout per kernel, and the offsets each function's
/// code uses.
#[derive(Clone, Debug, Default)]
pub struct SharedPlan {
    /// Per function: `Some` for kernels.
    pub kernels: Vec<Option<KernelShared>>,
    /// Per function: the offsets its instructions use, or why they cannot be fixed.
    pub per_func: Vec<Result<HashMap<SharedKey, u64>, DecodeError>>,
    /// Per function: the functions it may call (directly, or any function for an indirect
    /// call), for refusing the kernels that reach a refused function.
    pub callees: Vec<Vec<u32>>,
}

fn align_to(x: u64, a: u64) -> u64 {
    let a = a.max(1);
    x.div_ceil(a) * a
}

/// What one function's instructions refer to.
#[derive(Default)]
struct Refs {
    shared: Vec<(SharedKey, Span)>,
    calls: Vec<u32>,
    indirect: bool,
}

fn note(module: &Module, fid: u32, op: &Operand, span: Span, refs: &mut Refs) {
    let v = match op {
        Operand::Symbol(s) => s.sym,
        Operand::Address(a) => match a.base {
            AddrBase::Var(v) => v,
            AddrBase::Reg(_) | AddrBase::None => return,
        },
        Operand::Reg(_)
        | Operand::NotPred(_)
        | Operand::Dual(..)
        | Operand::SinkDual(_)
        | Operand::Special(_)
        | Operand::Imm(_)
        | Operand::Vector(_)
        | Operand::Label(_)
        | Operand::Sink => return,
    };
    let f = &module.functions[fid as usize];
    let key = match v {
        VarRef::Global(g) => {
            let var = &module.globals[g.index()];
            let StateSpace::Shared(_) = var.space else {
                return;
            };
            if var.size_bytes().is_none() && var.init.is_none() {
                SharedKey::Dynamic
            } else {
                SharedKey::Global(g.index() as u32)
            }
        }
        VarRef::Local(l) => match f.locals.get(l.index()).map(|v| v.space) {
            Some(StateSpace::Shared(_)) => SharedKey::Local(fid, l.index() as u32),
            _ => return,
        },
        VarRef::Function(FuncId(callee)) => {
            refs.calls.push(callee);
            return;
        }
        VarRef::Param(_) | VarRef::Return(_) => return,
    };
    if !refs.shared.iter().any(|(k, _)| *k == key) {
        refs.shared.push((key, span));
    }
}

fn scan(module: &Module, fid: u32, b: &Block, refs: &mut Refs) {
    for s in &b.stmts {
        match s {
            Stmt::Instr(i) => scan_instr(module, fid, i, refs),
            Stmt::Block(inner) => scan(module, fid, inner, refs),
            Stmt::Label(_)
            | Stmt::Regs(_)
            | Stmt::Var(_)
            | Stmt::Prototype(_)
            | Stmt::Targets(_)
            | Stmt::Pragma(_)
            | Stmt::Loc(_) => {}
        }
    }
}

fn scan_instr(module: &Module, fid: u32, i: &Instr, refs: &mut Refs) {
    for a in &i.args {
        note(module, fid, a, i.span, refs);
    }
    if let Op::Call(c) = &i.op {
        if !matches!(c.callee, Operand::Symbol(_)) {
            refs.indirect = true;
        }
        for a in c
            .returns
            .iter()
            .chain(std::iter::once(&c.callee))
            .chain(&c.args)
        {
            note(module, fid, a, i.span, refs);
        }
    }
}

/// The functions `k` reaches (itself included), in function order.
fn reach(k: u32, callees: &[Vec<u32>]) -> Vec<u32> {
    let mut seen = vec![false; callees.len()];
    let mut stack = vec![k];
    while let Some(f) = stack.pop() {
        if std::mem::replace(&mut seen[f as usize], true) {
            continue;
        }
        stack.extend(callees[f as usize].iter().copied());
    }
    (0..callees.len() as u32)
        .filter(|f| seen[*f as usize])
        .collect()
}

/// Lays out the shared memory of every kernel of `module`.
pub fn plan(module: &Module) -> SharedPlan {
    let n = module.functions.len();
    let refs: Vec<Refs> = module
        .functions
        .iter()
        .enumerate()
        .map(|(fid, f)| {
            let mut r = Refs::default();
            if let Some(b) = &f.body {
                scan(module, fid as u32, b, &mut r);
            }
            r
        })
        .collect();
    let callees: Vec<Vec<u32>> = refs
        .iter()
        .map(|r| {
            if r.indirect {
                (0..n as u32).collect()
            } else {
                r.calls.clone()
            }
        })
        .collect();
    let base = if module.target.sm >= 90 {
        RESERVED_BYTES
    } else {
        0
    };
    let mut kernels: Vec<Option<KernelShared>> = vec![None; n];
    for (kid, f) in module.functions.iter().enumerate() {
        if f.kind != FunctionKind::Entry {
            continue;
        }
        let reached = reach(kid as u32, &callees);
        kernels[kid] = Some(kernel_layout(module, kid as u32, &reached, &refs, base));
    }
    let per_func = (0..n)
        .map(|fid| match &kernels[fid] {
            Some(k) => Ok(k.offsets.clone()),
            None => device_offsets(module, fid as u32, &refs[fid], &kernels, &callees, base),
        })
        .collect();
    SharedPlan {
        kernels,
        per_func,
        callees,
    }
}

fn kernel_layout(
    module: &Module,
    kid: u32,
    reached: &[u32],
    refs: &[Refs],
    base: u64,
) -> KernelShared {
    let mut ks = KernelShared {
        base,
        ..KernelShared::default()
    };
    let used = |key: SharedKey| {
        reached
            .iter()
            .any(|f| refs[*f as usize].shared.iter().any(|(k, _)| *k == key))
    };
    // Unsized `.extern .shared` arrays only align dynamic shared memory.
    let dynamic_align = module
        .globals
        .iter()
        .filter(|v| matches!(v.space, StateSpace::Shared(_)))
        .filter(|v| v.size_bytes().is_none() && v.init.is_none())
        .map(|v| u64::from(v.alignment()))
        .max()
        .filter(|_| used(SharedKey::Dynamic))
        .unwrap_or(1);
    let mut off = base;
    let mut align_max = 16u64.max(dynamic_align);
    let mut place = |key: SharedKey, v: &Variable| {
        let a = u64::from(v.alignment());
        align_max = align_max.max(a);
        off = align_to(off, a);
        ks.offsets.insert(key, off);
        off += v.allocated_bytes();
    };
    let shared_locals = |fid: u32| {
        module.functions[fid as usize]
            .locals
            .iter()
            .enumerate()
            .filter(|(_, v)| matches!(v.space, StateSpace::Shared(_)))
            .map(move |(l, v)| (SharedKey::Local(fid, l as u32), v))
    };
    for (key, v) in shared_locals(kid) {
        place(key, v);
    }
    for (g, v) in module.globals.iter().enumerate() {
        let StateSpace::Shared(_) = v.space else {
            continue;
        };
        let key = SharedKey::Global(g as u32);
        if (v.size_bytes().is_some() || v.init.is_some()) && used(key) {
            place(key, v);
        }
    }
    for f in reached.iter().copied().filter(|f| *f != kid) {
        for (key, v) in shared_locals(f) {
            place(key, v);
        }
    }
    ks.static_end = off;
    ks.dynamic_offset = align_to(off, align_max);
    ks.offsets.insert(SharedKey::Dynamic, ks.dynamic_offset);
    ks
}

/// The offsets a device function's code uses: those every kernel reaching it agrees on.
fn device_offsets(
    module: &Module,
    fid: u32,
    refs: &Refs,
    kernels: &[Option<KernelShared>],
    callees: &[Vec<u32>],
    base: u64,
) -> Result<HashMap<SharedKey, u64>, DecodeError> {
    let callers: Vec<(u32, &KernelShared)> = kernels
        .iter()
        .enumerate()
        .filter_map(|(k, ks)| ks.as_ref().map(|ks| (k as u32, ks)))
        .filter(|(k, _)| reach(*k, callees).contains(&fid))
        .collect();
    let mut out = HashMap::new();
    for (key, span) in &refs.shared {
        let mut seen: Option<(u32, u64)> = None;
        for (k, ks) in &callers {
            let Some(&o) = ks.offsets.get(key) else {
                continue;
            };
            match seen {
                None => seen = Some((*k, o)),
                Some((k0, o0)) if o0 != o => {
                    let name = key_name(module, *key);
                    return Err(DecodeError::Unsupported {
                        what: format!(
                            "device function `{}` refers to shared variable `{name}`, which kernels `{}` and `{}` place at different offsets ({o0} and {o}); ptxas gives each kernel its own copy of the function, ptxemu decodes one",
                            module.functions[fid as usize].name,
                            module.functions[k0 as usize].name,
                            module.functions[*k as usize].name,
                        ),
                        span: *span,
                    });
                }
                Some(_) => {}
            }
        }
        // A function no kernel calls never runs; its offsets only need to be well formed.
        out.insert(*key, seen.map_or(base, |(_, o)| o));
    }
    Ok(out)
}

fn key_name(module: &Module, key: SharedKey) -> String {
    match key {
        SharedKey::Global(g) => module.globals[g as usize].name.clone(),
        SharedKey::Local(f, l) => module.functions[f as usize].locals[l as usize].name.clone(),
        SharedKey::Dynamic => "dynamic shared memory".into(),
    }
}

/// The shared memory of a kernel's CTA (laid out by [`plan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelSharedInfo {
    /// Bytes before the kernel's variables: the reserved region on sm_90 and later.
    pub base: u64,
    /// Where its static `.shared` variables end.
    pub static_end: u64,
    /// Where its dynamic shared memory starts.
    pub dynamic_offset: u64,
}
