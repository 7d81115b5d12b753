//! What a CTA's instructions share with their launch, below the scheduler: the launch-wide
//! values every thread reads ([`LaunchInfo`]: shapes, environment registers, shared-memory
//! sizes, the CTA's place in its cluster), the CTA's output, and the requests a control
//! instruction makes of its CTA ([`Request`], [`BarrierRequest`]). The device heap
//! ([`heap`]) and the layout of a CTA's shared memory ([`shared_layout`]) are launch-wide too.

pub mod heap;
pub mod shared_layout;

use crate::exec::program::operand::Dst;
use crate::ir::BarRedOp;

/// Launch-wide values visible to every thread.
#[derive(Clone, Debug)]
pub struct LaunchInfo {
    /// `%ntid`
    pub ntid: [u32; 3],
    /// `%nctaid`
    pub nctaid: [u32; 3],
    /// `%ctaid` of the CTA being executed.
    pub ctaid: [u32; 3],
    /// `%envreg0..31`
    pub envreg: [u32; 32],
    /// Bytes of dynamic shared memory.
    pub dynamic_smem: u32,
    /// Bytes of shared memory of the CTA: static and dynamic, the reserved region excluded.
    pub total_smem: u32,
    /// The CTA's reserved shared-memory region.
    pub reserved: crate::exec::launch::shared_layout::Reserved,
    /// `%nwarpid`
    pub nwarpid: u32,
    /// The CTA's place in its cluster (the launch template holds the cluster shape).
    pub cluster: crate::cluster::shape::ClusterIds,
    /// `%nsmid`: the SMs of the GPU the launch runs on (CTA k runs on SM k % `nsmid`).
    pub nsmid: u32,
    /// The launch's clusters not yet started, shared with `clusterlaunchcontrol.try_cancel`.
    pub launch_control: std::sync::Arc<crate::cluster_launch::control::LaunchControl>,
}

/// Output produced by a CTA (printf text), kept in order.
#[derive(Clone, Debug, Default)]
pub struct CtaOutput {
    /// Text written by `vprintf`.
    pub stdout: Vec<u8>,
    /// With `--trace-tmem`: each tcgen05 instruction's moves, in execution order.
    pub tmem_trace: Vec<crate::tcgen05::trace::TmemEvent>,
}

/// What a control instruction asks of the CTA beyond its [`Flow`](crate::exec::program::Flow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Nothing.
    None,
    /// A barrier arrival.
    Barrier(BarrierRequest),
    /// `barrier.cluster.wait`: these lanes wait for the cluster barrier's phase (the others
    /// of the instruction's lanes go on).
    ClusterWait(u32),
}

/// A barrier arrival as decoded by the barrier instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierRequest {
    /// Barrier number.
    pub id: u32,
    /// Expected thread count, if given.
    pub count: Option<u32>,
    /// The predicate of `bar.red` per lane.
    pub pred: u32,
    /// `bar.arrive`.
    pub arrive_only: bool,
    /// `.aligned` (all `bar` forms; `barrier` with `.aligned`).
    pub aligned: bool,
    /// The reduction of `bar.red`.
    pub red: Option<BarRedOp>,
    /// Where `bar.red` writes its result.
    pub dst: Option<Dst>,
}
