//! Material for explaining an execution: the named edges to draw, why two events are or are
//! not morally strong, and a shortest chain of base steps (program order, observation,
//! synchronisation, Fence-SC order, barriers) behind a causality edge.

use std::collections::VecDeque;

use crate::event::{Event, EventKind};
use crate::ptx::{Choice, Model, Skeleton, Statics};
use crate::rel::Rel;

/// The kinds of edges an explanation draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Program order (immediate successors).
    Po,
    /// Reads-from.
    Rf,
    /// Coherence order (immediate successors).
    Co,
    /// From-reads.
    Fr,
    /// Morally strong reads-from, or an RMW link, that can carry synchronisation.
    Observation,
    /// Release/acquire synchronisation.
    SyncWith,
    /// Fence-SC order.
    FenceSc,
    /// Barrier synchronisation.
    Barrier,
    /// A dependency (address, data or control).
    Dependency,
    /// Causality order (drawn only on a violating cycle).
    Cause,
}

impl EdgeKind {
    /// The relation's short name.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Po => "po",
            EdgeKind::Rf => "rf",
            EdgeKind::Co => "co",
            EdgeKind::Fr => "fr",
            EdgeKind::Observation => "obs",
            EdgeKind::SyncWith => "sw",
            EdgeKind::FenceSc => "sc",
            EdgeKind::Barrier => "bar",
            EdgeKind::Dependency => "dep",
            EdgeKind::Cause => "cause",
        }
    }

    /// What the relation means, for a legend.
    pub fn meaning(self) -> &'static str {
        match self {
            EdgeKind::Po => "program order",
            EdgeKind::Rf => "reads from",
            EdgeKind::Co => "coherence order",
            EdgeKind::Fr => "from-reads (read before a later write)",
            EdgeKind::Observation => "observation",
            EdgeKind::SyncWith => "synchronizes-with",
            EdgeKind::FenceSc => "fence-sc order",
            EdgeKind::Barrier => "barrier synchronisation",
            EdgeKind::Dependency => "dependency",
            EdgeKind::Cause => "causality order",
        }
    }
}

/// Removes the edges implied by transitivity (for drawing po and co).
fn reduce(r: &Rel) -> Rel {
    let two = r.seq(r);
    r.minus(&two)
}

/// The edges worth drawing for a candidate, by kind.
pub fn edges(st: &Statics, sk: &Skeleton, ch: &Choice) -> Vec<(EdgeKind, Rel)> {
    let n = sk.events.len();
    let fr = Statics::fr(&ch.rf, &ch.co);
    let mut out = vec![
        (EdgeKind::Po, reduce(&sk.po)),
        (EdgeKind::Rf, ch.rf.clone()),
        (EdgeKind::Co, reduce(&ch.co)),
        (EdgeKind::Fr, fr.minus(&fr.seq(&reduce(&ch.co)))),
    ];
    if st.model != Model::Sc {
        out.push((EdgeKind::SyncWith, st.sync(&ch.rf)));
        out.push((EdgeKind::FenceSc, ch.sc.clone()));
    }
    let bar = Rel::from_fn(n, |a, b| {
        a != b && ch.syncbar.has(a, b) && st.scta.has(a, b)
    });
    out.push((EdgeKind::Barrier, bar));
    out.push((
        EdgeKind::Dependency,
        sk.data.union(&sk.ctrl).union(&sk.addr),
    ));
    out
}

/// Whether `a` and `b` are morally strong, and why, in words.
pub fn ms_reason(st: &Statics, ev: &[Event], a: usize, b: usize) -> (bool, String) {
    let (x, y) = (&ev[a], &ev[b]);
    let ms = st.ms.has(a, b);
    let who = |e: &Event| match e.thread {
        Some(t) => format!("P{t}"),
        None => "the initial state".to_string(),
    };
    let why = if x.is_init() || y.is_init() {
        "an initial write is never morally strong with anything".to_string()
    } else if st.model == Model::PtxV75 && x.proxy != y.proxy {
        let p = |e: &Event| e.proxy.map_or("no", |p| p.name());
        format!("they use different proxies ({} and {})", p(x), p(y))
    } else if x.is_mem()
        && y.is_mem()
        && (if st.model == Model::PtxV75 {
            x.vloc != y.vloc
        } else {
            x.loc != y.loc
        })
    {
        "they access different addresses".to_string()
    } else if x.thread == y.thread {
        "they are in the same thread".to_string()
    } else if !x.strong && x.kind != EventKind::Fence || !y.strong && y.kind != EventKind::Fence {
        let weak = if !x.strong { x } else { y };
        format!("{}'s `{}` is weak", who(weak), weak.text)
    } else {
        let (sa, sb) = (
            x.scope.map_or("?", |s| s.name()),
            y.scope.map_or("?", |s| s.name()),
        );
        let place = |e: &Event| format!("{} (CTA {}, GPU {})", who(e), e.pos.cta, e.pos.gpu);
        if ms {
            format!("both are strong and their scopes (.{sa}, .{sb}) include each other's threads: {} and {}", place(x), place(y))
        } else if let Some(s) = x.scope.filter(|s| !x.pos.includes(*s, &y.pos)) {
            format!(
                "the .{} scope of {}'s `{}` does not include {}",
                s.name(),
                who(x),
                x.text,
                place(y)
            )
        } else {
            let s = y.scope.map_or("?", |s| s.name());
            format!(
                "the .{s} scope of {}'s `{}` does not include {}",
                who(y),
                y.text,
                place(x)
            )
        }
    };
    (ms, why)
}

/// A shortest chain of base steps from `from` to `to` that makes them causally ordered:
/// program order, observation, synchronisation, Fence-SC order and barriers. Each step is the
/// event reached and the kind of step taken.
pub fn cause_chain(
    st: &Statics,
    sk: &Skeleton,
    ch: &Choice,
    from: usize,
    to: usize,
) -> Option<Vec<(usize, EdgeKind)>> {
    let n = sk.events.len();
    let steps = [
        (EdgeKind::SyncWith, st.sync(&ch.rf)),
        (EdgeKind::FenceSc, ch.sc.clone()),
        (EdgeKind::Barrier, ch.syncbar.inter(&st.scta)),
        (EdgeKind::Observation, st.observation(&ch.rf)),
        (EdgeKind::Po, sk.po.clone()),
    ];
    if from == to {
        // A causality cycle through one event: the shortest way out and back.
        let mut best: Option<Vec<(usize, EdgeKind)>> = None;
        for (k, r) in &steps {
            for y in 0..n {
                if y != from && r.has(from, y) {
                    if let Some(rest) = cause_chain(st, sk, ch, y, from) {
                        if best.as_ref().is_none_or(|b| rest.len() + 1 < b.len()) {
                            let mut v = vec![(y, *k)];
                            v.extend(rest);
                            best = Some(v);
                        }
                    }
                }
            }
        }
        return best;
    }
    let mut prev: Vec<Option<(usize, EdgeKind)>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::new();
    seen[from] = true;
    q.push_back(from);
    while let Some(x) = q.pop_front() {
        for (k, r) in &steps {
            for y in 0..n {
                if y == x || seen[y] || !r.has(x, y) {
                    continue;
                }
                seen[y] = true;
                prev[y] = Some((x, *k));
                if y == to {
                    let mut path = Vec::new();
                    let mut cur = to;
                    while cur != from {
                        let (p, k) = prev[cur]?;
                        path.push((cur, k));
                        cur = p;
                    }
                    path.reverse();
                    return Some(path);
                }
                q.push_back(y);
            }
        }
    }
    None
}
