//! One CTA's Tensor Memory (PTX ISA "Tensor Memory"; spec tcgen05.md §1–§4.7): 128 lanes ×
//! 512 columns of 32-bit cells, its allocation in 32-column slices, and, in checked mode, the
//! bookkeeping that finds accesses the PTX ISA leaves undefined.
//!
//! Checked mode detects every undefined access the spec lists: a lane outside the accessing
//! warp's quarter, columns outside [0, 512) or not allocated, a bad `nCols`, a dealloc that
//! matches no allocation, an alloc after `relinquish_alloc_permit`, Tensor Memory still
//! allocated when the CTA exits, and an access overtaking an earlier asynchronous one: a store
//! to cells a warp loaded with no `tcgen05.wait::ld` since (write after read), or a load of
//! cells a warp stored with no `tcgen05.wait::st` since (read after write). Pending loads and
//! stores are kept per warp, so the same rules find the race when the later access comes from
//! another warp after a thread synchronisation the first warp did not precede with its wait.
//!
//! Deliberate deviations and choices (spec §12):
//! 1. Each CTA has its own 512 columns (hardware shares them among the CTAs of an SM), so an
//!    allocation that does not fit is reported instead of blocking: it could never succeed.
//! 2. Allocation is first fit, aligned to its own size (what `FIND_AND_SET.ALIGN` suggests);
//!    the address stored has lane 0 and the first column.
//! 3. Newly allocated cells hold [`POISON`]; the PTX ISA leaves them unspecified.
//! 4. Any warp may deallocate; dealloc must name exactly an earlier (column, nCols) pair.
//! 5. The PTX ISA asks that the column count not grow from one allocation to the next; ptxemu
//!    does not check it.
//! 6. Unchecked mode still refuses lanes above 127 and columns above 511 (there is nothing to
//!    read there) but lets a warp reach any lane, unallocated columns, and accesses that
//!    overtake pending ones.

/// Lanes (rows) of Tensor Memory.
pub const LANES: u32 = 128;
/// Columns of Tensor Memory.
pub const COLUMNS: u32 = 512;
/// Columns per allocation slice.
pub const SLICE: u32 = 32;
/// What newly allocated cells hold.
pub const POISON: u32 = 0xDEAD_BEEF;

/// An allocation: its columns and who made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// The first column.
    pub column: u32,
    /// The number of columns.
    pub ncols: u32,
    /// The warp that allocated.
    pub warp: u32,
    /// The alloc instruction's pc.
    pub pc: u32,
}

/// An earlier asynchronous access a later one overtook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The warp that made it.
    pub warp: u32,
    /// Its instruction's pc.
    pub pc: u32,
}

/// Why a Tensor Memory operation is undefined (or, for [`TmemError::NoSpace`], impossible).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmemError {
    /// `nCols` is not a power of two in [32, 512].
    BadNcols {
        /// The value.
        ncols: u32,
    },
    /// No aligned run of free columns is long enough.
    NoSpace {
        /// Requested columns.
        ncols: u32,
        /// What is allocated.
        allocated: Vec<Allocation>,
    },
    /// `tcgen05.alloc` after `tcgen05.relinquish_alloc_permit`.
    AfterRelinquish,
    /// `tcgen05.dealloc` of columns no allocation starts at with that size.
    DeallocMismatch {
        /// The column named.
        column: u32,
        /// The count named.
        ncols: u32,
        /// What is allocated.
        allocated: Vec<Allocation>,
    },
    /// A lane above 127 or a column above 511.
    OutOfRange {
        /// The lane.
        lane: u32,
        /// The column.
        column: u32,
    },
    /// A lane outside the accessing warp's quarter.
    OutsideQuarter {
        /// The lane.
        lane: u32,
        /// The warp's quarter (`(linear tid / 32) % 4`).
        quarter: u32,
    },
    /// A column not currently allocated.
    NotAllocated {
        /// The lane.
        lane: u32,
        /// The column.
        column: u32,
    },
    /// A store to a cell an earlier `tcgen05.ld` of `by` has not been waited for.
    StoreOvertakesLoad {
        /// The lane.
        lane: u32,
        /// The column.
        column: u32,
        /// The pending load.
        by: Pending,
    },
    /// A load of a cell an earlier `tcgen05.st` of `by` has not been waited for.
    LoadOvertakesStore {
        /// The lane.
        lane: u32,
        /// The column.
        column: u32,
        /// The pending store.
        by: Pending,
    },
    /// An access of a cell that an asynchronous operation (`tcgen05.cp`, `tcgen05.mma`)
    /// writes and whose completion no thread has observed.
    AsyncPending {
        /// The lane.
        lane: u32,
        /// The column.
        column: u32,
        /// The pending operation.
        by: super::async_writes::AsyncWrite,
    },
}

