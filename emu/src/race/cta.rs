//! The per-CTA half of the detector: the vector clocks of the CTA's threads, the shadow of
//! its shared memory, its barriers' clocks, and the hooks the interpreter calls.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, MutexGuard};

use models::vocab::{FenceSem, Scope};
use smallvec::SmallVec;

use super::op::{Kind, RaceOp, Sem};
use super::report::{self, Miss};
use super::sc_order::{self, FenceRecord, ScVerdict};
use super::shadow::{Acc, Payload, Rel, Shadow};
use super::vc::Vc;
use super::{RaceShared, Rng};

mod asyncs;
mod bulk;
mod cells;
pub mod cluster_sync;
mod tensor;
mod warp;

use cells::{add_read, add_write, check, Found};

pub use asyncs::{MbarEvent, AGENT};
pub use bulk::{fingerprint, BulkAccess, BULK};
pub use tensor::TC;

/// The bits that name a thread's agents (cp.async, bulk, tensor core) in a thread id.
pub const AGENTS: u32 = AGENT | BULK | TC;

/// Pending observed payloads a thread keeps for later acquire fences.
const MAX_PENDING: usize = 64;

/// Reads of one word past which, each time as many reads again have been added, those that
/// later reads stand for are dropped (ordered before a new read by its clock, or read again
/// later by the same thread).
const PRUNE_AT: usize = 32;

/// One thread's clock: `base` joined with `own` for the thread itself.
struct Thread {
    base: Arc<Vc>,
    own: u32,
    /// The last release fence at each scope (cta, cluster, gpu, sys), as a release.
    rel: [Option<Rel>; 4],
    /// Payloads observed by strong reads, for acquire fences later in program order.
    pending: Vec<Payload>,
    /// The last synchronisation that did not happen because of scopes.
    miss: Option<Miss>,
    /// The clock of the thread's cp.async agent (one event per copy).
    agent_clk: u32,
    /// The thread's copies not yet waited for, in issue order.
    copies: VecDeque<asyncs::Copy>,
    /// Its bulk agent and bulk groups.
    bulk: bulk::BulkGroups,
    /// The payload and scope of its last acquire that joined every release: acquiring them
    /// again adds nothing while `base` only grows (a spin loop's reads of a flag).
    acquired: Option<(Payload, Scope)>,
    /// Its last read (reading it again is a poll).
    last_read: LastRead,
}

impl Thread {
    /// Whether an acquire of `p` at `scope` would add nothing: the thread's last acquire
    /// joined every release of that same payload at that scope.
    fn has_acquired(&self, p: &Payload, scope: Scope) -> bool {
        self.acquired
            .as_ref()
            .is_some_and(|(q, s)| Arc::ptr_eq(q, p) && *s == scope)
    }
}

/// A thread's last read by its own instruction (not an agent's).
#[derive(Clone, Copy, PartialEq, Eq)]
struct LastRead {
    /// The instruction (which fixes the size).
    pc: u32,
    /// Its address, in shared memory or not.
    addr: u64,
    shared: bool,
    /// When the read was of one word and raced with none of the word's writes: how many
    /// writes the word had seen. While none comes, the same read again finds no race either
    /// (the thread's clock only grows), so it need not be checked.
    clean_at: Option<u64>,
}

impl LastRead {
    /// No read yet.
    const NONE: LastRead = LastRead {
        pc: u32::MAX,
        addr: u64::MAX,
        shared: false,
        clean_at: None,
    };

    /// Whether it was instruction `pc`'s read of `addr`.
    fn is(&self, pc: u32, addr: u64, shared: bool) -> bool {
        self.pc == pc && self.addr == addr && self.shared == shared
    }
}

fn scope_index(s: Scope) -> usize {
    match s {
        Scope::Cta => 0,
        Scope::Cluster => 1,
        Scope::Gpu => 2,
        Scope::Sys => 3,
    }
}

