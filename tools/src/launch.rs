//! One kernel launch as `ptxemu run` makes it, shared by the single-launch command line and
//! launch plans (`run --plan`): loading a module, checking a launch's arguments against the
//! kernel's parameters, the launch configuration the run options give, the launch itself, its
//! `--json` object, and module variables written and read from the host (`--set`,
//! `--dump-var`).
//!
//! Every refusal (bad input: exit status 2) is an [`anyhow::Error`] carrying a [`Refusal`],
//! whose `kind` the `--json` error object reports.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use emu::exec::symbols::{ModuleVar, Symbols};
use emu::exec::{LaunchConfig, LaunchError, LaunchReport, Machine};
use serde_json::{json, Map, Value as Json};

use crate::argspec::{ArgSpec, ElemType, Value};

/// Why a run was refused before or instead of a launch (exit status 2).
#[derive(Debug)]
pub(crate) struct Refusal {
    /// What kind of problem: `parse`, `validation`, `load`, `no_kernel`, `arguments`,
    /// `launch_limits`, `variable`, `plan`, `options`, `io`.
    pub kind: &'static str,
    /// The message.
    pub message: String,
    /// The message was already written to standard error (rendered diagnostics).
    pub shown: bool,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

/// A refusal of the given kind.
pub(crate) fn refuse(kind: &'static str, message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Refusal {
        kind,
        message: message.into(),
        shown: false,
    })
}

/// A refusal whose (rendered, multi-line) message is written to standard error now.
pub(crate) fn shown(kind: &'static str, message: String) -> anyhow::Error {
    errln!("{message}");
    anyhow::Error::new(Refusal {
        kind,
        message,
        shown: true,
    })
}

/// A refusal of kind `memory` for an allocation the run's budget or the host refused.
pub(crate) fn memory(e: emu::exec::reserve::ReserveError) -> anyhow::Error {
    refuse("memory", e.to_string())
}

/// `e` as a refusal: its own kind when it is one, else `kind`.
pub(crate) fn or_kind(e: anyhow::Error, kind: &'static str) -> anyhow::Error {
    if e.downcast_ref::<Refusal>().is_some() {
        e
    } else {
        refuse(kind, format!("{e:#}"))
    }
}

/// The kind of an error: its [`Refusal`]'s, else `input`.
pub(crate) fn kind_of(e: &anyhow::Error) -> &'static str {
    e.downcast_ref::<Refusal>().map_or("input", |r| r.kind)
}

/// Whether the error's text was already written to standard error.
pub(crate) fn was_shown(e: &anyhow::Error) -> bool {
    e.downcast_ref::<Refusal>().is_some_and(|r| r.shown)
}

/// A parsed, validated and loaded module.
pub(crate) struct Loaded {
    /// The module.
    pub module: emu::ir::Module,
    /// Its machine (device memory persists across launches).
    pub machine: Machine,
    /// Its module variables.
    pub symbols: Symbols,
    /// The file name, as given.
    pub name: String,
}

/// Parses, validates and loads a PTX file onto device memory of at most `limit` bytes
/// (`--memory-limit`: the module's `.global` variables are its first allocation);
/// diagnostics are rendered on standard error.
///
/// # Errors
/// An unreadable file, parse or validation errors, a module the interpreter cannot load, or
/// variables past the limit (kind `memory`).
pub(crate) fn load(path: &Path, limit: Option<u64>) -> Result<Loaded> {
    load_on(path, None, limit)
}

