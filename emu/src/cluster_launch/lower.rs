//! Lowering `clusterlaunchcontrol.try_cancel` and `query_cancel`: addresses and the `.b128`
//! response register resolved once ([`crate::cluster_launch::exec`] runs them).

use crate::cluster_launch::decoded::CancelInstr;
use crate::cluster_launch::exec as step;
use crate::exec::decode::context::{FnCtx, SlotInfo};
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::ir::{ClusterLaunch, Instr, SpaceQual, Type};
use crate::validate::Unguaranteed;

/// Lowers `c` into `d`.
///
/// # Errors
/// Operands of the wrong kind (the validator reports them first).
pub fn lower(
    fx: &FnCtx<'_>,
    ins: &Instr,
    c: &ClusterLaunch,
    d: &mut DInstr,
) -> Result<(), DecodeError> {
    match *c {
        ClusterLaunch::TryCancel { shared, multicast } => {
            let space = if shared {
                SpaceQual::SHARED_CTA
            } else {
                SpaceQual::GENERIC
            };
            d.extra = Extra::ClusterLaunch(Box::new(CancelInstr {
                addr: fx.addr(fx.arg(ins, 0)?, space, ins.span)?,
                mbar: fx.addr(fx.arg(ins, 1)?, space, ins.span)?,
                multicast,
            }));
            d.exec = step::try_cancel;
        }
        ClusterLaunch::IsCanceled | ClusterLaunch::FirstCtaid(_) => {
            // The rule `operand-kind` (`validate.rs`) makes the response a .b128 register.
            let r = fx.validated.reg_of(ins, 1)?;
            let SlotInfo::Val { slot, count: 2, .. } = fx.slot(r) else {
                return Err(Unguaranteed::at(ins.span, "a .b128 register").into());
            };
            d.s[0] = Src::Reg(slot);
            d.s[1] = Src::Reg(slot + 1);
            match *c {
                ClusterLaunch::IsCanceled => {
                    d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::Pred, ins.span)?;
                    d.exec = step::is_canceled;
                }
                ClusterLaunch::FirstCtaid(Some(dim)) => {
                    d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::B32, ins.span)?;
                    d.extra = Extra::Param(dim.index() as u64);
                    d.exec = step::first_ctaid_of;
                }
                ClusterLaunch::FirstCtaid(None) => {
                    let dsts = fx
                        .validated
                        .dests_of(ins, 0)?
                        .into_iter()
                        .map(|r| r.map_or(Dst::Sink, |r| fx.reg_dst(r, Type::B32)))
                        .collect();
                    d.extra = Extra::Elems(Vec::new(), dsts);
                    d.exec = step::first_ctaid_of;
                }
                ClusterLaunch::TryCancel { .. } => {}
            }
        }
    }
    Ok(())
}
