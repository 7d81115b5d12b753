//! Running the CTAs of one launch on host threads (PTX ISA §2.2, "Thread hierarchy": the
//! clusters of a grid execute independently, in no defined order).
//!
//! Clusters (of one CTA unless the launch gives a cluster shape; see [`crate::cluster::shape`]) are
//! handed out in linear order and run in time slices (a cluster that has used its slice goes
//! to the back of a queue), so clusters that wait for each other make progress while
//! independent ones run in parallel; the CTAs of one cluster share its host thread and run in
//! turn ([`Cluster`]), so that they can wait for each other (cluster barriers, a peer's
//! mbarrier, flags in a peer's shared memory).
//!
//! The fault reported is the fault of the lowest-numbered cluster that faults, whatever the
//! number of host threads and their timing: once cluster `L` faults, no cluster after `L`
//! starts or resumes, while the clusters before `L` (all started already) go on until they end
//! or fault. With clusters of one CTA, cluster numbers are linear CTA numbers.
//! They go on for at most [`AFTER_FAULT_BUDGET`] warp instructions in all, so CTAs that wait
//! for a CTA that will never run (a grid-wide barrier) do not spin until the step budget.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::cta::Cta;
use super::cta::{Counts, CtaStatus};
use super::fault::{Fault, FaultKind, FaultSite};
use super::reserve::ReserveError;
use super::warp::Warp;
use super::{Env, LaunchConfig};
use crate::cluster::barrier::ClusterBarrier;
use crate::cluster::shape::triple;

/// Warp instructions a CTA runs before it yields its host thread. Small enough that CTAs
/// spinning on each other (grid sync) hand over quickly, and that a grid of a few CTAs of
/// unequal work (causal attention's 4 CTAs of 1 to 4 key blocks, 110,000 warp instructions
/// in all) spreads over the host threads instead of each CTA running whole on one; large
/// enough that requeueing costs nothing measurable.
const QUANTUM: u64 = 1 << 13;

/// The slice of a CTA under `--race` with the default schedule: the race detector's default
/// interleaving, which its reports and tests were written against, stays as it was.
const RACE_QUANTUM: u64 = 1 << 16;

/// Warp instructions the CTAs before a faulting CTA may still run, in all, to reach a fault of
/// their own.
pub const AFTER_FAULT_BUDGET: u64 = 1 << 22;

/// CTAs waiting for another slice (the clusters not yet started are counted by the launch's
/// [`crate::cluster_launch::control::LaunchControl`], which `clusterlaunchcontrol.try_cancel` shares).
struct Queue {
    paused: VecDeque<Cluster>,
    in_flight: usize,
}

/// What a host thread does next.
enum Next {
    Start(u64),
    Resume(Box<Cluster>),
    Wait,
    Done,
}

/// The state the host threads running a grid share.
struct Grid<'e, 'a> {
    env: &'e Env<'a>,
    cfg: &'e LaunchConfig,
    /// Clusters in the launch.
    ctas: u64,
    /// CTAs per cluster.
    per_cluster: u64,
    queue: Mutex<Queue>,
    steps: AtomicU64,
    /// CTAs finished (ended or faulted).
    done: AtomicU64,
    /// When `--timeout` stops the launch.
    deadline: Option<Instant>,
    /// Everything stops (the step budget ran out, or the CTAs before a fault used theirs).
    stop: AtomicBool,
    /// The lowest linear index of a CTA that faulted (`u64::MAX`: none yet).
    limit: AtomicU64,
    /// Warp instructions run since the first fault.
    after_fault: AtomicU64,
    fault: Mutex<Option<(u64, Fault)>>,
    outputs: Mutex<Vec<(u64, super::launch::CtaOutput)>>,
    totals: Mutex<Counts>,
}

impl Grid<'_, '_> {
    fn next(&self) -> Next {
        let Ok(mut q) = self.queue.lock() else {
            return Next::Done;
        };
        let limit = self.limit.load(Ordering::Acquire);
        // `--race --schedule random`: start a new CTA or resume a random paused one.
        let pick = self.env.race.map_or(0, |r| r.pick(q.paused.len() + 1));
        if pick > 0 {
            let n = q.paused.len();
            q.paused.rotate_left((pick - 1) % n);
        }
        let resident = (q.in_flight + q.paused.len()) as u64 * self.per_cluster;
        let room = self
            .cfg
            .device
            .resident_ctas
            .is_none_or(|n| resident + self.per_cluster <= n);
        if pick == 0 && room {
            if let Some(linear) = self.env.launch_template.launch_control.start_next(limit) {
                q.in_flight += 1;
                return Next::Start(linear);
            }
        }
        while let Some(c) = q.paused.pop_front() {
            // A CTA after the lowest fault is left unfinished.
            if c.index < limit {
                q.in_flight += 1;
                return Next::Resume(Box::new(c));
            }
        }
        if q.in_flight == 0 {
            Next::Done
        } else {
            Next::Wait
        }
    }