/// The two asynchronous access kinds whose completion a warp waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `tcgen05.ld`
    Load,
    /// `tcgen05.st` (and `tcgen05.shift`'s writes)
    Store,
}

/// Consecutive cells (by index) that one instruction of a warp accessed asynchronously.
#[derive(Clone, Copy, Debug)]
struct PendingRun {
    first: u32,
    len: u32,
    /// The instruction's pc.
    pc: u32,
}

impl PendingRun {
    fn cells(&self) -> std::ops::Range<usize> {
        self.first as usize..(self.first + self.len) as usize
    }
}

/// Cells with pending accesses, per warp (checked mode).
#[derive(Clone, Debug, Default)]
struct Hazards {
    /// Per cell: warps (bit per warp, modulo 32) with a load not yet waited for.
    loads: Vec<u32>,
    /// Per cell: warps with a store not yet waited for.
    stores: Vec<u32>,
    /// Per warp: the runs of its pending loads, in issue order. A run is kept only when it
    /// made some cell pending, and a cell's earliest run names the load that made it so.
    warp_loads: Vec<Vec<PendingRun>>,
    /// Per warp: the runs of its pending stores, likewise.
    warp_stores: Vec<Vec<PendingRun>>,
}

impl Hazards {
    /// The per-cell warp masks and per-warp lists of one kind of access.
    fn of(&mut self, access: Access) -> (&mut Vec<u32>, &mut Vec<Vec<PendingRun>>) {
        match access {
            Access::Load => (&mut self.loads, &mut self.warp_loads),
            Access::Store => (&mut self.stores, &mut self.warp_stores),
        }
    }

    /// The per-cell warp masks and per-warp lists of the pending accesses an `access` must not
    /// overtake: stores for a load, loads for a store.
    fn overtaken_by(&self, access: Access) -> (&[u32], &[Vec<PendingRun>]) {
        match access {
            Access::Load => (&self.stores, &self.warp_stores),
            Access::Store => (&self.loads, &self.warp_loads),
        }
    }
}

/// One CTA's Tensor Memory.
#[derive(Clone, Debug)]
pub struct TensorMemory {
    cells: Vec<u32>,
    allocations: Vec<Allocation>,
    relinquished: bool,
    checked: bool,
    hazards: Hazards,
    /// Pending `tcgen05.mma` results (checked mode).
    pub mma: super::mma_track::MmaTrack,
    /// Writes of asynchronous operations (`tcgen05.cp`, `tcgen05.mma`) not yet observed
    /// complete (checked mode: a `tcgen05.ld` of such a cell is reported).
    pub async_writes: super::async_writes::AsyncWrites,
    /// The mbarrier phases each thread has observed (checked mode).
    pub observe: super::observe::Observations,
    /// The CTA's `.cta_group::2` allocation operations, matched against its pair peer's.
    pub pair: super::pair_log::PairLog,
}

/// The columns a [`TensorMemory`] accepts cells in (every one unless checked, else the
/// allocated ones), from [`TensorMemory::columns`].
#[derive(Clone, Debug)]
pub struct Columns {
    bits: [u64; COLUMNS as usize / 64],
}

