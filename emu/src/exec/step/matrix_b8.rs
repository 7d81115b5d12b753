//! The sm_100a byte forms of the matrix moves: `ldmatrix.sync.aligned.m16n16.{x1,x2}.trans
//! {.shared}.b8` and `stmatrix.sync.aligned.m16n8.{x1,x2,x4}.trans{.shared}.b8`.
//!
//! The PTX ISA gives these lane layouts only as figures. The layouts here are derived from
//! CUTLASS's CuTe copy traits for the same instructions (`include/cute/atom/
//! copy_traits_sm100.hpp`: `SM100_U8x8_LDSM_T` and `SM100_U8x16_LDSM_T` for ldmatrix
//! `.m16n16` `.x1`/`.x2`, `SM100_U8x4_STSM_T`, `SM100_U8x8_STSM_T` and `SM100_U8x16_STSM_T`
//! for stmatrix `.m16n8` `.x1`/`.x2`/`.x4`), by composing each trait's source and destination
//! (thread, value) → bit maps:
//!
//! * ldmatrix `.m16n16`: byte `m` of register `k` of lane `t` is byte `t/4 + 8·(m>>1)` of the
//!   16-byte row whose address lane `(m&1) + 2·(k&1) + 4·(t%4) + 16·(k>>1)` supplies (lanes
//!   0–15 address the first matrix, 16–31 the second);
//! * stmatrix `.m16n8`: byte `m` of register `k` of lane `t` goes to byte `t/4 + 8·(m>>1)` of
//!   the row whose address lane `2·(t%4) + (m&1) + 8·k` supplies (8 rows per register).
//!
//! `tests/fixtures/mma/b8_sm100/model.py` evaluates the CuTe layouts independently of this
//! closed form and gives the expected outputs of the fixture that checks it.

use super::mma::{row_addr, space_of};
use super::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::{Flow, MatrixInstr};
use crate::ir::MatrixMove;

/// The row lane and byte of the source of byte `m` of register `k` of lane `t`, for
/// `ldmatrix.m16n16.trans.b8`.
pub fn ld_m16n16_source(t: u32, k: u32, m: u32) -> (u32, u32) {
    (
        (m & 1) + 2 * (k & 1) + 4 * (t % 4) + 16 * (k >> 1),
        t / 4 + 8 * (m >> 1),
    )
}

/// The row lane and byte that byte `m` of register `k` of lane `t` is stored to, for
/// `stmatrix.m16n8.trans.b8`.
pub fn st_m16n8_target(t: u32, k: u32, m: u32) -> (u32, u32) {
    (2 * (t % 4) + (m & 1) + 8 * k, t / 4 + 8 * (m >> 1))
}

/// `ldmatrix.m16n16.{x1,x2}.trans.b8` (all lanes converged).
pub fn ldmatrix_m16n16(
    c: &mut Ctx<'_>,
    x: &MatrixInstr,
    mv: &MatrixMove,
) -> Result<Flow, LaneFault> {
    let space = space_of(x);
    let rows = 16 * mv.num.count();
    let mut bytes = vec![[0u8; 16]; rows as usize];
    for (s, row) in bytes.iter_mut().enumerate() {
        let (addr, lane) = row_addr(c, x, 0, s as u32)?;
        for half in 0..2 {
            let v = super::mem::load_shared(c, space, addr + 8 * half as u64, 8, 8, lane)?;
            row[8 * half..8 * half + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    let mut out = vec![[0u64; 32]; x.d.len()];
    for (k, reg) in out.iter_mut().enumerate() {
        for (t, o) in reg.iter_mut().enumerate() {
            for m in 0..4 {
                let (s, b) = ld_m16n16_source(t as u32, k as u32, m);
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
                super::mem::store_shared(c, space, addr + u64::from(b), 1, 1, lane, byte)?;
            }
        }
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

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
