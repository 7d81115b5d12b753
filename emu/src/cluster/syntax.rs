//! Parsing the cluster instructions: `mapa`, `getctarank`, `barrier.cluster.{arrive,wait}`.

use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{ClusterOp, Op, Type};

/// Parses `mapa`/`getctarank` (`opcode`) or, for `barrier` (its `.cluster` already taken),
/// `barrier.cluster.arrive/wait`.
///
/// # Errors
/// Missing or unknown qualifiers.
pub fn parse(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    if opcode == "barrier" {
        if q.take("arrive") {
            let relaxed = q.take("relaxed");
            let release = q.take("release");
            if relaxed && release {
                return Err(
                    q.syntax("barrier.cluster.arrive takes .release or .relaxed, not both".into())
                );
            }
            let aligned = q.take("aligned");
            return Ok(Op::Cluster(ClusterOp::Arrive {
                relaxed,
                release,
                aligned,
            }));
        }
        if q.take("wait") {
            let acquire = q.take("acquire");
            let aligned = q.take("aligned");
            return Ok(Op::Cluster(ClusterOp::Wait { acquire, aligned }));
        }
        return Err(q.syntax("barrier.cluster needs .arrive or .wait".into()));
    }
    let shared = q.take("shared::cluster");
    let ty = q.ty()?;
    if !matches!(ty, Type::U32 | Type::U64) {
        return Err(q.syntax(format!("`{opcode}` takes .u32 or .u64")));
    }
    if !shared && ty == Type::U32 {
        return Err(q.syntax(format!(
            "`{opcode}` on a generic address takes .u64 (.u32 needs .shared::cluster)"
        )));
    }
    Ok(Op::Cluster(if opcode == "mapa" {
        ClusterOp::Mapa { shared, ty }
    } else {
        ClusterOp::Getctarank { shared, ty }
    }))
}

/// Parses the rest of `fence.mbarrier_init` (its `.mbarrier_init` already taken): the only
/// form is `.release.cluster` (ptxas 13.5 refuses any other semantics or scope).
///
/// # Errors
/// A missing `.release`, or a scope other than `.cluster`.
pub fn fence_mbarrier_init(q: &mut Quals) -> Result<Op, Error> {
    if !q.take("release") {
        return Err(q.syntax("fence.mbarrier_init needs .release (its only semantics)".into()));
    }
    match q.scope() {
        Some(models::vocab::Scope::Cluster) => Ok(Op::Fence(crate::ir::Fence::MbarrierInit)),
        _ => Err(q.syntax("fence.mbarrier_init takes only the scope .cluster".into())),
    }
}
