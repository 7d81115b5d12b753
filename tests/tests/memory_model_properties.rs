//! Properties of the memory models over random small litmus programs (quickcheck):
//! 1. every outcome the SC model allows, the PTX models allow;
//! 2. strengthening a qualifier (weak → relaxed → acquire/release, cta → gpu → sys) or adding
//!    a fence never adds outcomes;
//! 3. plain sequentially consistent runs (an operational interleaving with a random schedule)
//!    only produce outcomes the models allow, SC included.

use std::collections::{BTreeMap, BTreeSet};

use litmus::ast::{Expr, Inst, LocDecl, Mo, Quantifier, RmwOp, Term, Test, ThreadDecl, Val};
use litmus::run::{run, RunError, RunOptions};
use models::ptx::Model;
use models::vocab::{FenceSem, Proxy, Scope};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

const LOCS: [&str; 2] = ["x", "y"];
const SCOPES: [Scope; 3] = [Scope::Cta, Scope::Gpu, Scope::Sys];

#[derive(Clone, Debug)]
struct Prog {
    ctas: Vec<u32>,
    code: Vec<Vec<Inst>>,
}

fn pick<T: Clone>(g: &mut Gen, xs: &[T]) -> T {
    g.choose(xs).unwrap().clone()
}

impl Arbitrary for Prog {
    fn arbitrary(g: &mut Gen) -> Prog {
        let nthreads = pick(g, &[2usize, 2, 3]);
        let mut reg = 0;
        let mut val = 0;
        let mut code = Vec::new();
        let mut total = 0;
        for _ in 0..nthreads {
            let n = pick(g, &[1usize, 2, 2, 3]).min(7 - total).max(1);
            total += n;
            let mut th = Vec::new();
            for _ in 0..n {
                let loc = pick(g, &LOCS).to_string();
                let scope = pick(g, &SCOPES);
                let kind = pick(g, &[0u8, 0, 1, 1, 2, 3]);
                th.push(match kind {
                    0 => {
                        reg += 1;
                        let mo = pick(g, &[Mo::Weak, Mo::Relaxed, Mo::Acquire]);
                        Inst::Load {
                            mo,
                            scope: (mo != Mo::Weak).then_some(scope),
                            proxy: Proxy::Generic,
                            reg: format!("r{reg}"),
                            loc,
                        }
                    }
                    1 => {
                        val += 1;
                        let mo = pick(g, &[Mo::Weak, Mo::Relaxed, Mo::Release]);
                        Inst::Store {
                            mo,
                            scope: (mo != Mo::Weak).then_some(scope),
                            proxy: Proxy::Generic,
                            loc,
                            val: Val::Const(val),
                        }
                    }
                    2 => {
                        reg += 1;
                        val += 1;
                        Inst::Rmw {
                            mo: pick(g, &[Mo::Relaxed, Mo::Acquire, Mo::Release, Mo::AcqRel]),
                            scope,
                            proxy: Proxy::Generic,
                            op: pick(g, &[RmwOp::Add, RmwOp::Exch]),
                            reg: Some(format!("r{reg}")),
                            loc,
                            val: Val::Const(val),
                            val2: None,
                        }
                    }
                    _ => Inst::Fence {
                        sem: if bool::arbitrary(g) {
                            FenceSem::Sc
                        } else {
                            FenceSem::AcqRel
                        },
                        scope,
                    },
                });
            }
            code.push(th);
        }
        let ctas = (0..nthreads).map(|_| pick(g, &[0u32, 1])).collect();
        Prog { ctas, code }
    }
}

impl Prog {
    fn test(&self) -> Test {
        let mut observed: Vec<Term> = LOCS.iter().map(|l| Term::Loc(l.to_string())).collect();
        for (t, th) in self.code.iter().enumerate() {
            for i in th {
                if let Inst::Load { reg, .. } | Inst::Rmw { reg: Some(reg), .. } = i {
                    observed.push(Term::Reg(t as u32, reg.clone()));
                }
            }
        }
        Test {
            name: "random".into(),
            comments: Vec::new(),
            locations: LOCS
                .iter()
                .map(|l| (l.to_string(), LocDecl::Value(0)))
                .collect(),
            reg_init: Vec::new(),
            threads: self
                .ctas
                .iter()
                .enumerate()
                .map(|(k, &cta)| ThreadDecl {
                    id: k as u32,
                    cta,
                    gpu: 0,
                    warp: None,
                    cluster: None,
                })
                .collect(),
            code: self
                .code
                .iter()
                .map(|th| th.iter().map(|i| (i.clone(), 1)).collect())
                .collect(),
            quantifier: Quantifier::Exists,
            condition: Expr::True,
            observed,
            filter: None,
        }
    }

