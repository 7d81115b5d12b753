//! `wmma.load`, `wmma.store` and `wmma.mma` in the interpreter (PTX ISA "Warp Level Matrix
//! Multiply-Accumulate Instructions": wmma), which CUDA's `nvcuda::wmma` compiles to.
//!
//! The PTX ISA leaves the distribution of a wmma fragment over the warp's lanes unspecified
//! ("the mapping of matrix elements into fragments is unspecified"), so any layout that
//! `wmma.load`, `wmma.mma` and `wmma.store` agree on gives the program's results. ptxemu's: element
//! `e` of lane `l` is the matrix element at row-major position `(32·e + l) mod (rows·columns)`.
//! Where a fragment holds more elements than its matrix has per lane (the `.f16` A and B
//! fragments), the positions repeat, and `wmma.mma` reads the first copy. Programs that only
//! load, multiply, store and apply element-wise operations to fragments (what `nvcuda::wmma`
//! offers) see the same results as on hardware; a program that relies on a hardware layout would
//! not.
//!
//! The arithmetic is that of `mma` ([`crate::semantics::mma`]), with the accumulation model of
//! the module's target.
//!
//! Deliberate deviations and choices:
//! 1. Each lane's own address and stride are used (the ISA requires them uniform; non-uniform
//!    values are not diagnosed).
//! 2. Without a stride operand, the stride is the matrix's row length (`.row`) or column length
//!    (`.col`).
//! 3. `.satfinite` on a floating-point D turns infinities into the largest finite value of the
//!    sign; NaN stays NaN.

use crate::exec::converge::converge;
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{AddrSpace, DInstr, Flow, Src};
use crate::ir::{Mma, MmaElem, MmaLayout, MmaShape, WarpMatrix, WmmaFrag};
use crate::mma::decoded::MatrixInstr;
use crate::mma::exec::{decoded, gather};
use crate::semantics::tile::{elem_bits, multiply_wmma, put, Tiles};

type R = Result<Flow, LaneFault>;

/// Bytes of one element in memory.
fn elem_size(e: MmaElem) -> u32 {
    match e {
        MmaElem::F64 => 8,
        MmaElem::F16 | MmaElem::Bf16 => 2,
        MmaElem::S8 | MmaElem::U8 | MmaElem::E4m3 | MmaElem::E5m2 => 1,
        MmaElem::Tf32 | MmaElem::F32 | MmaElem::S32 => 4,
        // Sub-byte forms are refused by the parser.
        MmaElem::S4 | MmaElem::U4 | MmaElem::B1 => 1,
    }
}

/// Elements of lane `lane`'s fragment of `frag` held in `regs` registers of `ty`.
fn elems(regs: usize, ty: MmaElem) -> u32 {
    regs as u32 * ty.per_reg()
}

/// `(row, column)` of element `e` of lane `lane` in a `rows`×`cols` matrix.
fn position(rows: u32, cols: u32, lane: u32, e: u32) -> (u32, u32) {
    let p = (32 * e + lane) % (rows * cols);
    (p / cols, p % cols)
}

fn wrong(what: &str) -> LaneFault {
    LaneFault::new(FaultKind::Unsupported {
        what: format!("{what} decoded as another instruction"),
    })
}

/// The byte address of element `(r, col)` for `lane`.
fn element_addr(
    c: &Ctx<'_>,
    x: &MatrixInstr,
    layout: MmaLayout,
    dims: (u32, u32),
    size: u32,
    lane: usize,
    (r, col): (u32, u32),
) -> Result<(AddrSpace, u64), LaneFault> {
    let a = x
        .addr
        .as_ref()
        .ok_or_else(|| wrong("wmma without an address"))?;
    let base = crate::exec::address::lane_addr(c, a, lane);
    let stride = match x.stride {
        Src::None => u64::from(if layout == MmaLayout::Row {
            dims.1
        } else {
            dims.0
        }),
        s => c.fetch_lane(&s, lane) & 0xFFFF_FFFF,
    };
    let index = match layout {
        MmaLayout::Row => u64::from(r) * stride + u64::from(col),
        MmaLayout::Col => u64::from(col) * stride + u64::from(r),
    };
    Ok((a.space, base.wrapping_add(index * u64::from(size))))
}

