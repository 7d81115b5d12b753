//! The PTX interpreter: launches a kernel over a 3-D grid of CTAs of warps of 32 lanes.
//!
//! A [`Machine`] holds a decoded module and global memory. [`Machine::launch`] runs a kernel:
//! clusters of CTAs are distributed over host threads ([`grid`]); each cluster runs its CTAs
//! in time slices, so CTAs that wait for each other (grid-wide sync, producer/consumer flags,
//! cluster barriers) make progress, while independent clusters run in parallel on every core.
//! Values are sequentially consistent: every load sees the latest store to its bytes. Fences
//! order nothing further for values; with the L1 model (`--cache-model l1`) they invalidate
//! the SM's L1, and the checkers follow them (`--race`, the proxy checker, Tensor Memory's
//! checks).
//!
//! The layers, from the bottom (docs/architecture.md draws them):
//! - the decoded program ([`program`]: instructions with their execution function and
//!   operands; each family's decoded form lives in its own folder) and its lowering from the
//!   IR ([`decode`]);
//! - what an instruction sees ([`ctx`]), the launch-wide state below the scheduler
//!   ([`launch`]), memory ([`memory`]), and the services every family uses: address
//!   resolution ([`address`]) and warp convergence ([`converge`]);
//! - the instructions: the small families in [`step`], the larger ones in their folders at the
//!   crate root (`mma`, `wgmma`, `tcgen05`, `tma`, `async_copy`, `cluster`);
//! - the scheduler: [`grid`] (clusters over host threads), [`cta`] (warps, barriers), [`warp`]
//!   (divergence), [`frames`] (calls) and [`builtins`] (`vprintf`, `malloc`, `__assertfail`);
//! - the checks a launch may turn on: [`nc_check`] (`--check-nc`), [`l1`] (the L1 model),
//!   [`proxy_check`] (`--proxy-check`), the race detector (`crate::race`) and Tensor Memory's
//!   checks (`crate::tcgen05::memory`).
//!
//! Not modelled here: weak memory behaviours (the axiomatic models in `models` and the litmus
//! layer cover them), texture/surface memory.
//!
//! Deliberate deviations:
//! 1. `%clock`/`%clock64` count the warp's executed instructions and `%globaltimer` is
//!    derived from that count, so runs are reproducible.
//! 2. `printf` output is ordered by CTA (linear index) and, within a CTA, by execution order,
//!    so the text does not depend on the number of host threads.

pub mod address;
pub mod builtins;
pub mod converge;
pub mod cta;
pub mod ctx;
pub mod decode;
pub mod device;
pub mod fault;
pub mod frames;
pub mod generic_marks;
pub mod grid;
pub mod hooks;
pub mod l1;
pub mod launch;
pub mod memory;
pub mod nc_check;
pub(crate) mod operand_columns;
pub mod program;
pub mod proxy_check;
pub mod reserve;
pub mod shape;
pub mod step;
pub mod symbols;
pub mod warp;
pub mod word_hasher;

use std::time::{Duration, Instant};

use cta::Counts;
pub use decode::DecodeError;
pub use device::DeviceMemory;
pub use fault::{Fault, FaultKind, FaultSite};
use launch::heap::Heap;
use launch::LaunchInfo;
use memory::{Bytes, GlobalMemory};
use program::{DFuncKind, Program};

use crate::ir::{FunctionKind, Module};
use crate::validate::Validated;

