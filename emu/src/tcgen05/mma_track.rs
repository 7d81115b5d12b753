//! Completion tracking of `tcgen05.mma` results in Tensor Memory (checked mode), for the rule
//! of the PTX ISA's tcgen05 memory-consistency section: the D cells an MMA writes may be read
//! by `tcgen05.ld` only after a `tcgen05.commit` by the issuing thread has tracked the MMA and
//! the commit's mbarrier phase has completed.
//!
//! ptxemu computes an MMA when it is issued and writes D at once (a legal completion order);
//! the cells are then *pending*: recorded here with the MMA that wrote them until the phase of
//! the mbarrier its commit arrived on completes. A `tcgen05.ld` of a pending cell is a fault
//! naming the MMA's line and what is missing (the commit, or the phase).

use std::collections::HashMap;

/// One issued MMA whose results may still be pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaRecord {
    /// The issuing thread (linear in the CTA).
    pub thread: u32,
    /// The instruction's pc.
    pub pc: u32,
    /// The commit that tracks it: the mbarrier's shared offset and the phase it arrived in.
    pub commit: Option<(u64, u32)>,
}

/// The pending MMA results of one CTA's Tensor Memory.
#[derive(Clone, Debug, Default)]
pub struct MmaTrack {
    records: Vec<MmaRecord>,
    /// Cell index → the record of the last MMA that wrote it.
    cells: HashMap<u32, u32>,
    /// Thread → its records not yet committed.
    uncommitted: HashMap<u32, Vec<u32>>,
}

impl MmaTrack {
    /// Records an MMA of `thread` at `pc` writing `cells`.
    pub fn issue(&mut self, thread: u32, pc: u32, cells: impl IntoIterator<Item = u32>) {
        let id = self.records.len() as u32;
        self.records.push(MmaRecord {
            thread,
            pc,
            commit: None,
        });
        for c in cells {
            self.cells.insert(c, id);
        }
        self.uncommitted.entry(thread).or_default().push(id);
    }

    /// `tcgen05.commit` by `thread`: its uncommitted MMAs complete with the arrival on the
    /// mbarrier at shared offset `mbar` in phase `phase`. Returns how many it tracked.
    pub fn commit(&mut self, thread: u32, mbar: u64, phase: u32) -> usize {
        let ids = self.uncommitted.remove(&thread).unwrap_or_default();
        for &id in &ids {
            if let Some(r) = self.records.get_mut(id as usize) {
                r.commit = Some((mbar, phase));
            }
        }
        ids.len()
    }

    /// The MMA whose result in cell `at` is still pending, given which mbarrier phases have
    /// completed (`done(offset, phase)`).
    pub fn pending(&self, at: u32, done: impl Fn(u64, u32) -> bool) -> Option<MmaRecord> {
        let r = self.records[*self.cells.get(&at)? as usize];
        match r.commit {
            Some((off, phase)) if done(off, phase) => None,
            _ => Some(r),
        }
    }

    /// Whether nothing is tracked (the fast path of `tcgen05.ld`).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Forgets cells whose results are visible (bounded memory over long kernels).
    pub fn retire(&mut self, done: impl Fn(u64, u32) -> bool) {
        let records = &self.records;
        self.cells.retain(
            |_, id| !matches!(records[*id as usize].commit, Some((off, phase)) if done(off, phase)),
        );
    }
}
