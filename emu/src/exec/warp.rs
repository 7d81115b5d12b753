//! A warp of 32 lanes: per-lane program counters and call stacks, the register blocks of its
//! activations, and the scheduler that picks which lanes execute together.
//!
//! Reconvergence follows the "deepest frame first, then lowest pc" rule: among the lanes that
//! can run, the scheduler picks those in the deepest call frame and, among them, the lowest
//! program counter, and runs every lane waiting at that same (depth, pc) as one group. The
//! group runs straight-line code until it reaches the next pc at which other lanes of the same
//! depth wait (a merge point: they join) or a branch splits it. Compilers lay out structured
//! control flow with join points after both arms and loop exits after loop bodies, so this
//! reconverges where IPDOM-based hardware does, needs no control-flow analysis, and handles
//! any control flow (early exits, `ret` inside loops, recursion, indirect calls).
//!
//! A lane's registers live in the block of its activation: one block per (call depth,
//! function), holding all 32 lanes, so lanes that called different functions never share
//! storage, and recursion gets a fresh block per depth.
//!
//! Deliberate deviations:
//! 1. Lanes spinning on a lock held by another lane of the same warp can starve it (as on
//!    pre-Volta hardware); independent thread scheduling is not modelled.

use super::ctx::{LaneIds, FULL};
use super::memory::Bytes;
use super::program::Program;
use super::reserve::{Budget, ReserveError};

/// One call frame of a lane.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// Where to continue after the callee returns.
    pub ret_pc: u32,
    /// The call instruction (its call site describes return values).
    pub call_pc: u32,
    /// The caller's frame base.
    pub caller_frame_base: u64,
    /// Register bytes of this lane's frames up to and including this one.
    pub reg_bytes: u64,
}

/// The registers of one activation (all 32 lanes).
#[derive(Clone, Debug)]
pub struct RegBlock {
    /// The function the block belongs to.
    pub func: u32,
    /// Value slots, 32 lanes each.
    pub vals: Vec<u64>,
    /// Predicate slots, one lane mask each.
    pub preds: Vec<u32>,
}

/// The lanes currently executing together.
#[derive(Clone, Copy, Debug, Default)]
pub struct Group {
    /// Their program counter.
    pub pc: u32,
    /// Which lanes.
    pub mask: u32,
    /// Their call depth.
    pub depth: u32,
    /// Their function.
    pub func: u32,
    /// The lowest pc beyond `pc` where other lanes of this depth wait (a merge point).
    pub stop: u32,
}

/// A warp's state.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Lanes that exist (a partial last warp has fewer).
    pub valid: u32,
    /// Lanes that have exited.
    pub exited: u32,
    /// Lanes waiting at a CTA barrier.
    pub at_barrier: u32,
    /// Lanes waiting at a warp collective for other lanes to arrive.
    pub parked: u32,
    /// Each lane's program counter (up to date for lanes not in the running group).
    pub pc: [u32; 32],
    /// Each lane's call depth.
    pub depth: [u32; 32],
    /// Each lane's call stack.
    pub stack: Vec<Vec<Frame>>,
    /// Each lane's local-memory stack pointer.
    pub sp: [u64; 32],
    /// Lane identities (tid, warp index, frame bases).
    pub ids: LaneIds,
    /// Each lane's local memory.
    pub local: Vec<Bytes>,
    /// Register blocks per call depth.
    pub blocks: Vec<Vec<RegBlock>>,
    /// The running group.
    pub group: Group,
    /// Warp instructions executed (stands for `%clock`).
    pub clock: u64,
}

