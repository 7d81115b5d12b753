//! The warp-level matrix instructions in the interpreter (PTX ISA "Warp Level Matrix Multiply-
//! Accumulate Instructions"): `mma.sync.aligned`, `ldmatrix`, `stmatrix` and `movmatrix`.
//!
//! Each runs once per warp with all 32 lanes' fragments gathered, like the `.sync.aligned`
//! tcgen05 instructions, through the same convergence check
//! ([`crate::exec::converge::converge`]): lanes still elsewhere are waited for, and exited, missing or
//! guarded-off lanes are a fault naming them. The fragments are unpacked into matrices by the
//! layouts of [`crate::mma::layout`], multiplied by the pure functions of
//! [`crate::semantics::mma`], and packed back.
//!
//! Deliberate deviations and choices:
//! 1. The sm_100a byte forms (`ldmatrix.m16n16.trans` with `.b8`, `.b8x16.b6x16_p32` or
//!    `.b8x16.b4x16_p64`, `ldmatrix.m8n16` with the two packed formats, `stmatrix.m16n8.trans.b8`)
//!    run in [`crate::mma::byte_moves`], with layouts derived from CUTLASS's CuTe copy traits and the
//!    packed rows widened by [`crate::semantics::matrix_unpack`] (sources and choices there).
//! 2. `ldmatrix`/`stmatrix` check each row address for 16-byte alignment (the ISA requires
//!    it) and fault on the lane that supplied it.
//!
//! A fast path serves the form Triton's and CUTLASS's matmuls spend their time in
//! (`mma_f16_f32`): `.m16n8k8`/`.m16n8k16` with `.f16` or `.bf16` inputs and `.f32` C and D.
//! The fragments are scattered straight from the registers into stack arrays of exactly
//! widened values (no tiles of raw bits, no heap), multiplied by the same pure functions
//! ([`crate::semantics::mma::dot_f32`] element by element, or
//! [`crate::semantics::mma::tile::dot_tile_f32`] for the whole tile where
//! [`crate::semantics::mma::tile::tile_pays`]) under the same accumulation model, and D
//! gathered back; the results are those of the general path ([`mma`]), which handles every
//! other form. With `.f16` inputs under the A100's model (sm_80 and older) the fragments are
//! widened to binary32 instead and D computed eight columns at a time
//! ([`crate::semantics::mma::leading_rows`]): the 512³ Triton matmul at sm_80 went from
//! 0.284 s to 0.106 s of CPU (`cargo bench -p emu --bench triton_kernels`).

use crate::exec::converge::converge;
use crate::exec::ctx::{Ctx, FULL};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{AddrSpace, DInstr, Extra, Flow};
use crate::ir::{MatrixFormat, MatrixMove, MatrixShape, Mma, MmaElem, MmaShape, WarpMatrix};
use crate::mma::decoded::MatrixInstr;
use crate::mma::layout::{
    a_elem_at, b_elem_at, c_elem, quad_pair, quad_pair_a, quad_pair_b, quad_pair_c,
};
use crate::semantics::convert::{f16_to_f32, narrow_to_f64, Narrow};
use crate::semantics::mma::leading_rows::{dot_row_f16, reference_row, rows_apply, COLS};
use crate::semantics::mma::tile::{dot_tile_f32, tile_pays, TileOperands};
use crate::semantics::mma::{dot_f32, AccModel, MmaInput};
use crate::semantics::tile::{elem_bits, multiply_sync, put, Tile, Tiles};

type R = Result<Flow, LaneFault>;

pub(crate) fn decoded(i: &DInstr) -> Result<&MatrixInstr, LaneFault> {
    match &i.extra {
        Extra::Matrix(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a matrix instruction without its decoded operands".into(),
        })),
    }
}