/// [`load`], run as on the GPU `sm` (`None`: the one the module's `.target` names): the
/// module is validated against its `.target`, then loaded as for `sm`.
///
/// # Errors
/// As [`load`].
pub(crate) fn load_on(path: &Path, sm: Option<u32>, limit: Option<u64>) -> Result<Loaded> {
    let src = crate::source::read_source(path)
        .map_err(|e| refuse("io", format!("cannot read {}: {e}", path.display())))?;
    let name = path.display().to_string();
    let mut module = emu::host::parse_checked(&src, &name).map_err(|e| shown(e.kind, e.message))?;
    if let Some(sm) = sm {
        module.run_as_sm(sm);
    }
    let mut memory = emu::exec::DeviceMemory::with_limit(limit);
    let machine = Machine::load_onto(&mut memory, &module, &name, &src).map_err(|e| match e {
        emu::exec::DecodeError::Memory(m) => refuse("memory", format!("{name}: {m}")),
        e => refuse("load", format!("{name}: {e}")),
    })?;
    let module = module.into_module();
    let symbols =
        Symbols::of(&module, &machine).map_err(|e| refuse("load", format!("{name}: {e}")))?;
    Ok(Loaded {
        module,
        machine,
        symbols,
        name,
    })
}

/// What a launch argument is, for checking it against the kernel's parameter.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ArgShape {
    /// A scalar of this type and size.
    Scalar(ElemType, usize),
    /// A buffer (its 64-bit address is passed).
    Buffer,
}

impl ArgShape {
    /// The shape of an `--arg` spec.
    pub fn of(spec: &ArgSpec) -> ArgShape {
        match spec {
            ArgSpec::Scalar { ty, bytes } => ArgShape::Scalar(*ty, bytes.len()),
            ArgSpec::Buffer { .. } => ArgShape::Buffer,
            ArgSpec::TensorMap(_) => {
                ArgShape::Scalar(ElemType::B8, emu::semantics::tma::TMAP_BYTES)
            }
            ArgSpec::ByValue(b) => ArgShape::Scalar(ElemType::B8, b.len),
        }
    }
}

/// The mangled name of the kernel that `name` names in the loaded module: its mangled name,
/// its demangled C++ signature or its unique base name (`emu::ir::kernel_name`).
///
/// # Errors
/// No kernel has the name (the error lists the kernels), or several do (it lists them).
pub(crate) fn resolve_kernel(loaded: &Loaded, name: &str) -> Result<String> {
    loaded
        .module
        .resolve_kernel(name)
        .map(str::to_string)
        .map_err(|e| refuse("no_kernel", format!("{}: {e}", loaded.name)))
}

/// Checks that `kernel` names a kernel ([`resolve_kernel`]) and that the arguments match its
/// parameters; returns the kernel's mangled name.
///
/// # Errors
/// No such kernel, a wrong number of arguments, or an argument of the wrong size.
pub(crate) fn check_args(loaded: &Loaded, kernel: &str, args: &[ArgShape]) -> Result<String> {
    let kernel = resolve_kernel(loaded, kernel)?;
    let kernel = kernel.as_str();
    let Some(sizes) = loaded.machine.kernel_params(kernel) else {
        return Err(refuse(
            "no_kernel",
            format!("no kernel named `{kernel}` in {}", loaded.name),
        ));
    };
    if sizes.len() != args.len() {
        return Err(refuse(
            "arguments",
            format!(
                "kernel `{kernel}` takes {} parameter(s) but {} argument(s) were given",
                sizes.len(),
                args.len()
            ),
        ));
    }
    for (i, (arg, psize)) in args.iter().zip(sizes).enumerate() {
        match *arg {
            ArgShape::Scalar(ty, len) if len as u64 != *psize => {
                let what = if ty == ElemType::B8 && len != 1 {
                    "a struct".to_string()
                } else {
                    format!("{} {}", crate::argspec::article(ty.name()), ty.name())
                };
                return Err(refuse(
                    "arguments",
                    format!(
                        "argument {i}: {what} is {len} byte(s) but parameter {i} of `{kernel}` takes {psize}"
                    ),
                ));
            }
            ArgShape::Buffer if *psize != 8 => {
                return Err(refuse(
                    "arguments",
                    format!(
                        "argument {i}: a buffer passes a 64-bit address but parameter {i} of `{kernel}` takes {psize} byte(s)"
                    ),
                ))
            }
            ArgShape::Scalar(ty, _) => {
                let f = loaded.module.kernels().find(|(_, f)| f.name == kernel);
                if let Some(m) = f.and_then(|(_, f)| crate::argtype::mismatch(f, i, ty)) {
                    return Err(refuse("arguments", m));
                }
            }
            ArgShape::Buffer => {}
        }
    }
    Ok(kernel.to_string())
}

