//! Thread-block clusters (PTX ISA §2.2.2 "Cluster of Cooperative Thread Arrays", "Distributed
//! shared memory"): the launch's cluster shape, each CTA's cluster identity, the
//! `.shared::cluster` window, the cluster barrier, and the scheduler that runs the CTAs of one
//! cluster together.
//!
//! A launch's CTAs are grouped into clusters of `dims` CTAs (1×1×1 unless `--cluster` or the
//! kernel's `.reqnctapercluster` says otherwise). The CTAs of one cluster run on one host
//! thread, in time slices, so that they can wait for each other (cluster barriers, a peer's
//! mbarrier, flags in a peer's shared memory); different clusters run independently, as CTAs
//! did before.
//!
//! Addresses: a CTA's own `.shared::cta` offsets are valid `.shared::cluster` addresses of
//! itself. `mapa` gives the address of offset `o` in the CTA of rank `r` as
//! [`CLUSTER_WINDOW`]` + (r << `[`RANK_SHIFT`]`) + o`, and its generic form lies in the generic
//! shared window at that offset. Loads, stores, atomics and mbarrier operations on such an
//! address reach CTA `r`'s shared memory. As on sm_90 and sm_100, where a CTA's shared
//! addresses carry its cluster rank from bit 24 (CUTLASS clears bit 24 to name the even CTA of
//! a pair), the value of a shared variable's address in a CTA of rank r > 0 is that CTA's own
//! `.shared::cluster` address of it (`Src::SharedSym`); a rank-0 CTA, and every CTA of a launch
//! without clusters, sees plain offsets as before. Accesses through either form reach the same
//! bytes.
//!
//! For other instruction families (tcgen05 `.cta_group::2`, multicast copies), [`ClusterPeers`]
//! gives an executing instruction the shared memory, async state and Tensor Memory of any CTA
//! of its cluster by rank.

use super::cta::{Counts, Cta, CtaStatus};
use super::fault::{Fault, FaultKind};
use super::memory::Bytes;
use super::step::async_copy::AsyncState;
use super::Env;
use crate::ir::PerfDirective;

/// Where the `.shared::cluster` addresses of the cluster's CTAs start (an offset in the
/// shared window; below it lie the executing CTA's own `.shared::cta` offsets).
pub const CLUSTER_WINDOW: u64 = 0x8000_0000;
/// Bits of a `.shared::cluster` address below the CTA rank.
pub const RANK_SHIFT: u32 = 24;
/// The most CTAs a cluster may have (sm_90's non-portable maximum; 8 is portable).
pub const MAX_CLUSTER_CTAS: u32 = 16;

/// The `.shared::cluster` address of offset `off` in the shared memory of CTA `rank`.
#[inline]
pub fn encode(rank: u32, off: u64) -> u64 {
    CLUSTER_WINDOW + (u64::from(rank) << RANK_SHIFT) + off
}

/// The CTA rank and offset of a `.shared::cluster` address made by [`encode`]; `None` for an
/// address below the cluster window (a CTA's own offset) or past its last possible rank.
#[inline]
pub fn decode(addr: u64) -> Option<(u32, u64)> {
    let rel = addr.checked_sub(CLUSTER_WINDOW)?;
    let rank = rel >> RANK_SHIFT;
    (rank < u64::from(MAX_CLUSTER_CTAS)).then_some((rank as u32, rel & ((1 << RANK_SHIFT) - 1)))
}

/// A CTA's place in its cluster: the values of the cluster special registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterIds {
    /// `%cluster_nctaid`: the cluster's shape in CTAs.
    pub dims: [u32; 3],
    /// `%cluster_ctaid`: the CTA's position in its cluster.
    pub ctaid: [u32; 3],
    /// `%clusterid`: the cluster's position in the grid.
    pub clusterid: [u32; 3],
    /// `%nclusterid`: the grid's shape in clusters.
    pub nclusterid: [u32; 3],
    /// `%cluster_ctarank`: the CTA's linear rank in its cluster (x fastest).
    pub rank: u32,
    /// `%cluster_nctarank`: CTAs per cluster.
    pub size: u32,
    /// `%is_explicit_cluster`: the launch gave a cluster shape.
    pub explicit: bool,
}

