//! Event mode: running one thread of a litmus test over the IR and recording the memory events
//! it performs, for every choice of the values its reads return.
//!
//! A read may return any value of its location's *domain* (the caller's over-approximation of
//! the values written there); each choice is one branch of a depth-first exploration, and each
//! path that ends is a [`Trace`]. Registers hold mathematical integers (64-bit, wrapping), as
//! the litmus dialect's do. Dependencies are tracked by taint: every register carries the set
//! of reads its value came from; a store's value gives data dependencies, and every event after
//! a conditional branch (or under a guard) depends on the reads that decided it.
//!
//! Loops follow the litmus corpus' await semantics: a path that takes a backward jump is
//! dropped, except that in liveness mode a backward jump over an iteration with no write ends
//! the trace as *spinning*. In liveness mode, every barrier reached also yields a trace that
//! stops just before it (*blocked*).
//!
//! Deliberate deviations:
//! 1. A failed `atom.cas` still writes the old value back (Dat3M's reading, litmus spec §1.6).

use std::sync::Arc;

use models::event::{BarrierTag, FenceKind};
use models::vocab::{Proxy, Scope};

use crate::ir::{Instr, RegId, Type};

mod run;

use run::{run, Out, State};

/// What a recorded event is.
#[derive(Clone, Debug, PartialEq)]
pub enum EvKind {
    /// A read of `loc` returning `value`.
    Read {
        /// The location (a module-global index).
        loc: u32,
        /// The value.
        value: i64,
    },
    /// A write of `value` to `loc`.
    Write {
        /// The location.
        loc: u32,
        /// The value.
        value: i64,
    },
    /// A fence.
    Fence(FenceKind),
    /// A barrier.
    Barrier(BarrierTag),
}

/// One event of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// What it is.
    pub kind: EvKind,
    /// Strong (relaxed or stronger).
    pub strong: bool,
    /// Scope of a strong access or fence.
    pub scope: Option<Scope>,
    /// Acquire read.
    pub acquire: bool,
    /// Release write.
    pub release: bool,
    /// Proxy (`None` for barriers and alias fences).
    pub proxy: Option<Proxy>,
    /// Part of a read-modify-write; for the write half, the index of its read.
    pub rmw: Option<Option<usize>>,
    /// The read half of a `red`.
    pub red: bool,
    /// Reads (indices into the trace) whose values flow into this write's value.
    pub data: Deps,
    /// Reads that decided a branch or guard before this event.
    pub ctrl: Deps,
    /// The instruction that performed it.
    pub instr: usize,
}

/// A set of reads (indices into a trace, ascending, no repeats). Shared: the events of one
/// path, and of the paths that branch from it, hold the same set without copying it.
pub type Deps = Arc<[usize]>;

/// The values a read of each location may return: `domain(loc)`.
pub type Domain<'a> = &'a dyn Fn(u32) -> &'a [i64];

/// How a trace ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The thread ran to its end.
    Done,
    /// The thread spins forever in a loop whose iteration writes nothing.
    Spin,
    /// The thread waits at a barrier (the trace stops before it).
    Blocked,
}

/// One path through a thread.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The events, in program order.
    pub events: Vec<TraceEvent>,
    /// Final register values (indexed by `RegId`).
    pub regs: Vec<i64>,
    /// How it ends.
    pub ending: Ending,
    /// For a spinning trace: the index of the first event of the iteration that repeats
    /// forever (the events since the loop head was last passed).
    pub spin_start: usize,
    /// For a blocked trace: the barrier instruction it waits at, and the barrier.
    pub blocked_at: Option<(usize, BarrierTag)>,
}

/// A thread's code in event mode.
#[derive(Clone, Debug, Default)]
pub struct ThreadCode {
    /// The instructions.
    pub instrs: Vec<Instr>,
    /// Where each label points (label index → instruction index).
    pub labels: Vec<usize>,
    /// The proxy of each instruction's accesses (litmus `tld`/`suld`/`sust`/`cold`).
    pub proxies: Vec<Proxy>,
    /// Number of registers.
    pub nregs: usize,
    /// Initial register values.
    pub reg_init: Vec<(RegId, i64)>,
}

