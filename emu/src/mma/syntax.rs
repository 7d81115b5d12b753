//! The qualifiers of the warp-level matrix instructions (PTX ISA "Warp Level Matrix Multiply-
//! Accumulate Instructions"): `mma`, `ldmatrix`, `stmatrix`, `movmatrix`, and the refusals of
//! the forms ptxemu does not execute (`mma.sp`, block-scaled `mma`); `wmma.load`, `wmma.store`
//! and `wmma.mma`.
//!
//! Qualifiers are taken in any order except the four element types of `mma`, which are read in
//! the order written (D, A, B, C). Which shape goes with which types is the validator's job.

use crate::front::error::{Error, ErrorKind};
use crate::front::quals::{space_name, Quals};
use crate::ir::{
    MatrixCount, MatrixFormat, MatrixMove, MatrixShape, Mma, MmaBitOp, MmaElem, MmaLayout,
    MmaShape, Op, SpaceQual, WarpMatrix, WmmaFrag, WmmaLoad, WmmaMma, WmmaShape, WmmaStore,
};

fn unsupported(q: &Quals, what: &str) -> Error {
    Error::new(ErrorKind::Unsupported(what.to_string()), q.span)
}

/// `.sync.aligned`, both required.
fn sync_aligned(q: &mut Quals, what: &str) -> Result<(), Error> {
    if q.take("sync") && q.take("aligned") {
        Ok(())
    } else {
        Err(q.syntax(format!("`{what}` needs .sync.aligned")))
    }
}

fn mma(q: &mut Quals) -> Result<Mma, Error> {
    if let Some(first) = q.first() {
        if first == "sp" || first.starts_with("sp::") {
            return Err(unsupported(
                q,
                "the sparse matrix multiply-accumulate `mma.sp` (PTX ISA \"Multiply-and-Accumulate Instruction: mma.sp\")",
            ));
        }
    }
    if q.remaining()
        .any(|s| s.starts_with("kind::") || s == "block_scale")
    {
        return Err(unsupported(
            q,
            "`mma` with .kind or .block_scale (the sm_120a block-scaled forms)",
        ));
    }
    sync_aligned(q, "mma")?;
    let shape = q
        .take_map(|s| MmaShape::ALL.into_iter().find(|m| m.name() == s))
        .ok_or_else(|| q.syntax("`mma` needs a shape (.m16n8k16, .m8n8k4, …)".into()))?;
    let layouts = q.take_all(|s| match s {
        "row" => Some(MmaLayout::Row),
        "col" => Some(MmaLayout::Col),
        _ => None,
    });
    let [alayout, blayout] = layouts[..] else {
        return Err(q.syntax("`mma` needs two layouts (.row.col)".into()));
    };
    let satfinite = q.take("satfinite");
    let rn = q.take("rn");
    let bitop = match (q.take("and"), q.take("xor")) {
        (true, false) => Some(MmaBitOp::And),
        (false, true) => Some(MmaBitOp::Xor),
        (false, false) => None,
        (true, true) => return Err(q.syntax("`mma` takes one of .and and .xor".into())),
    };
    if bitop.is_some() != q.take("popc") {
        return Err(q.syntax("`mma`: .and/.xor go with .popc".into()));
    }
    let types = q.take_all(MmaElem::from_name);
    let [d, a, b, c] = types[..] else {
        return Err(q.syntax(format!(
            "`mma` needs four types (.dtype.atype.btype.ctype), found {}",
            types.len()
        )));
    };
    Ok(Mma {
        shape,
        alayout,
        blayout,
        satfinite,
        d,
        a,
        b,
        c,
        bitop,
        rn,
    })
}

fn matrix_move(q: &mut Quals, what: &str) -> Result<MatrixMove, Error> {
    sync_aligned(q, what)?;
    let shape = q
        .take_map(|s| match s {
            "m8n8" => Some(MatrixShape::M8n8),
            "m16n16" => Some(MatrixShape::M16n16),
            "m8n16" => Some(MatrixShape::M8n16),
            "m16n8" => Some(MatrixShape::M16n8),
            _ => None,
        })
        .ok_or_else(|| q.syntax(format!("`{what}` needs a shape (.m8n8, …)")))?;
    let num = q
        .take_map(|s| match s {
            "x1" => Some(MatrixCount::X1),
            "x2" => Some(MatrixCount::X2),
            "x4" => Some(MatrixCount::X4),
            _ => None,
        })
        .ok_or_else(|| q.syntax(format!("`{what}` needs .x1, .x2 or .x4")))?;
    let trans = q.take("trans");
    let space = q.space();
    let format = if q.take("b16") {
        MatrixFormat::B16
    } else if q.take("b8x16") {
        if q.take("b6x16_p32") {
            MatrixFormat::B6x16P32
        } else if q.take("b4x16_p64") {
            MatrixFormat::B4x16P64
        } else {
            return Err(q.syntax(format!(
                "`{what}.b8x16` needs a source format (.b6x16_p32 or .b4x16_p64)"
            )));
        }
    } else if q.take("b8") {
        MatrixFormat::B8
    } else {
        return Err(q.syntax(format!("`{what}` needs a type (.b16, .b8, .b8x16…)")));
    };
    Ok(MatrixMove {
        shape,
        num,
        trans,
        space,
        format,
    })
}

