//! The tile multiply shared by the matrix families (`mma.sync`, `wmma`, `wgmma`,
//! `tcgen05.mma`): `D = A·B + C` on raw element bits, with the accumulation model of the
//! target ([`crate::semantics::mma::AccModel`]) and the per-instruction variants the compiler
//! lowers differently (`multiply_sync`, `multiply_wmma`); and the element access of register
//! fragments (`elem_bits`, `put`).
//!
//! `.f16` tiles with `.f32` or `.f16` C and D, K of 8 or 16 and columns in eights are
//! multiplied eight columns of a row at a time in binary32 (`multiply_f16_rows`); other
//! floating-point tiles under the exponent-sum model (sm_90 and later) whole
//! ([`crate::semantics::mma::tile::dot_tile_f32`]: every dot product of a row of D advanced
//! together, bit for bit the per-element model's); other models, integer and `.f64` tiles
//! one element at a time ([`crate::semantics::mma::tile::tile_pays`] says why).

use crate::ir::{Mma, MmaBitOp, MmaElem};
use crate::semantics::convert::{f16_to_f32, f64_to_narrow, narrow_to_f64, Narrow};
use crate::semantics::mma::exponent_sum_rows::{
    dot_row_f16_exponent_sum, exponent_sum_rows_apply, ARow, Panel,
};
use crate::semantics::mma::leading_rows::{dot_row_f16, reference_row, rows_apply, COLS};
use crate::semantics::mma::tile::{dot_tile_f32, tile_pays, TileOperands};
use crate::semantics::mma::{dot_f32, dot_f32_wide, dot_f64, dot_int, AccModel, MmaInput};
use crate::semantics::mma_sync::{dot_fp8_as_f16, dot_m8n8k4_f16, dot_m8n8k4_f32};
use rustc_apfloat::Round;

/// How the elements of one type sit in a fragment's 64-bit register values: `per_reg` to a
/// register, `bits` wide, element `i` at position `i mod per_reg` of register `i / per_reg`.
/// Worked out once per instruction, so that loops over lanes and elements do no matching.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packing {
    /// log2 of the elements per register (a power of two: 1 to 32).
    per_reg_log2: u32,
    bits: u32,
    /// What a read keeps: one element, or the whole value for 32- and 64-bit elements.
    read_mask: u64,
    /// What a write replaces: one element (the whole value for 64-bit elements).
    write_mask: u64,
}

impl Packing {
    pub(crate) fn of(e: MmaElem) -> Packing {
        let bits = if e == MmaElem::F64 { 64 } else { e.bits() };
        let one = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        debug_assert!(e.per_reg().is_power_of_two());
        Packing {
            per_reg_log2: e.per_reg().trailing_zeros(),
            bits: bits.min(63),
            read_mask: if bits >= 32 { u64::MAX } else { one },
            write_mask: one,
        }
    }

    /// The register of element `i` and its position in it.
    #[inline(always)]
    fn position(&self, i: u32) -> (usize, u32) {
        let j = i & ((1 << self.per_reg_log2) - 1);
        ((i >> self.per_reg_log2) as usize, j)
    }

    /// Element `i` of lane `lane` as raw bits.
    #[inline(always)]
    pub(crate) fn get(&self, regs: &[[u64; 32]], lane: u32, i: u32) -> u64 {
        let (r, j) = self.position(i);
        (regs[r][lane as usize] >> (j * self.bits)) & self.read_mask
    }

    /// Packs element `i` (raw bits) into lane `lane`'s registers.
    #[inline(always)]
    pub(crate) fn put(&self, out: &mut [[u64; 32]], lane: u32, i: u32, v: u64) {
        let (r, j) = self.position(i);
        let shift = j * self.bits;
        let slot = &mut out[r][lane as usize];
        *slot = (*slot & !(self.write_mask << shift)) | ((v & self.write_mask) << shift);
    }
}

/// Element `i` of a fragment of `e` elements as raw bits.
#[inline]
pub(crate) fn elem_bits(regs: &[[u64; 32]], e: MmaElem, lane: u32, i: u32) -> u64 {
    Packing::of(e).get(regs, lane, i)
}

/// A floating-point element, widened exactly.
#[inline]
fn float_of(e: MmaElem, bits: u64) -> f64 {
    match e {
        MmaElem::F16 => narrow_to_f64(bits, Narrow::F16),
        MmaElem::Bf16 => narrow_to_f64(bits, Narrow::BF16),
        MmaElem::E4m3 => narrow_to_f64(bits, Narrow::E4M3),
        MmaElem::E5m2 => narrow_to_f64(bits, Narrow::E5M2),
        // The low 13 bits of a .tf32 operand are not used.
        MmaElem::Tf32 => f64::from(f32::from_bits(bits as u32 & !0x1FFF)),
        MmaElem::F32 => f64::from(f32::from_bits(bits as u32)),
        MmaElem::F64 => f64::from_bits(bits),
        MmaElem::S8 | MmaElem::U8 | MmaElem::S4 | MmaElem::U4 | MmaElem::B1 | MmaElem::S32 => {
            int_of(e, bits) as f64
        }
    }
}

