//! The emulated memory: the generic address space and its windows, global memory shared by
//! every CTA (and safe to access from several host threads at once), and byte-addressed
//! private stores for shared, local, parameter and constant memory.
//!
//! Follows PTX ISA "State Spaces" and "Generic Addressing": a generic address falls in the
//! shared window, the local window, the constant window, the kernel-parameter window, or
//! else it is a global address. `cvta` converts between a space's own addresses (offsets from
//! 0) and generic addresses by adding or removing the window base.
//!
//! Deliberate deviations:
//! 1. Global memory is held as `AtomicU64` words and accessed with relaxed atomics of the
//!    access's size (u8/u16/u32/u64 views of the same words). Racing accesses of different
//!    sizes are outside Rust's atomic model in theory, but compile to plain loads and stores
//!    on the hosts we support; this is what lets independent CTAs run on several host threads.
//! 2. Allocations are separated by unmapped guard gaps, so small overruns fault instead of
//!    landing in a neighbouring buffer as they might on hardware.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

use super::reserve::{Budget, ReserveError};

/// Base of the generic window onto the executing CTA's shared memory.
pub const SHARED_WINDOW: u64 = 0x0000_7f00_0000_0000;
/// Base of the generic window onto the executing thread's local memory.
pub const LOCAL_WINDOW: u64 = 0x0000_7e00_0000_0000;
/// Base of the generic window onto the constant banks.
pub const CONST_WINDOW: u64 = 0x0000_7d00_0000_0000;
/// Base of the generic window onto the kernel's parameters.
pub const PARAM_WINDOW: u64 = 0x0000_7c00_0000_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 1 << 32;
/// Where global allocations start (64-bit modules).
pub const GLOBAL_BASE: u64 = 0x0000_0002_0000_0000;
/// Where global allocations start in 32-bit modules.
pub const GLOBAL_BASE_32: u64 = 0x1000_0000;
/// Unmapped bytes left between two global allocations.
pub const GUARD_GAP: u64 = 64 * 1024;
/// Where function "addresses" (for indirect calls) start; never mapped as memory.
pub const FUNCTION_BASE: u64 = 0x0000_7b00_0000_0000;
/// The largest single global allocation (a buffer, or the module's `.global` variables
/// together): device memory is host memory here, and a larger request is refused with this
/// limit named instead of exhausting the host.
pub const MAX_ALLOCATION: u64 = 1 << 34;
/// The most shared memory one CTA may have, static and dynamic together (227 KiB, the
/// opt-in maximum of sm_90 and sm_100), the 1 KiB reserved region not counted.
pub const MAX_SHARED_PER_CTA: u64 = 227 * 1024;
/// The size of a constant bank: the most `.const` data a module may declare.
pub const CONST_BANK_SIZE: u64 = 64 * 1024;

/// Which window a generic address falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    /// Shared memory, at this offset.
    Shared(u64),
    /// Local memory, at this offset.
    Local(u64),
    /// Constant memory, at this offset.
    Const(u64),
    /// Kernel parameters, at this offset.
    Param(u64),
    /// Global memory (the address unchanged).
    Global(u64),
}

/// Decodes a generic address into its window.
#[inline]
pub fn window_of(addr: u64) -> Window {
    let top = addr & !(WINDOW_SIZE - 1);
    match top {
        SHARED_WINDOW => Window::Shared(addr - SHARED_WINDOW),
        LOCAL_WINDOW => Window::Local(addr - LOCAL_WINDOW),
        CONST_WINDOW => Window::Const(addr - CONST_WINDOW),
        PARAM_WINDOW => Window::Param(addr - PARAM_WINDOW),
        _ => Window::Global(addr),
    }
}

/// A global-memory allocation.
#[derive(Debug)]
pub struct Region {
    /// The first address.
    pub base: u64,
    /// Size in bytes as requested.
    pub len: u64,
    /// What it holds (for messages): "argument 2", "module globals", "device heap" …
    pub label: String,
    words: Box<[AtomicU64]>,
}

impl Region {
    /// A zeroed allocation whose words come from `budget` (the allocator's zeroed pages:
    /// cheap for large allocations until touched).
    fn new(base: u64, len: u64, label: String, budget: &Budget) -> Result<Region, ReserveError> {
        let words = budget.zeroed_words(len, || label.clone())?;
        Ok(Region {
            base,
            len,
            label,
            words,
        })
    }

