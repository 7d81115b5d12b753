//! Running a litmus test: lower each thread, explore its paths in the interpreter's event mode,
//! combine the paths of all threads, hand each combination to the memory model, and collect the
//! outcomes the model allows.
//!
//! Read values come from a per-location *value domain*: the initial value plus the values some
//! path writes there, computed as a fixpoint (a read can only return a value some write
//! writes) and pruned to the values an allowed execution can write (see `run/domain.rs`). Only complete executions count for the condition: every thread runs to its end,
//! no thread waits at a barrier forever, and no path takes a backward jump (the corpus' await
//! semantics). In liveness mode the question is instead whether some consistent execution
//! hangs: a thread waits at a barrier forever, or spins in a loop whose reads all read
//! co-maximal writes (fairness, litmus-format spec §2.4).

use std::collections::BTreeSet;
use std::time::Duration;

use emu::event::{Ending, EvKind, Limits, Trace, TraceEvent};
use emu::ir::{AddrBase, Address, Op, Operand, VarRef};
use models::event::{Event, EventKind, ThreadPos};
use models::ptx::{Choice, Model, Options, Skeleton, Violation};
use models::rel::Rel;
use models::{enumerate_towards, Counts, Next};

use crate::ast::{Expr, LocDecl, Term, Test};
use crate::barrier::{syncbar_options, Place, Reached, StaticBarrier};
use crate::lower::{lower_thread, Locations, Lowered};

/// How to run a test.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// The memory model.
    pub model: Model,
    /// Where the sources disagree.
    pub opts: Options,
    /// Look for hangs instead of judging the condition.
    pub liveness: bool,
    /// Per-thread exploration limits.
    pub limits: Limits,
    /// The most candidate executions one test may judge.
    pub max_candidates: u64,
    /// Which exploration builds the executions.
    pub engine: Engine,
    /// Threads one test's exploration spreads over (the explorer only).
    pub jobs: usize,
    /// Stop, without a verdict, before judging more complete executions than this.
    pub max_executions: Option<u64>,
    /// Stop, without a verdict, when the exploration has run this long.
    pub timeout: Option<Duration>,
    /// Let the explorer build one execution per orbit of interchangeable threads and derive
    /// the others ([`models::explore`]'s symmetry); the answers are the same either way.
    pub symmetry: bool,
}

/// Which exploration builds a test's executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Incremental exploration ([`models::explore`]): the default.
    Explore,
    /// The enumeration of every candidate ([`models::enumerate()`]): the reference the tests
    /// compare the explorer with.
    Enumerate,
}

impl RunOptions {
    /// The per-thread limits of a run that started at `start`: `limits`, with `--timeout`
    /// also bounding the building of each thread's paths.
    pub(crate) fn path_limits(&self, start: &crate::clock::Started) -> Limits {
        Limits {
            deadline: start.deadline(self.timeout),
            ..self.limits
        }
    }

    /// `e`, with a `--timeout` met while paths were built named as the command line names it.
    pub(crate) fn halted(&self, e: RunError, start: &crate::clock::Started) -> RunError {
        match e {
            RunError::Halted {
                brake,
                explored,
                executions,
                allowed,
                ..
            } if brake == "--timeout" => RunError::Halted {
                brake: format!(
                    "--timeout {} (while the paths of a thread were built)",
                    self.timeout.unwrap_or_default().as_secs_f64()
                ),
                explored,
                executions,
                allowed,
                millis: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
            },
            e => e,
        }
    }
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            model: Model::PtxV75,
            opts: Options::default(),
            liveness: false,
            limits: Limits::default(),
            max_candidates: 50_000_000,
            engine: Engine::Explore,
            jobs: 1,
            max_executions: None,
            timeout: None,
            symmetry: true,
        }
    }
}

/// Why a test could not be run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// A thread's instruction could not be lowered.
    #[error("line {line}: thread P{thread}: {message}")]
    Lower {
        /// Thread.
        thread: usize,
        /// Source line.
        line: u32,
        /// Why.
        message: String,
    },
    /// Event mode failed on a thread.
    #[error("thread P{thread}: {message}")]
    Event {
        /// Thread.
        thread: usize,
        /// Why.
        message: String,
    },
    /// Too many candidate executions.
    #[error("more than {0} candidate executions; giving up (raise the budget with --max-candidates N, or shrink the test)")]
    Budget(u64),
    /// Too many coherence orders to enumerate.
    #[error("more than 2^20 coherence orders for one reads-from choice; giving up")]
    CoherenceChoices,
    /// A brake (`max_executions`, `timeout`) stopped the exploration: there is no verdict.
    #[error("stopped by {brake} after {executions} complete execution(s) ({allowed} allowed; {explored} partial executions built) in {millis} ms; no verdict")]
    Halted {
        /// Which brake, as the command line names it.
        brake: String,
        /// Partial executions built.
        explored: u64,
        /// Complete executions judged.
        executions: u64,
        /// Of which allowed.
        allowed: u64,
        /// Time spent.
        millis: u64,
    },
    /// The condition names a thread the test does not have.
    #[error("the condition mentions P{0}, but the test has {1} thread(s)")]
    UnknownThread(u32, usize),
}