/// An integer element, sign-extended where signed.
fn int_of(e: MmaElem, bits: u64) -> i64 {
    match e {
        MmaElem::S8 => i64::from(bits as u8 as i8),
        MmaElem::S4 => i64::from(((bits as u8) << 4) as i8 >> 4),
        MmaElem::S32 => i64::from(bits as u32 as i32),
        _ => bits as i64,
    }
}

fn input_of(e: MmaElem) -> MmaInput {
    match e {
        MmaElem::Bf16 => MmaInput::Bf16,
        MmaElem::Tf32 => MmaInput::Tf32,
        MmaElem::E4m3 | MmaElem::E5m2 => MmaInput::Fp8,
        _ => MmaInput::F16,
    }
}

/// A matrix of raw element bits, row-major.
pub(crate) struct Tile {
    cols: usize,
    data: Vec<u64>,
}

impl Tile {
    fn new(rows: u32, cols: u32) -> Tile {
        Tile {
            cols: cols as usize,
            data: vec![0; rows as usize * cols as usize],
        }
    }

    /// Sets element `(row, col)`.
    #[inline]
    pub(crate) fn set(&mut self, row: u32, col: u32, v: u64) {
        self.data[row as usize * self.cols + col as usize] = v;
    }

    /// Element `(row, col)`.
    #[inline]
    pub(crate) fn get(&self, row: u32, col: u32) -> u64 {
        self.data[row as usize * self.cols + col as usize]
    }

    /// The elements, row-major.
    #[inline]
    pub(crate) fn elements(&self) -> &[u64] {
        &self.data
    }

    /// The elements, row-major, to write in place.
    #[inline]
    pub(crate) fn elements_mut(&mut self) -> &mut [u64] {
        &mut self.data
    }

    /// The elements, row-major, each cut to its low 32 bits (elements of at most 32 bits).
    pub(crate) fn into_low_words(self) -> Vec<u32> {
        self.data.into_iter().map(|v| v as u32).collect()
    }

    /// Replaces every element `v` by `f(v)`.
    pub(crate) fn map_in_place(&mut self, f: impl Fn(u64) -> u64) {
        self.data.iter_mut().for_each(|v| *v = f(*v));
    }

    fn rows(&self) -> usize {
        self.data.len() / self.cols.max(1)
    }
}

/// The matrices of one multiplication: `a` (M×K), `b` (K×N), `c` (M×N) as raw bits.
pub(crate) struct Tiles {
    pub(crate) a: Tile,
    pub(crate) b: Tile,
    pub(crate) c: Tile,
}

impl Tiles {
    pub(crate) fn new(m: u32, n: u32, k: u32) -> Tiles {
        Tiles {
            a: Tile::new(m, k),
            b: Tile::new(k, n),
            c: Tile::new(m, n),
        }
    }
}

/// The rows of A and the columns of B, converted once: `a[row·k + x]`, `b[col·k + x]`.
fn operands<T: Copy + Default>(
    t: &Tiles,
    conv_a: impl Fn(u64) -> T,
    conv_b: impl Fn(u64) -> T,
) -> (Vec<T>, Vec<T>) {
    let (k, cols) = (t.a.cols, t.b.cols);
    let a = t.a.data.iter().map(|v| conv_a(*v)).collect();
    let mut b = vec![T::default(); cols * k];
    for x in 0..k {
        for col in 0..cols {
            b[col * k + x] = conv_b(t.b.data[x * cols + col]);
        }
    }
    (a, b)
}

