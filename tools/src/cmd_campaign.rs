//! `ptxemu compare --campaign DIR`: the logs of a campaign (the shards of a job array, several
//! machines) merged per test and device, judged by the model, and summarised in
//! `DIR/campaign.json` and `DIR/campaign.html` ([`litmus::campaign`]), with the forbidden
//! outcomes observed, the count of tests with allowed outcomes never observed and the
//! relaxations printed. Exit status as `compare`'s: 1 when some observed outcome is
//! forbidden; otherwise 2 when a log or test could not be read or merged, else 0.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use litmus::campaign::{campaign, merge, summarise_test, to_html, to_json, to_text};
use litmus::compare::Observed;
use litmus::run::RunOptions;

use crate::cmd_compare::{read_log, Finder};

/// Runs the campaign summary.
pub fn run(tests: &[PathBuf], logs: &[PathBuf], dir: &Path, ro: &RunOptions) -> Result<ExitCode> {
    let mut errors = 0usize;
    let mut read: Vec<(String, Observed)> = Vec::new();
    // Where each test's logs came from: the first log names the place to look for it.
    let mut first_log: BTreeMap<String, PathBuf> = BTreeMap::new();
    for log in logs {
        match read_log(log) {
            Ok(v) => {
                for o in v {
                    first_log
                        .entry(o.name.clone())
                        .or_insert_with(|| log.clone());
                    read.push((log.display().to_string(), o));
                }
            }
            Err(e) => {
                eprintln!("ptxemu compare: {e}");
                errors += 1;
            }
        }
    }
    let merged = match merge(read) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("ptxemu compare: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut by_test: BTreeMap<String, Vec<Observed>> = BTreeMap::new();
    for o in merged {
        by_test.entry(o.name.clone()).or_default().push(o);
    }
    let mut finder = Finder {
        dirs: tests,
        files: None,
        by_header: None,
    };
    let mut summaries = Vec::new();
    for (name, per_device) in &by_test {
        let log = first_log.get(name).cloned().unwrap_or_default();
        let Some(file) = finder.find(&log, name) else {
            eprintln!(
                "ptxemu compare: {}: test `{name}` not found beside the log or under --tests",
                log.display()
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
                eprintln!("ptxemu compare: {}:{e}", file.display());
                errors += 1;
                continue;
            }
        };
        match summarise_test(&test, &file.display().to_string(), per_device, ro) {
            Ok(s) => summaries.push(s),
            Err(e) => {
                eprintln!("ptxemu compare: {name}: {e}");
                errors += 1;
            }
        }
    }
    let c = campaign(ro.model.name(), summaries);
    std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    let json_path = dir.join("campaign.json");
    let text = serde_json::to_string_pretty(&to_json(&c))?;
    std::fs::write(&json_path, text + "\n").with_context(|| format!("{}", json_path.display()))?;
    let html_path = dir.join("campaign.html");
    std::fs::write(&html_path, to_html(&c)).with_context(|| format!("{}", html_path.display()))?;
    out_text(&to_text(&c));
    let bad = c.tests.iter().filter(|t| t.forbidden_seen()).count();
    outln!(
        "{} test(s) on {} device(s) compared with {}: {bad} with forbidden outcomes observed{}; summary in {} and {}",
        c.tests.len(),
        c.devices.len(),
        ro.model.name(),
        if errors > 0 {
            format!(", {errors} could not be compared")
        } else {
            String::new()
        },
        json_path.display(),
        html_path.display()
    );
    Ok(if bad > 0 {
        ExitCode::from(1)
    } else if errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

fn out_text(s: &str) {
    crate::out::write_bytes(s.as_bytes());
}