/// An event-mode failure: something the litmus executor cannot interpret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// An instruction or operand form outside event mode.
    #[error("instruction {index}: {what}")]
    Unsupported {
        /// The instruction index.
        index: usize,
        /// What.
        what: String,
    },
    /// Too many paths.
    #[error("more than {0} paths through one thread")]
    TooManyPaths(usize),
    /// The paths being built (finished ones and those waiting on the stack) hold too many
    /// events: the memory path building may take is bounded too, not only the paths' count.
    #[error("the paths through one thread hold more than {0} events; giving up (shrink the test)")]
    TooManyEvents(usize),
    /// The deadline (`--timeout`) passed while the paths were being built.
    #[error("the time ran out while the paths through one thread were built")]
    TimedOut,
}

/// Limits of an exploration.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most traces a thread may produce.
    pub max_traces: usize,
    /// The most instructions one path may execute.
    pub max_steps: usize,
    /// The most events the paths of one thread may hold at once, finished or waiting to be
    /// explored (about 170 bytes each with their dependency sets: 2,000,000 is about 350 MB).
    pub max_events: usize,
    /// When to stop building paths (`--timeout`).
    pub deadline: Option<std::time::Instant>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_traces: 200_000,
            max_steps: 10_000,
            max_events: 2_000_000,
            deadline: None,
        }
    }
}

/// Explores every path of `code`; `domain(loc)` gives the values a read of `loc` may return.
///
/// # Errors
/// An instruction event mode cannot interpret, or a path explosion.
pub fn traces(
    code: &ThreadCode,
    domain: Domain<'_>,
    liveness: bool,
    limits: Limits,
) -> Result<Vec<Trace>, EventError> {
    traces_and_dropped(code, domain, liveness, limits, &mut |_| {})
}

/// As [`traces`], also handing `dropped` the events of every path dropped at a backward jump,
/// up to the jump. A dropped path's writes up to the jump are those of a thread that writes,
/// then awaits a value: another path that reads that value may complete (a caller computing
/// value domains needs them).
///
/// # Errors
/// As [`traces`].
pub fn traces_and_dropped(
    code: &ThreadCode,
    domain: Domain<'_>,
    liveness: bool,
    limits: Limits,
    dropped: &mut dyn FnMut(&[TraceEvent]),
) -> Result<Vec<Trace>, EventError> {
    let mut out = Out {
        traces: Vec::new(),
        dropped,
    };
    let mut stack = vec![State::start(code)];
    // Events held by the finished traces and by the states waiting on the stack: what path
    // building costs in memory, kept up to date as states come and go.
    let mut held = 0usize;
    let mut checked = 0u32;
    while let Some(st) = stack.pop() {
        held = held.saturating_sub(st.events_len());
        let (stacked, traced) = (stack.len(), out.traces.len());
        run(code, st, domain, liveness, limits, &mut stack, &mut out)?;
        held += stack[stacked..]
            .iter()
            .map(State::events_len)
            .sum::<usize>();
        held += out.traces[traced..]
            .iter()
            .map(|t| t.events.len())
            .sum::<usize>();
        if out.traces.len() > limits.max_traces {
            return Err(EventError::TooManyPaths(limits.max_traces));
        }
        if held > limits.max_events {
            return Err(EventError::TooManyEvents(limits.max_events));
        }
        // The clock is read every 64 steps of the search: cheap, and prompt enough.
        checked = checked.wrapping_add(1);
        if checked.is_multiple_of(64)
            && limits
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Err(EventError::TimedOut);
        }
    }
    Ok(out.traces)
}

/// The type litmus registers are declared with (mathematical integers held in 64 bits).
pub const REG_TYPE: Type = Type::S64;
