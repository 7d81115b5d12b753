//! The PTX memory models: `ptx-v6.0` (ASPLOS'19 / Dat3M `ptx-v6.0.cat`), `ptx-v7.5` (mixed
//! proxies, NVlabs mixedproxy / Dat3M `ptx-v7.5.cat`), and `sc`, a sequentially consistent
//! reference. Each axiom is a function named as in the memory-model spec (§6): coherence,
//! fence-sc, atomicity, no-thin-air, sc-per-location, causality.
//!
//! Relations that do not depend on the choice of `rf`, `co`, the Fence-SC order or barrier
//! matching (moral strength, release and acquire patterns, proxy-fence reach, …) are computed
//! once per event skeleton in [`Statics`]; [`Statics::cause`] and [`Statics::check`] then
//! evaluate one candidate execution.
//!
//! Deliberate deviations (each an explicit [`Options`] field where the sources disagree, spec §7):
//! 1. `fence.sc` also acts as an acq_rel fence in release and acquire patterns (the ISA text;
//!    Dat3M's front end does not tag it so). `Options::fence_sc_is_acq_rel`.
//! 2. The read half of a `red` never starts an acquire pattern (the ISA text; Dat3M's lowering
//!    lets `red; fence.acq_rel` form one). `Options::red_can_acquire`.
//! 3. Barriers are single events matched by a `syncbar` relation, as in Dat3M (the spec's
//!    arrive/wait pair gives the same verdicts on the corpus and the classic shapes).

use std::fmt;

use crate::event::{Event, EventKind, FenceKind};
use crate::rel::{Rel, Set};
use crate::vocab::Proxy;

mod axioms;

/// Which model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// PTX ISA 7.5 with proxies (the default).
    PtxV75,
    /// PTX ISA 6.0.
    PtxV60,
    /// Sequential consistency (a reference).
    Sc,
}

impl Model {
    /// The model's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Model::PtxV75 => "ptx-v7.5",
            Model::PtxV60 => "ptx-v6.0",
            Model::Sc => "sc",
        }
    }

    /// Parses a model name.
    pub fn from_name(s: &str) -> Option<Model> {
        Some(match s {
            "ptx-v7.5" | "ptx7.5" | "v7.5" => Model::PtxV75,
            "ptx-v6.0" | "ptx6.0" | "v6.0" => Model::PtxV60,
            "sc" => Model::Sc,
            _ => return None,
        })
    }
}

/// Choices where the sources disagree (memory-model spec §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// `fence.sc` counts as an acq_rel fence in patterns (default: true, the ISA text).
    pub fence_sc_is_acq_rel: bool,
    /// A `red`'s read half may start an acquire pattern (default: false, the ISA text).
    pub red_can_acquire: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            fence_sc_is_acq_rel: true,
            red_can_acquire: false,
        }
    }
}

/// The named axioms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axiom {
    /// Causality between same-location writes implies coherence order.
    Coherence,
    /// Morally strong same-location writes are ordered by coherence.
    Coherence2,
    /// The Fence-SC order never contradicts causality.
    FenceSc,
    /// No morally strong write between an RMW's read and its write.
    Atomicity,
    /// No cycle of reads-from and dependencies.
    NoThinAir,
    /// Morally strong communication and program order per location are acyclic.
    ScPerLocation,
    /// A read causally before a write cannot read from it, nor from anything co-before a
    /// write causally before it.
    Causality,
    /// The SC model: program order, reads-from, coherence and from-reads are acyclic.
    SequentialConsistency,
}

impl Axiom {
    /// The axiom's name as the spec writes it.
    pub fn name(self) -> &'static str {
        match self {
            Axiom::Coherence => "coherence",
            Axiom::Coherence2 => "coherence (morally strong writes ordered)",
            Axiom::FenceSc => "fence-sc",
            Axiom::Atomicity => "atomicity",
            Axiom::NoThinAir => "no-thin-air",
            Axiom::ScPerLocation => "sc-per-location",
            Axiom::Causality => "causality",
            Axiom::SequentialConsistency => "sequential-consistency",
        }
    }
}

impl fmt::Display for Axiom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a candidate execution is forbidden: the axiom and a cycle of events, each edge
/// labelled with the relation it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The broken axiom.
    pub axiom: Axiom,
    /// The events on the cycle, in order (the last relates back to the first).
    pub cycle: Vec<usize>,
    /// `edges[i]` names the relation from `cycle[i]` to `cycle[(i + 1) % len]`.
    pub edges: Vec<String>,
}

