//! Shadow memory: per 4-byte word touched, the last write, the reads since it, and the
//! release payload the last strong write carries. Memory grows with the words touched, not
//! with threads × bytes: a word holds one write and the reads no later access has made
//! redundant. It counts against the run's memory budget (`exec::reserve`, `--memory-limit`):
//! pages of cells, the flat cells of shared memory, the growth of each word's list of
//! earlier accesses, and the Fence-SC reach map of `sc_order` (its words and their clocks).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use models::vocab::Scope;
use smallvec::SmallVec;

use super::sc_order::ReachMap;
use super::vc::Vc;
use crate::exec::reserve::{Budget, ReserveError};

/// Entries kept per word beside the last write (reads, and earlier writes) before new ones are
/// forgotten (a later access then cannot be checked against them; docs/race.md).
pub const MAX_EARLIER: usize = 4096;

/// One access as shadow memory remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acc {
    /// Linear thread id over the grid.
    pub gtid: u32,
    /// The thread's clock at the access.
    pub clk: u32,
    /// The instruction.
    pub pc: u32,
    /// The state-space address (a global address, or an offset in the CTA's shared memory).
    pub addr: u64,
    /// Bytes.
    pub size: u8,
    /// Shared memory (else global).
    pub shared: bool,
    /// Whether it wrote (an atomic that wrote, or a store).
    pub write: bool,
    /// How many full-CTA barriers (every thread of the CTA waiting) its CTA had completed.
    pub gen: u32,
    /// `0`: the access of thread `gtid`. Otherwise (reads kept in shadow memory only) the same
    /// read by several threads: with `step` 0, by lanes of one warp at the same clock
    /// (threads `gtid + i` for each bit `i`, `gtid` being the warp's lane 0); else see `step`.
    pub lanes: u32,
    /// `0`, or (reads kept in shadow memory only) a run of single reads kept as one entry:
    /// threads `gtid + i * step` for each bit `i` of `lanes` (bit 0 always set, at least two
    /// bits), each its own access of the same instruction, bytes, clock and barrier
    /// generation, added in that order with nothing else between them (the same word read by
    /// one thread in each of several CTAs). Everything that weighs kept accesses one by one
    /// sees its members one by one (`cta::cells`).
    pub step: u32,
    /// A fingerprint of the bytes a write left (0: not known), so that writes of identical
    /// bytes by the lanes of one instruction are told apart from other races.
    pub fp: u32,
}

impl Acc {
    /// Whether the two accesses touch a common byte.
    pub fn overlaps(&self, o: &Acc) -> bool {
        self.addr < o.addr + u64::from(o.size) && o.addr < self.addr + u64::from(self.size)
    }

    /// Whether this is the single access of thread `t`.
    #[inline]
    pub fn is(&self, t: u32) -> bool {
        self.lanes == 0 && self.gtid == t
    }

    /// The threads it stands for, in the order they were added.
    pub fn members(&self) -> impl Iterator<Item = u32> + '_ {
        let (single, lanes) = (self.lanes == 0, self.lanes);
        let step = self.step.max(1);
        (0..32u32)
            .filter(move |i| {
                if single {
                    *i == 0
                } else {
                    lanes & (1 << i) != 0
                }
            })
            .map(move |i| self.gtid.wrapping_add(i.wrapping_mul(step)))
    }

    /// Thread `t`'s own access of a group (or the access itself).
    pub fn member(&self, t: u32) -> Acc {
        Acc {
            gtid: t,
            lanes: 0,
            step: 0,
            ..*self
        }
    }

    /// Whether it is a run of single reads kept as one entry (see `step`).
    #[inline]
    pub fn is_run(&self) -> bool {
        self.step != 0
    }

    /// A run's newest member's own access (the run's last bit).
    pub fn newest_member(&self) -> Acc {
        let top = 31 - self.lanes.leading_zeros().min(31);
        self.member(self.gtid.wrapping_add(top.wrapping_mul(self.step)))
    }

    /// Whether they cover exactly the same bytes.
    pub fn same_bytes(&self, o: &Acc) -> bool {
        self.addr == o.addr && self.size == o.size
    }
}

/// One release of a release pattern, carried by the strong write that ends it.
#[derive(Clone, Debug)]
pub struct Rel {
    /// The releasing thread.
    pub origin: u32,
    /// Its CTA (linear).
    pub cta: u32,
    /// The scope of the pattern's first event (the release write or release fence).
    pub scope: Scope,
    /// That event's instruction.
    pub pc: u32,
    /// The thread's clock at the release (its own entry included).
    pub base: Arc<Vc>,
}