/// A test ready to run: its threads lowered, its locations laid out.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The test.
    pub test: Test,
    /// Location names (declared, then created on use).
    pub locs: Locations,
    /// Physical location of each name (aliases share their target's).
    pub phys: Vec<u32>,
    /// Generic address of each name (a generic alias is its own; other aliases use their target).
    pub vloc: Vec<u32>,
    /// Initial value of each name.
    pub init: Vec<i64>,
    /// The threads.
    pub threads: Vec<Lowered>,
    /// Each thread's (gpu, cta).
    pub places: Vec<Place>,
    /// Each thread's cluster: equal for threads whose CTAs share a cluster of one GPU
    /// (`,cluster N`), and otherwise distinct per CTA (a CTA launched without clusters is a
    /// cluster of its own).
    pub clusters: Vec<u32>,
    /// Every barrier instruction.
    pub barriers: Vec<StaticBarrier>,
    /// The terms a state shows: the condition's, then `locations`.
    pub terms: Vec<Term>,
    /// An outcome the enumeration is steered towards (empty for an ordinary run).
    pub focus: Focus,
}

/// An outcome that an explanation steers the enumeration towards, so that candidates the
/// ordinary run never builds — values out of thin air, final values against coherence — can be
/// built and their violations shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Focus {
    /// Values added to every location's value domain beyond those some write writes.
    pub values: Vec<i64>,
    /// Required final values: (physical location, value). Only candidates whose coherence order
    /// ends in a write of that value at that location are built.
    pub finals: Vec<(u32, i64)>,
}

/// Lowers a test's threads and lays out its locations.
///
/// # Errors
/// A thread cell the PTX front end rejects, or a condition naming a missing thread.
pub fn prepare(test: &Test) -> Result<Prepared, RunError> {
    // A declared location no thread accesses and no term names cannot change an outcome, but
    // each would add an init event to every candidate (relations grow with the square of the
    // events: 17,000 unused locations took 40 s and 800 MB). Only the used ones are laid out.
    let mut probe = Locations::default();
    let mut threads = lower_all(test, &mut probe)?;
    let used = used_locations(test, &probe);
    let mut locs = Locations::default();
    for (name, _) in &test.locations {
        if used.contains(name.as_str()) {
            locs.intern(name);
        }
    }
    // The threads were lowered once, numbering locations in order of first use; lowering
    // them again after the used declared ones would number the rest in that same order, so
    // renumbering gives the same code.
    let renumber: Vec<u32> = probe.names.iter().map(|n| locs.intern(n)).collect();
    for l in &mut threads {
        relocate(l, &renumber);
    }
    let mut terms = test.condition.terms();
    let extra = test.filter.as_ref().map(Expr::terms).unwrap_or_default();
    for o in test.observed.iter().chain(&extra) {
        if !terms.contains(o) && !matches!(o, Term::Const(_)) {
            terms.push(o.clone());
        }
    }
    for t in &terms {
        match t {
            Term::Reg(th, _) if *th as usize >= threads.len() => {
                return Err(RunError::UnknownThread(*th, threads.len()))
            }
            Term::Loc(l) => {
                locs.intern(l);
            }
            _ => {}
        }
    }
    let n = locs.names.len();
    let mut phys: Vec<u32> = (0..n as u32).collect();
    let mut vloc: Vec<u32> = (0..n as u32).collect();
    let mut init = vec![0i64; n];
    for (name, decl) in &test.locations {
        let Some(k) = locs.get(name) else { continue };
        let k = k as usize;
        match decl {
            LocDecl::Value(v) => init[k] = *v,
            LocDecl::Alias { proxy, target } => {
                let tk = locs.get(target).unwrap_or(0) as usize;
                phys[k] = phys[tk];
                init[k] = init[tk];
                vloc[k] = if *proxy == models::vocab::Proxy::Generic {
                    k as u32
                } else {
                    tk as u32
                };
            }
        }
    }
    let places = test.threads.iter().map(|d| (d.gpu, d.cta)).collect();
    let clusters = cluster_ids(&test.threads);
    let mut barriers = Vec::new();
    for (t, l) in threads.iter().enumerate() {
        for (i, ins) in l.code.instrs.iter().enumerate() {
            if let Op::Bar(_) = ins.op {
                let lit = |k: usize| match ins.args.get(k) {
                    Some(Operand::Imm(emu::ir::Imm::Int(v))) => Some(Some(*v)),
                    Some(_) => Some(None),
                    None => None,
                };
                barriers.push(StaticBarrier {
                    thread: t,
                    instr: i,
                    instance: lit(0).flatten(),
                    id: lit(1),
                    quorum: ins.args.len() > 2,
                });
            }
        }
    }
    Ok(Prepared {
        test: test.clone(),
        locs,
        phys,
        vloc,
        init,
        threads,
        places,
        clusters,
        barriers,
        terms,
        focus: Focus::default(),
    })
}

