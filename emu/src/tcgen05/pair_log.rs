//! The allocation record of a CTA of a CTA pair (PTX ISA "tcgen05: CTA pair", "Tensor Memory
//! allocation"): `tcgen05.alloc/dealloc/relinquish_alloc_permit.cta_group::2` are collective
//! over the pair, one warp of each CTA executing them together, with the same `nCols`, and an
//! allocation gives both CTAs the same columns. Each CTA records its pair operations in order;
//! the `i`-th operation of one CTA must match the `i`-th of its peer (same instruction, same
//! `nCols` and column), and at the end both must have made as many.

/// Which allocation-management instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOpKind {
    /// `tcgen05.alloc.cta_group::2`.
    Alloc,
    /// `tcgen05.dealloc.cta_group::2`.
    Dealloc,
    /// `tcgen05.relinquish_alloc_permit.cta_group::2`.
    Relinquish,
}

impl PairOpKind {
    /// The instruction's name.
    pub fn name(self) -> &'static str {
        match self {
            PairOpKind::Alloc => "tcgen05.alloc.cta_group::2",
            PairOpKind::Dealloc => "tcgen05.dealloc.cta_group::2",
            PairOpKind::Relinquish => "tcgen05.relinquish_alloc_permit.cta_group::2",
        }
    }
}

/// One pair operation of a CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairOp {
    /// The instruction.
    pub kind: PairOpKind,
    /// `nCols` (0 for relinquish).
    pub ncols: u32,
    /// The first column allocated or deallocated (0 for relinquish).
    pub column: u32,
    /// The executing warp.
    pub warp: u32,
    /// The instruction's pc.
    pub pc: u32,
}

impl PairOp {
    /// Whether `other` (the peer's operation of the same index) is the same collective
    /// operation: same instruction, `nCols` and column.
    pub fn matches(&self, other: &PairOp) -> bool {
        self.kind == other.kind && self.ncols == other.ncols && self.column == other.column
    }

    /// The operation in words, for faults.
    pub fn describe(&self, line: u32) -> String {
        match self.kind {
            PairOpKind::Relinquish => {
                format!("{} by warp {} (line {line})", self.kind.name(), self.warp)
            }
            PairOpKind::Alloc | PairOpKind::Dealloc => format!(
                "{} of {} columns at column {} by warp {} (line {line})",
                self.kind.name(),
                self.ncols,
                self.column,
                self.warp
            ),
        }
    }
}

/// A CTA's pair operations, in the order it executed them.
#[derive(Clone, Debug, Default)]
pub struct PairLog {
    /// The operations.
    pub ops: Vec<PairOp>,
}

/// The ordinal of index `i` in words ("1st", "2nd", ...).
pub fn ordinal(i: usize) -> String {
    let n = i + 1;
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals() {
        let v: Vec<String> = [0, 1, 2, 3, 10, 11, 12, 20, 21]
            .iter()
            .map(|&i| ordinal(i))
            .collect();
        assert_eq!(
            v,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]
        );
    }

    #[test]
    fn matching_ignores_the_warp() {
        let a = PairOp {
            kind: PairOpKind::Alloc,
            ncols: 64,
            column: 0,
            warp: 0,
            pc: 3,
        };
        let b = PairOp {
            warp: 2,
            pc: 9,
            ..a
        };
        assert!(a.matches(&b));
        assert!(!a.matches(&PairOp { ncols: 32, ..b }));
        assert!(!a.matches(&PairOp {
            kind: PairOpKind::Dealloc,
            ..b
        }));
    }
}
