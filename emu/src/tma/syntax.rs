//! The qualifiers of the bulk copies and tensor maps (PTX ISA "cp.async.bulk",
//! "cp.reduce.async.bulk", "cp.async.bulk.prefetch", "cp.async.bulk.tensor",
//! "cp.reduce.async.bulk.tensor", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
//! "tensormap.replace", "tensormap.cp_fenceproxy").
//!
//! The gather/scatter and `im2col::w` modes and `.cp_mask` are refused as unsupported, naming
//! the qualifier. `.cta_group::1/::2` is read on tensor loads; elsewhere it is an error.

use crate::front::error::{Error, ErrorKind};
use crate::front::quals::Quals;
use crate::ir::tma::{
    BulkCopy, BulkReduce, BulkSpace, Completion, RedOp, TensorCopy, TensorDir, Tma, TMAP_FIELDS,
};
use crate::ir::{CtaGroup, Op, Scope};

fn unsupported(q: &Quals, what: &str) -> Error {
    Error::new(ErrorKind::Unsupported(what.to_string()), q.span)
}

fn refuse_unmodelled(q: &mut Quals) -> Result<(), Error> {
    for (qual, why) in [
        ("tile::gather4", "the `.tile::gather4` mode"),
        ("tile::scatter4", "the `.tile::scatter4` mode"),
        ("im2col::w", "the `.im2col::w` mode"),
        ("im2col::w::128", "the `.im2col::w::128` mode"),
        ("im2col_no_offs", "the `.im2col_no_offs` mode"),
        ("cp_mask", "`.cp_mask` bulk copies"),
    ] {
        if q.remaining().any(|s| s == qual) {
            return Err(unsupported(q, why));
        }
    }
    Ok(())
}

/// An optional `.cta_group::1` / `.cta_group::2` (more than one is an error).
fn cta_group(q: &mut Quals) -> Result<Option<CtaGroup>, Error> {
    let all = q.take_all(|s| match s {
        "cta_group::1" => Some(CtaGroup::One),
        "cta_group::2" => Some(CtaGroup::Two),
        _ => None,
    });
    match all.as_slice() {
        [] => Ok(None),
        [g] => Ok(Some(*g)),
        _ => Err(q.syntax("more than one .cta_group qualifier".into())),
    }
}

fn space(s: &str) -> Option<BulkSpace> {
    match s {
        "global" => Some(BulkSpace::Global),
        "shared::cta" => Some(BulkSpace::SharedCta),
        "shared::cluster" => Some(BulkSpace::SharedCluster),
        _ => None,
    }
}

/// The destination and source spaces, in that order.
fn spaces(q: &mut Quals, what: &str) -> Result<(BulkSpace, BulkSpace), Error> {
    let dst = q
        .take_map(space)
        .ok_or_else(|| q.syntax(format!("{what} needs a destination state space")))?;
    let src = q
        .take_map(space)
        .ok_or_else(|| q.syntax(format!("{what} needs a source state space")))?;
    Ok((dst, src))
}

fn completion(q: &mut Quals, what: &str) -> Result<Completion, Error> {
    if q.take("mbarrier::complete_tx::bytes") {
        Ok(Completion::Mbarrier)
    } else if q.take("bulk_group") {
        Ok(Completion::BulkGroup)
    } else {
        Err(q.syntax(format!(
            "{what} needs .mbarrier::complete_tx::bytes or .bulk_group"
        )))
    }
}

fn red_op(q: &mut Quals) -> Option<RedOp> {
    q.take_map(|s| {
        Some(match s {
            "add" => RedOp::Add,
            "min" => RedOp::Min,
            "max" => RedOp::Max,
            "inc" => RedOp::Inc,
            "dec" => RedOp::Dec,
            "and" => RedOp::And,
            "or" => RedOp::Or,
            "xor" => RedOp::Xor,
            _ => return None,
        })
    })
}

