//! The end-of-cluster check of CTA pairs' allocation rendezvous
//! ([`crate::tcgen05::exec::pair_alloc`]): a CTA that made `.cta_group::2` allocation
//! operations its pair peer never made.

use super::Cta;
use crate::exec::fault::Fault;
use crate::exec::Env;
use crate::tcgen05::exec::alloc::{unmatched, unmatched_fault};
use crate::tcgen05::pair_log::PairLog;

impl Cta {
    fn pair_log(&self) -> PairLog {
        self.tmem
            .as_ref()
            .map(|t| t.pair.clone())
            .unwrap_or_default()
    }
}

/// Checks every pair (ranks `2k`, `2k + 1`) of a finished cluster's CTAs; the fault comes with
/// the rank of the CTA whose operation has no counterpart.
///
/// # Errors
/// A pair whose CTAs made different numbers of pair operations.
pub(crate) fn check_pairs(ctas: &[Cta], env: &Env<'_>) -> Result<(), (usize, Box<Fault>)> {
    for even in (0..ctas.len().saturating_sub(1)).step_by(2) {
        let (a, b) = (&ctas[even], &ctas[even + 1]);
        let ranks = (even as u32, even as u32 + 1);
        let Some(found) = unmatched(&a.pair_log(), &b.pair_log(), ranks) else {
            continue;
        };
        let (rank, op) = (found.0 as usize, found.1);
        let (me, peer) = (&ctas[rank], &ctas[rank ^ 1]);
        let wi = (op.warp as usize).min(me.warps.len().saturating_sub(1));
        let site = me.site(env, wi, op.pc, None);
        let kind = unmatched_fault(found, me.ctaid, peer.ctaid, site.line);
        return Err((rank, Box::new(Fault { kind, site })));
    }
    Ok(())
}