/// The events and the relations fixed by the threads' traces.
#[derive(Clone, Debug)]
pub struct Skeleton {
    /// Every event (initial writes first, by convention).
    pub events: Vec<Event>,
    /// Program order (strict, transitive, within each thread).
    pub po: Rel,
    /// Read half → write half of each read-modify-write.
    pub rmw: Rel,
    /// Data dependencies (read → write whose value it feeds).
    pub data: Rel,
    /// Control dependencies (read → every event after a branch it decides).
    pub ctrl: Rel,
    /// Address dependencies.
    pub addr: Rel,
}

/// The choices of one candidate execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Reads-from (write → read).
    pub rf: Rel,
    /// Coherence order (a strict partial order on same-location writes).
    pub co: Rel,
    /// The Fence-SC order restricted to morally strong pairs.
    pub sc: Rel,
    /// Barrier synchronisation (`syncbar`).
    pub syncbar: Rel,
}

/// The relations of a skeleton that do not depend on the candidate's choices.
pub struct Statics {
    /// The model.
    pub model: Model,
    /// Options.
    pub opts: Options,
    /// The number of events.
    pub(crate) n: usize,
    /// Reads.
    pub r: Set,
    /// Writes.
    pub w: Set,
    /// Memory events.
    pub m: Set,
    /// Fence-SC events.
    pub f_sc: Set,
    /// Same physical location (memory events).
    pub loc: Rel,
    /// Same virtual address (memory events).
    pub vloc: Rel,
    /// Program order.
    pub po: Rel,
    /// `po & loc` (v6.0) or `po & vloc` (v7.5).
    pub po_loc: Rel,
    /// Morally strong.
    pub ms: Rel,
    /// Release patterns.
    pub rel_pat: Rel,
    /// Acquire patterns.
    pub acq_pat: Rel,
    /// Same CTA.
    pub scta: Rel,
    /// Scopes mutually include (both events scoped).
    pub sr: Rel,
    /// Same proxy.
    pub same_proxy: Rel,
    /// Proxy fence → same-proxy access in the same CTA.
    pub pfo: Rel,
    /// Generic-proxy events.
    pub gen: Set,
    /// Alias fences.
    pub alias: Set,
    /// Read-modify-write pairs.
    pub rmw: Rel,
    /// `rf | addr | data | ctrl` minus `rf` (for no-thin-air).
    pub deps: Rel,
}

fn set(events: &[Event], f: impl Fn(&Event) -> bool) -> Set {
    Set::from_fn(events.len(), |i| f(&events[i]))
}

