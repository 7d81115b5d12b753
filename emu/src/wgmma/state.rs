//! The `wgmma` state of a CTA: each warp's wgmma-groups (open, committed, retired by
//! `wgmma.wait_group`) and each warpgroup's recent issues.

use std::collections::{HashMap, VecDeque};

use crate::exec::program::operand::Dst;

/// One issued `wgmma.mma_async` whose result is not yet in the registers.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub(crate) pc: u32,
    /// `(register slot, value to write, value the register held when this was issued)`.
    pub(crate) regs: Vec<(u32, Dst, [u64; 32], [u64; 32])>,
}

/// One warp's groups.
#[derive(Clone, Debug, Default)]
pub(crate) struct WarpGroups {
    pub(crate) open: Vec<Pending>,
    pub(crate) committed: VecDeque<Vec<Pending>>,
    pub(crate) issued: u64,
    /// Per register slot, how many of the pending products (open or committed) write it: what
    /// lets [`WarpGroups::pending_writer`] answer "none" without a search, for every register
    /// every instruction reads while products are pending.
    pub(crate) writers: Vec<u32>,
    /// Whether the warp has executed `wgmma.fence`.
    pub(crate) fenced: bool,
}

impl WarpGroups {
    /// The pc of the oldest pending `wgmma.mma_async` that accumulates into register `slot`,
    /// and the register's index in its D vector.
    pub fn pending_writer(&self, slot: u32) -> Option<(u32, usize)> {
        if self.writers.get(slot as usize).is_none_or(|n| *n == 0) {
            return None;
        }
        self.committed
            .iter()
            .flatten()
            .chain(self.open.iter())
            .find_map(|p| {
                let k = p.regs.iter().position(|r| r.0 == slot)?;
                Some((p.pc, k))
            })
    }
}

/// One `wgmma.mma_async` of a warpgroup, as the first of its warps issued it.
#[derive(Clone, Debug)]
pub(crate) struct Issue {
    pub(crate) pc: u32,
    pub(crate) warp: u32,
    pub(crate) a_desc: Option<u64>,
    pub(crate) b_desc: u64,
}

/// The `wgmma` state of a CTA: each warp's pending groups, and each warpgroup's recent issues
/// (for the check that its four warps issue the same instructions).
#[derive(Clone, Debug, Default)]
pub struct WgmmaState {
    pub(crate) warps: HashMap<u32, WarpGroups>,
    pub(crate) issues: HashMap<u32, (u64, VecDeque<Issue>)>,
    /// Whether some warp may hold products not yet retired (the interpreter checks register
    /// reads against them only then).
    pub busy: bool,
    /// `--wgmma-check strict`: an early accumulator read is a fault, not an implicit wait.
    pub strict: bool,
}

impl WgmmaState {
    /// No wgmma in flight; `strict` as `--wgmma-check strict` says.
    pub fn new(strict: bool) -> WgmmaState {
        WgmmaState {
            strict,
            ..WgmmaState::default()
        }
    }

    /// Whether every pending product of `warp` is in a committed group (none is open).
    pub fn only_committed(&self, warp: u32) -> bool {
        self.warps.get(&warp).is_none_or(|wg| wg.open.is_empty())
    }

    /// `warp`'s groups, if it has issued a wgmma instruction.
    pub(crate) fn warp(&self, warp: u32) -> Option<&WarpGroups> {
        self.warps.get(&warp)
    }

    /// Records that `p` is pending in `warp`'s open group.
    pub(crate) fn push_open(&mut self, warp: u32, p: Pending) {
        let wg = self.warps.entry(warp).or_default();
        for r in &p.regs {
            let slot = r.0 as usize;
            if wg.writers.len() <= slot {
                wg.writers.resize(slot + 1, 0);
            }
            wg.writers[slot] += 1;
        }
        wg.open.push(p);
        self.busy = true;
    }

    /// Takes `warp`'s oldest committed group when more than `keep` are committed, for
    /// retirement: its products no longer count as pending writers.
    pub(crate) fn take_oldest_beyond(&mut self, warp: u32, keep: usize) -> Option<Vec<Pending>> {
        let wg = self.warps.get_mut(&warp)?;
        if wg.committed.len() <= keep {
            return None;
        }
        let group = wg.committed.pop_front()?;
        for r in group.iter().flat_map(|p| &p.regs) {
            if let Some(n) = wg.writers.get_mut(r.0 as usize) {
                *n = n.saturating_sub(1);
            }
        }
        Some(group)
    }

    pub(crate) fn refresh_busy(&mut self) {
        self.busy = self
            .warps
            .values()
            .any(|w| !w.open.is_empty() || w.committed.iter().any(|g| !g.is_empty()));
    }
}
