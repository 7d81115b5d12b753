//! Checking a launch plan against its module, then running it in one process.
//!
//! The check resolves every name (kernels, buffers, module variables), every argument against
//! its kernel's parameters, every size and every input file before the first step runs, so a
//! bad plan is refused (exit status 2) with nothing done. Running then only launches, copies
//! and dumps; a fault stops the plan at that launch (exit status 1), naming the step, the
//! round and the launch's index.

use std::path::{Path, PathBuf};

use anyhow::Result;
use emu::exec::symbols::ModuleVar;
use emu::exec::LaunchConfig;
use serde_json::{json, Value as Json};

use super::format::{path_text, LaunchStep, Plan, PlanArg, Step, StepKind, Until};
use crate::argspec::{ArgSpec, BufRef, ElemType};
use crate::cmd_run::Checks;
use crate::launch::{self, refuse, ArgShape, Loaded, VarWrite};

/// A device buffer of the plan: named, or an inline argument of one launch step.
struct Buffer {
    /// Its name (`None` for an inline argument).
    name: Option<String>,
    /// What fault reports call it.
    label: String,
    /// Element type.
    ty: ElemType,
    /// Element count.
    count: usize,
    /// Initial bytes (an inline argument gets them again at each launch).
    init: Vec<u8>,
    /// Its address once allocated.
    addr: u64,
}

/// A launch argument, resolved.
enum Arg {
    /// Scalar bytes.
    Scalar(Vec<u8>),
    /// A buffer's address plus a byte offset inside it.
    Buffer(usize, u64),
    /// A tensor map or a by-value struct, finished at each launch from the addresses of the
    /// buffers it names (`refs`: each name's buffer and byte offset).
    Made {
        spec: ArgSpec,
        refs: Vec<(BufRef, usize, u64)>,
    },
}

/// A step, checked.
enum Action {
    Launch {
        cfg: LaunchConfig,
        args: Vec<Arg>,
    },
    Set(VarWrite),
    Write {
        buffer: usize,
        bytes: Vec<u8>,
    },
    Repeat {
        until: Rounds,
        steps: Vec<CheckedStep>,
    },
    Dump {
        buffer: usize,
        path: PathBuf,
    },
    DumpVar {
        var: ModuleVar,
        path: PathBuf,
    },
}

/// A checked step and its position.
struct CheckedStep {
    at: String,
    action: Action,
}

/// A checked repeat condition.
enum Rounds {
    Times(u64),
    WhileNonzero { buffer: usize, max: u64 },
}

/// A plan checked against its module, ready to run.
pub(crate) struct Program {
    /// Buffers, named ones first in the order written.
    buffers: Vec<Buffer>,
    steps: Vec<CheckedStep>,
}

impl Program {
    /// The device memory the plan holds at its largest (for `--memory-limit`): every buffer,
    /// and the launch that needs the most besides them.
    pub fn memory_parts(
        &self,
        machine: &emu::exec::Machine,
        checks: &Checks,
    ) -> Vec<(String, u64)> {
        fn walk(steps: &[CheckedStep], f: &mut dyn FnMut(&LaunchConfig)) {
            for s in steps {
                match &s.action {
                    Action::Launch { cfg, .. } => f(cfg),
                    Action::Repeat { steps, .. } => walk(steps, f),
                    _ => {}
                }
            }
        }
        let total = |p: &[(String, u64)]| p.iter().fold(0u64, |t, (_, b)| t.saturating_add(*b));
        let mut worst: Vec<(String, u64)> = Vec::new();
        walk(&self.steps, &mut |base| {
            let cfg = checks.config(&base.kernel, base.grid, base.block, base.dynamic_shared);
            if let Some(p) = machine.footprint(&cfg) {
                if total(&p) > total(&worst) {
                    worst = p;
                }
            }
        });
        let mut parts: Vec<(String, u64)> = self
            .buffers
            .iter()
            .map(|b| (b.label.clone(), b.init.len() as u64))
            .collect();
        parts.extend(worst);
        parts
    }
}

