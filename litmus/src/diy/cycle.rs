//! A cycle checked and laid out as a test: its events (one between each two edges) with their
//! annotations, threads, locations, placements, and the values each write writes and each
//! read must read for the execution the cycle describes.
//!
//! Conventions, after diy7:
//! 1. Edge `i` goes from event `i` to event `i+1`. An external edge moves to the next thread;
//!    an internal one stays in the thread and goes forward in program order.
//! 2. A `d` edge moves to a new location; every other edge keeps the location. A cycle changes
//!    location never (one location) or at least twice; each stretch between two changes is a
//!    location of its own, named `x`, `y`, `z`, `a`, `b`, … in order of appearance.
//! 3. The cycle is rotated to its canonical form: it starts just after an external edge, and
//!    among those rotations it takes the one whose threads' direction strings (`WW`, `RR`, …,
//!    `W` before `R`, a shorter string before its extensions) come first, then the one whose
//!    text comes first. Two cycles that are rotations of each other have one canonical form.
//! 4. Values: the coherence order the cycle asks of a location's writes (its `Co` edges, a
//!    read's source before the write it `Fr`s to, `PosWW`, an atom's write right after the
//!    write it reads) is extended to a total order in cycle order; the writes write 1, 2, … in
//!    that order. A read reads its `Rf` source's value, or else, when it `Fr`s to a write, the
//!    value of that write's last predecessor (0, the initial value, when there is none). A
//!    location whose writes have a last one in that order must end with its value.
//! 5. Placement: an external edge says which is the narrowest scope holding both threads
//!    (`@gpu` when unsaid); threads are put in as few CTAs, clusters and GPUs as those edges
//!    allow, and a contradiction is refused.

use models::vocab::Scope;

use super::edge::{cycle_text, Ann, Com, Dep, Dir, Edge, EdgeKind, Loc, Sem};
use super::pattern::AnnPattern;
use super::syntax::{fits, parse_edges, CycleError, Written};

/// The most edges a cycle may have (far beyond any critical cycle; it bounds the work).
pub const MAX_EDGES: usize = 256;

/// The most threads a test may have (the litmus reader's bound).
pub const MAX_THREADS: usize = 64;

/// Which half of an atom an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    /// The read.
    Read,
    /// The write.
    Write,
}

/// One event of a cycle: the source of edge `i` (and the target of edge `i-1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// Read or write.
    pub dir: Dir,
    /// Its annotation (given, or the default).
    pub ann: Ann,
    /// Whether it is half of an atom.
    pub rmw: Option<Half>,
    /// Its thread.
    pub thread: usize,
    /// Its location (0 is `x`).
    pub loc: usize,
    /// A write's value; the value a read must read, when the cycle says.
    pub value: Option<i64>,
}

/// Where a thread runs: GPU, cluster and CTA numbers (each numbered across the test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The GPU.
    pub gpu: u32,
    /// The cluster.
    pub cluster: u32,
    /// The CTA.
    pub cta: u32,
}

/// A checked cycle in canonical form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cycle {
    edges: Vec<Edge>,
    events: Vec<Event>,
    positions: Vec<Position>,
    locations: usize,
    finals: Vec<(usize, i64)>,
}

/// The names of locations, in order: `x`, `y`, `z`, `a`, `b`, …, then `x1`, `y1`, ….
pub fn location_name(k: usize) -> String {
    const NAMES: [&str; 26] = [
        "x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o",
        "p", "q", "s", "t", "u", "v", "w", "r",
    ];
    // `r` would read as a register prefix in some tools; it comes last and gets a suffix.
    let base = NAMES[k % 25];
    match k / 25 {
        0 => base.to_string(),
        n => format!("{base}{n}"),
    }
}

impl Cycle {
    /// Checks a cycle given as edges (built by a program rather than written): errors point
    /// at the columns the edges have in the cycle's text.
    ///
    /// # Errors
    /// As [`Cycle::new`].
    pub fn from_edges(edges: &[Edge]) -> Result<Cycle, CycleError> {
        let mut col = 1;
        let written: Vec<Written> = edges
            .iter()
            .map(|&edge| {
                let w = Written { edge, col };
                col += edge.to_string().len() + 1;
                w
            })
            .collect();
        Cycle::new(&written)
    }

