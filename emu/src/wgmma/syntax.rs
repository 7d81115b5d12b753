//! The qualifiers of the warpgroup-level matrix instructions (PTX ISA "Asynchronous
//! Warpgroup Level Matrix Multiply-Accumulate Instructions"): `wgmma.mma_async`,
//! `wgmma.fence`, `wgmma.commit_group` and `wgmma.wait_group`, and the refusal of the sparse
//! `wgmma.mma_async.sp`.
//!
//! The three element types of `wgmma.mma_async` are read in the order written (D, A, B); the
//! other qualifiers in any order. Which shape goes with which types is the validator's job.

use crate::front::error::{Error, ErrorKind};
use crate::front::quals::Quals;
use crate::ir::{MmaBitOp, MmaElem, Op, Wgmma, WgmmaMma};

/// `.sync{.aligned}`: the ISA writes both, ptxas 13.5 also takes `.sync` alone (which ptxemu
/// reads as `.sync.aligned`, the only form the ISA has).
fn sync_aligned(q: &mut Quals, what: &str) -> Result<(), Error> {
    let sync = q.take("sync");
    q.take("aligned");
    if sync {
        Ok(())
    } else {
        Err(q.syntax(format!("`wgmma.{what}` needs .sync.aligned")))
    }
}

/// `m64nNkK` as `(N, K)`.
fn shape_of(s: &str) -> Option<(u32, u32)> {
    let rest = s.strip_prefix("m64n")?;
    let (n, k) = rest.split_once('k')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()) && x.len() <= 4;
    if !digits(n) || !digits(k) {
        return None;
    }
    Some((n.parse().ok()?, k.parse().ok()?))
}

fn mma_async(q: &mut Quals) -> Result<WgmmaMma, Error> {
    if q.first() == Some("sp") {
        return Err(Error::new(
            ErrorKind::Unsupported(
                "the sparse `wgmma.mma_async.sp` (PTX ISA \"wgmma.mma_async.sp\")".into(),
            ),
            q.span,
        ));
    }
    sync_aligned(q, "mma_async")?;
    let (n, k) = q
        .take_map(shape_of)
        .ok_or_else(|| q.syntax("`wgmma.mma_async` needs a shape (.m64n64k16, …)".into()))?;
    let satfinite = q.take("satfinite");
    let bitop = match (q.take("and"), q.take("popc")) {
        (true, true) => Some(MmaBitOp::And),
        (false, false) => None,
        _ => return Err(q.syntax("`wgmma.mma_async`: single-bit forms take .and.popc".into())),
    };
    let types = q.take_all(MmaElem::from_name);
    let [d, a, b] = types[..] else {
        return Err(q.syntax(format!(
            "`wgmma.mma_async` needs three types (.dtype.atype.btype), found {}",
            types.len()
        )));
    };
    Ok(WgmmaMma {
        n,
        k,
        d,
        a,
        b,
        satfinite,
        bitop,
    })
}

/// Parses the qualifiers of a `wgmma` instruction.
///
/// # Errors
/// Missing or unknown qualifiers; the sparse form, which ptxemu does not run.
pub fn parse(q: &mut Quals) -> Result<Op, Error> {
    let Some(sub) = q.first().map(str::to_string) else {
        return Err(
            q.syntax("`wgmma` needs .mma_async, .fence, .commit_group or .wait_group".into())
        );
    };
    q.take(&sub);
    let w = match sub.as_str() {
        "mma_async" => Wgmma::MmaAsync(mma_async(q)?),
        "fence" => {
            sync_aligned(q, "fence")?;
            Wgmma::Fence
        }
        "commit_group" => {
            sync_aligned(q, "commit_group")?;
            Wgmma::CommitGroup
        }
        "wait_group" => {
            sync_aligned(q, "wait_group")?;
            Wgmma::WaitGroup
        }
        other => {
            return Err(q.syntax(format!(
                "unknown `wgmma.{other}`: expected .mma_async, .fence, .commit_group or .wait_group"
            )))
        }
    };
    Ok(Op::Wgmma(w))
}

/// Appends the mnemonic of `w` (after the opcode `wgmma`) to `o`.
pub fn mnemonic(o: &mut String, w: &Wgmma) {
    o.push_str("wgmma");
    let mut q = |s: &str| {
        o.push('.');
        o.push_str(s);
    };
    match w {
        Wgmma::Fence => q("fence"),
        Wgmma::CommitGroup => q("commit_group"),
        Wgmma::WaitGroup => q("wait_group"),
        Wgmma::MmaAsync(m) => {
            q("mma_async");
            q("sync");
            q("aligned");
            q(&m.shape_name());
            for t in [m.d, m.a, m.b] {
                q(t.name());
            }
            if m.satfinite {
                q("satfinite");
            }
            if m.bitop.is_some() {
                q("and");
                q("popc");
            }
            return;
        }
    }
    q("sync");
    q("aligned");
}