impl Columns {
    /// [`TensorMemory::check_cell`], with the allocations as they were when `self` was made.
    ///
    /// # Errors
    /// A cell outside Tensor Memory or outside the accepted columns.
    #[inline]
    pub fn check_cell(&self, lane: u32, column: u32) -> Result<u32, TmemError> {
        if lane >= LANES || column >= COLUMNS {
            return Err(TmemError::OutOfRange { lane, column });
        }
        if self.bits[column as usize / 64] & (1 << (column % 64)) == 0 {
            return Err(TmemError::NotAllocated { lane, column });
        }
        Ok(index(lane, column))
    }
}

impl Columns {
    /// Whether [`Self::check_cell`] accepts all `len` cells of lane `lane` from column
    /// `column` on.
    pub fn accepts_run(&self, lane: u32, column: u32, len: u32) -> bool {
        let Some(end) = column.checked_add(len) else {
            return false;
        };
        if lane >= LANES || end > COLUMNS {
            return false;
        }
        let mut col = column;
        while col < end {
            let (word, bit) = ((col / 64) as usize, col % 64);
            let n = (64 - bit).min(end - col);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << bit
            };
            if self.bits[word] & mask != mask {
                return false;
            }
            col += n;
        }
        true
    }
}

/// The index of cell (`lane`, `column`), both in range.
fn index(lane: u32, column: u32) -> u32 {
    lane * COLUMNS + column
}

/// Whether `ncols` is a legal allocation size.
pub fn ncols_ok(ncols: u32) -> bool {
    (SLICE..=COLUMNS).contains(&ncols) && ncols.is_power_of_two()
}

impl TensorMemory {
    /// Empty Tensor Memory for a CTA of `warps` warps; `checked` turns on the checks of the
    /// module header.
    pub fn new(warps: u32, checked: bool) -> TensorMemory {
        let n = (LANES * COLUMNS) as usize;
        let hazards = if checked {
            Hazards {
                loads: vec![0; n],
                stores: vec![0; n],
                warp_loads: vec![Vec::new(); warps as usize],
                warp_stores: vec![Vec::new(); warps as usize],
            }
        } else {
            Hazards::default()
        };
        TensorMemory {
            cells: vec![0; n],
            allocations: Vec::new(),
            relinquished: false,
            checked,
            hazards,
            mma: Default::default(),
            async_writes: Default::default(),
            observe: Default::default(),
            pair: Default::default(),
        }
    }

    /// The current allocations, in the order made.
    pub fn allocations(&self) -> &[Allocation] {
        &self.allocations
    }

    /// `tcgen05.alloc` of `ncols` columns by warp `warp` at `pc`: returns the first column.
    ///
    /// # Errors
    /// A bad `nCols`, an alloc after relinquish, or no room.
    pub fn alloc(&mut self, ncols: u32, warp: u32, pc: u32) -> Result<u32, TmemError> {
        self.alloc_where(ncols, &[], None, (warp, pc))
    }

    /// `tcgen05.alloc` of `ncols` columns that are also free of the allocations `also` (a CTA
    /// pair's peer's), at column `at` when given; see [`Self::alloc`].
    ///
    /// # Errors
    /// A bad `nCols`, an alloc after relinquish, or no such room now.
    pub fn alloc_where(
        &mut self,
        ncols: u32,
        also: &[Allocation],
        at: Option<u32>,
        (warp, pc): (u32, u32),
    ) -> Result<u32, TmemError> {
        if !ncols_ok(ncols) {
            return Err(TmemError::BadNcols { ncols });
        }
        if self.relinquished {
            return Err(TmemError::AfterRelinquish);
        }
        let free = |c: u32| {
            self.allocations
                .iter()
                .chain(also)
                .all(|a| c + ncols <= a.column || a.column + a.ncols <= c)
        };
        let column = match at {
            Some(c) => Some(c).filter(|&c| c % ncols == 0 && c + ncols <= COLUMNS && free(c)),
            None => (0..COLUMNS / ncols).map(|k| k * ncols).find(|&c| free(c)),
        }
        .ok_or_else(|| TmemError::NoSpace {
            ncols,
            allocated: self.allocations.clone(),
        })?;
        for lane in 0..LANES {
            let at = index(lane, column) as usize;
            self.cells[at..at + ncols as usize].fill(POISON);
        }
        self.allocations.push(Allocation {
            column,
            ncols,
            warp,
            pc,
        });
        Ok(column)
    }

