//! The warp-level matrix instructions in the interpreter (PTX ISA "Warp Level Matrix Multiply-
//! Accumulate Instructions"): `mma.sync.aligned`, `ldmatrix`, `stmatrix` and `movmatrix`.
//!
//! Each runs once per warp with all 32 lanes' fragments gathered, like the `.sync.aligned`
//! tcgen05 instructions, through the same convergence check
//! (`tcgen05::converge`): lanes still elsewhere are waited for, and exited, missing or
//! guarded-off lanes are a fault naming them. The fragments are unpacked into matrices by the
//! layouts of [`super::mma_layout`], multiplied by the pure functions of
//! [`crate::semantics::mma`], and packed back.
//!
//! Deliberate deviations and choices:
//! 1. The sm_100a byte forms (`ldmatrix.m16n16.trans` with `.b8`, `.b8x16.b6x16_p32` or
//!    `.b8x16.b4x16_p64`, `ldmatrix.m8n16` with the two packed formats, `stmatrix.m16n8.trans.b8`)
//!    run in [`super::matrix_b8`], with layouts derived from CUTLASS's CuTe copy traits and the
//!    packed rows widened by [`crate::semantics::matrix_unpack`] (sources and choices there).
//! 2. `ldmatrix`/`stmatrix` check each row address for 16-byte alignment (the ISA requires
//!    it) and fault on the lane that supplied it.

use super::mma_layout::{
    a_elem_at, b_elem_at, c_elem, quad_pair, quad_pair_a, quad_pair_b, quad_pair_c,
};
use super::tcgen05::converge;
use super::{Ctx, FULL};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{AddrSpace, DInstr, Extra, Flow, MatrixInstr};
use crate::ir::{MatrixFormat, MatrixMove, MatrixShape, Mma, MmaBitOp, MmaElem, WarpMatrix};
use crate::semantics::convert::{f64_to_narrow, narrow_to_f64, Narrow};
use crate::semantics::mma::{dot_f32, dot_f32_wide, dot_f64, dot_int, AccModel, MmaInput};
use crate::semantics::mma_sync::{dot_fp8_as_f16, dot_m8n8k4_f16, dot_m8n8k4_f32};
use rustc_apfloat::Round;

type R = Result<Flow, LaneFault>;

pub(super) fn decoded(i: &DInstr) -> Result<&MatrixInstr, LaneFault> {
    match &i.extra {
        Extra::Matrix(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a matrix instruction without its decoded operands".into(),
        })),
    }
}

/// The registers of a fragment, all lanes: `regs[r][lane]`.
pub(super) fn gather(c: &Ctx<'_>, srcs: &[crate::exec::program::Src]) -> Vec<[u64; 32]> {
    srcs.iter().map(|s| c.fetch(s)).collect()
}