    /// Every strengthening of one instruction, and every insertion of one fence.
    fn strengthenings(&self) -> Vec<Prog> {
        let mut out = Vec::new();
        for t in 0..self.code.len() {
            for k in 0..self.code[t].len() {
                for s in stronger(&self.code[t][k]) {
                    let mut p = self.clone();
                    p.code[t][k] = s;
                    out.push(p);
                }
            }
            for k in 0..=self.code[t].len() {
                let mut p = self.clone();
                p.code[t].insert(
                    k,
                    Inst::Fence {
                        sem: FenceSem::Sc,
                        scope: Scope::Sys,
                    },
                );
                out.push(p);
            }
        }
        out
    }
}

fn up(s: Scope) -> Option<Scope> {
    match s {
        Scope::Cta => Some(Scope::Gpu),
        Scope::Gpu | Scope::Cluster => Some(Scope::Sys),
        Scope::Sys => None,
    }
}

fn stronger(i: &Inst) -> Vec<Inst> {
    let mut out = Vec::new();
    match i {
        Inst::Load {
            mo,
            scope,
            proxy,
            reg,
            loc,
        } => {
            let mk = |mo, scope| Inst::Load {
                mo,
                scope,
                proxy: *proxy,
                reg: reg.clone(),
                loc: loc.clone(),
            };
            match mo {
                Mo::Weak => out.push(mk(Mo::Relaxed, Some(Scope::Cta))),
                Mo::Relaxed => out.push(mk(Mo::Acquire, *scope)),
                _ => {}
            }
            if let Some(s) = scope.and_then(up) {
                out.push(mk(*mo, Some(s)));
            }
        }
        Inst::Store {
            mo,
            scope,
            proxy,
            loc,
            val,
        } => {
            let mk = |mo, scope| Inst::Store {
                mo,
                scope,
                proxy: *proxy,
                loc: loc.clone(),
                val: val.clone(),
            };
            match mo {
                Mo::Weak => out.push(mk(Mo::Relaxed, Some(Scope::Cta))),
                Mo::Relaxed => out.push(mk(Mo::Release, *scope)),
                _ => {}
            }
            if let Some(s) = scope.and_then(up) {
                out.push(mk(*mo, Some(s)));
            }
        }
        Inst::Rmw { mo, scope, .. } => {
            let mut with = |m: Mo, s: Scope| {
                let mut c = i.clone();
                if let Inst::Rmw { mo, scope, .. } = &mut c {
                    *mo = m;
                    *scope = s;
                }
                out.push(c);
            };
            if matches!(mo, Mo::Relaxed | Mo::Acquire | Mo::Release) {
                with(Mo::AcqRel, *scope);
            }
            if let Some(s) = up(*scope) {
                with(*mo, s);
            }
        }
        Inst::Fence { sem, scope } => {
            if *sem != FenceSem::Sc {
                out.push(Inst::Fence {
                    sem: FenceSem::Sc,
                    scope: *scope,
                });
            }
            if let Some(s) = up(*scope) {
                out.push(Inst::Fence {
                    sem: *sem,
                    scope: s,
                });
            }
        }
        _ => {}
    }
    out
}

/// The outcomes the model allows, by the reference enumeration: these properties are laws
/// of the models, and the explorer is compared with the reference elsewhere
/// (`litmus/tests/explore_same_answers.rs`, whose `chained_read_modify_writes_are_explored_quickly`
/// keeps the random program here that once made the explorer run for minutes).
fn outcomes(p: &Prog, model: Model) -> Option<BTreeSet<Vec<i64>>> {
    let r = run(
        &p.test(),
        &RunOptions {
            model,
            engine: litmus::run::Engine::Enumerate,
            max_candidates: CANDIDATE_BUDGET,
            ..RunOptions::default()
        },
    );
    match r {
        Ok(r) => Some(r.states.keys().cloned().collect()),
        Err(RunError::Budget(_) | RunError::CoherenceChoices) => None,
        Err(e) => panic!("a random program does not run: {e}"),
    }
}

