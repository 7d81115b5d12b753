//! Why no axiom forbids an allowed execution, axiom by axiom, in words (memory-model spec §6):
//! for Causality, which writes a stale read would need to be causally after and why they are
//! not (no release pattern, no acquire pattern, a reads-from that is not an observation, ends
//! not morally strong, synchronisation that orders other events, proxies); for the others,
//! what they check and why this execution passes. Also: why the PTX model does not forbid a
//! cycle that SC forbids.

use std::fmt::Write as _;

use models::explain::ms_reason;
use models::ptx::{Model, Skeleton, Statics, Violation};
use models::EventKind;
use models::Rel;

use super::{labels, Explanation, Witness};

/// The relations of one execution that the reasons read.
struct Facts<'a> {
    sk: &'a Skeleton,
    st: Statics,
    l: Vec<String>,
    rf: Rel,
    fr: Rel,
    cause: Rel,
    cause_base: Rel,
    sync: Rel,
}

impl Explanation {
    /// Why each axiom of the model accepts the allowed execution `w`, one paragraph per axiom
    /// (under SC: that its events fit one interleaving).
    pub fn allowed_reasons(&self, w: &Witness) -> String {
        let mut s = String::new();
        if self.options.model == Model::Sc {
            let _ = writeln!(
                s,
                "  Why SC allows it: program order, reads-from, coherence and from-reads form no cycle, so the events fit one interleaving of the threads."
            );
            return s;
        }
        let f = self.facts(w);
        let _ = writeln!(s, "  Why no axiom forbids it:");
        let mut para = |name: &str, text: String| {
            let _ = writeln!(s, "    {name}: {text}");
        };
        para("Causality", self.causality_reason(&f));
        para("Coherence", coherence_reason(&f));
        para("Fence-SC", fence_sc_reason(&f, w));
        para("Atomicity", atomicity_reason(&f));
        para("No-Thin-Air", no_thin_air_reason(&f));
        para(
            "SC-per-location",
            "per location, program order and the morally strong reads-from, coherence and from-reads form no cycle: every thread sees each location's writes in one order.".to_string(),
        );
        s
    }