/// Everything a CTA needs from its launch (shared, read-only, by every host thread).
pub struct Env<'a> {
    /// The decoded program.
    pub prog: &'a Program,
    /// Global memory.
    pub global: &'a GlobalMemory,
    /// The kernel's parameter buffer.
    pub params: &'a Bytes,
    /// The constant bank.
    pub consts: &'a Bytes,
    /// The device heap.
    pub heap: &'a Heap,
    /// The kernel's function index.
    pub kernel: u32,
    /// The kernel's name.
    pub kernel_name: &'a str,
    /// The CTA shape.
    pub block: [u32; 3],
    /// Bytes of shared memory per CTA (static + dynamic).
    pub shared_bytes: u64,
    /// Launch-wide values; `ctaid` is filled per CTA.
    pub launch_template: LaunchInfo,
    /// The `--check-nc` record, when the check is on.
    pub nc: Option<&'a nc_check::NcTracker>,
    /// The L1 caches, with `--cache-model l1`.
    pub l1: Option<&'a l1::L1System>,
    /// How Tensor Memory is checked and traced.
    pub tmem: crate::tcgen05::memory::TmemOptions,
    /// (`--proxy-check`, the program has async-proxy instructions).
    pub proxy: (bool, bool),
    /// `--wgmma-check strict`: an early read of a wgmma accumulator is a fault.
    pub wgmma_strict: bool,

    /// The race detector's launch-wide state, with `--race`.
    pub race: Option<&'a std::sync::Arc<crate::race::RaceShared>>,
    /// The most nested calls a thread may make.
    pub max_call_depth: u32,
}

/// How to launch a kernel.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// The kernel's name.
    pub kernel: String,
    /// Grid shape in CTAs.
    pub grid: [u32; 3],
    /// CTA shape in threads.
    pub block: [u32; 3],
    /// Cluster shape in CTAs (`--cluster`); `None`: the kernel's `.reqnctapercluster`, else
    /// 1×1×1.
    pub cluster: Option<[u32; 3]>,
    /// Bytes of dynamic shared memory.
    pub dynamic_shared: u32,
    /// The most warp instructions the launch may execute before it is stopped.
    pub max_steps: u64,
    /// Host threads to use (0: one per available core).
    pub threads: usize,
    /// Report writes to bytes an `ld.global.nc` of the same launch reads.
    pub check_nc: bool,
    /// Model per-SM non-coherent L1 caches: (SMs, lines per SM); `None` keeps memory coherent.
    pub l1: Option<(u32, usize)>,
    /// Tensor Memory checks (on by default) and `--trace-tmem`.
    pub tmem: crate::tcgen05::memory::TmemOptions,
    /// `--proxy-check`: report accesses through different proxies the memory model leaves
    /// unordered (on by default).
    pub proxy_check: bool,
    /// `--wgmma-check strict`: reading a `wgmma.mma_async` accumulator before the
    /// `wgmma.wait_group` that retires it is reported as undefined behaviour. By default the
    /// read waits for the warp's committed wgmma groups, as ptxas makes the GPU do (it injects
    /// the wait, warning C7517).
    pub wgmma_strict: bool,

    /// `--race`: detect data races (the launch then runs on one host thread).
    pub race: Option<crate::race::RaceOptions>,
    /// `--timeout`: stop the launch (a [`FaultKind::TimedOut`] fault) once it has run this long.
    pub timeout: Option<Duration>,
    /// Counts the CTAs that have finished (ended or faulted), for a progress display.
    pub progress: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// `--max-call-depth`: the most nested calls a thread may make (a deeper call faults).
    pub max_call_depth: u32,
    /// Whether `clusterlaunchcontrol.try_cancel` succeeds while clusters remain unstarted.
    pub try_cancel: crate::cluster_launch::control::CancelPolicy,
    /// The GPU the launch runs on, as far as the program can see it: `%nsmid` and the most
    /// shared memory a CTA may have.
    pub device: DeviceLimits,
    /// A host's request to stop (the Python package's Ctrl-C): once set, the launch stops
    /// between slices as `--timeout` stops it (a [`FaultKind::TimedOut`] fault, no result).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// What a GPU reports to a kernel (and limits), as far as ptxemu models it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// `%nsmid`: the number of SMs (CTA k runs on SM k % `sms`, its `%smid`).
    pub sms: u32,
    /// The most shared memory one CTA may have, static and dynamic (bytes).
    pub max_shared_per_cta: u64,
    /// The most CTAs resident at once (`None`: no limit): further clusters start only as
    /// running ones finish, as on a GPU whose SMs are full, so `clusterlaunchcontrol.try_cancel`
    /// finds clusters to cancel. A program whose CTAs wait for CTAs that cannot start then
    /// deadlocks, as it would on such a GPU.
    pub resident_ctas: Option<u64>,
}

