//! `Module`: a PTX module loaded onto the devices its launches use, its kernels' parameters,
//! launches and module variables.

use std::sync::Mutex;

use emu::exec::symbols::Symbols;
use emu::exec::{FaultKind, LaunchConfig, LaunchError, Machine};
use emu::ir::FunctionKind;
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::device::{bytes_of, bytes_of_mut, Device};
use crate::raise;

/// A module's machine on one device.
struct OnDevice {
    device: u64,
    machine: Machine,
    symbols: Symbols,
}

/// A parsed and validated PTX module.
#[pyclass(frozen, module = "ptxemu._native")]
pub struct Module {
    name: String,
    source: String,
    module: emu::validate::Validated,
    loaded: Mutex<Vec<OnDevice>>,
}

/// The launch options of `Function.__call__`, as keyword arguments.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct Options {
    shared_mem: u32,
    max_steps: u64,
    threads: usize,
    tmem_check: bool,
    /// `tmem_check="strict"`: also require `tcgen05.fence::after_thread_sync` before a
    /// `tcgen05.ld` of MMA results.
    tmem_fence: bool,
    check_nc: bool,
    race: bool,
    /// The cluster shape in CTAs (`None`: the kernel's `.reqnctapercluster`, else 1×1×1).
    cluster: Option<[u32; 3]>,
    /// `succeed`, `fail` or `random:SEED` (`clusterlaunchcontrol.try_cancel`).
    try_cancel: String,
    /// `%nsmid` (the GPU's SMs).
    sms: Option<u32>,
    /// The most shared memory one CTA may have (`None`: sm_90's 227 KiB).
    max_shared: Option<u64>,
    /// The most CTAs resident at once.
    resident_ctas: Option<u64>,
    /// `wgmma_check="strict"`: an early wgmma accumulator read is a fault.
    wgmma_strict: bool,
}

/// A short name for each kind of fault (`Fault.kind`).
fn kind_name(k: &FaultKind) -> &'static str {
    match k {
        FaultKind::OutOfBounds { .. } => "out_of_bounds",
        FaultKind::Misaligned { .. } => "misaligned",
        FaultKind::BarrierDeadlock { .. } => "barrier_deadlock",
        FaultKind::DivergentCollective { .. } => "divergent_collective",
        FaultKind::StepBudgetExhausted { .. } => "step_budget_exhausted",
        FaultKind::TimedOut { .. } => "timed_out",
        FaultKind::Trap => "trap",
        FaultKind::Breakpoint => "breakpoint",
        FaultKind::AssertFailed { .. } => "assert_failed",
        FaultKind::Undefined { .. } => "undefined",
        FaultKind::Unsupported { .. } => "unsupported",
        FaultKind::HostMemory(_) => "memory",
    }
}

impl Module {
    /// Runs `f` with this module's machine on `device`, loading the module there first if
    /// needed; the device's memory is lent to the machine meanwhile. The GIL is released
    /// before any lock is taken, so a Python thread waiting for one never holds it.
    fn with_machine<T>(
        &self,
        py: Python<'_>,
        device: &Device,
        f: impl FnOnce(&mut Machine, &Symbols) -> T + Send,
    ) -> PyResult<T>
    where
        T: Send,
    {
        py.allow_threads(|| {
            let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
            let mut memory = device.lock();
            let at = match loaded.iter().position(|l| l.device == device.id) {
                Some(i) => i,
                None => {
                    let mut machine =
                        Machine::load_onto(&mut memory, &self.module, &self.name, &self.source)
                            .map_err(|e| format!("{}: {e}", self.name))?;
                    let symbols = Symbols::of(self.module.module(), &machine);
                    machine.swap_memory(&mut memory);
                    let symbols = symbols.map_err(|e| format!("{}: {e}", self.name))?;
                    loaded.push(OnDevice {
                        device: device.id,
                        machine,
                        symbols,
                    });
                    loaded.len() - 1
                }
            };
            let on = &mut loaded[at];
            on.machine.swap_memory(&mut memory);
            let out = f(&mut on.machine, &on.symbols);
            on.machine.swap_memory(&mut memory);
            Ok(out)
        })
        .map_err(|e: String| raise(py, "PtxError", ("load", e)))
    }
}

#[pymethods]
impl Module {
    /// Parses and validates PTX text; `name` is the file name diagnostics and faults give.
    /// `sm` runs the module as that SM (the GPU whose numerics to emulate, as `ptxemu run
    /// --gpu` does) after it was validated against its own `.target`.
    #[new]
    #[pyo3(signature = (source, name, sm = None))]
    fn new(py: Python<'_>, source: String, name: String, sm: Option<u32>) -> PyResult<Module> {
        let mut module = emu::host::parse_checked(&source, &name)
            .map_err(|e| raise(py, "PtxError", (e.kind, e.message)))?;
        if let Some(sm) = sm {
            module.run_as_sm(sm);
        }
        Ok(Module {
            name,
            source,
            module,
            loaded: Mutex::new(Vec::new()),
        })
    }