/// Numbers the threads' clusters: a CTA that names a cluster (itself or through another
/// thread of the same CTA) joins that cluster of its GPU; any other CTA is a cluster of its
/// own. Equal numbers mean the same cluster of the same GPU.
fn cluster_ids(threads: &[crate::ast::ThreadDecl]) -> Vec<u32> {
    /// What identifies a cluster: a named one of a GPU, or a CTA alone.
    #[derive(PartialEq)]
    enum Key {
        Named { gpu: u32, cluster: u32 },
        Alone { gpu: u32, cta: u32 },
    }
    let named = |gpu: u32, cta: u32| {
        threads
            .iter()
            .find(|t| (t.gpu, t.cta) == (gpu, cta) && t.cluster.is_some())
            .and_then(|t| t.cluster)
    };
    let mut keys: Vec<Key> = Vec::new();
    threads
        .iter()
        .map(|t| {
            let key = match named(t.gpu, t.cta) {
                Some(cluster) => Key::Named {
                    gpu: t.gpu,
                    cluster,
                },
                None => Key::Alone {
                    gpu: t.gpu,
                    cta: t.cta,
                },
            };
            let k = keys.iter().position(|x| *x == key).unwrap_or_else(|| {
                keys.push(key);
                keys.len() - 1
            });
            k as u32
        })
        .collect()
}

/// Lowers every thread, interning the locations it accesses in `locs`.
fn lower_all(test: &Test, locs: &mut Locations) -> Result<Vec<Lowered>, RunError> {
    let mut threads = Vec::new();
    for (t, code) in test.code.iter().enumerate() {
        let insts: Vec<_> = code.iter().map(|(i, _)| i.clone()).collect();
        let init: Vec<(String, i64)> = test
            .reg_init
            .iter()
            .filter(|(th, _, _)| *th as usize == t)
            .map(|(_, r, v)| (r.clone(), *v))
            .collect();
        let l = lower_thread(&insts, &init, locs).map_err(|e| RunError::Lower {
            thread: t,
            line: code.get(e.inst).map_or(0, |c| c.1),
            message: e.message,
        })?;
        threads.push(l);
    }
    Ok(threads)
}

/// The declared locations a test uses: those its threads access (`accessed`, filled by
/// lowering them) or its terms name, and the targets of the aliases among them.
fn used_locations(test: &Test, accessed: &Locations) -> std::collections::HashSet<String> {
    let mut used: std::collections::HashSet<String> = accessed.names.iter().cloned().collect();
    let extra = test.filter.as_ref().map(Expr::terms).unwrap_or_default();
    for t in test
        .condition
        .terms()
        .iter()
        .chain(&test.observed)
        .chain(&extra)
    {
        if let Term::Loc(l) = t {
            used.insert(l.clone());
        }
    }
    // Alias targets, to any depth (declarations name earlier locations).
    for (name, decl) in test.locations.iter().rev() {
        if let LocDecl::Alias { target, .. } = decl {
            if used.contains(name.as_str()) {
                used.insert(target.clone());
            }
        }
    }
    used
}

/// Renumbers the locations a lowered thread addresses: location `g` becomes `to[g]`.
fn relocate(l: &mut Lowered, to: &[u32]) {
    let var = |v: &mut VarRef| {
        if let VarRef::Global(g) = v {
            g.0 = to[g.0 as usize];
        }
    };
    for ins in &mut l.code.instrs {
        for a in &mut ins.args {
            match a {
                Operand::Address(Address {
                    base: AddrBase::Var(v),
                    ..
                }) => var(v),
                Operand::Symbol(s) => var(&mut s.sym),
                _ => {}
            }
        }
    }
}

mod combine;
mod domain;
mod shape;
pub use combine::{executions, skeleton, usable_paths, Judged};
pub(crate) use combine::{reached_at, to_event};
pub use domain::thread_paths;

pub(crate) use crate::outcome::{eval, fair, holds, states_from};
pub use crate::outcome::{run, run_with, states_of, Hang, Report, StateInfo};
