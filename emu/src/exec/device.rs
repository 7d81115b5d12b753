//! Device memory that outlives one module, as a CUDA context's does: a host program (the
//! Python bindings) keeps one [`DeviceMemory`] per device, loads each module onto it with
//! [`Machine::load_onto`], and lends it to a module's machine for a launch or a variable
//! access with [`Machine::swap_memory`].

use super::builtins::Heap;
use super::decode::{self, DecodeError};
use super::memory::{GlobalMemory, GLOBAL_BASE};
use super::program::DFuncKind;
use super::{frames, LaunchConfig, Machine, HEAP_SIZE};
use crate::ir::Module;

/// Global memory, the device heap and the grid-sync workspace of one device.
#[derive(Debug)]
pub struct DeviceMemory {
    pub(super) global: GlobalMemory,
    pub(super) launch_memory: Option<(Heap, u64)>,
}

impl Default for DeviceMemory {
    fn default() -> Self {
        DeviceMemory::new()
    }
}

impl DeviceMemory {
    /// Empty device memory.
    pub fn new() -> DeviceMemory {
        DeviceMemory {
            global: GlobalMemory::new(GLOBAL_BASE),
            launch_memory: None,
        }
    }

    /// Allocates a zero-filled buffer of `len` bytes (aligned to 256); returns its address.
    pub fn alloc(&mut self, len: u64, label: &str) -> u64 {
        self.global.allocate(len, 256, label)
    }

    /// Frees the allocation made at `addr` by [`DeviceMemory::alloc`]; false when there is
    /// none.
    pub fn free(&mut self, addr: u64) -> bool {
        self.global.free(addr)
    }

    /// Writes `bytes` at `addr`; false when they do not lie in one allocation.
    pub fn write(&self, addr: u64, bytes: &[u8]) -> bool {
        match self.global.find(addr, bytes.len().max(1) as u64) {
            Some(r) => {
                r.write_bytes(addr - r.base, bytes);
                true
            }
            None => false,
        }
    }

    /// Fills `out` with the bytes at `addr`; false when they do not lie in one allocation.
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> bool {
        match self.global.find(addr, out.len().max(1) as u64) {
            Some(r) => {
                r.read_bytes_into(addr - r.base, out);
                true
            }
            None => false,
        }
    }
}

impl Machine {
    /// Decodes a module whose global variables are placed in `memory`, after what is already
    /// allocated there. The machine takes the memory (leaving empty memory in its place) until
    /// [`Machine::swap_memory`] lends it back; on an error `memory` is left as it was.
    ///
    /// # Errors
    /// A construct the interpreter cannot run.
    pub fn load_onto(
        memory: &mut DeviceMemory,
        module: &Module,
        file_name: &str,
        source: &str,
    ) -> Result<Machine, DecodeError> {
        let base = memory.global.next_base(256);
        let prog = decode::decode(module, file_name, source, base)?;
        let mut memory = std::mem::take(memory);
        if !prog.globals_image.is_empty() {
            let at = memory.alloc(prog.globals_image.len() as u64, "module globals");
            debug_assert_eq!(at, prog.globals_base);
            // Only the pages with initialisers are written: fresh device memory is zero, and
            // an untouched page of a large `.global` array then costs no host memory.
            for (k, page) in prog.globals_image.chunks(4096).enumerate() {
                if page.iter().any(|&b| b != 0) {
                    memory.write(at + k as u64 * 4096, page);
                }
            }
        }
        Ok(Machine::assemble(prog, module, memory))
    }

    /// Exchanges this machine's device memory with `memory`.
    pub fn swap_memory(&mut self, memory: &mut DeviceMemory) {
        std::mem::swap(&mut self.global, &mut memory.global);
        std::mem::swap(&mut self.launch_memory, &mut memory.launch_memory);
    }
}

impl Machine {
    /// Checks a launch's cluster shape (`None`: the kernel's `.reqnctapercluster`, else one
    /// CTA) against the kernel's cluster directives and the grid, as a launch checks it.
    ///
    /// # Errors
    /// No such kernel, or why the launch would be refused (a directive it contradicts, a
    /// cluster over the size limit, a grid the cluster does not divide).
    pub fn check_cluster(
        &self,
        kernel: &str,
        cluster: Option<[u32; 3]>,
        grid: [u32; 3],
    ) -> Result<(), String> {
        let Some((_, dirs)) = self.cluster_dirs.iter().find(|(n, _)| n == kernel) else {
            return Err(format!("no kernel named `{kernel}`"));
        };
        super::cluster::launch_shape(kernel, cluster, dirs, grid).map(|_| ())
    }

    /// What a launch of `cfg` would hold in host memory besides its buffer arguments, largest
    /// first: the module's global variables, the device heap (made by the first launch), and
    /// for the CTAs that run at once (one per host thread) their shared memory and their
    /// threads' local memory at entry (frames of deeper calls come later, each lane bounded
    /// by the local limit). `None` for an unknown kernel.
    pub fn footprint(&self, cfg: &LaunchConfig) -> Option<Vec<(String, u64)>> {
        let (_, kernel, _) = self.entry_kinds.iter().find(|(n, _, _)| *n == cfg.kernel)?;
        let f = &self.prog.funcs[*kernel as usize];
        if !matches!(f.kind, DFuncKind::Code { .. }) {
            return None;
        }
        let ctas: u64 = cfg.grid.iter().map(|&x| u64::from(x)).product();
        let threads = if cfg.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            cfg.threads
        };
        let at_once = ctas.min(threads as u64).max(1);
        let per_cta: u64 = cfg.block.iter().map(|&x| u64::from(x)).product();
        let shared = decode::shared::CtaShared::of(&f.shared, u64::from(cfg.dynamic_shared));
        let local = self.prog.module_local_size.div_ceil(16) * 16 + f.frame.size;
        let regs = frames::register_bytes(f.value_slots, f.pred_slots) * per_cta.div_ceil(32);
        let mut parts = vec![
            (
                "the module's global variables".to_string(),
                self.prog.globals_image.len() as u64,
            ),
            (
                format!("shared memory of {at_once} CTA(s) running at once"),
                shared.bytes.saturating_mul(at_once),
            ),
            (
                format!("local memory and registers of {at_once} CTA(s) of {per_cta} thread(s)"),
                local
                    .saturating_mul(per_cta)
                    .saturating_add(regs)
                    .saturating_mul(at_once),
            ),
        ];
        if self.launch_memory.is_none() {
            parts.push(("the device heap".to_string(), HEAP_SIZE + 4096));
        }
        parts.sort_by_key(|p| std::cmp::Reverse(p.1));
        Some(parts)
    }
}
