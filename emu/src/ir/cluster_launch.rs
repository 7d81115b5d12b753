//! Cluster launch control (PTX ISA "clusterlaunchcontrol.try_cancel",
//! "clusterlaunchcontrol.query_cancel"): a running CTA asks to cancel the launch of a cluster
//! that has not started, and decodes the 16-byte response.

use super::Dim;

/// A `clusterlaunchcontrol` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterLaunch {
    /// `clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
    /// {.multicast::cluster::all}.b128 [addr], [mbar]`.
    TryCancel {
        /// `.shared::cta` (else both addresses are generic).
        shared: bool,
        /// `.multicast::cluster::all`: the response goes to `addr` and `mbar` of every CTA of
        /// the cluster.
        multicast: bool,
    },
    /// `clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, response`.
    IsCanceled,
    /// `clusterlaunchcontrol.query_cancel.get_first_ctaid::dim.b32.b128 d, response`, or with
    /// `None` the `.v4` form `{x, y, z, _}`.
    FirstCtaid(Option<Dim>),
}

impl ClusterLaunch {
    /// The mnemonic with its qualifiers, in the PTX ISA's order.
    pub fn mnemonic(&self) -> String {
        match *self {
            ClusterLaunch::TryCancel { shared, multicast } => format!(
                "clusterlaunchcontrol.try_cancel.async{}.mbarrier::complete_tx::bytes{}.b128",
                if shared { ".shared::cta" } else { "" },
                if multicast {
                    ".multicast::cluster::all"
                } else {
                    ""
                }
            ),
            ClusterLaunch::IsCanceled => {
                "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128".into()
            }
            ClusterLaunch::FirstCtaid(None) => {
                "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128".into()
            }
            ClusterLaunch::FirstCtaid(Some(d)) => format!(
                "clusterlaunchcontrol.query_cancel.get_first_ctaid::{}.b32.b128",
                d.name()
            ),
        }
    }
}
