//! The qualifiers of the `tcgen05` family (PTX ISA "Tensorcore 5th Generation Instructions"):
//! the sub-instruction (`.alloc`, `.ld`, `.wait::st`, …) and what each takes.
//!
//! `.sync.aligned` is required where PTX requires it; its absence is a syntax error naming the
//! instruction. `tcgen05.cp` is parsed by [`crate::tcgen05::syntax::cp`], `tcgen05.mma` and `.commit` by
//! [`crate::tcgen05::syntax::mma`]. Unknown sub-instructions are reported by name.

pub mod cp;
pub mod mma;

use crate::front::error::{Error, ErrorKind};
use crate::front::quals::Quals;
use crate::ir::{
    CtaGroup, Op, Repeat, Tcgen05, Tcgen05Alloc, Tcgen05Fence, Tcgen05Ld, Tcgen05St, Tcgen05Wait,
    TmemRed, TmemRedOp, TmemRedType, TmemShape,
};

/// Sub-instructions of `tcgen05` that ptxemu recognises but does not execute.
const UNSUPPORTED: &[&str] = &[];

fn cta_group(q: &mut Quals, what: &str) -> Result<CtaGroup, Error> {
    q.take_map(|s| match s {
        "cta_group::1" => Some(CtaGroup::One),
        "cta_group::2" => Some(CtaGroup::Two),
        _ => None,
    })
    .ok_or_else(|| {
        q.syntax(format!(
            "`tcgen05.{what}` needs .cta_group::1 or .cta_group::2"
        ))
    })
}

/// `.sync.aligned`, in either order; ptxas accepts `.sync` repeated (but not `.aligned`).
fn sync_aligned(q: &mut Quals, what: &str) -> Result<(), Error> {
    if q.take_every("sync") > 0 && q.take("aligned") {
        Ok(())
    } else {
        Err(q.syntax(format!("`tcgen05.{what}` needs .sync.aligned")))
    }
}

fn b32(q: &mut Quals, what: &str) -> Result<(), Error> {
    if q.take("b32") {
        Ok(())
    } else {
        Err(q.syntax(format!("`tcgen05.{what}` needs .b32")))
    }
}

fn shape(q: &mut Quals, what: &str) -> Result<TmemShape, Error> {
    q.take_map(|s| {
        Some(match s {
            "32x32b" => TmemShape::S32x32b,
            "16x64b" => TmemShape::S16x64b,
            "16x128b" => TmemShape::S16x128b,
            "16x256b" => TmemShape::S16x256b,
            "16x32bx2" => TmemShape::S16x32bx2,
            _ => return None,
        })
    })
    .ok_or_else(|| {
        q.syntax(format!(
            "`tcgen05.{what}` needs a shape (.32x32b, .16x64b, .16x128b, .16x256b or .16x32bx2)"
        ))
    })
}

fn repeat(q: &mut Quals, what: &str) -> Result<Repeat, Error> {
    q.take_map(|s| {
        s.strip_prefix('x')
            .and_then(|n| n.parse::<u32>().ok())
            .and_then(Repeat::from_count)
    })
    .ok_or_else(|| {
        q.syntax(format!(
            "`tcgen05.{what}` needs a repeat count (.x1, .x2, .x4, … .x128)"
        ))
    })
}

/// `.min`/`.max` with `.abs`/`.NaN` and `.f32`/`.u32`/`.s32`, in any order.
fn reduction(q: &mut Quals) -> Result<TmemRed, Error> {
    let op = q
        .take_map(|s| match s {
            "min" => Some(TmemRedOp::Min),
            "max" => Some(TmemRedOp::Max),
            _ => None,
        })
        .ok_or_else(|| q.syntax("`tcgen05.ld.red` needs .min or .max".into()))?;
    let abs = q.take("abs");
    // ptxas accepts `.NaN` repeated.
    let nan = q.take_every("NaN") > 0;
    let ty = if q.take("f32") {
        TmemRedType::F32 { abs, nan }
    } else {
        let ty = if q.take("u32") {
            TmemRedType::U32
        } else if q.take("s32") {
            TmemRedType::S32
        } else {
            return Err(q.syntax("`tcgen05.ld.red` needs .f32, .u32 or .s32".into()));
        };
        if abs || nan {
            let m = if abs { ".abs" } else { ".NaN" };
            return Err(q.syntax(format!("`tcgen05.ld.red`: {m} applies to .f32 only")));
        }
        ty
    };
    Ok(TmemRed { op, ty })
}