    fn facts<'a>(&self, w: &'a Witness) -> Facts<'a> {
        let sk = &w.skeleton;
        let st = self.statics(w);
        let ch = &w.choice;
        let fr = Statics::fr(&ch.rf, &ch.co);
        let cause = st.cause(&ch.rf, &ch.sc, &ch.syncbar);
        let cause_base = st.cause_base(&ch.rf, &ch.sc, &ch.syncbar);
        let sync = st.sync(&ch.rf);
        Facts {
            sk,
            l: labels(sk),
            rf: ch.rf.clone(),
            fr,
            cause,
            cause_base,
            sync,
            st,
        }
    }

    /// Causality: for each read of another thread's write, or of a value another thread
    /// overwrites, why the write is not causally placed so as to forbid it.
    fn causality_reason(&self, f: &Facts<'_>) -> String {
        let ev = &f.sk.events;
        let mut out = Vec::new();
        // Stale reads: r reads a value that w' (another thread's write) overwrites.
        for (r, w2) in f.fr.pairs() {
            if ev[w2].is_init() || ev[r].thread == ev[w2].thread {
                continue;
            }
            let from =
                f.rf.pairs()
                    .into_iter()
                    .find(|&(_, b)| b == r)
                    .map_or("?".to_string(), |(a, _)| f.l[a].clone());
            out.push(format!(
                "{} {} from {from}, which {} overwrites; that is forbidden only if {} is causally before {}, and it is not: {}",
                f.l[r],
                super::effect(f.sk, &self.prepared, r),
                f.l[w2],
                f.l[w2],
                f.l[r],
                self.not_caused(f, w2, r)
            ));
        }
        if out.is_empty() {
            return "no read takes a value that another thread's write overwrites in coherence, and no read is causally before the write it reads from, so no reads-from or from-reads edge closes a cycle with causality.".to_string();
        }
        out.join(" ")
    }

    /// Why `a` is not causally before `b` (events of different threads).
    fn not_caused(&self, f: &Facts<'_>, a: usize, b: usize) -> String {
        let ev = &f.sk.events;
        let (ta, tb) = (ev[a].thread, ev[b].thread);
        if f.cause_base.has(a, b) {
            return format!(
                "base causality orders {} before {}, but they access the memory through different virtual addresses or proxies ({} and {}), and causality carries only between the same address and proxy unless a proxy fence (fence.proxy.alias for an alias) lies on the path.",
                f.l[a],
                f.l[b],
                self.instr(f, a),
                self.instr(f, b)
            );
        }
        // Synchronisation across threads: sw, the Fence-SC order, barriers.
        let mut links: Vec<String> = Vec::new();
        for (x, y) in f.sync.pairs() {
            if ev[x].thread == ta && ev[y].thread == tb {
                links.push(format!(
                    "{} synchronizes-with {}, but it orders only what comes before {} in P{} with what comes after {} in P{}, and {} is not before it or {} is not after it",
                    f.l[x],
                    f.l[y],
                    f.l[x],
                    ta.unwrap_or(0),
                    f.l[y],
                    tb.unwrap_or(0),
                    f.l[a],
                    f.l[b]
                ));
            }
        }
        if !links.is_empty() {
            return format!("{}.", links.join("; "));
        }
        let mut why: Vec<String> = Vec::new();
        for (w2, r2) in f.rf.pairs() {
            if ev[w2].is_init() || ev[w2].thread == ev[r2].thread {
                continue;
            }
            why.push(self.why_no_sync(f, w2, r2));
        }
        let fences_sc = f.st.f_sc.iter().count();
        let mut s = if why.is_empty() {
            "no read takes its value from another thread's write, so no release is observed and nothing synchronizes-with anything".to_string()
        } else {
            format!(
                "nothing synchronizes P{} with P{}: {}",
                ta.unwrap_or(0),
                tb.unwrap_or(0),
                why.join("; ")
            )
        };
        if fences_sc >= 2 {
            s.push_str("; the fence.sc are not morally strong with each other, so the Fence-SC order does not relate them");
        }
        s.push('.');
        s
    }

    /// Why the reads-from `w2 -> r2` (different threads) gives no synchronizes-with.
    fn why_no_sync(&self, f: &Facts<'_>, w2: usize, r2: usize) -> String {
        let ev = &f.sk.events;
        let (l, st) = (&f.l, &f.st);
        let rel_first: Vec<usize> = (0..ev.len()).filter(|&x| st.rel_pat.has(x, w2)).collect();
        let acq_last: Vec<usize> = (0..ev.len()).filter(|&y| st.acq_pat.has(r2, y)).collect();
        let t = |e: usize| ev[e].thread.unwrap_or(0);
        if rel_first.is_empty() {
            return if !ev[w2].strong {
                format!(
                    "{} `{}` is a weak write, and a release pattern ends only at a strong write",
                    l[w2],
                    self.instr(f, w2)
                )
            } else {
                format!(
                    "{} `{}` is not a release, and no release fence (fence.release, fence.acq_rel or fence.sc) comes before it in P{}, so no release pattern ends at it",
                    l[w2],
                    self.instr(f, w2),
                    t(w2)
                )
            };
        }
        if acq_last.is_empty() {
            return if !ev[r2].strong {
                format!(
                    "{} `{}` is a weak read, and an acquire pattern starts only at a strong read",
                    l[r2],
                    self.instr(f, r2)
                )
            } else if ev[r2].red {
                format!(
                    "{} is the read half of a `red`, which never starts an acquire pattern",
                    l[r2]
                )
            } else {
                format!(
                    "{} `{}` is not an acquire, and no acquire fence (fence.acquire, fence.acq_rel or fence.sc) comes after it in P{}, so no acquire pattern starts at it",
                    l[r2],
                    self.instr(f, r2),
                    t(r2)
                )
            };
        }
        if !st.ms.has(w2, r2) {
            let (_, why) = ms_reason(st, &ev[..], w2, r2);
            return format!(
                "{} reads from {}, but the two are not morally strong ({why}), so the read is no observation of the release",
                l[r2], l[w2]
            );
        }
        let (x, y) = (rel_first[0], acq_last[0]);
        let (_, why) = ms_reason(st, &ev[..], x, y);
        format!(
            "the release pattern starting at {} and the acquire pattern ending at {} are not morally strong ({why})",
            l[x], l[y]
        )
    }

    /// The litmus instruction of an event (`st.relaxed.gpu y, 1`).
    fn instr(&self, f: &Facts<'_>, e: usize) -> String {
        let d = super::describe(f.sk, &self.prepared, e);
        d.split_once(": ").map_or(d.clone(), |x| x.1.to_string())
    }

    /// For an outcome SC forbids: the cycle SC forbids, and why no PTX axiom forbids it (the
    /// contrast's allowed execution), or that PTX forbids it too.
    pub fn sc_contrast(&self, v: &Violation) -> String {
        let Some(c) = &self.contrast else {
            return String::new();
        };
        let mut s = String::new();
        let Some(w) = &c.allowed else {
            let _ = writeln!(
                s,
                "\n  Under {} the outcome is forbidden too (see its explanation there).",
                c.options.model.name()
            );
            return s;
        };
        let edges: std::collections::BTreeSet<&str> = v.edges.iter().map(String::as_str).collect();
        let _ = writeln!(
            s,
            "\n  SC forbids it with the cycle above (relations {}): under SC each event would come before itself. Under {} the outcome is ALLOWED.",
            edges.into_iter().collect::<Vec<_>>().join(", "),
            c.options.model.name()
        );
        let one_loc = {
            let sk = &w.skeleton;
            let locs: std::collections::BTreeSet<Option<u32>> = v
                .cycle
                .iter()
                .filter(|&&e| sk.events.get(e).is_some_and(|x| x.is_mem()))
                .map(|&e| sk.events[e].loc)
                .collect();
            locs.len() == 1
        };
        if one_loc {
            let _ = writeln!(
                s,
                "  The PTX axiom that would forbid a cycle on one location is SC-per-location, but it counts only morally strong reads-from, coherence and from-reads, and these accesses are not all morally strong:"
            );
        } else {
            let _ = writeln!(
                s,
                "  The cycle goes through more than one location, so SC-per-location does not apply; the PTX axiom that forbids such cycles is Causality, and only where program order is backed by synchronisation:"
            );
        }
        s.push_str(&c.allowed_reasons(w));
        s
    }
}