/// Refuses a launch shape CUDA would refuse.
///
/// # Errors
/// The shape's limit, named.
pub(crate) fn check_shape(grid: [u32; 3], block: [u32; 3]) -> Result<()> {
    match emu::exec::shape::launch_shape_error(grid, block) {
        Some(why) => Err(refuse("launch_limits", why)),
        None => Ok(()),
    }
}

/// Launches, mapping a refused launch to a [`Refusal`]; the races name the arguments whose
/// buffers they touch (`module` declares the kernel's parameters).
///
/// # Errors
/// The launch could not start (unknown kernel, arguments, launch limits).
pub(crate) fn launch(
    machine: &mut Machine,
    module: &emu::ir::Module,
    cfg: &LaunchConfig,
    values: &[Vec<u8>],
) -> Result<LaunchReport> {
    let mut report = machine.launch(cfg, values).map_err(refused_launch)?;
    if let (Some(races), Some((_, f))) = (&mut report.races, module.function(&cfg.kernel)) {
        races.name_arguments(machine, &f.params, values);
    }
    Ok(report)
}

/// Checks a launch's whole shape (grid, block, cluster, the kernel's directives) against the
/// loaded kernel without running it, refused as [`launch`] would refuse it.
///
/// # Errors
/// The first shape rule `cfg` breaks, named.
pub(crate) fn check_launch_shape(machine: &Machine, cfg: &LaunchConfig) -> Result<()> {
    machine.check_launch_shape(cfg).map_err(refused_launch)
}

/// A launch the machine refused, as a [`Refusal`] of the matching kind.
fn refused_launch(e: LaunchError) -> anyhow::Error {
    let kind = match &e {
        LaunchError::NoSuchKernel { .. } => "no_kernel",
        LaunchError::BadArguments(_) => "arguments",
        LaunchError::BadShape(_) => "launch_limits",
        LaunchError::Refused { .. } => "unsupported",
        LaunchError::Memory(_) => "memory",
    };
    refuse(kind, e.to_string())
}

fn json_value(v: Value) -> Json {
    match v {
        Value::U(u) => json!(u),
        Value::I(i) => json!(i),
        Value::F(f) => {
            if f.is_finite() {
                json!(f)
            } else {
                json!(f.to_string())
            }
        }
    }
}

/// One buffer of a launch in `--json`: argument index, type, count, address and (for at most
/// 4096 elements) its values.
pub(crate) fn buffer_json(
    arg: usize,
    ty: ElemType,
    count: usize,
    addr: u64,
    bytes: impl FnOnce() -> Vec<u8>,
) -> Map<String, Json> {
    let mut o = Map::new();
    o.insert("arg".into(), json!(arg));
    o.insert("type".into(), json!(ty.name()));
    o.insert("count".into(), json!(count));
    o.insert("address".into(), json!(format!("0x{addr:x}")));
    if count <= 4096 {
        let vals: Vec<Json> = bytes()
            .chunks(ty.size())
            .map(|c| json_value(ty.decode(c)))
            .collect();
        o.insert("values".into(), Json::Array(vals));
    }
    o
}

/// The L1 model's counts as JSON: per operator hits, misses, evictions.
fn cache_json(c: &emu::exec::l1::CacheStats) -> Json {
    let ops = |v: &[(&str, emu::exec::l1::OpCounts)]| {
        let mut o = Map::new();
        for (name, k) in v {
            o.insert(
                (*name).to_string(),
                json!({"hits": k.hits, "misses": k.misses, "evictions": k.evictions}),
            );
        }
        Json::Object(o)
    };
    json!({
        "model": "l1",
        "sms": c.sms,
        "lines_per_sm": c.lines,
        "line_bytes": emu::exec::l1::LINE,
        "loads": ops(&c.loads),
        "stores": ops(&c.stores),
        "invalidations": c.invalidations,
    })
}