fn dim(q: &mut Quals) -> Option<u8> {
    q.take_map(|s| match s {
        "1d" => Some(1),
        "2d" => Some(2),
        "3d" => Some(3),
        "4d" => Some(4),
        "5d" => Some(5),
        _ => None,
    })
}

/// Parses `cp.async.bulk…` and `cp.reduce.async.bulk…` (the opcode `cp`).
///
/// # Errors
/// Missing or unknown qualifiers; forms ptxemu does not model.
pub fn parse_cp(q: &mut Quals) -> Result<Op, Error> {
    let reduce = q.take("reduce");
    if !q.take("async") || !q.take("bulk") {
        return Err(q.syntax("expected cp.async.bulk or cp.reduce.async.bulk".into()));
    }
    refuse_unmodelled(q)?;
    if !reduce {
        if q.take("commit_group") {
            return Ok(Op::Tma(Tma::CommitGroup));
        }
        if q.take("wait_group") {
            return Ok(Op::Tma(Tma::WaitGroup {
                read: q.take("read"),
            }));
        }
        if q.take("prefetch") {
            let tensor = q.take("tensor");
            if !q.take("L2") || !q.take("global") {
                return Err(q.syntax("cp.async.bulk.prefetch is written .L2.global".into()));
            }
            let im2col = q.take("im2col");
            let tile_written = q.take("tile");
            let cache_hint = q.take("L2::cache_hint");
            if tensor {
                let dim = dim(q).ok_or_else(|| {
                    q.syntax("cp.async.bulk.prefetch.tensor needs .1d-.5d".into())
                })?;
                return Ok(Op::Tma(Tma::PrefetchTensor {
                    dim,
                    im2col,
                    tile_written,
                    cache_hint,
                }));
            }
            return Ok(Op::Tma(Tma::Prefetch { cache_hint }));
        }
    }
    if q.take("tensor") {
        let what = "cp.async.bulk.tensor";
        let dim = dim(q).ok_or_else(|| q.syntax(format!("{what} needs .1d-.5d")))?;
        let (dst, src) = spaces(q, what)?;
        let op =
            if reduce {
                Some(red_op(q).ok_or_else(|| {
                    q.syntax("cp.reduce.async.bulk.tensor needs an operation".into())
                })?)
            } else {
                None
            };
        let im2col = q.take("im2col");
        let tile_written = q.take("tile");
        let completion = completion(q, what)?;
        let multicast = q.take("multicast::cluster");
        let cache_hint = q.take("L2::cache_hint");
        let cta_group = cta_group(q)?;
        let (dir, shared) = match (dst, src, op) {
            (BulkSpace::SharedCluster | BulkSpace::SharedCta, BulkSpace::Global, None) => {
                (TensorDir::Load, dst)
            }
            (BulkSpace::Global, BulkSpace::SharedCta, None) => (TensorDir::Store, src),
            (BulkSpace::Global, BulkSpace::SharedCta, Some(o)) => (TensorDir::Reduce(o), src),
            _ => {
                return Err(q.syntax(format!(
                    "{what} copies .shared::cluster/.shared::cta <- .global or .global <- .shared::cta, not {} <- {}",
                    dst.name(),
                    src.name()
                )))
            }
        };
        let need = if dir == TensorDir::Load {
            Completion::Mbarrier
        } else {
            Completion::BulkGroup
        };
        if multicast && dir != TensorDir::Load {
            return Err(q.syntax(".multicast::cluster is for tensor loads only".into()));
        }
        if cta_group.is_some() && dir != TensorDir::Load {
            return Err(q.syntax(
                ".cta_group is for tensor loads only (it names the CTA-pair mbarrier)".into(),
            ));
        }
        if completion != need {
            return Err(q.syntax(format!(
                "a {} completes through {}",
                if dir == TensorDir::Load {
                    "tensor load"
                } else {
                    "tensor store or reduction"
                },
                if need == Completion::Mbarrier {
                    ".mbarrier::complete_tx::bytes"
                } else {
                    ".bulk_group"
                }
            )));
        }
        return Ok(Op::Tma(Tma::Tensor(TensorCopy {
            dim,
            dir,
            shared,
            im2col,
            tile_written,
            completion,
            cache_hint,
            multicast,
            cta_group,
        })));
    }
    let what = if reduce {
        "cp.reduce.async.bulk"
    } else {
        "cp.async.bulk"
    };
    let (dst, src) = spaces(q, what)?;
    let completion = completion(q, what)?;
    let multicast = q.take("multicast::cluster");
    let cache_hint = q.take("L2::cache_hint");
    let copy = BulkCopy {
        dst,
        src,
        completion,
        cache_hint,
        multicast,
    };
    if multicast && (reduce || dst != BulkSpace::SharedCluster || src != BulkSpace::Global) {
        return Err(
            q.syntax(".multicast::cluster copies .global into .shared::cluster only".into())
        );
    }
    if reduce {
        let op = red_op(q).ok_or_else(|| q.syntax(format!("{what} needs an operation")))?;
        let noftz = q.take("noftz");
        let ty = q.ty()?;
        return Ok(Op::Tma(Tma::Reduce(BulkReduce {
            copy,
            op,
            noftz,
            ty,
        })));
    }
    Ok(Op::Tma(Tma::Bulk(copy)))
}

