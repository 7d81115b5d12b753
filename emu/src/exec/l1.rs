//! `ptxemu run --cache-model l1`: an operational model of the per-SM L1 caches that the cache
//! operators talk about (PTX ISA "Cache Operators"). Each SM has a non-coherent L1 for global
//! data; CTA `k` (linear index) runs on SM `k % sms`. L1 lines are 128 bytes, replaced least
//! recently used (lines allocated by `.cs`/`.lu` first).
//!
//! * Weak loads: `.ca` (default) reads through the L1 and allocates on a miss, so it may return
//!   a line another SM's store made stale; `.cs` and `.lu` do the same with evict-first lines;
//!   `.cg` bypasses the L1; `.cv` bypasses it and drops a matching line.
//! * Strong loads (`.relaxed`, `.volatile`, `.mmio`) and `ld.global.nc` bypass the L1;
//!   `.acquire` at `gpu`/`cluster`/`sys` scope also invalidates the SM's L1 afterwards.
//! * Stores write memory at once (L1 is write-through for global data) and update a matching
//!   line of their own SM (`.wb`, `.cs`, `.wt`), or drop it (`.cg`).
//! * Atomics and fences (`fence`, `membar`) invalidate the SM's L1.
//! * Every launch starts with empty L1s (the driver invalidates them between grids).
//!
//! What a stale line can return is a value some earlier write wrote, read by a weak load that
//! no synchronisation orders after the newer write, which the PTX memory model allows for weak
//! (data-racy) loads; ordered loads see memory. The default run stays coherent.

use std::collections::HashMap;
use std::sync::Mutex;

use super::memory::Region;

/// Bytes per L1 line.
pub const LINE: u64 = 128;

/// How loads and stores meet the L1 (decoded from the instruction's semantics and operator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum L1Use {
    /// Bypass the L1 (strong loads, `ld.global.nc`, `ldu`, non-global spaces).
    #[default]
    Bypass,
    /// A strong acquire at `gpu` scope or wider: bypass, then invalidate the SM's L1.
    Acquire,
    /// A weak load with this operator.
    Load(LoadOp),
    /// A store with this operator.
    Store(StoreOp),
}

/// Load cache operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadOp {
    /// `.ca`
    Ca,
    /// `.cg`
    Cg,
    /// `.cs`
    Cs,
    /// `.lu`
    Lu,
    /// `.cv`
    Cv,
}

/// Store cache operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreOp {
    /// `.wb`
    Wb,
    /// `.cg`
    Cg,
    /// `.cs`
    Cs,
    /// `.wt`
    Wt,
}

impl LoadOp {
    /// The operator's name.
    pub fn name(self) -> &'static str {
        match self {
            LoadOp::Ca => "ca",
            LoadOp::Cg => "cg",
            LoadOp::Cs => "cs",
            LoadOp::Lu => "lu",
            LoadOp::Cv => "cv",
        }
    }
}

impl StoreOp {
    /// The operator's name.
    pub fn name(self) -> &'static str {
        match self {
            StoreOp::Wb => "wb",
            StoreOp::Cg => "cg",
            StoreOp::Cs => "cs",
            StoreOp::Wt => "wt",
        }
    }
}

/// Counts for one operator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Accesses served by (loads) or updating (stores) a line of the L1.
    pub hits: u64,
    /// Accesses that found no line (a load then allocates one, except `.cg`/`.cv`).
    pub misses: u64,
    /// Lines evicted to make room.
    pub evictions: u64,
}

