//! The CTA's pending `cp.async` copies: issued, not yet written to shared memory
//! ([`crate::async_copy::cp_async`] describes when they are delivered).
//!
//! Each thread has a queue of its copies in issue order and a queue of its committed groups,
//! oldest first; a copy's group numbers never decrease along its thread's queue and the
//! uncommitted copies are at its tail, so waiting for a group delivers a prefix of the queue.
//! A count of pending copies per 16-byte chunk of shared memory answers "does a pending copy
//! touch these bytes?" without a scan (a copy of 4, 8 or 16 bytes, aligned to its size, lies
//! in one chunk); only a chunk that holds one is scanned, to name the copy.

use std::collections::VecDeque;

/// A copy issued and not yet written to shared memory.
#[derive(Clone, Debug)]
pub(crate) struct PendingCopy {
    /// The issuing thread (in the CTA).
    pub thread: u32,
    /// The group it was committed in (`None`: not committed yet).
    pub group: Option<u64>,
    /// The destination's shared-memory offset.
    pub dst: u64,
    /// The bytes read from the source (zero past src-size).
    pub bytes: [u8; 16],
    /// Bytes written.
    pub len: u8,
    /// The instruction that issued it.
    pub pc: u32,
}

#[derive(Clone, Debug, Default)]
struct ThreadQueue {
    /// (issue number, copy), oldest first.
    copies: VecDeque<(u64, PendingCopy)>,
    /// Committed groups not yet waited for, oldest first.
    groups: VecDeque<u64>,
}

/// The pending copies of one CTA.
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingCopies {
    threads: Vec<ThreadQueue>,
    /// Pending copies per 16-byte chunk of shared memory.
    chunks: Vec<u32>,
    total: usize,
    next_group: u64,
    next_seq: u64,
}

const CHUNK: u64 = 16;

impl PendingCopies {
    /// Whether no copy is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    fn queue(&mut self, thread: u32) -> &mut ThreadQueue {
        let t = thread as usize;
        if self.threads.len() <= t {
            self.threads.resize_with(t + 1, ThreadQueue::default);
        }
        &mut self.threads[t]
    }

    /// Records an issued copy.
    pub fn push(&mut self, p: PendingCopy) {
        let ch = (p.dst / CHUNK) as usize;
        if self.chunks.len() <= ch {
            self.chunks.resize(ch + 1, 0);
        }
        self.chunks[ch] += 1;
        self.total += 1;
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue(p.thread).copies.push_back((seq, p));
    }

    /// `cp.async.commit_group` for `thread`: its uncommitted copies become its newest group.
    pub fn commit(&mut self, thread: u32) {
        let g = self.next_group;
        self.next_group += 1;
        let q = self.queue(thread);
        for (_, p) in q.copies.iter_mut().rev() {
            if p.group.is_some() {
                break;
            }
            p.group = Some(g);
        }
        q.groups.push_back(g);
    }

    /// Whether a pending copy may touch `[off, off + size)` (its chunks hold one).
    #[inline]
    pub fn may_touch(&self, off: u64, size: u64) -> bool {
        if self.total == 0 || size == 0 {
            return false;
        }
        let first = (off / CHUNK) as usize;
        let last = (off.saturating_add(size - 1) / CHUNK) as usize;
        if first >= self.chunks.len() {
            return false;
        }
        let last = last.min(self.chunks.len() - 1);
        self.chunks[first..=last].iter().any(|n| *n != 0)
    }

    /// The earliest-issued pending copy that overlaps `[off, off + size)`, as (pc, thread).
    pub fn overlapping(&self, off: u64, size: u64) -> Option<(u32, u32)> {
        if !self.may_touch(off, size) {
            return None;
        }
        self.threads
            .iter()
            .flat_map(|q| q.copies.iter())
            .filter(|(_, p)| off < p.dst + u64::from(p.len) && p.dst < off.saturating_add(size))
            .min_by_key(|(seq, _)| *seq)
            .map(|(_, p)| (p.pc, p.thread))
    }

    fn take_front(&mut self, thread: u32, upto: Option<u64>, out: &mut Vec<(u64, PendingCopy)>) {
        let Some(q) = self.threads.get_mut(thread as usize) else {
            return;
        };
        while let Some((_, p)) = q.copies.front() {
            let due = match (upto, p.group) {
                (None, _) => true,
                (Some(g_old), Some(g)) => g <= g_old,
                (Some(_), None) => false,
            };
            if !due {
                break;
            }
            out.extend(q.copies.pop_front());
        }
    }

    /// `cp.async.wait_group keep` for `thread`: takes its copies of all groups but the `keep`
    /// newest, in issue order.
    pub fn wait_group(&mut self, thread: u32, keep: usize) -> Vec<(u64, PendingCopy)> {
        let mut old = None;
        if let Some(q) = self.threads.get_mut(thread as usize) {
            while q.groups.len() > keep {
                old = q.groups.pop_front();
            }
        }
        let mut out = Vec::new();
        if old.is_some() {
            self.take_front(thread, old, &mut out);
        }
        self.forget(&out);
        out
    }

    /// `cp.async.wait_all` (and `cp.async.mbarrier.arrive`, and exit) for `thread`: takes all
    /// its copies, committed or not, in issue order.
    pub fn take_all(&mut self, thread: u32) -> Vec<(u64, PendingCopy)> {
        let mut out = Vec::new();
        if let Some(q) = self.threads.get_mut(thread as usize) {
            q.groups.clear();
        }
        self.take_front(thread, None, &mut out);
        self.forget(&out);
        out
    }

    fn forget(&mut self, taken: &[(u64, PendingCopy)]) {
        for (_, p) in taken {
            self.chunks[(p.dst / CHUNK) as usize] -= 1;
        }
        self.total -= taken.len();
    }
}