/// Parses `tensormap.…`.
///
/// # Errors
/// Unknown fields, modes or missing qualifiers.
pub fn parse_tensormap(q: &mut Quals) -> Result<Op, Error> {
    if q.take("replace") {
        if !q.take("tile") {
            return Err(q.syntax("tensormap.replace needs the .tile mode".into()));
        }
        let field = q
            .take_map(|s| TMAP_FIELDS.iter().find(|f| f.1 == s).map(|f| f.0))
            .ok_or_else(|| {
                q.syntax(
                    "tensormap.replace needs a field (.global_address, .rank, .box_dim, ...)"
                        .into(),
                )
            })?;
        let shared = if q.take("shared::cta") {
            Some(true)
        } else if q.take("global") {
            Some(false)
        } else {
            None
        };
        if !q.take("b1024") {
            return Err(q.syntax("tensormap.replace needs .b1024".into()));
        }
        let ty = q.ty()?;
        return Ok(Op::Tma(Tma::Replace { field, shared, ty }));
    }
    if q.take("cp_fenceproxy") {
        let ok = q.take("global")
            && q.take("shared::cta")
            && q.take("tensormap::generic")
            && q.take("release")
            && q.take("sync")
            && q.take("aligned");
        let scope = q.take_map(|s| match s {
            "cta" => Some(Scope::Cta),
            "cluster" => Some(Scope::Cluster),
            "gpu" => Some(Scope::Gpu),
            "sys" => Some(Scope::Sys),
            _ => None,
        });
        return match (ok, scope) {
            (true, Some(scope)) => Ok(Op::Tma(Tma::CpFenceproxy { scope })),
            _ => Err(q.syntax(
                "tensormap.cp_fenceproxy is written .global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned"
                    .into(),
            )),
        };
    }
    let what = q
        .remaining()
        .next()
        .map_or("tensormap".into(), |s| format!("tensormap.{s}"));
    Err(q.syntax(format!("unknown tensormap operation in `{what}`")))
}

fn red_name(o: RedOp) -> &'static str {
    match o {
        RedOp::Add => ".add",
        RedOp::Min => ".min",
        RedOp::Max => ".max",
        RedOp::Inc => ".inc",
        RedOp::Dec => ".dec",
        RedOp::And => ".and",
        RedOp::Or => ".or",
        RedOp::Xor => ".xor",
    }
}

fn completion_name(c: Completion) -> &'static str {
    match c {
        Completion::Mbarrier => ".mbarrier::complete_tx::bytes",
        Completion::BulkGroup => ".bulk_group",
    }
}

