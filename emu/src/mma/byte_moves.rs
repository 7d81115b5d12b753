//! The sm_100a byte forms of the matrix moves: `ldmatrix.sync.aligned.m16n16.{x1,x2}.trans
//! {.shared}.{b8, b8x16.b6x16_p32, b8x16.b4x16_p64}`, `ldmatrix.sync.aligned.m8n16.{x1,x2,x4}
//! {.shared}.b8x16.{b6x16_p32, b4x16_p64}` and `stmatrix.sync.aligned.m16n8.{x1,x2,x4}.trans
//! {.shared}.b8`.
//!
//! The PTX ISA gives these lane layouts only as figures, with the words "each thread loads 4
//! consecutive columns across 2 rows" (`.m16n16`) and "4 consecutive columns" (`.m8n16`). The
//! layouts here are derived from CUTLASS's CuTe copy traits for the same instructions
//! (`include/cute/atom/copy_traits_sm100.hpp` with the `copy` functions of
//! `include/cute/arch/copy_sm100.hpp`), by composing each trait's source and destination
//! (thread, value) → bit maps:
//!
//! * ldmatrix `.m16n16` (`SM100_U8x8_LDSM_T`, `SM100_U8x16_LDSM_T`): the traits describe the
//!   registers after their `copy` function has permuted the bytes the instruction loaded
//!   (`dst0 = {tmp0.x, tmp0.y, tmp1.x, tmp1.y}` ...); undoing that permutation, byte `m` of
//!   register `k` of lane `t` is byte `t/4 + 8·(k&1)` of the 16-byte row whose address lane
//!   `m + 4·(t%4) + 16·(k>>1)` supplies (lanes 0–15 address the first matrix, 16–31 the
//!   second). Read through `.trans`, register `k` holds row `t/4 + 8·(k&1)`, columns
//!   `4·(t%4)` to `4·(t%4) + 3`, of matrix `k>>1`: the ISA's "4 consecutive columns across 2
//!   rows", and the A fragment of the 8-bit `mma.m16n8k32`;
//! * ldmatrix `.m8n16` (`SM100_SU4_DU8x16_x{1,2,4}_LDSM_N`, `SM100_SU6_...`; no permutation):
//!   byte `m` of register `k` of lane `t` is byte `4·(t%4) + m` of the row whose address lane
//!   `t/4 + 8·k` supplies;
//! * stmatrix `.m16n8` (`SM100_U8x{4,8,16}_STSM_T`; no permutation): byte `m` of register `k`
//!   of lane `t` goes to byte `t/4 + 8·(m>>1)` of the row whose address lane
//!   `2·(t%4) + (m&1) + 8·k` supplies (8 rows per register): through `.trans`, the mma
//!   accumulator layout (`c0, c1` at row `t/4`, `c2, c3` at row `t/4 + 8`).
//!
//! With a packed source format every 16-byte row is first widened to sixteen bytes by
//! [`crate::semantics::matrix_unpack::unpack_row`] (where the packed elements and padding lie,
//! and the low-bit placement of each element in its byte, are documented there); the CuTe traits
//! treat the row as opaque bits and the layouts are those of the unpacked bytes.
//!
//! `tests/fixtures/mma/b8_sm100/model.py` and `tests/fixtures/mma/packed_sm100/model.py`
//! evaluate the CuTe layouts independently of these closed forms and give the expected outputs
//! of the fixtures that check them.

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::Flow;
use crate::ir::{MatrixMove, MatrixShape};
use crate::mma::decoded::MatrixInstr;
use crate::mma::exec::{row_addr, space_of};
use crate::semantics::matrix_unpack::unpack_row;

/// The row lane and byte of the source of byte `m` of register `k` of lane `t`, for
/// `ldmatrix.m16n16.trans` (all formats).
pub fn ld_m16n16_source(t: u32, k: u32, m: u32) -> (u32, u32) {
    (m + 4 * (t % 4) + 16 * (k >> 1), t / 4 + 8 * (k & 1))
}

/// The row lane and byte of the source of byte `m` of register `k` of lane `t`, for
/// `ldmatrix.m8n16` (bytes of the unpacked row).
pub fn ld_m8n16_source(t: u32, k: u32, m: u32) -> (u32, u32) {
    (t / 4 + 8 * k, 4 * (t % 4) + m)
}

/// The row lane and byte that byte `m` of register `k` of lane `t` is stored to, for
/// `stmatrix.m16n8.trans.b8`.
pub fn st_m16n8_target(t: u32, k: u32, m: u32) -> (u32, u32) {
    (2 * (t % 4) + (m & 1) + 8 * k, t / 4 + 8 * (m >> 1))
}

/// Where a load layout takes byte `m` of register `k` of lane `t` from: (row lane, byte).
type SourceOf = fn(u32, u32, u32) -> (u32, u32);

