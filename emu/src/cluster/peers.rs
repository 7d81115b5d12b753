//! What an executing instruction may reach of the other CTAs of its cluster ([`ClusterPeers`]):
//! for other instruction families (tcgen05 `.cta_group::2`, multicast copies, mbarriers of a
//! peer), the shared memory, async state and Tensor Memory of any CTA of its cluster by rank.

use super::barrier::ClusterBarrier;
use crate::async_copy::state::AsyncState;
use crate::exec::memory::Bytes;

/// What an executing instruction may reach of the other CTAs of its cluster.
pub trait ClusterPeers {
    /// The executing CTA's rank.
    fn rank(&self) -> u32;
    /// CTAs in the cluster.
    fn size(&self) -> u32;
    /// The rank whose shared memory and async state the executing instruction currently sees
    /// as its own (its CTA's, or a peer's while [`ClusterPeers::swap`] has lent it).
    fn view(&self) -> u32;
    /// The shared memory of CTA `rank` (`None`: the executing CTA itself, or no such CTA).
    fn shared(&self, rank: u32) -> Option<&Bytes>;
    /// Mutable shared memory, async state and Tensor Memory of CTA `rank`.
    fn peer(&mut self, rank: u32) -> Option<PeerCta<'_>>;
    /// Exchanges the executing CTA's `shared` and `asyncs` with CTA `rank`'s (calling it again
    /// undoes it); false when `rank` is no peer.
    fn swap(&mut self, rank: u32, shared: &mut Bytes, asyncs: &mut AsyncState) -> bool;
    /// The cluster barrier.
    fn barrier(&mut self) -> &mut ClusterBarrier;
    /// `%ctaid` of CTA `rank`.
    fn ctaid(&self, rank: u32) -> [u32; 3];
    /// The race detector's state of CTA `rank` (`None`: the executing CTA, no such CTA, or
    /// no `--race`).
    fn race(&mut self, rank: u32) -> Option<&mut crate::race::CtaRace>;
}

/// Another CTA of the cluster, borrowed.
pub struct PeerCta<'p> {
    /// Its shared memory.
    pub shared: &'p mut Bytes,
    /// Its pending copies and mbarrier objects.
    pub asyncs: &'p mut AsyncState,
    /// Its Tensor Memory, made by its first tcgen05 instruction.
    pub tmem: &'p mut Option<Box<crate::tcgen05::memory::TensorMemory>>,
    /// Its `%ctaid`.
    pub ctaid: [u32; 3],
}
