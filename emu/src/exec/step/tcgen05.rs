//! `tcgen05` in the interpreter (PTX ISA "Tensorcore 5th Generation Instructions"; spec
//! tcgen05.md): warp-synchronous execution of the `.sync.aligned` instructions over the CTA's
//! Tensor Memory ([`TensorMemory`]), and the faults for what the PTX ISA leaves undefined.
//!
//! A `.sync.aligned` instruction (alloc, dealloc, relinquish, ld, st, wait) runs once per warp
//! with all 32 lanes' operands gathered. Lanes of the warp that are elsewhere are waited for
//! ([`Flow::WaitCollective`]); if they never come (they exited, or wait at other
//! instructions), the scheduler reports the divergence. A warp with exited or missing lanes,
//! lanes whose guard is false, or operands (`taddr`, `nCols`, alloc's destination) that differ
//! between lanes is a fault naming the lanes and their values.
//!
//! `tcgen05.ld`/`st` complete at once, so values are always right; their asynchrony is
//! modelled only by the checks of [`crate::tcgen05::memory`] (an access overtaking an earlier
//! one without the wait the PTX ISA requires). `tcgen05.fence::*` are no-ops.
//!
//! Deliberate deviations and choices:
//! 1. `.cta_group::2` (CTA pairs) is not modelled: executing it is an `Unsupported` fault.
//! 2. `tcgen05.shift` is executed by every lane that executes it, each shifting the 32-lane
//!    block at its own `taddr` (whose lane must be a multiple of 32): rows `B..B+30` move down
//!    one row over 8 columns, row `B` keeps its value. Its cells must exist and, checked, be
//!    allocated; it has no quarter and is not tracked as pending.
//! 3. `.unpack::16b` writes zero into the upper 16 bits of each cell; when the two halves of a
//!    `.16x32bx2` store overlap, the second half (threads 16–31) wins.

use super::{Ctx, FULL};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Extra, Flow, Src, TmemInstr};
use crate::ir::{CtaGroup, Tcgen05, Tcgen05Wait};
use crate::tcgen05::memory::{Access, Allocation, TensorMemory, TmemError};
use crate::tcgen05::reduce::reduce;
use crate::tcgen05::trace::{TmemAction, TmemEvent, TmemMove};
use smallvec::{smallvec, SmallVec};

type R = Result<Flow, LaneFault>;

/// How the launch treats Tensor Memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmemOptions {
    /// Fault on the undefined accesses of [`crate::tcgen05::memory`] (default on).
    pub checked: bool,
    /// Record a [`TmemEvent`] per instruction (`--trace-tmem`).
    pub trace: bool,
}

impl Default for TmemOptions {
    fn default() -> TmemOptions {
        TmemOptions {
            checked: true,
            trace: false,
        }
    }
}

fn decoded(i: &DInstr) -> Result<&TmemInstr, LaneFault> {
    match &i.extra {
        Extra::Tmem(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a tcgen05 instruction without its decoded operands".into(),
        })),
    }
}

/// Lane numbers as `0-15, 20`.
pub fn lane_ranges(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask & (1 << l) == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && mask & (1 << l) != 0 {
            l += 1;
        }
        parts.push(if l - 1 == start {
            start.to_string()
        } else {
            format!("{start}-{}", l - 1)
        });
    }
    parts.join(", ")
}

fn undefined(detail: String) -> LaneFault {
    LaneFault::new(FaultKind::Undefined { detail })
}

fn unsupported_pair(what: &str) -> LaneFault {
    LaneFault::new(FaultKind::Unsupported {
        what: format!("{what} with .cta_group::2: CTA pairs are not modelled (use .cta_group::1)"),
    })
}

/// The precondition of a `.sync.aligned` instruction: every lane of the warp, together.
/// `Ok(Some(flow))` when the executing lanes must wait for the others.
pub(crate) fn converge(c: &Ctx<'_>, what: &str) -> Result<Option<Flow>, LaneFault> {
    let missing = !c.valid;
    if missing != 0 {
        return Err(LaneFault::new(FaultKind::DivergentCollective {
            detail: format!(
                "{what} is executed by all 32 threads of a warp, but lanes {} of warp {} do not exist (the CTA's thread count is not a multiple of 32)",
                lane_ranges(missing),
                c.ids.warp
            ),
        }));
    }
    let exited = !c.live;
    if exited != 0 {
        return Err(LaneFault::new(FaultKind::DivergentCollective {
            detail: format!(
                "{what} needs all 32 lanes of the warp, but lanes {} have exited",
                lane_ranges(exited)
            ),
        }));
    }
    let guarded_off = c.group_mask & !c.mask;
    if guarded_off != 0 {
        return Err(LaneFault::new(FaultKind::DivergentCollective {
            detail: format!(
                "the warp diverged at {what}: its guard is false on lanes {} and true on lanes {}",
                lane_ranges(guarded_off),
                lane_ranges(c.mask)
            ),
        }));
    }
    Ok((c.mask != FULL).then_some(Flow::WaitCollective))
}

