//! Parsing warp-level, barrier, fence and control instructions.

use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{
    Bar, BarKind, BarRedOp, Fence, FenceSem, GriddepAction, Match, MembarLevel, Op, Redux, ReduxOp,
    Shfl, ShflMode, StateSpace, Vote, VoteMode,
};
use models::vocab::Proxy;

/// `shfl{.sync}` and its mode.
pub(super) fn shfl(q: &mut Quals) -> Result<Op, Error> {
    let sync = q.take("sync");
    let mode = q
        .take_map(|s| {
            Some(match s {
                "up" => ShflMode::Up,
                "down" => ShflMode::Down,
                "bfly" => ShflMode::Bfly,
                "idx" => ShflMode::Idx,
                _ => return None,
            })
        })
        .ok_or_else(|| q.syntax("shfl needs .up, .down, .bfly or .idx".into()))?;
    q.take("b32");
    Ok(Op::Shfl(Shfl { sync, mode }))
}

/// `vote{.sync}` and its mode.
pub(super) fn vote(q: &mut Quals) -> Result<Op, Error> {
    let sync = q.take("sync");
    let mode = q
        .take_map(|s| {
            Some(match s {
                "all" => VoteMode::All,
                "any" => VoteMode::Any,
                "uni" => VoteMode::Uni,
                "ballot" => VoteMode::Ballot,
                _ => return None,
            })
        })
        .ok_or_else(|| q.syntax("vote needs .all, .any, .uni or .ballot".into()))?;
    q.take("pred");
    q.take("b32");
    Ok(Op::Vote(Vote { sync, mode }))
}

/// `match.{any,all}.sync`.
pub(super) fn match_sync(q: &mut Quals) -> Result<Op, Error> {
    let all = if q.take("all") {
        true
    } else if q.take("any") {
        false
    } else {
        return Err(q.syntax("match needs .any or .all".into()));
    };
    q.take("sync");
    Ok(Op::Match(Match { all, ty: q.ty()? }))
}

/// `redux.sync` and its operation.
pub(super) fn redux(q: &mut Quals) -> Result<Op, Error> {
    if !q.take("sync") {
        return Err(q.syntax("redux needs .sync".into()));
    }
    let op = q
        .take_map(|s| {
            Some(match s {
                "add" => ReduxOp::Add,
                "min" => ReduxOp::Min,
                "max" => ReduxOp::Max,
                "and" => ReduxOp::And,
                "or" => ReduxOp::Or,
                "xor" => ReduxOp::Xor,
                _ => return None,
            })
        })
        .ok_or_else(|| q.syntax("redux needs an operation".into()))?;
    let abs = q.take("abs");
    let nan = q.take("NaN");
    Ok(Op::Redux(Redux {
        op,
        ty: q.ty()?,
        abs,
        nan,
    }))
}

/// `activemask.b32`.
pub(super) fn activemask(q: &mut Quals) -> Result<Op, Error> {
    q.take("b32");
    Ok(Op::Activemask)
}

/// `elect.sync`.
pub(super) fn elect(q: &mut Quals) -> Result<Op, Error> {
    if !q.take("sync") {
        return Err(q.syntax("elect needs .sync".into()));
    }
    Ok(Op::Elect)
}

/// `bar`/`barrier` (not `.cluster`) and `bar.warp.sync`.
pub(super) fn bar(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    if opcode == "bar" && q.take("warp") {
        if !q.take("sync") {
            return Err(q.syntax("bar.warp needs .sync".into()));
        }
        return Ok(Op::BarWarpSync);
    }
    let cta = q.take("cta");
    let kind = if q.take("sync") {
        BarKind::Sync
    } else if q.take("arrive") {
        BarKind::Arrive
    } else if q.take("red") {
        let r = if q.take("popc") {
            q.take("u32");
            BarRedOp::Popc
        } else if q.take("and") {
            q.take("pred");
            BarRedOp::And
        } else if q.take("or") {
            q.take("pred");
            BarRedOp::Or
        } else {
            return Err(q.syntax("bar.red needs .popc.u32, .and.pred or .or.pred".into()));
        };
        BarKind::Red(r)
    } else {
        BarKind::Sync
    };
    let aligned = q.take("aligned");
    Ok(Op::Bar(Bar {
        barrier: opcode == "barrier",
        cta,
        kind,
        aligned,
    }))
}