impl ClusterIds {
    /// The identity of CTA `ctaid` of a grid of `grid` CTAs in clusters of `dims`.
    pub fn of(ctaid: [u32; 3], grid: [u32; 3], dims: [u32; 3], explicit: bool) -> ClusterIds {
        let d = dims.map(|x| x.max(1));
        let c: [u32; 3] = std::array::from_fn(|i| ctaid[i] % d[i]);
        ClusterIds {
            dims: d,
            ctaid: c,
            clusterid: std::array::from_fn(|i| ctaid[i] / d[i]),
            nclusterid: std::array::from_fn(|i| grid[i] / d[i]),
            rank: c[0] + c[1] * d[0] + c[2] * d[0] * d[1],
            size: d[0] * d[1] * d[2],
            explicit,
        }
    }
}

/// The cluster directives of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// `.reqnctapercluster x, y, z`
    pub required: Option<[u32; 3]>,
    /// `.explicitcluster`
    pub explicit: bool,
    /// `.maxclusterrank n`
    pub max_rank: Option<u32>,
}

impl Directives {
    /// The cluster directives among a kernel's performance directives.
    pub fn of(perf: &[PerfDirective]) -> Directives {
        let mut d = Directives::default();
        for p in perf {
            match p {
                PerfDirective::Reqnctapercluster(v) => {
                    d.required = Some(std::array::from_fn(|i| v.get(i).copied().unwrap_or(1)));
                }
                PerfDirective::Explicitcluster => d.explicit = true,
                PerfDirective::Maxclusterrank(n) => d.max_rank = Some(*n),
                _ => {}
            }
        }
        d
    }
}

/// `(x,y,z)`, as fault sites write a CTA.
pub fn triple(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

fn dims_text(d: [u32; 3]) -> String {
    format!("{}x{}x{}", d[0], d[1], d[2])
}

/// The cluster shape of a launch of `kernel` over `grid` CTAs, and whether it is explicit:
/// `requested` (`--cluster`), else the kernel's `.reqnctapercluster`, else 1×1×1.
///
/// # Errors
/// A shape that contradicts the kernel's directives, exceeds [`MAX_CLUSTER_CTAS`], or does not
/// divide the grid.
pub fn launch_shape(
    kernel: &str,
    requested: Option<[u32; 3]>,
    dirs: &Directives,
    grid: [u32; 3],
) -> Result<([u32; 3], bool), String> {
    if let (Some(r), Some(q)) = (requested, dirs.required) {
        if r != q {
            return Err(format!(
                "kernel `{kernel}` declares .reqnctapercluster {} but the launch asks for clusters of {}",
                dims_text(q),
                dims_text(r)
            ));
        }
    }
    let shape = requested.or(dirs.required);
    if dirs.explicit && shape.is_none() {
        return Err(format!(
            "kernel `{kernel}` declares .explicitcluster but the launch gives no cluster shape (--cluster X,Y,Z)"
        ));
    }
    let Some(dims) = shape else {
        return Ok(([1, 1, 1], false));
    };
    if dims.contains(&0) {
        return Err(format!(
            "cluster shape {} has a zero dimension",
            dims_text(dims)
        ));
    }
    let size = u64::from(dims[0]) * u64::from(dims[1]) * u64::from(dims[2]);
    if size > u64::from(MAX_CLUSTER_CTAS) {
        return Err(format!(
            "a cluster of {} has {size} CTAs; the most a cluster may have is {MAX_CLUSTER_CTAS}",
            dims_text(dims)
        ));
    }
    if let Some(m) = dirs.max_rank {
        if size > u64::from(m) {
            return Err(format!(
                "kernel `{kernel}` declares .maxclusterrank {m} but the launch asks for clusters of {} ({size} CTAs)",
                dims_text(dims)
            ));
        }
    }
    if (0..3).any(|i| !grid[i].is_multiple_of(dims[i])) {
        return Err(format!(
            "the grid {} is not a whole number of clusters of {}: each grid dimension must be a multiple of the cluster's",
            dims_text(grid),
            dims_text(dims)
        ));
    }
    Ok((dims, true))
}

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

/// A thread's arrival state at the cluster barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitState {
    /// No arrival to wait for.
    NotArrived,
    /// The phase it arrived in has completed.
    Complete,
    /// The phase it arrived in is still open.
    Pending,
}