    fn keep_output(&self, cluster: &mut Cluster) {
        for cta in &mut cluster.ctas {
            if !cta.out.stdout.is_empty() || !cta.out.tmem_trace.is_empty() {
                if let Ok(mut o) = self.outputs.lock() {
                    o.push((cta.linear, std::mem::take(&mut cta.out)));
                }
            }
        }
    }

    /// Records a fault of CTA `linear`, keeping the lowest-numbered CTA's.
    fn record_fault(&self, linear: u64, f: Fault) {
        if let Ok(mut slot) = self.fault.lock() {
            if slot.as_ref().is_none_or(|(l, _)| linear < *l) {
                *slot = Some((linear, f));
            }
        }
        self.limit.fetch_min(linear, Ordering::AcqRel);
    }

    /// Runs one slice of `cluster`; returns it if it must run again.
    fn slice(
        &self,
        mut cluster: Cluster,
        local: &mut Counts,
        spare: &mut Vec<Vec<Warp>>,
    ) -> Option<Cluster> {
        let before = cluster.counts();
        let quantum = self
            .env
            .race
            .map_or(QUANTUM, |r| r.slice_quantum(RACE_QUANTUM));
        let result = cluster.run(self.env, quantum);
        let after = cluster.counts();
        let used = after.warp_instructions - before.warp_instructions;
        let total = self.steps.fetch_add(used, Ordering::Relaxed) + used;
        if self.limit.load(Ordering::Acquire) != u64::MAX
            && self.after_fault.fetch_add(used, Ordering::Relaxed) + used > AFTER_FAULT_BUDGET
        {
            self.stop.store(true, Ordering::Relaxed);
        }
        // Instructions of CTAs that fault or stop early count too.
        local.warp_instructions += used;
        local.thread_instructions += after.thread_instructions - before.thread_instructions;
        let (first, index) = (cluster.ctas[0].ctaid, cluster.index);
        if let Some(e) = self.env.race.and_then(|r| r.memory_refused()) {
            self.refused_memory(index, e);
            return None;
        }
        match result {
            Err((_, f)) => {
                match f.kind {
                    FaultKind::HostMemory(e) => self.refused_memory(index, e),
                    kind => {
                        self.finished();
                        self.keep_output(&mut cluster);
                        self.record_fault(index, Fault { kind, site: f.site });
                    }
                }
                None
            }
            // The budget bounds the launch's total: a CTA that finishes past it (the last of
            // 100,000 short ones) stops the launch as surely as one that pauses past it.
            Ok(status) if total > self.cfg.max_steps => {
                if status == CtaStatus::Done {
                    self.keep_output(&mut cluster);
                }
                let budget = Fault {
                    kind: FaultKind::StepBudgetExhausted {
                        budget: self.cfg.max_steps,
                    },
                    site: FaultSite {
                        kernel: self.cfg.kernel.clone(),
                        cta: first,
                        ..FaultSite::default()
                    },
                };
                if let Ok(mut slot) = self.fault.lock() {
                    slot.get_or_insert((index, budget));
                }
                self.stop.store(true, Ordering::Relaxed);
                None
            }
            Ok(status)
                if self.deadline.is_some_and(|d| Instant::now() >= d)
                    || self
                        .cfg
                        .cancel
                        .as_ref()
                        .is_some_and(|c| c.load(Ordering::Relaxed)) =>
            {
                if status == CtaStatus::Done {
                    self.finished();
                }
                self.timed_out(first, index);
                None
            }
            Ok(CtaStatus::Done) => {
                self.finished();
                self.keep_output(&mut cluster);
                for cta in &mut cluster.ctas {
                    cta.give_warps(spare);
                }
                None
            }
            Ok(CtaStatus::Paused | CtaStatus::Blocked) => Some(cluster),
        }
    }

    /// Counts the CTAs of a cluster that ended or faulted.
    fn finished(&self) {
        self.done.fetch_add(self.per_cluster, Ordering::Relaxed);
        if let Some(p) = &self.cfg.progress {
            p.fetch_add(self.per_cluster, Ordering::Relaxed);
        }
    }