/// Writes the mnemonic of one of these instructions.
pub fn mnemonic(o: &mut String, t: &Tma) {
    match t {
        Tma::Bulk(c) | Tma::Reduce(BulkReduce { copy: c, .. }) => {
            o.push_str(if matches!(t, Tma::Reduce(_)) {
                "cp.reduce.async.bulk"
            } else {
                "cp.async.bulk"
            });
            o.push_str(c.dst.name());
            o.push_str(c.src.name());
            o.push_str(completion_name(c.completion));
            if c.multicast {
                o.push_str(".multicast::cluster");
            }
            if c.cache_hint {
                o.push_str(".L2::cache_hint");
            }
            if let Tma::Reduce(r) = t {
                o.push_str(red_name(r.op));
                if r.noftz {
                    o.push_str(".noftz");
                }
                o.push('.');
                o.push_str(r.ty.name());
            }
        }
        Tma::Tensor(c) => {
            o.push_str(if matches!(c.dir, TensorDir::Reduce(_)) {
                "cp.reduce.async.bulk.tensor"
            } else {
                "cp.async.bulk.tensor"
            });
            o.push_str(&format!(".{}d", c.dim));
            if let Some(g) = c.cta_group {
                o.push('.');
                o.push_str(g.name());
            }
            match c.dir {
                TensorDir::Load => {
                    o.push_str(c.shared.name());
                    o.push_str(".global");
                }
                TensorDir::Store | TensorDir::Reduce(_) => {
                    o.push_str(".global");
                    o.push_str(c.shared.name());
                }
            }
            if let TensorDir::Reduce(r) = c.dir {
                o.push_str(red_name(r));
            }
            if c.im2col {
                o.push_str(".im2col");
            } else if c.tile_written {
                o.push_str(".tile");
            }
            o.push_str(completion_name(c.completion));
            if c.multicast {
                o.push_str(".multicast::cluster");
            }
            if c.cache_hint {
                o.push_str(".L2::cache_hint");
            }
        }
        Tma::Prefetch { cache_hint } => {
            o.push_str("cp.async.bulk.prefetch.L2.global");
            if *cache_hint {
                o.push_str(".L2::cache_hint");
            }
        }
        Tma::PrefetchTensor {
            dim,
            im2col,
            tile_written,
            cache_hint,
        } => {
            o.push_str(&format!("cp.async.bulk.prefetch.tensor.{dim}d.L2.global"));
            if *im2col {
                o.push_str(".im2col");
            } else if *tile_written {
                o.push_str(".tile");
            }
            if *cache_hint {
                o.push_str(".L2::cache_hint");
            }
        }
        Tma::CommitGroup => o.push_str("cp.async.bulk.commit_group"),
        Tma::WaitGroup { read } => {
            o.push_str("cp.async.bulk.wait_group");
            if *read {
                o.push_str(".read");
            }
        }
        Tma::Replace { field, shared, ty } => {
            o.push_str("tensormap.replace.tile.");
            o.push_str(field.name());
            match shared {
                Some(true) => o.push_str(".shared::cta"),
                Some(false) => o.push_str(".global"),
                None => {}
            }
            o.push_str(".b1024.");
            o.push_str(ty.name());
        }
        Tma::CpFenceproxy { scope } => {
            o.push_str("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.");
            o.push_str(scope.name());
            o.push_str(".sync.aligned");
        }
    }
}

/// Joins printed operands, writing a tensor operand (an address followed by a coordinate
/// vector) as `[tmap, {c0, ...}]`.
pub fn join_args(t: &Tma, args: &[String]) -> String {
    let tensor_at = match t {
        Tma::Tensor(c) => Some(if c.dir == TensorDir::Load { 1 } else { 0 }),
        Tma::PrefetchTensor { .. } => Some(0),
        _ => None,
    };
    let mut out: Vec<String> = Vec::new();
    let mut k = 0;
    while k < args.len() {
        if Some(k) == tensor_at && k + 1 < args.len() {
            let a = &args[k];
            let inner = a
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .unwrap_or(a);
            out.push(format!("[{inner}, {}]", args[k + 1]));
            k += 2;
        } else {
            out.push(args[k].clone());
            k += 1;
        }
    }
    out.join(", ")
}
