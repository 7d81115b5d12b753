//! The axioms on hand-built executions of the classic shapes: which outcomes each model allows,
//! and that a forbidden candidate names its axiom and a cycle made of real edges.

use models::event::{Event, EventKind, FenceKind, ThreadPos};
use models::ptx::{Axiom, Model, Options, Skeleton, Violation};
use models::rel::Rel;
use models::vocab::{Proxy, Scope};
use models::{enumerate, Next};

#[derive(Clone, Copy)]
enum Sem {
    Weak,
    Relaxed(Scope),
    Acquire(Scope),
    Release(Scope),
}

struct Builder {
    events: Vec<Event>,
    threads: Vec<Vec<usize>>,
    places: Vec<ThreadPos>,
    rmw: Vec<(usize, usize)>,
    data: Vec<(usize, usize)>,
}

impl Builder {
    /// Threads at the given (gpu, cta) places; locations 0..nlocs initialised to 0.
    fn new(places: &[(u32, u32)], nlocs: u32) -> Builder {
        let events = (0..nlocs)
            .map(|l| Event::init(l, l, 0, format!("m{l} = 0")))
            .collect();
        Builder {
            events,
            threads: vec![Vec::new(); places.len()],
            places: places
                .iter()
                .map(|&(gpu, cta)| ThreadPos {
                    gpu,
                    cluster: cta,
                    cta,
                })
                .collect(),
            rmw: Vec::new(),
            data: Vec::new(),
        }
    }

    fn push(&mut self, t: usize, mut e: Event) -> usize {
        e.thread = Some(t as u32);
        e.pos = self.places[t];
        let k = self.events.len();
        self.events.push(e);
        self.threads[t].push(k);
        k
    }

    fn access(&mut self, t: usize, kind: EventKind, loc: u32, value: i64, sem: Sem) -> usize {
        let mut e = Event::init(loc, loc, value, format!("{kind:?} m{loc} {value}"));
        e.kind = kind;
        e.proxy = Some(Proxy::Generic);
        match sem {
            Sem::Weak => {}
            Sem::Relaxed(s) | Sem::Acquire(s) | Sem::Release(s) => {
                e.strong = true;
                e.scope = Some(s);
            }
        }
        e.acquire = matches!(sem, Sem::Acquire(_));
        e.release = matches!(sem, Sem::Release(_));
        self.push(t, e)
    }

    fn w(&mut self, t: usize, loc: u32, v: i64, sem: Sem) -> usize {
        self.access(t, EventKind::Write, loc, v, sem)
    }

    fn r(&mut self, t: usize, loc: u32, v: i64, sem: Sem) -> usize {
        self.access(t, EventKind::Read, loc, v, sem)
    }

    fn rmw(&mut self, t: usize, loc: u32, old: i64, new: i64, s: Scope) -> (usize, usize) {
        let r = self.r(t, loc, old, Sem::Relaxed(s));
        let w = self.w(t, loc, new, Sem::Relaxed(s));
        self.events[r].rmw = true;
        self.events[w].rmw = true;
        self.rmw.push((r, w));
        self.data.push((r, w));
        (r, w)
    }

    fn fence(&mut self, t: usize, kind: FenceKind, s: Scope) -> usize {
        let mut e = Event::init(0, 0, 0, format!("fence {kind:?}"));
        e.kind = EventKind::Fence;
        e.loc = None;
        e.vloc = None;
        e.strong = true;
        e.scope = Some(s);
        e.fence = Some(kind);
        e.proxy = Some(Proxy::Generic);
        self.push(t, e)
    }

    fn skeleton(&self) -> Skeleton {
        let n = self.events.len();
        let mut po = Rel::empty(n);
        for th in &self.threads {
            for (i, &a) in th.iter().enumerate() {
                for &b in &th[i + 1..] {
                    po.add(a, b);
                }
            }
        }
        let mut rmw = Rel::empty(n);
        for &(a, b) in &self.rmw {
            rmw.add(a, b);
        }
        let mut data = Rel::empty(n);
        for &(a, b) in &self.data {
            data.add(a, b);
        }
        Skeleton {
            events: self.events.clone(),
            po,
            rmw,
            data,
            ctrl: Rel::empty(n),
            addr: Rel::empty(n),
        }
    }

