//! Warp convergence for the `.sync.aligned` instructions, which every thread of a warp must
//! execute together (PTX ISA, the `.sync` and `.aligned` qualifiers of the warp-level matrix
//! and tcgen05 instructions). The matrix families (`mma.sync`, `ldmatrix`, `wmma`, `wgmma`)
//! and the tcgen05 instructions run once per warp with all 32 lanes gathered; [`converge`] is
//! their common precondition: lanes still elsewhere are waited for
//! ([`Flow::WaitCollective`]), and missing, exited or guarded-off lanes are a fault naming
//! them ([`lane_ranges`]).

use crate::exec::ctx::{Ctx, FULL};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::Flow;

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

/// The precondition of a `.sync.aligned` instruction: every lane of the warp, together.
/// `Ok(Some(flow))` when the executing lanes must wait for the others.
pub fn converge(c: &Ctx<'_>, what: &str) -> Result<Option<Flow>, LaneFault> {
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
