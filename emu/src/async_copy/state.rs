//! The asynchronous-copy and mbarrier state of one CTA ([`AsyncState`]): the `cp.async`
//! copies not yet delivered, the mbarrier objects by shared-memory offset, and the proxy
//! checker's shadow state with the bulk async-groups. The rules that use it are described in
//! [`crate::async_copy::cp_async`].

use std::collections::HashMap;

use crate::async_copy::pending::PendingCopies;

/// One mbarrier object.
#[derive(Clone, Debug)]
pub(crate) struct MbarrierObj {
    pub(crate) expected: u32,
    pub(crate) pending: u32,
    pub(crate) tx: i64,
    pub(crate) phase: u32,
}

/// What the CTA knows about an mbarrier offset.
#[derive(Clone, Debug)]
pub(crate) enum Slot {
    Valid(MbarrierObj),
    Invalidated,
}

/// The asynchronous-copy and mbarrier state of one CTA.
#[derive(Clone, Debug, Default)]
pub struct AsyncState {
    pub(crate) copies: PendingCopies,
    pub(crate) mbarriers: HashMap<u64, Slot>,
    /// The CTA step of the last mbarrier change or copy delivery.
    pub(crate) last_change: u64,
    /// Bulk async-groups and the proxy checker's shadow state.
    pub tma: crate::exec::proxy_check::ProxyState,
    /// The CTA's cluster launch control requests.
    pub cluster_launch: crate::cluster_launch::decoded::CtaCancelState,
}

impl AsyncState {
    /// The async state of a new CTA: `proxy` is (`--proxy-check`, watch shared accesses).
    pub fn new(proxy: (bool, bool)) -> AsyncState {
        let mut a = AsyncState::default();
        a.tma.check = proxy.0;
        a.tma.watch = proxy.1;
        a
    }

    /// Whether any copy is still pending (the shared-memory fast paths check this).
    #[inline]
    pub fn has_pending(&self) -> bool {
        !self.copies.is_empty() || self.tma.watch
    }

    /// Whether a pending copy may write bytes of `[off, off + size)` (a cheap test; `false`
    /// is certain).
    #[inline]
    pub fn may_touch(&self, off: u64, size: u64) -> bool {
        self.copies.may_touch(off, size)
    }

    /// The pending copy that overlaps `[off, off + size)`, as (line pc, thread), if any.
    pub fn overlapping(&self, off: u64, size: u64) -> Option<(u32, u32)> {
        self.copies.overlapping(off, size)
    }
}

/// Marks `st` as changed by another CTA's instruction, at a time its own CTA's step count
/// cannot express: its next failing wait restarts the deadlock count.
pub fn mark_peer_change(st: &mut AsyncState) {
    st.last_change = PEER_CHANGE;
}

/// [`AsyncState::last_change`] after a change made by another CTA of the cluster.
pub(crate) const PEER_CHANGE: u64 = u64::MAX;