fn bad(at: &str, kind: &str, message: impl std::fmt::Display) -> anyhow::Error {
    refuse("plan", format!("step {at} ({kind}): {message}"))
}

/// Checks a plan against its loaded module.
///
/// # Errors
/// The first problem, naming its step: an unknown kernel, buffer or variable, arguments that
/// do not match the kernel's parameters, a launch shape CUDA refuses, a size mismatch, an
/// unreadable input file.
pub(crate) fn check(plan: &Plan, loaded: &Loaded) -> Result<Program> {
    let mut buffers = Vec::new();
    for (name, spec) in &plan.buffers {
        let ArgSpec::Buffer { ty, count, .. } = spec else {
            continue;
        };
        let init = spec
            .buffer_bytes()
            .map_err(|e| refuse("plan", format!("buffer `{name}`: {e}")))?;
        buffers.push(Buffer {
            name: Some(name.clone()),
            label: format!("buffer `{name}`"),
            ty: *ty,
            count: *count,
            init,
            addr: 0,
        });
    }
    let steps = check_steps(&plan.steps, &plan.dir, loaded, &mut buffers)?;
    Ok(Program { buffers, steps })
}

fn named(buffers: &[Buffer], name: &str) -> Option<usize> {
    buffers.iter().position(|b| b.name.as_deref() == Some(name))
}

