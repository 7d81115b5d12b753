//! `ptxemu run --plan FILE`: a program of several kernel launches over device memory that
//! persists between them, run in one process (docs/plan-format.md is the contract).
//!
//! [`mod@format`] reads the JSON into a typed plan; [`exec`] checks it against the module (so a
//! bad plan is refused before anything runs) and runs it, each launch exactly as a single
//! `ptxemu run` launches and reports it (`crate::launch`).

pub(crate) mod exec;
pub(crate) mod format;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::{json, Value as Json};

use crate::cmd_run::{Checks, RunArgs};
use crate::launch::{self, refuse};
use exec::{Runner, Stop};

/// Runs a plan; `a.file`, when given, replaces the plan's module.
///
/// # Errors
/// A refusal before anything ran (unreadable or bad plan, bad module): the caller reports
/// it. Once steps run, problems are reported here, in the exit status and `--json`.
pub(crate) fn run(a: &RunArgs, plan_path: &Path) -> Result<ExitCode> {
    let checks = Checks::of(a)?;
    let race = a.race.plan()?;
    if race.as_ref().is_some_and(|p| p.runs > 1) {
        return Err(refuse(
            "options",
            "--runs with --plan: a plan's launches change its buffers, so they cannot be run again; explore one seed per run",
        ));
    }
    let in_plan = |e: anyhow::Error| match launch::kind_of(&e) {
        "io" => e,
        kind => refuse(kind, format!("{}: {e:#}", plan_path.display())),
    };
    let plan = format::read(plan_path, a.plan_root.as_deref()).map_err(in_plan)?;
    let module = match (&a.file, &plan.module) {
        (Some(f), _) => f.clone(),
        (None, Some(m)) => m.clone(),
        (None, None) => {
            return Err(refuse(
                "plan",
                format!(
                    "{}: the plan names no `module` and no PTX file was given",
                    plan_path.display()
                ),
            ))
        }
    };
    let mut loaded = launch::load_on(
        &module,
        a.gpu.map(crate::difftest::record::Gpu::sm),
        crate::memlimit::limit(a.memory_limit),
    )?;
    let mut prog = exec::check(&plan, &loaded).map_err(in_plan)?;
    crate::memlimit::check(
        crate::memlimit::limit(a.memory_limit),
        &prog.memory_parts(&loaded.machine, &checks),
    )?;
    if a.json {
        // The plan object is opened now and its launches written as they complete.
        out!(
            "{{\"plan\":{},\"module\":{},\"launches\":[",
            json!(plan_path.display().to_string()),
            json!(module.display().to_string())
        );
    }
    let mut runner = Runner {
        loaded: &mut loaded,
        checks: &checks,
        json: a.json,
        launches: 0,
        sets: Vec::new(),
        sets_omitted: 0,
        nc_conflicts: false,
        race: race.as_ref(),
        races_found: false,
        deadline: checks
            .timeout()
            .and_then(|t| std::time::Instant::now().checked_add(t)),
    };
    let result = runner.run(&mut prog);
    let (code, error) = match result {
        Ok(()) => (u8::from(runner.nc_conflicts || runner.races_found), None),
        Err(Stop::Fault(e) | Stop::NoConvergence(e)) => (1, Some(e)),
        Err(Stop::TimedOut(e)) => (3, Some(e)),
        Err(Stop::Refused(err, e)) => {
            errln!("ptxemu: {err:#}");
            (2, Some(e))
        }
    };
    if a.json {
        out!(
            "],\"sets\":{}",
            Json::Array(std::mem::take(&mut runner.sets))
        );
        if runner.sets_omitted > 0 {
            out!(",\"sets_omitted\":{}", runner.sets_omitted);
        }
        if let Some(e) = error {
            out!(",\"error\":{e}");
        }
        outln!("}}");
    }
    Ok(ExitCode::from(code))
}