    /// The file name given.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The kernels (`.entry` functions with a body), in order.
    fn kernels(&self) -> Vec<String> {
        self.module
            .module()
            .functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry && f.body.is_some())
            .map(|f| f.name.clone())
            .collect()
    }

    /// The mangled name of the kernel that `name` names: its mangled name, its demangled C++
    /// signature or its unique base name (raises `LaunchError` of kind `no_kernel` listing
    /// the kernels, or the candidates of an ambiguous name).
    fn resolve_kernel(&self, py: Python<'_>, name: &str) -> PyResult<String> {
        self.module
            .module()
            .resolve_kernel(name)
            .map(str::to_string)
            .map_err(|e| {
                raise(
                    py,
                    "LaunchError",
                    ("no_kernel", format!("{}: {e}", self.name)),
                )
            })
    }

    /// The demangled C++ name of `name` (the name itself when it is not mangled).
    #[staticmethod]
    fn demangle(name: &str) -> String {
        emu::ir::kernel_name::display(name).into_owned()
    }

    /// A kernel's parameters: (name, PTX type, size in bytes, is an array), or `None` when
    /// there is no such kernel.
    fn params(&self, kernel: &str) -> Option<Vec<(String, String, u64, bool)>> {
        let f = self
            .module
            .module()
            .functions
            .iter()
            .find(|f| f.kind == FunctionKind::Entry && f.body.is_some() && f.name == kernel)?;
        Some(
            f.params
                .iter()
                .map(|p| {
                    let v = &p.var;
                    let aggregate = !v.dims.is_empty() || v.vec.is_some();
                    (
                        p.name.clone(),
                        v.ty.name().to_string(),
                        v.size_bytes().unwrap_or(0),
                        aggregate,
                    )
                })
                .collect(),
        )
    }

    /// Launches `kernel` on `device` with raw parameter values; returns the launch's
    /// statistics and its fault, if any, as a dict.
    #[allow(clippy::too_many_arguments)]
    fn launch<'py>(
        &self,
        py: Python<'py>,
        device: &Device,
        kernel: String,
        grid: [u32; 3],
        block: [u32; 3],
        args: Vec<Vec<u8>>,
        options: Options,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut cfg = LaunchConfig::new(&kernel, grid, block);
        cfg.dynamic_shared = options.shared_mem;
        cfg.max_steps = options.max_steps;
        cfg.threads = options.threads;
        cfg.check_nc = options.check_nc;
        cfg.cluster = options.cluster;
        cfg.wgmma_strict = options.wgmma_strict;
        cfg.tmem.checked = options.tmem_check;
        cfg.tmem.fence = options.tmem_check && options.tmem_fence;
        if options.race {
            cfg.race = Some(emu::race::RaceOptions::default());
        }
        cfg.try_cancel = emu::cluster_launch::control::CancelPolicy::parse(&options.try_cancel)
            .map_err(|e| raise(py, "LaunchError", ("options", format!("try_cancel {e}"))))?;
        if let Some(n) = options.sms {
            cfg.device.sms = n.max(1);
        }
        if let Some(n) = options.max_shared {
            cfg.device.max_shared_per_cta = n;
        }
        cfg.device.resident_ctas = options.resident_ctas.map(|n| n.max(1));
        // Ctrl-C: the launch runs on a second host thread while this one looks at Python's
        // signals every 50 ms; a KeyboardInterrupt asks the launch to stop, waits for it
        // (within a slice of the interpreter) and is raised.
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        cfg.cancel = Some(cancel.clone());
        let mut interrupted: Option<PyErr> = None;
        let module = &self.module;
        let result = self.with_machine(py, device, |m, _| {
            let mut joined = std::thread::scope(|s| {
                let job = s.spawn(|| m.launch(&cfg, &args));
                while !job.is_finished() {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    if interrupted.is_none() {
                        if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                            interrupted = Some(e);
                        }
                    }
                }
                job.join()
            });
            // A race's global accesses name the argument whose buffer holds them.
            if let Ok(Ok(rep)) = &mut joined {
                if let (Some(races), Some((_, f))) =
                    (&mut rep.races, module.module().function(&cfg.kernel))
                {
                    races.name_arguments(m, &f.params, &args);
                }
            }
            joined
        })?;
        if let Some(e) = interrupted {
            return Err(e);
        }
        let result = result.map_err(|_| {
            pyo3::exceptions::PyRuntimeError::new_err("the launch's host thread panicked")
        })?;
        let report = result.map_err(|e| {
            let kind = match &e {
                LaunchError::NoSuchKernel { .. } => "no_kernel",
                LaunchError::BadArguments(_) => "arguments",
                LaunchError::BadShape(_) => "launch_limits",
                LaunchError::Refused { .. } => "unsupported",
                LaunchError::Memory(_) => "memory",
            };
            raise(py, "LaunchError", (kind, e.to_string()))
        })?;
        let d = PyDict::new(py);
        d.set_item("kernel", &kernel)?;
        d.set_item(
            "kernel_demangled",
            emu::ir::kernel_name::display(&kernel).as_ref(),
        )?;
        d.set_item("grid", grid)?;
        d.set_item("block", block)?;
        d.set_item("shared_bytes", options.shared_mem)?;
        d.set_item("warp_instructions", report.counts.warp_instructions)?;
        d.set_item("thread_instructions", report.counts.thread_instructions)?;
        d.set_item("wall_s", report.wall.as_secs_f64())?;
        d.set_item("stdout", String::from_utf8_lossy(&report.stdout))?;
        let conflicts: Vec<String> = report
            .nc_conflicts
            .iter()
            .map(ToString::to_string)
            .collect();
        d.set_item("nc_conflicts", conflicts)?;
        d.set_item("clusters_canceled", report.clusters_canceled)?;
        if let Some(r) = &report.races {
            d.set_item("races", races_list(py, r)?)?;
        }
        if let Some(f) = &report.fault {
            let s = &f.site;
            let fd = PyDict::new(py);
            fd.set_item("kind", kind_name(&f.kind))?;
            fd.set_item("detail", f.kind.to_string())?;
            fd.set_item("kernel", &s.kernel)?;
            fd.set_item(
                "kernel_demangled",
                emu::ir::kernel_name::display(&s.kernel).as_ref(),
            )?;
            fd.set_item("cta", s.cta)?;
            fd.set_item("warp", s.warp)?;
            fd.set_item("lane", s.lane)?;
            fd.set_item("thread", s.tid)?;
            fd.set_item("file", &s.file)?;
            fd.set_item("line", s.line)?;
            fd.set_item("instruction", &s.instr)?;
            if let Some(src) = &s.source {
                fd.set_item("source", source_dict(py, src)?)?;
            }
            fd.set_item("address", s.address)?;
            fd.set_item("message", f.to_string())?;
            d.set_item("fault", fd)?;
        }
        Ok(d)
    }

    /// The size in bytes of a module `.global` or `.const` variable the host can reach.
    fn global_size(&self, py: Python<'_>, device: &Device, name: &str) -> PyResult<u64> {
        self.with_machine(py, device, |_, sy| {
            sy.host_visible(name)
                .map(|v| v.size)
                .map_err(|e| e.to_string())
        })?
        .map_err(|e| raise(py, "VariableError", (e,)))
    }

    /// Writes the leading bytes of a module variable, as `cudaMemcpyToSymbol` does.
    fn set_global(
        &self,
        py: Python<'_>,
        device: &Device,
        name: &str,
        data: PyBuffer<u8>,
    ) -> PyResult<()> {
        let bytes = bytes_of(&data)?;
        self.with_machine(py, device, |m, sy| {
            let var = sy.host_visible(name).map_err(|e| e.to_string())?;
            Symbols::check_fits(var, bytes.len() as u64).map_err(|e| e.to_string())?;
            m.write_variable(var, bytes).map_err(|e| e.to_string())
        })?
        .map(|_| ())
        .map_err(|e| raise(py, "VariableError", (e,)))
    }

    /// Fills `out` with a module variable's leading bytes, as `cudaMemcpyFromSymbol` does.
    fn get_global(
        &self,
        py: Python<'_>,
        device: &Device,
        name: &str,
        mut out: PyBuffer<u8>,
    ) -> PyResult<()> {
        let dst = bytes_of_mut(&mut out)?;
        let bytes = self
            .with_machine(py, device, |m, sy| {
                let var = sy.host_visible(name).map_err(|e| e.to_string())?;
                m.read_variable(var).map_err(|e| e.to_string())
            })?
            .map_err(|e| raise(py, "VariableError", (e,)))?;
        let n = dst.len().min(bytes.len());
        dst[..n].copy_from_slice(&bytes[..n]);
        Ok(())
    }
}