    /// Reads and checks a cycle written in the cycle syntax.
    ///
    /// # Errors
    /// A malformed token, or a cycle that describes no test (see [`Cycle::new`]), with the
    /// column of the token at fault.
    pub fn parse(text: &str) -> Result<Cycle, CycleError> {
        Cycle::new(&parse_edges(text)?)
    }

    /// Checks the edges of a cycle and lays it out.
    ///
    /// # Errors
    /// With the column of the edge at fault: directions that do not meet, fewer than two
    /// external edges, a single change of location, a fence without a scope, an address
    /// dependency, two annotations of one access that differ, an atom's halves at different
    /// scopes, placements that contradict each other, a coherence order that would be cyclic.
    pub fn new(written: &[Written]) -> Result<Cycle, CycleError> {
        let n = written.len();
        if n > MAX_EDGES {
            return Err(CycleError::at(
                written[MAX_EDGES].col,
                format!("a cycle has at most {MAX_EDGES} edges; this one has {n}"),
            ));
        }
        let at = |i: usize| written[i % n].col;
        let tok = |i: usize| written[i % n].edge.to_string();
        let edges: Vec<Edge> = written.iter().map(|w| w.edge).collect();
        let prev = |i: usize| (i + n - 1) % n;
        for i in 0..n {
            let (p, e) = (edges[prev(i)].kind, edges[i].kind);
            if p.tgt() != e.src() {
                let word = |d: Dir| match d {
                    Dir::W => "a write",
                    Dir::R => "a read",
                };
                let before = if i == 0 {
                    format!(
                        "the last edge, `{}` (the cycle closes on its first),",
                        tok(prev(i))
                    )
                } else {
                    format!("`{}` before it", tok(prev(i)))
                };
                return Err(CycleError::at(
                    at(i),
                    format!(
                        "`{}` starts at {}, but {before} ends at {}",
                        tok(i),
                        word(e.src()),
                        word(p.tgt())
                    ),
                ));
            }
            match e {
                EdgeKind::Fence(sem, None, ..) => {
                    return Err(CycleError::at(
                        at(i),
                        format!(
                            "`{}`: a fence in a test has a scope (Fence.{}.gpu…)",
                            tok(i),
                            sem.name()
                        ),
                    ))
                }
                EdgeKind::Dp(Dep::Addr, ..) => {
                    return Err(CycleError::at(
                        at(i),
                        format!(
                            "`{}`: an address dependency needs a computed address, which the litmus dialect cannot write (its locations have no numeric address) and ptxemu's models leave empty (addr); use DpData or DpCtrl",
                            tok(i)
                        ),
                    ))
                }
                _ => {}
            }
        }
        let externals = edges.iter().filter(|e| e.kind.is_external()).count();
        if externals > MAX_THREADS {
            return Err(CycleError::at(
                at(0),
                format!("a test has at most {MAX_THREADS} threads, so a cycle at most {MAX_THREADS} external edges; this one has {externals}"),
            ));
        }
        if externals < 2 {
            return Err(CycleError::at(
                at(0),
                format!(
                    "a test needs two threads or more, so its cycle needs two external edges (Rfe, Fre, Coe) or more; this one has {externals}"
                ),
            ));
        }
        let changes: Vec<usize> = (0..n)
            .filter(|&i| edges[i].kind.changes_location())
            .collect();
        if changes.len() == 1 {
            return Err(CycleError::at(
                at(changes[0]),
                format!(
                    "`{}` is the cycle's only change of location, so the cycle cannot come back to where it started: change location never or at least twice",
                    tok(changes[0])
                ),
            ));
        }
        let events = annotate(&edges, written)?;
        let order = canonical_rotation(&edges, &events);
        let rot = |v: &[Edge]| -> Vec<Edge> { (0..n).map(|k| v[(order + k) % n]).collect() };
        let edges = rot(&edges);
        let written: Vec<Written> = (0..n).map(|k| written[(order + k) % n]).collect();
        let mut events: Vec<Event> = (0..n).map(|k| events[(order + k) % n]).collect();
        let threads = assign_threads_and_locations(&edges, &mut events);
        let positions = place(&edges, &written, threads)?;
        let locations = events.iter().map(|e| e.loc + 1).max().unwrap_or(0);
        let finals = assign_values(&edges, &written, &mut events, locations)?;
        let edges = printed(&edges, &events);
        Ok(Cycle {
            edges,
            events,
            positions,
            locations,
            finals,
        })
    }

