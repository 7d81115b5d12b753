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
//!    Memory and are matched with the pair peer's ([`alloc`]); shift acts
//!    on both CTAs ([`crate::tcgen05::exec::pair`]).
//! 2. `tcgen05.shift` is executed by every lane that executes it, each shifting the 32-lane
//!    block at its own `taddr` (whose lane must be a multiple of 32): rows `B..B+30` move down
//!    one row over 8 columns, row `B` keeps its value. Its cells must exist and, checked, be
//!    allocated; it has no quarter and is not tracked as pending.
//! 3. `.unpack::16b` writes zero into the upper 16 bits of each cell; when the two halves of a
//!    `.16x32bx2` store overlap, the second half (threads 16–31) wins.
//!
//! This module holds what the instructions share (their decoded operands, the warp
//! collective, uniform operands, the CTA's Tensor Memory, `--trace-tmem` records); each
//! instruction is in a child: [`alloc`] (alloc, dealloc, relinquish, the pair rendezvous),
//! [`ldst`], [`ordering`] (wait, fence, barrier points), [`shift`], [`cp`], [`mma`] with its
//! operands ([`mma_operands`]) and block-scaled kinds ([`block_scale`]), [`commit`], the CTA
//! pair ([`pair`]) and the faults of Tensor Memory errors ([`fault`]).

pub mod alloc;
pub mod block_scale;
pub mod commit;
pub mod cp;
pub mod fault;
pub mod ldst;
pub mod mma;
pub mod mma_operands;
pub mod ordering;
pub mod pair;
pub mod shift;

use crate::exec::converge::converge;
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Extra, Flow, Src};
use crate::ir::CtaGroup;
use crate::tcgen05::decoded::TmemInstr;
use crate::tcgen05::memory::TensorMemory;
use crate::tcgen05::trace::{TmemAction, TmemEvent, TmemMove};

pub(crate) use crate::tcgen05::exec::fault::fault;

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