/// `D = A·B + C` on raw element bits; returns D (M×N) as raw bits of `m.d`.
pub(crate) fn multiply(m: &Mma, t: &Tiles, sm: u32) -> Tile {
    let (rows, cols, k) = (t.a.rows(), t.c.cols, t.a.cols);
    let mut d = Tile::new(rows as u32, cols as u32);
    let model = AccModel::for_target(sm, input_of(m.a));
    let each = |d: &mut Tile, f: &mut dyn FnMut(usize, usize, u64) -> u64| {
        for r in 0..rows {
            for col in 0..cols {
                d.data[r * cols + col] = f(r, col, t.c.data[r * cols + col]);
            }
        }
    };
    match m.a {
        MmaElem::B1 => {
            let (a, b) = operands(t, |v| v as u8, |v| v as u8);
            each(&mut d, &mut |r, col, cbits| {
                let ones: i64 = (0..k)
                    .map(|x| {
                        let (a, b) = (a[r * k + x], b[col * k + x]);
                        i64::from(match m.bitop {
                            Some(MmaBitOp::Xor) => a ^ b,
                            Some(MmaBitOp::And) | None => a & b,
                        })
                    })
                    .sum();
                let s = dot_int(&[ones], &[1], int_of(MmaElem::S32, cbits) as i32, false);
                u64::from(s as u32)
            });
        }
        e if e.is_integer() => {
            let (a, b) = operands(t, |v| int_of(m.a, v), |v| int_of(m.b, v));
            each(&mut d, &mut |r, col, cbits| {
                let (a, b) = (&a[r * k..(r + 1) * k], &b[col * k..(col + 1) * k]);
                let c = int_of(MmaElem::S32, cbits) as i32;
                u64::from(dot_int(a, b, c, m.satfinite) as u32)
            });
        }
        MmaElem::F16 if let Some(d) = multiply_f16_rows(m, t, &model) => return d,
        _ if m.d != MmaElem::F64 && tile_pays(&model) => {
            // The whole tile at once (the same bits: semantics::mma::tile).
            let conv = |tile: &Tile, e: MmaElem| -> Vec<f64> {
                tile.data.iter().map(|v| float_of(e, *v)).collect()
            };
            let (a, b) = (conv(&t.a, m.a), conv(&t.b, m.b));
            let c: Vec<f32> = t.c.data.iter().map(|v| float_of(m.c, *v) as f32).collect();
            let mut out = vec![0f32; rows * cols];
            let mut wide = (m.d == MmaElem::F16).then(|| vec![0f64; rows * cols]);
            let ops = TileOperands {
                m: rows,
                n: cols,
                k,
                a: &a,
                b: &b,
            };
            dot_tile_f32(&model, &ops, &c, &mut out, wide.as_deref_mut());
            for (i, v) in d.data.iter_mut().enumerate() {
                *v = match &wide {
                    Some(w) => f64_to_narrow(w[i], Narrow::F16, Round::NearestTiesToEven, false),
                    None => u64::from(out[i].to_bits()),
                };
            }
        }
        _ => {
            let (a, b) = operands(t, |v| float_of(m.a, v), |v| float_of(m.b, v));
            each(&mut d, &mut |r, col, cbits| {
                let (a, b) = (&a[r * k..(r + 1) * k], &b[col * k..(col + 1) * k]);
                let c = float_of(m.c, cbits);
                match m.d {
                    MmaElem::F64 => dot_f64(a, b, c).to_bits(),
                    MmaElem::F16 => {
                        let s = dot_f32_wide(&model, a, b, c as f32);
                        f64_to_narrow(s, Narrow::F16, Round::NearestTiesToEven, false)
                    }
                    _ => u64::from(dot_f32(&model, a, b, c as f32).to_bits()),
                }
            });
        }
    }
    d
}

/// [`multiply`] for `.f16` A and B with `.f32` or `.f16` C and D, through the engines that
/// compute eight columns of a row together in binary32 ([`crate::semantics::mma::leading_rows`]
/// for the A100's model and older, [`crate::semantics::mma::exponent_sum_rows`] for the H100's);
/// `None` when neither applies (other models, a K other than 8 or 16, columns not a multiple of
/// 8). A row they decline is computed by the per-element reference, so the bits are those of
/// the general path.
fn multiply_f16_rows(m: &Mma, t: &Tiles, model: &AccModel) -> Option<Tile> {
    let (cols, k) = (t.c.cols, t.a.cols);
    let float_cd = |e: MmaElem| matches!(e, MmaElem::F32 | MmaElem::F16);
    let applies = m.b == MmaElem::F16
        && float_cd(m.c)
        && float_cd(m.d)
        && cols.is_multiple_of(COLS)
        && (rows_apply(model, MmaInput::F16) || exponent_sum_rows_apply(model, MmaInput::F16))
        && k.is_multiple_of(model.block);
    match k {
        8 if applies => Some(f16_rows::<8>(m, t, model)),
        16 if applies => Some(f16_rows::<16>(m, t, model)),
        _ => None,
    }
}