/// The detector's state of one CTA.
pub struct CtaRace {
    sh: Arc<RaceShared>,
    linear: u32,
    threads: Vec<Thread>,
    smem: Shadow,
    bars: Vec<Option<Vc>>,
    bar_done: Vec<Option<Arc<Vc>>>,
    sc_cta: Arc<Vc>,
    rng: Option<Rng>,
    /// Whether the CTA has passed a barrier (for reasons).
    pub(crate) barriers_seen: bool,
    /// Barriers completed with every thread of the CTA waiting.
    full_gen: u32,
    /// Per barrier: lanes that waited at its current instance.
    waited: Vec<u32>,
    /// Per mbarrier (by shared offset): the clocks of its arrivals and completed phases.
    mbars: HashMap<u64, asyncs::MbarClock>,
    /// The CTA whose shared memory `smem` and `mbars` are (`cluster`).
    owner: u32,
    /// The tensor-core agents' clocks and groups (`tensor`).
    tc: tensor::TcState,
}

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A load.
    Read,
    /// A store.
    Write,
    /// An atomic; `wrote` is false for a `cas` that failed (a read only).
    Rmw {
        /// Whether it wrote.
        wrote: bool,
    },
}

impl CtaRace {
    /// The state of CTA `linear` of the launch.
    pub fn new(sh: &Arc<RaceShared>, linear: u64) -> CtaRace {
        let empty = Arc::new(Vc::default());
        let n = sh.cta_threads as usize;
        let threads = (0..n)
            .map(|_| Thread {
                base: empty.clone(),
                own: 1,
                rel: Default::default(),
                pending: Vec::new(),
                miss: None,
                agent_clk: 0,
                copies: VecDeque::new(),
                bulk: Default::default(),
                acquired: None,
                last_read: LastRead::NONE,
            })
            .collect();
        CtaRace {
            sh: sh.clone(),
            linear: linear as u32,
            threads,
            smem: sh
                .smem_pool
                .lock()
                .ok()
                .and_then(|mut p| p.pop())
                .unwrap_or_else(|| Shadow::flat().counted(sh.budget.as_ref())),
            bars: vec![None; 16],
            bar_done: vec![None; 16],
            sc_cta: empty,
            rng: sh.cta_seed(linear).map(Rng::new),
            barriers_seen: false,
            full_gen: 0,
            waited: vec![0; 17],
            mbars: HashMap::new(),
            owner: linear as u32,
            tc: tensor::TcState::default(),
        }
    }

    fn gtid(&self, t: usize) -> u32 {
        self.linear * self.sh.cta_threads + t as u32
    }

    /// With a random schedule, how many instructions the next warp runs; else `default`.
    pub fn warp_share(&mut self, default: u64) -> u64 {
        match &mut self.rng {
            Some(r) => 1 + r.below(64),
            None => default,
        }
    }

    /// With a random schedule, the warp to try first; else `default`.
    pub fn first_warp(&mut self, n: usize, default: usize) -> usize {
        match &mut self.rng {
            Some(r) => r.below(n as u64) as usize,
            None => default,
        }
    }

    /// An access of `size` bytes at `addr` (a global address, or a shared-memory offset when
    /// `in_shared`) by thread `t` (linear in the CTA) executing `pc`.
    pub fn access(&mut self, t: usize, pc: u32, in_shared: bool, addr: u64, size: u32, a: Access) {
        let Some(&RaceOp::Mem { kind, sem, scope }) = self.sh.ops.get(pc as usize) else {
            return;
        };
        self.access_as(
            t,
            pc,
            (in_shared, addr, size),
            a,
            (kind, sem, scope),
            None,
            0,
        );
    }

