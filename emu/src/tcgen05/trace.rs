//! What `ptxemu run --trace-tmem` shows: for each tcgen05 collective, which Tensor Memory
//! cell (lane, column) each register of each thread came from or went to, with the value; and
//! the allocations, deallocations and shifts.

use smallvec::SmallVec;

/// One register of one thread moved between the register file and Tensor Memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmemMove {
    /// The thread's lane in its warp.
    pub thread: u32,
    /// The register's position in the instruction's vector.
    pub reg: u32,
    /// The cells: one, or two (low half first) with `.pack::16b`/`.unpack::16b`.
    pub cells: SmallVec<[(u32, u32); 2]>,
    /// The 32-bit value moved.
    pub value: u32,
}

/// What a traced instruction did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmemAction {
    /// `tcgen05.ld`: Tensor Memory to registers; with `.red`, each thread's `redval`.
    Load {
        /// Per thread, with `.red`: the reduction's result.
        redvals: Option<Vec<u32>>,
    },
    /// `tcgen05.st`: registers to Tensor Memory.
    Store,
    /// `tcgen05.alloc`: `ncols` columns from `column`; the address went to `dst`.
    Alloc {
        /// Columns.
        ncols: u32,
        /// The first column.
        column: u32,
        /// The shared-memory address the result was stored at.
        dst: u64,
    },
    /// `tcgen05.dealloc`.
    Dealloc {
        /// Columns.
        ncols: u32,
        /// The first column.
        column: u32,
    },
    /// `tcgen05.relinquish_alloc_permit`.
    Relinquish,
    /// `tcgen05.mma`: D cells written, lanes `lanes.0..lanes.1` (an M = 64 D uses 16 lanes of
    /// each quarter) by columns `columns.0..columns.1`, by the thread `thread` of the warp.
    Mma {
        /// The issuing thread's lane.
        thread: u32,
        /// `M`, `N`, `K` and the kind's name.
        shape: (u32, u32, u32, &'static str),
        /// First lane and one past the last.
        lanes: (u32, u32),
        /// First column and one past the last.
        columns: (u32, u32),
        /// Whether D was accumulated into (enable-input-d).
        accumulate: bool,
    },
    /// `tcgen05.commit`: the thread's MMAs tracked by an arrival on the mbarrier at `mbar`.
    Commit {
        /// The issuing thread's lane.
        thread: u32,
        /// The mbarrier's shared offset.
        mbar: u64,
        /// How many MMAs it tracked.
        mmas: u32,
    },
    /// `tcgen05.cp`: shared memory (the descriptor's start address `src`) to `cells` cells
    /// of Tensor Memory within lanes `lanes.0..lanes.1` and columns `columns.0..columns.1`.
    Copy {
        /// The issuing thread's lane.
        thread: u32,
        /// The shape's name (`128x256b`, …).
        shape: &'static str,
        /// The shared-memory address of the source's first byte.
        src: u64,
        /// First lane written and one past the last.
        lanes: (u32, u32),
        /// First column written and one past the last.
        columns: (u32, u32),
        /// How many 32-bit cells it wrote.
        cells: u32,
    },
    /// `tcgen05.shift.down` of 32 lanes from `lane` over 8 columns from `column`.
    Shift {
        /// The first lane of the block.
        lane: u32,
        /// The first column.
        column: u32,
    },
}

/// One traced tcgen05 instruction of one warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmemEvent {
    /// The CTA.
    pub cta: [u32; 3],
    /// The warp in its CTA.
    pub warp: u32,
    /// The instruction's pc in the decoded program.
    pub pc: u32,
    /// The Tensor Memory address used (`taddr`, with the address operand's offset).
    pub taddr: Option<u32>,
    /// What it did.
    pub action: TmemAction,
    /// Register moves of `ld`/`st`, thread by thread, register by register.
    pub moves: Vec<TmemMove>,
}