    /// `tcgen05.dealloc` of `ncols` columns from the address `taddr` (its lane is ignored).
    ///
    /// # Errors
    /// A bad `nCols`, or no allocation with that first column and size.
    pub fn dealloc(&mut self, taddr: u32, ncols: u32) -> Result<(), TmemError> {
        if !ncols_ok(ncols) {
            return Err(TmemError::BadNcols { ncols });
        }
        let column = taddr & 0xFFFF;
        let k = self
            .allocations
            .iter()
            .position(|a| a.column == column && a.ncols == ncols)
            .ok_or_else(|| TmemError::DeallocMismatch {
                column,
                ncols,
                allocated: self.allocations.clone(),
            })?;
        self.allocations.remove(k);
        Ok(())
    }

    /// `tcgen05.relinquish_alloc_permit`.
    pub fn relinquish(&mut self) {
        self.relinquished = true;
    }

    /// Checks that warp `warp` (of CTA quarter `quarter`) may access cell (`lane`, `column`)
    /// as `access`; returns the cell's index.
    ///
    /// # Errors
    /// The first rule of the module header the access breaks.
    pub fn check(
        &self,
        lane: u32,
        column: u32,
        warp: u32,
        access: Access,
    ) -> Result<u32, TmemError> {
        if lane < LANES && self.checked && lane / 32 != warp % 4 {
            return Err(TmemError::OutsideQuarter {
                lane,
                quarter: warp % 4,
            });
        }
        let at = self.check_cell(lane, column)?;
        if !self.checked {
            return Ok(at);
        }
        // A load's visibility of asynchronous writes is checked per reading thread
        // (`mma_track`, `observe`) before it gets here.
        if let Some(by) = self
            .async_writes
            .pending_at(at)
            .filter(|_| access == Access::Store)
        {
            return Err(TmemError::AsyncPending {
                lane,
                column,
                by: by.clone(),
            });
        }
        let (masks, lists) = self.hazards.overtaken_by(access);
        let mask = masks[at as usize];
        if mask != 0 {
            // The earliest pending access of the lowest warp with one to this cell.
            let by = lists
                .iter()
                .enumerate()
                .filter(|(w, _)| mask & (1 << (w % 32)) != 0)
                .find_map(|(w, l)| {
                    l.iter()
                        .find(|r| r.cells().contains(&(at as usize)))
                        .map(|r| Pending {
                            warp: w as u32,
                            pc: r.pc,
                        })
                })
                .unwrap_or(Pending { warp, pc: 0 });
            return Err(match access {
                Access::Load => TmemError::LoadOvertakesStore { lane, column, by },
                Access::Store => TmemError::StoreOvertakesLoad { lane, column, by },
            });
        }
        Ok(at)
    }

    /// Checks that cell (`lane`, `column`) exists and, in checked mode, is allocated; returns
    /// its index. (`tcgen05.shift` is issued by one thread and has no quarter.)
    ///
    /// # Errors
    /// A cell outside Tensor Memory or, checked, outside every allocation.
    pub fn check_cell(&self, lane: u32, column: u32) -> Result<u32, TmemError> {
        if lane >= LANES || column >= COLUMNS {
            return Err(TmemError::OutOfRange { lane, column });
        }
        if self.checked
            && !self
                .allocations
                .iter()
                .any(|a| (a.column..a.column + a.ncols).contains(&column))
        {
            return Err(TmemError::NotAllocated { lane, column });
        }
        Ok(index(lane, column))
    }