    /// An access as [`Self::access`], of the given kind; `actor` (gtid, clock) names who
    /// performs it when that is not thread `t` itself (its cp.async agent); `fp` fingerprints
    /// the bytes a write left (0: not known).
    #[allow(clippy::too_many_arguments)]
    fn access_as(
        &mut self,
        t: usize,
        pc: u32,
        (in_shared, addr, size): (bool, u64, u32),
        a: Access,
        (kind, sem, scope): (Kind, Sem, Option<Scope>),
        actor: Option<(u32, u32)>,
        fp: u32,
    ) {
        if kind == Kind::ReadNc || t >= self.threads.len() || size == 0 {
            return;
        }
        let me = self.gtid(t);
        let (reads, writes) = match a {
            Access::Read => (true, false),
            Access::Write => (false, true),
            Access::Rmw { wrote } => (true, wrote),
        };
        let (who, clk) = actor.unwrap_or((me, self.threads[t].own));
        let acc = Acc {
            gtid: who,
            clk,
            pc,
            addr,
            size: size.min(255) as u8,
            shared: in_shared,
            write: writes,
            gen: self.full_gen,
            lanes: 0,
            step: 0,
            fp,
        };
        // (full barriers, first thread of the CTA, threads per CTA) for `hb`'s fast path.
        let gen = (self.full_gen, self.gtid(0), self.sh.cta_threads);
        let linear = self.linear;
        let CtaRace {
            sh, threads, smem, ..
        } = self;
        let sh: &RaceShared = sh;
        let mut guard: Option<MutexGuard<'_, Shadow>> = None;
        let shadow: &mut Shadow = if in_shared {
            smem
        } else {
            match sh.global.lock() {
                Ok(g) => guard.insert(g),
                Err(_) => return,
            }
        };
        let first_word = addr >> 2;
        let last_word = (addr + u64::from(size) - 1) >> 2;
        // Observation: a strong read of a write it is morally strong with.
        let mut observed: Option<Payload> = None;
        if reads && sem.strong() {
            let cell = shadow.cell(first_word);
            if let Some(w) = cell.write {
                if w.gtid == me || ms(sh, &w, &acc, (sem, scope)) {
                    // A read that observes what the thread already keeps and has acquired
                    // (a spin loop) changes nothing: skip cloning the payload.
                    let th = &threads[t];
                    let acquired = |p: &Payload| {
                        !sem.acquires() || th.has_acquired(p, scope.unwrap_or(Scope::Sys))
                    };
                    let known = |p: &Payload| {
                        !writes && th.pending.iter().any(|q| Arc::ptr_eq(q, p)) && acquired(p)
                    };
                    observed = cell.payload.as_ref().filter(|p| !known(p)).cloned();
                } else if cell.payload.is_some() {
                    threads[t].miss = Some(Miss::NotObserved {
                        write: w,
                        read_pc: pc,
                    });
                }
            }
        }
        let th = &mut threads[t];
        let payload = if writes && sem.strong() {
            let mut v: Vec<Rel> = Vec::new();
            if matches!(kind, Kind::Atomic | Kind::Red) {
                if let Some(p) = &observed {
                    v.extend(p.iter().cloned());
                }
            }
            for r in th.rel.iter().flatten() {
                merge(&mut v, r.clone());
            }
            if sem.releases() {
                let r = release(th, me, linear, scope.unwrap_or(Scope::Sys), pc);
                merge(&mut v, r);
            }
            (!v.is_empty()).then(|| Payload::from(v))
        } else {
            None
        };
        let mut found: SmallVec<[Found; 2]> = SmallVec::new();
        // The thread's own read (not an agent's), and whether it reads again what it read last.
        let own_read = reads && !writes && actor.is_none();
        let again = own_read && th.last_read.is(pc, addr, in_shared);
        let one_word = first_word == last_word;
        let mut clean_at = None;
        for w in first_word..=last_word {
            let cell = shadow.cell(w);
            // A read again of one word with no write to it since: known to race with nothing.
            let known_clean = again && one_word && th.last_read.clean_at == Some(cell.writes_seen);
            if !known_clean {
                check(sh, gen, (th, me), &acc, (sem, scope), (cell, w), &mut found);
            }
            if one_word && found.is_empty() {
                clean_at = Some(cell.writes_seen);
            }
            let room = cell.earlier.capacity();
            if writes {
                add_write(sh, gen, th, &acc, cell, payload.clone());
            } else {
                add_read(gen, th, &acc, cell, again);
            }
            let grew = cell.earlier.capacity().saturating_sub(room);
            shadow.earlier_grew(grew);
            if sh.sc_order {
                shadow.pass_reach(w, &mut th.base, reads, writes);
            }
        }
        if own_read {
            th.last_read = LastRead {
                pc,
                addr,
                shared: in_shared,
                clean_at,
            };
        }
        drop(guard);
        for f in found {
            self.record(t, f, acc);
        }
        if let Some(p) = observed {
            if kind != Kind::Red {
                if sem.acquires() {
                    self.acquire(t, &p, scope.unwrap_or(Scope::Sys), pc);
                }
                let th = &mut self.threads[t];
                if !th.pending.iter().any(|q| Arc::ptr_eq(q, &p)) {
                    if th.pending.len() >= MAX_PENDING {
                        th.pending.remove(0);
                    }
                    th.pending.push(p);
                }
            }
        }
    }