/// The registers of a fragment, all lanes: `regs[r][lane]`.
pub(crate) fn gather(c: &Ctx<'_>, srcs: &[crate::exec::program::Src]) -> Vec<[u64; 32]> {
    srcs.iter().map(|s| c.fetch(s)).collect()
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
    if fast_applies(&m, x) {
        return Ok(mma_f16_f32(c, x, &m));
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
pub(crate) fn row_addr(
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
    let addr = crate::exec::address::lane_addr(c, a, lane);
    if !addr.is_multiple_of(16) {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align: 16 },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    Ok((addr, lane))
}

pub(crate) fn space_of(x: &MatrixInstr) -> AddrSpace {
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
        return crate::mma::byte_moves::ldmatrix_bytes(c, x, &mv);
    }
    unsupported_shape("ldmatrix", &mv)?;
    let space = space_of(x);
    let mut out = vec![[0u64; 32]; x.d.len()];
    for mat in 0..mv.num.count() {
        let mut rows = [[0u16; 8]; 8];
        for (r, row) in rows.iter_mut().enumerate() {
            *row = read_row(c, x, space, mat, r as u32)?;
            if c.observes_accesses() {
                let (addr, lane) = row_addr(c, x, mat, r as u32)?;
                c.after_elem_access(space, addr, 16, lane, false);
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
        let v = crate::exec::address::load_shared(c, space, addr + 8 * half as u64, 8, 8, lane)?;
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
        return crate::mma::byte_moves::stmatrix_m16n8(c, x, &regs);
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
                    crate::exec::address::store_shared(c, space, at, 2, 2, lane, h)?;
                    c.after_elem_access(space, at, 2, lane, true);
                }
            } else {
                let (addr, lane) = row_addr(c, x, mat, l / 4)?;
                let at = addr + 4 * u64::from(l % 4);
                crate::exec::address::store_shared(c, space, at, 4, 4, lane, v & 0xFFFF_FFFF)?;
                c.after_elem_access(space, at, 4, lane, true);
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

const M: usize = 16;
const N: usize = 8;
const KMAX: usize = 16;

/// Whether [`mma_f16_f32`] computes `m`.
fn fast_applies(m: &Mma, x: &MatrixInstr) -> bool {
    matches!(m.shape, MmaShape::M16n8k8 | MmaShape::M16n8k16)
        && matches!(m.a, MmaElem::F16 | MmaElem::Bf16)
        && m.b == m.a
        && m.c == MmaElem::F32
        && m.d == MmaElem::F32
        && x.d.len() == 4
        && x.c.len() == 4
}

/// `mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32` for a converged warp
/// (the caller checked [`applies`]).
fn mma_f16_f32(c: &mut Ctx<'_>, x: &MatrixInstr, m: &Mma) -> Flow {
    let k = if m.shape == MmaShape::M16n8k16 { 16 } else { 8 };
    let (narrow, input) = if m.a == MmaElem::F16 {
        (Narrow::F16, MmaInput::F16)
    } else {
        (Narrow::BF16, MmaInput::Bf16)
    };
    let model = AccModel::for_target(x.sm, input);
    if rows_apply(&model, input) {
        return if k == 16 {
            mma_f16_rows::<16>(c, x, &model)
        } else {
            mma_f16_rows::<8>(c, x, &model)
        };
    }
    // A row-major (row·K + k), B column-major (col·K + k), C row-major.
    let mut a = [0f64; M * KMAX];
    let mut b = [0f64; N * KMAX];
    let mut cm = [0f32; M * N];
    for (r, s) in x.a.iter().enumerate() {
        let v = c.fetch(s);
        for (l, w) in v.iter().enumerate() {
            for j in 0..2 {
                let (row, col) = a_elem_at(true, 2, l as u32, r as u32, j);
                a[row as usize * k + col as usize] =
                    narrow_to_f64((w >> (16 * j)) & 0xFFFF, narrow);
            }
        }
    }
    for (r, s) in x.b.iter().enumerate() {
        let v = c.fetch(s);
        for (l, w) in v.iter().enumerate() {
            for j in 0..2 {
                let (row, col) = b_elem_at(2, l as u32, r as u32, j);
                b[col as usize * k + row as usize] =
                    narrow_to_f64((w >> (16 * j)) & 0xFFFF, narrow);
            }
        }
    }
    for (r, s) in x.c.iter().enumerate() {
        let v = c.fetch(s);
        for (l, w) in v.iter().enumerate() {
            let (row, col) = c_elem(l as u32, r as u32);
            cm[row as usize * N + col as usize] = f32::from_bits(*w as u32);
        }
    }
    let mut d = [0f32; M * N];
    if tile_pays(&model) {
        // The whole tile at once (the same bits: semantics::mma::tile), B row-major.
        let mut b_rows = [0f64; KMAX * N];
        for col in 0..N {
            for kk in 0..k {
                b_rows[kk * N + col] = b[col * k + kk];
            }
        }
        let ops = TileOperands {
            m: M,
            n: N,
            k,
            a: &a[..M * k],
            b: &b_rows[..k * N],
        };
        dot_tile_f32(&model, &ops, &cm, &mut d, None);
    } else {
        for row in 0..M {
            for col in 0..N {
                let (ar, bc) = (&a[row * k..(row + 1) * k], &b[col * k..(col + 1) * k]);
                d[row * N + col] = dot_f32(&model, ar, bc, cm[row * N + col]);
            }
        }
    }
    for (r, dst) in x.d.iter().enumerate() {
        let mut out = [0u64; 32];
        for (l, o) in out.iter_mut().enumerate() {
            let (row, col) = c_elem(l as u32, r as u32);
            *o = u64::from(d[row as usize * N + col as usize].to_bits());
        }
        c.write(dst, &out);
    }
    Flow::Next
}

/// [`mma_f16_f32`] with `.f16` inputs under the leading-bit model (sm_80 and older): the
/// fragments widened to binary32 without a branch and D computed a row of 8 columns at a time
/// ([`crate::semantics::mma::leading_rows`]); a row that leaves binary32's exact range is
/// computed again by [`dot_f32`], with the same bits as the general path.
fn mma_f16_rows<const K: usize>(c: &mut Ctx<'_>, x: &MatrixInstr, model: &AccModel) -> Flow {
    // The fragment layouts of `crate::mma::layout` (`a_elem_at`, `b_elem_at`, `c_elem`) for
    // lane 4g + t, read as whole runs: the widened halves of lanes 4g..4g+4 are 8 consecutive
    // values, which are A's row g + 8(r mod 2) at columns 8⌊r/2⌋.., and B's column g at rows
    // 8r..; C's and D's element (g + 8⌊r/2⌋, 2t + r mod 2) is register r of lane 4g + t.
    let mut a = [[0f32; K]; M];
    let mut b = [[0f32; COLS]; K];
    let mut cm = [[0f32; COLS]; M];
    for (r, s) in x.a.iter().enumerate() {
        let w = widen_halves(&c.fetch(s));
        for g in 0..8 {
            let col = 8 * (r / 2);
            a[g + 8 * (r % 2)][col..col + 8].copy_from_slice(&w[8 * g..8 * g + 8]);
        }
    }
    for (r, s) in x.b.iter().enumerate() {
        let w = widen_halves(&c.fetch(s));
        for g in 0..8 {
            for i in 0..8 {
                b[8 * r + i][g] = w[8 * g + i];
            }
        }
    }
    for (r, s) in x.c.iter().enumerate() {
        let v = c.fetch(s);
        for (l, w) in v.iter().enumerate() {
            cm[l / 4 + 8 * (r / 2)][2 * (l % 4) + r % 2] = f32::from_bits(*w as u32);
        }
    }
    let mut d = [[0f32; COLS]; M];
    for row in 0..M {
        d[row] = dot_row_f16(model, &a[row], &b, &cm[row])
            .unwrap_or_else(|| reference_row(model, &a[row], &b, &cm[row], None));
    }
    for (r, dst) in x.d.iter().enumerate() {
        let out: [u64; 32] = std::array::from_fn(|l| {
            u64::from(d[l / 4 + 8 * (r / 2)][2 * (l % 4) + r % 2].to_bits())
        });
        c.write(dst, &out);
    }
    Flow::Next
}

/// The two binary16 halves of every lane's register, widened exactly to binary32: lane `l`'s
/// low half at `2l`, its high half at `2l + 1`.
#[inline(always)]
fn widen_halves(v: &[u64; 32]) -> [f32; 64] {
    std::array::from_fn(|i| f16_to_f32((v[i / 2] >> (16 * (i % 2))) as u32 & 0xFFFF))
}
