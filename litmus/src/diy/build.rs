//! A checked cycle as a litmus test in ptxemu's dialect.
//!
//! Each thread runs its events in program order: a read is `ld{.sem.scope} rK, loc`, a write
//! `st{.sem.scope} loc, value`, the two halves of an atom one `atom.sem.scope.exch rK, loc,
//! value` (its semantics from the halves: acquire read and release write make `acq_rel`). A
//! fence edge puts `fence.sem.scope` between its accesses; a data dependency computes the
//! written value from the read (`sub rT, rK, rK; add rT, rT, value`); a control dependency
//! branches on the read to the next instruction (`beq rK, rK, LCnn; LCnn:`). An access through
//! the texture, surface or constant proxy goes through a virtual alias of its location
//! (`x_sur @ surface aliases x`) with `tld`/`suld`/`sust`/`cold`. The condition asks every
//! value the cycle fixes (`exists`), and the header's quoted comment is the canonical cycle.
//!
//! On hardware a dependency computed this way can be folded away by ptxas (the harness runs
//! the instructions as written, through inline PTX, but ptxas still optimises them); the
//! model sees it, whatever the GPU does.

use std::collections::BTreeSet;

use models::vocab::{Proxy, Scope};

use super::cycle::{location_name, Cycle, Half};
use super::edge::{proxy_word, Dep, Dir, EdgeKind, Sem};
use crate::ast::{ArithOp, ThreadDecl, Val};
use crate::ast::{BranchCmp, CmpOp, Expr, Inst, LocDecl, Mo, Quantifier, RmwOp, Term, Test};

/// The dialect's order and scope of an access's semantics.
fn mo(sem: Sem) -> (Mo, Option<Scope>) {
    match sem {
        Sem::Weak => (Mo::Weak, None),
        Sem::Volatile => (Mo::Volatile, None),
        Sem::Relaxed(s) => (Mo::Relaxed, Some(s)),
        Sem::Acquire(s) => (Mo::Acquire, Some(s)),
        Sem::Release(s) => (Mo::Release, Some(s)),
    }
}

/// The name an access through `proxy` uses for location `loc`.
fn location_through(loc: usize, proxy: Proxy) -> String {
    match proxy {
        Proxy::Generic => location_name(loc),
        p => format!("{}_{}", location_name(loc), proxy_word(p)),
    }
}

