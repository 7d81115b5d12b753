//! Checking a launch plan against its module, then running it in one process.
//!
//! The check resolves every name (kernels, buffers, module variables), every argument against
//! its kernel's parameters, every size and every input file before the first step runs, so a
//! bad plan is refused (exit status 2) with nothing done. Running then only launches, copies
//! and dumps; a fault stops the plan at that launch (exit status 1), naming the step, the
//! round and the launch's index.

use std::path::PathBuf;

use anyhow::Result;
use emu::exec::symbols::ModuleVar;
use emu::exec::LaunchConfig;
use serde_json::{json, Value as Json};

use super::format::{path_text, LaunchStep, Plan, PlanArg, Step, StepKind, Until};
use crate::argspec::{ArgSpec, BufRef, Contents, ElemType};
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
    /// Initial contents (an inline argument gets them again at each launch); zero and filled
    /// buffers are not materialised in host memory.
    init: Contents,
    /// Its address once allocated.
    addr: u64,
}

impl Buffer {
    /// Its size in bytes.
    fn len(&self) -> u64 {
        self.init.len() as u64
    }
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
        contents: Contents,
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
            if let Some(p) = machine.footprint(&checks.apply(base.clone())) {
                if total(&p) > total(&worst) {
                    worst = p;
                }
            }
        });
        let mut parts: Vec<(String, u64)> = self
            .buffers
            .iter()
            .map(|b| (b.label.clone(), b.len()))
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
            .buffer_contents()
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
    let steps = check_steps(&plan.steps, loaded, &mut buffers)?;
    Ok(Program { buffers, steps })
}

fn named(buffers: &[Buffer], name: &str) -> Option<usize> {
    buffers.iter().position(|b| b.name.as_deref() == Some(name))
}

