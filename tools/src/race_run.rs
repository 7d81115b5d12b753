//! `ptxemu run --race`: the options, repeated runs under other schedules, and the report
//! (text on standard error, `races` and `race_schedules` in `--json`).
//!
//! Contract: exit status 1 when any race is found. Each race is reported once per pair of
//! instructions with both accesses (kind, sem, scope, space, thread, CTA, warp, lane, line,
//! instruction, address, bytes), the reason and the count of racing access pairs behind it.
//! `--schedule random --seed S --runs N` runs the launch N times, with seeds S, S+1, …, and
//! says of each race whether it was seen on every run or on some. The text report prints at
//! most `--race-limit N` races (default 100; 0: all) and ends with one line a log can grep:
//! `ptxemu: RACE SUMMARY: P racing instruction pairs (A racing access pairs) in R run(s)
//! (schedule …)`. `--json` has every race, and `race_summary`.

use std::path::Path;

use anyhow::Result;
use clap::Args;
use emu::exec::LaunchConfig;
use emu::race::{Race, RaceOptions, RaceReport, Schedule};
use serde_json::{json, Value as Json};

use crate::argspec::ArgSpec;
use crate::launch;

/// The `--race` options of `ptxemu run`.
#[derive(Args, Debug, Default)]
pub struct RaceArgs {
    /// Detect data races, as the PTX memory model defines them (exit status 1 when any).
    #[arg(long)]
    pub race: bool,
    /// default (the interpreter's order) or random (other CTA and warp interleavings).
    #[arg(long, value_name = "default|random")]
    pub schedule: Option<String>,
    /// The seed of `--schedule random` (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Runs to explore (seeds S, S+1, …; default 1).
    #[arg(long)]
    pub runs: Option<u32>,
    /// Whether bar.warp.sync orders memory among its lanes: on (default) or off.
    #[arg(long, value_name = "on|off")]
    pub race_warp_sync: Option<String>,
    /// Whether fence.sc/membar also act as release/acquire fences in patterns: doc (default,
    /// the PTX document and the Alloy models) or dat3m (fence.sc takes part in Fence-SC only).
    #[arg(long, value_name = "doc|dat3m")]
    pub race_sc_fence: Option<String>,
    /// Fence-SC order: any (default: a pair this run's order of fence.sc alone orders is
    /// checked against every other order the model allows) or run (the order they ran in).
    #[arg(long, value_name = "any|run")]
    pub race_sc_order: Option<String>,
    /// Print at most N races (default 100; 0: every one); `--json` lists all.
    #[arg(long, value_name = "N")]
    pub race_limit: Option<u64>,
    /// Accept races between writes of identical bytes by the lanes of one instruction (every
    /// lane of a warp issuing the same TMA store, as CUTLASS 4.2's epilogue does): still
    /// reported and counted (`identical_lanes` in `--json`), but they do not make the exit
    /// status 1. They are races under the PTX memory model (docs/cutlass.md).
    #[arg(long)]
    pub race_allow_identical: bool,
}

/// Races printed when `--race-limit` is not given.
const DEFAULT_LIMIT: u64 = 100;

/// What the race options ask for.
pub(crate) struct RacePlan {
    /// Options of the first run.
    pub opts: RaceOptions,
    /// The seed of the first run (the others follow it); `--seed`, 1 by default.
    pub first_seed: u64,
    /// How many runs (`--runs`); the seeds are made one run at a time, never listed up front.
    pub runs: u32,
    /// Whether the schedule is random.
    pub random: bool,
    /// Races printed at most (`None`: all).
    pub limit: Option<usize>,
    /// `--race-allow-identical`.
    pub allow_identical: bool,
}