fn check_steps(
    steps: &[Step],
    dir: &Path,
    loaded: &Loaded,
    buffers: &mut Vec<Buffer>,
) -> Result<Vec<CheckedStep>> {
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        let at = path_text(&s.at);
        let unknown = |kind: &str, name: &str, buffers: &[Buffer]| {
            let names: Vec<&str> = buffers.iter().filter_map(|b| b.name.as_deref()).collect();
            bad(
                &at,
                kind,
                format!(
                    "no buffer named `{name}` (buffers: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            )
        };
        let action = match &s.kind {
            StepKind::Launch(l) => check_launch(l, &at, loaded, buffers)?,
            StepKind::Set(text) => Action::Set(
                launch::var_write(loaded, text, Some(dir))
                    .map_err(|e| bad(&at, "set", format!("{e:#}")))?,
            ),
            StepKind::Write { buffer, spec } => {
                let Some(b) = named(buffers, buffer) else {
                    return Err(unknown("write", buffer, buffers));
                };
                let bytes = spec.buffer_bytes().map_err(|e| bad(&at, "write", e))?;
                let have = buffers[b].init.len();
                if bytes.len() != have {
                    return Err(bad(
                        &at,
                        "write",
                        format!(
                            "`{buffer}` is {have} bytes but {spec} is {} bytes; a write replaces the whole buffer",
                            bytes.len()
                        ),
                    ));
                }
                Action::Write { buffer: b, bytes }
            }
            StepKind::Repeat { until, steps } => {
                let until = match until {
                    Until::Times(n) => Rounds::Times(*n),
                    Until::WhileNonzero { buffer, max } => match named(buffers, buffer) {
                        Some(b) => Rounds::WhileNonzero {
                            buffer: b,
                            max: *max,
                        },
                        None => return Err(unknown("repeat", buffer, buffers)),
                    },
                };
                let steps = check_steps(steps, dir, loaded, buffers)?;
                Action::Repeat { until, steps }
            }
            StepKind::Dump { buffer, path } => match named(buffers, buffer) {
                Some(b) => Action::Dump {
                    buffer: b,
                    path: path.clone(),
                },
                None => return Err(unknown("dump", buffer, buffers)),
            },
            StepKind::DumpVar(text) => {
                let (var, path) = launch::var_dump(loaded, text)
                    .map_err(|e| bad(&at, "dump_var", format!("{e:#}")))?;
                Action::DumpVar { var, path }
            }
        };
        out.push(CheckedStep { at, action });
    }
    Ok(out)
}

/// The buffers a tensor map or by-value struct argument names, each as (ref, buffer index,
/// byte offset): a name is a plan buffer, a number a buffer argument of the same launch.
fn refs_of(
    spec: &ArgSpec,
    args: &[Arg],
    buffers: &[Buffer],
    own: Option<usize>,
) -> Result<Vec<(BufRef, usize, u64)>, String> {
    let wanted: Vec<&BufRef> = match spec {
        ArgSpec::TensorMap(t) => t.buf.iter().collect(),
        ArgSpec::ByValue(b) => b.buffers(),
        ArgSpec::Scalar { .. } | ArgSpec::Buffer { .. } => Vec::new(),
    };
    let mut out = Vec::new();
    for r in wanted {
        let (b, off) = match r {
            BufRef::Name(n) => (
                named(buffers, n).ok_or_else(|| format!("no buffer named `{n}`"))?,
                0,
            ),
            BufRef::Index(k) => match args.get(*k) {
                Some(Arg::Buffer(b, off)) => (*b, *off),
                Some(_) => return Err(format!("argument {k} is not a buffer")),
                None => {
                    return Err(format!(
                        "argument {k} is not a buffer argument before this one (buffer arguments a struct or map names come first)"
                    ))
                }
            },
        };
        out.push((r.clone(), b, off));
    }
    if let (ArgSpec::TensorMap(t), Some(b)) = (spec, own) {
        if t.buf.is_none() {
            out.push((BufRef::Index(usize::MAX), b, 0));
        }
    }
    Ok(out)
}

fn check_launch(
    l: &LaunchStep,
    at: &str,
    loaded: &Loaded,
    buffers: &mut Vec<Buffer>,
) -> Result<Action> {
    let fail = |e: anyhow::Error| bad(at, "launch", format!("{e:#}"));
    let mut shapes = Vec::with_capacity(l.args.len());
    let mut args = Vec::with_capacity(l.args.len());
    for (i, a) in l.args.iter().enumerate() {
        match a {
            PlanArg::Named { name, offset } => {
                let Some(b) = named(buffers, name) else {
                    return Err(bad(
                        at,
                        "launch",
                        format!("argument {i}: no buffer named `{name}`"),
                    ));
                };
                let len = buffers[b].init.len() as u64;
                if *offset >= len {
                    return Err(bad(
                        at,
                        "launch",
                        format!(
                            "argument {i}: offset {offset} is not inside `{name}` ({len} bytes)"
                        ),
                    ));
                }
                shapes.push(ArgShape::Buffer);
                args.push(Arg::Buffer(b, *offset));
            }
            PlanArg::Spec(spec) => {
                shapes.push(ArgShape::of(spec));
                match spec {
                    ArgSpec::Scalar { bytes, .. } => args.push(Arg::Scalar(bytes.clone())),
                    ArgSpec::TensorMap(_) | ArgSpec::ByValue(_) => {
                        let own = match spec {
                            ArgSpec::TensorMap(t) => match &t.data {
                                Some(d) => {
                                    let init = d.buffer_bytes().map_err(|e| {
                                        bad(at, "launch", format!("argument {i}: data=: {e}"))
                                    })?;
                                    let ArgSpec::Buffer { ty, count, .. } = **d else {
                                        return Err(bad(
                                            at,
                                            "launch",
                                            format!("argument {i}: data= is a buffer"),
                                        ));
                                    };
                                    buffers.push(Buffer {
                                        name: None,
                                        label: format!("tensor of argument {i} of step {at}"),
                                        ty,
                                        count,
                                        init,
                                        addr: 0,
                                    });
                                    Some(buffers.len() - 1)
                                }
                                None => None,
                            },
                            _ => None,
                        };
                        let refs = refs_of(spec, &args, buffers, own)
                            .map_err(|e| bad(at, "launch", format!("argument {i}: {e}")))?;
                        if let ArgSpec::ByValue(b) = spec {
                            // Read a raw-bytes file now: a bad one is refused before the plan runs.
                            if let crate::argspec::structs::Base::Raw(r) = &b.base {
                                r.buffer_bytes()
                                    .map_err(|e| bad(at, "launch", format!("argument {i}: {e}")))?;
                            }
                        }
                        args.push(Arg::Made {
                            spec: spec.clone(),
                            refs,
                        });
                    }
                    ArgSpec::Buffer { ty, count, .. } => {
                        let init = spec
                            .buffer_bytes()
                            .map_err(|e| bad(at, "launch", format!("argument {i}: {e}")))?;
                        buffers.push(Buffer {
                            name: None,
                            label: format!("argument {i} of step {at}"),
                            ty: *ty,
                            count: *count,
                            init,
                            addr: 0,
                        });
                        args.push(Arg::Buffer(buffers.len() - 1, 0));
                    }
                }
            }
        }
    }
    launch::check_args(loaded, &l.kernel, &shapes).map_err(fail)?;
    launch::check_shape(l.grid, l.block).map_err(fail)?;
    loaded
        .machine
        .check_cluster(&l.kernel, l.cluster, l.grid)
        .map_err(|e| bad(at, "launch", format!("cluster: {e}")))?;
    let cfg = LaunchConfig::new(&l.kernel, l.grid, l.block);
    Ok(Action::Launch {
        cfg: LaunchConfig {
            dynamic_shared: l.shared_bytes,
            cluster: l.cluster,
            ..cfg
        },
        args,
    })
}

/// Why a plan stopped early.
pub(crate) enum Stop {
    /// A launch faulted (exit status 1); the message names step, round and launch.
    Fault(Json),
    /// A repeat reached its `max` with its buffer still non-zero (exit status 1).
    NoConvergence(Json),
    /// A step could not be carried out (exit status 2).
    Refused(anyhow::Error, Json),
    /// `--timeout` ran out (exit status 3); the message names where.
    TimedOut(Json),
}

/// The running plan: its machine, buffers and what it has reported.
pub(crate) struct Runner<'a> {
    /// The module and its machine.
    pub loaded: &'a mut Loaded,
    /// The run options.
    pub checks: &'a Checks,
    /// `--json`.
    pub json: bool,
    /// Per-launch `--json` objects so far.
    pub launches: Vec<Json>,
    /// `--set`-like records of the plan's set steps.
    pub sets: Vec<Json>,
    /// Some launch had `--check-nc` conflicts.
    pub nc_conflicts: bool,
    /// `--race`: every launch runs with the detector and reports its own races.
    pub race: Option<&'a crate::race_run::RacePlan>,
    /// Some launch had a data race.
    pub races_found: bool,
    /// When `--timeout` stops the plan.
    pub deadline: Option<std::time::Instant>,
}