impl DeviceLimits {
    /// No particular GPU: one SM (`%nsmid` = 1, `%smid` = 0) and sm_90's 227 KiB per CTA.
    pub const GENERIC: DeviceLimits = DeviceLimits {
        sms: 1,
        max_shared_per_cta: memory::MAX_SHARED_PER_CTA,
        resident_ctas: None,
    };
}

impl Default for DeviceLimits {
    fn default() -> DeviceLimits {
        DeviceLimits::GENERIC
    }
}

impl LaunchConfig {
    /// A launch of `kernel` with the given shapes and default limits.
    pub fn new(kernel: &str, grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            kernel: kernel.to_string(),
            grid,
            block,
            cluster: None,
            dynamic_shared: 0,
            max_steps: 1_000_000_000,
            threads: 0,
            check_nc: false,
            l1: None,
            tmem: crate::tcgen05::memory::TmemOptions::default(),
            proxy_check: true,
            wgmma_strict: false,

            race: None,
            timeout: None,
            progress: None,
            max_call_depth: frames::DEFAULT_MAX_CALL_DEPTH,
            try_cancel: crate::cluster_launch::control::CancelPolicy::default(),
            device: DeviceLimits::GENERIC,
            cancel: None,
        }
    }
}

/// What a launch did.
#[derive(Clone, Debug)]
pub struct LaunchReport {
    /// Instructions executed.
    pub counts: Counts,
    /// Text printed by `printf`, in CTA order.
    pub stdout: Vec<u8>,
    /// Wall-clock time of the launch.
    pub wall: Duration,
    /// The first fault, if the launch faulted.
    pub fault: Option<Fault>,
    /// With `check_nc`: each pair of an `ld.global.nc` and a write to a byte it read.
    pub nc_conflicts: Vec<nc_check::NcReport>,
    /// With the L1 model: per-operator hits, misses and evictions.
    pub cache: Option<l1::CacheStats>,
    /// With `--trace-tmem`: every tcgen05 instruction's moves, CTA by CTA.
    pub tmem_trace: Vec<crate::tcgen05::trace::TmemEvent>,
    /// With `race`: the data races found.
    pub races: Option<crate::race::RaceReport>,
    /// Clusters whose launch a `clusterlaunchcontrol.try_cancel` canceled (their CTAs never
    /// ran; the requesting CTAs took their work).
    pub clusters_canceled: u64,
}

/// A launch that could not start: a problem with the request, not with the program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// No kernel of that name has a body in the module.
    #[error("no kernel named `{name}` in the module (kernels: {available})")]
    NoSuchKernel {
        /// The requested name.
        name: String,
        /// The kernels that exist.
        available: String,
    },
    /// The arguments do not match the kernel's parameters.
    #[error("{0}")]
    BadArguments(String),
    /// The launch shape is invalid.
    #[error("{0}")]
    BadShape(String),
    /// The kernel, or a function it calls, holds a construct the interpreter cannot run (the
    /// module's other kernels can still be launched).
    #[error("kernel `{kernel}` cannot run: {error}")]
    Refused {
        /// The kernel.
        kernel: String,
        /// The construct, with its line.
        error: DecodeError,
    },
    /// Memory the launch needs (the heap, a CTA's shared or local memory, the race
    /// detector's shadow memory) is past the run's limit or refused by the host; the launch
    /// stopped there, without a result.
    #[error("{0}")]
    Memory(reserve::ReserveError),
}