    /// Joins the releases of `p` that are morally strong with an acquire at `scope` of thread
    /// `t`; remembers the first that is not.
    fn acquire(&mut self, t: usize, p: &Payload, scope: Scope, pc: u32) -> bool {
        let cta = self.linear;
        let th = &mut self.threads[t];
        if th.has_acquired(p, scope) {
            return true;
        }
        let mut all = true;
        for e in p.iter() {
            if self.sh.includes(e.scope, e.cta, cta) && self.sh.includes(scope, cta, e.cta) {
                join(th, &e.base);
            } else {
                all = false;
                th.miss = Some(Miss::Scope {
                    release: e.clone(),
                    acquire_pc: pc,
                    acquire_scope: scope,
                });
            }
        }
        th.acquired = all.then(|| (p.clone(), scope));
        all
    }

    /// A `fence`/`membar` executed by thread `t`.
    pub fn fence(&mut self, t: usize, pc: u32) {
        let Some(&RaceOp::Fence { sem, scope, .. }) = self.sh.ops.get(pc as usize) else {
            return;
        };
        if t >= self.threads.len() {
            return;
        }
        let me = self.gtid(t);
        let in_patterns = sem != FenceSem::Sc || self.sh.opts.sc_fence_in_patterns;
        let acquires = in_patterns && sem != FenceSem::Release;
        let releases = in_patterns && sem != FenceSem::Acquire;
        if sem == FenceSem::Sc {
            // Fence-SC order, taken as the order the fences executed in: join the clock of
            // the earlier ms fence.sc, then publish this thread's clock. In a kernel with
            // `fence.sc` the joined entries are tagged (`sc_order` decides the pairs only they
            // order), and the fence is logged with what reaches it.
            let cta_clock = self.sc_cta.clone();
            self.join_sc(t, &cta_clock);
            if scope >= Scope::Cluster {
                self.sc_cluster_join(t);
            }
            let wide = scope >= Scope::Gpu;
            if wide {
                let gpu_clock = self.sh.sc_gpu.lock().ok().map(|g| g.clone());
                if let Some(g) = gpu_clock {
                    self.join_sc(t, &g);
                }
            }
            let th = &mut self.threads[t];
            if self.sh.sc_order {
                sc_order::at_fence(&mut th.base, me, th.own);
                if let Ok(mut log) = self.sh.fences.lock() {
                    log.push(FenceRecord {
                        owner: me,
                        cta: self.linear,
                        scope,
                        clk: th.own,
                        pc,
                        base: th.base.clone(),
                    });
                }
            }
            let snap = snapshot(th, me);
            self.sc_cta = snap.clone();
            if scope >= Scope::Cluster {
                self.sc_cluster_publish(&snap);
            }
            let th = &mut self.threads[t];
            if wide {
                if let Ok(mut g) = self.sh.sc_gpu.lock() {
                    *g = snap;
                }
            }
            th.own += 1;
        }
        if acquires {
            let pending = std::mem::take(&mut self.threads[t].pending);
            let mut keep = Vec::new();
            for p in pending {
                if !self.acquire(t, &p, scope, pc) {
                    keep.push(p);
                }
            }
            self.threads[t].pending = keep;
        }
        if releases {
            let th = &mut self.threads[t];
            let r = release(th, me, self.linear, scope, pc);
            th.rel[scope_index(scope)] = Some(r);
        }
    }

    /// Lanes `lanes` of warp `warp` arrive at barrier `id` (a release).
    pub fn barrier_arrive(&mut self, id: usize, warp: usize, lanes: u32) {
        let Some(slot) = self.bars.get_mut(id) else {
            return;
        };
        let acc = slot.get_or_insert_with(Vc::default);
        let mut last: Option<Arc<Vc>> = None;
        for l in 0..32 {
            let t = warp * 32 + l;
            if lanes & (1 << l) == 0 || t >= self.threads.len() {
                continue;
            }
            let g = self.linear * self.sh.cta_threads + t as u32;
            let th = &mut self.threads[t];
            if last.as_ref().is_none_or(|b| !Arc::ptr_eq(b, &th.base)) {
                acc.join(&th.base);
                last = Some(th.base.clone());
            }
            acc.raise(g, th.own);
            th.own += 1;
        }
        self.barriers_seen = true;
    }