    /// The columns [`TensorMemory::check_cell`] accepts, for checking many cells with one
    /// search of the allocations instead of one per cell.
    pub fn columns(&self) -> Columns {
        let mut bits = [0u64; COLUMNS as usize / 64];
        for column in 0..COLUMNS {
            let ok = !self.checked
                || self
                    .allocations
                    .iter()
                    .any(|a| (a.column..a.column + a.ncols).contains(&column));
            bits[column as usize / 64] |= u64::from(ok) << (column % 64);
        }
        Columns { bits }
    }

    /// Reads cell `at` (from [`TensorMemory::check`]).
    pub fn read(&self, at: u32) -> u32 {
        self.cells[at as usize]
    }

    /// Writes cell `at` (from [`TensorMemory::check`]).
    pub fn write(&mut self, at: u32, value: u32) {
        self.cells[at as usize] = value;
    }

    /// Records that warp `warp` started an asynchronous `access` of cell `at` at `pc`, pending
    /// until its matching wait (checked mode).
    pub fn pend(&mut self, at: u32, warp: u32, pc: u32, access: Access) {
        self.pend_run(at, 1, warp, pc, access);
    }

    /// [`Self::pend`] for the `len` cells from index `first` on.
    pub fn pend_run(&mut self, first: u32, len: u32, warp: u32, pc: u32, access: Access) {
        if !self.checked {
            return;
        }
        let (mask, list) = self.hazards.of(access);
        let bit = 1 << (warp % 32);
        let run = PendingRun { first, len, pc };
        let mut newly = false;
        for m in &mut mask[run.cells()] {
            newly |= *m & bit == 0;
            *m |= bit;
        }
        if newly {
            if let Some(l) = list.get_mut(warp as usize) {
                l.push(run);
            }
        }
    }

    /// [`Self::check`] for the `len` cells of lane `lane` from column `column` on, `columns`
    /// being [`Self::columns`]: the first cell's index when every cell passes, `None` when
    /// one does not (checking the cells one by one then names it and why).
    pub fn check_run(
        &self,
        (lane, column, len): (u32, u32, u32),
        warp: u32,
        access: Access,
        columns: &Columns,
    ) -> Option<u32> {
        if lane >= LANES || len == 0 || column.checked_add(len)? > COLUMNS {
            return None;
        }
        if self.checked && lane / 32 != warp % 4 {
            return None;
        }
        if !columns.accepts_run(lane, column, len) {
            return None;
        }
        let first = index(lane, column);
        if !self.checked {
            return Some(first);
        }
        let run = first..first + len;
        if access == Access::Store
            && !self.async_writes.is_empty()
            && run
                .clone()
                .any(|at| self.async_writes.pending_at(at).is_some())
        {
            return None;
        }
        self.hazards.overtaken_by(access).0[first as usize..run.end as usize]
            .iter()
            .all(|&m| m == 0)
            .then_some(first)
    }

    /// The `len` cells from index `first` on (from [`Self::check_run`]).
    pub fn run(&self, first: u32, len: u32) -> &[u32] {
        &self.cells[first as usize..(first + len) as usize]
    }

    /// The `len` cells from index `first` on, to write (from [`Self::check_run`]).
    pub fn run_mut(&mut self, first: u32, len: u32) -> &mut [u32] {
        &mut self.cells[first as usize..(first + len) as usize]
    }

    /// `tcgen05.wait::ld` (`Access::Load`) or `wait::st` by warp `warp`: its pending accesses
    /// of that kind are complete.
    pub fn wait(&mut self, warp: u32, access: Access) {
        if !self.checked {
            return;
        }
        let (mask, list) = self.hazards.of(access);
        let bit = 1 << (warp % 32);
        if let Some(l) = list.get_mut(warp as usize) {
            for run in l.drain(..) {
                mask[run.cells()].iter_mut().for_each(|m| *m &= !bit);
            }
        }
    }

    /// Whether the checks of the module header are on.
    pub fn checked(&self) -> bool {
        self.checked
    }
}