impl RaceArgs {
    /// The plan, or `None` without `--race`.
    ///
    /// # Errors
    /// Bad values, or schedule options without `--race`.
    pub(crate) fn plan(&self) -> Result<Option<RacePlan>> {
        if !self.race {
            let given = self.schedule.is_some()
                || self.seed.is_some()
                || self.runs.is_some()
                || self.race_warp_sync.is_some()
                || self.race_sc_fence.is_some()
                || self.race_sc_order.is_some()
                || self.race_limit.is_some()
                || self.race_allow_identical;
            if given {
                return Err(launch::refuse(
                    "options",
                    "--schedule, --seed, --runs, --race-warp-sync, --race-sc-fence, --race-sc-order, --race-limit and --race-allow-identical need --race",
                ));
            }
            return Ok(None);
        }
        let bad = |what: String| launch::refuse("options", what);
        let random = match self.schedule.as_deref().unwrap_or("default") {
            "default" => false,
            "random" => true,
            o => return Err(bad(format!("--schedule `{o}`: expected default or random"))),
        };
        let warp_sync_orders = match self.race_warp_sync.as_deref().unwrap_or("on") {
            "on" => true,
            "off" => false,
            o => return Err(bad(format!("--race-warp-sync `{o}`: expected on or off"))),
        };
        let sc_fence_in_patterns = match self.race_sc_fence.as_deref().unwrap_or("doc") {
            "doc" => true,
            "dat3m" => false,
            o => return Err(bad(format!("--race-sc-fence `{o}`: expected doc or dat3m"))),
        };
        let any_sc_order = match self.race_sc_order.as_deref().unwrap_or("any") {
            "any" => true,
            "run" => false,
            o => return Err(bad(format!("--race-sc-order `{o}`: expected any or run"))),
        };
        let runs = self.runs.unwrap_or(1);
        if runs == 0 {
            return Err(bad("--runs must be at least 1".into()));
        }
        let seed = self.seed.unwrap_or(1);
        let schedule = if random {
            Schedule::Random(seed)
        } else {
            Schedule::Default
        };
        Ok(Some(RacePlan {
            opts: RaceOptions {
                schedule,
                warp_sync_orders,
                sc_fence_in_patterns,
                any_sc_order,
            },
            first_seed: seed,
            runs,
            random,
            limit: match self.race_limit.unwrap_or(DEFAULT_LIMIT) {
                0 => None,
                n => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            },
            allow_identical: self.race_allow_identical,
        }))
    }
}

/// A race over all runs, with the runs that saw it.
pub(crate) struct Seen {
    race: Race,
    runs: u32,
}

/// The races of every run, merged by pair of instructions.
pub(crate) struct Merged {
    /// The kernel, as the PTX declares it (mangled for C++ kernels).
    kernel: String,
    races: Vec<Seen>,
    runs: u32,
    plan_random: bool,
    first_seed: u64,
    /// The runs asked for (more than `runs` when `--timeout` stopped the exploration).
    asked: u32,
    limit: Option<usize>,
    allow_identical: bool,
    /// Pairs ordered only through Fence-SC order left undecided, over all runs.
    sc_undecided: u64,
}

/// `--timeout` stopped `--runs` before every run was done (exit status 3); how many were
/// done is in the report (`race_schedules`: `runs`, `runs_asked`).
#[derive(Debug)]
pub(crate) struct RunsStopped;

impl Merged {
    /// Starts from the first run's report of `kernel`.
    pub(crate) fn new(plan: &RacePlan, kernel: &str, first: Option<&RaceReport>) -> Merged {
        let mut m = Merged {
            kernel: kernel.to_string(),
            races: Vec::new(),
            runs: 0,
            plan_random: plan.random,
            first_seed: plan.first_seed,
            asked: plan.runs,
            limit: plan.limit,
            allow_identical: plan.allow_identical,
            sc_undecided: 0,
        };
        m.add(first);
        m
    }