    /// Whether `[addr, addr+size)` lies inside this allocation.
    #[inline]
    pub fn contains(&self, addr: u64, size: u64) -> bool {
        addr >= self.base && size <= self.len && addr - self.base <= self.len - size
    }

    /// A pointer to the byte at `addr` (which must be inside).
    #[inline]
    fn byte_ptr(&self, addr: u64) -> *const u8 {
        let off = (addr - self.base) as usize;
        // SAFETY: callers check `contains`, and the words cover `len` bytes rounded up to 8.
        unsafe { (self.words.as_ptr() as *const u8).add(off) }
    }

    /// Loads `size` bytes (1, 2, 4 or 8, naturally aligned) at `addr`, zero-extended.
    #[inline]
    pub fn load(&self, addr: u64, size: u32) -> u64 {
        let p = self.byte_ptr(addr);
        // SAFETY: in bounds (checked by the caller) and naturally aligned (checked by the
        // caller against the access size), and the storage is atomic words.
        unsafe {
            match size {
                1 => u64::from((*(p as *const AtomicU8)).load(Ordering::Relaxed)),
                2 => u64::from((*(p as *const AtomicU16)).load(Ordering::Relaxed)),
                4 => u64::from((*(p as *const AtomicU32)).load(Ordering::Relaxed)),
                _ => (*(p as *const AtomicU64)).load(Ordering::Relaxed),
            }
        }
    }

    /// Stores the low `size` bytes (1, 2, 4 or 8, naturally aligned) of `value` at `addr`.
    #[inline]
    pub fn store(&self, addr: u64, size: u32, value: u64) {
        let p = self.byte_ptr(addr);
        // SAFETY: as for `load`.
        unsafe {
            match size {
                1 => (*(p as *const AtomicU8)).store(value as u8, Ordering::Relaxed),
                2 => (*(p as *const AtomicU16)).store(value as u16, Ordering::Relaxed),
                4 => (*(p as *const AtomicU32)).store(value as u32, Ordering::Relaxed),
                _ => (*(p as *const AtomicU64)).store(value, Ordering::Relaxed),
            }
        }
    }

    /// Atomically replaces the `size`-byte value at `addr` by `f(old)`; returns `old`.
    /// `f` returns `None` to leave memory unchanged (a failed compare-and-swap).
    #[inline]
    pub fn rmw(&self, addr: u64, size: u32, mut f: impl FnMut(u64) -> Option<u64>) -> u64 {
        let p = self.byte_ptr(addr);
        // SAFETY: as for `load`.
        unsafe {
            match size {
                4 => {
                    let a = &*(p as *const AtomicU32);
                    let mut old = a.load(Ordering::Relaxed);
                    loop {
                        let Some(new) = f(u64::from(old)) else {
                            return u64::from(old);
                        };
                        match a.compare_exchange_weak(
                            old,
                            new as u32,
                            Ordering::SeqCst,
                            Ordering::Relaxed,
                        ) {
                            Ok(_) => return u64::from(old),
                            Err(cur) => old = cur,
                        }
                    }
                }
                8 => {
                    let a = &*(p as *const AtomicU64);
                    let mut old = a.load(Ordering::Relaxed);
                    loop {
                        let Some(new) = f(old) else { return old };
                        match a.compare_exchange_weak(old, new, Ordering::SeqCst, Ordering::Relaxed)
                        {
                            Ok(_) => return old,
                            Err(cur) => old = cur,
                        }
                    }
                }
                2 => {
                    let a = &*(p as *const AtomicU16);
                    let mut old = a.load(Ordering::Relaxed);
                    loop {
                        let Some(new) = f(u64::from(old)) else {
                            return u64::from(old);
                        };
                        match a.compare_exchange_weak(
                            old,
                            new as u16,
                            Ordering::SeqCst,
                            Ordering::Relaxed,
                        ) {
                            Ok(_) => return u64::from(old),
                            Err(cur) => old = cur,
                        }
                    }
                }
                _ => {
                    let a = &*(p as *const AtomicU8);
                    let mut old = a.load(Ordering::Relaxed);
                    loop {
                        let Some(new) = f(u64::from(old)) else {
                            return u64::from(old);
                        };
                        match a.compare_exchange_weak(
                            old,
                            new as u8,
                            Ordering::SeqCst,
                            Ordering::Relaxed,
                        ) {
                            Ok(_) => return u64::from(old),
                            Err(cur) => old = cur,
                        }
                    }
                }
            }
        }
    }