/// [`multiply_f16_rows`] for a K of `K`.
fn f16_rows<const K: usize>(m: &Mma, t: &Tiles, model: &AccModel) -> Tile {
    let (rows, cols) = (t.a.rows(), t.c.cols);
    let widen = |bits: u64| f16_to_f32(bits as u32 & 0xFFFF);
    let a: Vec<[f32; K]> = (0..rows)
        .map(|r| std::array::from_fn(|kk| widen(t.a.data[r * K + kk])))
        .collect();
    let c: Vec<f32> = match m.c {
        MmaElem::F16 => t.c.data.iter().map(|v| widen(*v)).collect(),
        _ => t.c.data.iter().map(|v| f32::from_bits(*v as u32)).collect(),
    };
    let leading = rows_apply(model, MmaInput::F16);
    let a_rows: Vec<ARow<K>> = match leading {
        true => Vec::new(),
        false => a.iter().map(|v| ARow::new(model, *v)).collect(),
    };
    let mut d = Tile::new(rows as u32, cols as u32);
    for col0 in (0..cols).step_by(COLS) {
        let vals: [[f32; COLS]; K] = std::array::from_fn(|kk| {
            std::array::from_fn(|j| widen(t.b.data[kk * cols + col0 + j]))
        });
        let panel = (!leading).then(|| Panel::new(model, vals));
        for (r, a_row) in a.iter().enumerate() {
            let c_row: &[f32; COLS] = c[r * cols + col0..r * cols + col0 + COLS]
                .try_into()
                .unwrap();
            let mut wide = [0f64; COLS];
            let row = match &panel {
                None => dot_row_f16(model, a_row, &vals, c_row).inspect(|v| {
                    wide = v.map(f64::from);
                }),
                Some(p) => dot_row_f16_exponent_sum(model, &a_rows[r], p, c_row, Some(&mut wide)),
            };
            let row =
                row.unwrap_or_else(|| reference_row(model, a_row, &vals, c_row, Some(&mut wide)));
            let out = &mut d.data[r * cols + col0..r * cols + col0 + COLS];
            for j in 0..COLS {
                out[j] = match m.d {
                    MmaElem::F16 => {
                        f64_to_narrow(wide[j], Narrow::F16, Round::NearestTiesToEven, false)
                    }
                    _ => u64::from(row[j].to_bits()),
                };
            }
        }
    }
    d
}

/// [`multiply`] for `mma.sync`, whose `.f16` m8n8k4 forms (sm_80 on) and FP8 forms (sm_90)
/// the compiler lowers to other instructions ([`crate::semantics::mma_sync`]).
pub(crate) fn multiply_sync(m: &Mma, t: &Tiles, sm: u32) -> Tile {
    let fp8 = matches!(m.a, MmaElem::E4m3 | MmaElem::E5m2);
    let quad = m.is_quad_pair() && m.a == MmaElem::F16;
    if !((quad && sm >= 80) || (fp8 && (90..100).contains(&sm))) {
        return multiply(m, t, sm);
    }
    let (rows, cols, k) = (t.a.rows(), t.c.cols, t.a.cols);
    let mut d = Tile::new(rows as u32, cols as u32);
    let (a, b) = operands(t, |v| float_of(m.a, v), |v| float_of(m.b, v));
    let f16 = AccModel::for_target(sm, MmaInput::F16);
    for r in 0..rows {
        for col in 0..cols {
            let (ar, bc) = (&a[r * k..(r + 1) * k], &b[col * k..(col + 1) * k]);
            let c = float_of(m.c, t.c.data[r * cols + col]) as f32;
            let v = match (fp8, m.d) {
                (true, _) => dot_fp8_as_f16(&f16, ar, bc, c),
                (false, MmaElem::F16) => dot_m8n8k4_f16(ar, bc, c),
                (false, _) => dot_m8n8k4_f32(ar, bc, c),
            };
            d.data[r * cols + col] = match m.d {
                MmaElem::F16 => {
                    f64_to_narrow(f64::from(v), Narrow::F16, Round::NearestTiesToEven, false)
                }
                _ => u64::from(v.to_bits()),
            };
        }
    }
    d
}

/// [`multiply`] for `wmma.mma`: on sm_90 ptxas lowers the `.tf32` m16n16k8 to two chained
/// k = 4 `HMMA.1684`, so its products are added in blocks of 4 (measured on an H100).
pub(crate) fn multiply_wmma(m: &Mma, t: &Tiles, sm: u32) -> Tile {
    if m.a != MmaElem::Tf32 || sm < 90 {
        return multiply(m, t, sm);
    }
    let (rows, cols, k) = (t.a.rows(), t.c.cols, t.a.cols);
    let mut d = Tile::new(rows as u32, cols as u32);
    let (a, b) = operands(t, |v| float_of(m.a, v), |v| float_of(m.b, v));
    let model = AccModel {
        block: 4,
        ..AccModel::for_target(sm, MmaInput::Tf32)
    };
    for r in 0..rows {
        for col in 0..cols {
            let (ar, bc) = (&a[r * k..(r + 1) * k], &b[col * k..(col + 1) * k]);
            let c = float_of(m.c, t.c.data[r * cols + col]) as f32;
            d.data[r * cols + col] = u64::from(dot_f32(&model, ar, bc, c).to_bits());
        }
    }
    d
}

/// Packs element `i` (raw bits) into lane `lane`'s D registers.
#[inline]
pub(crate) fn put(out: &mut [[u64; 32]], e: MmaElem, lane: u32, i: u32, v: u64) {
    Packing::of(e).put(out, lane, i, v)
}
