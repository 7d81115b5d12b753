//! `ptxemu run --race`: data races in a kernel's execution, judged by the PTX memory model
//! (docs/spec/memory-model.md §8; docs/race.md lists every choice made where the spec leaves
//! room).
//!
//! A data race is a pair of accesses to overlapping bytes, at least one a write, by different
//! threads, that are not *morally strong* and not ordered by *causality order*. The
//! interpreter runs the kernel on one host thread; each thread keeps a vector clock (FastTrack
//! style: a shared sparse base plus the thread's own counter, so a barrier over a CTA of n
//! threads costs O(n), not O(n²)), and shadow memory keeps, per 4-byte word touched, the last
//! write and the reads since it. Synchronises-with edges come from release/acquire patterns
//! (including fences and observation through RMW chains), Fence-SC order (in execution order),
//! `bar`/`barrier` arrive → wait, `mbarrier` arrive → wait of the phase, `cp.async` →
//! `cp.async.wait_group`/`wait_all` (a copy's accesses are its copy agent's), and, by default,
//! `bar.warp.sync`.
//!
//! The detector costs nothing when off: the interpreter's hooks test one `Option`.

pub mod buffers;
pub mod cta;
pub mod json;
pub mod op;
pub mod report;
pub mod sc_order;
pub mod shadow;
pub mod vc;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use models::vocab::FenceSem;

pub use buffers::BufferArg;
pub use cta::CtaRace;
pub use op::{describe, Kind, RaceOp, Sem};
pub use report::{AccessReport, Race, RaceReport};

use shadow::Shadow;
use vc::Vc;

/// How CTAs and warps are interleaved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// The interpreter's own order (CTAs in linear order, long time slices).
    Default,
    /// Pseudo-random CTA and warp interleavings with short slices, from a seed.
    Random(u64),
}

/// Choices where the sources disagree, as switches (docs/race.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceOptions {
    /// The schedule.
    pub schedule: Schedule,
    /// Whether `bar.warp.sync` orders memory among its lanes like `bar.sync` (the instruction
    /// page promises it; §8 of the ISA does not list it). Default on.
    pub warp_sync_orders: bool,
    /// Whether `fence.sc` (and `membar`) also counts as a release and acquire fence in
    /// patterns (the PTX document and both Alloy models: yes; Dat3M: no). Default on.
    pub sc_fence_in_patterns: bool,
    /// Whether a pair that this run's Fence-SC order alone orders is checked against the
    /// other orders the model allows (`sc_order`; default on). Off: Fence-SC order is the
    /// order the fences ran in, as on hardware in one run.
    pub any_sc_order: bool,
}

impl Default for RaceOptions {
    fn default() -> RaceOptions {
        RaceOptions {
            schedule: Schedule::Default,
            warp_sync_orders: true,
            sc_fence_in_patterns: true,
            any_sc_order: true,
        }
    }
}

/// A small deterministic generator (splitmix64) for random schedules.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// Launch-wide state: global shadow memory, the Fence-SC clock, the races found.
pub struct RaceShared {
    /// The options.
    pub opts: RaceOptions,
    /// Per pc: what the instruction is to the detector.
    pub ops: Arc<Vec<RaceOp>>,
    /// Threads per CTA.
    pub cta_threads: u32,
    /// The CTA shape.
    pub block: [u32; 3],
    /// The grid shape.
    pub grid: [u32; 3],
    /// The cluster shape in CTAs (1×1×1 without clusters).
    pub cluster: [u32; 3],
    /// Per cluster: the cluster barrier's clocks and its Fence-SC clock (`cta::cluster`).
    pub(crate) clusters: Mutex<HashMap<u32, cta::cluster_sync::ClusterClock>>,
    pub(crate) global: Mutex<Shadow>,
    /// The clock of gpu/sys-scope `fence.sc` (Fence-SC order, taken as execution order).
    pub(crate) sc_gpu: Mutex<Arc<Vc>>,
    pub(crate) races: Mutex<HashMap<(u32, u32), Race>>,
    /// Whether the kernel has `fence.sc` (or `membar`) and few enough threads for tagged
    /// clock entries: pairs ordered only through this run's Fence-SC order are then decided
    /// (`sc_order`); otherwise Fence-SC order is the execution order, as it ran.
    pub(crate) sc_order: bool,
    /// Every `fence.sc` executed (with `sc_order`).
    pub(crate) fences: Mutex<sc_order::FenceLog>,
    /// Pairs ordered only through Fence-SC order that could not be decided (full log).
    pub(crate) sc_undecided: AtomicU64,
    /// Shared-memory shadows of finished CTAs, reset, for the next CTAs to reuse.
    pub(crate) smem_pool: Mutex<Vec<Shadow>>,
    rng: Mutex<Rng>,
    /// The run's memory budget, which the shadows draw from.
    pub(crate) budget: Option<Arc<shadow::ShadowBudget>>,
}

