//! The static relations between two events of the universe, computed pair by pair from the
//! events' own attributes, their program order and their dependencies, with the definitions of
//! [`crate::ptx::Statics::new`] (the reference, which builds them as whole matrices).
//!
//! The universe holds every event of every path of every thread, and value-dependent paths
//! make it large (ten thousand events for seven instructions with chained read-modify-writes);
//! matrices over it would cost its square in memory and its cube in time, most of it for pairs
//! that never meet in one execution. Pairs are instead computed when an event joins an
//! execution, against the events already there.

use crate::event::{Event, EventKind, FenceKind, ThreadPos};
use crate::ptx::{Model, Options};
use crate::vocab::{Proxy, Scope};

/// What the static relations read of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Attr {
    thread: Option<u32>,
    pos: ThreadPos,
    loc: Option<u32>,
    vloc: Option<u32>,
    scope: Option<Scope>,
    proxy: Option<Proxy>,
    mem: bool,
    fence: bool,
    strong_op: bool,
    strong_w: bool,
    strong_r: bool,
    w_rel: bool,
    r_acq: bool,
    f_rel: bool,
    f_acq: bool,
}

/// Bit of each relation in a pair's word, in [`super::local`]'s order.
pub(super) const LOC: u16 = 1;
pub(super) const VLOC: u16 = 1 << 1;
pub(super) const PO: u16 = 1 << 2;
pub(super) const PO_LOC: u16 = 1 << 3;
pub(super) const MS: u16 = 1 << 4;
pub(super) const REL_PAT: u16 = 1 << 5;
pub(super) const ACQ_PAT: u16 = 1 << 6;
pub(super) const SCTA: u16 = 1 << 7;
pub(super) const SR: u16 = 1 << 8;
pub(super) const SAME_PROXY: u16 = 1 << 9;
pub(super) const PFO: u16 = 1 << 10;
pub(super) const RMW: u16 = 1 << 11;
pub(super) const DEPS: u16 = 1 << 12;

/// The universe's events as the static relations see them.
pub(super) struct Pairs {
    attrs: Vec<Attr>,
    /// Events with equal attributes share a class (events of one instruction on different
    /// paths do): the pairs of two distinct events depend on their classes and program order
    /// only, besides read-modify-write and dependencies.
    class: Vec<u16>,
    classes: usize,
    /// `table[(ca * classes + cb) * 3 + o]`: the pairs from a class-`ca` event to a distinct
    /// class-`cb` event, `o` 0 when unordered in program order, 1 when `a` is before `b`, 2 after.
    table: Vec<u16>,
    /// `both[(ca * classes + cb) * 2 + s]`: for a class-`ca` event `a` added after a distinct
    /// class-`cb` event `b`, of the same thread when `s` is 1 (so `b` is before `a` in program
    /// order), the pairs from `a` to `b` (low half) and from `b` to `a` (high half), besides
    /// read-modify-write and dependencies.
    both: Vec<u32>,
    /// Per class: the pairs from an event to itself.
    selfp: Vec<u16>,
    /// Per event: its thread (`u32::MAX` for an initial write).
    thread: Vec<u32>,
    /// Per event: two events with the same number have the same class, kind, fence and
    /// proxy, read-modify-write read and dependencies ([`Pairs::same_statics`]).
    sig: Vec<u32>,
    /// The model.
    pub model: Model,
    /// Its options.
    pub opts: Options,
    v75: bool,
    /// Per event: the read half of its read-modify-write, for a write half.
    rmw_of: Vec<Option<u32>>,
    /// Per event: the events it depends on (address, data, control), sorted.
    deps_of: Vec<Vec<u32>>,
    /// Relations that may have a pair (bits as above): the others are never gathered.
    pub present: u16,
    /// Per event: a hand-off read ([`super::doom::handoff_reads`]).
    handoff: Vec<bool>,
}

