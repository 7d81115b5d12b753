//! The qualifiers of `tcgen05.mma` (and `.ws`) and `tcgen05.commit` (PTX ISA "tcgen05.mma",
//! "tcgen05.commit"), after the sub-instruction. Qualifiers may come in any order (ptxas takes
//! `.ws` and `.sp` before or after `.cta_group`); what goes with what is decided here as far
//! as it is syntax, and by `tcgen05/validate/mma.rs` otherwise.
//!
//! The sparse `tcgen05.mma.sp` is refused by name.

use crate::front::error::{Error, ErrorKind};
use crate::front::quals::Quals;
use crate::ir::{
    Collector, CollectorBuffer, CollectorOp, CtaGroup, MmaKind, ScaleVec, Tcgen05, Tcgen05Commit,
    Tcgen05Mma,
};

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

fn kind_of(s: &str) -> Option<MmaKind> {
    Some(match s.strip_prefix("kind::")? {
        "f16" => MmaKind::F16,
        "tf32" => MmaKind::Tf32,
        "f8f6f4" => MmaKind::F8f6f4,
        "i8" => MmaKind::I8,
        "mxf8f6f4" => MmaKind::MxF8f6f4,
        "mxf4" => MmaKind::MxF4,
        "mxf4nvf4" => MmaKind::MxF4Nvf4,
        _ => return None,
    })
}

fn collector_of(s: &str) -> Option<Collector> {
    let rest = s.strip_prefix("collector::")?;
    let (b, op) = rest.split_once("::")?;
    let buffer = match b {
        "a" => CollectorBuffer::A,
        "b0" => CollectorBuffer::B(0),
        "b1" => CollectorBuffer::B(1),
        "b2" => CollectorBuffer::B(2),
        "b3" => CollectorBuffer::B(3),
        _ => return None,
    };
    let op = match op {
        "fill" => CollectorOp::Fill,
        "use" => CollectorOp::Use,
        "lastuse" => CollectorOp::LastUse,
        "discard" => CollectorOp::Discard,
        _ => return None,
    };
    Some(Collector { buffer, op })
}

/// Parses the qualifiers of `tcgen05.mma` after `.mma`.
///
/// # Errors
/// Missing `.cta_group` or `.kind`, block-scaling qualifiers a kind does not take, the sparse
/// form (unsupported).
pub fn parse_mma(q: &mut Quals) -> Result<Tcgen05, Error> {
    if q.take("sp") {
        return Err(Error::new(
            ErrorKind::Unsupported(
                "the sparse `tcgen05.mma.sp` (PTX ISA \"tcgen05.mma.sp\"; sparse A with metadata in Tensor Memory)".into(),
            ),
            q.span,
        ));
    }
    let ws = q.take("ws");
    let group = cta_group(q, "mma")?;
    let kind = q
        .take_map(kind_of)
        .ok_or_else(|| q.syntax("`tcgen05.mma` needs .kind::f16, ::tf32, ::f8f6f4, ::i8, ::mxf8f6f4, ::mxf4 or ::mxf4nvf4".into()))?;
    let block_scale = q.take("block_scale");
    let written = q.take_map(|s| match s {
        "scale_vec::1X" => Some(ScaleVec::X1),
        "scale_vec::2X" => Some(ScaleVec::X2),
        "scale_vec::4X" => Some(ScaleVec::X4),
        _ => None,
    });
    // `.block32`/`.block16` name the vector size by the K elements one factor scales.
    let alias = if written.is_none() {
        q.take_map(|s| match s {
            "block32" => Some(32u32),
            "block16" => Some(16),
            _ => None,
        })
    } else {
        None
    };
    let collector = q.take_map(collector_of);
    let what = format!("tcgen05.mma.kind::{}", kind.name());
    let written = match (alias, kind) {
        (None, _) => written,
        (Some(32), MmaKind::MxF8f6f4) => Some(ScaleVec::X1),
        (Some(32), MmaKind::MxF4 | MmaKind::MxF4Nvf4) => Some(ScaleVec::X2),
        (Some(16), MmaKind::MxF4Nvf4) => Some(ScaleVec::X4),
        (Some(b), _) => {
            return Err(q.syntax(format!(
                "`tcgen05.mma.kind::{}` cannot take .block{b}",
                kind.name()
            )))
        }
    };
    let scale_vec = match (kind.block_scaled(), block_scale, written) {
        (false, false, None) => None,
        (false, _, _) => {
            return Err(q.syntax(format!("`{what}` takes no .block_scale or .scale_vec")));
        }
        (true, false, _) => {
            return Err(q.syntax(format!("`{what}` needs .block_scale")));
        }
        (true, true, w) => {
            let v = match (kind, w) {
                (MmaKind::MxF8f6f4, None | Some(ScaleVec::X1)) => ScaleVec::X1,
                (MmaKind::MxF4, None | Some(ScaleVec::X2)) => ScaleVec::X2,
                (MmaKind::MxF4Nvf4, Some(v @ (ScaleVec::X2 | ScaleVec::X4))) => v,
                (MmaKind::MxF4Nvf4, None) => {
                    return Err(q.syntax(format!("`{what}` needs .scale_vec::2X or .scale_vec::4X")))
                }
                (_, Some(v)) => return Err(q.syntax(format!("`{what}` cannot take .{}", v.name()))),
                _ => unreachable!("the block-scaled kinds are matched above"),
            };
            Some(v)
        }
    };
    Ok(Tcgen05::Mma(Tcgen05Mma {
        group,
        kind,
        ws,
        scale_vec,
        scale_vec_written: written.is_some() && alias.is_none(),
        block_alias: alias.is_some(),
        collector,
    }))
}

/// Parses the qualifiers of `tcgen05.commit` after `.commit`.
///
/// # Errors
/// Missing `.cta_group`, completion mechanism or `.b64`.
pub fn parse_commit(q: &mut Quals) -> Result<Tcgen05, Error> {
    let group = cta_group(q, "commit")?;
    if !q.take("mbarrier::arrive::one") {
        return Err(q.syntax(
            "`tcgen05.commit` needs the completion mechanism .mbarrier::arrive::one".into(),
        ));
    }
    let shared_cluster = q.take("shared::cluster");
    let multicast = q.take("multicast::cluster");
    if !q.take("b64") {
        return Err(q.syntax("`tcgen05.commit` needs .b64".into()));
    }
    Ok(Tcgen05::Commit(Tcgen05Commit {
        group,
        shared_cluster,
        multicast,
    }))
}

/// Appends the qualifiers of `tcgen05.mma` (after `tcgen05`) to `o`.
pub fn mnemonic_mma(q: &mut dyn FnMut(&str), m: &Tcgen05Mma) {
    q("mma");
    if m.ws {
        q("ws");
    }
    q(m.group.name());
    q(&format!("kind::{}", m.kind.name()));
    if let Some(v) = m.scale_vec {
        q("block_scale");
        if m.block_alias {
            q(if v == ScaleVec::X4 {
                "block16"
            } else {
                "block32"
            });
        } else if m.scale_vec_written {
            q(v.name());
        }
    }
    if let Some(c) = m.collector {
        q(&c.name());
    }
}

/// Appends the qualifiers of `tcgen05.commit` (after `tcgen05`) to `o`.
pub fn mnemonic_commit(q: &mut dyn FnMut(&str), c: &Tcgen05Commit) {
    q("commit");
    q(c.group.name());
    q("mbarrier::arrive::one");
    if c.shared_cluster {
        q("shared::cluster");
    }
    if c.multicast {
        q("multicast::cluster");
    }
    q("b64");
}
