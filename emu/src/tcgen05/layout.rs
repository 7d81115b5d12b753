//! Where each register of each thread of a warp lives in Tensor Memory for `tcgen05.ld` /
//! `tcgen05.st` (spec tcgen05.md §4.2–4.4): per shape, the registers per repeat, the legal
//! `.num` values, the column footprint, and the (lane, column) of register `j` of thread `t`,
//! unpacked and with `.pack::16b` / `.unpack::16b`.

/// A `tcgen05.ld/st` shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `.32x32b`: thread t owns lane t; register j is column j.
    S32x32b,
    /// `.16x64b`
    S16x64b,
    /// `.16x128b`
    S16x128b,
    /// `.16x256b`: the mma C-fragment layout.
    S16x256b,
    /// `.16x32bx2`: two 16-lane halves, the second at `taddr + immHalfSplitoff`.
    S16x32bx2,
}

/// Every shape.
pub const SHAPES: [Shape; 5] = [
    Shape::S32x32b,
    Shape::S16x64b,
    Shape::S16x128b,
    Shape::S16x256b,
    Shape::S16x32bx2,
];

impl Shape {
    /// The qualifier as written, without the dot (`32x32b`).
    pub fn name(self) -> &'static str {
        match self {
            Shape::S32x32b => "32x32b",
            Shape::S16x64b => "16x64b",
            Shape::S16x128b => "16x128b",
            Shape::S16x256b => "16x256b",
            Shape::S16x32bx2 => "16x32bx2",
        }
    }

    /// Lanes one half of the shape spans (32 for `.32x32b`, 16 otherwise).
    pub fn lanes(self) -> u32 {
        match self {
            Shape::S32x32b => 32,
            Shape::S16x64b | Shape::S16x128b | Shape::S16x256b | Shape::S16x32bx2 => 16,
        }
    }

    /// Registers per repeat (`P`).
    pub fn regs_per_repeat(self) -> u32 {
        match self {
            Shape::S32x32b | Shape::S16x64b | Shape::S16x32bx2 => 1,
            Shape::S16x128b => 2,
            Shape::S16x256b => 4,
        }
    }

    /// The largest `.num` (repeat count): 128 registers at most per thread.
    pub fn max_num(self) -> u32 {
        128 / self.regs_per_repeat()
    }

    /// Whether `.num` = `num` is legal: a power of two from 1 to [`Shape::max_num`].
    pub fn num_ok(self, num: u32) -> bool {
        num.is_power_of_two() && num <= self.max_num()
    }

    /// Registers per thread (`R = P · num`).
    pub fn regs(self, num: u32) -> u32 {
        self.regs_per_repeat() * num
    }

    /// Columns per repeat, unpacked (per half for `.16x32bx2`).
    pub fn cols_per_repeat(self) -> u32 {
        match self {
            Shape::S32x32b | Shape::S16x32bx2 => 1,
            Shape::S16x64b => 2,
            Shape::S16x128b => 4,
            Shape::S16x256b => 8,
        }
    }

    /// Columns touched from the base column (per half for `.16x32bx2`), doubled when packed.
    pub fn width(self, num: u32, packed: bool) -> u32 {
        self.cols_per_repeat() * num * if packed { 2 } else { 1 }
    }

    /// The (lane, column) of register `j` of thread `t` (lane id 0..31), unpacked, for a
    /// base address `taddr` (lane in the high 16 bits, column in the low 16) and, for
    /// `.16x32bx2`, the second half's offset `imm`. Columns are relative to nothing: the
    /// base column is included.
    pub fn cell(self, taddr: u32, imm: u32, t: u32, j: u32) -> (u32, u32) {
        let (l0, c0) = (taddr >> 16, taddr & 0xFFFF);
        let p = self.regs_per_repeat();
        let (k, i) = (j % p, j / p);
        match self {
            Shape::S32x32b => (l0 + t, c0 + i),
            Shape::S16x64b => (l0 + (t >> 2) + 8 * (t & 1), c0 + 2 * i + ((t >> 1) & 1)),
            Shape::S16x128b => (l0 + (t >> 2) + 8 * k, c0 + 4 * i + (t & 3)),
            Shape::S16x256b => (
                l0 + (t >> 2) + 8 * (k >> 1),
                c0 + 8 * i + 2 * (t & 3) + (k & 1),
            ),
            Shape::S16x32bx2 => {
                let b = if t < 16 {
                    taddr
                } else {
                    taddr.wrapping_add(imm)
                };
                ((b >> 16) + (t & 15), (b & 0xFFFF) + i)
            }
        }
    }

    /// With `.pack::16b`/`.unpack::16b`: the two cells whose low 16 bits hold register `j`'s
    /// low and high halves.
    pub fn packed_cells(self, taddr: u32, imm: u32, t: u32, j: u32) -> [(u32, u32); 2] {
        let base = if self == Shape::S16x32bx2 && t >= 16 {
            taddr.wrapping_add(imm)
        } else {
            taddr
        };
        let c0 = base & 0xFFFF;
        // The unpacked formula without the base column gives the relative column c.
        let (lane, c) = self.cell(base & !0xFFFF, 0, t, j);
        [(lane, c0 + 2 * c), (lane, c0 + 2 * c + 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{Arbitrary, Gen, QuickCheck};
    use std::collections::HashSet;

    #[test]
    fn the_specs_worked_examples() {
        let c = |s: Shape, t, j| s.cell(0, 0, t, j);
        assert_eq!(c(Shape::S32x32b, 7, 3), (7, 3));
        assert_eq!(c(Shape::S16x64b, 5, 1), (9, 2));
        assert_eq!(
            (c(Shape::S16x128b, 6, 0), c(Shape::S16x128b, 6, 1)),
            ((1, 2), (9, 2))
        );
        assert_eq!(c(Shape::S16x128b, 6, 3), (9, 6));
        let four: Vec<_> = (0..4).map(|j| c(Shape::S16x256b, 5, j)).collect();
        assert_eq!(four, [(1, 2), (1, 3), (9, 2), (9, 3)]);
        assert_eq!(c(Shape::S16x256b, 5, 6), (9, 10));
        assert_eq!(Shape::S16x32bx2.cell(0, 2, 3, 1), (3, 1));
        assert_eq!(Shape::S16x32bx2.cell(0, 2, 19, 1), (3, 3));
        assert_eq!(Shape::S16x32bx2.cell(0, 0x0010_0010, 19, 0), (19, 16));
        // 16x64b, thread by thread: 0 → (0,0), 1 → (8,0), 2 → (0,1), 3 → (8,1), 4 → (1,0), 31 → (15,1).
        let firsts: Vec<_> = [0, 1, 2, 3, 4, 31]
            .iter()
            .map(|&t| c(Shape::S16x64b, t, 0))
            .collect();
        assert_eq!(firsts, [(0, 0), (8, 0), (0, 1), (8, 1), (1, 0), (15, 1)]);
    }

    #[test]
    fn counts_and_footprints_follow_the_table() {
        assert_eq!(SHAPES.map(Shape::max_num), [128, 128, 64, 32, 128]);
        assert_eq!(Shape::S16x256b.regs(32), 128);
        assert_eq!(
            Shape::S16x64b.width(4, false),
            8,
            "ptxas checks col+7 for 16x64b.x4"
        );
        assert_eq!(
            Shape::S16x256b.width(4, true),
            64,
            "col+0x3f for 16x256b.x4.pack"
        );
        assert!(
            !Shape::S16x128b.num_ok(128) && Shape::S16x128b.num_ok(64) && !Shape::S32x32b.num_ok(3)
        );
    }

    #[derive(Clone, Debug)]
    struct Case {
        shape: Shape,
        num: u32,
        packed: bool,
        taddr: u32,
    }

    impl Arbitrary for Case {
        fn arbitrary(g: &mut Gen) -> Case {
            let shape = *g.choose(&SHAPES).expect("shapes");
            let num = 1 << (u32::arbitrary(g) % (shape.max_num().trailing_zeros() + 1));
            Case {
                shape,
                num,
                packed: bool::arbitrary(g),
                taddr: ((u32::arbitrary(g) % 4 * 32) << 16) | (u32::arbitrary(g) % 128),
            }
        }
    }

    /// Every (thread, register) goes to a distinct cell, and the cells are exactly the
    /// footprint: the shape's lanes × its columns (two halves for 16x32bx2).
    #[test]
    fn every_mapping_is_a_bijection_onto_its_footprint() {
        fn prop(c: Case) -> bool {
            let s = c.shape;
            let imm = if s == Shape::S16x32bx2 {
                (16 << 16) | s.width(c.num, c.packed)
            } else {
                0
            };
            let mut cells = HashSet::new();
            let mut count = 0;
            for t in 0..32 {
                for j in 0..s.regs(c.num) {
                    let got: Vec<(u32, u32)> = if c.packed {
                        s.packed_cells(c.taddr, imm, t, j).to_vec()
                    } else {
                        vec![s.cell(c.taddr, imm, t, j)]
                    };
                    for cell in got {
                        count += 1;
                        cells.insert(cell);
                    }
                }
            }
            let (l0, c0) = (c.taddr >> 16, c.taddr & 0xFFFF);
            let w = s.width(c.num, c.packed);
            let mut footprint = HashSet::new();
            let halves: &[(u32, u32)] = if s == Shape::S16x32bx2 {
                &[(0, 0), (16, w)]
            } else {
                &[(0, 0)]
            };
            let lanes = if s == Shape::S32x32b { 32 } else { 16 };
            for &(dl, dc) in halves {
                for l in 0..lanes {
                    for col in 0..w {
                        footprint.insert((l0 + dl + l, c0 + dc + col));
                    }
                }
            }
            count == cells.len() && cells == footprint
        }
        QuickCheck::new()
            .tests(400)
            .quickcheck(prop as fn(Case) -> bool);
    }
}
