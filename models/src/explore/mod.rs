//! Incremental exploration of the executions of a litmus test: each consistent execution is
//! built once, event by event, and a partial execution is abandoned as soon as it breaks an
//! axiom that no extension can repair, so the cost follows the executions the model allows
//! rather than the candidates [`crate::enumerate()`] (the reference) judges one by one.
//!
//! Why each pruning is sound is argued in docs/spec/explorer.md (a glossary to GenMC's terms,
//! one lemma per check, the symmetry theorem); the lemma numbers below are that page's.
//!
//! # Input
//!
//! The threads' paths come as one [`Tree`] per thread (paths that agree on a prefix share it),
//! over a [`Universe`] holding every event of every path. Relations that depend only on two
//! events (moral strength, patterns, proxies, scopes) are computed pair by pair, with the
//! definitions of [`crate::ptx::Statics::new`], when an event joins the growing execution
//! (`pairs`, `local`).
//!
//! # Steps and checks
//!
//! An execution grows in program order per thread. A read takes a present write or *defers*
//! its source to a write a thread can still add (the first later write of its location and
//! value it takes becomes its source); a write is oriented in coherence against every present
//! write it must be ordered with (`moves`; placements a read-modify-write rules out are not
//! built, `atomic`, Lemma 8). After every step, on the partial execution with the Fence-SC
//! order and barrier synchronisation left empty:
//!
//! 1. every deferred read can still be served by the writes the unfinished threads can make,
//!    at a depth they can reach (Lemma 1);
//! 2. coherence is acyclic (Lemma 2);
//! 3. every axiom of [`crate::ptx::Statics::check`] holds (Lemma 3);
//! 4. (PTX models, fast path) no deferred read is *doomed*: base-causally before an event of
//!    every thread that could serve it (`doom`, Lemma 4).
//!
//! Checks 2, 3 and 4 are skipped after a step that adds no edge leaving the new event
//! (Lemma 5). A complete execution is judged in full as the reference judges it (Lemma 6).
//! On executions of up to 64 events without proxy or alias fences, checks 2 and 3 run on one
//! word per row (`fast`, Lemma 9), otherwise with the relation algebra of [`crate::rel`];
//! debug builds compare the two at every step.
//!
//! Which thread moves next does not change the executions built; the search prefers threads
//! that wait on no deferred read their later events depend on (an await loop's read), so the
//! lock holder's release comes before the waiter's critical section.
//!
//! # Interchangeable threads
//!
//! When the caller asks for it ([`Universe::symmetric`]), threads with the same code and
//! placement that differ only in values each alone writes are interchangeable (`symmetry`):
//! the search builds one canonical execution per orbit and hands the sink all its images, so
//! counts, states and verdicts are the full search's; [`Stats::explored`] falls by up to the
//! number of permutations (the symmetry theorem).
//!
//! # Brakes
//!
//! [`Brakes`] bound the complete executions judged, the partial executions built and the
//! time; they are looked at every few hundred steps and before each complete execution is
//! judged, and a run they stop reports [`Halt`] and no verdict.
//!
//! # Deviations from the reference's counts
//!
//! 1. `candidates` (in [`Stats::executions`]) counts the complete executions the explorer built
//!    and judged in full; partial executions abandoned on the way are counted in
//!    [`Stats::explored`]. The reference also counts one forbidden candidate per reads-from
//!    choice that breaks no-thin-air, coherence or causality before coherence is completed.
//!    Allowed executions, states and verdicts are the same.

mod atomic;
mod check;
mod doom;
mod fast;
mod leaf;
mod local;
mod moves;
mod pairs;
mod search;
mod split;
mod symmetry;
mod writable;

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use crate::event::{Event, EventKind};
use crate::ptx::{Choice, Violation};
use crate::rel::Rel;
use crate::vocab::Proxy;
use crate::Next;

pub use split::explore;
use writable::Writable;

/// One thread's paths, merged on common prefixes: node 0 is the root (no event); each other
/// node is one event, its parent the event before it in program order.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    /// The nodes; a node's parent comes before it.
    pub nodes: Vec<TreeNode>,
}

/// One node of a [`Tree`].
#[derive(Clone, Debug, Default)]
pub struct TreeNode {
    /// The event (an index into the universe's skeleton); `None` for the root.
    pub event: Option<usize>,
    /// The events that can come next.
    pub children: Vec<u32>,
    /// The caller's paths that end here (after this node's event).
    pub ends: Vec<u32>,
}

/// Every event of every path of every thread, and the paths as trees.
#[derive(Clone, Debug)]
pub struct Universe {
    /// The events (initial writes first). Program order relates a node's event to its
    /// descendants' in the same tree.
    pub events: Vec<Event>,
    /// Read-modify-write pairs (read half, write half).
    pub rmw: Vec<(usize, usize)>,
    /// Dependencies (address, data, control): (read, event that depends on it).
    pub deps: Vec<(usize, usize)>,
    /// How many initial writes lead the events.
    pub inits: usize,
    /// One tree per thread.
    pub trees: Vec<Tree>,
    /// What each thread can still write from each node (check 1 of the module docs).
    writable: Writable,
    /// Per event: whether a later event depends on it (a read that decides a branch or feeds
    /// a value, such as an await loop's read).
    decides: Vec<bool>,
    /// The most events one execution can have.
    cap: usize,
    /// Per physical location: whether every access of a thread to it is generic and through
    /// one virtual address (check 4 of the module docs applies to its reads).
    plain: Vec<bool>,
    /// Whether to build one execution of each orbit of interchangeable threads and hand the
    /// sink the others as its images (`explore/symmetry/`); off unless the caller turns it on.
    pub symmetric: bool,
}

