//! Incremental exploration of the executions of a litmus test: each consistent execution is
//! built once, event by event, and a partial execution is abandoned as soon as it breaks an
//! axiom that no extension can repair, so the cost follows the executions the model allows
//! rather than the candidates [`crate::enumerate()`] judges one by one.
//!
//! The approach follows GenMC (Kokologiannakis et al., PLDI'19) in spirit: an execution graph
//! grows in program order per thread, each read picks its source among the writes that keep the
//! graph consistent, and each write is placed in coherence order against the writes it must be
//! ordered with. Instead of GenMC's backward revisits, a read may *defer* its source to a write
//! that a thread can still add; the first later write of that location and value the read
//! takes becomes its source (each deferred read takes exactly one, chosen when that write is
//! added), and a read whose value no remaining event can write is abandoned at once. So every
//! (paths, reads-from, coherence) choice is built at most once, without a duplicate check.
//!
//! # Input
//!
//! The threads' paths come as one [`Tree`] per thread (paths that agree on a prefix share it),
//! over a [`Universe`] holding every event of every path. Relations that depend only on two
//! events (moral strength, patterns, proxies, scopes) are computed pair by pair, with the
//! definitions of [`crate::ptx::Statics::new`], when an event joins the growing execution:
//! the universe can hold thousands of events (value-dependent paths), and whole matrices over
//! it would cost its square in memory and its cube in time.
//!
//! # Which axiom is checked when, and why that is sound
//!
//! Every relation the models derive (observation, sync, base causality, causality, the
//! Coherence lower bound `[W];cause;[W] & loc`, from-reads) is built from reads-from, the
//! Fence-SC order, barrier synchronisation, coherence and the static relations by union,
//! intersection with static relations, composition and closure: never by complement or
//! difference. Adding an event, a reads-from edge or a coherence edge can therefore only add
//! pairs. Each axiom asks a relation to be acyclic, irreflexive or empty, so once broken by a
//! partial execution it stays broken in every extension. After every step the explorer checks,
//! on the partial execution with the Fence-SC order and barrier synchronisation left empty
//! (their pairs only add to causality, so the partial check is weaker than the final one):
//!
//! 1. the deferred reads: each still has a thread that can write its location and value, and
//!    its value is in the least set `F` of (location, value) pairs that the unfinished threads
//!    can write below where they are, a write counting only when each read its value or its
//!    path depends on (data, control) reads a present write's value or one of `F`. Sound
//!    because every model forbids cycles of reads-from and dependencies (no-thin-air; SC's
//!    acyclicity contains it): in a consistent completion, take a future write not in `F`
//!    minimal along `rf;deps`: it lies below its thread's node, and each read it depends on
//!    reads a present write or a future one before it, which is in `F`, so the write is in
//!    `F`. Only the reads a write depends on are asked for, so load buffering stays in.
//!    Moreover the read's value must have a `depth` in `F` no greater than the writes to its
//!    location that the unfinished threads can still make (the most on any one path of
//!    each): a pair's depth is the least, over the writes of it, of one plus the largest
//!    depth of the pairs of the same location, not written by a present write, that the
//!    write depends on. Sound because, in a completion, the future write `w` the read takes
//!    starts a chain of distinct future writes to that location, each the source of a read
//!    the one before depends on (distinct and finite by no-thin-air); by induction along
//!    `rf;deps` the depth of `w`'s pair is at most the chain's length, and the chain's writes
//!    are among those still to be made. A ticket lock's `atom.add` can so take only tickets
//!    that the threads left can reach, not every value of the over-approximated domain.
//!    A write of an RMW whose read is one of its dependencies counts its read's pair as
//!    present only if some present write of it is not *spent*: read already by a present
//!    RMW (both halves present) morally strong with it (every RMW under SC). Sound by
//!    atomicity (`(fr ; co) & rmw` empty on morally strong pairs): were two such RMWs
//!    `(r1, w1)`, `(r2, w2)` to read one write `w0`, both writes are coherence-after `w0`
//!    (an initial write comes first; otherwise, under SC, `w0 rf r po w` orders them, and in
//!    the PTX models, on a *plain* location, one whose every access is generic and through
//!    one address, with `w0` morally strong with both reads, `w0` is observed by the read
//!    and `obs ; po` lies in causality, so the Coherence lower bound orders them), they are
//!    ordered with each other (morally strong), and the later one's read reads from before
//!    the earlier write: `fr ; co` from its read to its write. So an await read of a ticket
//!    lock whose serving write it declined waits on no second write of that value;
//! 2. coherence: the chosen coherence edges, initial writes first and `[W];cause;[W] & loc`
//!    are acyclic (the Coherence axiom);
//! 3. every axiom of [`crate::ptx::Statics::check`] on the partial execution: no-thin-air, atomicity,
//!    sc-per-location (v6.0), causality, or the SC model's acyclicity;
//! 4. (PTX models, executions of the fast path) no deferred read `r` of a plain location is
//!    base-causally before (`cb`, with the Fence-SC order and barriers empty) an event of
//!    every unfinished thread that can still write its location and value. Sound: the write
//!    `r` will take is one of those threads' future writes `w`, program-order after that
//!    event, and `cb ; po` lies in `cb` (v7.5: `po` is in `cb`; both models build `cb` as
//!    `po? ; (sb ; po?)+`), so `cb(r, w)` in every completion (`cb` only grows); on a plain
//!    location `cause` contains `cb` between the two (v6.0: `cause ⊇ cb`; v7.5: the first
//!    clause of proxy-preserved causality, generic events of one address), and
//!    `rf(w, r) ; cause(r, w)` breaks Causality. The threads counted include `r`'s own
//!    under v7.5 (its future events follow `r` in `po`) and those *bound after* `r`
//!    (`doom.rs`, with the proof): threads waiting on a deferred acquire read that only
//!    release writes of such threads, or of `r`'s own thread, can serve. A ticket lock's
//!    critical-section read that waits for the write of a thread still queued behind the
//!    lock is so dropped when it is deferred, not when that thread is finally synchronised
//!    after it. After a quiet step that defers a read, this check runs for the deferred
//!    reads with no base causality (a read just deferred has nothing causally after it).
//!
//! Checks 2, 3 and 4 are skipped after a step that adds no edge leaving the new event: a thread's
//! end, a fence or barrier, or a read whose source is deferred. The new event is last in its
//! thread, has no reads-from or coherence edge, and no release pattern can start at it yet,
//! so no relation gains a path through it and every pair the axioms look at is unchanged.
//!
//! At a complete execution (every thread at the end of a path, no deferred read left), the
//! Fence-SC orders and barrier matchings are enumerated as [`crate::enumerate()`] does, the
//! coherence order is closed with the lower bound that causality then gives, and every axiom
//! is checked again in full: the verdict is the reference's. Under an empty Fence-SC order and
//! barrier matching (most executions: fewer than two `fence.sc`, no barrier) that full check is
//! the one checks 2 and 3 made after the last step that changed a relation, and it passed, so
//! its closed coherence is taken as it is.
//!
//! Checks 2 and 3 build the same relations as [`crate::ptx::Statics::cause`] and
//! [`crate::ptx::Statics::check`]; on executions of up to 64 events without proxy or alias
//! fences they do so with one word per row on the stack (`fast.rs`), otherwise with the
//! relation algebra of [`crate::rel`]. Debug builds compare the two at every step.
//!
//! Which thread moves next does not change the executions built (every next event of the
//! chosen thread is tried); the search prefers threads that wait on no deferred read that
//! their later events depend on (an await loop's read), so the lock holder's release comes
//! before the waiter's critical section rather than after every choice in it.
//!
//! # Interchangeable threads
//!
//! When the caller asks for it ([`Universe::symmetric`]), threads with the same code and
//! placement that differ only in values each alone writes (a ticket lock's) are taken as
//! interchangeable (`symmetry/`, with the argument): the search builds only the executions
//! whose *key* writes (the first write each such thread makes, ordered in coherence between
//! any two of them) come in thread order, and hands the sink each of those with all its
//! images under permutations of the threads, which are exactly the other executions. Counts,
//! states and verdicts are those of the full search; [`Stats::explored`] falls by up to the
//! number of permutations. To decide the order early, a thread makes no event before the
//! previous thread of its class has made its key write, an RMW's write follows its read at
//! once, and the read of a key RMW of a location only key writes write takes a present
//! source.
//!
//! # Brakes
//!
//! [`Brakes`] bound the complete executions judged, the partial executions built (a search
//! whose partial executions rarely complete is bounded too) and the time; the brakes are
//! looked at every few hundred steps and before each complete execution is judged, and a run
//! they stop reports [`Halt`] and no verdict.
//!
//! # Coherence choices
//!
//! When a write is added it is oriented against every present write it must be ordered with
//! (same location and morally strong; every pair under SC), skipping orientations that close
//! a cycle. The reference takes the smallest coherence order, `lower`, and orients only the
//! required pairs that `lower` leaves open; here every required pair is oriented and the
//! orientation against `lower` dies at the coherence check. The two give the same coherence
//! orders: `(lower ∪ O)+` for each acyclic total orientation `O` of the required pairs.
//!
//! Placements that a read-modify-write rules out are not built (`atomic.rs`, with the
//! argument): its write goes after its read's source and before every write coherence-after
//! that source; a write that becomes an RMW read's source goes before the RMW's write and
//! after the writes coherence-before it; an RMW read does not take a write that another RMW
//! has read when atomicity forbids the two sharing it. Each of these fails check 2 or 3 in
//! every completion (the placements at once), so the complete executions built are the same.
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