/// `wmma.load.{a,b,c}`.
pub fn load(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let WarpMatrix::WmmaLoad(l) = x.op else {
        return Err(wrong("wmma.load"));
    };
    if let Some(flow) = converge(c, "wmma.load.sync.aligned")? {
        return Ok(flow);
    }
    let (rows, cols) = l.frag.dims(l.shape);
    let size = elem_size(l.ty);
    let mut out = vec![[0u64; 32]; x.d.len()];
    for lane in 0..32u32 {
        for e in 0..elems(x.d.len(), l.ty) {
            let pos = position(rows, cols, lane, e);
            let (space, at) = element_addr(c, x, l.layout, (rows, cols), size, lane as usize, pos)?;
            let v = crate::exec::address::load_elem(c, space, at, size, lane as usize)?;
            put(&mut out, l.ty, lane, e, v);
            c.after_elem_access(space, at, size, lane as usize, false);
        }
    }
    for (dst, vals) in x.d.iter().zip(&out) {
        c.write(dst, vals);
    }
    Ok(Flow::Next)
}

/// `wmma.store.d`.
pub fn store(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let WarpMatrix::WmmaStore(st) = x.op else {
        return Err(wrong("wmma.store"));
    };
    if let Some(flow) = converge(c, "wmma.store.sync.aligned")? {
        return Ok(flow);
    }
    let (rows, cols) = WmmaFrag::C.dims(st.shape);
    let size = elem_size(st.ty);
    let regs = gather(c, &x.a);
    for lane in 0..32u32 {
        for e in 0..elems(regs.len(), st.ty) {
            let pos = position(rows, cols, lane, e);
            let (space, at) =
                element_addr(c, x, st.layout, (rows, cols), size, lane as usize, pos)?;
            let v = elem_bits(&regs, st.ty, lane, e);
            crate::exec::address::store_elem(c, space, at, size, lane as usize, v)?;
            c.after_elem_access(space, at, size, lane as usize, true);
        }
    }
    Ok(Flow::Next)
}

/// The largest finite value of a float D type, as bits, with the sign of `neg`.
fn max_finite(e: MmaElem, neg: bool) -> Option<u64> {
    let (pos, sign) = match e {
        MmaElem::F16 => (0x7BFFu64, 0x8000u64),
        MmaElem::F32 => (0x7F7F_FFFF, 0x8000_0000),
        _ => return None,
    };
    Some(if neg { pos | sign } else { pos })
}

/// Turns an infinity of type `e` into the largest finite value of its sign.
fn saturate(e: MmaElem, v: u64) -> u64 {
    let inf = match e {
        MmaElem::F16 => v & 0x7FFF == 0x7C00,
        MmaElem::F32 => v & 0x7FFF_FFFF == 0x7F80_0000,
        _ => false,
    };
    let neg = match e {
        MmaElem::F16 => v & 0x8000 != 0,
        _ => v & 0x8000_0000 != 0,
    };
    match max_finite(e, neg) {
        Some(m) if inf => m,
        _ => v,
    }
}

/// `wmma.mma`.
pub fn mma(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let WarpMatrix::WmmaMma(w) = x.op else {
        return Err(wrong("wmma.mma"));
    };
    if let Some(flow) = converge(c, "wmma.mma.sync.aligned")? {
        return Ok(flow);
    }
    let (m, n, k) = w.shape.mnk();
    let (ra, rb, rc) = (gather(c, &x.a), gather(c, &x.b), gather(c, &x.c));
    let mut t = Tiles::new(m, n, k);
    // Later lanes and elements overwrite earlier copies of a repeated position; the copies are
    // equal for fragments made by wmma.load.
    for lane in (0..32u32).rev() {
        for e in (0..elems(ra.len(), w.a)).rev() {
            let (r, col) = position(m, k, lane, e);
            t.a.set(r, col, elem_bits(&ra, w.a, lane, e));
        }
        for e in (0..elems(rb.len(), w.b)).rev() {
            let (r, col) = position(k, n, lane, e);
            t.b.set(r, col, elem_bits(&rb, w.b, lane, e));
        }
        for e in (0..elems(rc.len(), w.c)).rev() {
            let (r, col) = position(m, n, lane, e);
            t.c.set(r, col, elem_bits(&rc, w.c, lane, e));
        }
    }
    // Only the types and `.satfinite` of the `Mma` are read by `multiply`.
    let as_mma = Mma {
        shape: MmaShape::M16n8k16,
        alayout: MmaLayout::Row,
        blayout: MmaLayout::Col,
        satfinite: w.satfinite,
        d: w.d,
        a: w.a,
        b: w.b,
        c: w.c,
        bitop: None,
        rn: w.rn,
    };
    let d = multiply_wmma(&as_mma, &t, x.sm);
    let mut out = vec![[0u64; 32]; x.d.len()];
    for lane in 0..32u32 {
        for e in 0..elems(x.d.len(), w.d) {
            let (r, col) = position(m, n, lane, e);
            let mut v = d.get(r, col);
            if w.satfinite {
                v = saturate(w.d, v);
            }
            put(&mut out, w.d, lane, e, v);
        }
    }
    for (dst, vals) in x.d.iter().zip(&out) {
        c.write(dst, vals);
    }
    Ok(Flow::Next)
}