/// A source position as `(file, line, column)`, the column `None` when the `.loc` gave none.
fn frame_tuple(f: &emu::exec::fault::SourceFrame) -> (String, u32, Option<u32>) {
    (f.file.to_string(), f.line, (f.col > 0).then_some(f.col))
}

/// An instruction's source line: `file`, `line`, `column` and `inlined_at` (the call sites,
/// innermost first, as `(file, line, column)`), as `ptxemu run --json` gives it.
fn source_dict<'py>(
    py: Python<'py>,
    s: &emu::exec::fault::SourceLine,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let (file, line, col) = frame_tuple(&s.at);
    d.set_item("file", file)?;
    d.set_item("line", line)?;
    d.set_item("column", col)?;
    let calls: Vec<_> = s.inlined_at.iter().map(frame_tuple).collect();
    d.set_item("inlined_at", calls)?;
    Ok(d)
}

/// The races of a `race=True` launch: the `races` of `ptxemu run --race --json`, written by
/// the same code (`emu::race::json`) and read with Python's `json`.
fn races_list<'py>(py: Python<'py>, r: &emu::race::RaceReport) -> PyResult<Bound<'py, PyAny>> {
    let text = emu::race::json::races(r).to_string();
    py.import("json")?.call_method1("loads", (text,))
}