/// A loaded module and its device memory.
pub struct Machine {
    prog: Program,
    global: GlobalMemory,
    consts: Bytes,
    entry_kinds: Vec<(String, u32, Vec<u64>)>,
    /// The device heap and the grid-sync workspace, made by the first launch and kept, as
    /// CUDA keeps `malloc`ed memory across launches.
    launch_memory: Option<(Heap, u64)>,
    /// Each kernel's cluster directives.
    cluster_dirs: Vec<(String, crate::cluster::shape::Directives)>,
    /// Each kernel's performance-tuning directives (`.reqntid`, `.maxntid` are checked at
    /// launch).
    perf_dirs: Vec<(String, Vec<crate::ir::PerfDirective>)>,
}

/// The default device heap size for `malloc` (CUDA's default limit is 8 MiB).
pub const HEAP_SIZE: u64 = 8 << 20;

impl Machine {
    /// Decodes a module the validator accepted and places its global variables in device
    /// memory.
    ///
    /// # Errors
    /// A construct the interpreter cannot run.
    pub fn load(module: &Validated, file_name: &str) -> Result<Machine, DecodeError> {
        Machine::load_with_source(module, file_name, "")
    }

    /// Like [`Machine::load`], with the module's source text so that fault reports can quote
    /// the faulting instruction as written.
    ///
    /// # Errors
    /// A construct the interpreter cannot run.
    pub fn load_with_source(
        module: &Validated,
        file_name: &str,
        source: &str,
    ) -> Result<Machine, DecodeError> {
        Machine::load_onto(&mut DeviceMemory::new(), module, file_name, source)
    }

