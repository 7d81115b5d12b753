//! The PTX ISA's rule for `wgmma.mma_async` accumulators: until a `wgmma.wait_group` waits
//! for the wgmma-group holding a `wgmma.mma_async`, its accumulator registers may not be
//! accessed, except by further `wgmma.mma_async`s accumulating into them (PTX ISA,
//! "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions": the register
//! accesses section of `wgmma.mma_async` and `wgmma.wait_group`).
//!
//! The interpreter asks [`before_read`] about each instruction while some warp of the CTA has a
//! product pending ([`crate::wgmma::state::WgmmaState::busy`]); the registers an instruction reads are
//! its sources, the values and addresses of loads, stores, atomics and vector moves, the
//! fragments of warp-level matrix instructions and the vector of `tcgen05.st`. Writes are
//! checked when the product retires ([`crate::wgmma::exec`]).
//!
//! Deliberate deviation: by default an early read of an accumulator of a *committed* group does
//! not fault; it waits, as the GPU does. ptxas keeps the ISA's rule by injecting a
//! `wgmma.wait_group` before the first instruction that uses registers a wgmma defines (it says
//! so: "(C7517) wgmma.wait_group is injected ... to allow use of registers defined by GMMA"), and
//! the SASS waits (`WARPGROUP.DEPBAR.LE gsb0, 0x0`) before the use; Triton's fp16-accumulate
//! `tl.dot` on sm_90a unpacks its accumulators before its own `wgmma.wait_group` and relies on
//! this (docs/triton.md). `--wgmma-check strict` reports the read as undefined behaviour
//! instead. A read of an accumulator whose wgmma is not committed yet is always a fault.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{AddrBase, DAddr, DInstr, Extra, Src};
use crate::wgmma::exec::line_of;

/// Calls `f` with each register slot `ins` reads, until it returns true.
fn reads(ins: &DInstr, mut f: impl FnMut(u32) -> bool) -> bool {
    let mut src = |s: &Src| matches!(s, Src::Reg(r) if f(*r));
    if ins.s.iter().any(&mut src) {
        return true;
    }
    let addr = |a: &DAddr| match a.base {
        AddrBase::Reg(r) => Some(Src::Reg(r)),
        _ => None,
    };
    match &ins.extra {
        Extra::Mem(m) => addr(&m.addr).iter().chain(&m.srcs).any(src),
        Extra::Atom(a) => addr(&a.addr).iter().any(src),
        Extra::Elems(s, _) => s.iter().any(src),
        Extra::Matrix(m) => {
            let base = m.addr.as_ref().and_then(addr);
            m.a.iter()
                .chain(&m.b)
                .chain(&m.c)
                .chain(std::iter::once(&m.stride))
                .chain(base.iter())
                .any(src)
        }
        Extra::Tmem(t) => t.srcs.iter().chain(std::iter::once(&t.taddr)).any(src),
        _ => false,
    }
}

/// Before `ins` runs: when it reads an accumulator of a committed, unretired
/// `wgmma.mma_async` of the executing warp, waits for the warp's committed groups (as the code
/// ptxas makes does), or faults under `--wgmma-check strict` or when the wgmma is not committed.
///
/// # Errors
/// The early read's fault ([`early_read`]), or a fault of the retired products.
pub fn before_read(c: &mut Ctx<'_>, ins: &DInstr) -> Result<(), LaneFault> {
    let Some(fault) = early_read(c, ins) else {
        return Ok(());
    };
    if c.wgmma.strict || !c.wgmma.only_committed(c.ids.warp) {
        return Err(fault);
    }
    crate::wgmma::exec::retire_all_but(c, 0)?;
    c.after_wgmma_wait(0);
    match early_read(c, ins) {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// A fault when `ins` (not a wgmma instruction) reads an accumulator register of a
/// `wgmma.mma_async` of the executing warp that no `wgmma.wait_group` has retired yet, naming
/// the register, the wgmma's line and the rule.
pub fn early_read(c: &Ctx<'_>, ins: &DInstr) -> Option<LaneFault> {
    if matches!(ins.extra, Extra::Wgmma(_)) {
        return None;
    }
    // One lookup of the warp's groups, not one per register read.
    let groups = c.wgmma.warp(c.ids.warp)?;
    let mut hit = None;
    reads(ins, |slot| {
        hit = groups.pending_writer(slot);
        hit.is_some()
    });
    let (pc, k) = hit?;
    let name = match c.prog.code.get(pc as usize).map(|i| &i.extra) {
        Some(Extra::Wgmma(w)) => w.names.get(k).cloned(),
        _ => None,
    }
    .unwrap_or_else(|| format!("D[{k}]"));
    Some(LaneFault {
        kind: FaultKind::Undefined {
            detail: format!(
                "register {name} is read while it is an accumulator of the wgmma.mma_async at line {} that no wgmma.wait_group has waited for: accumulator registers may not be accessed before wgmma.wait_group waits for the wgmma-group holding the wgmma.mma_async",
                line_of(c, pc)
            ),
        },
        lane: Some(c.mask.trailing_zeros()),
        address: None,
    })
}
