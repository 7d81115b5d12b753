//! Combining the threads' paths into executions: events for the model, the skeleton of one
//! combination, barrier reachability, and the enumeration of each combination's candidates
//! that the model judges (`executions`).

use super::*;
pub(crate) fn to_event(p: &Prepared, t: usize, e: &TraceEvent) -> Event {
    let (gpu, cta) = p.places[t];
    let mut ev = Event::init(0, 0, 0, String::new());
    ev.thread = Some(t as u32);
    ev.pos = ThreadPos {
        gpu,
        cluster: p.clusters[t],
        cta,
    };
    ev.strong = e.strong;
    ev.scope = e.scope;
    ev.acquire = e.acquire;
    ev.release = e.release;
    ev.proxy = e.proxy;
    ev.rmw = e.rmw.is_some();
    ev.red = e.red;
    ev.instr = e.instr as u32;
    ev.text = p.threads[t].text.get(e.instr).cloned().unwrap_or_default();
    match e.kind {
        EvKind::Read { loc, value } | EvKind::Write { loc, value } => {
            ev.kind = if matches!(e.kind, EvKind::Read { .. }) {
                EventKind::Read
            } else {
                EventKind::Write
            };
            ev.loc = Some(p.phys[loc as usize]);
            ev.vloc = Some(p.vloc[loc as usize]);
            ev.value = value;
        }
        EvKind::Fence(f) => {
            ev.kind = EventKind::Fence;
            ev.loc = None;
            ev.vloc = None;
            ev.fence = Some(f);
        }
        EvKind::Barrier(b) => {
            ev.kind = EventKind::Barrier;
            ev.loc = None;
            ev.vloc = None;
            ev.barrier = Some(b);
        }
    }
    ev
}

/// The skeleton of one combination of paths, and where each thread's events start.
pub fn skeleton(p: &Prepared, paths: &[&Trace]) -> (Skeleton, Vec<usize>) {
    let mut events: Vec<Event> = (0..p.locs.names.len())
        .map(|k| {
            Event::init(
                p.phys[k],
                p.vloc[k],
                p.init[k],
                format!("{} = {}", p.locs.names[k], p.init[k]),
            )
        })
        .collect();
    let mut offsets = Vec::new();
    for (t, tr) in paths.iter().enumerate() {
        offsets.push(events.len());
        events.extend(tr.events.iter().map(|e| to_event(p, t, e)));
    }
    let n = events.len();
    let (mut po, mut rmw, mut data, mut ctrl) =
        (Rel::empty(n), Rel::empty(n), Rel::empty(n), Rel::empty(n));
    for (t, tr) in paths.iter().enumerate() {
        let off = offsets[t];
        for (i, e) in tr.events.iter().enumerate() {
            for j in i + 1..tr.events.len() {
                po.add(off + i, off + j);
            }
            if let Some(Some(r)) = e.rmw {
                rmw.add(off + r, off + i);
            }
            for &d in e.data.iter() {
                data.add(off + d, off + i);
            }
            for &c in e.ctrl.iter() {
                ctrl.add(off + c, off + i);
            }
        }
    }
    (
        Skeleton {
            events,
            po,
            rmw,
            data,
            ctrl,
            addr: Rel::empty(n),
        },
        offsets,
    )
}

/// The barriers a combination of paths reaches.
fn reached(paths: &[&Trace], offsets: &[usize]) -> Vec<Reached> {
    reached_at(paths, &|t, i| offsets[t] + i)
}

/// The barriers a combination of paths reaches; event `i` of thread `t` is `index(t, i)`.
pub(crate) fn reached_at(paths: &[&Trace], index: &dyn Fn(usize, usize) -> usize) -> Vec<Reached> {
    let mut out = Vec::new();
    for (t, tr) in paths.iter().enumerate() {
        for (i, e) in tr.events.iter().enumerate() {
            if let EvKind::Barrier(tag) = e.kind {
                out.push(Reached {
                    thread: t,
                    instr: e.instr,
                    tag,
                    event: Some(index(t, i)),
                });
            }
        }
        if let Some((instr, tag)) = tr.blocked_at {
            out.push(Reached {
                thread: t,
                instr,
                tag,
                event: None,
            });
        }
    }
    out
}