impl Pairs {
    /// The pairs of `events` under `model`; `rmw` relates read halves to write halves, `deps`
    /// reads to the events that depend on them.
    pub fn new(
        events: &[Event],
        rmw: &[(usize, usize)],
        deps: &[(usize, usize)],
        model: Model,
        opts: Options,
    ) -> Pairs {
        let attrs: Vec<Attr> = events.iter().map(|e| attr(e, opts)).collect();
        let mut ids: std::collections::HashMap<Attr, u16> = std::collections::HashMap::new();
        let mut reps: Vec<usize> = Vec::new();
        let class: Vec<u16> = attrs
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let next = u16::try_from(reps.len()).unwrap_or(u16::MAX);
                *ids.entry(*a).or_insert_with(|| {
                    reps.push(i);
                    next
                })
            })
            .collect();
        let mut rmw_of = vec![None; events.len()];
        for &(r, w) in rmw {
            rmw_of[w] = Some(u32::try_from(r).unwrap_or(u32::MAX));
        }
        let mut deps_of = vec![Vec::new(); events.len()];
        for &(r, e) in deps {
            deps_of[e].push(u32::try_from(r).unwrap_or(u32::MAX));
        }
        for d in &mut deps_of {
            d.sort_unstable();
            d.dedup();
        }
        let mut sigs = std::collections::HashMap::new();
        let sig: Vec<u32> = (0..events.len())
            .map(|i| {
                let e = &events[i];
                let key = (
                    class[i],
                    e.kind,
                    e.fence,
                    e.proxy,
                    rmw_of[i],
                    deps_of[i].clone(),
                );
                let next = u32::try_from(sigs.len()).unwrap_or(u32::MAX);
                *sigs.entry(key).or_insert(next)
            })
            .collect();
        let any = |f: &dyn Fn(&Attr) -> bool| attrs.iter().any(f);
        let mut present = LOC | VLOC | PO | PO_LOC | MS | SCTA | SAME_PROXY;
        if any(&|a| a.thread.is_some() && a.scope.is_some()) {
            present |= SR;
        }
        if any(&|a| a.strong_w) && any(&|a| a.w_rel || a.f_rel) {
            present |= REL_PAT;
        }
        if any(&|a| a.strong_r) && any(&|a| a.r_acq || a.f_acq) {
            present |= ACQ_PAT;
        }
        if any(&|a| a.fence && a.proxy.is_some()) && any(&|a| a.mem) {
            present |= PFO;
        }
        if !rmw.is_empty() {
            present |= RMW;
        }
        if !deps.is_empty() {
            present |= DEPS;
        }
        let mut pairs = Pairs {
            attrs,
            class,
            classes: 0,
            table: Vec::new(),
            both: Vec::new(),
            selfp: Vec::new(),
            thread: events
                .iter()
                .map(|e| e.thread.unwrap_or(u32::MAX))
                .collect(),
            sig,
            model,
            opts,
            v75: model == Model::PtxV75,
            rmw_of,
            deps_of,
            present,
            handoff: Vec::new(),
        };
        // Past a few hundred classes the table would cost more than it saves.
        if reps.len() <= 256 {
            let k = reps.len();
            let mut table = vec![0u16; k * k * 3];
            for (ca, &a) in reps.iter().enumerate() {
                for (cb, &b) in reps.iter().enumerate() {
                    for (o, (ab, ba)) in [(false, false), (true, false), (false, true)]
                        .into_iter()
                        .enumerate()
                    {
                        // Two distinct events: `a != b` below, whatever the representatives.
                        table[(ca * k + cb) * 3 + o] =
                            pairs.compute(a, b, ab, ba, false) & !(RMW | DEPS);
                    }
                }
            }
            let mut both = vec![0u32; k * k * 2];
            for ca in 0..k {
                for cb in 0..k {
                    for s in 0..2 {
                        let out = table[(ca * k + cb) * 3 + 2 * s];
                        let inn = table[(cb * k + ca) * 3 + s];
                        both[(ca * k + cb) * 2 + s] = u32::from(out) | u32::from(inn) << 16;
                    }
                }
            }
            pairs.selfp = reps
                .iter()
                .map(|&a| pairs.compute(a, a, false, false, true) & !(RMW | DEPS))
                .collect();
            pairs.classes = k;
            pairs.table = table;
            pairs.both = both;
        }
        pairs.handoff = super::doom::handoff_reads(events, &pairs);
        pairs
    }

    /// Whether event `a` is the first and last event of an acquire pattern (a strong acquire
    /// read that may acquire).
    pub fn acquires(&self, a: usize) -> bool {
        self.attrs[a].strong_r && self.attrs[a].r_acq
    }

    /// Whether event `w` is the first and last event of a release pattern (a strong release
    /// write).
    pub fn releases(&self, w: usize) -> bool {
        self.attrs[w].strong_w && self.attrs[w].w_rel
    }

    /// The read half of the RMW whose write half is `w`, if `w` is one.
    pub fn rmw_read(&self, w: usize) -> Option<usize> {
        self.rmw_of[w].map(|r| r as usize)
    }

    /// Whether event `a` is a hand-off read ([`super::doom::handoff_reads`]).
    pub fn handoff(&self, a: usize) -> bool {
        self.handoff[a]
    }

    /// For event `g` added after the distinct event `h` of one execution: the pairs from `g`
    /// to `h` and from `h` to `g` (bits as above), as [`Pairs::pair`] gives them.
    #[inline]
    pub fn both(&self, g: usize, h: usize) -> (u16, u16) {
        let same = self.thread[g] != u32::MAX && self.thread[g] == self.thread[h];
        if self.classes == 0 {
            return (self.pair(g, h, false, same), self.pair(h, g, same, false));
        }
        let (cg, ch) = (self.class[g] as usize, self.class[h] as usize);
        let bits = self.both[(cg * self.classes + ch) * 2 + usize::from(same)];
        let (mut out, mut inn) = (bits as u16, (bits >> 16) as u16);
        // Read-modify-write halves and dependencies are events of one path.
        if same && self.present & (RMW | DEPS) != 0 {
            out |= self.dynamic(g, h);
            inn |= self.dynamic(h, g);
        }
        (out, inn)
    }

    /// [`Pairs::both`] of `g` against each of `hs` (distinct from `g`), into `outs` and
    /// `inns`.
    pub fn both_all(&self, g: usize, hs: &[usize], outs: &mut [u16], inns: &mut [u16]) {
        if self.classes == 0 {
            for ((&h, o), i) in hs.iter().zip(outs.iter_mut()).zip(inns.iter_mut()) {
                (*o, *i) = self.both(g, h);
            }
            return;
        }
        let tg = self.thread[g];
        let dynamic = self.present & (RMW | DEPS) != 0;
        let base = &self.both[self.class[g] as usize * self.classes * 2..];
        for ((&h, o), i) in hs.iter().zip(outs.iter_mut()).zip(inns.iter_mut()) {
            let same = tg != u32::MAX && tg == self.thread[h];
            let bits = base[self.class[h] as usize * 2 + usize::from(same)];
            (*o, *i) = (bits as u16, (bits >> 16) as u16);
            // Read-modify-write halves and dependencies are events of one path.
            if same && dynamic {
                *o |= self.dynamic(g, h);
                *i |= self.dynamic(h, g);
            }
        }
    }

    /// Whether events `a` and `b`, each added after the same events (children of one tree
    /// node), have the same static relations with them and the same sets ([`super::local`]):
    /// the pairs depend on the class, read-modify-write and dependencies, the sets on the
    /// kind, fence and proxy.
    pub fn same_statics(&self, a: usize, b: usize) -> bool {
        self.sig[a] == self.sig[b]
    }

    /// The pairs from event `g` to itself.
    #[inline]
    pub fn itself(&self, g: usize) -> u16 {
        if self.classes == 0 {
            return self.pair(g, g, false, false);
        }
        self.selfp[self.class[g] as usize] | self.dynamic(g, g)
    }

    /// The read-modify-write and dependency pairs from `a` to `b`.
    fn dynamic(&self, a: usize, b: usize) -> u16 {
        let mut bits = 0;
        if self.present & RMW != 0 && self.rmw_of[b] == u32::try_from(a).ok() {
            bits |= RMW;
        }
        if self.present & DEPS != 0
            && self.deps_of[b]
                .binary_search(&u32::try_from(a).unwrap_or(u32::MAX))
                .is_ok()
        {
            bits |= DEPS;
        }
        bits
    }

    /// The static relations that hold from event `a` to event `b` (bits as above). The caller
    /// knows program order: `po_ab` when `a` is before `b` in one thread, `po_ba` the converse.
    #[inline]
    pub fn pair(&self, a: usize, b: usize, po_ab: bool, po_ba: bool) -> u16 {
        if a == b || self.classes == 0 {
            return self.compute(a, b, po_ab, po_ba, a == b);
        }
        let o = if po_ab {
            1
        } else if po_ba {
            2
        } else {
            0
        };
        let (ca, cb) = (self.class[a] as usize, self.class[b] as usize);
        self.table[(ca * self.classes + cb) * 3 + o] | self.dynamic(a, b)
    }

    /// [`Pairs::pair`] from the attributes; `same`: `a` and `b` are one event.
    fn compute(&self, a: usize, b: usize, po_ab: bool, po_ba: bool, same: bool) -> u16 {
        let (x, y) = (&self.attrs[a], &self.attrs[b]);
        let mm = x.mem && y.mem;
        let loc = mm && x.loc == y.loc;
        let vloc = mm && x.vloc == y.vloc;
        let po_loc = po_ab && if self.v75 { vloc } else { loc };
        let threads = x.thread.is_some() && y.thread.is_some();
        let sr = match (x.scope, y.scope) {
            (Some(sa), Some(sb)) if threads => {
                x.pos.includes(sa, &y.pos) && y.pos.includes(sb, &x.pos)
            }
            _ => false,
        };
        let scta = threads && x.pos.gpu == y.pos.gpu && x.pos.cta == y.pos.cta;
        let same_proxy = x.proxy.is_some() && x.proxy == y.proxy;
        let ms1 = po_ab || po_ba || (sr && x.strong_op && y.strong_op);
        let ms = !same
            && ms1
            && if self.v75 {
                same_proxy && (vloc || !mm)
            } else {
                loc || !mm
            };
        let same_or_po_loc = same || po_loc;
        let rel_pat = y.strong_w && (x.w_rel && same_or_po_loc || po_ab && x.f_rel);
        let acq_pat = x.strong_r && (y.r_acq && same_or_po_loc || po_ab && y.f_acq);
        let pfo = x.fence && y.mem && same_proxy && scta;
        let rmw = self.rmw_of[b] == u32::try_from(a).ok();
        let deps = self.deps_of[b]
            .binary_search(&u32::try_from(a).unwrap_or(u32::MAX))
            .is_ok();
        let bits = [
            (loc, LOC),
            (vloc, VLOC),
            (po_ab, PO),
            (po_loc, PO_LOC),
            (ms, MS),
            (rel_pat, REL_PAT),
            (acq_pat, ACQ_PAT),
            (scta, SCTA),
            (sr, SR),
            (same_proxy, SAME_PROXY),
            (pfo, PFO),
            (rmw, RMW),
            (deps, DEPS),
        ];
        bits.iter()
            .fold(0, |acc, &(on, bit)| if on { acc | bit } else { acc })
    }

    /// Whether `a` and `b`, events of one execution, are morally strong (in either order).
    pub fn ms_either(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.attrs[a], &self.attrs[b]);
        let same = x.thread.is_some() && x.thread == y.thread;
        (self.pair(a, b, same, false) | self.pair(b, a, false, same)) & MS != 0
    }
}