/// `ldmatrix.m16n16.{x1,x2}.trans` and `ldmatrix.m8n16.{x1,x2,x4}` in every byte format (all
/// lanes converged).
pub fn ldmatrix_bytes(
    c: &mut Ctx<'_>,
    x: &MatrixInstr,
    mv: &MatrixMove,
) -> Result<Flow, LaneFault> {
    let space = space_of(x);
    let (rows, source): (u32, SourceOf) = match mv.shape {
        MatrixShape::M16n16 => (16 * mv.num.count(), ld_m16n16_source),
        _ => (8 * mv.num.count(), ld_m8n16_source),
    };
    let mut bytes = vec![[0u8; 16]; rows as usize];
    for (s, row) in bytes.iter_mut().enumerate() {
        let (addr, lane) = row_addr(c, x, 0, s as u32)?;
        let mut raw = [0u8; 16];
        for half in 0..2 {
            let v =
                crate::exec::address::load_shared(c, space, addr + 8 * half as u64, 8, 8, lane)?;
            raw[8 * half..8 * half + 8].copy_from_slice(&v.to_le_bytes());
        }
        c.after_elem_access(space, addr, 16, lane, false);
        *row = unpack_row(mv.format, raw);
    }
    let mut out = vec![[0u64; 32]; x.d.len()];
    for (k, reg) in out.iter_mut().enumerate() {
        for (t, o) in reg.iter_mut().enumerate() {
            for m in 0..4 {
                let (s, b) = source(t as u32, k as u32, m);
                *o |= u64::from(bytes[s as usize][b as usize]) << (8 * m);
            }
        }
    }
    for (dst, vals) in x.d.iter().zip(&out) {
        c.write(dst, vals);
    }
    Ok(Flow::Next)
}

/// `stmatrix.m16n8.{x1,x2,x4}.trans.b8` (all lanes converged), from the gathered registers.
pub fn stmatrix_m16n8(
    c: &mut Ctx<'_>,
    x: &MatrixInstr,
    regs: &[[u64; 32]],
) -> Result<Flow, LaneFault> {
    let space = space_of(x);
    for (k, reg) in regs.iter().enumerate() {
        for (t, v) in reg.iter().enumerate() {
            for m in 0..4 {
                let (s, b) = st_m16n8_target(t as u32, k as u32, m);
                let (addr, lane) = row_addr(c, x, 0, s)?;
                let byte = (v >> (8 * m)) & 0xFF;
                crate::exec::address::store_shared(
                    c,
                    space,
                    addr + u64::from(b),
                    1,
                    1,
                    lane,
                    byte,
                )?;
            }
        }
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ldmatrix.m16n16.x2.trans` of a K-major 32×16 tile gives the 8-bit A fragment of
    /// `mma.m16n8k32` (the ISA's "Matrix Fragments for mma.m16n8k32" figures, as
    /// [`crate::mma::layout::a_elem_at`] has them): row `s` of shared memory is column `s`
    /// of A, byte `b` its row `b`.
    #[test]
    fn m16n16_trans_loads_the_8bit_a_fragment() {
        for t in 0..32 {
            for k in 0..4 {
                for m in 0..4 {
                    let (s, b) = ld_m16n16_source(t, k, m);
                    let (row, col) = crate::mma::layout::a_elem_at(true, 4, t, k, m);
                    assert_eq!((b, s), (row, col), "lane {t} reg {k} byte {m}");
                }
            }
        }
    }

    /// Every byte of the loaded matrices reaches exactly one register byte, and every register
    /// byte of a store lands on a distinct shared byte.
    #[test]
    fn the_layouts_are_bijections() {
        for n in [1u32, 2] {
            let mut seen = vec![false; (16 * 16 * n) as usize];
            for t in 0..32 {
                for k in 0..2 * n {
                    for m in 0..4 {
                        let (s, b) = ld_m16n16_source(t, k, m);
                        let i = (16 * s + b) as usize;
                        assert!(!seen[i], "twice: row {s} byte {b}");
                        seen[i] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&x| x));
        }
        for n in [1u32, 2, 4] {
            let mut seen = vec![false; (8 * 16 * n) as usize];
            for t in 0..32 {
                for k in 0..n {
                    for m in 0..4 {
                        let (s, b) = ld_m8n16_source(t, k, m);
                        let i = (16 * s + b) as usize;
                        assert!(!seen[i], "m8n16 twice: row {s} byte {b}");
                        seen[i] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&x| x));
        }
        for n in [1u32, 2, 4] {
            let mut seen = vec![false; (8 * 16 * n) as usize];
            for t in 0..32 {
                for k in 0..n {
                    for m in 0..4 {
                        let (s, b) = st_m16n8_target(t, k, m);
                        let i = (16 * s + b) as usize;
                        assert!(!seen[i]);
                        seen[i] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&x| x));
        }
    }
}