    /// Copies the allocation's current bytes out.
    pub fn read_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len as usize);
        for w in self.words.iter() {
            out.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        out.truncate(self.len as usize);
        out
    }

    /// Copies `out.len()` bytes from `offset` (which, with them, must lie inside) into `out`.
    pub fn read_bytes_into(&self, offset: u64, out: &mut [u8]) {
        let start = offset as usize;
        let mut k = 0;
        while k < out.len() {
            let at = start + k;
            let w = self.words[at / 8].load(Ordering::Relaxed).to_le_bytes();
            // The rest of this word, or as much of it as `out` still takes.
            let n = (8 - at % 8).min(out.len() - k);
            out[k..k + n].copy_from_slice(&w[at % 8..at % 8 + n]);
            k += n;
        }
    }

    /// Overwrites the allocation's bytes from `bytes` (at most `len` of them).
    pub fn write_bytes(&self, offset: u64, bytes: &[u8]) {
        let mut i = 0usize;
        while i < bytes.len() {
            let a = self.base + offset + i as u64;
            if a.is_multiple_of(8) && i + 8 <= bytes.len() && self.contains(a, 8) {
                let mut w = [0u8; 8];
                w.copy_from_slice(&bytes[i..i + 8]);
                self.store(a, 8, u64::from_le_bytes(w));
                i += 8;
            } else {
                if self.contains(a, 1) {
                    self.store(a, 1, u64::from(bytes[i]));
                }
                i += 1;
            }
        }
    }
}

/// Global memory: a sorted set of allocations, each readable and writable from any host
/// thread, and the run's memory budget they (and the launch's other allocations) draw from.
#[derive(Debug)]
pub struct GlobalMemory {
    regions: Vec<Region>,
    next: u64,
    budget: Arc<Budget>,
}

impl GlobalMemory {
    /// Empty global memory whose allocations start at `base`, with no limit of its own.
    pub fn new(base: u64) -> GlobalMemory {
        GlobalMemory::with_budget(base, Arc::new(Budget::default()))
    }

    /// Empty global memory whose allocations start at `base` and draw from `budget`.
    pub fn with_budget(base: u64, budget: Arc<Budget>) -> GlobalMemory {
        GlobalMemory {
            regions: Vec::new(),
            next: base,
            budget,
        }
    }

    /// The budget every allocation of the run draws from.
    pub fn budget(&self) -> &Arc<Budget> {
        &self.budget
    }

    /// Allocates `len` bytes aligned to `align` (at least 256, as `cudaMalloc`), zeroed;
    /// returns the base address.
    ///
    /// # Errors
    /// The run's budget or the host refuses the bytes; nothing is allocated then.
    pub fn allocate(
        &mut self,
        len: u64,
        align: u64,
        label: impl Into<String>,
    ) -> Result<u64, ReserveError> {
        let align = align.max(256);
        let label = label.into();
        let base = self
            .next
            .checked_next_multiple_of(align)
            .filter(|b| b.checked_add(len.max(1) + GUARD_GAP).is_some())
            .ok_or_else(|| ReserveError {
                what: label.clone(),
                bytes: len,
                held: self.budget.held(),
                limit: self.budget.limit(),
                host_refused: true,
            })?;
        self.regions
            .push(Region::new(base, len, label, &self.budget)?);
        self.next = base + len.max(1) + GUARD_GAP;
        Ok(base)
    }

    /// Frees the allocation that starts at `base` (its addresses are never given out again,
    /// so a stale pointer to it faults); false when no allocation starts there.
    pub fn free(&mut self, base: u64) -> bool {
        match self.regions.binary_search_by_key(&base, |r| r.base) {
            Ok(i) => {
                let r = self.regions.remove(i);
                self.budget.give_back(r.len);
                true
            }
            Err(_) => false,
        }
    }

    /// The address the next allocation aligned to `align` (at least 256) will get.
    pub fn next_base(&self, align: u64) -> u64 {
        let align = align.max(256);
        self.next.div_ceil(align) * align
    }

