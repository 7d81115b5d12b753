//! Control flow and CTA barriers: `bra`, `brx.idx`, `call`, `ret`, `exit`, `trap`, `brkpt`,
//! `bar`/`barrier` (sync, arrive, red) and `bar.warp.sync`.
//!
//! These instructions only decide; the warp scheduler and the CTA apply the decision
//! (divergence, frames, barrier arrival) because they own the per-lane state.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::launch::BarrierRequest;
use crate::exec::launch::Request;
use crate::exec::program::{DInstr, Extra, Flow, Src};

type R = Result<Flow, LaneFault>;

/// `bra target`.
pub fn bra(_c: &mut Ctx<'_>, i: &DInstr) -> R {
    match i.extra {
        Extra::Target(t) => Ok(Flow::Branch(t)),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "branch without a decoded target".into(),
        })),
    }
}

/// `brx.idx index, targets`: the targets are in `Extra::Elems` as immediates (pcs).
pub fn brx_idx(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Elems(targets, _) = &i.extra else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "brx.idx without decoded targets".into(),
        }));
    };
    let idx = c.fetch(&i.s[0]);
    let mut chosen: Option<u64> = None;
    let mut m = c.mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let k = idx[l] & 0xffff_ffff;
        let Some(Src::Imm(pc)) = targets.get(k as usize) else {
            return Err(c.fault(
                FaultKind::Undefined {
                    detail: format!(
                        "brx.idx index {k} is outside its {}-entry target list",
                        targets.len()
                    ),
                },
                l,
            ));
        };
        match chosen {
            None => chosen = Some(*pc),
            Some(p) if p == *pc => {}
            Some(_) => {
                return Err(c.fault(
                    FaultKind::Unsupported {
                        what: "brx.idx whose lanes choose different targets".into(),
                    },
                    l,
                ))
            }
        }
    }
    Ok(Flow::Branch(chosen.unwrap_or(0) as u32))
}

/// `call`.
pub fn call(_c: &mut Ctx<'_>, _i: &DInstr) -> R {
    Ok(Flow::Call)
}

/// `ret`.
pub fn ret(_c: &mut Ctx<'_>, _i: &DInstr) -> R {
    Ok(Flow::Ret)
}

/// `exit`.
pub fn exit(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    if c.asyncs.has_pending() {
        crate::async_copy::cp_async::deliver_on_exit(c, c.mask);
    }
    Ok(Flow::Exit)
}

/// `trap`.
pub fn trap(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    Err(c.fault(FaultKind::Trap, c.mask.trailing_zeros() as usize))
}

/// `brkpt`.
pub fn brkpt(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    Err(c.fault(FaultKind::Breakpoint, c.mask.trailing_zeros() as usize))
}

/// `bar.sync/arrive/red`, `barrier.*`: operands `s[0]` barrier id, `s[1]` thread count (or
/// `Src::None`), `s[2]` the `bar.red` predicate; `d[0]` the `bar.red` destination.
pub fn bar(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Barrier(info) = i.extra else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "barrier without decoded information".into(),
        }));
    };
    let ids = c.fetch(&i.s[0]);
    let counts = c.fetch(&i.s[1]);
    let first = c.mask.trailing_zeros() as usize;
    let id = ids[first] & 0xffff_ffff;
    let count = counts[first] & 0xffff_ffff;
    let mut m = c.mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        if ids[l] & 0xffff_ffff != id {
            return Err(c.fault(
                FaultKind::Undefined {
                    detail: format!(
                        "lanes of a warp name different barriers ({} and {})",
                        id,
                        ids[l] & 0xffff_ffff
                    ),
                },
                l,
            ));
        }
    }
    let count = match i.s[1] {
        Src::None => None,
        _ => {
            if count == 0 || (info.aligned && !count.is_multiple_of(32)) {
                return Err(c.fault(
                    FaultKind::Undefined {
                        detail: format!(
                            "barrier thread count {count} must be a non-zero multiple of the warp size"
                        ),
                    },
                    first,
                ));
            }
            Some(count as u32)
        }
    };
    let pred = match i.s[2] {
        Src::None => 0,
        ref s => c.fetch_mask(s),
    };
    c.request = Request::Barrier(BarrierRequest {
        id: id as u32,
        count,
        pred,
        arrive_only: info.arrive_only,
        aligned: info.aligned,
        red: info.red,
        dst: info.red.map(|_| i.d[0]),
    });
    Ok(Flow::Barrier)
}

/// `bar.warp.sync membermask`: waits until every lane of the mask reaches it.
pub fn bar_warp_sync(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let members = c.fetch(&i.s[0])[c.mask.trailing_zeros() as usize] as u32;
    if members & !c.mask != 0 {
        return Ok(Flow::WaitCollective);
    }
    c.after_warp_sync(members & c.mask);
    Ok(Flow::Next)
}