/// Element `i` of a fragment of `e` elements as raw bits.
pub(super) fn elem_bits(regs: &[[u64; 32]], e: MmaElem, lane: u32, i: u32) -> u64 {
    let p = e.per_reg();
    let (r, j) = ((i / p) as usize, i % p);
    let v = regs[r][lane as usize];
    if e == MmaElem::F64 {
        return v;
    }
    let bits = e.bits();
    let mask = if bits == 32 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    (v >> (j * bits)) & mask
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
pub(super) struct Tile {
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
    pub(super) fn set(&mut self, row: u32, col: u32, v: u64) {
        self.data[row as usize * self.cols + col as usize] = v;
    }

    /// Element `(row, col)`.
    #[inline]
    pub(super) fn get(&self, row: u32, col: u32) -> u64 {
        self.data[row as usize * self.cols + col as usize]
    }

    /// Replaces every element `v` by `f(v)`.
    pub(super) fn map_in_place(&mut self, f: impl Fn(u64) -> u64) {
        self.data.iter_mut().for_each(|v| *v = f(*v));
    }

    fn rows(&self) -> usize {
        self.data.len() / self.cols.max(1)
    }
}

/// The matrices of one multiplication: `a` (M×K), `b` (K×N), `c` (M×N) as raw bits.
pub(super) struct Tiles {
    pub(super) a: Tile,
    pub(super) b: Tile,
    pub(super) c: Tile,
}

impl Tiles {
    pub(super) fn new(m: u32, n: u32, k: u32) -> Tiles {
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
pub(super) fn multiply(m: &Mma, t: &Tiles, sm: u32) -> Tile {
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

/// [`multiply`] for `mma.sync`, whose `.f16` m8n8k4 forms (sm_80 on) and FP8 forms (sm_90)
/// the compiler lowers to other instructions ([`crate::semantics::mma_sync`]).
fn multiply_sync(m: &Mma, t: &Tiles, sm: u32) -> Tile {
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
pub(super) fn multiply_wmma(m: &Mma, t: &Tiles, sm: u32) -> Tile {
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

/// Bits per element and the mask of one element of `e` in a register.
#[inline(always)]
fn elem_width(e: MmaElem) -> (u32, u64) {
    let bits = if e == MmaElem::F64 { 64 } else { e.bits() };
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    (bits, mask)
}

/// Scatters the `n` elements per lane of fragment registers `regs` into `tile`: position `j`
/// of register `r` of lane `l` goes to `pos(l, r, j, per_reg)`.
#[inline(always)]
fn unpack(
    regs: &[[u64; 32]],
    e: MmaElem,
    n: u32,
    tile: &mut Tile,
    pos: impl Fn(u32, u32, u32, u32) -> (u32, u32),
) {
    let p = e.per_reg();
    let (bits, mask) = elem_width(e);
    for (r, vals) in regs.iter().enumerate().take(n.div_ceil(p) as usize) {
        for (l, v) in vals.iter().enumerate() {
            for j in 0..p.min(n - r as u32 * p) {
                let (row, col) = pos(l as u32, r as u32, j, p);
                tile.set(row, col, (v >> (j * bits)) & mask);
            }
        }
    }
}

/// Packs D (`n` elements per lane, laid out as C) into the registers `out`.
fn pack(d: &Tile, e: MmaElem, n: u32, out: &mut [[u64; 32]]) {
    let p = e.per_reg();
    let (bits, mask) = elem_width(e);
    for (r, vals) in out.iter_mut().enumerate().take(n.div_ceil(p) as usize) {
        for (l, slot) in vals.iter_mut().enumerate() {
            let mut v = 0u64;
            for j in 0..p.min(n - r as u32 * p) {
                let (row, col) = c_elem(l as u32, r as u32 * p + j);
                v |= (d.get(row, col) & mask) << (j * bits);
            }
            *slot = v;
        }
    }
}

/// Packs element `i` (raw bits) into lane `lane`'s D registers.
pub(super) fn put(out: &mut [[u64; 32]], e: MmaElem, lane: u32, i: u32, v: u64) {
    let p = e.per_reg();
    let (r, j) = ((i / p) as usize, i % p);
    let bits = if e == MmaElem::F64 { 64 } else { e.bits() };
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let slot = &mut out[r][lane as usize];
    *slot = (*slot & !(mask << (j * bits))) | ((v & mask) << (j * bits));
}

/// `mma.sync.aligned`.
pub fn mma(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let WarpMatrix::Mma(m) = x.op else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "mma decoded as another instruction".into(),
        }));
    };
    if let Some(flow) = converge(c, "mma.sync.aligned")? {
        return Ok(flow);
    }
    if super::mma_fast::applies(&m, x) {
        return Ok(super::mma_fast::mma_f16_f32(c, x, &m));
    }
    let (ra, rb, rc) = (gather(c, &x.a), gather(c, &x.b), gather(c, &x.c));
    let (ea, eb, ec) = m.elems_per_thread();
    let mut out = vec![[0u64; 32]; x.d.len()];
    if m.is_quad_pair() {
        let f32c = m.c == MmaElem::F32;
        let f32d = m.d == MmaElem::F32;
        for q in 0..4 {
            let lanes: Vec<u32> = (0..32).filter(|l| quad_pair(*l).0 == q).collect();
            let mut t = Tiles::new(8, 8, 4);
            for &l in &lanes {
                for e in 0..ea {
                    let (r, k) = quad_pair_a(m.alayout, l, e);
                    t.a.set(r, k, elem_bits(&ra, m.a, l, e));
                }
                for e in 0..eb {
                    let (k, col) = quad_pair_b(m.blayout, l, e);
                    t.b.set(k, col, elem_bits(&rb, m.b, l, e));
                }
                for e in 0..ec {
                    let (r, col) = quad_pair_c(f32c, l, e);
                    t.c.set(r, col, elem_bits(&rc, m.c, l, e));
                }
            }
            let d = multiply_sync(&m, &t, x.sm);
            for &l in &lanes {
                for e in 0..ec {
                    let (r, col) = quad_pair_c(f32d, l, e);
                    put(&mut out, m.d, l, e, d.get(r, col));
                }
            }
        }
    } else {
        let (rows, cols, k) = m.shape.mnk();
        let mut t = Tiles::new(rows, cols, k);
        let m16 = rows == 16;
        unpack(&ra, m.a, ea, &mut t.a, |l, r, j, p| {
            a_elem_at(m16, p, l, r, j)
        });
        unpack(&rb, m.b, eb, &mut t.b, |l, r, j, p| b_elem_at(p, l, r, j));
        unpack(&rc, m.c, ec, &mut t.c, |l, r, j, p| c_elem(l, r * p + j));
        let d = multiply_sync(&m, &t, x.sm);
        pack(&d, m.d, ec, &mut out);
    }
    for (dst, vals) in x.d.iter().zip(&out) {
        c.write(dst, vals);
    }
    Ok(Flow::Next)
}

fn unsupported_shape(what: &str, mv: &MatrixMove) -> Result<(), LaneFault> {
    if mv.shape == MatrixShape::M8n8 {
        return Ok(());
    }
    Err(LaneFault::new(FaultKind::Unsupported {
        what: format!(
            "{what}.{}.{}: this shape and format combination is not modelled",
            mv.shape.name(),
            mv.format.name()
        ),
    }))
}

/// The row address of row `row` of matrix `mat`: supplied by lane `8·mat + row`, 16-byte
/// aligned.
pub(super) fn row_addr(
    c: &Ctx<'_>,
    x: &MatrixInstr,
    mat: u32,
    row: u32,
) -> Result<(u64, usize), LaneFault> {
    let lane = (8 * mat + row) as usize;
    let a = x.addr.as_ref().ok_or_else(|| {
        LaneFault::new(FaultKind::Unsupported {
            what: "a matrix move without an address".into(),
        })
    })?;
    let addr = super::mem::lane_addr(c, a, lane);
    if !addr.is_multiple_of(16) {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align: 16 },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    Ok((addr, lane))
}

pub(super) fn space_of(x: &MatrixInstr) -> AddrSpace {
    x.addr.map_or(AddrSpace::Generic, |a| a.space)
}

/// `ldmatrix.sync.aligned.m8n8.num{.trans}{.shared}.b16`: lane `l` receives, for each matrix,
/// the two 16-bit elements at row `l/4`, columns `2(l%4)` and `2(l%4)+1` (with `.trans`, at
/// rows `2(l%4)` and `2(l%4)+1`, column `l/4`).
pub fn ldmatrix(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let (WarpMatrix::Ldmatrix(mv) | WarpMatrix::Stmatrix(mv)) = x.op else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "ldmatrix decoded as another instruction".into(),
        }));
    };
    if let Some(flow) = converge(c, "ldmatrix.sync.aligned")? {
        return Ok(flow);
    }
    if matches!(mv.shape, MatrixShape::M16n16 | MatrixShape::M8n16) {
        return super::matrix_b8::ldmatrix_bytes(c, x, &mv);
    }
    unsupported_shape("ldmatrix", &mv)?;
    let space = space_of(x);
    let mut out = vec![[0u64; 32]; x.d.len()];
    for mat in 0..mv.num.count() {
        let mut rows = [[0u16; 8]; 8];
        for (r, row) in rows.iter_mut().enumerate() {
            *row = read_row(c, x, space, mat, r as u32)?;
            if c.race.is_some() {
                let (addr, lane) = row_addr(c, x, mat, r as u32)?;
                super::mem::race_elem(c, space, addr, 16, lane, false);
            }
        }
        for (l, o) in out[mat as usize].iter_mut().enumerate() {
            let (g, t) = (l / 4, l % 4);
            // Lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 (with .trans, those rows of
            // column l/4).
            let (lo, hi) = if mv.trans {
                (rows[2 * t][g], rows[2 * t + 1][g])
            } else {
                (rows[g][2 * t], rows[g][2 * t + 1])
            };
            *o = u64::from(lo) | u64::from(hi) << 16;
        }
    }
    for (dst, vals) in x.d.iter().zip(&out) {
        c.write(dst, vals);
    }
    Ok(Flow::Next)
}