    /// The edges in canonical form, annotated as the canonical text prints them.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The events: `events()[i]` is the source of `edges()[i]`.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Each thread's position.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// How many threads.
    pub fn threads(&self) -> usize {
        self.positions.len()
    }

    /// How many locations.
    pub fn locations(&self) -> usize {
        self.locations
    }

    /// The final values the condition asks: (location, value).
    pub fn finals(&self) -> &[(usize, i64)] {
        &self.finals
    }

    /// Each thread's events in program order (indices into [`Cycle::events`]).
    pub fn thread_events(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.threads()];
        for (i, e) in self.events.iter().enumerate() {
            out[e.thread].push(i);
        }
        out
    }

    /// Whether some cluster holds two CTAs of the test (the test must then name clusters).
    pub fn uses_clusters(&self) -> bool {
        self.positions.iter().any(|a| {
            self.positions
                .iter()
                .any(|b| a.cluster == b.cluster && a.cta != b.cta)
        })
    }
}

impl std::fmt::Display for Cycle {
    /// The canonical text of the cycle, which [`Cycle::parse`] reads back to the same cycle.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&cycle_text(&self.edges))
    }
}

/// Each event's annotation: what its two edges say (they must agree), else the default (weak
/// for an access, relaxed at the partner's scope or `.gpu` for an atom's half).
fn annotate(edges: &[Edge], written: &[Written]) -> Result<Vec<Event>, CycleError> {
    let n = edges.len();
    let prev = |i: usize| (i + n - 1) % n;
    let given = |i: usize| -> Result<Option<Ann>, CycleError> {
        let (p, e) = (&edges[prev(i)], &edges[i]);
        match (p.tgt, e.src) {
            (Some(a), Some(b)) if a != b => Err(CycleError::at(
                written[i].col,
                format!(
                    "`{e}` annotates its source `{b}`, but `{p}` annotated that same access `{a}`"
                ),
            )),
            (a, b) => Ok(a.or(b)),
        }
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let rmw = if edges[i].kind == EdgeKind::Rmw {
            Some(Half::Read)
        } else if edges[prev(i)].kind == EdgeKind::Rmw {
            Some(Half::Write)
        } else {
            None
        };
        out.push(Event {
            dir: edges[i].kind.src(),
            ann: given(i)?.unwrap_or(Ann::WEAK),
            rmw,
            thread: 0,
            loc: 0,
            value: None,
        });
    }
    // Atoms: both halves strong and generic or surface, at one scope; an unannotated half
    // takes relaxed at the other's scope (`.gpu`, PTX's default, when neither says).
    for i in 0..n {
        if edges[i].kind != EdgeKind::Rmw {
            continue;
        }
        let j = (i + 1) % n;
        let (gr, gw) = (given(i)?, given(j)?);
        let scope = gr.or(gw).and_then(|a| a.sem.scope()).unwrap_or(Scope::Gpu);
        let proxy = gr.or(gw).map_or(models::vocab::Proxy::Generic, |a| a.proxy);
        let relaxed = Ann {
            sem: Sem::Relaxed(scope),
            proxy,
        };
        out[i].ann = gr.unwrap_or(relaxed);
        out[j].ann = gw.unwrap_or(relaxed);
        for (k, end) in [(i, "source"), (j, "target")] {
            fits(AnnPattern::of(out[k].ann), out[k].dir, EdgeKind::Rmw, end)
                .map_err(|m| CycleError::at(written[i].col, format!("`{}`: {m}", edges[i])))?;
        }
        let (a, b) = (out[i].ann, out[j].ann);
        if a.sem.scope() != b.sem.scope() || a.proxy != b.proxy {
            return Err(CycleError::at(
                written[i].col,
                format!(
                    "`{}`: the read and the write of one atom have one scope and one proxy, not `{a}` and `{b}`",
                    edges[i]
                ),
            ));
        }
    }
    Ok(out)
}