    /// The allocation containing `[addr, addr+size)`, if any.
    #[inline]
    pub fn find(&self, addr: u64, size: u64) -> Option<&Region> {
        // Allocations are pushed in increasing address order.
        let idx = self.regions.partition_point(|r| r.base <= addr);
        let r = self.regions.get(idx.checked_sub(1)?)?;
        r.contains(addr, size).then_some(r)
    }

    /// The index of the allocation containing `addr` (for fast repeated lookups).
    #[inline]
    pub fn find_index(&self, addr: u64, size: u64) -> Option<usize> {
        let idx = self.regions.partition_point(|r| r.base <= addr);
        let i = idx.checked_sub(1)?;
        self.regions[i].contains(addr, size).then_some(i)
    }

    /// The allocation at an index returned by [`GlobalMemory::find_index`].
    #[inline]
    pub fn region(&self, i: usize) -> &Region {
        &self.regions[i]
    }

    /// Explains why `[addr, addr+size)` is not a valid global access, naming the nearer of
    /// the allocations on either side (an index below an array's start lands in the guard gap
    /// after the previous one, yet belongs to the array that follows).
    pub fn explain_miss(&self, addr: u64, size: u64) -> String {
        if addr == 0 {
            return "null address".into();
        }
        let idx = self.regions.partition_point(|r| r.base <= addr);
        let before = idx.checked_sub(1).map(|i| &self.regions[i]).and_then(|r| {
            let past = (addr + size).saturating_sub(r.base + r.len);
            (addr < r.base + r.len.max(1) + GUARD_GAP).then_some((r, past))
        });
        let after = self
            .regions
            .get(idx)
            .and_then(|r| (r.base - addr <= GUARD_GAP).then_some((r, r.base - addr)));
        match (before, after) {
            (Some((r, past)), Some((_, ahead))) if past <= ahead => Self::past_end(r, past),
            (Some((r, past)), None) => Self::past_end(r, past),
            (_, Some((r, ahead))) => format!(
                "{} byte(s) before the start of {} (0x{:x}, {} bytes)",
                ahead, r.label, r.base, r.len
            ),
            (None, None) => "the address maps to no allocation".into(),
        }
    }

    fn past_end(r: &Region, past: u64) -> String {
        format!(
            "{} byte(s) past the end of {} (0x{:x}, {} bytes)",
            past, r.label, r.base, r.len
        )
    }
}

/// A private, byte-addressed memory (shared memory of a CTA, a lane's local memory, the
/// kernel parameters, the constant banks) accessed by one host thread at a time.
#[derive(Clone, Debug, Default)]
pub struct Bytes {
    /// The contents.
    pub data: Vec<u8>,
}

impl Bytes {
    /// Zeroed memory of `len` bytes (small, fixed sizes: parameters, tests).
    pub fn zeroed(len: usize) -> Bytes {
        Bytes { data: vec![0; len] }
    }

    /// Zeroed memory of `len` bytes for `what`, taken from `budget` (sizes the input names:
    /// shared and local memory).
    ///
    /// # Errors
    /// The budget or the host refuses the bytes.
    pub fn reserved(
        budget: &Budget,
        len: u64,
        what: impl Fn() -> String,
    ) -> Result<Bytes, ReserveError> {
        Ok(Bytes {
            data: budget.zeroed_bytes(len, what)?,
        })
    }

    /// Whether `[off, off+size)` is inside.
    #[inline]
    pub fn contains(&self, off: u64, size: u64) -> bool {
        let len = self.data.len() as u64;
        size <= len && off <= len - size
    }