    /// Allowed candidates, and the violations of the forbidden ones.
    fn judge(&self, model: Model) -> (u64, Vec<Violation>) {
        let sk = self.skeleton();
        let mut bad = Vec::new();
        let c = enumerate(&sk, &[], model, Options::default(), &mut |_, v| {
            if let Err(v) = v {
                bad.push(v.clone());
            }
            Next::Continue
        });
        (c.allowed, bad)
    }
}

/// MP reading flag = 1 and data = 0.
fn mp(places: &[(u32, u32)], ws: Sem, rs: Sem) -> Builder {
    let mut b = Builder::new(places, 2);
    b.w(0, 0, 1, Sem::Weak);
    b.w(0, 1, 1, ws);
    b.r(1, 1, 1, rs);
    b.r(1, 0, 0, Sem::Weak);
    b
}

#[test]
fn message_passing() {
    let same_gpu = [(0, 0), (0, 1)];
    for model in [Model::PtxV60, Model::PtxV75] {
        let (ok, _) = mp(&same_gpu, Sem::Weak, Sem::Weak).judge(model);
        assert!(ok > 0, "{model:?}: weak MP is allowed");
        let (ok, _) = mp(
            &same_gpu,
            Sem::Relaxed(Scope::Gpu),
            Sem::Relaxed(Scope::Gpu),
        )
        .judge(model);
        assert!(ok > 0, "{model:?}: relaxed MP is allowed");
        let (ok, bad) = mp(
            &same_gpu,
            Sem::Release(Scope::Gpu),
            Sem::Acquire(Scope::Gpu),
        )
        .judge(model);
        assert_eq!(ok, 0, "{model:?}: release/acquire at gpu scope forbids it");
        assert!(bad.iter().all(|v| v.axiom == Axiom::Causality), "{bad:?}");
        let (ok, _) = mp(
            &same_gpu,
            Sem::Release(Scope::Cta),
            Sem::Acquire(Scope::Cta),
        )
        .judge(model);
        assert!(ok > 0, "{model:?}: cta scope does not reach another CTA");
        let (ok, _) = mp(
            &[(0, 0), (0, 0)],
            Sem::Release(Scope::Cta),
            Sem::Acquire(Scope::Cta),
        )
        .judge(model);
        assert_eq!(ok, 0, "{model:?}: cta scope suffices inside one CTA");
        let (ok, _) = mp(
            &[(0, 0), (1, 0)],
            Sem::Release(Scope::Gpu),
            Sem::Acquire(Scope::Gpu),
        )
        .judge(model);
        assert!(ok > 0, "{model:?}: gpu scope does not reach another GPU");
        let (ok, _) = mp(
            &[(0, 0), (1, 0)],
            Sem::Release(Scope::Sys),
            Sem::Acquire(Scope::Sys),
        )
        .judge(model);
        assert_eq!(ok, 0, "{model:?}: sys scope does");
    }
    assert_eq!(
        mp(&same_gpu, Sem::Weak, Sem::Weak).judge(Model::Sc).0,
        0,
        "SC forbids MP"
    );
}

#[test]
fn store_buffering_and_fence_sc() {
    let sb = |fence: bool| {
        let mut b = Builder::new(&[(0, 0), (0, 1)], 2);
        b.w(0, 0, 1, Sem::Relaxed(Scope::Gpu));
        if fence {
            b.fence(0, FenceKind::Sc, Scope::Gpu);
        }
        b.r(0, 1, 0, Sem::Relaxed(Scope::Gpu));
        b.w(1, 1, 1, Sem::Relaxed(Scope::Gpu));
        if fence {
            b.fence(1, FenceKind::Sc, Scope::Gpu);
        }
        b.r(1, 0, 0, Sem::Relaxed(Scope::Gpu));
        b
    };
    for model in [Model::PtxV60, Model::PtxV75] {
        assert!(
            sb(false).judge(model).0 > 0,
            "{model:?}: SB is allowed without fences"
        );
        assert_eq!(sb(true).judge(model).0, 0, "{model:?}: fence.sc forbids SB");
    }
    assert_eq!(sb(false).judge(Model::Sc).0, 0);
}