/// The threads' direction strings of the rotation starting at event `start`.
fn thread_dirs(edges: &[Edge], events: &[Event], start: usize) -> Vec<Vec<Dir>> {
    let n = edges.len();
    let mut out = vec![Vec::new()];
    for k in 0..n {
        let i = (start + k) % n;
        if let Some(t) = out.last_mut() {
            t.push(events[i].dir);
        }
        if edges[i].kind.is_external() && k + 1 < n {
            out.push(Vec::new());
        }
    }
    out
}

/// The index of the first edge of the canonical rotation (convention 3).
fn canonical_rotation(edges: &[Edge], events: &[Event]) -> usize {
    let n = edges.len();
    let shown = printed(edges, events);
    let tokens: Vec<String> = shown.iter().map(ToString::to_string).collect();
    (0..n)
        .filter(|&j| edges[(j + n - 1) % n].kind.is_external())
        .map(|start| {
            let text: Vec<&str> = (0..n).map(|k| tokens[(start + k) % n].as_str()).collect();
            ((thread_dirs(edges, events, start), text.join(" ")), start)
        })
        .min()
        .map_or(0, |(_, s)| s)
}

/// Numbers threads in cycle order from the first event, and locations in order of
/// appearance; returns the number of threads.
fn assign_threads_and_locations(edges: &[Edge], events: &mut [Event]) -> usize {
    let n = edges.len();
    // The stretch of each event: a new one starts after each change of location.
    let changes = edges.iter().filter(|e| e.kind.changes_location()).count();
    let mut stretch = vec![0usize; n];
    if changes > 0 {
        // Start counting at the first event after a change, so a stretch that wraps around
        // the start is one stretch.
        let first = (0..n)
            .find(|&i| edges[i].kind.changes_location())
            .map_or(0, |i| (i + 1) % n);
        let mut s = 0;
        for k in 0..n {
            let i = (first + k) % n;
            stretch[i] = s;
            if edges[i].kind.changes_location() {
                s += 1;
            }
        }
    }
    let mut names: Vec<usize> = Vec::new();
    let mut thread = 0;
    for i in 0..n {
        let loc = match names.iter().position(|&s| s == stretch[i]) {
            Some(k) => k,
            None => {
                names.push(stretch[i]);
                names.len() - 1
            }
        };
        events[i].loc = loc;
        events[i].thread = thread;
        if edges[i].kind.is_external() {
            thread += 1;
        }
    }
    thread
}

