//! Sparse vector clocks: for each thread a clock value, kept as a list sorted by thread id,
//! so that a clock costs memory for the threads it has heard of (a CTA after a barrier, a few
//! threads of other CTAs after a release/acquire) and not for the whole grid.
//!
//! In a kernel with `fence.sc` (docs/race.md, "Fence-SC order"), a clock also holds tagged
//! entries beside the threads' own: [`VIA_SC`] for what was learned through this run's
//! Fence-SC order, [`FENCE_REACH`] and [`FENCES_BEFORE`] for the fences that reach a point
//! through program order, synchronisation and communication. They travel with the clock
//! through every synchronisation, and a plain lookup ([`Vc::get`] of a thread id) never sees
//! them.

/// Tag of an entry learned through Fence-SC order (the order `fence.sc` executed in): a path
/// to the owner that takes at least one Fence-SC edge. A thread's own events and those known
/// without Fence-SC order are untagged.
pub const VIA_SC: u32 = 1 << 28;

/// Tag of an entry `t | FENCE_REACH` = `c`: thread `t`'s `fence.sc` at clock `c` (and every
/// earlier one of `t`) reaches the owner through program order, synchronisation other than
/// Fence-SC order, and communication (reads-from, coherence and from-reads between accesses).
pub const FENCE_REACH: u32 = 1 << 27;

/// Tag of an entry `t | FENCES_BEFORE` = `c`: thread `t`'s `fence.sc` at clock `c` reaches (as
/// [`FENCE_REACH`] counts it) some `fence.sc` ordered before the owner without Fence-SC order.
pub const FENCES_BEFORE: u32 = 1 << 26;

/// Thread ids (agents' bits aside) the tags leave room for; a launch with more threads keeps
/// Fence-SC order as it ran (docs/race.md).
pub const TAGGED_THREADS: u32 = FENCES_BEFORE;

/// A vector clock: thread id (linear over the grid) to the last of its events known to be
/// ordered before the owner's current point. Missing entries are 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vc {
    entries: Vec<(u32, u32)>,
}

impl Vc {
    /// Host bytes its entries hold (the budget's count of a clock kept in shadow memory).
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<(u32, u32)>()
    }

    /// The clock of thread `t`.
    #[inline]
    pub fn get(&self, t: u32) -> u32 {
        match self.entries.binary_search_by_key(&t, |e| e.0) {
            Ok(i) => self.entries[i].1,
            Err(_) => 0,
        }
    }

    /// Raises thread `t`'s entry to at least `c`.
    pub fn raise(&mut self, t: u32, c: u32) {
        match self.entries.binary_search_by_key(&t, |e| e.0) {
            Ok(i) => self.entries[i].1 = self.entries[i].1.max(c),
            Err(i) => self.entries.insert(i, (t, c)),
        }
    }

    /// Whether every entry of `self` is at most the same entry of `other`.
    pub fn leq(&self, other: &Vc) -> bool {
        let mut j = 0;
        for &(t, c) in &self.entries {
            while j < other.entries.len() && other.entries[j].0 < t {
                j += 1;
            }
            match other.entries.get(j) {
                Some(&(u, d)) if u == t && c <= d => {}
                _ => return false,
            }
        }
        true
    }

    /// Pointwise maximum with `other`.
    pub fn join(&mut self, other: &Vc) {
        if other.entries.is_empty() {
            return;
        }
        if self.entries.is_empty() {
            self.entries.clone_from(&other.entries);
            return;
        }
        let mut out = Vec::with_capacity(self.entries.len().max(other.entries.len()));
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.entries, &other.entries);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    out.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((a[i].0, a[i].1.max(b[j].1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        self.entries = out;
    }

    /// The entries whose ids lie in `lo..hi`, in id order.
    pub fn range(&self, lo: u32, hi: u32) -> &[(u32, u32)] {
        let a = self.entries.partition_point(|e| e.0 < lo);
        let b = self.entries.partition_point(|e| e.0 < hi);
        &self.entries[a..b.max(a)]
    }

    /// Whether some entry lies in `lo..hi`.
    pub fn any_in(&self, lo: u32, hi: u32) -> bool {
        !self.range(lo, hi).is_empty()
    }

    /// Pointwise maximum with the entries `other` (sorted by id, as [`Vc::range`] gives them).
    pub fn join_entries(&mut self, other: &[(u32, u32)]) {
        if other.is_empty() {
            return;
        }
        self.join(&Vc {
            entries: other.to_vec(),
        });
    }

    /// Joins `other` as learned through a Fence-SC edge: its untagged and [`VIA_SC`] entries
    /// come in tagged [`VIA_SC`] (agents keep their bits); its [`FENCE_REACH`] and
    /// [`FENCES_BEFORE`] entries stay out (Fence-SC order is not among the edges they follow).
    pub fn join_via_sc(&mut self, other: &Vc) {
        let mut tagged: Vec<(u32, u32)> = other
            .entries
            .iter()
            .filter(|e| e.0 & (FENCE_REACH | FENCES_BEFORE) == 0)
            .map(|&(t, c)| (t | VIA_SC, c))
            .collect();
        tagged.sort_unstable();
        tagged.dedup_by(|later, earlier| {
            // Equal ids: keep the larger clock in the one that stays.
            if later.0 == earlier.0 {
                earlier.1 = earlier.1.max(later.1);
                true
            } else {
                false
            }
        });
        self.join_entries(&tagged);
    }

    /// Entries held (for memory accounting and tests).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no thread is known.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_pointwise_max() {
        let mut a = Vc::default();
        a.raise(3, 5);
        a.raise(1, 2);
        let mut b = Vc::default();
        b.raise(1, 7);
        b.raise(9, 1);
        assert!(!a.leq(&b));
        a.join(&b);
        assert_eq!((a.get(1), a.get(3), a.get(9), a.get(4)), (7, 5, 1, 0));
        assert!(b.leq(&a));
        assert_eq!(a.len(), 3);
    }

    #[test]
    fn a_fence_sc_join_tags_what_it_brings_and_leaves_reach_out() {
        let mut published = Vc::default();
        published.raise(3, 5);
        published.raise(3 | VIA_SC, 9);
        published.raise(7 | FENCE_REACH, 2);
        published.raise(7 | FENCES_BEFORE, 2);
        published.raise(4 | (1 << 31), 6);
        let mut v = Vc::default();
        v.raise(3, 1);
        v.join_via_sc(&published);
        // The thread's own knowledge of thread 3 is unchanged; what came through the fence is
        // tagged, and the larger of the two clocks for thread 3's tagged entry stays.
        assert_eq!(v.get(3), 1);
        assert_eq!(v.get(3 | VIA_SC), 9);
        assert_eq!(v.get(4 | (1 << 31) | VIA_SC), 6);
        assert_eq!(v.get(7 | FENCE_REACH), 0);
        assert_eq!(v.get(7 | FENCES_BEFORE), 0);
        assert_eq!(v.range(VIA_SC, 1 << 29), &[(3 | VIA_SC, 9)]);
        assert!(!v.any_in(FENCE_REACH, VIA_SC));
    }
}
