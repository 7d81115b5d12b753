//! The decoded form of `clusterlaunchcontrol.try_cancel` and what a CTA did with cluster
//! launch control (plain data, so that the program and a CTA's async state hold them without
//! reaching the execution code).

use crate::exec::program::operand::DAddr;

/// A decoded `clusterlaunchcontrol.try_cancel`.
#[derive(Clone, Debug)]
pub struct CancelInstr {
    /// Where the 16-byte response goes.
    pub addr: DAddr,
    /// The mbarrier the response completes on.
    pub mbar: DAddr,
    /// `.multicast::cluster::all`.
    pub multicast: bool,
}

/// What one CTA did with cluster launch control.
#[derive(Clone, Copy, Debug, Default)]
pub struct CtaCancelState {
    /// try_cancel requests the CTA issued.
    pub requests: u64,
    /// The CTA has observed a failed response: issuing another request is undefined.
    pub observed_failure: bool,
}
