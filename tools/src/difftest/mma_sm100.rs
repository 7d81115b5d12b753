//! The sm_100a kernels of the tensor-core family (`--arch sm_100a`): the byte matrix moves
//! `ldmatrix.m16n16.trans` (`.b8` and the packed `.b8x16.b6x16_p32` / `.b8x16.b4x16_p64`
//! sources), `ldmatrix.m8n16` (packed sources) and `stmatrix.m16n8.trans.b8`, whose layouts
//! and unpacking ptxemu takes from CUTLASS rather than from hardware: a GPU run confirms them
//! bit for bit. Random input bytes exercise the padding of the packed rows too.

use super::gen::Rng;
use super::mma::{exact, own_row, permuted_row, regs, store32, MmaKernel};

/// `ldmatrix.m16n16.x1/.x2.trans` (`.b8` or packed) or `ldmatrix.m8n16.x1/.x2/.x4` (packed)
/// from rows at permuted addresses.
pub fn ldmatrix_bytes(g: &mut Rng) -> MmaKernel {
    let fmt = ["b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64"][g.below(3) as usize];
    let (instr, n) = if fmt != "b8" && g.below(2) == 0 {
        let n = [1, 2, 4][g.below(3) as usize];
        (format!("ldmatrix.sync.aligned.m8n16.x{n}.shared.{fmt}"), n)
    } else {
        let x = [1, 2][g.below(2) as usize];
        (
            format!("ldmatrix.sync.aligned.m16n16.x{x}.trans.shared.{fmt}"),
            2 * x,
        )
    };
    let mut body = Vec::new();
    own_row(&mut body);
    body.push("st.shared.v4.b32 [%rt], {%w0, %w1, %w2, %w3}".into());
    body.push("bar.warp.sync -1".into());
    let rows = permuted_row(g, &mut body);
    body.push(format!("{instr} {}, [%sb]", regs("d", n)));
    store32(&mut body, n);
    MmaKernel {
        what: format!("{instr} ({rows})"),
        body,
        slots: exact(n),
    }
}

/// `stmatrix.m16n8.x1/.x2/.x4.trans.b8` to permuted rows of a zeroed buffer, read back.
pub fn stmatrix_bytes(g: &mut Rng) -> MmaKernel {
    let n = [1, 2, 4][g.below(3) as usize];
    super::mma::store_rows(
        g,
        n,
        format!("stmatrix.sync.aligned.m16n8.x{n}.trans.shared.b8"),
    )
}