const NONE: u32 = u32::MAX;

/// The cluster barrier (`barrier.cluster.arrive` / `wait`): a phase completes when every thread
/// of the cluster that has not exited has arrived.
#[derive(Clone, Debug)]
pub struct ClusterBarrier {
    /// The current phase.
    pub phase: u32,
    /// Arrivals in the current phase.
    pub arrived: u32,
    /// Per CTA rank and thread: the phase of its arrival not yet waited for (allocated by
    /// the first arrival: most launches never use the barrier).
    threads: Vec<u32>,
    size: u32,
    per_cta: u32,
}

impl ClusterBarrier {
    /// A barrier for `size` CTAs of `per_cta` threads.
    pub fn new(size: u32, per_cta: u32) -> ClusterBarrier {
        ClusterBarrier {
            phase: 0,
            arrived: 0,
            threads: Vec::new(),
            size,
            per_cta,
        }
    }

    fn slot(&self, rank: u32, thread: u32) -> usize {
        (rank * self.per_cta + thread) as usize
    }

    /// Thread `thread` of CTA `rank` arrives.
    ///
    /// # Errors
    /// It already arrived in the current phase.
    pub fn arrive(&mut self, rank: u32, thread: u32) -> Result<(), String> {
        if self.threads.is_empty() {
            self.threads = vec![NONE; (self.size * self.per_cta) as usize];
        }
        let s = self.slot(rank, thread);
        match self.threads.get(s) {
            Some(&p) if p == self.phase => Err(format!(
                "the thread arrives twice at phase {} of the cluster barrier without waiting",
                self.phase
            )),
            Some(_) => {
                self.threads[s] = self.phase;
                self.arrived += 1;
                Ok(())
            }
            None => Err("thread outside the cluster".into()),
        }
    }

    /// Where thread `thread` of CTA `rank` stands; a completed wait clears its arrival.
    pub fn wait(&mut self, rank: u32, thread: u32) -> WaitState {
        let s = self.slot(rank, thread);
        match self.threads.get(s).copied() {
            None | Some(NONE) => WaitState::NotArrived,
            Some(p) if p == self.phase => WaitState::Pending,
            Some(_) => {
                self.threads[s] = NONE;
                WaitState::Complete
            }
        }
    }

    /// Clears the arrival of a thread released from its wait.
    pub fn released(&mut self, rank: u32, thread: u32) {
        let s = self.slot(rank, thread);
        if let Some(t) = self.threads.get_mut(s) {
            *t = NONE;
        }
    }

    /// Completes the phase when `live` threads (every thread not exited) have arrived.
    pub fn try_complete(&mut self, live: u32) -> bool {
        if self.arrived > 0 && self.arrived >= live {
            self.phase = self.phase.wrapping_add(1);
            self.arrived = 0;
            true
        } else {
            false
        }
    }
}

/// One cluster of a launch: its CTAs (by rank), run together.
pub struct Cluster {
    /// Its linear index among the launch's clusters (x fastest).
    pub index: u64,
    /// Its CTAs, by rank.
    pub ctas: Vec<Cta>,
    done: Vec<bool>,
    barrier: ClusterBarrier,
}

