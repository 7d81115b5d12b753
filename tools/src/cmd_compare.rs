//! `ptxemu compare`: hardware histograms against the model.
//!
//! Contract: `ptxemu compare [--model M] [--tests DIR]... [--campaign DIR] LOG...`. A LOG is a litmus7-format
//! log (ours or herdtools7's; several tests per log are fine) or a harness JSON histogram
//! (`*.json`). Each logged test is found by its name: `NAME.litmus` beside the log, then under
//! each `--tests` folder (recursively; a harness name `FOLDER-NAME` also matches
//! `FOLDER/NAME.litmus`), then any litmus file there whose header names it. Per test it
//! reports (a) observed outcomes the model forbids, each with the violated axiom and its
//! cycle, and (b) allowed outcomes never observed, with the instances run; observed outcomes
//! carry the chance that a rerun of the same size shows them again (1 − e^−n). Exit status: 1
//! when some observed outcome is forbidden; otherwise 2 when a log or test could not be read,
//! else 0. `--campaign DIR` merges the logs per test and device first and writes the
//! campaign's summary (`cmd_campaign`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use litmus::compare::{
    compare, parse_histogram_json, parse_log, rerun_chance, state_text, Observed,
};

/// Arguments of `ptxemu compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The memory model: ptx-v7.5 (default), ptx-v6.0 or sc.
    #[arg(long, default_value = "ptx-v7.5")]
    model: String,
    /// Folders searched (recursively) for the logged tests.
    #[arg(long = "tests", value_name = "DIR")]
    tests: Vec<PathBuf>,
    /// Print only tests with forbidden outcomes and the summary.
    #[arg(long, short)]
    quiet: bool,
    /// Merge the logs per test and device (the shards of a campaign, several machines) and
    /// write the campaign's summary to DIR/campaign.json and DIR/campaign.html (per test:
    /// forbidden outcomes observed with their cycle, allowed outcomes never observed; per
    /// relaxation: the rate the cycle's outcome was seen); print it instead of each test.
    #[arg(long, value_name = "DIR")]
    pub(crate) campaign: Option<PathBuf>,
    /// litmus7-format logs or harness JSON histograms.
    #[arg(required = true, value_name = "LOG")]
    logs: Vec<PathBuf>,
}

/// Finds litmus files by test name under the `--tests` folders, building the index once.
pub(crate) struct Finder<'a> {
    pub(crate) dirs: &'a [PathBuf],
    pub(crate) files: Option<Vec<PathBuf>>,
    pub(crate) by_header: Option<HashMap<String, PathBuf>>,
}

impl Finder<'_> {
    fn files(&mut self) -> &[PathBuf] {
        if self.files.is_none() {
            let mut all = Vec::new();
            for d in self.dirs {
                if let Ok(f) = litmus::litmus_files(d) {
                    all.extend(f);
                }
            }
            self.files = Some(all);
        }
        self.files.as_deref().unwrap_or(&[])
    }

    pub(crate) fn find(&mut self, log: &Path, name: &str) -> Option<PathBuf> {
        let beside = log
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!("{name}.litmus"));
        if beside.is_file() {
            return Some(beside);
        }
        let want = format!("{name}.litmus");
        let by_path = self.files().iter().find(|f| {
            let file = f.file_name().map(|x| x.to_string_lossy().into_owned());
            let folder = f
                .parent()
                .and_then(|d| d.file_name())
                .map(|x| x.to_string_lossy().into_owned());
            file.as_deref() == Some(want.as_str())
                || matches!((&folder, &file), (Some(d), Some(fl)) if format!("{d}-{fl}") == want)
        });
        if let Some(f) = by_path {
            return Some(f.clone());
        }
        if self.by_header.is_none() {
            let mut map = HashMap::new();
            for f in self.files().to_vec() {
                if let Ok(Ok(t)) = crate::bounded::read_text(&f).map(|s| litmus::parse(&s)) {
                    map.entry(t.name).or_insert(f);
                }
            }
            self.by_header = Some(map);
        }
        self.by_header.as_ref()?.get(name).cloned()
    }
}

