//! A CTA's side of its cluster: the view of the other CTAs an executing instruction gets
//! ([`CtaPeers`]), and the lanes waiting at the cluster barrier.

use super::{lane_list, Cta, Fault};
use crate::async_copy::state::AsyncState;
use crate::cluster::barrier::ClusterBarrier;
use crate::cluster::peers::{ClusterPeers, PeerCta};
use crate::cluster::shape::ClusterIds;
use crate::exec::fault::FaultKind;
use crate::exec::memory::Bytes;
use crate::exec::Env;

/// The other CTAs of a cluster while the CTA of rank `rank` runs: those of lower rank and
/// those of higher rank, borrowed around it.
pub struct CtaPeers<'c> {
    rank: u32,
    view: u32,
    lo: &'c mut [Cta],
    hi: &'c mut [Cta],
    barrier: &'c mut ClusterBarrier,
}

impl<'c> CtaPeers<'c> {
    /// The view of CTA `rank`, whose lower-ranked peers are `lo` and higher-ranked `hi`.
    pub fn new(
        rank: u32,
        lo: &'c mut [Cta],
        hi: &'c mut [Cta],
        barrier: &'c mut ClusterBarrier,
    ) -> CtaPeers<'c> {
        CtaPeers {
            rank,
            view: rank,
            lo,
            hi,
            barrier,
        }
    }

    fn get(&self, rank: u32) -> Option<&Cta> {
        if rank < self.rank {
            self.lo.get(rank as usize)
        } else if rank > self.rank {
            self.hi.get((rank - self.rank - 1) as usize)
        } else {
            None
        }
    }

    fn get_mut(&mut self, rank: u32) -> Option<&mut Cta> {
        if rank < self.rank {
            self.lo.get_mut(rank as usize)
        } else if rank > self.rank {
            self.hi.get_mut((rank - self.rank - 1) as usize)
        } else {
            None
        }
    }
}

impl ClusterPeers for CtaPeers<'_> {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn size(&self) -> u32 {
        (self.lo.len() + 1 + self.hi.len()) as u32
    }

    fn view(&self) -> u32 {
        self.view
    }

    fn shared(&self, rank: u32) -> Option<&Bytes> {
        self.get(rank).map(|c| &c.shared)
    }

    fn peer(&mut self, rank: u32) -> Option<PeerCta<'_>> {
        self.get_mut(rank).map(|c| PeerCta {
            shared: &mut c.shared,
            asyncs: &mut c.asyncs,
            tmem: &mut c.tmem,
            ctaid: c.ctaid,
        })
    }

    fn swap(&mut self, rank: u32, shared: &mut Bytes, asyncs: &mut AsyncState) -> bool {
        let own = self.rank;
        let Some(c) = self.get_mut(rank) else {
            return false;
        };
        std::mem::swap(&mut c.shared, shared);
        std::mem::swap(&mut c.asyncs, asyncs);
        self.view = if self.view == own { rank } else { own };
        true
    }

    fn barrier(&mut self) -> &mut ClusterBarrier {
        self.barrier
    }

    fn ctaid(&self, rank: u32) -> [u32; 3] {
        self.get(rank).map_or([0; 3], |c| c.ctaid)
    }

    fn race(&mut self, rank: u32) -> Option<&mut crate::race::CtaRace> {
        self.get_mut(rank).and_then(|c| c.race.as_deref_mut())
    }
}

impl Cta {
    /// The CTA's cluster identity.
    pub(crate) fn launch_ids(&self) -> ClusterIds {
        self.launch.cluster
    }

    /// Parks `pending` lanes of warp `wi` at the `barrier.cluster.wait` at `pc`; the
    /// instruction's other lanes (`mask` without `pending`) go on.
    pub(super) fn cluster_park(&mut self, wi: usize, pc: u32, mask: u32, pending: u32) {
        let warp = &mut self.warps[wi];
        let mut m = mask & !pending;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            warp.pc[l] = pc + 1;
            m &= m - 1;
        }
        if pending != 0 {
            warp.at_barrier |= pending;
            self.cluster_waiters.push((wi, pending));
        }
    }

    /// Releases the lanes waiting at the cluster barrier (its phase completed).
    pub(crate) fn release_cluster_waiters(
        &mut self,
        _env: &Env<'_>,
        rank: u32,
        barrier: &mut ClusterBarrier,
    ) {
        for (wi, lanes) in std::mem::take(&mut self.cluster_waiters) {
            let warp = &mut self.warps[wi];
            warp.at_barrier &= !lanes;
            let mut m = lanes;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                warp.pc[l] += 1;
                barrier.released(rank, (wi * 32 + l) as u32);
                if let Some(r) = &mut self.race {
                    r.cluster_waited(wi * 32 + l);
                }
                m &= m - 1;
            }
        }
    }

    /// Why this CTA cannot go on: its own barriers and collectives, and the warps waiting at
    /// the cluster barrier.
    pub(crate) fn blocked_fault(&self, env: &Env<'_>) -> Box<Fault> {
        let mut f = self.deadlock(env);
        if let Some(&(wi, lanes)) = self.cluster_waiters.first() {
            let waiting: Vec<String> = self
                .cluster_waiters
                .iter()
                .map(|(w, l)| match *l {
                    u32::MAX => format!("warp {w}"),
                    l => format!("warp {w} lanes {}", lane_list(l)),
                })
                .collect();
            if let FaultKind::BarrierDeadlock { detail } = &mut f.kind {
                let local = if detail.starts_with(';') {
                    detail.trim_start_matches("; ").to_string()
                } else {
                    detail.clone()
                };
                *detail = format!(
                    "waiting at barrier.cluster.wait: {}; {local}",
                    waiting.join(", ")
                );
            }
            let lane = lanes.trailing_zeros() as usize;
            let pc = self.warps[wi].pc[lane];
            let site = self.site(env, wi, pc, None);
            f.site = site;
        }
        f
    }
}