#[test]
fn atomicity_of_rmws() {
    let mut b = Builder::new(&[(0, 0), (0, 1)], 1);
    b.rmw(0, 0, 0, 1, Scope::Gpu);
    b.rmw(1, 0, 0, 1, Scope::Gpu);
    let (ok, bad) = b.judge(Model::PtxV75);
    assert_eq!(ok, 0, "two atomic increments cannot both read 0");
    assert!(bad.iter().any(|v| v.axiom == Axiom::Atomicity), "{bad:?}");
    // At cta scope across CTAs the RMWs are not morally strong: atomicity is not promised.
    let mut b = Builder::new(&[(0, 0), (0, 1)], 1);
    b.rmw(0, 0, 0, 1, Scope::Cta);
    b.rmw(1, 0, 0, 1, Scope::Cta);
    assert!(b.judge(Model::PtxV75).0 > 0);
}

#[test]
fn no_thin_air() {
    // LB with data dependencies: each thread stores what it read; both read 1.
    let mut b = Builder::new(&[(0, 0), (0, 1)], 2);
    let r0 = b.r(0, 0, 1, Sem::Relaxed(Scope::Gpu));
    let w0 = b.w(0, 1, 1, Sem::Relaxed(Scope::Gpu));
    let r1 = b.r(1, 1, 1, Sem::Relaxed(Scope::Gpu));
    let w1 = b.w(1, 0, 1, Sem::Relaxed(Scope::Gpu));
    b.data.push((r0, w0));
    b.data.push((r1, w1));
    let (ok, bad) = b.judge(Model::PtxV75);
    assert_eq!(ok, 0);
    let v = bad
        .iter()
        .find(|v| v.axiom == Axiom::NoThinAir)
        .expect("no-thin-air names itself");
    assert_eq!(
        v.cycle.len(),
        4,
        "the cycle is r0 -data-> w0 -rf-> r1 -data-> w1 -rf-> r0: {v:?}"
    );
    assert!(v.edges.iter().all(|e| e == "rf" || e == "dep"), "{v:?}");
}

#[test]
fn coherence_of_reads_in_one_thread() {
    // CoRR: one thread reads the new value, then the old one.
    let corr = |s: Sem| {
        let mut b = Builder::new(&[(0, 0), (0, 1)], 1);
        b.w(0, 0, 1, s);
        b.r(1, 0, 1, s);
        b.r(1, 0, 0, s);
        b
    };
    for model in [Model::PtxV60, Model::PtxV75, Model::Sc] {
        assert_eq!(
            corr(Sem::Relaxed(Scope::Gpu)).judge(model).0,
            0,
            "{model:?}"
        );
    }
    // Weak accesses in different threads race: nothing is promised, not even coherence.
    assert!(corr(Sem::Weak).judge(Model::PtxV60).0 > 0);
    assert!(corr(Sem::Weak).judge(Model::PtxV75).0 > 0);
}

#[test]
fn violation_cycles_are_made_of_named_edges() {
    let b = mp(
        &[(0, 0), (0, 1)],
        Sem::Release(Scope::Gpu),
        Sem::Acquire(Scope::Gpu),
    );
    let (_, bad) = b.judge(Model::PtxV75);
    assert!(!bad.is_empty());
    for v in bad {
        assert_eq!(v.cycle.len(), v.edges.len());
        assert!(v.edges.iter().all(|e| e != "?"), "{v:?}");
    }
}
