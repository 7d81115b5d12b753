//! A fast path of `mma.sync.aligned` for the form Triton's and CUTLASS's matmuls spend their
//! time in: `.m16n8k8`/`.m16n8k16` with `.f16` or `.bf16` inputs and `.f32` C and D. The
//! fragments are scattered straight from the registers into stack arrays of exactly widened
//! values (no tiles of raw bits, no heap), multiplied by the same pure function
//! ([`crate::semantics::mma::dot_f32`]) under the same accumulation model, and D gathered back;
//! the results are those of the general path ([`crate::mma::exec::mma`]), which handles every other
//! form. The layouts are those of [`crate::mma::layout`].

use crate::exec::ctx::Ctx;
use crate::exec::program::Flow;
use crate::ir::{Mma, MmaElem, MmaShape};
use crate::mma::decoded::MatrixInstr;
use crate::mma::layout::{a_elem_at, b_elem_at, c_elem};
use crate::semantics::convert::{narrow_to_f64, Narrow};
use crate::semantics::mma::{dot_f32, AccModel, MmaInput};

const M: usize = 16;
const N: usize = 8;
const KMAX: usize = 16;

/// Whether [`mma_f16_f32`] computes `m`.
pub fn applies(m: &Mma, x: &MatrixInstr) -> bool {
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
pub fn mma_f16_f32(c: &mut Ctx<'_>, x: &MatrixInstr, m: &Mma) -> Flow {
    let k = if m.shape == MmaShape::M16n8k16 { 16 } else { 8 };
    let (narrow, input) = if m.a == MmaElem::F16 {
        (Narrow::F16, MmaInput::F16)
    } else {
        (Narrow::BF16, MmaInput::Bf16)
    };
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
    let model = AccModel::for_target(x.sm, input);
    let mut d = [0f32; M * N];
    for row in 0..M {
        for col in 0..N {
            let (ar, bc) = (&a[row * k..(row + 1) * k], &b[col * k..(col + 1) * k]);
            d[row * N + col] = dot_f32(&model, ar, bc, cm[row * N + col]);
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
