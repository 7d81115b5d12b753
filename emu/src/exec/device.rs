//! Device memory that outlives one module, as a CUDA context's does: a host program (the
//! Python bindings) keeps one [`DeviceMemory`] per device, loads each module onto it with
//! [`Machine::load_onto`], and lends it to a module's machine for a launch or a variable
//! access with [`Machine::swap_memory`].

use std::sync::Arc;

use super::decode::{self, DecodeError};
use super::launch::heap::Heap;
use super::memory::{GlobalMemory, GLOBAL_BASE};
use super::program::DFuncKind;
use super::reserve::{Budget, ReserveError};
use super::{frames, LaunchConfig, Machine, HEAP_SIZE};
use crate::validate::Validated;

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
    /// Empty device memory with no limit of its own (the host's limits still apply).
    pub fn new() -> DeviceMemory {
        DeviceMemory::with_limit(None)
    }

    /// Empty device memory whose run may hold at most `limit` bytes (`--memory-limit`):
    /// buffers, module variables, the heap, the running CTAs' shared and local memory and
    /// the race detector's shadow memory (see [`super::reserve`]).
    pub fn with_limit(limit: Option<u64>) -> DeviceMemory {
        DeviceMemory {
            global: GlobalMemory::with_budget(GLOBAL_BASE, Arc::new(Budget::new(limit))),
            launch_memory: None,
        }
    }

    /// The budget the device's allocations draw from.
    pub fn budget(&self) -> &Arc<Budget> {
        self.global.budget()
    }

    /// Allocates a zero-filled buffer of `len` bytes (aligned to 256); returns its address.
    ///
    /// # Errors
    /// The bytes are past the limit, or the host refuses them.
    pub fn alloc(&mut self, len: u64, label: &str) -> Result<u64, ReserveError> {
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
    /// Decodes a module the validator accepted, whose global variables are placed in `memory`,
    /// after what is already
    /// allocated there. The machine takes the memory (leaving empty memory in its place) until
    /// [`Machine::swap_memory`] lends it back; on an error `memory` is left as it was.
    ///
    /// # Errors
    /// A construct the interpreter cannot run.
    pub fn load_onto(
        memory: &mut DeviceMemory,
        module: &Validated,
        file_name: &str,
        source: &str,
    ) -> Result<Machine, DecodeError> {
        let base = memory.global.next_base(256);
        let prog = decode::decode(module, file_name, source, base)?;
        let module = module.module();
        if !prog.globals_image.is_empty() {
            // Placed through the run's budget before anything else of the run is allocated:
            // fresh device memory is zero, so only the initialisers are written, and an
            // untouched page of a large `.global` array costs no host memory.
            let at = memory
                .alloc(prog.globals_image.len, "the module's .global variables")
                .map_err(DecodeError::Memory)?;
            debug_assert_eq!(at, prog.globals_base);
            for (off, bytes) in &prog.globals_image.inits {
                memory.write(at + off, bytes);
            }
        }
        let memory = std::mem::take(memory);
        Ok(Machine::assemble(prog, module, memory))
    }

    /// Exchanges this machine's device memory with `memory`.
    pub fn swap_memory(&mut self, memory: &mut DeviceMemory) {
        std::mem::swap(&mut self.global, &mut memory.global);
        std::mem::swap(&mut self.launch_memory, &mut memory.launch_memory);
    }
}

impl Machine {
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
        let shared = crate::exec::launch::shared_layout::CtaShared::of(
            &f.shared,
            u64::from(cfg.dynamic_shared),
        );
        let local = self.prog.module_local_size.div_ceil(16) * 16 + f.frame.size;
        let regs = frames::register_bytes(f.value_slots, f.pred_slots) * per_cta.div_ceil(32);
        let mut parts = vec![
            (
                "the module's global variables".to_string(),
                self.prog.globals_image.len,
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