    fn add(&mut self, rep: Option<&RaceReport>) {
        self.runs += 1;
        let Some(rep) = rep else { return };
        self.sc_undecided += rep.sc_undecided;
        for r in &rep.races {
            let key = |x: &Race| {
                let (a, b) = (x.first.pc, x.second.pc);
                (a.min(b), a.max(b))
            };
            match self.races.iter_mut().find(|s| key(&s.race) == key(r)) {
                Some(s) => {
                    s.runs += 1;
                    s.race.count += r.count;
                }
                None => self.races.push(Seen {
                    race: r.clone(),
                    runs: 1,
                }),
            }
        }
    }

    /// Racing access pairs over every race and run.
    fn occurrences(&self) -> u64 {
        self.races.iter().map(|s| s.race.count).sum()
    }

    /// Whether any race was found.
    pub(crate) fn any(&self) -> bool {
        !self.races.is_empty()
    }

    /// Whether a race makes the exit status 1: any race, less those of identical bytes by one
    /// instruction's lanes under `--race-allow-identical`.
    pub(crate) fn fails(&self) -> bool {
        self.races
            .iter()
            .any(|s| !(self.allow_identical && s.race.identical_lanes))
    }

    /// Races of identical bytes written by the lanes of one instruction.
    fn identical(&self) -> usize {
        self.races.iter().filter(|s| s.race.identical_lanes).count()
    }

    /// Runs the launch again for each further seed of the plan, on a freshly loaded module
    /// with the same arguments and variable writes, until `deadline` (`--timeout`, counted
    /// from the first run's start): each run gets the time left, and none starts after it.
    /// `Ok(Some(…))` when the deadline stopped the runs.
    ///
    /// # Errors
    /// The module or arguments cannot be set up again.
    pub(crate) fn explore(
        &mut self,
        plan: &RacePlan,
        file: &Path,
        (specs, named): (&[ArgSpec], &[(String, ArgSpec)]),
        sets: &[String],
        cfg: &LaunchConfig,
        bounds: RunBounds,
    ) -> Result<Option<RunsStopped>> {
        let RunBounds { limit, deadline } = bounds;
        for k in 1..plan.runs {
            let seed = plan.first_seed.wrapping_add(u64::from(k));
            let left = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
            if left.is_some_and(|l| l.is_zero()) {
                return Ok(Some(self.stopped()));
            }
            let mut loaded = launch::load(file, limit)?;
            let writes = sets
                .iter()
                .map(|s| launch::var_write(&loaded, s, None))
                .collect::<Result<Vec<_>>>()?;
            let (machine, module) = (&mut loaded.machine, &loaded.module);
            let laid = crate::cmd_run::lay_out(specs, named, |contents, label| {
                crate::cmd_run::place_on(machine, contents, label)
            })?;
            for w in &writes {
                launch::apply_var_write(machine, w)?;
            }
            let mut c = cfg.clone();
            c.timeout = left;
            if let Some(o) = &mut c.race {
                if plan.random {
                    o.schedule = Schedule::Random(seed);
                }
            }
            let report = launch::launch(machine, module, &c, &laid.values)?;
            if crate::timeout::stopped(&report) {
                return Ok(Some(self.stopped()));
            }
            self.add(report.races.as_ref());
        }
        Ok(None)
    }

    /// The stop `--timeout` made, reported on standard error.
    fn stopped(&self) -> RunsStopped {
        errln!(
            "ptxemu: --race: --timeout stopped --runs after {} of {} run(s); the races of the runs done follow, but the exploration did not finish",
            self.runs, self.asked
        );
        RunsStopped
    }

