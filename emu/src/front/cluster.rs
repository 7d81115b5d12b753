//! Parsing the cluster instructions: `mapa`, `getctarank`, `barrier.cluster.{arrive,wait}`.

use super::error::Error;
use super::quals::Quals;
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