impl RaceShared {
    /// The state for a launch of `grid` × `block` threads.
    pub fn new(opts: RaceOptions, ops: Arc<Vec<RaceOp>>, grid: [u32; 3], block: [u32; 3]) -> Self {
        let seed = match opts.schedule {
            Schedule::Random(s) => s,
            Schedule::Default => 0,
        };
        let threads = grid
            .iter()
            .chain(&block)
            .map(|&d| u64::from(d))
            .product::<u64>();
        let has_sc_fence = ops.iter().any(|o| {
            matches!(
                o,
                RaceOp::Fence {
                    sem: FenceSem::Sc,
                    ..
                }
            )
        });
        RaceShared {
            sc_order: opts.any_sc_order && has_sc_fence && threads < u64::from(vc::TAGGED_THREADS),
            fences: Mutex::new(sc_order::FenceLog::default()),
            sc_undecided: AtomicU64::new(0),
            opts,
            ops,
            cta_threads: block[0] * block[1] * block[2],
            block,
            grid,
            cluster: [1, 1, 1],
            clusters: Mutex::new(HashMap::new()),
            global: Mutex::new(Shadow::default()),
            sc_gpu: Mutex::new(Arc::new(Vc::default())),
            races: Mutex::new(HashMap::new()),
            smem_pool: Mutex::new(Vec::new()),
            rng: Mutex::new(Rng::new(seed)),
            budget: None,
        }
    }

    /// The same state with its shadow memory counted against `budget` (the run's).
    pub fn with_budget(mut self, budget: Arc<crate::exec::reserve::Budget>) -> Self {
        let b = Arc::new(shadow::ShadowBudget::new(budget));
        let global = std::mem::take(self.global.get_mut().unwrap_or_else(|p| p.into_inner()));
        self.global = Mutex::new(global.counted(Some(&b)));
        self.budget = Some(b);
        self
    }

    /// The refusal that stops the launch, once shadow memory went past the run's limit.
    pub fn memory_refused(&self) -> Option<crate::exec::reserve::ReserveError> {
        self.budget.as_ref().and_then(|b| b.refused())
    }

    /// The same state for a launch in clusters of `dims` CTAs.
    pub fn with_cluster(mut self, dims: [u32; 3]) -> Self {
        self.cluster = dims.map(|d| d.max(1));
        self
    }

    /// With a random schedule: the number of warp instructions the next CTA slice runs.
    pub fn slice_quantum(&self, default: u64) -> u64 {
        match self.opts.schedule {
            Schedule::Default => default,
            // Mostly very short slices, so that CTAs interleave between any two
            // instructions; now and then a long one.
            Schedule::Random(_) => self.rng.lock().map_or(1, |mut r| {
                if r.below(4) == 0 {
                    1 + r.below(256)
                } else {
                    1 + r.below(8)
                }
            }),
        }
    }

    /// With a random schedule: which of `n` candidates to take next (0 otherwise).
    pub fn pick(&self, n: usize) -> usize {
        match self.opts.schedule {
            Schedule::Default => 0,
            Schedule::Random(_) => self
                .rng
                .lock()
                .map_or(0, |mut r| r.below(n as u64) as usize),
        }
    }

    /// A per-CTA generator seed (random schedules only).
    pub(crate) fn cta_seed(&self, linear: u64) -> Option<u64> {
        match self.opts.schedule {
            Schedule::Default => None,
            Schedule::Random(s) => Some(s.wrapping_mul(0x1000_0000_01b3).wrapping_add(linear)),
        }
    }

    /// The races found, ordered by their instructions' pcs.
    pub fn finish(&self) -> RaceReport {
        let mut races: Vec<Race> = self
            .races
            .lock()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default();
        races.sort_by_key(|r| (r.first.pc, r.second.pc));
        let shadow_words = self.global.lock().map_or(0, |g| g.words());
        RaceReport {
            races,
            shadow_words,
            sc_undecided: self.sc_undecided.load(Ordering::Relaxed),
        }
    }

    /// The CTA index and thread index of a linear thread id (a cp.async agent's: its
    /// thread's).
    pub fn position(&self, gtid: u32) -> ([u32; 3], [u32; 3]) {
        let gtid = gtid & !cta::AGENTS;
        let n = self.cta_threads.max(1);
        let (c, t) = (gtid / n, gtid % n);
        let (g, b) = (self.grid, self.block);
        (
            [c % g[0], (c / g[0]) % g[1], c / (g[0] * g[1])],
            [t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1])],
        )
    }
}