/// What an acquire can take from a location: the releases observed through it.
pub type Payload = Arc<[Rel]>;

/// The shadow of one 4-byte word.
///
/// To report every pair of instructions that races (not only the first race of each word),
/// an access leaves the history only when a later access of the same instruction, on the
/// same bytes, is ordered after it: any access that races with the earlier one then races
/// with the later one too, which stands for it. Otherwise it stays (up to [`MAX_EARLIER`]
/// entries), ordered before later accesses or not.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    /// The last write (whose releases `payload` carries).
    pub write: Option<Acc>,
    /// The other accesses still in the history, oldest first: reads, and earlier writes.
    pub earlier: SmallVec<[Acc; 1]>,
    /// How many of `earlier` are writes (a read checks them only when some are).
    pub earlier_writes: u16,
    /// Accesses the runs of `earlier` stand for beyond one each (see [`Acc::step`]): the
    /// history holds `earlier.len() + folded` accesses, and [`MAX_EARLIER`] and pruning
    /// count those.
    pub folded: u32,
    /// The releases the last write carries (strong writes only).
    pub payload: Option<Payload>,
    /// The thread of the newest entry of `earlier` (meaningful while it is not empty).
    pub newest_thread: u32,
    /// The oldest full-barrier generation among the entries of `earlier` by threads of the
    /// CTA of `newest_thread` (`u32::MAX`: none), so that a read after a barrier knows, without
    /// reading the list, whether older reads can be dropped.
    pub oldest_gen: u32,
    /// Whether every entry of `earlier` is by a thread of the CTA of `newest_thread` (so that
    /// when the newest precedes a full barrier of that CTA, so do all: a write there need not
    /// look at the list).
    pub one_cta: bool,
    /// Reads added since the list was last pruned of the reads that later reads stand for
    /// (pruning when they reach the list's length costs O(1) per read, amortised, even with
    /// the list at [`MAX_EARLIER`]).
    pub reads_since_prune: u16,
    /// Writes added to the cell so far (never lowered while the cell lives): a thread whose
    /// read found no race against the cell's writes knows, from an unchanged count, that a
    /// later read of its own of the same instruction and bytes finds none either.
    pub writes_seen: u64,
    /// The last pruning of reads before a full barrier: (instruction, barrier generation,
    /// first thread of the CTA). Until a read of another instruction, generation or CTA comes,
    /// that pruning would find nothing new to drop, so it is not run again.
    pub barrier_pruned: (u32, u32, u32),
}

pub use crate::exec::word_hasher::WordHasher;

/// Words per shadow page: cells are kept in pages so that neighbouring words (a warp's
/// coalesced access, a thread's sweep) share cache lines and one table lookup.
const PAGE_WORDS: u64 = 256;

/// Words of a flat shadow (shared memory) past which cells go to pages instead.
const FLAT_WORDS: u64 = 1 << 16;

/// Host bytes of one cell, as the budget counts them.
pub const CELL_BYTES: usize = std::mem::size_of::<Cell>();

/// The run's memory budget as the shadows of one launch draw from it, and the first refusal
/// (the launch stops at the end of the slice that met it: `exec::grid`).
#[derive(Debug)]
pub struct ShadowBudget {
    budget: Arc<Budget>,
    refused: Mutex<Option<ReserveError>>,
    failed: AtomicBool,
}

impl ShadowBudget {
    /// Shadows drawing from `budget`.
    pub fn new(budget: Arc<Budget>) -> ShadowBudget {
        ShadowBudget {
            budget,
            refused: Mutex::new(None),
            failed: AtomicBool::new(false),
        }
    }

    /// The first refusal, if shadow memory went past the run's limit.
    pub fn refused(&self) -> Option<ReserveError> {
        if !self.failed.load(Ordering::Relaxed) {
            return None;
        }
        self.refused.lock().ok().and_then(|r| r.clone())
    }

    /// Takes `bytes` of shadow memory; false (the refusal kept) when the budget refuses.
    fn take(&self, bytes: u64) -> bool {
        if self.failed.load(Ordering::Relaxed) {
            return false;
        }
        match self
            .budget
            .take(bytes, || "the race detector's shadow memory".to_string())
        {
            Ok(()) => true,
            Err(e) => {
                if let Ok(mut r) = self.refused.lock() {
                    r.get_or_insert(e);
                }
                self.failed.store(true, Ordering::Relaxed);
                false
            }
        }
    }
}

