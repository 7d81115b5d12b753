//! Lowering the cluster instructions (`mapa`, `getctarank`, `barrier.cluster`): operands
//! resolved once; `crate::cluster::exec` runs them.

use crate::cluster::exec as step;
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Extra};
use crate::ir::{ClusterOp, Instr, Type};

/// Lowers `c` into `d`.
///
/// # Errors
/// Operands of the wrong kind.
pub fn lower(
    fx: &FnCtx<'_>,
    ins: &Instr,
    c: &ClusterOp,
    d: &mut DInstr,
) -> Result<(), DecodeError> {
    match *c {
        ClusterOp::Mapa { shared, ty } => {
            d.d[0] = fx.dst(fx.arg(ins, 0)?, ty, ins.span)?;
            d.s[0] = fx.src(fx.arg(ins, 1)?, ty, ins.span)?;
            d.s[1] = fx.src(fx.arg(ins, 2)?, Type::U32, ins.span)?;
            d.extra = Extra::Param(u64::from(shared));
            d.exec = step::mapa;
        }
        ClusterOp::Getctarank { shared, ty } => {
            d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::U32, ins.span)?;
            d.s[0] = fx.src(fx.arg(ins, 1)?, ty, ins.span)?;
            d.extra = Extra::Param(u64::from(shared));
            d.exec = step::getctarank;
        }
        ClusterOp::Arrive { .. } => d.exec = step::arrive,
        ClusterOp::Wait { .. } => {
            d.exec = step::wait;
            d.control = true;
        }
    }
    Ok(())
}