/// The start of every `.sync.aligned` instruction: its decoded operands, `.cta_group::2`
/// refused, and the whole warp together; `Ok(Err(flow))` when the lanes must wait.
fn collective<'i>(
    c: &Ctx<'_>,
    i: &'i DInstr,
    what: &str,
) -> Result<Result<&'i TmemInstr, Flow>, LaneFault> {
    let m = decoded(i)?;
    if m.op.group() == Some(CtaGroup::Two) {
        super::tcgen05_pair::pair(c, &format!("{what}.cta_group::2"))?;
    }
    Ok(match converge(c, what)? {
        Some(flow) => Err(flow),
        None => Ok(m),
    })
}

/// The value every lane gives for `s`, as 32 bits.
fn uniform(c: &Ctx<'_>, s: &Src, name: &str, what: &str) -> Result<u32, LaneFault> {
    let v = c.fetch(s);
    let first = v[0] as u32;
    if let Some(l) = (1..32).find(|&l| v[l] as u32 != first) {
        let mut seen: Vec<(u32, u32)> = Vec::new();
        for (lane, x) in v.iter().enumerate() {
            let x = *x as u32;
            if !seen.iter().any(|(_, y)| *y == x) {
                seen.push((lane as u32, x));
            }
        }
        let values: Vec<String> = seen
            .iter()
            .take(6)
            .map(|(lane, x)| format!("lane {lane} has 0x{x:x}"))
            .collect();
        return Err(undefined(format!(
            "{name} of {what} is not uniform across the warp: {}",
            values.join(", ")
        ))
        .at_lane(l as u32));
    }
    Ok(first)
}

/// The CTA's Tensor Memory, made on first use.
pub(super) fn tmem<'c>(c: &'c mut Ctx<'_>) -> &'c mut TensorMemory {
    let (warps, checked) = (c.launch.nwarpid, c.tmem_opts.checked);
    c.tmem
        .get_or_insert_with(|| Box::new(TensorMemory::new(warps, checked)))
}