    /// A machine of a decoded program on device memory that already holds its globals.
    fn assemble(prog: Program, module: &Module, memory: DeviceMemory) -> Machine {
        let consts = Bytes {
            data: prog.const_bank.clone(),
        };
        let entry_kinds = module
            .functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FunctionKind::Entry && f.body.is_some())
            .map(|(i, f)| {
                let sizes = f
                    .params
                    .iter()
                    .map(|p| p.var.size_bytes().unwrap_or(0))
                    .collect();
                (f.name.clone(), i as u32, sizes)
            })
            .collect();
        let cluster_dirs = module
            .functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry)
            .map(|f| {
                (
                    f.name.clone(),
                    crate::cluster::shape::Directives::of(&f.perf),
                )
            })
            .collect();
        let perf_dirs = module
            .functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry)
            .map(|f| (f.name.clone(), f.perf.clone()))
            .collect();
        Machine {
            cluster_dirs,
            perf_dirs,
            prog,
            global: memory.global,
            consts,
            entry_kinds,
            launch_memory: memory.launch_memory,
        }
    }

    /// The decoded program.
    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// The parameter sizes (bytes) of a kernel, in order; `None` if there is no such kernel.
    pub fn kernel_params(&self, name: &str) -> Option<&[u64]> {
        self.entry_kinds
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, s)| s.as_slice())
    }

    /// Allocates a zero-filled global buffer of `len` bytes (aligned to 256); returns its
    /// address.
    ///
    /// # Errors
    /// The bytes are past the run's memory limit, or the host refuses them.
    pub fn alloc(&mut self, len: u64, label: &str) -> Result<u64, reserve::ReserveError> {
        self.global.allocate(len, 256, label)
    }

    /// The budget every allocation of this machine's runs draws from.
    pub fn budget(&self) -> &std::sync::Arc<reserve::Budget> {
        self.global.budget()
    }

    /// Writes bytes into global memory at `addr` (which must lie in one allocation).
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> bool {
        match self.global.find(addr, bytes.len().max(1) as u64) {
            Some(r) => {
                r.write_bytes(addr - r.base, bytes);
                true
            }
            None => false,
        }
    }

    /// Reads `len` bytes of global memory at `addr`, if they lie in one allocation.
    pub fn read(&self, addr: u64, len: u64) -> Option<Vec<u8>> {
        let n = usize::try_from(len).ok()?;
        let mut out = Vec::new();
        out.try_reserve_exact(n).ok()?;
        out.resize(n, 0);
        self.read_into(addr, &mut out).then_some(out)
    }

    /// Fills `out` with the bytes of global memory at `addr`; false when they do not lie in
    /// one allocation (a host program reads a large buffer piece by piece this way).
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> bool {
        match self.global.find(addr, out.len().max(1) as u64) {
            Some(r) => {
                r.read_bytes_into(addr - r.base, out);
                true
            }
            None => false,
        }
    }

    /// Checks `cfg`'s shape against its kernel without running or allocating anything: the
    /// grid and block limits, `.reqntid`/`.maxntid`, the cluster shape against the grid and the
    /// kernel's cluster directives, local and shared memory per CTA. A launch makes the same
    /// checks; this lets a caller refuse a whole plan before its first step runs.
    ///
    /// # Errors
    /// An unknown kernel or the first shape rule `cfg` breaks.
    pub fn check_launch_shape(&self, cfg: &LaunchConfig) -> Result<(), LaunchError> {
        let Some((_, kernel, _)) = self.entry_kinds.iter().find(|(n, _, _)| *n == cfg.kernel)
        else {
            return Err(LaunchError::NoSuchKernel {
                name: cfg.kernel.clone(),
                available: self
                    .entry_kinds
                    .iter()
                    .map(|(n, _, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        self.launch_shape(cfg, *kernel).map(|_| ())
    }

    /// The global allocation holding `addr`: its base address and length in bytes.
    pub fn allocation_of(&self, addr: u64) -> Option<(u64, u64)> {
        self.global.find(addr, 1).map(|r| (r.base, r.len))
    }

    /// Launches a kernel with its parameter values (raw little-endian bytes, one entry per
    /// parameter in order) and runs it to completion.
    ///
    /// # Errors
    /// An unknown kernel, mismatched arguments or an invalid shape. Faults of the program
    /// are reported in [`LaunchReport::fault`].
    pub fn launch(
        &mut self,
        cfg: &LaunchConfig,
        args: &[Vec<u8>],
    ) -> Result<LaunchReport, LaunchError> {
        let start = Instant::now();
        let (kernel, params) = self.param_buffer(cfg, args)?;
        let shape = self.launch_shape(cfg, kernel)?;
        let smem = &shape.smem;
        let shared_bytes = smem.bytes;
        let made = match self.launch_memory.take() {
            Some(m) => m,
            None => {
                let heap_base = self
                    .global
                    .allocate(HEAP_SIZE, 256, "device heap")
                    .map_err(LaunchError::Memory)?;
                // Cooperative launches read a workspace pointer as (%envreg1 << 32) |
                // %envreg2 (as nvcc's grid.sync() assembles it with bfi.b64).
                let workspace = self
                    .global
                    .allocate(4096, 256, "grid-sync workspace")
                    .map_err(LaunchError::Memory)?;
                (Heap::new(heap_base, HEAP_SIZE), workspace)
            }
        };
        let (heap, workspace) = &*self.launch_memory.insert(made);
        let workspace = *workspace;
        if let Some(r) = self.global.find(workspace, 4096) {
            r.write_bytes(0, &[0u8; 4096]);
        }
        let mut envreg = [0u32; 32];
        envreg[1] = (workspace >> 32) as u32;
        envreg[2] = workspace as u32;
        let nc_tracker = cfg.check_nc.then(nc_check::NcTracker::default);
        let l1s = cfg.l1.map(|(sms, lines)| l1::L1System::new(sms, lines));
        let race = cfg.race.map(|o| {
            std::sync::Arc::new(
                crate::race::RaceShared::new(
                    o,
                    std::sync::Arc::new(self.prog.race_ops.clone()),
                    cfg.grid,
                    cfg.block,
                )
                .with_cluster(shape.cluster_dims)
                .with_budget(self.global.budget().clone()),
            )
        });
        let launch_control = std::sync::Arc::new(
            crate::cluster_launch::control::LaunchControl::new(shape.clusters, cfg.try_cancel),
        );
        let env = Env {
            prog: &self.prog,
            global: &self.global,
            params: &params,
            consts: &self.consts,
            heap,
            kernel,
            kernel_name: &cfg.kernel,
            block: cfg.block,
            shared_bytes,
            launch_template: LaunchInfo {
                ntid: cfg.block,
                nctaid: cfg.grid,
                ctaid: [0; 3],
                envreg,
                dynamic_smem: cfg.dynamic_shared,
                total_smem: u32::try_from(smem.user_bytes).unwrap_or(u32::MAX),
                reserved: smem.reserved,
                nwarpid: 0,
                cluster: crate::cluster::shape::ClusterIds {
                    dims: shape.cluster_dims,
                    explicit: shape.explicit,
                    ..crate::cluster::shape::ClusterIds::default()
                },
                nsmid: cfg.device.sms,
                launch_control: std::sync::Arc::clone(&launch_control),
            },
            nc: nc_tracker.as_ref(),
            l1: l1s.as_ref(),
            tmem: cfg.tmem,
            proxy: (
                cfg.proxy_check,
                cfg.proxy_check && crate::tma::tensormap::uses_async_proxy(&self.prog),
            ),
            wgmma_strict: cfg.wgmma_strict,

            race: race.as_ref(),
            max_call_depth: cfg.max_call_depth,
        };
        let (counts, outputs, fault) = grid::run_grid(&env, cfg, shape.clusters);
        if let Some(Fault {
            kind: FaultKind::HostMemory(e),
            ..
        }) = fault
        {
            return Err(LaunchError::Memory(e));
        }
        let mut stdout = Vec::new();
        let mut tmem_trace = Vec::new();
        for o in outputs {
            stdout.extend(o.stdout);
            tmem_trace.extend(o.tmem_trace);
        }
        let nc_conflicts = nc_tracker
            .map(|t| {
                t.conflicts()
                    .into_iter()
                    .map(|c| {
                        nc_check::NcReport::of(
                            &c,
                            &self.prog.info,
                            &self.prog.file_name,
                            &cfg.kernel,
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(LaunchReport {
            counts,
            stdout,
            wall: start.elapsed(),
            fault,
            nc_conflicts,
            cache: l1s.map(|l| l.stats()),
            tmem_trace,
            races: race.map(|r| {
                let mut rep = r.finish();
                rep.locate(&self.prog.info);
                rep
            }),
            clusters_canceled: launch_control.canceled(),
        })
    }

    /// The kernel `cfg` names (its function index) and its parameter buffer holding `args`.
    fn param_buffer(
        &self,
        cfg: &LaunchConfig,
        args: &[Vec<u8>],
    ) -> Result<(u32, Bytes), LaunchError> {
        let Some((_, kernel, sizes)) = self.entry_kinds.iter().find(|(n, _, _)| *n == cfg.kernel)
        else {
            let available: Vec<&str> = self
                .entry_kinds
                .iter()
                .map(|(n, _, _)| n.as_str())
                .collect();
            return Err(LaunchError::NoSuchKernel {
                name: cfg.kernel.clone(),
                available: available.join(", "),
            });
        };
        let kernel = *kernel;
        if args.len() != sizes.len() {
            return Err(LaunchError::BadArguments(format!(
                "kernel `{}` takes {} parameter(s) but {} argument(s) were given",
                cfg.kernel,
                sizes.len(),
                args.len()
            )));
        }
        let f = &self.prog.funcs[kernel as usize];
        let mut params =
            Bytes::zeroed(f.frame.params.iter().map(|(o, s)| o + s).max().unwrap_or(0) as usize);
        for (i, (arg, (off, size))) in args.iter().zip(&f.frame.params).enumerate() {
            if arg.len() as u64 != *size {
                return Err(LaunchError::BadArguments(format!(
                    "argument {i} of kernel `{}` has {} byte(s) but the parameter takes {}",
                    cfg.kernel,
                    arg.len(),
                    size
                )));
            }
            params.data[*off as usize..(*off + *size) as usize].copy_from_slice(arg);
        }
        Ok((kernel, params))
    }

    /// The grid, cluster and memory shape of launching `kernel`, refused before the launch
    /// allocates anything when the kernel cannot run or does not fit.
    fn launch_shape(&self, cfg: &LaunchConfig, kernel: u32) -> Result<Shape, LaunchError> {
        let f = &self.prog.funcs[kernel as usize];
        if let Some(why) = shape::launch_shape_error(cfg.grid, cfg.block) {
            return Err(LaunchError::BadShape(why));
        }
        let perf = self.perf_dirs.iter().find(|(n, _)| *n == cfg.kernel);
        if let Some(why) = perf.and_then(|(n, p)| shape::ntid_error(n, p, cfg.block)) {
            return Err(LaunchError::BadShape(why));
        }
        let dirs = self
            .cluster_dirs
            .iter()
            .find(|(n, _)| *n == cfg.kernel)
            .map(|(_, d)| d.clone())
            .unwrap_or_default();
        let (cluster_dims, explicit) =
            crate::cluster::shape::launch_shape(&cfg.kernel, cfg.cluster, &dirs, cfg.grid)
                .map_err(LaunchError::BadShape)?;
        let clusters = (0..3)
            .map(|i| u64::from(cfg.grid[i] / cluster_dims[i]))
            .product::<u64>();
        let per_cluster: u64 = cluster_dims.iter().map(|&d| u64::from(d)).product();
        if let Some(n) = cfg.device.resident_ctas.filter(|&n| n < per_cluster) {
            return Err(LaunchError::BadShape(format!(
                "at most {n} CTA(s) may be resident at once, fewer than a cluster's {per_cluster}"
            )));
        }
        if !matches!(f.kind, DFuncKind::Code { .. }) {
            return Err(LaunchError::NoSuchKernel {
                name: cfg.kernel.clone(),
                available: String::new(),
            });
        }
        if let Some(error) = &f.refused {
            return Err(LaunchError::Refused {
                kernel: cfg.kernel.clone(),
                error: error.clone(),
            });
        }
        let local_bytes = self.prog.module_local_size.div_ceil(16) * 16 + f.frame.size;
        if local_bytes > frames::LOCAL_LIMIT {
            return Err(LaunchError::BadShape(format!(
                "kernel `{}` needs {local_bytes} bytes of local memory per thread; ptxemu gives a thread at most {}",
                cfg.kernel,
                frames::LOCAL_LIMIT
            )));
        }
        let smem = crate::exec::launch::shared_layout::CtaShared::of(
            &f.shared,
            u64::from(cfg.dynamic_shared),
        );
        if smem.user_bytes > cfg.device.max_shared_per_cta {
            return Err(LaunchError::BadShape(format!(
                "a CTA of `{}` would have {} bytes of shared memory ({} static, {} dynamic); the most a CTA can have is {}",
                cfg.kernel,
                smem.user_bytes,
                f.shared.dynamic_offset - f.shared.base,
                cfg.dynamic_shared,
                cfg.device.max_shared_per_cta
            )));
        }
        Ok(Shape {
            cluster_dims,
            explicit,
            clusters,
            smem,
        })
    }
}

/// The shape of one launch, checked.
struct Shape {
    /// The cluster's dimensions.
    cluster_dims: [u32; 3],
    /// `%is_explicit_cluster`: the launch gave a cluster shape.
    explicit: bool,
    /// The number of clusters in the grid.
    clusters: u64,
    /// Each CTA's shared memory.
    smem: crate::exec::launch::shared_layout::CtaShared,
}
