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
//! 1. `.cta_group::2` (CTA pairs): alloc/dealloc/relinquish act on the executing CTA's Tensor
//!    Memory and are matched with the pair peer's ([`crate::tcgen05::exec::pair_alloc`]); shift acts
//!    on both CTAs ([`crate::tcgen05::exec::pair`]).
//! 2. `tcgen05.shift` is executed by every lane that executes it, each shifting the 32-lane
//!    block at its own `taddr` (whose lane must be a multiple of 32): rows `B..B+30` move down
//!    one row over 8 columns, row `B` keeps its value. Its cells must exist and, checked, be
//!    allocated; it has no quarter and is not tracked as pending.
//! 3. `.unpack::16b` writes zero into the upper 16 bits of each cell; when the two halves of a
//!    `.16x32bx2` store overlap, the second half (threads 16–31) wins.

pub mod block_scale;
pub mod commit;
pub mod cp;
pub mod fault;
pub mod ldst;
pub mod mma;
pub mod mma_operands;
pub mod pair;
pub mod pair_alloc;

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Extra, Flow, Src};
use crate::ir::{CtaGroup, Tcgen05, Tcgen05Fence, Tcgen05Wait};
use crate::tcgen05::decoded::TmemInstr;
use crate::tcgen05::memory::{Access, Allocation, TensorMemory};
use crate::tcgen05::pair_log::{PairOp, PairOpKind};
use crate::tcgen05::trace::{TmemAction, TmemEvent, TmemMove};

use crate::exec::converge::converge;

pub(crate) use crate::tcgen05::exec::fault::fault;
pub use crate::tcgen05::exec::ldst::{ld, st};

type R = Result<Flow, LaneFault>;

pub(crate) fn decoded(i: &DInstr) -> Result<&TmemInstr, LaneFault> {
    match &i.extra {
        Extra::Tmem(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a tcgen05 instruction without its decoded operands".into(),
        })),
    }
}

pub(crate) fn undefined(detail: String) -> LaneFault {
    LaneFault::new(FaultKind::Undefined { detail })
}

/// The start of every `.sync.aligned` instruction: its decoded operands, `.cta_group::2`
/// refused, and the whole warp together; `Ok(Err(flow))` when the lanes must wait.
pub(crate) fn collective<'i>(
    c: &Ctx<'_>,
    i: &'i DInstr,
    what: &str,
) -> Result<Result<&'i TmemInstr, Flow>, LaneFault> {
    let m = decoded(i)?;
    if m.op.group() == Some(CtaGroup::Two) {
        crate::tcgen05::exec::pair::pair(c, &format!("{what}.cta_group::2"))?;
    }
    Ok(match converge(c, what)? {
        Some(flow) => Err(flow),
        None => Ok(m),
    })
}