impl Cluster {
    /// Creates cluster `index` of the launch: its CTAs at the kernel's entry.
    pub fn new(env: &Env<'_>, index: u64) -> Cluster {
        let grid = env.launch_template.nctaid;
        let dims = env.launch_template.cluster.dims.map(|d| d.max(1));
        let nc: [u64; 3] = std::array::from_fn(|i| u64::from(grid[i] / dims[i]).max(1));
        let cid = [
            (index % nc[0]) as u32,
            ((index / nc[0]) % nc[1]) as u32,
            (index / (nc[0] * nc[1])) as u32,
        ];
        let size = dims[0] * dims[1] * dims[2];
        let mut ctas = Vec::with_capacity(size as usize);
        for r in 0..size {
            let local = [
                r % dims[0],
                (r / dims[0]) % dims[1],
                r / (dims[0] * dims[1]),
            ];
            let ctaid: [u32; 3] = std::array::from_fn(|i| cid[i] * dims[i] + local[i]);
            let linear = u64::from(ctaid[0])
                + u64::from(ctaid[1]) * u64::from(grid[0])
                + u64::from(ctaid[2]) * u64::from(grid[0]) * u64::from(grid[1]);
            ctas.push(Cta::new(env, ctaid, linear));
        }
        let per_cta = env.block[0] * env.block[1] * env.block[2];
        Cluster {
            index,
            done: vec![false; ctas.len()],
            barrier: ClusterBarrier::new(size, per_cta),
            ctas,
        }
    }