    /// Loads `size` bytes (1..=8) little-endian at `off` (which must be inside).
    #[inline]
    pub fn load(&self, off: u64, size: u32) -> u64 {
        let o = off as usize;
        match size {
            1 => u64::from(self.data[o]),
            2 => u64::from(u16::from_le_bytes([self.data[o], self.data[o + 1]])),
            4 => {
                let mut b = [0u8; 4];
                b.copy_from_slice(&self.data[o..o + 4]);
                u64::from(u32::from_le_bytes(b))
            }
            _ => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&self.data[o..o + 8]);
                u64::from_le_bytes(b)
            }
        }
    }

    /// Stores the low `size` bytes (1..=8) of `value` little-endian at `off`.
    #[inline]
    pub fn store(&mut self, off: u64, size: u32, value: u64) {
        let o = off as usize;
        let n = size as usize;
        self.data[o..o + n].copy_from_slice(&value.to_le_bytes()[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_decode() {
        assert_eq!(window_of(SHARED_WINDOW + 12), Window::Shared(12));
        assert_eq!(window_of(LOCAL_WINDOW), Window::Local(0));
        assert_eq!(window_of(CONST_WINDOW + 4), Window::Const(4));
        assert_eq!(window_of(PARAM_WINDOW + 8), Window::Param(8));
        assert_eq!(window_of(GLOBAL_BASE + 8), Window::Global(GLOBAL_BASE + 8));
        assert_eq!(window_of(0), Window::Global(0));
    }

    #[test]
    fn global_allocations_are_aligned_and_guarded() {
        let mut g = GlobalMemory::new(GLOBAL_BASE);
        let a = g.allocate(10, 1, "argument 0").unwrap();
        let b = g.allocate(4, 1, "argument 1").unwrap();
        assert_eq!(a % 256, 0);
        assert_eq!(b % 256, 0);
        assert!(b >= a + 10 + GUARD_GAP);
        assert!(g.find(a, 4).is_some());
        assert!(g.find(a + 8, 4).is_none(), "crosses the end");
        assert!(g.find(a + 6, 4).is_some());
        assert!(g.find(a + 10, 1).is_none());
        assert!(g
            .explain_miss(a + 12, 4)
            .contains("past the end of argument 0"));
        assert!(g
            .explain_miss(b - 4, 4)
            .contains("before the start of argument 1"));
        assert_eq!(g.explain_miss(0, 4), "null address");
    }

    #[test]
    fn a_miss_names_the_nearer_allocation() {
        // Rodinia srad_v2 reads J[tx - cols] in its first row of CTAs: 256 bytes before J, which
        // (J's predecessor filling whole 256-byte units) lies inside the predecessor's guard gap.
        let mut g = GlobalMemory::new(GLOBAL_BASE);
        let a = g.allocate(16384, 256, "argument 3").unwrap();
        let b = g.allocate(16384, 256, "argument 4").unwrap();
        assert_eq!(
            b,
            a + 16384 + GUARD_GAP,
            "no alignment padding between them"
        );
        let msg = g.explain_miss(b - 256, 4);
        assert!(
            msg.starts_with("256 byte(s) before the start of argument 4"),
            "{msg}"
        );
        let msg = g.explain_miss(a + 16384 + 8, 4);
        assert!(
            msg.starts_with("12 byte(s) past the end of argument 3"),
            "{msg}"
        );
    }

    #[test]
    fn global_loads_and_stores_of_every_size() {
        let mut g = GlobalMemory::new(GLOBAL_BASE);
        let a = g.allocate(16, 1, "buf").unwrap();
        let r = g.find(a, 16).unwrap();
        r.store(a, 8, 0x1122_3344_5566_7788);
        assert_eq!(r.load(a, 1), 0x88);
        assert_eq!(r.load(a + 1, 1), 0x77);
        assert_eq!(r.load(a + 2, 2), 0x5566);
        assert_eq!(r.load(a + 4, 4), 0x1122_3344);
        r.store(a + 2, 2, 0xabcd);
        assert_eq!(r.load(a, 8), 0x1122_3344_abcd_7788);
        let old = r.rmw(a + 8, 4, |v| Some(v + 5));
        assert_eq!(old, 0);
        assert_eq!(r.load(a + 8, 4), 5);
        let old = r.rmw(a + 8, 4, |_| None);
        assert_eq!((old, r.load(a + 8, 4)), (5, 5));
        assert_eq!(&r.read_bytes()[..2], &[0x88, 0x77]);
    }

    #[test]
    fn private_bytes() {
        let mut b = Bytes::zeroed(8);
        b.store(4, 4, 0xdead_beef);
        assert_eq!(b.load(4, 4), 0xdead_beef);
        assert_eq!(b.load(6, 2), 0xdead);
        assert!(b.contains(4, 4));
        assert!(!b.contains(5, 4));
        assert!(!b.contains(u64::MAX, 1));
    }
}
