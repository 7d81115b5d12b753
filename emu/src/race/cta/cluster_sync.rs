//! Clusters in the race detector (docs/race.md, "Clusters"): `.cluster` scope, the shared
//! memory of a peer CTA reached through `.shared::cluster` addresses, the cluster barrier and
//! cluster-scope `fence.sc`.
//!
//! - `.cluster` scope includes the threads of every CTA of the same cluster.
//! - A CTA's shared memory has one shadow (and one set of mbarrier clocks), kept by that CTA's
//!   detector. An access to a peer's shared memory (DSMEM `ld`/`st`/`atom`/`red`, a bulk copy
//!   into a peer, an mbarrier operation on a peer's mbarrier) is checked by the executing
//!   CTA's detector with the peer's shadow and mbarriers lent to it
//!   ([`CtaRace::swap_memory`]), so the accessing thread's clock meets the owner's history;
//!   the report names the CTA that owns the bytes.
//! - `barrier.cluster.arrive` (not `.relaxed`) is a release into the cluster barrier's clock
//!   for its phase; `barrier.cluster.wait` acquires the clock of the phase its thread arrived
//!   in (kept for the last `PHASES_KEPT` phases).
//! - `fence.sc.cluster` joins and publishes the cluster's Fence-SC clock (and its CTA's); a
//!   `fence.sc.gpu`/`.sys` also joins and publishes it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use models::vocab::Scope;

use crate::race::cta::{join, snapshot, CtaRace, RaceOp};
use crate::race::vc::Vc;
use crate::race::RaceShared;

/// Completed phases of the cluster barrier whose clocks are kept.
const PHASES_KEPT: usize = 8;

/// The detector's state of one cluster.
#[derive(Debug, Default)]
pub struct ClusterClock {
    /// The join of the releasing arrivals so far (cumulative over phases).
    open: Vc,
    /// The barrier's current phase.
    phase: u32,
    /// (phase, clock at its completion), oldest first.
    done: VecDeque<(u32, Arc<Vc>)>,
    /// Per thread (grid-linear id): the phase of its arrival not yet waited for.
    arrived: HashMap<u32, u32>,
    /// The clock of the cluster's `fence.sc` (cluster scope or wider), in execution order.
    sc: Arc<Vc>,
}

impl RaceShared {
    /// The launch's linear index of the cluster holding CTA `cta` (linear in the grid).
    pub fn cluster_of(&self, cta: u32) -> u32 {
        let (g, d) = (self.grid, self.cluster.map(|x| x.max(1)));
        let id = [
            cta % g[0].max(1),
            (cta / g[0].max(1)) % g[1].max(1),
            cta / (g[0] * g[1]).max(1),
        ];
        let nc: [u32; 3] = std::array::from_fn(|i| (g[i] / d[i]).max(1));
        let c: [u32; 3] = std::array::from_fn(|i| id[i] / d[i]);
        c[0] + nc[0] * (c[1] + nc[1] * c[2])
    }

    /// The rank of CTA `cta` in its cluster (x fastest).
    pub fn rank_of(&self, cta: u32) -> u32 {
        let (g, d) = (self.grid, self.cluster.map(|x| x.max(1)));
        let id = [
            cta % g[0].max(1),
            (cta / g[0].max(1)) % g[1].max(1),
            cta / (g[0] * g[1]).max(1),
        ];
        let l: [u32; 3] = std::array::from_fn(|i| id[i] % d[i]);
        l[0] + d[0] * (l[1] + d[1] * l[2])
    }

    /// CTAs per cluster.
    pub fn cluster_size(&self) -> u32 {
        self.cluster.iter().map(|x| (*x).max(1)).product()
    }

    /// Whether an operation at `scope` by a thread of CTA `a` includes a thread of CTA `b`
    /// (CTAs linear in the grid).
    pub fn includes(&self, scope: Scope, a: u32, b: u32) -> bool {
        match scope {
            Scope::Cta => a == b,
            Scope::Cluster => a == b || self.cluster_of(a) == self.cluster_of(b),
            Scope::Gpu | Scope::Sys => true,
        }
    }

    /// The cluster barrier of cluster `cluster` completed its current phase.
    pub fn cluster_phase_done(&self, cluster: u32) {
        let Ok(mut m) = self.clusters.lock() else {
            return;
        };
        let k = m.entry(cluster).or_default();
        if k.done.len() >= PHASES_KEPT {
            k.done.pop_front();
        }
        let clock = Arc::new(k.open.clone());
        k.done.push_back((k.phase, clock));
        k.phase = k.phase.wrapping_add(1);
    }
}