impl Statics {
    /// Precomputes the choice-independent relations of a skeleton under a model.
    pub fn new(sk: &Skeleton, model: Model, opts: Options) -> Statics {
        let ev = &sk.events;
        let n = ev.len();
        let r = set(ev, |e| e.kind == EventKind::Read);
        let w = set(ev, |e| e.kind == EventKind::Write);
        let m = r.or(&w);
        let fence = set(ev, |e| {
            matches!(e.kind, EventKind::Fence | EventKind::Barrier)
        });
        let f_sc = set(ev, |e| e.fence == Some(FenceKind::Sc));
        let v75 = model == Model::PtxV75;
        let loc = Rel::from_fn(n, |a, b| {
            ev[a].is_mem() && ev[b].is_mem() && ev[a].loc == ev[b].loc
        });
        let vloc = Rel::from_fn(n, |a, b| {
            ev[a].is_mem() && ev[b].is_mem() && ev[a].vloc == ev[b].vloc
        });
        let po = sk.po.clone();
        let po_loc = po.inter(if v75 { &vloc } else { &loc });
        let scoped = |e: &Event| e.thread.is_some() && e.scope.is_some();
        let sr = Rel::from_fn(n, |a, b| {
            let (x, y) = (&ev[a], &ev[b]);
            match (x.scope, y.scope) {
                (Some(sa), Some(sb)) if scoped(x) && scoped(y) => {
                    x.pos.includes(sa, &y.pos) && y.pos.includes(sb, &x.pos)
                }
                _ => false,
            }
        });
        let scta = Rel::from_fn(n, |a, b| {
            ev[a].thread.is_some()
                && ev[b].thread.is_some()
                && ev[a].pos.gpu == ev[b].pos.gpu
                && ev[a].pos.cta == ev[b].pos.cta
        });
        let strong_op = set(ev, |e| {
            e.thread.is_some()
                && (e.strong && e.is_mem()
                    || matches!(e.kind, EventKind::Fence | EventKind::Barrier))
        });
        let same_thread = po.union(&po.inverse());
        let ms1 = same_thread.union(&sr.restrict(&strong_op, &strong_op));
        let same_proxy = Rel::from_fn(n, |a, b| {
            ev[a].proxy.is_some() && ev[a].proxy == ev[b].proxy
        });
        let mm = Rel::product(&m, &m);
        let all = Rel::from_fn(n, |_, _| true);
        let non_mm = all.minus(&mm);
        let idn = Rel::from_fn(n, |a, b| a == b);
        let ms = if v75 {
            let ms3 = mm.inter(&vloc).union(&non_mm);
            ms1.inter(&same_proxy).inter(&ms3).minus(&idn)
        } else {
            let ms2 = mm.inter(&loc).union(&non_mm);
            ms1.inter(&ms2).minus(&idn)
        };
        // Memory-order sets.
        let strong_w = set(ev, |e| {
            e.kind == EventKind::Write && e.thread.is_some() && e.strong
        });
        let strong_r = set(ev, |e| {
            e.kind == EventKind::Read
                && e.thread.is_some()
                && e.strong
                && (opts.red_can_acquire || !e.red)
        });
        let w_rel = set(ev, |e| e.kind == EventKind::Write && e.release);
        let r_acq = set(ev, |e| e.kind == EventKind::Read && e.acquire);
        let f_rel = set(ev, |e| match e.fence {
            Some(FenceKind::AcqRel | FenceKind::Release) => true,
            Some(FenceKind::Sc) => opts.fence_sc_is_acq_rel,
            Some(FenceKind::Acquire | FenceKind::Proxy(_) | FenceKind::Alias) | None => false,
        });
        let f_acq = set(ev, |e| match e.fence {
            Some(FenceKind::AcqRel | FenceKind::Acquire) => true,
            Some(FenceKind::Sc) => opts.fence_sc_is_acq_rel,
            Some(FenceKind::Release | FenceKind::Proxy(_) | FenceKind::Alias) | None => false,
        });
        let rel_pat = Rel::id_of(&w_rel)
            .seq(&po_loc.opt())
            .to_set(&strong_w)
            .union(&po.restrict(&f_rel, &strong_w));
        let acq_pat = Rel::id_of(&strong_r)
            .seq(&po_loc.opt())
            .to_set(&r_acq)
            .union(&po.restrict(&strong_r, &f_acq));
        let pfo = Rel::product(&fence, &m).inter(&same_proxy).inter(&scta);
        let gen = set(ev, |e| e.proxy == Some(Proxy::Generic));
        let alias = set(ev, |e| e.fence == Some(FenceKind::Alias));
        let deps = sk.addr.union(&sk.data).union(&sk.ctrl);
        Statics {
            model,
            opts,
            n,
            r,
            w,
            m,
            f_sc,
            loc,
            vloc,
            po,
            po_loc,
            ms,
            rel_pat,
            acq_pat,
            scta,
            sr,
            same_proxy,
            pfo,
            gen,
            alias,
            rmw: sk.rmw.clone(),
            deps,
        }
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The observation relation for a reads-from choice.
    pub fn observation(&self, rf: &Rel) -> Rel {
        let ms_rf = self.ms.inter(rf);
        match self.model {
            Model::PtxV75 => ms_rf.union(&self.rmw),
            Model::PtxV60 | Model::Sc => ms_rf.seq(&self.rmw.seq(&ms_rf).star()),
        }
    }

    /// Release/acquire synchronisation (`sync`): from a release pattern's first event to an
    /// acquire pattern's last, through an observation, the two ends morally strong.
    pub fn sync(&self, rf: &Rel) -> Rel {
        if self.rel_pat.is_empty() || self.acq_pat.is_empty() {
            // No release or no acquire pattern: nothing to synchronise (most relaxed tests).
            return Rel::empty(self.n);
        }
        let obs = self.observation(rf);
        let obs_chain = match self.model {
            Model::PtxV75 => obs.plus(),
            Model::PtxV60 | Model::Sc => obs,
        };
        self.ms
            .inter(&self.rel_pat.seq(&obs_chain).seq(&self.acq_pat))
    }

    /// Base causality (`cause-base`) for a choice's rf, sc and barrier synchronisation.
    pub fn cause_base(&self, rf: &Rel, sc: &Rel, syncbar: &Rel) -> Rel {
        let sync = self.sync(rf);
        let sb = sync.union(sc).union(&syncbar.inter(&self.scta));
        if sb.is_empty() {
            return match self.model {
                Model::PtxV75 => self.po.clone(),
                Model::PtxV60 | Model::Sc => sb,
            };
        }
        let po_opt = self.po.opt();
        let cb = po_opt.seq(&sb.seq(&po_opt).plus());
        match self.model {
            Model::PtxV75 => cb.union(&self.po),
            Model::PtxV60 | Model::Sc => cb,
        }
    }

    /// Causality (`cause`) for a choice's rf, sc and barrier synchronisation.
    pub fn cause(&self, rf: &Rel, sc: &Rel, syncbar: &Rel) -> Rel {
        let cb = self.cause_base(rf, sc, syncbar);
        let obs = self.observation(rf);
        match self.model {
            Model::PtxV75 => obs.opt().seq(&self.proxy_preserved(&cb)),
            Model::PtxV60 | Model::Sc => cb.union(&obs.seq(&cb.union(&self.po_loc))),
        }
    }

    /// Proxy-preserved base causality (v7.5: the nine clauses of `ptx-v7.5.cat`).
    fn proxy_preserved(&self, cb: &Rel) -> Rel {
        let gen = &self.gen;
        let m = &self.m;
        let pfo = &self.pfo;
        let vloc = &self.vloc;
        let loc = &self.loc;
        let vloc_cb = vloc.inter(cb);
        let mut out = vloc_cb.restrict(gen, gen);
        // The second clause lies within the first when every memory event is generic.
        if !m.is_subset(gen) {
            let c2 = self
                .same_proxy
                .inter(&self.scta)
                .inter(&vloc_cb)
                .restrict(m, m);
            out = out.union(&c2);
        }
        // The other clauses go through a proxy fence or an alias fence: skip them when the
        // execution has none (they are empty then), which is most executions.
        let fences = !pfo.is_empty();
        // x -cb-> f and f -cb-> y, where f is a proxy fence for x and for y.
        let through_fence = fences.then(|| (cb.inter(&pfo.inverse()), cb.inter(pfo)));
        if let Some((before, after)) = &through_fence {
            let c3 = vloc.inter(&before.seq(cb).to_set(gen));
            let c4 = vloc.inter(&cb.from_set(gen).seq(after));
            let c5 = vloc.inter(&before.seq(cb).seq(after));
            out = out.union(&c3).union(&c4).union(&c5);
        }
        if self.alias.iter().next().is_some() {
            let via_alias = cb.seq(&Rel::id_of(&self.alias)).seq(cb);
            let c6 = loc.inter(&via_alias.restrict(gen, gen));
            out = out.union(&c6);
            if let Some((before, after)) = &through_fence {
                let c7 = loc.inter(&before.seq(&via_alias).to_set(gen));
                let c8 = loc.inter(&via_alias.from_set(gen).seq(after));
                let c9 = loc.inter(&before.seq(&via_alias).seq(after));
                out = out.union(&c7).union(&c8).union(&c9);
            }
        }
        out
    }

    /// The lower bound of `co` that Coherence imposes: initial writes first, and
    /// `[W];cause;[W] & loc`.
    pub fn co_lower_bound(&self, events: &[Event], cause: &Rel) -> Rel {
        let n = self.n;
        let init_first = Rel::from_fn(n, |a, b| {
            events[a].is_init()
                && !events[b].is_init()
                && events[b].kind == EventKind::Write
                && events[a].loc == events[b].loc
        });
        init_first.union(&cause.restrict(&self.w, &self.w).inter(&self.loc))
    }

    /// The write pairs a coherence order must order (Coherence2 for the PTX models; every
    /// same-location pair for SC).
    pub fn must_order(&self, events: &[Event]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for a in self.w.iter() {
            for b in self.w.iter() {
                if a < b && self.loc.has(a, b) && !events[a].is_init() && !events[b].is_init() {
                    let need = match self.model {
                        Model::Sc => true,
                        Model::PtxV75 | Model::PtxV60 => self.ms.has(a, b) || self.ms.has(b, a),
                    };
                    if need {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }
}
