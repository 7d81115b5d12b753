//! Tensor Memory errors ([`TmemError`]) as interpreter faults: the messages name the
//! instruction, the cell, the warp's quarter, the allocations, and for the overtaking and
//! pending-write checks the instruction whose access is still outstanding.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::tcgen05::memory::{Allocation, TmemError};

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
pub(crate) fn fault(
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