/// Parses the qualifiers of a `tcgen05` instruction.
///
/// # Errors
/// Unknown or missing sub-instructions and qualifiers; sub-instructions ptxemu does not run.
pub fn parse(q: &mut Quals) -> Result<Op, Error> {
    // The sub-instruction comes first (ptxas rejects `tcgen05.sync.aligned.wait::ld`).
    let Some(sub) = q.first().map(str::to_string) else {
        return Err(q.syntax("`tcgen05` needs a sub-instruction (.alloc, .ld, .st, …)".into()));
    };
    q.take(&sub);
    let t = match sub.as_str() {
        "alloc" => {
            let group = cta_group(q, "alloc")?;
            sync_aligned(q, "alloc")?;
            let shared_cta = q.take("shared::cta");
            b32(q, "alloc")?;
            Tcgen05::Alloc(Tcgen05Alloc { group, shared_cta })
        }
        "dealloc" => {
            let group = cta_group(q, "dealloc")?;
            sync_aligned(q, "dealloc")?;
            b32(q, "dealloc")?;
            Tcgen05::Dealloc(group)
        }
        "relinquish_alloc_permit" => {
            let group = cta_group(q, "relinquish_alloc_permit")?;
            sync_aligned(q, "relinquish_alloc_permit")?;
            Tcgen05::Relinquish(group)
        }
        "ld" => {
            // `.red` only right after `.ld` (ptxas rejects `tcgen05.ld.sync.aligned.red`).
            let red = q.second() == Some("red") && q.take("red");
            let what = if red { "ld.red" } else { "ld" };
            sync_aligned(q, what)?;
            let shape = shape(q, what)?;
            let num = repeat(q, what)?;
            let pack = q.take("pack::16b");
            let red = if red {
                Some(reduction(q)?)
            } else {
                b32(q, what)?;
                None
            };
            Tcgen05::Ld(Tcgen05Ld {
                shape,
                num,
                pack,
                red,
            })
        }
        "st" => {
            sync_aligned(q, "st")?;
            let shape = shape(q, "st")?;
            let num = repeat(q, "st")?;
            let unpack = q.take("unpack::16b");
            b32(q, "st")?;
            Tcgen05::St(Tcgen05St { shape, num, unpack })
        }
        "wait::ld" | "wait::st" => {
            sync_aligned(q, &sub)?;
            Tcgen05::Wait(if sub == "wait::ld" {
                Tcgen05Wait::Ld
            } else {
                Tcgen05Wait::St
            })
        }
        "fence::before_thread_sync" => Tcgen05::Fence(Tcgen05Fence::BeforeThreadSync),
        "fence::after_thread_sync" => Tcgen05::Fence(Tcgen05Fence::AfterThreadSync),
        "shift" => {
            let group = cta_group(q, "shift")?;
            if !q.take("down") {
                return Err(q.syntax("`tcgen05.shift` needs .down".into()));
            }
            Tcgen05::Shift(group)
        }
        "mma" => crate::tcgen05::syntax::mma::parse_mma(q)?,
        "commit" => crate::tcgen05::syntax::mma::parse_commit(q)?,
        "cp" => crate::tcgen05::syntax::cp::parse(q)?,
        s if UNSUPPORTED.contains(&s) => {
            return Err(Error::new(
                ErrorKind::Unsupported(format!("the `tcgen05.{s}` instruction")),
                q.span,
            ))
        }
        s => {
            return Err(Error::new(
                ErrorKind::UnknownInstruction(format!("tcgen05.{s}")),
                q.span,
            ))
        }
    };
    Ok(Op::Tcgen05(t))
}

/// Appends the mnemonic of a `tcgen05` instruction, with its qualifiers in canonical order, to
/// `o`.
pub fn mnemonic(o: &mut String, t: &Tcgen05) {
    o.push_str("tcgen05");
    let mut q = |s: &str| {
        o.push('.');
        o.push_str(s);
    };
    match t {
        Tcgen05::Alloc(Tcgen05Alloc { group, shared_cta }) => {
            q("alloc");
            q(group.name());
            q("sync");
            q("aligned");
            if *shared_cta {
                q("shared::cta");
            }
            q("b32");
        }
        Tcgen05::Dealloc(group) => {
            q("dealloc");
            q(group.name());
            q("sync");
            q("aligned");
            q("b32");
        }
        Tcgen05::Relinquish(group) => {
            q("relinquish_alloc_permit");
            q(group.name());
            q("sync");
            q("aligned");
        }
        Tcgen05::Ld(Tcgen05Ld {
            shape,
            num,
            pack,
            red,
        }) => {
            q("ld");
            if red.is_some() {
                q("red");
            }
            q("sync");
            q("aligned");
            q(shape.name());
            q(&format!("x{}", num.count()));
            if *pack {
                q("pack::16b");
            }
            match red {
                None => q("b32"),
                Some(TmemRed { op, ty }) => {
                    q(match op {
                        TmemRedOp::Min => "min",
                        TmemRedOp::Max => "max",
                    });
                    match ty {
                        TmemRedType::F32 { abs, nan } => {
                            if *abs {
                                q("abs");
                            }
                            if *nan {
                                q("NaN");
                            }
                            q("f32");
                        }
                        TmemRedType::U32 => q("u32"),
                        TmemRedType::S32 => q("s32"),
                    }
                }
            }
        }
        Tcgen05::St(Tcgen05St { shape, num, unpack }) => {
            q("st");
            q("sync");
            q("aligned");
            q(shape.name());
            q(&format!("x{}", num.count()));
            if *unpack {
                q("unpack::16b");
            }
            q("b32");
        }
        Tcgen05::Wait(w) => {
            q(match w {
                Tcgen05Wait::Ld => "wait::ld",
                Tcgen05Wait::St => "wait::st",
            });
            q("sync");
            q("aligned");
        }
        Tcgen05::Fence(f) => q(match f {
            Tcgen05Fence::BeforeThreadSync => "fence::before_thread_sync",
            Tcgen05Fence::AfterThreadSync => "fence::after_thread_sync",
        }),
        Tcgen05::Shift(group) => {
            q("shift");
            q(group.name());
            q("down");
        }
        Tcgen05::Mma(m) => crate::tcgen05::syntax::mma::mnemonic_mma(&mut q, m),
        Tcgen05::Commit(c) => crate::tcgen05::syntax::mma::mnemonic_commit(&mut q, c),
        Tcgen05::Cp(c) => crate::tcgen05::syntax::cp::mnemonic(o, c),
    }
}