/// An instruction's source line (`.loc`) in `--json`: its position, and the call sites it was
/// inlined at, innermost first (empty when it was not inlined).
pub(crate) fn source_json(s: &emu::exec::fault::SourceLine) -> Json {
    s.json()
}

/// The `--json` object of one launch (the buffers are given by the caller).
pub(crate) fn launch_json(
    cfg: &LaunchConfig,
    report: &LaunchReport,
    buffers: Vec<Json>,
    machine: &Machine,
    trace_tmem: bool,
) -> Map<String, Json> {
    let faults: Vec<Json> = report
        .fault
        .iter()
        .map(|f| {
            json!({
                "kind": f.kind.to_string(),
                "kernel": f.site.kernel,
                "kernel_demangled": emu::ir::kernel_name::display(&f.site.kernel),
                "cta": f.site.cta,
                "warp": f.site.warp,
                "lane": f.site.lane,
                "thread": f.site.tid,
                "file": f.site.file,
                "line": f.site.line,
                "instruction": f.site.instr,
                "source": f.site.source.as_ref().map(source_json),
                "address": f.site.address.map(|a| format!("0x{a:x}")),
                "message": f.to_string(),
            })
        })
        .collect();
    let mut o = Map::new();
    o.insert("kernel".into(), json!(cfg.kernel));
    o.insert(
        "kernel_demangled".into(),
        json!(emu::ir::kernel_name::display(&cfg.kernel)),
    );
    o.insert("grid".into(), json!(cfg.grid));
    if let Some(c) = cfg.cluster {
        o.insert("cluster".into(), json!(c));
    }
    o.insert("block".into(), json!(cfg.block));
    o.insert("shared_bytes".into(), json!(cfg.dynamic_shared));
    // Only where cluster launch control ran, so other runs' objects are as before.
    if report.clusters_canceled > 0
        || cfg.try_cancel != emu::cluster_launch::control::CancelPolicy::default()
    {
        o.insert("clusters_canceled".into(), json!(report.clusters_canceled));
        o.insert("try_cancel".into(), json!(cfg.try_cancel.name()));
    }
    o.insert(
        "warp_instructions".into(),
        json!(report.counts.warp_instructions),
    );
    o.insert(
        "thread_instructions".into(),
        json!(report.counts.thread_instructions),
    );
    o.insert("wall_s".into(), json!(report.wall.as_secs_f64()));
    o.insert(
        "stdout".into(),
        json!(String::from_utf8_lossy(&report.stdout)),
    );
    o.insert("faults".into(), Json::Array(faults));
    o.insert(
        "nc_conflicts".into(),
        json!(report
            .nc_conflicts
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()),
    );
    o.insert("cache".into(), json!(report.cache.as_ref().map(cache_json)));
    o.insert("buffers".into(), Json::Array(buffers));
    if trace_tmem {
        o.insert(
            "tmem_trace".into(),
            crate::tmem_trace::json(machine.program(), &report.tmem_trace),
        );
    }
    o
}

/// Without `--json`: the launch's printed text (and Tensor Memory trace) on standard output.
pub(crate) fn print_text(report: &LaunchReport, machine: &Machine, trace_tmem: bool) {
    crate::out::write_program_output(&report.stdout);
    if trace_tmem {
        let t = crate::tmem_trace::text(machine.program(), &report.tmem_trace);
        crate::out::write_bytes(t.as_bytes());
    }
}

/// Splits `NAME=REST` (for `--set`, `--dump-var`, plan steps).
///
/// # Errors
/// No `=`, or an empty name.
pub(crate) fn name_eq<'a>(text: &'a str, what: &str, form: &str) -> Result<(&'a str, &'a str)> {
    match text.split_once('=') {
        Some((n, rest)) if !n.trim().is_empty() => Ok((n.trim(), rest)),
        _ => Err(refuse(
            "arguments",
            format!("{what} takes {form}, got `{text}`"),
        )),
    }
}