    /// Instructions executed by its CTAs.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for t in &self.ctas {
            c.warp_instructions += t.counts.warp_instructions;
            c.thread_instructions += t.counts.thread_instructions;
        }
        c
    }

    /// Runs the cluster's CTAs in turn until all finish or about `quantum` warp instructions
    /// ran; a fault comes with the rank of the CTA that faulted.
    ///
    /// # Errors
    /// A fault of a CTA, or a cluster-wide deadlock.
    pub fn run(&mut self, env: &Env<'_>, quantum: u64) -> Result<CtaStatus, (usize, Box<Fault>)> {
        let n = self.ctas.len();
        let share = if n == 1 {
            quantum
        } else {
            (quantum / n as u64).max(4096)
        };
        let mut used = 0u64;
        loop {
            let mut all_blocked = true;
            for k in 0..n {
                if self.done[k] {
                    continue;
                }
                let before = self.ctas[k].counts.warp_instructions;
                let status = self.run_one(env, k, share).map_err(|f| (k, f))?;
                used += self.ctas[k].counts.warp_instructions - before;
                match status {
                    CtaStatus::Done => {
                        self.done[k] = true;
                        all_blocked = false;
                    }
                    CtaStatus::Paused => all_blocked = false,
                    CtaStatus::Blocked => {}
                }
            }
            if self.done.iter().all(|d| *d) {
                super::cta::pair_check::check_pairs(&self.ctas, env)?;
                return Ok(CtaStatus::Done);
            }
            let released = self.check_barrier(env);
            if !released && all_blocked {
                return Err(self.deadlock(env));
            }
            if used >= quantum {
                return Ok(CtaStatus::Paused);
            }
        }
    }

    fn run_one(&mut self, env: &Env<'_>, k: usize, quantum: u64) -> Result<CtaStatus, Box<Fault>> {
        let (lo, rest) = self.ctas.split_at_mut(k);
        let (me, hi) = rest.split_first_mut().expect("rank in range");
        let mut peers = super::cta::peers::CtaPeers::new(k as u32, lo, hi, &mut self.barrier);
        me.run(env, quantum, &mut peers)
    }

    /// Completes the cluster barrier's phase when every live thread arrived, releasing its
    /// waiters; returns whether it did.
    fn check_barrier(&mut self, env: &Env<'_>) -> bool {
        if self.barrier.arrived == 0 {
            return false;
        }
        let live: u32 = self.ctas.iter().map(Cta::live_threads).sum();
        if !self.barrier.try_complete(live) {
            return false;
        }
        if let Some(r) = env.race {
            r.cluster_phase_done(self.index as u32);
        }
        for (r, cta) in self.ctas.iter_mut().enumerate() {
            cta.release_cluster_waiters(env, r as u32, &mut self.barrier);
        }
        true
    }

    /// Describes a cluster whose CTAs all wait and whose barrier cannot complete.
    fn deadlock(&self, env: &Env<'_>) -> (usize, Box<Fault>) {
        let live: u32 = self.ctas.iter().map(Cta::live_threads).sum();
        let mut parts = vec![format!(
            "cluster {}: phase {} of the cluster barrier has {} of {} arrivals (live threads of the cluster)",
            triple(self.ctas[0].launch_ids().clusterid),
            self.barrier.phase,
            self.barrier.arrived,
            live
        )];
        let mut first: Option<(usize, Box<Fault>)> = None;
        for (r, cta) in self.ctas.iter().enumerate() {
            if self.done[r] {
                parts.push(format!("CTA {} (rank {r}) exited", triple(cta.ctaid)));
                continue;
            }
            let f = cta.blocked_fault(env);
            if let FaultKind::BarrierDeadlock { detail } = &f.kind {
                parts.push(format!("CTA {} (rank {r}): {detail}", triple(cta.ctaid)));
            }
            if first.is_none() {
                first = Some((r, f));
            }
        }
        let (r, mut f) = first.unwrap_or_else(|| (0, self.ctas[0].blocked_fault(env)));
        f.kind = FaultKind::BarrierDeadlock {
            detail: parts.join("; "),
        };
        (r, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        assert_eq!(decode(encode(3, 0x40)), Some((3, 0x40)));
        assert_eq!(decode(0x40), None);
        assert_eq!(decode(encode(MAX_CLUSTER_CTAS, 0)), None);
        assert!(encode(MAX_CLUSTER_CTAS - 1, (1 << RANK_SHIFT) - 1) < 1 << 32);
    }

    #[test]
    fn identities_follow_the_isa() {
        // Grid 4x2, clusters 2x2: CTA (3,1) is (1,1) of cluster (1,0), rank 3.
        let ids = ClusterIds::of([3, 1, 0], [4, 2, 1], [2, 2, 1], true);
        assert_eq!(ids.ctaid, [1, 1, 0]);
        assert_eq!(ids.clusterid, [1, 0, 0]);
        assert_eq!(ids.nclusterid, [2, 1, 1]);
        assert_eq!((ids.rank, ids.size), (3, 4));
    }

    #[test]
    fn launch_shapes_are_checked() {
        let none = Directives::default();
        assert_eq!(
            launch_shape("k", None, &none, [4, 1, 1]),
            Ok(([1, 1, 1], false))
        );
        assert_eq!(
            launch_shape("k", Some([2, 1, 1]), &none, [4, 1, 1]),
            Ok(([2, 1, 1], true))
        );
        let e = launch_shape("k", Some([2, 1, 1]), &none, [3, 1, 1]).unwrap_err();
        assert!(e.contains("3x1x1") && e.contains("2x1x1"), "{e}");
        let req = Directives {
            required: Some([4, 1, 1]),
            ..Directives::default()
        };
        assert_eq!(
            launch_shape("k", None, &req, [8, 1, 1]),
            Ok(([4, 1, 1], true))
        );
        assert!(launch_shape("k", Some([2, 1, 1]), &req, [8, 1, 1])
            .unwrap_err()
            .contains(".reqnctapercluster 4x1x1"));
        let expl = Directives {
            explicit: true,
            ..Directives::default()
        };
        assert!(launch_shape("k", None, &expl, [8, 1, 1]).is_err());
        let max = Directives {
            max_rank: Some(2),
            ..Directives::default()
        };
        assert!(launch_shape("k", Some([4, 1, 1]), &max, [8, 1, 1]).is_err());
        assert!(launch_shape("k", Some([17, 1, 1]), &none, [17, 1, 1]).is_err());
    }

    #[test]
    fn barrier_phases() {
        let mut b = ClusterBarrier::new(2, 2);
        assert_eq!(b.wait(0, 0), WaitState::NotArrived);
        b.arrive(0, 0).unwrap();
        assert!(b.arrive(0, 0).is_err());
        assert_eq!(b.wait(0, 0), WaitState::Pending);
        b.arrive(1, 1).unwrap();
        assert!(!b.try_complete(4));
        assert!(b.try_complete(2));
        assert_eq!(b.wait(0, 0), WaitState::Complete);
        assert_eq!(b.wait(0, 0), WaitState::NotArrived);
        assert_eq!(b.wait(1, 1), WaitState::Complete);
    }
}