fn allocation_list(a: &[Allocation]) -> String {
    if a.is_empty() {
        return "none".into();
    }
    a.iter()
        .map(|x| format!("{} columns from column {}", x.ncols, x.column))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A Tensor Memory error as a fault of `what`, at `lane` when one lane is at fault.
pub(super) fn fault(
    c: &Ctx<'_>,
    e: TmemError,
    what: &str,
    lane: Option<u32>,
    taddr: Option<u32>,
) -> LaneFault {
    let site = |pc: u32| {
        c.prog.info.get(pc as usize).map_or_else(String::new, |i| {
            format!("line {} (`{}`)", i.span.line, i.text)
        })
    };
    let detail = match e {
        TmemError::BadNcols { ncols } => format!(
            "{what}: nCols = {ncols} is not a power of two from 32 to 512"
        ),
        TmemError::NoSpace { ncols, allocated } => format!(
            "{what}: no {ncols} free columns aligned to {ncols} (allocated: {}); each CTA has its own 512 columns in ptxemu, so the allocation could never succeed",
            allocation_list(&allocated)
        ),
        TmemError::AfterRelinquish => format!(
            "{what} after tcgen05.relinquish_alloc_permit: the CTA gave up its permit to allocate"
        ),
        TmemError::DeallocMismatch {
            column,
            ncols,
            allocated,
        } => format!(
            "{what} of {ncols} columns from column {column} matches no allocation (allocated: {})",
            allocation_list(&allocated)
        ),
        TmemError::OutOfRange { lane, column } => {
            if lane >= crate::tcgen05::memory::LANES {
                format!("{what}: lane {lane} is outside Tensor Memory's 128 lanes (column {column})")
            } else {
                format!("{what}: column {column} (lane {lane}) is outside [0, 512)")
            }
        }
        TmemError::OutsideQuarter { lane, quarter } => format!(
            "{what}: lane {lane} is outside the warp's quarter: warp {} may access lanes {}-{} only",
            c.ids.warp,
            32 * quarter,
            32 * quarter + 31
        ),
        TmemError::NotAllocated { lane, column } => format!(
            "{what}: column {column} (lane {lane}) is not allocated (allocated: {})",
            allocation_list(c.tmem.as_ref().map_or(&[], |t| t.allocations()))
        ),
        TmemError::StoreOvertakesLoad { lane, column, by } => format!(
            "{what} writes lane {lane}, column {column}, which warp {} loaded at {} without tcgen05.wait::ld since: the store may overtake the load",
            by.warp,
            site(by.pc)
        ),
        TmemError::LoadOvertakesStore { lane, column, by } => format!(
            "{what} reads lane {lane}, column {column}, which warp {} stored at {} without tcgen05.wait::st since: the load may overtake the store",
            by.warp,
            site(by.pc)
        ),
        TmemError::AsyncPending { lane, column, by } => {
            let state = match by.state {
                crate::tcgen05::async_writes::AsyncState::Issued => format!(
                    "thread {} has not executed tcgen05.commit since",
                    by.thread
                ),
                crate::tcgen05::async_writes::AsyncState::Committed { mbar, phase } => format!(
                    "it was committed to the mbarrier at shared offset {mbar}, but no thread has waited for its phase {phase} to complete since"
                ),
            };
            format!(
                "{what} accesses lane {lane}, column {column}, which the asynchronous {} at {} (thread {}) writes: {state}, so the access is not ordered after the write (tcgen05.commit, an mbarrier wait, then tcgen05.fence::after_thread_sync)",
                by.what,
                site(by.pc),
                by.thread
            )
        }
    };
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane,
        address: taddr.map(u64::from),
    }
}

pub(super) fn record(
    c: &mut Ctx<'_>,
    taddr: Option<u32>,
    action: TmemAction,
    moves: Vec<TmemMove>,
) {
    if c.tmem_opts.trace {
        let ev = TmemEvent {
            cta: c.launch.ctaid,
            warp: c.ids.warp,
            pc: c.pc,
            taddr,
            action,
            moves,
        };
        c.out.tmem_trace.push(ev);
    }
}

/// `tcgen05.alloc.cta_group::1.sync.aligned{.shared::cta}.b32 [dst], nCols`.
pub fn alloc(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let what = "tcgen05.alloc";
    let m = match collective(c, i, what)? {
        Ok(m) => m,
        Err(flow) => return Ok(flow),
    };
    let ncols = uniform(c, &m.ncols, "nCols", what)?;
    let dst = m
        .dst
        .ok_or_else(|| undefined(format!("{what} without a destination")))?;
    let addrs: Vec<u64> = (0..32).map(|l| super::mem::lane_addr(c, &dst, l)).collect();
    if let Some(l) = (1..32).find(|&l| addrs[l] != addrs[0]) {
        return Err(undefined(format!(
            "the destination of {what} is not uniform across the warp: lane 0 has 0x{:x}, lane {l} has 0x{:x}",
            addrs[0], addrs[l]
        ))
        .at_lane(l as u32));
    }
    let (warp, pc) = (c.ids.warp, c.pc);
    let column = tmem(c)
        .alloc(ncols, warp, pc)
        .map_err(|e| fault(c, e, what, None, None))?;
    let at = super::mem::store_shared_u32(c, &dst, 0, column)?;
    record(
        c,
        None,
        TmemAction::Alloc {
            ncols,
            column,
            dst: at,
        },
        Vec::new(),
    );
    Ok(Flow::Next)
}

/// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, nCols`.
pub fn dealloc(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let what = "tcgen05.dealloc";
    let m = match collective(c, i, what)? {
        Ok(m) => m,
        Err(flow) => return Ok(flow),
    };
    let taddr = uniform(c, &m.taddr, "taddr", what)?;
    let ncols = uniform(c, &m.ncols, "nCols", what)?;
    tmem(c)
        .dealloc(taddr, ncols)
        .map_err(|e| fault(c, e, what, None, Some(taddr)))?;
    record(
        c,
        Some(taddr),
        TmemAction::Dealloc {
            ncols,
            column: taddr & 0xFFFF,
        },
        Vec::new(),
    );
    Ok(Flow::Next)
}

/// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`.
pub fn relinquish(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let what = "tcgen05.relinquish_alloc_permit";
    if let Err(flow) = collective(c, i, what)? {
        return Ok(flow);
    }
    tmem(c).relinquish();
    record(c, None, TmemAction::Relinquish, Vec::new());
    Ok(Flow::Next)
}

/// `tcgen05.wait::ld/st.sync.aligned`: the warp's pending loads or stores are complete.
pub fn wait(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let Tcgen05::Wait(w) = m.op else {
        return Err(undefined(
            "tcgen05.wait decoded as another instruction".into(),
        ));
    };
    let (what, access) = match w {
        Tcgen05Wait::Ld => ("tcgen05.wait::ld", Access::Load),
        Tcgen05Wait::St => ("tcgen05.wait::st", Access::Store),
    };
    if let Err(flow) = collective(c, i, what)? {
        return Ok(flow);
    }
    let warp = c.ids.warp;
    if let Some(t) = c.tmem.as_mut() {
        t.wait(warp, access);
    }
    Ok(Flow::Next)
}

/// `tcgen05.fence::before_thread_sync/after_thread_sync`: ordering only; every access is
/// already complete when it returns.
pub fn fence(_c: &mut Ctx<'_>, _i: &DInstr) -> R {
    Ok(Flow::Next)
}

/// The cells of register `j` of thread `t` (two with packing).
fn cells_of(
    shape: crate::ir::TmemShape,
    packed: bool,
    taddr: u32,
    split: u32,
    t: u32,
    j: u32,
) -> SmallVec<[(u32, u32); 2]> {
    if packed {
        SmallVec::from_slice(&shape.packed_cells(taddr, split, t, j))
    } else {
        smallvec![shape.cell(taddr, split, t, j)]
    }
}

/// Every (thread, register) of an `ld`/`st`, thread by thread: its cells (two with packing)
/// are checked for `access`, `visit(tmem, t, j, cells)` moves the register's data and returns
/// the 32-bit value moved, and the cells are marked pending for the warp. Returns the trace's
/// moves (when tracing), or the first bad cell's error with its thread.
fn walk(
    t_mem: &mut TensorMemory,
    access: Access,
    who: (u32, u32, bool),
    regs: u32,
    cells_of: impl Fn(u32, u32) -> SmallVec<[(u32, u32); 2]>,
    mut visit: impl FnMut(&mut TensorMemory, u32, u32, &[u32]) -> u32,
) -> Result<Vec<TmemMove>, (TmemError, u32)> {
    let (warp, pc, trace) = who;
    let mut moves = Vec::new();
    for t in 0..32u32 {
        for j in 0..regs {
            let cells = cells_of(t, j);
            let mut at: SmallVec<[u32; 2]> = SmallVec::new();
            for &(lane, column) in &cells {
                at.push(
                    t_mem
                        .check(lane, column, warp, access)
                        .map_err(|e| (e, t))?,
                );
            }
            let value = visit(t_mem, t, j, &at);
            for &a in &at {
                t_mem.pend(a, warp, pc, access);
            }
            if trace {
                moves.push(TmemMove {
                    thread: t,
                    reg: j,
                    cells,
                    value,
                });
            }
        }
    }
    Ok(moves)
}

/// `tcgen05.ld{.red}.sync.aligned.shape.num{.pack::16b}…`.
pub fn ld(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let Tcgen05::Ld(l) = m.op else {
        return Err(undefined(
            "tcgen05.ld decoded as another instruction".into(),
        ));
    };
    let what = if l.red.is_some() {
        "tcgen05.ld.red"
    } else {
        "tcgen05.ld"
    };
    if let Err(flow) = collective(c, i, what)? {
        return Ok(flow);
    }
    let taddr = uniform(c, &m.taddr, "taddr", what)?.wrapping_add(m.taddr_offset as u32);
    let regs = l.shape.regs(l.num.count());
    let who = (c.ids.warp, c.pc, c.tmem_opts.trace);
    let mut out = vec![[0u64; 32]; regs as usize];
    let cells = |t, j| cells_of(l.shape, l.pack, taddr, m.split, t, j);
    super::tcgen05_mma::check_ld(c, regs, &cells, what)?;
    let moves = walk(
        tmem(c),
        Access::Load,
        who,
        regs,
        cells,
        |t_mem, t, j, at| {
            let value = at.iter().enumerate().fold(0u32, |v, (k, &a)| {
                let cell = t_mem.read(a);
                v | if l.pack {
                    (cell & 0xFFFF) << (16 * k)
                } else {
                    cell
                }
            });
            out[j as usize][t as usize] = u64::from(value);
            value
        },
    )
    .map_err(|(e, t)| fault(c, e, what, Some(t), Some(taddr)))?;
    for (d, v) in m.dsts.iter().zip(&out) {
        c.write(d, v);
    }
    let redvals = l.red.map(|red| {
        let per_thread: [u64; 32] = std::array::from_fn(|t| {
            let vals: Vec<u32> = out.iter().map(|r| r[t] as u32).collect();
            u64::from(reduce(red, &vals))
        });
        c.write(&m.redval, &per_thread);
        per_thread.iter().map(|v| *v as u32).collect()
    });
    record(c, Some(taddr), TmemAction::Load { redvals }, moves);
    Ok(Flow::Next)
}

/// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32`.
pub fn st(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let Tcgen05::St(s) = m.op else {
        return Err(undefined(
            "tcgen05.st decoded as another instruction".into(),
        ));
    };
    let what = "tcgen05.st";
    if let Err(flow) = collective(c, i, what)? {
        return Ok(flow);
    }
    let taddr = uniform(c, &m.taddr, "taddr", what)?.wrapping_add(m.taddr_offset as u32);
    let values: Vec<[u64; 32]> = m.srcs.iter().map(|src| c.fetch(src)).collect();
    let regs = s.shape.regs(s.num.count());
    let who = (c.ids.warp, c.pc, c.tmem_opts.trace);
    let cells = |t, j| cells_of(s.shape, s.unpack, taddr, m.split, t, j);
    let moves = walk(
        tmem(c),
        Access::Store,
        who,
        regs,
        cells,
        |t_mem, t, j, at| {
            let value = values[j as usize][t as usize] as u32;
            for (k, &a) in at.iter().enumerate() {
                let half = (value >> (16 * k)) & 0xFFFF;
                t_mem.write(a, if s.unpack { half } else { value });
            }
            value
        },
    )
    .map_err(|(e, t)| fault(c, e, what, Some(t), Some(taddr)))?;
    record(c, Some(taddr), TmemAction::Store, moves);
    Ok(Flow::Next)
}

/// `tcgen05.shift.cta_group::1.down [taddr]`, by each executing lane (deviation 2).
pub fn shift(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let what = "tcgen05.shift";
    if m.op.group() == Some(CtaGroup::Two) {
        return Err(unsupported_pair(what));
    }
    let addrs = c.fetch(&m.taddr);
    let mut mask = c.mask;
    while mask != 0 {
        let lane = mask.trailing_zeros();
        mask &= mask - 1;
        let taddr = (addrs[lane as usize] as u32).wrapping_add(m.taddr_offset as u32);
        let (base, column) = (taddr >> 16, taddr & 0xFFFF);
        if base % 32 != 0 {
            return Err(undefined(format!(
                "{what}: the lane of taddr 0x{taddr:x} is {base}, not a multiple of 32"
            ))
            .at_lane(lane));
        }
        let moved = {
            let t_mem = tmem(c);
            let mut r = Ok(());
            'rows: for row in (0..31).rev() {
                for k in 0..8 {
                    let from = t_mem.check_cell(base + row, column + k);
                    let to = t_mem.check_cell(base + row + 1, column + k);
                    match (from, to) {
                        (Ok(a), Ok(b)) => {
                            let v = t_mem.read(a);
                            t_mem.write(b, v);
                        }
                        (Err(e), _) | (_, Err(e)) => {
                            r = Err(e);
                            break 'rows;
                        }
                    }
                }
            }
            r
        };
        moved.map_err(|e| fault(c, e, what, Some(lane), Some(taddr)))?;
        record(
            c,
            Some(taddr),
            TmemAction::Shift { lane: base, column },
            Vec::new(),
        );
    }
    Ok(Flow::Next)
}

/// The leak check at CTA exit: an allocation still held.
pub fn leak(a: &Allocation) -> FaultKind {
    FaultKind::Undefined {
        detail: format!(
            "Tensor Memory still allocated when the CTA exits: {} columns from column {}, allocated here by warp {}, were never deallocated",
            a.ncols, a.column, a.warp
        ),
    }
}