/// Shadow memory of one address space (global memory, or one CTA's shared memory).
#[derive(Default)]
pub struct Shadow {
    /// Cells indexed by word, grown to the highest word touched (shared memory: small and
    /// dense, so no table lookup per access).
    flat: Option<Vec<Cell>>,
    pages: HashMap<u64, Box<[Cell]>, BuildHasherDefault<WordHasher>>,
    last: Option<(u64, *mut Cell)>,
    /// The fence reach its words pass on (kernels with `fence.sc` only: `sc_order`); go
    /// through [`Shadow::pass_reach`], which counts it.
    reach: ReachMap,
    /// Bytes of `reach` taken from the budget (part of `held`).
    reach_counted: u64,
    /// Where the shadow's pages, flat cells and access lists are counted (none: uncounted).
    budget: Option<Arc<ShadowBudget>>,
    /// Bytes taken from the budget (given back when the shadow is dropped).
    held: u64,
    /// The cell handed out once the budget has refused: the detector's work after that point
    /// is discarded, since the launch stops at the end of the slice.
    spare: Option<Box<Cell>>,
}

impl Drop for Shadow {
    fn drop(&mut self) {
        if let Some(b) = &self.budget {
            b.budget.give_back(self.held);
        }
    }
}

// SAFETY: `last` points into a page owned by `pages` (boxed slices never move while the map
// holds them); the shadow is only used behind `&mut` or a mutex.
unsafe impl Send for Shadow {}

impl Shadow {
    /// A shadow kept as one vector indexed by word (below 64Ki words; pages past it).
    pub fn flat() -> Shadow {
        let mut s = Shadow::default();
        s.flat = Some(Vec::new());
        s
    }

    /// A shadow counted against `budget` (see [`Shadow::flat`] for the kind).
    pub fn counted(mut self, budget: Option<&Arc<ShadowBudget>>) -> Shadow {
        if self.budget.is_none() {
            if let Some(b) = budget {
                let held = (self.words() * CELL_BYTES) as u64;
                if b.take(held) {
                    self.held = held;
                }
                self.budget = Some(b.clone());
            }
        }
        self
    }

    /// Takes `bytes` from the budget (always granted without one).
    fn take(&mut self, bytes: u64) -> bool {
        match &self.budget {
            None => true,
            Some(b) if b.take(bytes) => {
                self.held += bytes;
                true
            }
            Some(_) => false,
        }
    }

    /// Passes fence reach through word `w` ([`ReachMap::access`]) and counts the map's
    /// change in size against the budget.
    pub fn pass_reach(&mut self, w: u64, base: &mut Arc<Vc>, reads: bool, writes: bool) {
        self.reach.access(w, base, reads, writes);
        let now = self.reach.held() as u64;
        if now > self.reach_counted {
            if self.take(now - self.reach_counted) {
                self.reach_counted = now;
            }
        } else if now < self.reach_counted {
            let freed = (self.reach_counted - now).min(self.held);
            if let Some(b) = &self.budget {
                b.budget.give_back(freed);
            }
            self.held -= freed;
            self.reach_counted = now;
        }
    }

    /// Counts `n` more kept accesses' room (a word's list of earlier accesses grew).
    #[inline]
    pub fn earlier_grew(&mut self, n: usize) {
        if n > 0 {
            self.take((n * std::mem::size_of::<Acc>()) as u64);
        }
    }

    /// The cell of word `w` (address / 4), made on first use.
    #[inline]
    pub fn cell(&mut self, w: u64) -> &mut Cell {
        // The common cases inline: a flat cell already there, a word of the last page used.
        let i = w as usize;
        if w < FLAT_WORDS && self.flat.as_ref().is_some_and(|v| i < v.len()) {
            let Shadow { flat, spare, .. } = self;
            return match flat.as_mut() {
                Some(v) => &mut v[i],
                None => cleared(spare),
            };
        }
        if let Some((p, ptr)) = self.last {
            if p == w / PAGE_WORDS && (self.flat.is_none() || w >= FLAT_WORDS) {
                // SAFETY: see the `Send` impl; the index is below PAGE_WORDS.
                return unsafe { &mut *ptr.add((w % PAGE_WORDS) as usize) };
            }
        }
        self.cell_made(w)
    }

