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
    /// Seeds of the runs (the first is in `opts`); one `0` for the default schedule.
    pub seeds: Vec<u64>,
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
        let seeds: Vec<u64> = (0..u64::from(runs)).map(|k| seed.wrapping_add(k)).collect();
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
            seeds,
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
    races: Vec<Seen>,
    runs: u32,
    plan_random: bool,
    seeds: Vec<u64>,
    limit: Option<usize>,
    allow_identical: bool,
    /// Pairs ordered only through Fence-SC order left undecided, over all runs.
    sc_undecided: u64,
}

impl Merged {
    /// Starts from the first run's report.
    pub(crate) fn new(plan: &RacePlan, first: Option<&RaceReport>) -> Merged {
        let mut m = Merged {
            races: Vec::new(),
            runs: 0,
            plan_random: plan.random,
            seeds: plan.seeds.clone(),
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
    /// with the same arguments and variable writes.
    ///
    /// # Errors
    /// The module or arguments cannot be set up again.
    pub(crate) fn explore(
        &mut self,
        plan: &RacePlan,
        file: &Path,
        specs: &[ArgSpec],
        named: &[(String, ArgSpec)],
        sets: &[String],
        cfg: &LaunchConfig,
    ) -> Result<()> {
        for &seed in plan.seeds.iter().skip(1) {
            let mut loaded = launch::load(file)?;
            let writes = sets
                .iter()
                .map(|s| launch::var_write(&loaded, s, None))
                .collect::<Result<Vec<_>>>()?;
            let machine = &mut loaded.machine;
            let laid = crate::cmd_run::lay_out(specs, named, |contents, label| {
                let addr = machine.alloc(contents.len() as u64, label);
                if let Some(bytes) = contents.bytes() {
                    machine.write(addr, bytes);
                }
                addr
            })?;
            for w in &writes {
                launch::apply_var_write(machine, w)?;
            }
            let mut c = cfg.clone();
            if let Some(o) = &mut c.race {
                if plan.random {
                    o.schedule = Schedule::Random(seed);
                }
            }
            let report = launch::launch(machine, &c, &laid.values)?;
            self.add(report.races.as_ref());
        }
        Ok(())
    }

    fn seen(&self, s: &Seen) -> &'static str {
        if s.runs == self.runs {
            "every"
        } else {
            "some"
        }
    }

    /// The report on standard error; `context` (empty for a single launch) names a plan's
    /// step and launch: each race (at most the limit), then the summary line.
    pub(crate) fn print(&self, context: &str) {
        let shown = self.limit.unwrap_or(usize::MAX).min(self.races.len());
        let n = self.races.len();
        for (i, s) in self.races.iter().take(shown).enumerate() {
            let under = if s.race.fence_sc_dependent {
                " (under another Fence-SC order)"
            } else {
                ""
            };
            eprintln!(
                "ptxemu: {context}--race: data race {} of {n}{under}, {} racing access pair{}:",
                i + 1,
                s.race.count,
                plural(s.race.count)
            );
            eprintln!("{}", s.race);
            eprintln!(
                "  seen:   on {} explored schedule ({} of {} runs)",
                self.seen(s),
                s.runs,
                self.runs
            );
        }
        eprintln!("ptxemu: {context}{}", self.summary(shown));
    }

    /// The one-line summary (`shown`: races printed above it).
    fn summary(&self, shown: usize) -> String {
        let sched = if self.plan_random {
            format!(
                "schedule random, seeds {}..={}",
                self.seeds.first().copied().unwrap_or(0),
                self.seeds.last().copied().unwrap_or(0)
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
            "seeds": self.seeds,
            "runs": self.runs,
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