/// The reference enumeration's budget per program: a rare random program (chained
/// read-modify-writes) has tens of millions of candidates and ran for many minutes; such a
/// program is discarded (quickcheck draws another), never judged on part of its candidates.
const CANDIDATE_BUDGET: u64 = 2_000_000;

#[test]
fn sc_outcomes_are_ptx_outcomes() {
    fn prop(p: Prog) -> TestResult {
        let (Some(sc), Some(v75), Some(v60)) = (
            outcomes(&p, Model::Sc),
            outcomes(&p, Model::PtxV75),
            outcomes(&p, Model::PtxV60),
        ) else {
            return TestResult::discard();
        };
        TestResult::from_bool(!sc.is_empty() && sc.is_subset(&v75) && sc.is_subset(&v60))
    }
    QuickCheck::new()
        .tests(150)
        .quickcheck(prop as fn(Prog) -> TestResult);
}

#[test]
fn strengthening_never_adds_outcomes() {
    fn prop(p: Prog) -> TestResult {
        for model in [Model::PtxV75, Model::PtxV60] {
            let Some(base) = outcomes(&p, model) else {
                return TestResult::discard();
            };
            for s in p.strengthenings() {
                let Some(o) = outcomes(&s, model) else {
                    return TestResult::discard();
                };
                if !o.is_subset(&base) {
                    eprintln!(
                        "{model:?}: strengthening\n{:?}\ninto\n{:?}\nadds {:?}",
                        p.code,
                        s.code,
                        o.difference(&base).collect::<Vec<_>>()
                    );
                    return TestResult::failed();
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Prog) -> TestResult);
}

/// A sequentially consistent interleaving of the program under a pseudo-random schedule: the
/// final values of the observed terms, in `Prog::test`'s order.
fn interleave(p: &Prog, mut seed: u64) -> Vec<i64> {
    let mut mem: BTreeMap<String, i64> = LOCS.iter().map(|l| (l.to_string(), 0)).collect();
    let mut regs: Vec<BTreeMap<String, i64>> = vec![BTreeMap::new(); p.code.len()];
    let mut pc = vec![0usize; p.code.len()];
    loop {
        let live: Vec<usize> = (0..p.code.len())
            .filter(|&t| pc[t] < p.code[t].len())
            .collect();
        if live.is_empty() {
            break;
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let t = live[(seed >> 33) as usize % live.len()];
        match &p.code[t][pc[t]] {
            Inst::Load { reg, loc, .. } => {
                regs[t].insert(reg.clone(), mem[loc]);
            }
            Inst::Store {
                loc,
                val: Val::Const(v),
                ..
            } => {
                mem.insert(loc.clone(), *v);
            }
            Inst::Rmw {
                reg,
                loc,
                op,
                val: Val::Const(v),
                ..
            } => {
                let old = mem[loc];
                let new = if *op == RmwOp::Add { old + v } else { *v };
                mem.insert(loc.clone(), new);
                if let Some(r) = reg {
                    regs[t].insert(r.clone(), old);
                }
            }
            _ => {}
        }
        pc[t] += 1;
    }
    p.test()
        .observed
        .iter()
        .map(|term| match term {
            Term::Loc(l) => mem[l],
            Term::Reg(t, r) => regs[*t as usize].get(r).copied().unwrap_or(0),
            Term::Const(c) => *c,
        })
        .collect()
}

#[test]
fn interleaved_runs_are_allowed() {
    fn prop(p: Prog, seeds: Vec<u64>) -> TestResult {
        let (Some(sc), Some(v75)) = (outcomes(&p, Model::Sc), outcomes(&p, Model::PtxV75)) else {
            return TestResult::discard();
        };
        TestResult::from_bool(seeds.iter().take(8).all(|&s| {
            let o = interleave(&p, s);
            sc.contains(&o) && v75.contains(&o)
        }))
    }
    QuickCheck::new()
        .tests(150)
        .quickcheck(prop as fn(Prog, Vec<u64>) -> TestResult);
}