impl Warp {
    /// A warp whose `valid` lanes start at `entry` in function `func` at depth 0, with local
    /// memory starting with the module's `.local` variables and then the kernel's frame
    /// (taken from `budget`, per lane).
    ///
    /// # Errors
    /// The lanes' local memory is past the run's limit or refused by the host.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        prog: &Program,
        valid: u32,
        ids: LaneIds,
        func: u32,
        entry: u32,
        frame_base: u64,
        frame_size: u64,
        budget: &Budget,
    ) -> Result<Warp, ReserveError> {
        let f = &prog.funcs[func as usize];
        let block = RegBlock {
            func,
            vals: vec![0; f.value_slots as usize * 32],
            preds: vec![0; f.pred_slots as usize],
        };
        let local_size = frame_base + frame_size;
        let mut local = Vec::with_capacity(32);
        for l in 0..32 {
            local.push(Bytes::reserved(budget, local_size, || {
                format!(
                    "the local memory of lane {l} of warp {} ({local_size} bytes per thread)",
                    ids.warp
                )
            })?);
        }
        let mut ids = ids;
        ids.frame_base = [frame_base; 32];
        Ok(Warp {
            valid,
            exited: !valid,
            at_barrier: 0,
            parked: 0,
            pc: [entry; 32],
            depth: [0; 32],
            stack: vec![Vec::new(); 32],
            sp: [frame_base + frame_size; 32],
            ids,
            local,
            blocks: vec![vec![block]],
            group: Group::default(),
            clock: 0,
        })
    }

    /// Makes `self`, a warp of a finished CTA of the same launch, what [`Warp::new`] makes
    /// for a kernel without local memory (`frame_base + frame_size == 0`), in place and
    /// keeping its allocations: a launch of many short CTAs (vectorAdd: 16,384 of 8 warps)
    /// spent a third of its time allocating, moving and freeing warps. The warp must be warp
    /// `index` of its CTA with lanes `valid`, as it is in the new one: its lanes' thread
    /// indices, which depend only on the launch's CTA shape, are kept. Returns `false`, and
    /// leaves the warp to be replaced, when the kernel has local memory or the warp held
    /// some, or it was another warp.
    pub fn reset(
        &mut self,
        prog: &Program,
        (index, valid): (u32, u32),
        (func, entry): (u32, u32),
        (frame_base, frame_size): (u64, u64),
    ) -> bool {
        if frame_base + frame_size != 0
            || self.local_bytes() != 0
            || self.local.len() != 32
            || self.ids.warp != index
            || self.valid != valid
        {
            return false;
        }
        let f = &prog.funcs[func as usize];
        self.blocks.truncate(1);
        let Some(level) = self.blocks.first_mut() else {
            return false;
        };
        level.truncate(1);
        let Some(block) = level.first_mut() else {
            return false;
        };
        block.func = func;
        block.vals.clear();
        block.vals.resize(f.value_slots as usize * 32, 0);
        block.preds.clear();
        block.preds.resize(f.pred_slots as usize, 0);
        for frames in &mut self.stack {
            frames.clear();
        }
        self.exited = !valid;
        self.at_barrier = 0;
        self.parked = 0;
        self.pc = [entry; 32];
        self.depth = [0; 32];
        self.sp = [frame_base + frame_size; 32];
        self.ids.frame_base = [frame_base; 32];
        self.group = Group::default();
        self.clock = 0;
        true
    }

    /// The bytes of local memory the warp's lanes hold (what its budget gave them).
    pub fn local_bytes(&self) -> u64 {
        self.local.iter().map(|b| b.data.len() as u64).sum()
    }

    /// Lanes that could run now.
    pub fn runnable(&self) -> u32 {
        self.valid & !self.exited & !self.at_barrier & !self.parked
    }

    /// Whether every lane has exited.
    pub fn done(&self) -> bool {
        self.exited | !self.valid == FULL
    }

    /// Records the running group's pc into its lanes and forgets the group.
    pub fn park_group(&mut self) {
        let g = self.group;
        let mut m = g.mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            self.pc[l] = g.pc;
            m &= m - 1;
        }
        self.group.mask = 0;
    }

    /// Picks the next group to run (deepest frame, then lowest pc); returns false when no
    /// lane can run.
    pub fn reschedule(&mut self, prog: &Program) -> bool {
        if self.group.mask != 0 {
            self.park_group();
        }
        let runnable = self.runnable();
        if runnable == 0 {
            return false;
        }
        // The deepest frame, then the lowest pc, as the largest key (depth, !pc) among the
        // runnable lanes; then the lanes at it, and the nearest pc above it in the same frame
        // (where the group must stop to let those lanes join). Branch-free over all 32 lanes.
        let key = |l: usize| u64::from(self.depth[l]) << 32 | u64::from(!self.pc[l]);
        let mut best = 0u64;
        for l in 0..32 {
            let k = if runnable >> l & 1 != 0 { key(l) } else { 0 };
            best = best.max(k);
        }
        let (depth, pc) = ((best >> 32) as u32, !(best as u32));
        let candidates = runnable | self.parked;
        let mut mask = 0u32;
        let mut stop = u32::MAX;
        for l in 0..32 {
            let here = candidates >> l & 1 != 0 && self.depth[l] == depth;
            mask |= u32::from(here && self.pc[l] == pc) << l;
            let above = here && self.pc[l] > pc;
            stop = stop.min(if above { self.pc[l] } else { u32::MAX });
        }
        self.parked &= !mask;
        self.group = Group {
            pc,
            mask,
            depth,
            func: prog.func_of_pc[pc as usize],
            stop,
        };
        true
    }

    /// The register block of (depth, func), created on first use.
    pub fn block_index(&mut self, prog: &Program, depth: u32, func: u32) -> usize {
        let d = depth as usize;
        while self.blocks.len() <= d {
            self.blocks.push(Vec::new());
        }
        if let Some(i) = self.blocks[d].iter().position(|b| b.func == func) {
            return i;
        }
        let f = &prog.funcs[func as usize];
        self.blocks[d].push(RegBlock {
            func,
            vals: vec![0; f.value_slots as usize * 32],
            preds: vec![0; f.pred_slots as usize],
        });
        self.blocks[d].len() - 1
    }

    /// Makes sure lane `l`'s local memory holds at least `len` bytes, the growth taken from
    /// `budget`.
    ///
    /// # Errors
    /// The growth is past the run's limit or refused by the host.
    pub fn ensure_local(
        &mut self,
        l: usize,
        len: u64,
        budget: &Budget,
    ) -> Result<(), ReserveError> {
        let warp = self.ids.warp;
        budget.grow_zeroed(&mut self.local[l].data, len, || {
            format!("a call's frame in the local memory of lane {l} of warp {warp} ({len} bytes)")
        })
    }
}