    /// Stops the launch for `--timeout` (noticed by CTA `linear`), unless a fault came first.
    fn timed_out(&self, ctaid: [u32; 3], linear: u64) {
        let kind = FaultKind::TimedOut {
            timeout: self.cfg.timeout.unwrap_or_default(),
            ctas_done: self.done.load(Ordering::Relaxed),
            ctas: self.ctas * self.per_cluster,
            steps: self.steps.load(Ordering::Relaxed),
        };
        let site = FaultSite {
            kernel: self.cfg.kernel.clone(),
            cta: ctaid,
            ..FaultSite::default()
        };
        if let Ok(mut slot) = self.fault.lock() {
            slot.get_or_insert((linear, Fault { kind, site }));
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Stops the launch because memory it needs was refused (noticed by cluster `index`):
    /// recorded as a [`FaultKind::HostMemory`] fault, which wins over program faults, since
    /// the launch cannot go on.
    fn refused_memory(&self, index: u64, e: crate::exec::reserve::ReserveError) {
        let f = Fault {
            kind: FaultKind::HostMemory(e),
            site: FaultSite {
                kernel: self.cfg.kernel.clone(),
                ..FaultSite::default()
            },
        };
        if let Ok(mut slot) = self.fault.lock() {
            if !matches!(
                slot.as_ref(),
                Some((
                    _,
                    Fault {
                        kind: FaultKind::HostMemory(_),
                        ..
                    }
                ))
            ) {
                *slot = Some((index, f));
            }
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// One host thread: takes CTAs until none is left.
    fn work(&self) {
        let mut local = Counts::default();
        // Warps of this thread's finished CTAs, for its next ones.
        let mut spare = Vec::new();
        while !self.stop.load(Ordering::Relaxed) {
            let cta = match self.next() {
                Next::Done => break,
                Next::Wait => {
                    std::thread::yield_now();
                    continue;
                }
                Next::Start(index) => match Cluster::new(self.env, index, &mut spare) {
                    Ok(c) => c,
                    Err(e) => {
                        self.refused_memory(index, e);
                        if let Ok(mut q) = self.queue.lock() {
                            q.in_flight -= 1;
                        }
                        continue;
                    }
                },
                Next::Resume(c) => *c,
            };
            let again = self.slice(cta, &mut local, &mut spare);
            if let Ok(mut q) = self.queue.lock() {
                q.in_flight -= 1;
                if let Some(c) = again {
                    q.paused.push_back(c);
                }
            }
        }
        if let Ok(mut t) = self.totals.lock() {
            t.warp_instructions += local.warp_instructions;
            t.thread_instructions += local.thread_instructions;
        }
    }
}

/// Runs every cluster of the grid; returns the counts, the CTAs' outputs in CTA order and
/// the fault of the lowest-numbered cluster that faulted.
pub(super) fn run_grid(
    env: &Env<'_>,
    cfg: &LaunchConfig,
    ctas: u64,
) -> (Counts, Vec<super::launch::CtaOutput>, Option<Fault>) {
    // The race detector's schedule is one host thread's, so that it can be replayed.
    let workers = if cfg.race.is_some() {
        1
    } else if cfg.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cfg.threads
    };
    let workers = workers
        .min(usize::try_from(ctas).unwrap_or(usize::MAX))
        .max(1);
    let grid = Grid {
        env,
        cfg,
        ctas,
        per_cluster: u64::from(
            env.launch_template
                .cluster
                .dims
                .iter()
                .map(|d| d.max(&1))
                .product::<u32>(),
        ),
        queue: Mutex::new(Queue {
            paused: VecDeque::new(),
            in_flight: 0,
        }),
        steps: AtomicU64::new(0),
        done: AtomicU64::new(0),
        deadline: cfg.timeout.and_then(|t| Instant::now().checked_add(t)),
        stop: AtomicBool::new(false),
        limit: AtomicU64::new(u64::MAX),
        after_fault: AtomicU64::new(0),
        fault: Mutex::new(None),
        outputs: Mutex::new(Vec::new()),
        totals: Mutex::new(Counts::default()),
    };
    if workers == 1 {
        grid.work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| grid.work());
            }
        });
    }
    let mut outs = grid.outputs.into_inner().unwrap_or_default();
    outs.sort_by_key(|(l, _)| *l);
    let outs = outs.into_iter().map(|(_, o)| o).collect();
    let counts = grid.totals.into_inner().unwrap_or_default();
    let fault = grid.fault.into_inner().unwrap_or(None).map(|(_, f)| f);
    (counts, outs, fault)
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
    ///
    /// # Errors
    /// A CTA's memory is past the run's limit or refused by the host.
    pub fn new(
        env: &Env<'_>,
        index: u64,
        spare: &mut Vec<Vec<Warp>>,
    ) -> Result<Cluster, ReserveError> {
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
            ctas.push(Cta::new(env, ctaid, linear, spare)?);
        }
        let per_cta = env.block[0] * env.block[1] * env.block[2];
        Ok(Cluster {
            index,
            done: vec![false; ctas.len()],
            barrier: ClusterBarrier::new(size, per_cta),
            ctas,
        })
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
                crate::exec::cta::pair_check::check_pairs(&self.ctas, env)?;
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
        let mut peers = crate::exec::cta::peers::CtaPeers::new(k as u32, lo, hi, &mut self.barrier);
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