/// Parses the qualifiers of a warp-level matrix instruction whose opcode is `opcode`.
///
/// # Errors
/// Missing or unknown qualifiers; forms ptxemu does not run (`mma.sp`, block scaling).
pub fn parse(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let w = match opcode {
        "mma" => WarpMatrix::Mma(mma(q)?),
        "ldmatrix" => WarpMatrix::Ldmatrix(matrix_move(q, "ldmatrix")?),
        "stmatrix" => WarpMatrix::Stmatrix(matrix_move(q, "stmatrix")?),
        "movmatrix" => {
            sync_aligned(q, "movmatrix")?;
            if !(q.take("m8n8") && q.take("trans") && q.take("b16")) {
                return Err(q.syntax(
                    "`movmatrix` is written movmatrix.sync.aligned.m8n8.trans.b16".into(),
                ));
            }
            WarpMatrix::Movmatrix
        }
        _ => wmma(q)?,
    };
    Ok(Op::WarpMatrix(w))
}

fn layout(q: &mut Quals) -> Option<MmaLayout> {
    q.take_map(|s| match s {
        "row" => Some(MmaLayout::Row),
        "col" => Some(MmaLayout::Col),
        _ => None,
    })
}

/// The qualifiers `wmma.load` and `wmma.store` share after the fragment, in order:
/// `.sync.aligned`, the layout, the shape, the state space and the element type.
fn wmma_memory(
    q: &mut Quals,
    what: &str,
) -> Result<(MmaLayout, WmmaShape, SpaceQual, MmaElem), Error> {
    sync_aligned(q, what)?;
    let layout = layout(q).ok_or_else(|| q.syntax(format!("`{what}` needs .row or .col")))?;
    let shape = wmma_shape(q)?;
    let space = q.space();
    let ty = q
        .take_map(MmaElem::from_name)
        .ok_or_else(|| q.syntax(format!("`{what}` needs a type")))?;
    Ok((layout, shape, space, ty))
}

fn wmma_shape(q: &mut Quals) -> Result<WmmaShape, Error> {
    q.take_map(|s| WmmaShape::ALL.into_iter().find(|m| m.name() == s))
        .ok_or_else(|| q.syntax("`wmma` needs a shape (.m16n16k16, …)".into()))
}

/// `wmma.load`, `wmma.store`, `wmma.mma`: the sub-instruction comes first.
fn wmma(q: &mut Quals) -> Result<WarpMatrix, Error> {
    if q.remaining().any(|s| matches!(s, "s4" | "u4" | "b1")) {
        return Err(unsupported(
            q,
            "the sub-byte `wmma` forms (.s4, .u4, .b1); mma.sync offers the same shapes",
        ));
    }
    let Some(sub) = q.first().map(str::to_string) else {
        return Err(q.syntax("`wmma` needs .load, .store or .mma".into()));
    };
    q.take(&sub);
    match sub.as_str() {
        "load" => {
            let frag = if q.take("a") {
                WmmaFrag::A
            } else if q.take("b") {
                WmmaFrag::B
            } else if q.take("c") {
                WmmaFrag::C
            } else {
                return Err(q.syntax("`wmma.load` needs .a, .b or .c".into()));
            };
            let (layout, shape, space, ty) = wmma_memory(q, "wmma.load")?;
            Ok(WarpMatrix::WmmaLoad(WmmaLoad {
                frag,
                layout,
                shape,
                space,
                ty,
            }))
        }
        "store" => {
            if !q.take("d") {
                return Err(q.syntax("`wmma.store` is wmma.store.d".into()));
            }
            let (layout, shape, space, ty) = wmma_memory(q, "wmma.store")?;
            Ok(WarpMatrix::WmmaStore(WmmaStore {
                layout,
                shape,
                space,
                ty,
            }))
        }
        "mma" => {
            sync_aligned(q, "wmma.mma")?;
            let alayout = layout(q);
            let blayout = layout(q);
            let (Some(alayout), Some(blayout)) = (alayout, blayout) else {
                return Err(q.syntax("`wmma.mma` needs two layouts (.row.col, …)".into()));
            };
            let shape = wmma_shape(q)?;
            let satfinite = q.take("satfinite");
            let rn = q.take("rn");
            let types = q.take_all(MmaElem::from_name);
            let (d, a, b, c) =
                match types[..] {
                    [d, c] => (d, MmaElem::F16, MmaElem::F16, c),
                    // The `.f16` forms name only D and C.
                    [d, a, b, c] if a != MmaElem::F16 => (d, a, b, c),
                    _ => return Err(q.syntax(
                        "`wmma.mma` needs .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype"
                            .into(),
                    )),
                };
            Ok(WarpMatrix::WmmaMma(WmmaMma {
                alayout,
                blayout,
                shape,
                d,
                a,
                b,
                c,
                satfinite,
                rn,
            }))
        }
        s => Err(Error::new(
            ErrorKind::UnknownInstruction(format!("wmma.{s}")),
            q.span,
        )),
    }
}