    /// [`Shadow::cell`] past its common cases: the flat vector grown, or a page looked up
    /// (made on first use).
    #[inline(never)]
    fn cell_made(&mut self, w: u64) -> &mut Cell {
        if self.flat.is_some() && w < FLAT_WORDS {
            let i = w as usize;
            let len = self.flat.as_ref().map_or(0, Vec::len);
            let room = i < len || {
                let to = (i + 1).next_power_of_two().max(64);
                let granted = self.take(((to - len) * CELL_BYTES) as u64);
                if let (true, Some(v)) = (granted, self.flat.as_mut()) {
                    v.resize(to, Cell::default());
                }
                granted
            };
            let Shadow { flat, spare, .. } = self;
            return match flat.as_mut() {
                Some(v) if room => &mut v[i],
                _ => cleared(spare),
            };
        }
        let (page, index) = (w / PAGE_WORDS, (w % PAGE_WORDS) as usize);
        if let Some((p, ptr)) = self.last {
            if p == page {
                // SAFETY: see the `Send` impl; `index` < PAGE_WORDS.
                return unsafe { &mut *ptr.add(index) };
            }
        }
        if !self.pages.contains_key(&page) && !self.take(PAGE_WORDS * CELL_BYTES as u64) {
            self.last = None;
            return cleared(&mut self.spare);
        }
        let cells = self
            .pages
            .entry(page)
            .or_insert_with(|| vec![Cell::default(); PAGE_WORDS as usize].into_boxed_slice());
        let ptr = cells.as_mut_ptr();
        self.last = Some((page, ptr));
        &mut cells[index]
    }

    /// Forgets every access but keeps the flat vector and the cells' read lists allocated,
    /// for the next CTA's shared memory (no allocation per CTA and word).
    pub fn reset(&mut self) {
        if let Some(v) = &mut self.flat {
            for c in v.iter_mut() {
                c.write = None;
                c.earlier.clear();
                c.earlier_writes = 0;
                c.folded = 0;
                c.payload = None;
                c.newest_thread = 0;
                c.oldest_gen = 0;
                c.one_cta = false;
                c.reads_since_prune = 0;
                c.barrier_pruned = (0, 0, 0);
            }
        }
        let pages = (self.pages.len() as u64) * PAGE_WORDS * CELL_BYTES as u64
            + std::mem::take(&mut self.reach_counted);
        self.reach.clear();
        self.pages.clear();
        self.last = None;
        if let Some(b) = &self.budget {
            let freed = pages.min(self.held);
            b.budget.give_back(freed);
            self.held -= freed;
        }
    }

    /// Words with a shadow (whole pages).
    pub fn words(&self) -> usize {
        self.pages.len() * PAGE_WORDS as usize + self.flat.as_ref().map_or(0, Vec::len)
    }
}

/// The spare cell, cleared: what an access gets once the budget refused.
fn cleared(spare: &mut Option<Box<Cell>>) -> &mut Cell {
    let c = spare.get_or_insert_with(Box::default);
    **c = Cell::default();
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race::vc::FENCE_REACH;

    /// A thread that has passed a `fence.sc` writes 1,000 words: the reach map keeps a clock
    /// per word, and that memory is drawn from the run's budget (and given back when the
    /// shadow is reset), so `--memory-limit` bounds it.
    #[test]
    fn the_fence_reach_map_counts_against_the_budget() {
        let budget = Arc::new(Budget::new(None));
        let sb = Arc::new(ShadowBudget::new(budget.clone()));
        let mut shadow = Shadow::flat().counted(Some(&sb));
        let start = budget.held();
        let mut base = Arc::new(Vc::default());
        Arc::make_mut(&mut base).raise(3 | FENCE_REACH, 1);
        for w in 0..1000 {
            shadow.pass_reach(w, &mut base, false, true);
        }
        let grown = budget.held() - start;
        // Each word keeps at least its table entry and one clock of one (thread, clock) entry.
        let least = 1000 * (std::mem::size_of::<u64>() + std::mem::size_of::<(u32, u32)>());
        assert!(grown as usize >= least, "{grown} < {least}");
        shadow.reset();
        assert_eq!(budget.held(), start);

        // With a limit below that, the budget refuses and names the detector.
        let tight = Arc::new(Budget::new(Some(start + 4096)));
        let sb = Arc::new(ShadowBudget::new(tight));
        let mut shadow = Shadow::flat().counted(Some(&sb));
        for w in 0..1000 {
            shadow.pass_reach(w, &mut base, false, true);
        }
        let refused = sb.refused().expect("the reach map went past the limit");
        assert!(refused.to_string().contains("race detector"), "{refused}");
    }
}
