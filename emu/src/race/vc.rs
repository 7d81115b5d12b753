//! Sparse vector clocks: for each thread a clock value, kept as a list sorted by thread id,
//! so that a clock costs memory for the threads it has heard of (a CTA after a barrier, a few
//! threads of other CTAs after a release/acquire) and not for the whole grid.

/// A vector clock: thread id (linear over the grid) to the last of its events known to be
/// ordered before the owner's current point. Missing entries are 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vc {
    entries: Vec<(u32, u32)>,
}

impl Vc {
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
}