/// Row `row` of matrix `mat` of a matrix load: eight 16-bit elements from the 16 bytes at the
/// row address its lane supplies, read as two 8-byte halves.
fn read_row(
    c: &Ctx<'_>,
    x: &MatrixInstr,
    space: AddrSpace,
    mat: u32,
    row: u32,
) -> Result<[u16; 8], LaneFault> {
    let (addr, lane) = row_addr(c, x, mat, row)?;
    let mut out = [0u16; 8];
    for half in 0..2 {
        let v = super::mem::load_shared(c, space, addr + 8 * half as u64, 8, 8, lane)?;
        for (j, o) in out[4 * half..4 * half + 4].iter_mut().enumerate() {
            *o = (v >> (16 * j)) as u16;
        }
    }
    Ok(out)
}

/// `stmatrix.sync.aligned.m8n8.num{.trans}{.shared}.b16`: the inverse of `ldmatrix`.
pub fn stmatrix(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let (WarpMatrix::Ldmatrix(mv) | WarpMatrix::Stmatrix(mv)) = x.op else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "stmatrix decoded as another instruction".into(),
        }));
    };
    if let Some(flow) = converge(c, "stmatrix.sync.aligned")? {
        return Ok(flow);
    }
    let regs = gather(c, &x.a);
    if mv.shape == MatrixShape::M16n8 && mv.format == MatrixFormat::B8 {
        return super::matrix_b8::stmatrix_m16n8(c, x, &regs);
    }
    unsupported_shape("stmatrix", &mv)?;
    let space = space_of(x);
    for mat in 0..mv.num.count() {
        for l in 0..32u32 {
            let v = regs[mat as usize][l as usize];
            if mv.trans {
                for j in 0..2 {
                    let (addr, lane) = row_addr(c, x, mat, 2 * (l % 4) + j)?;
                    let h = (v >> (16 * j)) & 0xFFFF;
                    let at = addr + 2 * u64::from(l / 4);
                    super::mem::store_shared(c, space, at, 2, 2, lane, h)?;
                    super::mem::race_elem(c, space, at, 2, lane, true);
                }
            } else {
                let (addr, lane) = row_addr(c, x, mat, l / 4)?;
                let at = addr + 4 * u64::from(l % 4);
                super::mem::store_shared(c, space, at, 4, 4, lane, v & 0xFFFF_FFFF)?;
                super::mem::race_elem(c, space, at, 4, lane, true);
            }
        }
    }
    Ok(Flow::Next)
}

/// `movmatrix.sync.aligned.m8n8.trans.b16`: the fragment of the transposed 8×8 matrix.
pub fn movmatrix(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    if let Some(flow) = converge(c, "movmatrix.sync.aligned")? {
        return Ok(flow);
    }
    let src = gather(c, &x.a);
    let mut out = [0u64; 32];
    for (l, o) in out.iter_mut().enumerate() {
        let l = l as u32;
        let mut v = 0u64;
        for j in 0..2 {
            // Element (row l/4, column 2(l%4)+j) of the transpose is element
            // (2(l%4)+j, l/4) of the source, held by lane 4·row + column/2.
            let (row, col) = (2 * (l % 4) + j, l / 4);
            let h = (src[0][(4 * row + col / 2) as usize] >> (16 * (col % 2))) & 0xFFFF;
            v |= h << (16 * j);
        }
        *o = v;
    }
    debug_assert_eq!(c.mask, FULL);
    if let Some(d) = x.d.first() {
        c.write(d, &out);
    }
    Ok(Flow::Next)
}
