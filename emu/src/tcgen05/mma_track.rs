//! Completion tracking of `tcgen05.mma` results (and of `tcgen05.cp` copies, which complete the
//! same way) in Tensor Memory (checked mode), for the rule
//! of the PTX ISA's tcgen05 memory-consistency section: the D cells an MMA writes may be read
//! by a thread's `tcgen05.ld` only after a `tcgen05.commit` by the issuing thread has tracked
//! the MMA, the reading thread has observed the commit's mbarrier phase complete, and it has
//! executed `tcgen05.fence::after_thread_sync` since ([`super::observe`]).
//!
//! ptxemu computes an MMA when it is issued and writes D at once (a legal completion order);
//! each cell is recorded here with the last MMA that wrote it. A `tcgen05.ld` of a cell whose
//! MMA the reading thread cannot yet see is a fault naming the MMA's and the commit's lines
//! and what is missing (the commit, the phase, the thread's wait, or its fence).

use std::collections::{HashMap, VecDeque};

/// One issued MMA (or `tcgen05.cp`: both complete through the issuing thread's commits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaRecord {
    /// The instruction, for messages (`"tcgen05.mma"`, `"tcgen05.cp"`).
    pub what: &'static str,
    /// The issuing thread (linear in the CTA).
    pub thread: u32,
    /// The instruction's pc.
    pub pc: u32,
    /// Its place in the CTA's issue order.
    pub id: u32,
}

/// One `tcgen05.commit`: it tracks every MMA its thread issued before it (PTX ISA: "all the
/// prior asynchronous tcgen05 operations initiated by the executing thread"), including
/// those an earlier commit already tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The mbarrier's shared offset.
    pub mbar: u64,
    /// The phase its arrival counts toward.
    pub phase: u32,
    /// The commit's pc.
    pub pc: u32,
    /// It tracks the MMAs with `id < upto`.
    pub upto: u32,
}

/// How many commits per thread are kept: a later commit tracks everything an earlier one
/// does, so forgetting the oldest loses only alternative ways to observe old MMAs.
const KEPT_COMMITS: usize = 16;

/// [`MmaTrack`]'s mark of a cell no MMA wrote.
const NO_WRITER: u32 = u32::MAX;

/// The MMA results of one CTA's Tensor Memory.
#[derive(Clone, Debug, Default)]
pub struct MmaTrack {
    records: Vec<MmaRecord>,
    /// Cell index → the last MMA that wrote it ([`NO_WRITER`] for none): one entry per cell
    /// of Tensor Memory once the first MMA is issued (256 KiB), empty before. An MMA writes
    /// up to 32,768 cells, which a hash map made the largest cost of `tcgen05.mma`.
    cells: Vec<u32>,
    /// Thread → its latest commits, oldest first.
    commits: HashMap<u32, VecDeque<Commit>>,
    /// Thread → its MMAs issued since its last commit.
    since_commit: HashMap<u32, u32>,
}

impl MmaTrack {
    /// Records an asynchronous write `what` (`"tcgen05.mma"`, `"tcgen05.cp"`) of `thread` at
    /// `pc` writing `cells`.
    pub fn issue(
        &mut self,
        what: &'static str,
        thread: u32,
        pc: u32,
        cells: impl IntoIterator<Item = u32>,
    ) {
        let id = self.record(what, thread, pc);
        for c in cells {
            if let Some(e) = self.cells.get_mut(c as usize) {
                *e = id;
            }
        }
    }

    /// [`Self::issue`] with the cells as runs of consecutive indices.
    pub fn issue_runs(
        &mut self,
        what: &'static str,
        thread: u32,
        pc: u32,
        runs: impl IntoIterator<Item = std::ops::Range<u32>>,
    ) {
        let id = self.record(what, thread, pc);
        for run in runs {
            let end = (run.end as usize).min(self.cells.len());
            if let Some(cells) = self.cells.get_mut(run.start as usize..end) {
                cells.fill(id);
            }
        }
    }

    /// A new record of `thread`'s write `what` at `pc`, counted since its last commit: its id.
    fn record(&mut self, what: &'static str, thread: u32, pc: u32) -> u32 {
        let id = self.records.len() as u32;
        self.records.push(MmaRecord {
            what,
            thread,
            pc,
            id,
        });
        if self.cells.is_empty() {
            let all = crate::tcgen05::memory::LANES * crate::tcgen05::memory::COLUMNS;
            self.cells = vec![NO_WRITER; all as usize];
        }
        *self.since_commit.entry(thread).or_default() += 1;
        id
    }

    /// `tcgen05.commit` by `thread` at `pc`: its MMAs so far complete with the arrival on the
    /// mbarrier at shared offset `mbar` in phase `phase`. Returns how many MMAs no earlier
    /// commit of the thread tracked.
    pub fn commit(&mut self, thread: u32, mbar: u64, phase: u32, pc: u32) -> usize {
        let upto = self.records.len() as u32;
        let list = self.commits.entry(thread).or_default();
        list.push_back(Commit {
            mbar,
            phase,
            pc,
            upto,
        });
        if list.len() > KEPT_COMMITS {
            list.pop_front();
        }
        self.since_commit.remove(&thread).unwrap_or(0) as usize
    }

    /// The id of the last MMA that wrote cell `at`, if any: what [`Self::writer`] would
    /// return the record of.
    pub fn writer_id(&self, at: u32) -> Option<u32> {
        self.cells
            .get(at as usize)
            .copied()
            .filter(|&id| id != NO_WRITER)
    }

    /// The last MMA that wrote cell `at`, if any.
    pub fn writer(&self, at: u32) -> Option<MmaRecord> {
        self.writer_id(at).map(|id| self.records[id as usize])
    }

    /// The commits that track `r`, newest first.
    pub fn commits_of<'a>(&'a self, r: &MmaRecord) -> impl Iterator<Item = &'a Commit> + 'a {
        let (thread, id) = (r.thread, r.id);
        self.commits
            .get(&thread)
            .into_iter()
            .flat_map(|l| l.iter().rev())
            .filter(move |c| c.upto > id)
    }

    /// Whether nothing is tracked (the fast path of `tcgen05.ld`).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_later_commit_of_the_thread_tracks_an_mma() {
        let mut t = MmaTrack::default();
        t.issue("tcgen05.mma", 0, 10, [5, 6]);
        assert_eq!(t.commit(0, 8, 0, 11), 1);
        assert_eq!(t.commit(0, 16, 3, 12), 0);
        t.issue("tcgen05.cp", 0, 13, [6]);
        let r5 = t.writer(5).unwrap();
        let pcs: Vec<u32> = t.commits_of(&r5).map(|c| c.pc).collect();
        assert_eq!(pcs, [12, 11]);
        let r6 = t.writer(6).unwrap();
        assert_eq!(
            (r6.pc, r6.what, t.commits_of(&r6).count()),
            (13, "tcgen05.cp", 0)
        );
        // Another thread's commit tracks nothing of thread 0.
        t.commit(32, 8, 1, 14);
        assert_eq!(t.commits_of(&r6).count(), 0);
    }
}