/// Whether every read of a combination could read some write (same location and value).
fn feasible(p: &Prepared, paths: &[&Trace]) -> bool {
    let mut written: BTreeSet<(u32, i64)> =
        (0..p.phys.len()).map(|k| (p.phys[k], p.init[k])).collect();
    for tr in paths {
        for e in &tr.events {
            if let EvKind::Write { loc, value } = e.kind {
                written.insert((p.phys[loc as usize], value));
            }
        }
    }
    paths.iter().all(|tr| {
        tr.events.iter().all(|e| match e.kind {
            EvKind::Read { loc, value } => written.contains(&(p.phys[loc as usize], value)),
            _ => true,
        })
    })
}

/// One judged candidate, as the driver hands it to a visitor.
pub struct Judged<'a> {
    /// The path of each thread.
    pub paths: &'a [&'a Trace],
    /// Where each thread's events start in the skeleton.
    pub offsets: &'a [usize],
    /// The events and fixed relations.
    pub skeleton: &'a Skeleton,
    /// The candidate's choices.
    pub choice: &'a Choice,
    /// The verdict.
    pub verdict: &'a Result<(), Violation>,
}

/// Enumerates the candidate executions of every combination of paths (complete ones, or, in
/// liveness mode, those where some thread does not finish), calling `visit` on each.
///
/// # Errors
/// The paths of each thread that an execution may take: those that finish, or with
/// `liveness` every path (a hang needs the ones that do not).
pub fn usable_paths(all: &[Vec<Trace>], liveness: bool) -> Vec<Vec<&Trace>> {
    all.iter()
        .map(|ts| {
            ts.iter()
                .filter(|t| liveness || t.ending == Ending::Done)
                .collect()
        })
        .collect()
}

/// As [`thread_paths`], or the candidate budget running out.
pub fn executions(
    p: &Prepared,
    ro: &RunOptions,
    visit: &mut dyn FnMut(&Judged<'_>) -> Next,
) -> Result<Counts, RunError> {
    let start = crate::clock::Started::now();
    let all =
        thread_paths(p, ro.liveness, ro.path_limits(&start)).map_err(|e| ro.halted(e, &start))?;
    let per = usable_paths(&all, ro.liveness);
    let mut total = Counts::default();
    if per.iter().any(Vec::is_empty) {
        return Ok(total);
    }
    let mut idx = vec![0usize; per.len()];
    let mut stop = false;
    let mut over = false;
    'combo: loop {
        let paths: Vec<&Trace> = per.iter().zip(&idx).map(|(ts, &i)| ts[i]).collect();
        let skip = ro.liveness && paths.iter().all(|t| t.ending == Ending::Done);
        if !skip && feasible(p, &paths) {
            let (sk, offsets) = skeleton(p, &paths);
            let r = reached(&paths, &offsets);
            let bars = syncbar_options(&p.barriers, &r, &p.places, sk.events.len());
            if !bars.is_empty() {
                let budget = ro.max_candidates.saturating_sub(total.candidates);
                let mut seen = 0u64;
                let finals = &p.focus.finals;
                let c = enumerate_towards(
                    &sk,
                    &bars,
                    ro.model,
                    ro.opts,
                    finals,
                    &mut |choice, verdict| {
                        seen += 1;
                        if seen > budget {
                            over = true;
                            return Next::Stop;
                        }
                        let j = Judged {
                            paths: &paths,
                            offsets: &offsets,
                            skeleton: &sk,
                            choice,
                            verdict,
                        };
                        let n = visit(&j);
                        if n == Next::Stop {
                            stop = true;
                        }
                        n
                    },
                );
                total.candidates += c.candidates;
                total.allowed += c.allowed;
                if over {
                    return Err(RunError::Budget(ro.max_candidates));
                }
                if c.gave_up {
                    return Err(RunError::CoherenceChoices);
                }
                if stop {
                    break 'combo;
                }
            }
        }
        let mut k = 0;
        loop {
            if k == idx.len() {
                break 'combo;
            }
            idx[k] += 1;
            if idx[k] < per[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
    Ok(total)
}