impl CtaRace {
    /// The CTA (linear in the grid) whose shared memory the detector currently checks
    /// accesses against: its own, or a peer's while [`Self::swap_memory`] has lent it.
    pub fn owner(&self) -> u32 {
        self.owner
    }

    /// Exchanges the shadow of shared memory and the mbarrier clocks with `peer`'s (calling it
    /// again undoes it), so that accesses of this CTA's threads to the peer's shared memory
    /// are checked against the peer's history.
    pub fn swap_memory(&mut self, peer: &mut CtaRace) {
        std::mem::swap(&mut self.smem, &mut peer.smem);
        std::mem::swap(&mut self.mbars, &mut peer.mbars);
        std::mem::swap(&mut self.owner, &mut peer.owner);
    }

    /// `barrier.cluster.arrive` by thread `t` at `pc` (a release unless `.relaxed`).
    pub fn cluster_arrive(&mut self, t: usize, pc: u32) {
        if t >= self.threads.len() {
            return;
        }
        let release = !matches!(
            self.sh.ops.get(pc as usize),
            Some(RaceOp::ClusterArrive { release: false })
        );
        let me = self.gtid(t);
        let cluster = self.sh.cluster_of(self.linear);
        let th = &mut self.threads[t];
        let Ok(mut m) = self.sh.clusters.lock() else {
            return;
        };
        let k = m.entry(cluster).or_default();
        k.arrived.insert(me, k.phase);
        if release {
            let snap = snapshot(th, me);
            th.own += 1;
            k.open.join(&snap);
        }
        self.barriers_seen = true;
    }

    /// Thread `t`'s `barrier.cluster.wait` completed: it acquires the clock of the phase it
    /// arrived in.
    pub fn cluster_waited(&mut self, t: usize) {
        if t >= self.threads.len() {
            return;
        }
        let me = self.gtid(t);
        let cluster = self.sh.cluster_of(self.linear);
        let clock = {
            let Ok(mut m) = self.sh.clusters.lock() else {
                return;
            };
            let k = m.entry(cluster).or_default();
            let Some(phase) = k.arrived.remove(&me) else {
                return;
            };
            // The phase's clock; for one older than those kept, the newest kept before it
            // (fewer arrivals: never an ordering that did not happen).
            k.done
                .iter()
                .rev()
                .find(|(p, _)| phase.wrapping_sub(*p) as i32 >= 0)
                .map(|(_, c)| c.clone())
        };
        if let Some(c) = clock {
            join(&mut self.threads[t], &c);
        }
    }

    /// Fence-SC order at cluster scope for a `fence.sc` of thread `t` at `scope` (cluster or
    /// wider): joins the cluster's SC clock into the thread's.
    pub(super) fn sc_cluster_join(&mut self, t: usize) {
        if self.sh.cluster_size() < 2 {
            return;
        }
        let cluster = self.sh.cluster_of(self.linear);
        let clock = match self.sh.clusters.lock() {
            Ok(mut m) => m.entry(cluster).or_default().sc.clone(),
            Err(_) => return,
        };
        self.join_sc(t, &clock);
    }

    /// Publishes `snap` (the clock of a `fence.sc` at cluster scope or wider) as the
    /// cluster's SC clock.
    pub(super) fn sc_cluster_publish(&mut self, snap: &Arc<Vc>) {
        if self.sh.cluster_size() < 2 {
            return;
        }
        let cluster = self.sh.cluster_of(self.linear);
        if let Ok(mut m) = self.sh.clusters.lock() {
            m.entry(cluster).or_default().sc = snap.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race::RaceOptions;

    #[test]
    fn clusters_and_ranks() {
        // Grid 4x2, clusters 2x2: CTA (3,1) (linear 7) is rank 3 of cluster 1.
        let sh = RaceShared::new(
            RaceOptions::default(),
            Arc::new(Vec::new()),
            [4, 2, 1],
            [32, 1, 1],
        )
        .with_cluster([2, 2, 1]);
        assert_eq!(sh.cluster_of(7), 1);
        assert_eq!(sh.rank_of(7), 3);
        assert_eq!(sh.cluster_of(0), 0);
        assert_eq!(sh.cluster_of(5), 0);
        assert!(sh.includes(Scope::Cluster, 0, 5));
        assert!(!sh.includes(Scope::Cluster, 0, 2));
        assert!(!sh.includes(Scope::Cta, 0, 5));
        assert!(sh.includes(Scope::Gpu, 0, 2));
    }
}