impl Runner<'_> {
    /// Allocates every buffer and runs the steps.
    ///
    /// # Errors
    /// The first fault or step that could not be carried out.
    pub fn run(&mut self, prog: &mut Program) -> Result<(), Stop> {
        for b in &mut prog.buffers {
            let machine = &mut self.loaded.machine;
            b.addr = machine.alloc(b.init.len() as u64, &b.label);
            machine.write(b.addr, &b.init);
        }
        let steps = std::mem::take(&mut prog.steps);
        let result = self.steps(&steps, &prog.buffers, None);
        prog.steps = steps;
        result
    }

    fn steps(
        &mut self,
        steps: &[CheckedStep],
        buffers: &[Buffer],
        round: Option<u64>,
    ) -> Result<(), Stop> {
        for s in steps {
            if self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            {
                return Err(self.timed_out(&s.at, round, None));
            }
            self.step(s, buffers, round)?;
        }
        Ok(())
    }

    /// The stop `--timeout` makes at step `at` (in launch `launch`, if one was running).
    fn timed_out(&self, at: &str, round: Option<u64>, launch: Option<usize>) -> Stop {
        let secs = self.checks.timeout().unwrap_or_default().as_secs_f64();
        let round_text = round.map_or(String::new(), |r| format!(", round {r}"));
        let launch_text = launch.map_or(String::new(), |i| format!(", launch {i}"));
        let message = format!(
            "plan stopped by --timeout {secs}s at step {at}{round_text}{launch_text} ({} launch(es) done); no result",
            self.launches.len()
        );
        eprintln!("ptxemu: {message}");
        Stop::TimedOut(json!({
            "kind": "timeout",
            "step": at,
            "round": round,
            "launch": launch,
            "message": message,
        }))
    }

    fn read(&self, b: &Buffer) -> Vec<u8> {
        self.loaded
            .machine
            .read(b.addr, b.init.len() as u64)
            .unwrap_or_default()
    }

    fn step(
        &mut self,
        s: &CheckedStep,
        buffers: &[Buffer],
        round: Option<u64>,
    ) -> Result<(), Stop> {
        let at = &s.at;
        let refused = |e: anyhow::Error| {
            let at_json = json!({"kind": launch::kind_of(&e), "step": at, "round": round, "message": format!("{e:#}")});
            Stop::Refused(
                refuse(launch::kind_of(&e), format!("plan step {at}: {e:#}")),
                at_json,
            )
        };
        match &s.action {
            Action::Launch { cfg, args } => self.launch(at, cfg, args, buffers, round),
            Action::Set(w) => {
                let mut rec =
                    launch::apply_var_write(&mut self.loaded.machine, w).map_err(refused)?;
                rec["step"] = json!(at);
                self.sets.push(rec);
                Ok(())
            }
            Action::Write { buffer, bytes } => {
                self.loaded.machine.write(buffers[*buffer].addr, bytes);
                Ok(())
            }
            Action::Dump { buffer, path } => {
                let bytes = self.read(&buffers[*buffer]);
                std::fs::write(path, bytes).map_err(|e| {
                    refused(refuse(
                        "io",
                        format!("cannot write {}: {e}", path.display()),
                    ))
                })
            }
            Action::DumpVar { var, path } => {
                launch::write_var_dump(&self.loaded.machine, var, path).map_err(refused)
            }
            Action::Repeat { until, steps } => match until {
                Rounds::Times(n) => {
                    for r in 0..*n {
                        self.steps(steps, buffers, Some(r))?;
                    }
                    Ok(())
                }
                Rounds::WhileNonzero { buffer, max } => {
                    let b = &buffers[*buffer];
                    for r in 0..*max {
                        self.steps(steps, buffers, Some(r))?;
                        if self.read(b).iter().all(|&x| x == 0) {
                            return Ok(());
                        }
                    }
                    let name = b.name.as_deref().unwrap_or("?");
                    let message = format!(
                        "plan step {at}: `{name}` is still non-zero after round {} (max {max} rounds)",
                        max.saturating_sub(1)
                    );
                    eprintln!("ptxemu: {message}");
                    Err(Stop::NoConvergence(json!({
                        "kind": "repeat_max",
                        "step": at,
                        "round": max.saturating_sub(1),
                        "buffer": name,
                        "message": message,
                    })))
                }
            },
        }
    }

    fn launch(
        &mut self,
        at: &str,
        base: &LaunchConfig,
        args: &[Arg],
        buffers: &[Buffer],
        round: Option<u64>,
    ) -> Result<(), Stop> {
        let index = self.launches.len();
        let mut cfg = self
            .checks
            .config(&base.kernel, base.grid, base.block, base.dynamic_shared);
        // The launch's `cluster` key, checked against the kernel when the plan was read.
        cfg.cluster = base.cluster;
        cfg.race = self.race.map(|p| p.opts);
        // The plan's time left, not the whole --timeout, bounds each launch.
        cfg.timeout = self
            .deadline
            .map(|d| d.saturating_duration_since(std::time::Instant::now()));
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Arg::Scalar(b) => values.push(b.clone()),
                Arg::Buffer(i, offset) => {
                    let b = &buffers[*i];
                    if b.name.is_none() {
                        self.loaded.machine.write(b.addr, &b.init);
                    }
                    values.push((b.addr + offset).to_le_bytes().to_vec());
                }
                Arg::Made { spec, refs } => {
                    let resolve = |r: &BufRef| -> Result<(u64, usize), String> {
                        let (_, b, off) = refs
                            .iter()
                            .find(|(x, _, _)| x == r)
                            .ok_or_else(|| format!("{r} was not resolved"))?;
                        let buf = &buffers[*b];
                        Ok((buf.addr + off, buf.init.len() - *off as usize))
                    };
                    let made = match spec {
                        ArgSpec::ByValue(b) => b.bytes(&resolve),
                        ArgSpec::TensorMap(t) => {
                            if let Some((_, b, _)) = refs
                                .iter()
                                .find(|(r, _, _)| *r == BufRef::Index(usize::MAX))
                            {
                                let buf = &buffers[*b];
                                self.loaded.machine.write(buf.addr, &buf.init);
                            }
                            let r = t.buf.clone().unwrap_or(BufRef::Index(usize::MAX));
                            resolve(&r).and_then(|b| t.bytes(b))
                        }
                        ArgSpec::Scalar { .. } | ArgSpec::Buffer { .. } => Ok(Vec::new()),
                    };
                    match made {
                        Ok(v) => values.push(v),
                        Err(e) => {
                            let message = format!("plan step {at}: {e}");
                            return Err(Stop::Refused(
                                refuse("arguments", message.clone()),
                                json!({"kind": "arguments", "step": at, "round": round, "message": message}),
                            ));
                        }
                    }
                }
            }
        }
        let round_text = round.map_or(String::new(), |r| format!(", round {r}"));
        let context = format!("plan step {at}{round_text}, launch {index}: ");
        let report = launch::launch(&mut self.loaded.machine, &cfg, &values).map_err(|e| {
            let kind = launch::kind_of(&e);
            let err = json!({"kind": kind, "step": at, "round": round, "launch": index, "message": format!("{e:#}")});
            Stop::Refused(refuse(kind, format!("{context}{e:#}")), err)
        })?;
        if crate::timeout::stopped(&report) {
            if !self.json {
                crate::out::write_bytes(&report.stdout);
            }
            return Err(self.timed_out(at, round, Some(index)));
        }
        let machine = &self.loaded.machine;
        let races = self
            .race
            .map(|p| crate::race_run::Merged::new(p, report.races.as_ref()));
        self.races_found |= races.as_ref().is_some_and(|m| m.fails());
        if self.json {
            let bufs = args
                .iter()
                .enumerate()
                .filter_map(|(i, a)| match a {
                    Arg::Buffer(b, _) => Some((i, &buffers[*b])),
                    Arg::Scalar(_) | Arg::Made { .. } => None,
                })
                .map(|(i, b)| {
                    let mut o = launch::buffer_json(i, b.ty, b.count, b.addr, || self.read(b));
                    if let Some(n) = &b.name {
                        o.insert("name".into(), json!(n));
                    }
                    Json::Object(o)
                })
                .collect();
            let mut o = launch::launch_json(&cfg, &report, bufs, machine, self.checks.trace_tmem);
            o.insert("step".into(), json!(at));
            if let Some(r) = round {
                o.insert("round".into(), json!(r));
            }
            o.insert("launch".into(), json!(index));
            if let Some(m) = &races {
                let (r, s, sum) = m.json();
                o.insert("races".into(), r);
                o.insert("race_schedules".into(), s);
                o.insert("race_summary".into(), sum);
            }
            self.launches.push(Json::Object(o));
        } else {
            self.launches.push(Json::Null);
            launch::print_text(&report, machine, self.checks.trace_tmem);
        }
        if let Some(m) = races.as_ref().filter(|m| m.any()) {
            m.print(&context);
        }
        self.nc_conflicts |= !report.nc_conflicts.is_empty();
        if crate::cmd_run::report_problems(&report, &context) == 1 {
            if let Some(f) = &report.fault {
                return Err(Stop::Fault(json!({
                    "kind": "fault",
                    "step": at,
                    "round": round,
                    "launch": index,
                    "message": format!("{context}{f}"),
                })));
            }
        }
        Ok(())
    }
}
