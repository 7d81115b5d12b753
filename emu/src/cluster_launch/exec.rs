//! Executing `clusterlaunchcontrol.try_cancel` and `clusterlaunchcontrol.query_cancel` (PTX
//! ISA "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel").
//!
//! A try_cancel asks the launch ([`crate::cluster_launch::control::LaunchControl`]) for a cluster
//! that has not started; the 16-byte response (ptxemu's encoding,
//! [`crate::cluster_launch::control::encode_response`]) is written through the async proxy to
//! `addr` and a complete-tx of 16 bytes is performed on `mbar`, in the executing CTA or, with
//! `.multicast::cluster::all`, in every CTA of the cluster at the same offsets. As with the
//! bulk copies, the write happens when the instruction is issued; the proxy checker still
//! reports a generic read of the response before its completion was observed.
//!
//! Undefined behaviour reported as a fault: a try_cancel issued by a CTA that has already
//! observed a failed response (a `query_cancel.is_canceled` that returned false), a
//! `get_first_ctaid` of a failed response, and a query of 16 bytes no try_cancel wrote.
//!
//! Not checked: that no CTA of the cluster has exited when a multicast try_cancel is issued.

use crate::cluster_launch::control::{decode_response, encode_response};
use crate::cluster_launch::decoded::CancelInstr;
use crate::exec::ctx::{for_lanes, Ctx};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Dst, Extra, Flow};

type R = Result<Flow, LaneFault>;

fn undefined(lane: usize, address: Option<u64>, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address,
    }
}

fn instr_of(i: &DInstr) -> Result<&CancelInstr, LaneFault> {
    match &i.extra {
        Extra::ClusterLaunch(x) => Ok(x),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a clusterlaunchcontrol.try_cancel without its operands".into(),
        })),
    }
}

/// The first `%ctaid` of cluster `index` of the launch.
fn first_ctaid(c: &Ctx<'_>, index: u64) -> [u32; 3] {
    let dims = c.launch.cluster.dims.map(|d| d.max(1));
    let nc: [u64; 3] = std::array::from_fn(|k| u64::from(c.launch.nctaid[k] / dims[k]).max(1));
    let cid = [
        index % nc[0],
        (index / nc[0]) % nc[1],
        index / (nc[0] * nc[1]),
    ];
    std::array::from_fn(|k| (cid[k] as u32).wrapping_mul(dims[k]))
}

/// `clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
/// {.multicast::cluster::all}.b128 [addr], [mbar]`, by each executing lane.
pub fn try_cancel(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = instr_of(i)?.clone();
    let mut lanes = Vec::new();
    for_lanes(c.mask, |l| lanes.push(l));
    for l in lanes {
        let at = crate::exec::address::lane_addr(c, &x.addr, l);
        if c.asyncs.cluster_launch.observed_failure {
            return Err(undefined(
                l,
                Some(at),
                "clusterlaunchcontrol.try_cancel issued by a CTA that has already observed a failed request (PTX ISA: undefined)".into(),
            ));
        }
        // Both addresses are checked in the executing CTA before anything is written.
        let off = crate::async_copy::cp_async::shared_offset(c, &x.addr, l, 16)?;
        crate::async_copy::cp_async::shared_offset(c, &x.mbar, l, 8)?;
        let cta = c.cta_linear();
        let nth = c.asyncs.cluster_launch.requests;
        c.asyncs.cluster_launch.requests += 1;
        let canceled = c.launch.launch_control.try_cancel(cta, nth);
        let response = encode_response(canceled.map(|k| first_ctaid(c, k)));
        let ranks: Vec<u32> = if x.multicast {
            (0..c.cluster.size()).collect()
        } else {
            vec![c.cluster.rank()]
        };
        if c.observes_async() {
            let acc = crate::tma::accesses::shared_dst(&ranks, off, 16, false);
            crate::tma::accesses::report(c, l, &acc, Some(&x.mbar));
        }
        // The same CTA-relative offsets in each CTA.
        let (addr, mbar) = if x.multicast {
            (
                crate::cluster::dsmem::cta_relative(c, &x.addr, l),
                crate::cluster::dsmem::cta_relative(c, &x.mbar, l),
            )
        } else {
            (x.addr, x.mbar)
        };
        for r in ranks {
            crate::cluster::dsmem::at_rank(c, r, l, |c| {
                let o = crate::async_copy::cp_async::shared_offset(c, &addr, l, 16)?;
                c.shared.data[o as usize..o as usize + 16].copy_from_slice(&response);
                let (moff, phase) = crate::async_copy::mbarrier::complete_tx(c, &mbar, l, 16)?;
                c.after_async_write(o, o + 16, moff, phase);
                Ok(())
            })?;
        }
    }
    Ok(Flow::Next)
}

/// The response in a `.b128` register (`s[0]` its low half, `s[1]` its high half), per lane.
fn response(c: &Ctx<'_>, i: &DInstr, lane: usize) -> Result<Option<[u32; 3]>, LaneFault> {
    let (lo, hi) = (c.fetch_lane(&i.s[0], lane), c.fetch_lane(&i.s[1], lane));
    decode_response(lo, hi).map_err(|e| {
        undefined(
            lane,
            None,
            format!("clusterlaunchcontrol.query_cancel of {e} (PTX ISA: the response is opaque)"),
        )
    })
}

/// `clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, response`.
pub fn is_canceled(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let mut lanes = Vec::new();
    for_lanes(c.mask, |l| lanes.push(l));
    let mut out = [0u64; 32];
    for l in lanes {
        let ok = response(c, i, l)?.is_some();
        c.asyncs.cluster_launch.observed_failure |= !ok;
        out[l] = u64::from(ok);
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `clusterlaunchcontrol.query_cancel.get_first_ctaid{::dim}.b32.b128`: the destinations are
/// `i.d[0]` (one coordinate, `Extra::Param` its index) or the `.v4` elements in `Extra::Elems`.
pub fn first_ctaid_of(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let mut lanes = Vec::new();
    for_lanes(c.mask, |l| lanes.push(l));
    let mut out = [[0u64; 32]; 3];
    for l in lanes {
        let Some(id) = response(c, i, l)? else {
            return Err(undefined(
                l,
                None,
                "clusterlaunchcontrol.query_cancel.get_first_ctaid of a failed request's response (PTX ISA: undefined)".into(),
            ));
        };
        for k in 0..3 {
            out[k][l] = u64::from(id[k]);
        }
    }
    match &i.extra {
        Extra::Param(k) => {
            let k = usize::try_from(*k).unwrap_or(0).min(2);
            c.write(&i.d[0], &out[k]);
        }
        Extra::Elems(_, dsts) => {
            for (k, d) in dsts.iter().enumerate().take(3) {
                if !matches!(d, Dst::Sink) {
                    c.write(d, &out[k]);
                }
            }
        }
        _ => {}
    }
    Ok(Flow::Next)
}
