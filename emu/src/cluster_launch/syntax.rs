//! Parsing `clusterlaunchcontrol.try_cancel` and `clusterlaunchcontrol.query_cancel` (PTX ISA
//! "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel").
//!
//! As ptxas 13.5 reads them (tests/ptxas/cutlass.tsv): `.async` right after `.try_cancel`
//! (the two are the opcode), the other qualifiers in any order, each form's qualifiers all
//! required (`.mbarrier::complete_tx::bytes` and `.b128` of try_cancel), and query_cancel's two
//! types in the order destination, source (`.pred.b128`, `.b32.b128`).

use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{ClusterLaunch, Dim, Op};

/// Parses the qualifiers of `clusterlaunchcontrol`.
///
/// # Errors
/// A missing operation or required qualifier.
pub fn parse(q: &mut Quals) -> Result<Op, Error> {
    let need = |q: &mut Quals, name: &str, form: &str| {
        if q.take(name) {
            Ok(())
        } else {
            Err(q.syntax(format!("{form} needs .{name}")))
        }
    };
    if q.take("try_cancel") {
        let form = "clusterlaunchcontrol.try_cancel";
        if q.second() != Some("async") {
            return Err(q.syntax(format!("{form} is written {form}.async")));
        }
        need(q, "async", form)?;
        need(q, "mbarrier::complete_tx::bytes", form)?;
        let shared = q.take("shared::cta");
        let multicast = q.take("multicast::cluster::all");
        need(q, "b128", form)?;
        return Ok(Op::ClusterLaunch(ClusterLaunch::TryCancel {
            shared,
            multicast,
        }));
    }
    if q.take("query_cancel") {
        let form = "clusterlaunchcontrol.query_cancel";
        let types: Vec<&str> = q
            .remaining()
            .filter(|s| crate::ir::Type::from_name(s).is_some())
            .collect();
        if !matches!(types.as_slice(), ["pred", "b128"] | ["b32", "b128"]) {
            return Err(q.syntax(format!(
                "{form} takes the types .pred.b128 (is_canceled) or .b32.b128 (get_first_ctaid), in that order"
            )));
        }
        let op = if q.take("is_canceled") {
            need(q, "pred", form)?;
            ClusterLaunch::IsCanceled
        } else {
            let dim = q.take_map(|s| match s {
                "get_first_ctaid::x" => Some(Some(Dim::X)),
                "get_first_ctaid::y" => Some(Some(Dim::Y)),
                "get_first_ctaid::z" => Some(Some(Dim::Z)),
                "get_first_ctaid" => Some(None),
                _ => None,
            });
            let Some(dim) = dim else {
                return Err(q.syntax(format!(
                    "{form} needs .is_canceled or .get_first_ctaid{{::x,::y,::z}}"
                )));
            };
            if dim.is_none() {
                need(
                    q,
                    "v4",
                    &format!("{form}.get_first_ctaid without ::x/::y/::z"),
                )?;
            }
            need(q, "b32", form)?;
            ClusterLaunch::FirstCtaid(dim)
        };
        need(q, "b128", form)?;
        return Ok(Op::ClusterLaunch(op));
    }
    Err(q.syntax("clusterlaunchcontrol needs .try_cancel or .query_cancel".into()))
}