    /// The seeds of the runs done.
    fn seeds(&self) -> impl Iterator<Item = u64> + '_ {
        (0..u64::from(self.runs)).map(|k| self.first_seed.wrapping_add(k))
    }

    fn seen(&self, s: &Seen) -> &'static str {
        if s.runs == self.runs {
            "every"
        } else {
            "some"
        }
    }

    /// The report on standard error; `context` (empty for a single launch) names a plan's
    /// step and launch: the kernel (demangled) when there are races, each race (at most the
    /// limit), then the summary line.
    pub(crate) fn print(&self, context: &str) {
        let shown = self.limit.unwrap_or(usize::MAX).min(self.races.len());
        let n = self.races.len();
        if n > 0 {
            let shown_name = emu::ir::kernel_name::display(&self.kernel);
            if shown_name == self.kernel {
                eprintln!("ptxemu: {context}--race: kernel {shown_name}");
            } else {
                eprintln!(
                    "ptxemu: {context}--race: kernel {shown_name} ({})",
                    self.kernel
                );
            }
        }
        for (i, s) in self.races.iter().take(shown).enumerate() {
            let under = if s.race.fence_sc_dependent {
                " (under another Fence-SC order)"
            } else {
                ""
            };
            errln!(
                "ptxemu: {context}--race: data race {} of {n}{under}, {} racing access pair{}:",
                i + 1,
                s.race.count,
                plural(s.race.count)
            );
            errln!("{}", s.race);
            errln!(
                "  seen:   on {} explored schedule ({} of {} runs)",
                self.seen(s),
                s.runs,
                self.runs
            );
        }
        errln!("ptxemu: {context}{}", self.summary(shown));
    }

    /// The one-line summary (`shown`: races printed above it).
    fn summary(&self, shown: usize) -> String {
        let sched = if self.plan_random {
            format!(
                "schedule random, seeds {}..={}",
                self.first_seed,
                self.first_seed
                    .wrapping_add(u64::from(self.runs.saturating_sub(1)))
            )
        } else {
            "schedule default".to_string()
        };
        let n = self.races.len();
        let occ = self.occurrences();
        let mut line = format!(
            "RACE SUMMARY: {n} racing instruction pair{} ({occ} racing access pair{}) in {} run{} ({sched})",
            plural(n as u64),
            plural(occ),
            self.runs,
            plural(u64::from(self.runs)),
        );
        if shown < n {
            line.push_str(&format!(
                "; {shown} printed (--race-limit {shown}; --json lists all)"
            ));
        }
        match self.identical() {
            0 => {}
            n => line.push_str(&format!(
                "; {n} of identical bytes written by the lanes of one instruction{}",
                if self.allow_identical {
                    ", allowed by --race-allow-identical"
                } else {
                    ""
                }
            )),
        }
        if self.sc_undecided > 0 {
            line.push_str(&format!(
                "; {} access pair{} ordered only by this run's Fence-SC order left undecided (too many fence.sc)",
                self.sc_undecided,
                plural(self.sc_undecided)
            ));
        }
        line
    }

    /// `races`, `race_schedules` and `race_summary` for `--json`.
    pub(crate) fn json(&self) -> (Json, Json, Json) {
        let races = self
            .races
            .iter()
            .map(|s| {
                let mut j = emu::race::json::race(&s.race);
                j["seen"] = json!(self.seen(s));
                j["seen_runs"] = json!(s.runs);
                j["runs"] = json!(self.runs);
                j
            })
            .collect();
        let sched = json!({
            "schedule": if self.plan_random { "random" } else { "default" },
            "seeds": self.seeds().collect::<Vec<_>>(),
            "runs": self.runs,
            "runs_asked": self.asked,
            "identical_lanes": self.identical(),
            "allow_identical": self.allow_identical,
        });
        let summary = json!({
            "instruction_pairs": self.races.len(),
            "access_pairs": self.occurrences(),
            "runs": self.runs,
            "sc_undecided": self.sc_undecided,
        });
        (Json::Array(races), sched, summary)
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What bounds the further runs of a race exploration: the device memory limit of each
/// freshly loaded module (`--memory-limit`) and the deadline none starts after (`--timeout`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunBounds {
    /// The memory limit, in bytes, or none.
    pub(crate) limit: Option<u64>,
    /// The instant after which no run starts, or none.
    pub(crate) deadline: Option<std::time::Instant>,
}