/// How the launch treats Tensor Memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmemOptions {
    /// Fault on the undefined accesses of [`crate::tcgen05::memory`] (default on).
    pub checked: bool,
    /// Record a [`crate::tcgen05::trace::TmemEvent`] per instruction (`--trace-tmem`).
    pub trace: bool,
    /// With `checked`, also require the reading thread's `tcgen05.fence::after_thread_sync`
    /// between its observation of an MMA's commit and its `tcgen05.ld` (`--tmem-check
    /// strict`; the PTX ISA's canonical pattern, which Triton 3.9's output omits).
    pub fence: bool,
}

impl Default for TmemOptions {
    fn default() -> TmemOptions {
        TmemOptions {
            checked: true,
            trace: false,
            fence: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_allocation_avoids_the_peers_columns_or_takes_the_peers_column() {
        let mut t = TensorMemory::new(4, true);
        let peer = [Allocation {
            column: 0,
            ncols: 64,
            warp: 0,
            pc: 0,
        }];
        assert_eq!(t.alloc_where(32, &peer, None, (0, 1)), Ok(64));
        assert_eq!(t.alloc_where(32, &[], Some(128), (0, 1)), Ok(128));
        // Taken, misaligned, or past the end: no room (the alloc blocks).
        for at in [64, 48, 512] {
            assert!(matches!(
                t.alloc_where(32, &[], Some(at), (0, 1)),
                Err(TmemError::NoSpace { .. })
            ));
        }
    }

    #[test]
    fn allocation_is_first_fit_aligned_to_its_size_and_dealloc_must_match() {
        let mut t = TensorMemory::new(4, true);
        assert_eq!(t.alloc(32, 0, 1), Ok(0));
        assert_eq!(t.alloc(64, 0, 1), Ok(64), "aligned to 64, not at 32");
        assert_eq!(t.alloc(32, 0, 1), Ok(32));
        assert_eq!(t.alloc(256, 0, 1), Ok(256));
        assert!(matches!(
            t.alloc(256, 0, 1),
            Err(TmemError::NoSpace { ncols: 256, .. })
        ));
        assert_eq!(t.alloc(48, 0, 1), Err(TmemError::BadNcols { ncols: 48 }));
        assert!(matches!(
            t.dealloc(64, 32),
            Err(TmemError::DeallocMismatch { column: 64, .. })
        ));
        assert_eq!(t.dealloc((5 << 16) | 64, 64), Ok(()), "the lane is ignored");
        assert_eq!(t.alloc(32, 0, 1), Ok(64));
        t.relinquish();
        assert_eq!(t.alloc(32, 0, 1), Err(TmemError::AfterRelinquish));
        assert_eq!(t.dealloc(0, 32), Ok(()), "dealloc stays legal");
    }

    #[test]
    fn checked_accesses_stay_in_the_quarter_and_the_allocation() {
        let mut t = TensorMemory::new(8, true);
        t.alloc(32, 0, 1).unwrap();
        assert!(t.check(40, 3, 1, Access::Load).is_ok());
        assert!(
            t.check(40, 3, 5, Access::Load).is_ok(),
            "warp 5 is in quarter 1"
        );
        assert_eq!(
            t.check(40, 3, 2, Access::Load),
            Err(TmemError::OutsideQuarter {
                lane: 40,
                quarter: 2
            })
        );
        assert_eq!(
            t.check(40, 32, 1, Access::Store),
            Err(TmemError::NotAllocated {
                lane: 40,
                column: 32
            })
        );
        assert_eq!(
            t.check(40, 512, 1, Access::Store),
            Err(TmemError::OutOfRange {
                lane: 40,
                column: 512
            })
        );
        let loose = TensorMemory::new(8, false);
        assert!(loose.check(40, 100, 2, Access::Load).is_ok());
        assert!(loose.check(128, 0, 0, Access::Load).is_err());
    }

    #[test]
    fn pending_accesses_are_cleared_by_the_matching_wait_only() {
        let mut t = TensorMemory::new(8, true);
        t.alloc(32, 0, 1).unwrap();
        let at = t.check(3, 7, 0, Access::Load).unwrap();
        t.pend(at, 0, 10, Access::Load);
        assert_eq!(
            t.check(3, 7, 4, Access::Store),
            Err(TmemError::StoreOvertakesLoad {
                lane: 3,
                column: 7,
                by: Pending { warp: 0, pc: 10 }
            }),
            "another warp's store overtakes warp 0's load"
        );
        assert!(t.check(3, 7, 4, Access::Load).is_ok(), "loads may overlap");
        t.wait(0, Access::Store);
        assert!(
            t.check(3, 7, 0, Access::Store).is_err(),
            "wait::st does not end a load"
        );
        t.wait(0, Access::Load);
        let at = t.check(3, 7, 0, Access::Store).unwrap();
        t.write(at, 5);
        t.pend(at, 0, 11, Access::Store);
        assert!(matches!(
            t.check(3, 7, 0, Access::Load),
            Err(TmemError::LoadOvertakesStore { .. })
        ));
        t.wait(0, Access::Store);
        let at = t.check(3, 7, 0, Access::Load).unwrap();
        assert_eq!(t.read(at), 5);
    }

    /// The runs (`check_run`, `pend_run`) against the same accesses cell by cell (`check`,
    /// `pend`): the same verdicts, and afterwards the same faults naming the same pending
    /// access, on random accesses and waits of several warps.
    #[test]
    fn runs_answer_as_their_cells_do() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n)) as u32
        };
        for round in 0..40 {
            let (mut by_cells, mut by_runs) =
                (TensorMemory::new(8, true), TensorMemory::new(8, true));
            for t in [&mut by_cells, &mut by_runs] {
                t.alloc(64, 0, 1).unwrap();
                t.alloc(32, 0, 1).unwrap();
            }
            for pc in 0..200 {
                let warp = next(8);
                let access = if next(2) == 0 {
                    Access::Load
                } else {
                    Access::Store
                };
                if next(6) == 0 {
                    by_cells.wait(warp, access);
                    by_runs.wait(warp, access);
                    continue;
                }
                // Mostly the warp's own quarter and allocated columns; sometimes not.
                let quarter = if next(10) == 0 { next(4) } else { warp % 4 };
                let lane = 32 * quarter + next(32);
                let column = next(if round % 2 == 0 { 100 } else { 520 });
                let len = 1 + next(24);
                let columns = by_runs.columns();
                let cells: Option<Vec<u32>> = (column..column + len)
                    .map(|col| by_cells.check(lane, col, warp, access).ok())
                    .collect();
                let run = by_runs.check_run((lane, column, len), warp, access, &columns);
                assert_eq!(
                    run,
                    cells.as_ref().map(|c| c[0]),
                    "lane {lane}, columns {column}+{len}, warp {warp}, {access:?}"
                );
                if let (Some(first), Some(cells)) = (run, cells) {
                    for at in cells {
                        by_cells.pend(at, warp, pc, access);
                    }
                    by_runs.pend_run(first, len, warp, pc, access);
                }
                for _ in 0..4 {
                    let (w, lane, col) = (next(8), next(128), next(100));
                    let access = if next(2) == 0 {
                        Access::Load
                    } else {
                        Access::Store
                    };
                    assert_eq!(
                        by_cells.check(lane, col, w, access),
                        by_runs.check(lane, col, w, access)
                    );
                }
            }
        }
    }

    #[test]
    fn a_run_is_accepted_when_each_of_its_cells_is() {
        let mut t = TensorMemory::new(4, true);
        t.alloc(64, 0, 1).unwrap();
        t.alloc(32, 0, 1).unwrap();
        t.alloc(128, 0, 1).unwrap();
        t.dealloc(64, 32).unwrap();
        for tm in [t, TensorMemory::new(4, false)] {
            let columns = tm.columns();
            for lane in [0, 127, 128] {
                for column in (0..520).step_by(7) {
                    for len in 1..140 {
                        let cells =
                            (column..column + len).all(|col| columns.check_cell(lane, col).is_ok());
                        assert_eq!(
                            columns.accepts_run(lane, column, len),
                            cells,
                            "lane {lane}, columns {column}+{len}"
                        );
                    }
                }
            }
        }
    }
}