/// Appends the mnemonic of a warp-level matrix instruction, with its qualifiers in canonical
/// order, to `o`.
pub fn mnemonic(o: &mut String, w: &WarpMatrix) {
    let mut q = |s: &str| {
        o.push('.');
        o.push_str(s);
    };
    match w {
        WarpMatrix::Mma(Mma {
            shape,
            alayout,
            blayout,
            satfinite,
            d,
            a,
            b,
            c,
            bitop,
            rn,
        }) => {
            q("sync");
            q("aligned");
            q(shape.name());
            q(alayout.name());
            q(blayout.name());
            if *rn {
                q("rn");
            }
            if *satfinite {
                q("satfinite");
            }
            for t in [d, a, b, c] {
                q(t.name());
            }
            match bitop {
                Some(MmaBitOp::And) => q("and"),
                Some(MmaBitOp::Xor) => q("xor"),
                None => {}
            }
            if bitop.is_some() {
                q("popc");
            }
        }
        WarpMatrix::Ldmatrix(m) | WarpMatrix::Stmatrix(m) => {
            let MatrixMove {
                shape,
                num,
                trans,
                space,
                format,
            } = m;
            q("sync");
            q("aligned");
            q(shape.name());
            q(&format!("x{}", num.count()));
            if *trans {
                q("trans");
            }
            if let Some(s) = space_name(*space) {
                q(s);
            }
            q(format.name());
        }
        WarpMatrix::Movmatrix => {
            q("sync");
            q("aligned");
            q("m8n8");
            q("trans");
            q("b16");
        }
        WarpMatrix::WmmaLoad(WmmaLoad {
            frag,
            layout,
            shape,
            space,
            ty,
        }) => {
            q("load");
            q(match frag {
                WmmaFrag::A => "a",
                WmmaFrag::B => "b",
                WmmaFrag::C => "c",
            });
            q("sync");
            q("aligned");
            q(layout.name());
            q(shape.name());
            if let Some(s) = space_name(*space) {
                q(s);
            }
            q(ty.name());
        }
        WarpMatrix::WmmaStore(WmmaStore {
            layout,
            shape,
            space,
            ty,
        }) => {
            q("store");
            q("d");
            q("sync");
            q("aligned");
            q(layout.name());
            q(shape.name());
            if let Some(s) = space_name(*space) {
                q(s);
            }
            q(ty.name());
        }
        WarpMatrix::WmmaMma(WmmaMma {
            alayout,
            blayout,
            shape,
            d,
            a,
            b,
            c,
            satfinite,
            rn,
        }) => {
            q("mma");
            q("sync");
            q("aligned");
            q(alayout.name());
            q(blayout.name());
            q(shape.name());
            if *rn {
                q("rn");
            }
            q(d.name());
            if *a != MmaElem::F16 {
                q(a.name());
                q(b.name());
            }
            q(c.name());
            if *satfinite {
                q("satfinite");
            }
        }
    }
}

/// The opcode of a warp-level matrix instruction.
pub fn opcode(w: &WarpMatrix) -> &'static str {
    match w {
        WarpMatrix::Mma(_) => "mma",
        WarpMatrix::Ldmatrix(_) => "ldmatrix",
        WarpMatrix::Stmatrix(_) => "stmatrix",
        WarpMatrix::Movmatrix => "movmatrix",
        WarpMatrix::WmmaLoad(_) | WarpMatrix::WmmaStore(_) | WarpMatrix::WmmaMma(_) => "wmma",
    }
}
