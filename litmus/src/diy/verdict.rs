//! Each generated test under the three models, with the reason for its verdict under
//! ptx-v7.5.
//!
//! The verdict is the model's: the test's condition (the outcome the cycle describes) is
//! allowed when some execution the model allows produces it. The reason is:
//! - for a forbidden outcome, the axiom each candidate execution with that outcome breaks and
//!   the relations of its cycle, as the explainer finds them (`causality: fr ; cause`), then
//!   the cycle's external edges whose accesses are morally strong;
//! - for an allowed one, the cycle's external edges whose accesses are not morally strong
//!   (one of them weak, a scope that does not include the other thread, different proxies);
//!   or, when they all are, that only the program order is left unordered.
//!
//! Moral strength is read from the cycle with the PTX definition (both strong, each scope
//! includes the other thread, one proxy); the verdict never depends on it.

use models::event::ThreadPos;
use models::ptx::Model;
use models::vocab::Proxy;

use super::cycle::{Cycle, Position};
use super::edge::Sem;
use crate::ast::Test;
use crate::explain::explain;
use crate::run::{run, RunOptions};

/// A model's answer for a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Some allowed execution produces the outcome.
    Allowed,
    /// No allowed execution produces it.
    Forbidden,
    /// The run failed or stopped (the message says why).
    Undecided(String),
}

impl Verdict {
    /// The word written in `index.tsv`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Allowed => "Allowed",
            Verdict::Forbidden => "Forbidden",
            Verdict::Undecided(_) => "Undecided",
        }
    }
}

/// The models, in the order of `index.tsv`'s columns.
pub const MODELS: [Model; 3] = [Model::PtxV75, Model::PtxV60, Model::Sc];

/// A test's verdicts under [`MODELS`] and the reason under ptx-v7.5.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// One verdict per model of [`MODELS`].
    pub verdicts: [Verdict; 3],
    /// Why, under ptx-v7.5.
    pub why: String,
}

/// Runs `test` under `model`.
pub fn verdict(test: &Test, model: Model) -> Verdict {
    let ro = RunOptions {
        model,
        ..RunOptions::default()
    };
    match run(test, &ro) {
        Ok(r) if r.holds => Verdict::Allowed,
        Ok(_) => Verdict::Forbidden,
        Err(e) => Verdict::Undecided(e.to_string()),
    }
}

/// Judges the test of `cycle` under every model.
pub fn judge(cycle: &Cycle, test: &Test) -> Judgement {
    let verdicts = MODELS.map(|m| verdict(test, m));
    let (strong, weak) = external_edges(cycle);
    let why = match &verdicts[0] {
        Verdict::Allowed if weak.is_empty() => {
            "allowed: every external edge is morally strong, but the program-order edges are not all ordered".into()
        }
        Verdict::Allowed => format!("allowed: {}", weak.join("; ")),
        Verdict::Forbidden if strong.is_empty() => forbidden_because(test),
        Verdict::Forbidden => format!("{}; {}", forbidden_because(test), strong.join("; ")),
        Verdict::Undecided(e) => e.clone(),
    };
    Judgement { verdicts, why }
}

/// The axioms and relation cycles the explainer gives for the forbidden outcome.
fn forbidden_because(test: &Test) -> String {
    let ro = RunOptions::default();
    let Ok(e) = explain(test, &ro, None) else {
        return "forbidden".into();
    };
    let mut why: Vec<String> = e
        .forbidden
        .iter()
        .filter_map(|w| w.verdict.as_ref().err())
        .map(|v| format!("{}: {}", v.axiom, v.edges.join(" ; ")))
        .collect();
    why.dedup();
    if why.is_empty() {
        "forbidden: no candidate execution produces the outcome".into()
    } else {
        why.join(" | ")
    }
}

fn thread_pos(p: Position) -> ThreadPos {
    ThreadPos {
        gpu: p.gpu,
        cluster: p.cluster,
        cta: p.cta,
    }
}

/// The cycle's external edges, split: those whose two accesses are morally strong (with
/// their annotations) and those whose accesses are not (with the reason).
fn external_edges(cycle: &Cycle) -> (Vec<String>, Vec<String>) {
    let events = cycle.events();
    let n = events.len();
    let pos = cycle.positions();
    let (mut strong, mut weak) = (Vec::new(), Vec::new());
    for (i, e) in cycle.edges().iter().enumerate() {
        if !e.kind.is_external() {
            continue;
        }
        let (a, b) = (events[i], events[(i + 1) % n]);
        let (pa, pb) = (thread_pos(pos[a.thread]), thread_pos(pos[b.thread]));
        let scope = |s: Sem| match s {
            Sem::Weak => None,
            Sem::Volatile => Some(models::vocab::Scope::Sys),
            Sem::Relaxed(s) | Sem::Acquire(s) | Sem::Release(s) => Some(s),
        };
        let why = match (scope(a.ann.sem), scope(b.ann.sem)) {
            (None, _) => Some(format!("P{}'s access is weak", a.thread)),
            (_, None) => Some(format!("P{}'s access is weak", b.thread)),
            (Some(sa), Some(sb)) => {
                if !pa.includes(sa, &pb) {
                    Some(format!(
                        "P{}'s .{} does not include P{}",
                        a.thread,
                        sa.name(),
                        b.thread
                    ))
                } else if !pb.includes(sb, &pa) {
                    Some(format!(
                        "P{}'s .{} does not include P{}",
                        b.thread,
                        sb.name(),
                        a.thread
                    ))
                } else if a.ann.proxy != b.ann.proxy {
                    let name = |p: Proxy| p.name();
                    Some(format!(
                        "{} and {} proxies",
                        name(a.ann.proxy),
                        name(b.ann.proxy)
                    ))
                } else {
                    None
                }
            }
        };
        match why {
            Some(w) => weak.push(format!("{} not morally strong ({w})", e.kind)),
            None => strong.push(format!(
                "{} morally strong (P{} {} to P{} {})",
                e.kind, a.thread, a.ann, b.thread, b.ann
            )),
        }
    }
    (strong, weak)
}