/// The threads' positions from the external edges' placements (convention 5).
fn place(edges: &[Edge], written: &[Written], threads: usize) -> Result<Vec<Position>, CycleError> {
    // External edge k joins thread k and thread k+1 (mod threads).
    let joins: Vec<(usize, Scope, usize)> = edges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind.is_external())
        .enumerate()
        .map(|(k, (i, e))| (k, e.place.unwrap_or(Scope::Gpu), i))
        .collect();
    // Components at each level: threads joined by edges whose placement is that narrow.
    let component = |level: Scope| -> Vec<usize> {
        let mut root: Vec<usize> = (0..threads).collect();
        fn find(root: &mut [usize], x: usize) -> usize {
            let mut x = x;
            while root[x] != x {
                root[x] = root[root[x]];
                x = root[x];
            }
            x
        }
        for &(k, p, _) in &joins {
            if p <= level {
                let (a, b) = (find(&mut root, k), find(&mut root, (k + 1) % threads));
                root[a.max(b)] = a.min(b);
            }
        }
        // Number the components in order of their first thread.
        let mut ids: Vec<usize> = Vec::new();
        (0..threads)
            .map(|t| {
                let r = find(&mut root, t);
                match ids.iter().position(|&x| x == r) {
                    Some(k) => k,
                    None => {
                        ids.push(r);
                        ids.len() - 1
                    }
                }
            })
            .collect()
    };
    let cta = component(Scope::Cta);
    let cluster = component(Scope::Cluster);
    let gpu = component(Scope::Gpu);
    for &(k, p, i) in &joins {
        let (a, b) = (k, (k + 1) % threads);
        let together = match p {
            Scope::Cta => false,
            Scope::Cluster => cta[a] == cta[b],
            Scope::Gpu => cluster[a] == cluster[b],
            Scope::Sys => gpu[a] == gpu[b],
        };
        if together {
            let narrower = if cta[a] == cta[b] {
                "one CTA"
            } else if cluster[a] == cluster[b] {
                "one cluster"
            } else {
                "one GPU"
            };
            return Err(CycleError::at(
                written[i].col,
                format!(
                    "`{}` puts P{a} and P{b} apart below the {} scope, but the other placements put them in {narrower}",
                    edges[i],
                    p.name()
                ),
            ));
        }
    }
    Ok((0..threads)
        .map(|t| Position {
            gpu: gpu[t] as u32,
            cluster: cluster[t] as u32,
            cta: cta[t] as u32,
        })
        .collect())
}

/// Assigns write values and the values reads must read (convention 4); returns the final
/// values asked.
fn assign_values(
    edges: &[Edge],
    written: &[Written],
    events: &mut [Event],
    locations: usize,
) -> Result<Vec<(usize, i64)>, CycleError> {
    let n = edges.len();
    let next = |i: usize| (i + 1) % n;
    let prev = |i: usize| (i + n - 1) % n;
    // The read-from source of each read, if its incoming edge is Rf.
    let source = |i: usize| -> Option<usize> {
        (edges[prev(i)].kind.com() == Some(Com::Rf)).then(|| prev(i))
    };
    let mut finals = Vec::new();
    for loc in 0..locations {
        let writes: Vec<usize> = (0..n)
            .filter(|&i| events[i].loc == loc && events[i].dir == Dir::W)
            .collect();
        let w = writes.len();
        let idx = |e: usize| writes.iter().position(|&x| x == e);
        // before[a][b]: write a is asked to come before write b.
        let mut before = vec![vec![false; w]; w];
        let ask = |a: usize, b: usize, before: &mut Vec<Vec<bool>>| {
            if let (Some(x), Some(y)) = (idx(a), idx(b)) {
                before[x][y] = true;
            }
        };
        for i in 0..n {
            if events[i].loc != loc {
                continue;
            }
            let j = next(i);
            match edges[i].kind {
                EdgeKind::Com(Com::Co, _) | EdgeKind::Po(Loc::Same, Dir::W, Dir::W) => {
                    ask(i, j, &mut before)
                }
                EdgeKind::Com(Com::Fr, _) => {
                    if let Some(s) = source(i) {
                        ask(s, j, &mut before);
                    }
                }
                EdgeKind::Rmw => {
                    if let Some(s) = source(i) {
                        ask(s, j, &mut before);
                    }
                }
                // Reads-from fixes a read's value, not an order of writes; program order
                // between accesses that are not two writes of one location, dependencies and
                // fences order nothing in coherence by themselves.
                EdgeKind::Com(Com::Rf, _)
                | EdgeKind::Po(..)
                | EdgeKind::Dp(..)
                | EdgeKind::Fence(..) => {}
            }
        }
        // Transitive closure; a write before itself is a cycle the test cannot show.
        for k in 0..w {
            let row_k = before[k].clone();
            for row in before.iter_mut() {
                if row[k] {
                    for (x, &y) in row.iter_mut().zip(&row_k) {
                        *x |= y;
                    }
                }
            }
        }
        if let Some(a) = (0..w).find(|&a| before[a][a]) {
            let e = writes[a];
            return Err(CycleError::at(
                written[e].col,
                format!(
                    "the cycle asks the writes to `{}` to be in coherence order before themselves (a coherence cycle with no other event), which no outcome can show",
                    location_name(loc)
                ),
            ));
        }
        // Extend to a total order, in cycle order among unrelated writes.
        let mut order: Vec<usize> = Vec::with_capacity(w);
        let mut placed = vec![false; w];
        while order.len() < w {
            let k = (0..w)
                .find(|&b| !placed[b] && (0..w).all(|a| placed[a] || !before[a][b]))
                .unwrap_or(0);
            placed[k] = true;
            order.push(k);
        }
        for (rank, &k) in order.iter().enumerate() {
            events[writes[k]].value = Some(rank as i64 + 1);
        }
        // Reads.
        for i in 0..n {
            if events[i].loc != loc || events[i].dir != Dir::R {
                continue;
            }
            events[i].value = match source(i) {
                Some(s) => events[s].value,
                None => match edges[i].kind {
                    EdgeKind::Com(Com::Fr, _) => {
                        let t = idx(next(i)).unwrap_or(0);
                        // The last write (in the total order) asked to come before the target.
                        order
                            .iter()
                            .rev()
                            .find(|&&a| before[a][t])
                            .map_or(Some(0), |&a| events[writes[a]].value)
                    }
                    _ => None,
                },
            };
        }
        if w >= 2 {
            let maximal: Vec<usize> = (0..w).filter(|&a| (0..w).all(|b| !before[a][b])).collect();
            if let [last] = maximal[..] {
                if let Some(v) = events[writes[last]].value {
                    finals.push((loc, v));
                }
            }
        }
    }
    Ok(finals)
}