/// The litmus test of `cycle`, named `name`.
pub fn test_of(cycle: &Cycle, name: &str) -> Test {
    let events = cycle.events();
    let edges = cycle.edges();
    let n = events.len();
    // Locations, then the aliases the proxies need.
    let mut locations: Vec<(String, LocDecl)> = (0..cycle.locations())
        .map(|k| (location_name(k), LocDecl::Value(0)))
        .collect();
    let aliases: BTreeSet<(usize, Proxy)> = events
        .iter()
        .filter(|e| e.ann.proxy != Proxy::Generic)
        .map(|e| (e.loc, e.ann.proxy))
        .collect();
    for (loc, proxy) in aliases {
        locations.push((
            location_through(loc, proxy),
            LocDecl::Alias {
                proxy,
                target: location_name(loc),
            },
        ));
    }
    let clusters = cycle.uses_clusters();
    let threads: Vec<ThreadDecl> = cycle
        .positions()
        .iter()
        .enumerate()
        .map(|(t, p)| ThreadDecl {
            id: t as u32,
            cta: p.cta,
            gpu: p.gpu,
            warp: None,
            cluster: clusters.then_some(p.cluster),
        })
        .collect();
    let mut code: Vec<Vec<(Inst, u32)>> = Vec::new();
    let mut reads: Vec<(u32, String, i64)> = Vec::new();
    for (t, evs) in cycle.thread_events().iter().enumerate() {
        let mut out: Vec<Inst> = Vec::new();
        // The register each read of the thread loads into, by event.
        let mut reg_of: Vec<Option<String>> = vec![None; n];
        let mut next_reg = 0;
        let fresh = |next_reg: &mut usize| {
            *next_reg += 1;
            format!("r{}", *next_reg - 1)
        };
        let mut labels = 0;
        for (k, &i) in evs.iter().enumerate() {
            let e = events[i];
            let incoming = (k > 0).then(|| edges[evs[k - 1]].kind);
            let mut value = Val::Const(e.value.unwrap_or(0));
            match incoming {
                Some(EdgeKind::Fence(sem, Some(scope), ..)) => out.push(Inst::Fence { sem, scope }),
                Some(EdgeKind::Dp(Dep::Ctrl, ..)) => {
                    let r = reg_of[evs[k - 1]].clone().unwrap_or_default();
                    let label = format!("LC{t}{labels}");
                    labels += 1;
                    out.push(Inst::Branch {
                        cmp: BranchCmp::Eq,
                        a: Val::Reg(r.clone()),
                        b: Val::Reg(r),
                        label: label.clone(),
                    });
                    out.push(Inst::Label(label));
                }
                Some(EdgeKind::Dp(Dep::Data, ..)) if e.dir == Dir::W => {
                    let r = reg_of[evs[k - 1]].clone().unwrap_or_default();
                    let tmp = fresh(&mut next_reg);
                    out.push(Inst::Arith {
                        op: ArithOp::Sub,
                        reg: tmp.clone(),
                        a: Val::Reg(r.clone()),
                        b: Val::Reg(r),
                    });
                    out.push(Inst::Arith {
                        op: ArithOp::Add,
                        reg: tmp.clone(),
                        a: Val::Reg(tmp.clone()),
                        b: value,
                    });
                    value = Val::Reg(tmp);
                }
                // Program order, communication inside the thread and an atom's halves need no
                // instruction of their own; a data dependency ends at a write (the syntax
                // refuses `DpDatadR`), an address dependency and a fence without a scope never
                // reach a test (`Cycle::new` refuses them).
                Some(
                    EdgeKind::Po(..)
                    | EdgeKind::Com(..)
                    | EdgeKind::Rmw
                    | EdgeKind::Dp(Dep::Data | Dep::Addr, ..)
                    | EdgeKind::Fence(_, None, ..),
                )
                | None => {}
            }
            let loc = location_through(e.loc, e.ann.proxy);
            match (e.rmw, e.dir) {
                (Some(Half::Write), _) => {}
                (Some(Half::Read), _) => {
                    let w = events[(i + 1) % n];
                    let (rm, scope) = mo(e.ann.sem);
                    let (wm, _) = mo(w.ann.sem);
                    let order = match (rm, wm) {
                        (Mo::Acquire, Mo::Release) => Mo::AcqRel,
                        (Mo::Acquire, _) => Mo::Acquire,
                        (_, Mo::Release) => Mo::Release,
                        _ => Mo::Relaxed,
                    };
                    let reg = fresh(&mut next_reg);
                    if let Some(v) = e.value {
                        reads.push((t as u32, reg.clone(), v));
                    }
                    reg_of[i] = Some(reg.clone());
                    out.push(Inst::Rmw {
                        mo: order,
                        scope: scope.unwrap_or(Scope::Gpu),
                        proxy: e.ann.proxy,
                        op: RmwOp::Exch,
                        reg: Some(reg),
                        loc,
                        val: Val::Const(w.value.unwrap_or(0)),
                        val2: None,
                    });
                }
                (None, Dir::R) => {
                    let (m, scope) = mo(e.ann.sem);
                    let reg = fresh(&mut next_reg);
                    if let Some(v) = e.value {
                        reads.push((t as u32, reg.clone(), v));
                    }
                    reg_of[i] = Some(reg.clone());
                    out.push(Inst::Load {
                        mo: m,
                        scope,
                        proxy: e.ann.proxy,
                        reg,
                        loc,
                    });
                }
                (None, Dir::W) => {
                    let (m, scope) = mo(e.ann.sem);
                    out.push(Inst::Store {
                        mo: m,
                        scope,
                        proxy: e.ann.proxy,
                        loc,
                        val: value,
                    });
                }
            }
        }
        code.push(out.into_iter().map(|i| (i, 0)).collect());
    }
    let mut terms: Vec<Expr> = reads
        .into_iter()
        .map(|(t, r, v)| Expr::Cmp(Term::Reg(t, r), CmpOp::Eq, Term::Const(v)))
        .collect();
    terms.extend(
        cycle
            .finals()
            .iter()
            .map(|&(loc, v)| Expr::Cmp(Term::Loc(location_name(loc)), CmpOp::Eq, Term::Const(v))),
    );
    let condition = terms
        .into_iter()
        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)))
        .unwrap_or(Expr::True);
    Test {
        name: name.to_string(),
        comments: vec![cycle.to_string()],
        locations,
        reg_init: Vec::new(),
        threads,
        code,
        quantifier: Quantifier::Exists,
        condition,
        observed: Vec::new(),
        filter: None,
    }
}