/// A `--set NAME=SPEC`, checked against the module: the variable and the bytes to write.
pub(crate) struct VarWrite {
    /// The variable.
    pub var: ModuleVar,
    /// Its new leading bytes.
    pub bytes: Vec<u8>,
}

/// Parses and checks `NAME=SPEC` (relative `file=` paths are taken from `dir`).
///
/// # Errors
/// A malformed spec, an unreadable file, an unknown variable, one in another state space, or
/// more bytes than it holds.
pub(crate) fn var_write(loaded: &Loaded, text: &str, dir: Option<&Path>) -> Result<VarWrite> {
    let (name, spec) = name_eq(text, "--set", "NAME=SPEC")?;
    let spec = crate::argspec::parse(spec)
        .map_err(|e| refuse("arguments", format!("--set {name}: {e}")))?;
    let spec = match dir {
        Some(d) => spec.relative_to(d),
        None => spec,
    };
    var_write_spec(loaded, name, &spec)
}

/// Checks `NAME=SPEC` given as a name and a parsed spec (a plan's `set` step). The size is
/// checked against the variable before a buffer spec's bytes are made or read.
///
/// # Errors
/// As [`var_write`].
pub(crate) fn var_write_spec(loaded: &Loaded, name: &str, spec: &ArgSpec) -> Result<VarWrite> {
    let var = host_variable(loaded, name, "--set")?;
    let len = match spec {
        ArgSpec::Scalar { bytes, .. } => bytes.len() as u64,
        ArgSpec::Buffer { .. } => spec.buffer_len().unwrap_or(0) as u64,
        ArgSpec::TensorMap(_) | ArgSpec::ByValue(_) => {
            return Err(refuse(
                "arguments",
                format!("--set {name}: tensor maps and structs holding buffer addresses are kernel arguments, not a variable's value"),
            ))
        }
    };
    Symbols::check_fits(&var, len).map_err(|e| refuse("variable", format!("--set {name}: {e}")))?;
    let bytes = match spec {
        ArgSpec::Scalar { bytes, .. } => bytes.clone(),
        _ => spec
            .buffer_bytes()
            .map_err(|e| refuse("arguments", format!("--set {name}: {e}")))?,
    };
    Ok(VarWrite { var, bytes })
}

/// The module variable `name` the host may read and write (`what` names the option).
///
/// # Errors
/// No such variable, or one in a state space the host cannot reach.
pub(crate) fn host_variable(loaded: &Loaded, name: &str, what: &str) -> Result<ModuleVar> {
    loaded
        .symbols
        .host_visible(name)
        .cloned()
        .map_err(|e| refuse("variable", format!("{what} {name}: {e}")))
}

/// Writes a checked `--set`; returns its `--json` record (name, space, size, bytes written).
///
/// # Errors
/// None in practice: the write was checked.
pub(crate) fn apply_var_write(machine: &mut Machine, w: &VarWrite) -> Result<Json> {
    let n = machine
        .write_variable(&w.var, &w.bytes)
        .map_err(|e| refuse("variable", format!("--set {}: {e}", w.var.name)))?;
    Ok(json!({
        "name": w.var.name,
        "space": w.var.space.to_string(),
        "size": w.var.size,
        "bytes": n,
    }))
}

/// A `--dump-var NAME=PATH`, checked: the variable and where its bytes go.
pub(crate) fn var_dump(loaded: &Loaded, text: &str) -> Result<(ModuleVar, PathBuf)> {
    let (name, path) = name_eq(text, "--dump-var", "NAME=PATH")?;
    if path.is_empty() {
        return Err(refuse(
            "arguments",
            format!("--dump-var {name}: the path is empty"),
        ));
    }
    let var = host_variable(loaded, name, "--dump-var")?;
    Ok((var, PathBuf::from(path)))
}

/// Writes a module variable's current bytes to `path`.
///
/// # Errors
/// The file cannot be written.
pub(crate) fn write_var_dump(machine: &Machine, var: &ModuleVar, path: &Path) -> Result<()> {
    let bytes = machine
        .read_variable(var)
        .map_err(|e| anyhow!("--dump-var {}: {e}", var.name))?;
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