    /// Lanes `lanes` of warp `warp` leave barrier `id` (an acquire of every arrival).
    pub fn barrier_wait(&mut self, id: usize, warp: usize, lanes: u32) {
        if id >= self.bars.len() {
            return;
        }
        if self.bar_done[id].is_none() {
            self.bar_done[id] = Some(Arc::new(self.bars[id].take().unwrap_or_default()));
        }
        let Some(j) = self.bar_done[id].clone() else {
            return;
        };
        self.waited[id] += lanes.count_ones();
        for l in 0..32 {
            let t = warp * 32 + l;
            if lanes & (1 << l) != 0 && t < self.threads.len() {
                let th = &mut self.threads[t];
                if j.len() >= th.base.len() {
                    th.base = j.clone();
                    th.acquired = None;
                } else {
                    join(th, &j);
                }
            }
        }
    }

    /// Barrier `id` completed: its next use starts afresh.
    pub fn barrier_reset(&mut self, id: usize) {
        if id < self.bars.len() {
            self.bars[id] = None;
            self.bar_done[id] = None;
            if self.waited[id] == self.sh.cta_threads {
                self.full_gen += 1;
            }
            self.waited[id] = 0;
        }
    }

    /// `bar.warp.sync` by lanes `lanes` of warp `warp` (when it orders memory).
    pub fn warp_sync(&mut self, warp: usize, lanes: u32) {
        if !self.sh.opts.warp_sync_orders || lanes.count_ones() < 2 {
            return;
        }
        // A private barrier slot past the 16 named ones.
        if self.bars.len() == 16 {
            self.bars.push(None);
            self.bar_done.push(None);
        }
        self.barrier_arrive(16, warp, lanes);
        self.barrier_wait(16, warp, lanes);
        self.barrier_reset(16);
    }

    /// Thread `t` joins `clock` through a Fence-SC edge (tagged in a kernel with `fence.sc`).
    pub(super) fn join_sc(&mut self, t: usize, clock: &Arc<Vc>) {
        let th = &mut self.threads[t];
        if !self.sh.sc_order {
            join(th, clock);
        } else if !Arc::ptr_eq(&th.base, clock) {
            Arc::make_mut(&mut th.base).join_via_sc(clock);
        }
    }

    /// Records a race of thread `t`'s access `second` with the earlier access found; a pair
    /// this run orders only through Fence-SC order is decided first (`sc_order`).
    fn record(&mut self, t: usize, found: Found, second: Acc) {
        let first = found.earlier;
        let sc = if found.via_sc {
            let me = self.gtid(t);
            let th = &self.threads[t];
            let later = sc_order::Later {
                me,
                base: &th.base,
                own: th.own,
            };
            let sh = &self.sh;
            // Two fence.sc are morally strong when each one's scope includes the other's
            // thread (fences have no bytes or proxy to differ in).
            let ms = |x: &FenceRecord, y: &FenceRecord| {
                sh.includes(x.scope, x.cta, y.cta) && sh.includes(y.scope, y.cta, x.cta)
            };
            let verdict = match sh.fences.lock() {
                Ok(mut log) => sc_order::decide(&mut log, later, (first.gtid, first.clk), ms),
                Err(_) => ScVerdict::Undecided,
            };
            match verdict {
                ScVerdict::Races {
                    after_first,
                    before_second,
                } => Some([after_first, before_second]),
                ScVerdict::Ordered => return,
                ScVerdict::Undecided => {
                    self.sh
                        .sc_undecided
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return;
                }
            }
        } else {
            None
        };
        let key = (first.pc.min(second.pc), first.pc.max(second.pc));
        let identical = self.identical_lanes(t, &first, &second);
        let Ok(mut races) = self.sh.races.lock() else {
            return;
        };
        if let Some(r) = races.get_mut(&key) {
            r.count += 1;
            if r.identical_lanes && !identical {
                // A race of other bytes at the same pair: report that one, never hide it.
                let miss = self.threads[t].miss.as_ref();
                let count = r.count;
                *r = report::race(&self.sh, first, second, miss, self.barriers_seen);
                r.count = count;
            }
            return;
        }
        let miss = self.threads[t].miss.as_ref();
        let mut race = match sc {
            Some([x, y]) => report::race_under_other_sc_order(&self.sh, first, second, x, y),
            None => report::race(&self.sh, first, second, miss, self.barriers_seen),
        };
        race.identical_lanes = identical;
        if second.shared && self.sh.cluster_size() > 1 {
            report::set_owner(&self.sh, &mut race, self.owner);
        }
        races.insert(key, race);
    }