fn attr(e: &Event, opts: Options) -> Attr {
    let threaded = e.thread.is_some();
    let (is_r, is_w) = (e.kind == EventKind::Read, e.kind == EventKind::Write);
    let fence = matches!(e.kind, EventKind::Fence | EventKind::Barrier);
    let f_rel = match e.fence {
        Some(FenceKind::AcqRel | FenceKind::Release) => true,
        Some(FenceKind::Sc) => opts.fence_sc_is_acq_rel,
        Some(FenceKind::Acquire | FenceKind::Proxy(_) | FenceKind::Alias) | None => false,
    };
    let f_acq = match e.fence {
        Some(FenceKind::AcqRel | FenceKind::Acquire) => true,
        Some(FenceKind::Sc) => opts.fence_sc_is_acq_rel,
        Some(FenceKind::Release | FenceKind::Proxy(_) | FenceKind::Alias) | None => false,
    };
    Attr {
        thread: e.thread,
        pos: e.pos,
        loc: e.loc,
        vloc: e.vloc,
        scope: e.scope,
        proxy: e.proxy,
        mem: is_r || is_w,
        fence,
        strong_op: threaded && (e.strong && (is_r || is_w) || fence),
        strong_w: is_w && threaded && e.strong,
        strong_r: is_r && threaded && e.strong && (opts.red_can_acquire || !e.red),
        w_rel: is_w && e.release,
        r_acq: is_r && e.acquire,
        f_rel,
        f_acq,
    }
}