fn coherence_reason(f: &Facts<'_>) -> String {
    let ev = &f.sk.events;
    let ordered: Vec<(usize, usize)> = f
        .cause
        .pairs()
        .into_iter()
        .filter(|&(a, b)| {
            a != b
                && ev[a].kind == EventKind::Write
                && ev[b].kind == EventKind::Write
                && !ev[a].is_init()
                && !ev[b].is_init()
                && ev[a].loc == ev[b].loc
        })
        .collect();
    if ordered.is_empty() {
        return "no two writes to one location are ordered by causality, so nothing constrains the coherence order beyond the initial writes coming first; it holds per location.".to_string();
    }
    let pairs: Vec<String> = ordered
        .iter()
        .map(|&(a, b)| format!("{} before {}", f.l[a], f.l[b]))
        .collect();
    format!(
        "causality orders {}, and coherence agrees; it holds per location.",
        pairs.join(", ")
    )
}

fn fence_sc_reason(f: &Facts<'_>, w: &Witness) -> String {
    let n = f.st.f_sc.iter().count();
    if n == 0 {
        return "there is no fence.sc, so there is no Fence-SC order to contradict causality."
            .to_string();
    }
    let sc: Vec<String> = w
        .choice
        .sc
        .pairs()
        .into_iter()
        .map(|(a, b)| format!("{} → {}", f.l[a], f.l[b]))
        .collect();
    if sc.is_empty() {
        return "the fence.sc are not morally strong with each other, so the Fence-SC order relates none of them.".to_string();
    }
    format!(
        "the Fence-SC order {} does not contradict causality.",
        sc.join(", ")
    )
}

fn atomicity_reason(f: &Facts<'_>) -> String {
    let rmw = f.st.rmw.pairs();
    if rmw.is_empty() {
        return "there is no read-modify-write.".to_string();
    }
    let each: Vec<String> = rmw
        .iter()
        .map(|&(r, w)| format!("{}/{}", f.l[r], f.l[w]))
        .collect();
    format!(
        "no morally strong write comes, in coherence, between the read and the write of {}.",
        each.join(", ")
    )
}

fn no_thin_air_reason(f: &Facts<'_>) -> String {
    if f.st.deps.is_empty() {
        return "no instruction depends on a value read, so reads-from and dependencies form no cycle.".to_string();
    }
    "reads-from and the dependencies (address, data, control) form no cycle: every value read was written first.".to_string()
}