    /// Whether two racing writes wrote the same bytes, made by lanes of one warp executing one
    /// instruction (as when every lane of a warp issues the same TMA store): a race under the
    /// PTX memory model all the same, which reports classify apart. Only writes whose bytes
    /// were fingerprinted (bulk and tensor copies) qualify.
    fn identical_lanes(&self, t: usize, first: &Acc, second: &Acc) -> bool {
        let thread = |g: u32| g & !AGENTS;
        let (a, b) = (thread(first.gtid), thread(second.gtid));
        let base = self.gtid(0);
        first.write
            && second.write
            && first.pc == second.pc
            && first.same_bytes(second)
            && first.fp != 0
            && first.fp == second.fp
            && first.lanes == 0
            && a >= base
            && a - base < self.sh.cta_threads
            && (a - base) / 32 == t as u32 / 32
            && b.wrapping_sub(base) / 32 == t as u32 / 32
    }
}

/// Shadows kept for reuse (at most the CTAs resident at once, in practice).
const POOL: usize = 64;

impl Drop for CtaRace {
    fn drop(&mut self) {
        if let Ok(mut p) = self.sh.smem_pool.lock() {
            if p.len() < POOL {
                let mut s = std::mem::take(&mut self.smem);
                s.reset();
                p.push(s);
            }
        }
    }
}

/// The clock of thread `me` now, as a vector clock.
fn snapshot(th: &Thread, me: u32) -> Arc<Vc> {
    let mut v = (*th.base).clone();
    v.raise(me, th.own);
    Arc::new(v)
}

/// A release by thread `me`: its clock now; later events of the thread are not in it.
fn release(th: &mut Thread, me: u32, cta: u32, scope: Scope, pc: u32) -> Rel {
    let r = Rel {
        origin: me,
        cta,
        scope,
        pc,
        base: snapshot(th, me),
    };
    th.own += 1;
    r
}

/// Adds `r` to a payload, merging it with a release of the same CTA and scope (the scope
/// checks depend on nothing else).
fn merge(v: &mut Vec<Rel>, r: Rel) {
    match v.iter_mut().find(|e| e.cta == r.cta && e.scope == r.scope) {
        Some(e) => {
            if !r.base.leq(&e.base) {
                let mut b = (*e.base).clone();
                b.join(&r.base);
                e.base = Arc::new(b);
            }
            e.pc = r.pc;
            e.origin = r.origin;
        }
        None => v.push(r),
    }
}

fn join(th: &mut Thread, other: &Arc<Vc>) {
    if Arc::ptr_eq(&th.base, other) || other.leq(&th.base) {
        return;
    }
    Arc::make_mut(&mut th.base).join(other);
}

/// Whether access `p` (earlier) and `c` (with semantics and scope `cs`) are morally strong:
/// both strong, each one's scope includes the other's thread, the same bytes.
fn ms(sh: &RaceShared, p: &Acc, c: &Acc, cs: (Sem, Option<Scope>)) -> bool {
    let Some((_, ps, pscope)) = sh.ops.get(p.pc as usize).and_then(RaceOp::mem) else {
        return false;
    };
    let (Some(pscope), Some(cscope)) = (pscope, cs.1) else {
        return false;
    };
    let n = sh.cta_threads.max(1);
    let (pc, cc) = (p.gtid / n, c.gtid / n);
    ps.strong()
        && cs.0.strong()
        && sh.includes(pscope, pc, cc)
        && sh.includes(cscope, cc, pc)
        && p.same_bytes(c)
}