impl Universe {
    /// Builds a universe; `trees` index `events`, whose first `inits` are the initial writes;
    /// `rmw` and `deps` relate events of one path, as [`Universe::rmw`] and [`Universe::deps`].
    pub fn new(
        events: Vec<Event>,
        inits: usize,
        trees: Vec<Tree>,
        rmw: Vec<(usize, usize)>,
        deps: Vec<(usize, usize)>,
    ) -> Universe {
        let writable = Writable::new(&events, &trees, &rmw, &deps);
        let mut decides = vec![false; events.len()];
        for &(r, _) in &deps {
            decides[r] = true;
        }
        let mut cap = inits;
        for t in &trees {
            let mut depth = vec![0usize; t.nodes.len()];
            // Parents come first, so children are finished when their parent is reached.
            for x in (0..t.nodes.len()).rev() {
                for &c in &t.nodes[x].children {
                    depth[x] = depth[x].max(depth[c as usize] + 1);
                }
            }
            cap += depth.first().copied().unwrap_or(0);
        }
        let plain = plain_locations(&events);
        Universe {
            plain,
            events,
            rmw,
            deps,
            inits,
            trees,
            writable,
            decides,
            cap,
            symmetric: false,
        }
    }

    /// Whether every access of a thread to physical location `loc` is generic and through one
    /// virtual address.
    fn plain(&self, loc: u32) -> bool {
        self.plain.get(loc as usize).copied().unwrap_or(false)
    }

    /// The most events one execution can have (the size of the relations a [`Leaf`] holds).
    pub fn capacity(&self) -> usize {
        self.cap
    }
}

/// Per physical location: whether every access of a thread (not an initial write) to it is
/// generic and uses one virtual address.
fn plain_locations(events: &[Event]) -> Vec<bool> {
    let mut vloc: Vec<Option<Option<u32>>> = Vec::new();
    let mut plain: Vec<bool> = Vec::new();
    for e in events.iter().filter(|e| e.thread.is_some() && e.is_mem()) {
        let Some(l) = e.loc.map(|l| l as usize) else {
            continue;
        };
        if l >= plain.len() {
            plain.resize(l + 1, true);
            vloc.resize(l + 1, None);
        }
        let first = *vloc[l].get_or_insert(e.vloc);
        if e.proxy != Some(Proxy::Generic) || first != e.vloc {
            plain[l] = false;
        }
    }
    plain
}

/// One complete execution, as the explorer hands it to a [`Sink`]. Relations are over local
/// indices: event `i` of the execution is `ids[i]` of the universe.
pub struct Leaf<'a> {
    /// The path each thread ended with (the caller's numbers, from [`TreeNode::ends`]).
    pub ends: &'a [u32],
    /// Each thread's events, as local indices, in program order.
    pub events: &'a [Vec<usize>],
    /// The universe's event of each local index.
    pub ids: &'a [usize],
    /// The execution's choices, over local indices.
    pub choice: &'a Choice,
    /// The verdict.
    pub verdict: &'a Result<(), Violation>,
}

impl Leaf<'_> {
    /// The co-maximal writes (local indices): writes no other write follows in coherence.
    pub fn co_maximal(&self, u: &Universe) -> Vec<usize> {
        let n = self.ids.len();
        (0..n)
            .filter(|&w| {
                u.events[self.ids[w]].kind == EventKind::Write
                    && (0..n).all(|x| !self.choice.co.has(w, x))
            })
            .collect()
    }
}

/// What the explorer asks of its caller at complete executions.
pub trait Sink {
    /// The barrier matchings (`syncbar` relations over local indices, of size `n`) of the
    /// paths `ends`, whose events are `events`; none when the combination has no complete
    /// matching or is not wanted (its executions are then not built).
    fn syncbars(&mut self, ends: &[u32], events: &[Vec<usize>], n: usize) -> Vec<Rel>;
    /// Called with every complete execution and its verdict.
    fn visit(&mut self, u: &Universe, leaf: &Leaf<'_>) -> Next;
}

/// Limits on one exploration.
#[derive(Clone, Copy, Debug, Default)]
pub struct Brakes {
    /// Stop before judging more complete executions than this.
    pub max_executions: Option<u64>,
    /// Stop once more partial executions than this have been built (every step of the search
    /// counts, so a search whose partial executions rarely complete is bounded too).
    pub max_explored: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
}

/// Why an exploration stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// [`Brakes::max_executions`] complete executions were judged and more remained.
    MaxExecutions(u64),
    /// More than [`Brakes::max_explored`] partial executions were built.
    MaxExplored(u64),
    /// The deadline passed.
    Timeout,
}

/// Counters of an exploration, readable while it runs (for a progress display).
#[derive(Debug, Default)]
pub struct Progress {
    /// Partial executions built (each step of the search).
    pub explored: AtomicU64,
    /// Complete executions judged.
    pub executions: AtomicU64,
    /// Of which allowed.
    pub allowed: AtomicU64,
}

/// The counts of an exploration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Partial executions built (each step of the search).
    pub explored: u64,
    /// Complete executions built and judged in full.
    pub executions: u64,
    /// Of which allowed.
    pub allowed: u64,
}

/// The result of [`explore`]: one sink per task of the split exploration tree, in the tree's
/// order (one task when not split), the counts, and why it stopped early, if it did.
pub struct Outcome<S> {
    /// The sinks, in task order.
    pub sinks: Vec<S>,
    /// The counts.
    pub stats: Stats,
    /// Set when a brake stopped the exploration (the sinks then saw only part of it).
    pub halted: Option<Halt>,
}