/// The counts of a launch: per load and store operator, and whole-L1 invalidations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// SMs modelled.
    pub sms: u32,
    /// Lines per SM.
    pub lines: usize,
    /// Per load operator (`ca`, `cg`, `cs`, `lu`, `cv`).
    pub loads: Vec<(&'static str, OpCounts)>,
    /// Per store operator (`wb`, `cg`, `cs`, `wt`).
    pub stores: Vec<(&'static str, OpCounts)>,
    /// Whole-L1 invalidations (acquires, atomics, fences).
    pub invalidations: u64,
}

struct Line {
    data: [u8; LINE as usize],
    stamp: u64,
    evict_first: bool,
}

#[derive(Default)]
struct Sm {
    lines: HashMap<u64, Line>,
    clock: u64,
    loads: [OpCounts; 5],
    stores: [OpCounts; 4],
    invalidations: u64,
}

/// The L1s of every SM for one launch.
pub struct L1System {
    sms: Vec<Mutex<Sm>>,
    capacity: usize,
}

impl L1System {
    /// `sms` empty L1s of `lines` lines each.
    pub fn new(sms: u32, lines: usize) -> L1System {
        L1System {
            sms: (0..sms.max(1)).map(|_| Mutex::new(Sm::default())).collect(),
            capacity: lines.max(1),
        }
    }

    fn sm(&self, cta_linear: u64) -> std::sync::MutexGuard<'_, Sm> {
        let k = (cta_linear % self.sms.len() as u64) as usize;
        self.sms[k].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A weak load of `size` bytes at `addr` (inside `r`) by a thread of CTA `cta_linear`.
    pub fn load(&self, cta_linear: u64, r: &Region, addr: u64, size: u32, op: LoadOp) -> u64 {
        let mut sm = self.sm(cta_linear);
        let tag = addr & !(LINE - 1);
        let k = op as usize;
        if matches!(op, LoadOp::Cg | LoadOp::Cv) {
            sm.loads[k].misses += 1;
            if op == LoadOp::Cv {
                sm.lines.remove(&tag);
            }
            return r.load(addr, size);
        }
        sm.clock += 1;
        let now = sm.clock;
        if let Some(line) = sm.lines.get_mut(&tag) {
            line.stamp = now;
            let v = read_le(&line.data, (addr - tag) as usize, size);
            sm.loads[k].hits += 1;
            return v;
        }
        sm.loads[k].misses += 1;
        if sm.lines.len() >= self.capacity {
            let victim = sm
                .lines
                .iter()
                .min_by_key(|(_, l)| (!l.evict_first, l.stamp))
                .map(|(t, _)| *t);
            if let Some(v) = victim {
                sm.lines.remove(&v);
                sm.loads[k].evictions += 1;
            }
        }
        let mut data = [0u8; LINE as usize];
        for (i, b) in data.iter_mut().enumerate() {
            let a = tag + i as u64;
            if r.contains(a, 1) {
                *b = r.load(a, 1) as u8;
            }
        }
        let v = read_le(&data, (addr - tag) as usize, size);
        sm.lines.insert(
            tag,
            Line {
                data,
                stamp: now,
                evict_first: matches!(op, LoadOp::Cs | LoadOp::Lu),
            },
        );
        v
    }

    /// A store of `size` bytes of `value` at `addr` (already written to memory): updates or
    /// drops the own SM's line.
    pub fn store(&self, cta_linear: u64, addr: u64, size: u32, value: u64, op: StoreOp) {
        let mut sm = self.sm(cta_linear);
        let tag = addr & !(LINE - 1);
        let k = op as usize;
        if op == StoreOp::Cg {
            let hit = sm.lines.remove(&tag).is_some();
            if hit {
                sm.stores[k].hits += 1;
            } else {
                sm.stores[k].misses += 1;
            }
            return;
        }
        match sm.lines.get_mut(&tag) {
            Some(line) => {
                let off = (addr - tag) as usize;
                line.data[off..off + size as usize]
                    .copy_from_slice(&value.to_le_bytes()[..size as usize]);
                sm.stores[k].hits += 1;
            }
            None => sm.stores[k].misses += 1,
        }
    }

    /// Drops every line of the SM that runs CTA `cta_linear`.
    pub fn invalidate(&self, cta_linear: u64) {
        let mut sm = self.sm(cta_linear);
        sm.lines.clear();
        sm.invalidations += 1;
    }

    /// The launch's counts.
    pub fn stats(&self) -> CacheStats {
        let mut loads = [OpCounts::default(); 5];
        let mut stores = [OpCounts::default(); 4];
        let mut invalidations = 0;
        for m in &self.sms {
            let sm = m.lock().unwrap_or_else(|e| e.into_inner());
            for (a, b) in loads.iter_mut().zip(&sm.loads) {
                a.hits += b.hits;
                a.misses += b.misses;
                a.evictions += b.evictions;
            }
            for (a, b) in stores.iter_mut().zip(&sm.stores) {
                a.hits += b.hits;
                a.misses += b.misses;
            }
            invalidations += sm.invalidations;
        }
        let lops = [LoadOp::Ca, LoadOp::Cg, LoadOp::Cs, LoadOp::Lu, LoadOp::Cv];
        let sops = [StoreOp::Wb, StoreOp::Cg, StoreOp::Cs, StoreOp::Wt];
        CacheStats {
            sms: self.sms.len() as u32,
            lines: self.capacity,
            loads: lops
                .iter()
                .map(|o| (o.name(), loads[*o as usize]))
                .collect(),
            stores: sops
                .iter()
                .map(|o| (o.name(), stores[*o as usize]))
                .collect(),
            invalidations,
        }
    }
}

fn read_le(data: &[u8], off: usize, size: u32) -> u64 {
    let mut b = [0u8; 8];
    b[..size as usize].copy_from_slice(&data[off..off + size as usize]);
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::memory::GlobalMemory;

    #[test]
    fn lines_hit_go_stale_and_are_replaced_evict_first_then_lru() {
        let mut g = GlobalMemory::new(1 << 32);
        let base = g.allocate(4096, 256, "t").unwrap();
        let r = g.find(base, 4096).expect("allocated");
        let l1 = L1System::new(2, 2);
        assert_eq!(l1.load(0, r, base, 4, LoadOp::Ca), 0);
        r.store(base, 4, 7); // another SM's write: memory only
        l1.store(1, base, 4, 7, StoreOp::Wb);
        assert_eq!(
            l1.load(0, r, base, 4, LoadOp::Ca),
            0,
            "SM 0's line is stale"
        );
        assert_eq!(l1.load(0, r, base, 4, LoadOp::Cg), 7, ".cg reads L2");
        assert_eq!(l1.load(2, r, base, 4, LoadOp::Ca), 0, "CTA 2 shares SM 0");
        l1.store(0, base, 4, 9, StoreOp::Wb);
        r.store(base, 4, 9);
        assert_eq!(
            l1.load(0, r, base, 4, LoadOp::Ca),
            9,
            "own stores update the line"
        );
        // Capacity 2: a .cs line goes first, then the least recently used.
        l1.load(0, r, base + 128, 4, LoadOp::Cs);
        l1.load(0, r, base + 256, 4, LoadOp::Ca);
        r.store(base, 4, 11);
        assert_eq!(
            l1.load(0, r, base, 4, LoadOp::Ca),
            9,
            "the .cs line was evicted, not x's"
        );
        l1.load(0, r, base + 512, 4, LoadOp::Ca); // evicts base+256 (least recent)
        assert_eq!(l1.load(0, r, base, 4, LoadOp::Ca), 9);
        l1.load(0, r, base, 4, LoadOp::Cv);
        assert_eq!(
            l1.load(0, r, base, 4, LoadOp::Ca),
            11,
            ".cv dropped the line"
        );
        l1.invalidate(0);
        let s = l1.stats();
        let ca = s.loads.iter().find(|(n, _)| *n == "ca").expect("ca").1;
        assert_eq!((ca.hits, ca.evictions), (5, 2));
        assert_eq!(s.invalidations, 1);
        let wb = s.stores.iter().find(|(n, _)| *n == "wb").expect("wb").1;
        assert_eq!((wb.hits, wb.misses), (1, 1));
    }
}
