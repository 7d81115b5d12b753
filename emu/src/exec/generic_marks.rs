//! The proxy checker's marks of shared bytes written through the generic proxy since the last
//! `fence.proxy.async` ([`crate::exec::proxy_check`]), each with the pc of the write that
//! marked it.
//!
//! The marks are kept by aligned 16-byte granule, the size of the widest `st.shared` and of
//! an operand column of the tensor-core instructions: a store marks its bytes with one map
//! update, and an async-proxy read of a column asks one lookup, where a map of single bytes
//! took sixteen of each.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::exec::word_hasher::WordHasher;

const GRANULE: u64 = 16;

/// The pc stored for a byte of a granule that no write marked.
const UNMARKED: u32 = u32::MAX;

/// The marked bytes of one granule: the pc of each byte's marking write, or [`UNMARKED`].
type Granule = [u32; GRANULE as usize];

/// Shared byte offsets written through the generic proxy, with the pc of the latest write of
/// each.
#[derive(Clone, Debug, Default)]
pub struct GenericMarks {
    /// Granule index (offset / 16) → its bytes' marks; a granule with no marked byte is absent.
    granules: HashMap<u64, Granule, BuildHasherDefault<WordHasher>>,
}

/// The granules that `[lo, hi)` touches, each with the byte range within it.
fn granules_of(lo: u64, hi: u64) -> impl Iterator<Item = (u64, std::ops::Range<usize>)> {
    let first = lo / GRANULE;
    let last = if hi > lo {
        (hi - 1) / GRANULE + 1
    } else {
        first
    };
    (first..last).map(move |g| {
        let base = g * GRANULE;
        let from = lo.max(base) - base;
        let to = hi.min(base + GRANULE) - base;
        (g, from as usize..to as usize)
    })
}

impl GenericMarks {
    /// Whether no byte is marked.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.granules.is_empty()
    }

    /// Drops every mark (a proxy fence).
    pub fn clear(&mut self) {
        self.granules.clear();
    }

    /// Marks `[lo, hi)` as written by the instruction at `pc`.
    pub fn mark(&mut self, lo: u64, hi: u64, pc: u32) {
        for (g, bytes) in granules_of(lo, hi) {
            self.granules
                .entry(g)
                .or_insert([UNMARKED; GRANULE as usize])[bytes]
                .fill(pc);
        }
    }

    /// Drops the marks of `[lo, hi)`.
    pub fn unmark(&mut self, lo: u64, hi: u64) {
        if self.granules.is_empty() || hi <= lo {
            return;
        }
        let span = (hi - lo).div_ceil(GRANULE);
        if span > self.granules.len() as u64 {
            // A range wider than the marks: visit the marks instead of the range.
            self.granules.retain(|g, marks| {
                let base = g * GRANULE;
                if base + GRANULE <= lo || hi <= base {
                    return true;
                }
                let from = (lo.max(base) - base) as usize;
                let to = (hi.min(base + GRANULE) - base) as usize;
                marks[from..to].fill(UNMARKED);
                marks.iter().any(|&pc| pc != UNMARKED)
            });
            return;
        }
        for (g, bytes) in granules_of(lo, hi) {
            if let Some(marks) = self.granules.get_mut(&g) {
                marks[bytes].fill(UNMARKED);
                if marks.iter().all(|&pc| pc == UNMARKED) {
                    self.granules.remove(&g);
                }
            }
        }
    }

    /// The first marked byte of `[lo, hi)` and the pc that marked it.
    pub fn first_marked(&self, lo: u64, hi: u64) -> Option<(u64, u32)> {
        if self.granules.is_empty() {
            return None;
        }
        granules_of(lo, hi).find_map(|(g, bytes)| {
            let marks = self.granules.get(&g)?;
            let start = bytes.start;
            marks[bytes]
                .iter()
                .position(|&pc| pc != UNMARKED)
                .map(|i| (g * GRANULE + (start + i) as u64, marks[start + i]))
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::generic_marks::GenericMarks;
    use std::collections::BTreeMap;

    /// The marks as a map of single bytes: the reference the granules are checked against.
    #[derive(Default)]
    struct Bytes(BTreeMap<u64, u32>);

    impl Bytes {
        fn mark(&mut self, lo: u64, hi: u64, pc: u32) {
            for b in lo..hi {
                self.0.insert(b, pc);
            }
        }
        fn unmark(&mut self, lo: u64, hi: u64) {
            self.0.retain(|b, _| *b < lo || hi <= *b);
        }
        fn first_marked(&self, lo: u64, hi: u64) -> Option<(u64, u32)> {
            self.0.range(lo..hi.max(lo)).next().map(|(b, pc)| (*b, *pc))
        }
    }

    #[test]
    fn granules_answer_as_single_bytes_do() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..200 {
            let (mut marks, mut bytes) = (GenericMarks::default(), Bytes::default());
            for step in 0..60u32 {
                let lo = next(256);
                let hi = lo + next(40);
                match next(4) {
                    0 | 1 => {
                        marks.mark(lo, hi, step);
                        bytes.mark(lo, hi, step);
                    }
                    2 => {
                        marks.unmark(lo, hi);
                        bytes.unmark(lo, hi);
                    }
                    _ => {
                        // A wide range: the unmarking that visits the marks.
                        let hi = lo + next(4096);
                        marks.unmark(lo, hi);
                        bytes.unmark(lo, hi);
                    }
                }
                assert_eq!(marks.is_empty(), bytes.0.is_empty());
                for _ in 0..8 {
                    let lo = next(300);
                    let hi = lo + next(48);
                    assert_eq!(marks.first_marked(lo, hi), bytes.first_marked(lo, hi));
                }
            }
        }
    }
}
