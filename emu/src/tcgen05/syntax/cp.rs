//! The qualifiers of `tcgen05.cp` (PTX ISA "tcgen05.cp"):
//! `tcgen05.cp.cta_group.shape{.multicast}{.b8x16.src_fmt}`.
//!
//! As ptxas does, the multicast may come before or after the shape (CUTLASS writes
//! `.32x128b.warpx4`, Triton `.warpx4.32x128b`). Which multicast a shape needs is the
//! validator's rule (`tcgen05-cp-multicast`), so the message can name both.

use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{CpDecompress, CpMulticast, CpShape, CtaGroup, Tcgen05, Tcgen05Cp};

fn shape_of(s: &str) -> Option<CpShape> {
    Some(match s {
        "128x256b" => CpShape::S128x256b,
        "4x256b" => CpShape::S4x256b,
        "128x128b" => CpShape::S128x128b,
        "64x128b" => CpShape::S64x128b,
        "32x128b" => CpShape::S32x128b,
        _ => return None,
    })
}

fn multicast_of(s: &str) -> Option<CpMulticast> {
    Some(match s {
        "warpx2::02_13" => CpMulticast::Warpx2_02_13,
        "warpx2::01_23" => CpMulticast::Warpx2_01_23,
        "warpx4" => CpMulticast::Warpx4,
        _ => return None,
    })
}

fn source_format_of(s: &str) -> Option<CpDecompress> {
    Some(match s {
        "b6x16_p32" => CpDecompress::B6x16P32,
        "b4x16_p64" => CpDecompress::B4x16P64,
        _ => return None,
    })
}

/// Parses the qualifiers after `tcgen05.cp` (the sub-instruction already taken).
///
/// # Errors
/// A missing `.cta_group` or shape, a second shape or multicast, or a source format without
/// `.b8x16` (or the reverse).
pub fn parse(q: &mut Quals) -> Result<Tcgen05, Error> {
    let group = q
        .take_map(|s| match s {
            "cta_group::1" => Some(CtaGroup::One),
            "cta_group::2" => Some(CtaGroup::Two),
            _ => None,
        })
        .ok_or_else(|| q.syntax("`tcgen05.cp` needs .cta_group::1 or .cta_group::2".into()))?;
    let shape = q.take_map(shape_of).ok_or_else(|| {
        q.syntax(
            "`tcgen05.cp` needs a shape (.128x256b, .4x256b, .128x128b, .64x128b or .32x128b)"
                .into(),
        )
    })?;
    if let Some(s) = q.remaining().find(|s| shape_of(s).is_some()) {
        return Err(q.syntax(format!("`tcgen05.cp` takes one shape, found .{s} too")));
    }
    let multicast = q.take_map(multicast_of);
    if let Some(s) = q.remaining().find(|s| multicast_of(s).is_some()) {
        return Err(q.syntax(format!("`tcgen05.cp` takes one multicast, found .{s} too")));
    }
    // ptxas takes `.b8x16.src_fmt` anywhere, but only in that order and adjacent.
    let order: Vec<&str> = q.remaining().collect();
    let adjacent = order
        .windows(2)
        .any(|w| w[0] == "b8x16" && source_format_of(w[1]).is_some());
    let dst = q.take("b8x16");
    let src = q.take_map(source_format_of);
    let decompress = match (dst, src) {
        (true, Some(f)) if adjacent => Some(f),
        (true, Some(f)) => {
            return Err(q.syntax(format!(
                "`tcgen05.cp`: the formats are written .b8x16.{} (destination first, together)",
                f.name()
            )))
        }
        (false, None) => None,
        (true, None) => {
            return Err(q.syntax(
                "`tcgen05.cp`: .b8x16 needs a source format (.b6x16_p32 or .b4x16_p64)".into(),
            ))
        }
        (false, Some(f)) => {
            return Err(q.syntax(format!(
                "`tcgen05.cp`: .{} needs the destination format .b8x16 before it",
                f.name()
            )))
        }
    };
    Ok(Tcgen05::Cp(Tcgen05Cp {
        group,
        shape,
        multicast,
        decompress,
    }))
}

/// Appends the qualifiers of `c` after `tcgen05` in canonical order to `o`.
pub fn mnemonic(o: &mut String, c: &Tcgen05Cp) {
    let mut q = |s: &str| {
        o.push('.');
        o.push_str(s);
    };
    q("cp");
    q(c.group.name());
    q(c.shape.name());
    if let Some(m) = c.multicast {
        q(m.name());
    }
    if let Some(d) = c.decompress {
        q("b8x16");
        q(d.name());
    }
}