fn check_steps(
    steps: &[Step],
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
            StepKind::Set { name, spec } => Action::Set(
                launch::var_write_spec(loaded, name, spec)
                    .map_err(|e| bad(&at, "set", format!("{e:#}")))?,
            ),
            StepKind::Write { buffer, spec } => {
                let Some(b) = named(buffers, buffer) else {
                    return Err(unknown("write", buffer, buffers));
                };
                let have = buffers[b].len();
                let size = spec.buffer_len().unwrap_or(0) as u64;
                if size != have {
                    return Err(bad(
                        &at,
                        "write",
                        format!(
                            "`{buffer}` is {have} bytes but {spec} is {size} bytes; a write replaces the whole buffer"
                        ),
                    ));
                }
                let contents = spec.buffer_contents().map_err(|e| bad(&at, "write", e))?;
                Action::Write {
                    buffer: b,
                    contents,
                }
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
                let steps = check_steps(steps, loaded, buffers)?;
                Action::Repeat { until, steps }
            }
            StepKind::Dump { buffer, path } => match named(buffers, buffer) {
                Some(b) => Action::Dump {
                    buffer: b,
                    path: path.clone(),
                },
                None => return Err(unknown("dump", buffer, buffers)),
            },
            StepKind::DumpVar { name, path } => {
                let var = launch::host_variable(loaded, name, "--dump-var")
                    .map_err(|e| bad(&at, "dump_var", format!("{e:#}")))?;
                Action::DumpVar {
                    var,
                    path: path.clone(),
                }
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
                let len = buffers[b].len();
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
                                    let init = d.buffer_contents().map_err(|e| {
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
                            .buffer_contents()
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
    let kernel = launch::check_args(loaded, &l.kernel, &shapes).map_err(fail)?;
    launch::check_shape(l.grid, l.block).map_err(fail)?;
    let cfg = LaunchConfig {
        dynamic_shared: l.shared_bytes,
        cluster: l.cluster,
        ..LaunchConfig::new(&kernel, l.grid, l.block)
    };
    launch::check_launch_shape(&loaded.machine, &cfg).map_err(fail)?;
    Ok(Action::Launch { cfg, args })
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

/// `set` records `--json` lists; past them, a count (`sets_omitted`) stands for the rest, so
/// that a set inside a long loop cannot keep a record per round until memory runs out.
pub(crate) const MAX_SET_RECORDS: usize = 100_000;

/// The running plan: its machine, buffers and what it has reported. With `--json`, each
/// launch's object is written to standard output as it completes (inside the plan object
/// `plan::run` opens), so nothing per launch is kept; without it nothing is kept at all.
pub(crate) struct Runner<'a> {
    /// The module and its machine.
    pub loaded: &'a mut Loaded,
    /// The run options.
    pub checks: &'a Checks,
    /// `--json`.
    pub json: bool,
    /// Launches executed so far.
    pub launches: u64,
    /// `--set`-like records of the plan's set steps (at most [`MAX_SET_RECORDS`]).
    pub sets: Vec<Json>,
    /// Set steps executed past [`MAX_SET_RECORDS`].
    pub sets_omitted: u64,
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
    /// The first fault or step that could not be carried out (a buffer past the run's memory
    /// limit among them).
    pub fn run(&mut self, prog: &mut Program) -> Result<(), Stop> {
        for b in &mut prog.buffers {
            let machine = &mut self.loaded.machine;
            b.addr = machine.alloc(b.len(), &b.label).map_err(|e| {
                let e = launch::memory(e);
                let j = json!({"kind": "memory", "message": format!("{e:#}")});
                Stop::Refused(e, j)
            })?;
            let addr = b.addr;
            b.init
                .write_with(|off, bytes| machine.write(addr + off, bytes));
        }
        let steps = std::mem::take(&mut prog.steps);
        let result = self.steps(&steps, &prog.buffers, None);
        prog.steps = steps;
        result
    }

    /// Whether `--timeout` has run out.
    fn out_of_time(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }

    fn steps(
        &mut self,
        steps: &[CheckedStep],
        buffers: &[Buffer],
        round: Option<u64>,
    ) -> Result<(), Stop> {
        for s in steps {
            if self.out_of_time() {
                return Err(self.timed_out(&s.at, round, None));
            }
            self.step(s, buffers, round)?;
        }
        Ok(())
    }

    /// The stop `--timeout` makes at step `at` (in launch `launch`, if one was running).
    fn timed_out(&self, at: &str, round: Option<u64>, launch: Option<u64>) -> Stop {
        let secs = self.checks.timeout().unwrap_or_default().as_secs_f64();
        let round_text = round.map_or(String::new(), |r| format!(", round {r}"));
        let launch_text = launch.map_or(String::new(), |i| format!(", launch {i}"));
        let message = format!(
            "plan stopped by --timeout {secs}s at step {at}{round_text}{launch_text} ({} launch(es) done); no result",
            self.launches
        );
        errln!("ptxemu: {message}");
        Stop::TimedOut(json!({
            "kind": "timeout",
            "step": at,
            "round": round,
            "launch": launch,
            "message": message,
        }))
    }

    /// A buffer's bytes (small buffers only: `--json` lists at most 4096 elements).
    fn read(&self, b: &Buffer) -> Vec<u8> {
        self.loaded
            .machine
            .read(b.addr, b.len())
            .unwrap_or_default()
    }

    /// Whether every byte of a buffer is zero, read a piece at a time.
    fn all_zero(&self, b: &Buffer) -> bool {
        let mut chunk = vec![0u8; b.len().min(1 << 16) as usize];
        let mut at = 0u64;
        while at < b.len() {
            let n = (b.len() - at).min(chunk.len() as u64) as usize;
            if !self.loaded.machine.read_into(b.addr + at, &mut chunk[..n])
                || chunk[..n].iter().any(|&x| x != 0)
            {
                return false;
            }
            at += n as u64;
        }
        true
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
                if self.json {
                    if self.sets.len() < MAX_SET_RECORDS {
                        rec["step"] = json!(at);
                        self.sets.push(rec);
                    } else {
                        self.sets_omitted += 1;
                    }
                }
                Ok(())
            }
            Action::Write { buffer, contents } => {
                let (machine, b) = (&mut self.loaded.machine, &buffers[*buffer]);
                // `write_with` leaves zero contents unwritten (fresh memory is zero); an
                // overwrite must clear what the buffer holds.
                if matches!(contents, Contents::Zero(_)) {
                    zero(machine, b);
                } else {
                    contents.write_with(|off, bytes| machine.write(b.addr + off, bytes));
                }
                Ok(())
            }
            Action::Dump { buffer, path } => {
                let (b, machine) = (&buffers[*buffer], &self.loaded.machine);
                crate::cmd_run::dump_to(path, b.addr, b.len(), &|addr, out| {
                    machine.read_into(addr, out)
                })
                .map_err(refused)
            }
            Action::DumpVar { var, path } => {
                launch::write_var_dump(&self.loaded.machine, var, path).map_err(refused)
            }
            Action::Repeat { until, steps } => match until {
                Rounds::Times(n) => {
                    for r in 0..*n {
                        // Checked each round, not only before a step: a round of no steps
                        // (or of quick ones) repeated 2^64 times must stop too.
                        if self.out_of_time() {
                            return Err(self.timed_out(at, Some(r), None));
                        }
                        self.steps(steps, buffers, Some(r))?;
                    }
                    Ok(())
                }
                Rounds::WhileNonzero { buffer, max } => {
                    let b = &buffers[*buffer];
                    for r in 0..*max {
                        if self.out_of_time() {
                            return Err(self.timed_out(at, Some(r), None));
                        }
                        self.steps(steps, buffers, Some(r))?;
                        if self.all_zero(b) {
                            return Ok(());
                        }
                    }
                    let name = b.name.as_deref().unwrap_or("?");
                    let message = format!(
                        "plan step {at}: `{name}` is still non-zero after round {} (max {max} rounds)",
                        max.saturating_sub(1)
                    );
                    errln!("ptxemu: {message}");
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
        let index = self.launches;
        // The step's own configuration (its cluster, shared bytes) with the run's checks.
        let mut cfg = self.checks.apply(base.clone());
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
                        let machine = &mut self.loaded.machine;
                        if matches!(b.init, Contents::Zero(_)) {
                            zero(machine, b);
                        } else {
                            b.init
                                .write_with(|off, bytes| machine.write(b.addr + off, bytes));
                        }
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
                                let machine = &mut self.loaded.machine;
                                if matches!(buf.init, Contents::Zero(_)) {
                                    zero(machine, buf);
                                } else {
                                    buf.init.write_with(|off, bytes| {
                                        machine.write(buf.addr + off, bytes)
                                    });
                                }
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
        let report = launch::launch(&mut self.loaded.machine, &self.loaded.module, &cfg, &values).map_err(|e| {
            let kind = launch::kind_of(&e);
            let err = json!({"kind": kind, "step": at, "round": round, "launch": index, "message": format!("{e:#}")});
            Stop::Refused(refuse(kind, format!("{context}{e:#}")), err)
        })?;
        if crate::timeout::stopped(&report) {
            if !self.json {
                crate::out::write_program_output(&report.stdout);
            }
            // A launch the timeout stopped is not counted as done.
            return Err(self.timed_out(at, round, Some(index)));
        }
        self.launches += 1;
        let machine = &self.loaded.machine;
        let races = self
            .race
            .map(|p| crate::race_run::Merged::new(p, &cfg.kernel, report.races.as_ref()));
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
            let sep = if index == 0 { "" } else { "," };
            out!("{sep}{}", Json::Object(o));
        } else {
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

/// Zeroes an inline buffer before a launch of its step, a piece at a time.
fn zero(machine: &mut emu::exec::Machine, b: &Buffer) {
    let chunk = vec![0u8; b.len().min(1 << 20) as usize];
    let mut at = 0u64;
    while at < b.len() {
        let n = (b.len() - at).min(chunk.len() as u64) as usize;
        machine.write(b.addr + at, &chunk[..n]);
        at += n as u64;
    }
}