/// The edges as the canonical text shows them: an internal edge with both ends' annotations,
/// an external edge with its placement and, when its source is a thread's only event, that
/// event's annotation; defaults left out (weak for an access, `rlx.gpu` on both halves of an
/// atom).
fn printed(edges: &[Edge], events: &[Event]) -> Vec<Edge> {
    let n = edges.len();
    let shown = |a: Ann| (a != Ann::WEAK).then_some(a);
    (0..n)
        .map(|i| {
            let e = edges[i];
            let j = (i + 1) % n;
            let (src, tgt, place) = if e.kind == EdgeKind::Rmw {
                let default = Ann::generic(Sem::Relaxed(Scope::Gpu));
                let (a, b) = (events[i].ann, events[j].ann);
                if a == default && b == default {
                    (None, None, None)
                } else {
                    (Some(a), Some(b), None)
                }
            } else if e.kind.is_external() {
                let alone = edges[(i + n - 1) % n].kind.is_external();
                let src = if alone { shown(events[i].ann) } else { None };
                (src, None, Some(e.place.unwrap_or(Scope::Gpu)))
            } else {
                (shown(events[i].ann), shown(events[j].ann), None)
            };
            Edge {
                kind: e.kind,
                src,
                tgt,
                place,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cy(s: &str) -> Cycle {
        Cycle::parse(s).unwrap_or_else(|e| panic!("{}", e.render(s)))
    }

    #[test]
    fn rotations_of_one_cycle_have_one_canonical_form() {
        let mp = cy("PodWW Rfe PodRR Fre");
        assert_eq!(mp.to_string(), "PodWW Rfe@gpu PodRR Fre@gpu");
        assert_eq!(cy("Rfe PodRR Fre PodWW"), mp);
        assert_eq!(cy("Fre@gpu PodWW Rfe PodRR"), mp);
        let wrc = cy("Rfe PodRW Rfe PodRR Fre");
        assert_eq!(wrc.to_string(), "Rfe@gpu PodRW Rfe@gpu PodRR Fre@gpu");
        assert_eq!(cy("PodRR Fre Rfe PodRW Rfe"), wrc);
    }

    #[test]
    fn mp_gets_its_threads_locations_and_values() {
        let mp = cy("PodWW[rlx.gpu,rel.gpu] Rfe PodRR[acq.gpu,rlx.gpu] Fre");
        let ev = mp.events();
        assert_eq!(mp.threads(), 2);
        assert_eq!(mp.locations(), 2);
        let summary: Vec<(Dir, usize, usize, Option<i64>)> = ev
            .iter()
            .map(|e| (e.dir, e.thread, e.loc, e.value))
            .collect();
        assert_eq!(
            summary,
            vec![
                (Dir::W, 0, 0, Some(1)),
                (Dir::W, 0, 1, Some(1)),
                (Dir::R, 1, 1, Some(1)),
                (Dir::R, 1, 0, Some(0)),
            ]
        );
        assert_eq!(ev[1].ann.sem, Sem::Release(Scope::Gpu));
        assert!(mp.finals().is_empty());
        assert_eq!(
            mp.to_string(),
            "PodWW[rlx.gpu,rel.gpu] Rfe@gpu PodRR[acq.gpu,rlx.gpu] Fre@gpu"
        );
    }

    #[test]
    fn coherence_shapes_get_their_final_values() {
        // 2+2W: each location's second write (in coherence) is its final value.
        let w = cy("PodWW Coe PodWW Coe");
        assert_eq!(w.finals(), &[(0, 2), (1, 2)]);
        // CoRW2: the read reads the write that is coherence-last.
        let c = cy("Rfe PosRW Coe");
        let vals: Vec<Option<i64>> = c.events().iter().map(|e| e.value).collect();
        assert_eq!(c.finals(), &[(0, 2)]);
        assert_eq!(vals, vec![Some(2), Some(2), Some(1)]);
        // CoRR: the second read reads the initial value.
        let r = cy("Rfe PosRR Fre");
        let vals: Vec<Option<i64>> = r.events().iter().map(|e| e.value).collect();
        assert_eq!(vals, vec![Some(1), Some(1), Some(0)]);
    }

    #[test]
    fn placements_put_threads_in_as_few_units_as_allowed() {
        let c = cy("PodWW Rfe@cta PodRR Fre@cta");
        assert_eq!(c.positions()[0], c.positions()[1]);
        let c = cy("PodWW Rfe@cluster PodRR Fre@cluster");
        assert!(c.uses_clusters());
        let c = cy("Rfe@gpu PodRW Rfe@gpu PodRR Fre@cluster");
        let p = c.positions();
        assert_eq!(p[0].cluster, p[2].cluster);
        assert_ne!(p[0].cluster, p[1].cluster);
        let e = Cycle::parse("Rfe@cta PodRW Rfe@cta PodRR Fre@gpu").unwrap_err();
        assert!(e.message.contains("put them in one CTA"), "{e}");
        assert_eq!(e.col, 29);
    }

    #[test]
    fn cycles_that_describe_no_test_are_refused_at_their_token() {
        let cases = [
            ("PodWW Rfe PodWR Fre", 11, "starts at a write"),
            ("PodWW PodWW", 1, "two external edges"),
            ("PodWW Rfe PosRR Fre", 1, "only change of location"),
            ("Fence.scdWR Fre PodWR Fre", 1, "has a scope"),
            ("DpAddrdW Rfe DpAddrdW Rfe", 1, "address dependency"),
            (
                "PodWW[,rel.gpu] Rfe[w,] PodRR Fre",
                17,
                "annotated that same access",
            ),
            ("Rfe Rmw[acq.cta,rel.gpu] Coe", 5, "one scope"),
            ("Coe Coe", 1, "before themselves"),
        ];
        for (text, col, why) in cases {
            let e = Cycle::parse(text).unwrap_err();
            assert_eq!(e.col, col, "{text}: {e}");
            assert!(e.message.contains(why), "{text}: {e}");
        }
        // Bounds: 65 threads (more than a litmus test holds), 300 edges.
        let e = Cycle::parse(&"PodWR Fre ".repeat(65)).unwrap_err();
        assert!(e.message.contains("at most 64 threads"), "{e}");
        let e = Cycle::parse(&"PodWR Fre ".repeat(150)).unwrap_err();
        assert!(e.message.contains("at most 256 edges"), "{e}");
        assert_eq!(e.col, 256 / 2 * 10 + 1);
        assert!(Cycle::parse(&"PodWR Fre ".repeat(64)).is_ok());
    }
}