pub(crate) fn read_log(path: &Path) -> Result<Vec<Observed>, String> {
    let text = crate::bounded::read_text(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if path.extension().is_some_and(|x| x == "json") {
        parse_histogram_json(&text)
            .map(|o| vec![o])
            .map_err(|e| format!("{}: {e}", path.display()))
    } else {
        let v = parse_log(&text).map_err(|e| format!("{}:{e}", path.display()))?;
        if v.is_empty() {
            return Err(format!("{}: no `Test` section", path.display()));
        }
        Ok(v)
    }
}

/// Runs the subcommand.
pub fn run(a: &CompareArgs) -> Result<ExitCode> {
    let ro = crate::model_arg::run_options(&a.model)?;
    if let Some(dir) = &a.campaign {
        return crate::cmd_campaign::run(&a.tests, &a.logs, dir, &ro);
    }
    let mut finder = Finder {
        dirs: &a.tests,
        files: None,
        by_header: None,
    };
    let (mut tests, mut bad_tests, mut errors, mut unobserved_tests) = (0, 0, 0, 0);
    for log in &a.logs {
        let observed = match read_log(log) {
            Ok(o) => o,
            Err(e) => {
                errln!("ptxemu compare: {e}");
                errors += 1;
                continue;
            }
        };
        for obs in observed {
            let Some(file) = finder.find(log, &obs.name) else {
                let hint = if a.tests.is_empty() {
                    " (no --tests folder was given: name the folder of the litmus files, e.g. --tests litmus/tests/library)"
                } else {
                    ""
                };
                errln!(
                    "ptxemu compare: {}: test `{}` not found beside the log or under --tests{hint}",
                    log.display(),
                    obs.name
                );
                errors += 1;
                continue;
            };
            let parsed = crate::bounded::read_text(&file)
                .map_err(|e| e.to_string())
                .and_then(|s| litmus::parse(&s).map_err(|e| e.to_string()));
            let test = match parsed {
                Ok(t) => t,
                Err(e) => {
                    errln!("ptxemu compare: {}:{e}", file.display());
                    errors += 1;
                    continue;
                }
            };
            let c = match compare(&test, &obs, &ro) {
                Ok(c) => c,
                Err(e) => {
                    errln!("ptxemu compare: {} ({}): {e}", obs.name, log.display());
                    errors += 1;
                    continue;
                }
            };
            tests += 1;
            if !c.forbidden.is_empty() {
                bad_tests += 1;
            }
            if !c.unobserved.is_empty() {
                unobserved_tests += 1;
            }
            if a.quiet && c.forbidden.is_empty() {
                continue;
            }
            let verdict = if c.forbidden.is_empty() {
                "every observed outcome is allowed".to_string()
            } else {
                format!("{} observed outcome(s) FORBIDDEN", c.forbidden.len())
            };
            outln!(
                "== {} ({}, {}): {} instances{}{}: {verdict}",
                obs.name,
                file.display(),
                ro.model.name(),
                c.instances,
                if obs.abandoned > 0 {
                    format!(" (+{} abandoned)", obs.abandoned)
                } else {
                    String::new()
                },
                obs.device
                    .as_ref()
                    .map_or(String::new(), |d| format!(" on {d}"))
            );
            for f in &c.forbidden {
                outln!(
                    "  FORBIDDEN, observed {}: {}",
                    f.count,
                    state_text(&f.state)
                );
                for w in &f.why {
                    outln!("      {w}");
                }
            }
            for (s, n, why) in &c.unjudged {
                outln!("  not judged, observed {n}: {}: {why}", state_text(s));
            }
            for (s, n) in &c.allowed {
                outln!(
                    "  allowed, observed {n}: {} (a rerun sees it with chance {:.3})",
                    state_text(s),
                    rerun_chance(*n)
                );
            }
            for s in &c.unobserved {
                outln!(
                    "  allowed, never observed in {} instances: {}",
                    c.instances,
                    state_text(s)
                );
            }
        }
    }
    outln!(
        "{tests} test(s) compared with {}: {bad_tests} with forbidden outcomes observed, {unobserved_tests} with allowed outcomes never observed{}",
        ro.model.name(),
        if errors > 0 {
            format!(", {errors} could not be compared")
        } else {
            String::new()
        }
    );
    Ok(if bad_tests > 0 {
        ExitCode::from(1)
    } else if errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
