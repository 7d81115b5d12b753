//! Mnemonics of the warp-wide, synchronisation and atomic instructions.

use crate::front::quals::space_name;
use crate::ir::*;

use super::qual::*;

/// Writes the mnemonic of an instruction of the warp-wide instructions group; other opcodes write nothing.
pub(super) fn warp(o: &mut String, op: &Op) {
    match op {
        Op::Shfl(sh) => {
            o.push_str("shfl");
            if sh.sync {
                q(o, "sync");
            }
            q(
                o,
                match sh.mode {
                    ShflMode::Up => "up",
                    ShflMode::Down => "down",
                    ShflMode::Bfly => "bfly",
                    ShflMode::Idx => "idx",
                },
            );
            q(o, "b32");
        }
        Op::Vote(v) => {
            o.push_str("vote");
            if v.sync {
                q(o, "sync");
            }
            o.push_str(match v.mode {
                VoteMode::All => ".all.pred",
                VoteMode::Any => ".any.pred",
                VoteMode::Uni => ".uni.pred",
                VoteMode::Ballot => ".ballot.b32",
            });
        }
        Op::Match(mt) => {
            o.push_str(if mt.all {
                "match.all.sync"
            } else {
                "match.any.sync"
            });
            q(o, mt.ty.name());
        }
        Op::Redux(r) => {
            o.push_str("redux.sync");
            q(
                o,
                match r.op {
                    ReduxOp::Add => "add",
                    ReduxOp::Min => "min",
                    ReduxOp::Max => "max",
                    ReduxOp::And => "and",
                    ReduxOp::Or => "or",
                    ReduxOp::Xor => "xor",
                },
            );
            if r.abs {
                q(o, "abs");
            }
            if r.nan {
                q(o, "NaN");
            }
            q(o, r.ty.name());
        }
        Op::Activemask => o.push_str("activemask.b32"),
        Op::Elect => o.push_str("elect.sync"),
        _ => {}
    }
}

/// Writes the mnemonic of an instruction of the synchronisation and atomics group; other opcodes write nothing.
pub(super) fn sync(o: &mut String, op: &Op) {
    match op {
        Op::Bar(b) => {
            o.push_str(if b.barrier { "barrier" } else { "bar" });
            if b.cta {
                q(o, "cta");
            }
            match b.kind {
                BarKind::Sync => q(o, "sync"),
                BarKind::Arrive => q(o, "arrive"),
                BarKind::Red(BarRedOp::Popc) => o.push_str(".red.popc.u32"),
                BarKind::Red(BarRedOp::And) => o.push_str(".red.and.pred"),
                BarKind::Red(BarRedOp::Or) => o.push_str(".red.or.pred"),
            }
            if b.aligned {
                q(o, "aligned");
            }
        }
        Op::BarWarpSync => o.push_str("bar.warp.sync"),
        Op::Membar(l) => {
            o.push_str("membar");
            q(
                o,
                match l {
                    MembarLevel::Cta => "cta",
                    MembarLevel::Gl => "gl",
                    MembarLevel::Sys => "sys",
                },
            );
        }
        Op::Fence(f) => {
            o.push_str("fence");
            match f {
                Fence::Memory { sem, scope } => {
                    if let Some(s) = sem {
                        q(o, s.name());
                    }
                    q(o, scope.name());
                }
                Fence::ProxyAlias => o.push_str(".proxy.alias"),
                Fence::MbarrierInit => o.push_str(".mbarrier_init.release.cluster"),
                Fence::ProxyAsync(sp) => {
                    o.push_str(".proxy.async");
                    if let Some(sp) = sp {
                        if let Some(n) = space_name(crate::ir::SpaceQual::plain(*sp)) {
                            q(o, n);
                        }
                    }
                }
                Fence::ProxyKind(p) => {
                    o.push_str(".proxy");
                    q(o, p.name());
                }
                Fence::ProxyTensormap { release, scope } => {
                    o.push_str(".proxy.tensormap::generic");
                    q(o, if *release { "release" } else { "acquire" });
                    q(o, scope.name());
                }
            }
        }
        Op::Atom(a) => {
            o.push_str("atom");
            rmw(o, a.sem, a.scope);
            if let Some(n) = space_name(a.space) {
                q(o, n);
            }
            q(o, atom_op(a.op));
            if a.noftz {
                q(o, "noftz");
            }
            if a.cache_hint {
                q(o, "L2::cache_hint");
            }
            if let Some(v) = a.vec {
                q(o, v.name());
            }
            q(o, a.ty.name());
        }
        Op::Red(r) => {
            o.push_str("red");
            rmw(o, r.sem, r.scope);
            if let Some(n) = space_name(r.space) {
                q(o, n);
            }
            q(o, atom_op(r.op));
            if r.noftz {
                q(o, "noftz");
            }
            if r.cache_hint {
                q(o, "L2::cache_hint");
            }
            if let Some(v) = r.vec {
                q(o, v.name());
            }
            q(o, r.ty.name());
        }
        Op::Nanosleep => o.push_str("nanosleep.u32"),
        Op::Griddepcontrol(a) => {
            o.push_str(match a {
                crate::ir::GriddepAction::LaunchDependents => "griddepcontrol.launch_dependents",
                crate::ir::GriddepAction::Wait => "griddepcontrol.wait",
            });
        }
        Op::Setmaxnreg(s) => {
            let crate::ir::Setmaxnreg {
                inc,
                sync_aligned,
                ty,
            } = s;
            o.push_str(if *inc {
                "setmaxnreg.inc"
            } else {
                "setmaxnreg.dec"
            });
            if *sync_aligned {
                o.push_str(".sync.aligned");
            }
            q(o, ty.name());
        }
        _ => {}
    }
}