/// The value every lane gives for `s`, as 32 bits.
pub(crate) fn uniform(c: &Ctx<'_>, s: &Src, name: &str, what: &str) -> Result<u32, LaneFault> {
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
pub(crate) fn tmem<'c>(c: &'c mut Ctx<'_>) -> &'c mut TensorMemory {
    let (warps, checked) = (c.launch.nwarpid, c.tmem_opts.checked);
    c.tmem
        .get_or_insert_with(|| Box::new(TensorMemory::new(warps, checked)))
}

pub(crate) fn record(
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

/// `tcgen05.alloc.cta_group::N.sync.aligned{.shared::cta}.b32 [dst], nCols`.
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
    let addrs: Vec<u64> = (0..32)
        .map(|l| crate::exec::address::lane_addr(c, &dst, l))
        .collect();
    if let Some(l) = (1..32).find(|&l| addrs[l] != addrs[0]) {
        return Err(undefined(format!(
            "the destination of {what} is not uniform across the warp: lane 0 has 0x{:x}, lane {l} has 0x{:x}",
            addrs[0], addrs[l]
        ))
        .at_lane(l as u32));
    }
    let pair = m.op.group() == Some(CtaGroup::Two);
    let column = match crate::tcgen05::exec::pair_alloc::allocate(c, ncols, pair) {
        Ok(col) => col,
        Err(e @ crate::tcgen05::memory::TmemError::NoSpace { .. }) => {
            return crate::tcgen05::exec::pair_alloc::blocked(c, e, pair);
        }
        Err(e) => return Err(fault(c, e, what, None, None)),
    };
    let at = crate::exec::address::store_shared_u32(c, &dst, 0, column)?;
    if pair {
        pair_op(c, PairOpKind::Alloc, ncols, column)?;
    }
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

/// `tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, nCols`.
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
    if m.op.group() == Some(CtaGroup::Two) {
        pair_op(c, PairOpKind::Dealloc, ncols, taddr & 0xFFFF)?;
    }
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

/// Records a `.cta_group::2` allocation operation of the executing warp for the pair's
/// rendezvous ([`crate::tcgen05::exec::pair_alloc`]).
fn pair_op(c: &mut Ctx<'_>, kind: PairOpKind, ncols: u32, column: u32) -> Result<(), LaneFault> {
    let (warp, pc) = (c.ids.warp, c.pc);
    let op = PairOp {
        kind,
        ncols,
        column,
        warp,
        pc,
    };
    crate::tcgen05::exec::pair_alloc::record(c, op)
}

/// `tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned`.
pub fn relinquish(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let what = "tcgen05.relinquish_alloc_permit";
    let m = match collective(c, i, what)? {
        Ok(m) => m,
        Err(flow) => return Ok(flow),
    };
    tmem(c).relinquish();
    if m.op.group() == Some(CtaGroup::Two) {
        pair_op(c, PairOpKind::Relinquish, 0, 0)?;
    }
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
/// already complete when it returns. Checked, `after_thread_sync` makes what each executing
/// thread has observed of mbarrier phases count for its later `tcgen05.ld`
/// ([`crate::tcgen05::observe`]).
pub fn fence(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    if m.op != Tcgen05::Fence(Tcgen05Fence::AfterThreadSync) {
        return Ok(Flow::Next);
    }
    let (warp, mut mask) = (c.ids.warp, c.mask);
    if let Some(t) = c.tmem.as_mut().filter(|t| t.checked()) {
        while mask != 0 {
            let lane = mask.trailing_zeros();
            mask &= mask - 1;
            t.observe.fence_after(warp * 32 + lane);
        }
    }
    Ok(Flow::Next)
}

/// Lanes `mask` of warp `warp` arrive at named barrier `id` (checked mode's observations).
pub(crate) fn barrier_arrive(t: &mut TensorMemory, id: u32, warp: u32, mut mask: u32) {
    while mask != 0 {
        let lane = mask.trailing_zeros();
        mask &= mask - 1;
        t.observe.barrier_arrive(id, warp * 32 + lane);
    }
}

/// Named barrier `id` releases the waiting `(warp, lanes)` (checked mode's observations).
pub(crate) fn barrier_release(
    t: &mut TensorMemory,
    id: u32,
    waiters: impl Iterator<Item = (u32, u32)>,
) {
    let threads = waiters.flat_map(|(warp, lanes)| {
        (0..32u32)
            .filter(move |l| lanes & (1 << l) != 0)
            .map(move |l| warp * 32 + l)
    });
    t.observe.barrier_release(id, threads);
}

/// `tcgen05.shift.cta_group::N.down [taddr]`, by each executing lane (deviation 2); with
/// `::2` in both CTAs of the pair.
pub fn shift(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let addrs = c.fetch(&m.taddr);
    let mut mask = c.mask;
    while mask != 0 {
        let lane = mask.trailing_zeros();
        mask &= mask - 1;
        let taddr = (addrs[lane as usize] as u32).wrapping_add(m.taddr_offset as u32);
        if m.op.group() == Some(CtaGroup::Two) {
            crate::tcgen05::exec::pair::shift(c, lane, taddr)?;
        } else {
            shift_one(c, lane, taddr)?;
        }
    }
    Ok(Flow::Next)
}

/// One lane's `tcgen05.shift.down` of the 32-lane block at `taddr` in the context's Tensor
/// Memory.
pub(crate) fn shift_one(c: &mut Ctx<'_>, lane: u32, taddr: u32) -> Result<(), LaneFault> {
    let what = "tcgen05.shift";
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
    Ok(())
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