/// `membar`.
pub(super) fn membar(q: &mut Quals) -> Result<Op, Error> {
    let level = q
        .take_map(|s| {
            Some(match s {
                "cta" => MembarLevel::Cta,
                "gl" => MembarLevel::Gl,
                "sys" => MembarLevel::Sys,
                _ => return None,
            })
        })
        .ok_or_else(|| q.syntax("membar needs .cta, .gl or .sys".into()))?;
    Ok(Op::Membar(level))
}

/// `fence`: memory, proxy and `mbarrier_init` forms.
pub(super) fn fence(q: &mut Quals) -> Result<Op, Error> {
    let op = if q.take("mbarrier_init") {
        crate::cluster::syntax::fence_mbarrier_init(q)?
    } else if q.take("proxy") {
        if q.take("alias") {
            Op::Fence(Fence::ProxyAlias)
        } else if q.take("async") {
            let s = q.space();
            Op::Fence(Fence::ProxyAsync(
                (s.space != StateSpace::Generic).then_some(s.space),
            ))
        } else if q.take("tensormap::generic") {
            let release = if q.take("release") {
                true
            } else if q.take("acquire") {
                false
            } else {
                return Err(
                    q.syntax("fence.proxy.tensormap::generic needs .release or .acquire".into())
                );
            };
            let scope = q
                .scope()
                .ok_or_else(|| q.syntax("fence.proxy.tensormap needs a scope".into()))?;
            Op::Fence(Fence::ProxyTensormap { release, scope })
        } else {
            let p = q
                .take_map(|s| {
                    Some(match s {
                        "generic" => Proxy::Generic,
                        "texture" => Proxy::Texture,
                        "surface" => Proxy::Surface,
                        "constant" => Proxy::Constant,
                        _ => return None,
                    })
                })
                .ok_or_else(|| q.syntax("unknown fence.proxy kind".into()))?;
            Op::Fence(Fence::ProxyKind(p))
        }
    } else {
        let sem = q.take_map(|s| {
            Some(match s {
                "sc" => FenceSem::Sc,
                "acq_rel" => FenceSem::AcqRel,
                "acquire" => FenceSem::Acquire,
                "release" => FenceSem::Release,
                _ => return None,
            })
        });
        let scope = q
            .scope()
            .ok_or_else(|| q.syntax("fence needs a scope".into()))?;
        Op::Fence(Fence::Memory { sem, scope })
    };
    Ok(op)
}

/// `nanosleep`.
pub(super) fn nanosleep(q: &mut Quals) -> Result<Op, Error> {
    q.take("u32");
    Ok(Op::Nanosleep)
}

/// `griddepcontrol`.
pub(super) fn griddepcontrol(q: &mut Quals) -> Result<Op, Error> {
    let a = if q.take("launch_dependents") {
        GriddepAction::LaunchDependents
    } else if q.take("wait") {
        GriddepAction::Wait
    } else {
        return Err(q.syntax("griddepcontrol needs .launch_dependents or .wait".into()));
    };
    Ok(Op::Griddepcontrol(a))
}

/// `setmaxnreg`.
pub(super) fn setmaxnreg(q: &mut Quals) -> Result<Op, Error> {
    let inc = if q.take("inc") {
        true
    } else if q.take("dec") {
        false
    } else {
        return Err(q.syntax("setmaxnreg needs .inc or .dec".into()));
    };
    let sync = q.take("sync");
    let aligned = q.take("aligned");
    Ok(Op::Setmaxnreg(crate::ir::Setmaxnreg {
        inc,
        sync_aligned: sync && aligned,
        ty: q.ty()?,
    }))
}

/// `brx.idx`.
pub(super) fn brx(q: &mut Quals) -> Result<Op, Error> {
    if !q.take("idx") {
        return Err(q.syntax("brx needs .idx".into()));
    }
    Ok(Op::BrxIdx { uni: q.take("uni") })
}
