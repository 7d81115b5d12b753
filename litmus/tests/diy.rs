//! Checked generation (issue 35, item 2): every generated test's verdict under every model is
//! the reference enumerator's (`Engine::Enumerate`, which judges every candidate execution);
//! the classic shapes written with the library's annotations get the verdicts worked out by
//! hand for the library (`tests/library/expected.csv`); and properties over random cycles:
//! the test parses back, the cycle prints back, and a stronger annotation never allows more.

use std::path::Path;

use litmus::diy::edge::{Ann, Dir, Edge, EdgeKind, Sem};
use litmus::diy::enumerate::{enumerate, expand, Choices};
use litmus::diy::pattern::{EdgePattern, SemKind};
use litmus::diy::syntax::parse_patterns;
use litmus::diy::verdict::{verdict, Verdict};
use litmus::diy::{generate, Cycle, Generated};
use litmus::run::{run, Engine, RunError, RunOptions};
use models::ptx::Model;
use models::vocab::Scope;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

const MODELS: [Model; 3] = [Model::PtxV75, Model::PtxV60, Model::Sc];

/// The reference enumerator's verdict, or `None` when it gives up (too many candidates).
fn reference(g: &Generated, model: Model) -> Option<Verdict> {
    let ro = RunOptions {
        model,
        engine: Engine::Enumerate,
        ..RunOptions::default()
    };
    match run(&g.test, &ro) {
        Ok(r) if r.holds => Some(Verdict::Allowed),
        Ok(_) => Some(Verdict::Forbidden),
        Err(RunError::Budget(_) | RunError::CoherenceChoices) => None,
        Err(e) => Some(Verdict::Undecided(e.to_string())),
    }
}

/// Checks every test against the reference under every model; returns how many were compared.
fn same_as_reference(tests: &[Generated]) -> usize {
    let mut bad = Vec::new();
    let mut compared = 0;
    for g in tests {
        for m in MODELS {
            let Some(want) = reference(g, m) else {
                continue;
            };
            compared += 1;
            let got = verdict(&g.test, m);
            if got != want {
                bad.push(format!(
                    "{} under {}: generated {got:?}, reference {want:?}\n{}",
                    g.name,
                    m.name(),
                    g.text
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{} differ:\n{}", bad.len(), bad.join("\n"));
    compared
}

fn alphabet(s: &str) -> Vec<EdgePattern> {
    parse_patterns(s)
        .unwrap()
        .into_iter()
        .map(|w| w.edge)
        .collect()
}

/// Every `step`-th test of an enumeration (a fixed sample, spread over all of it).
fn sample(cycles: &[Cycle], step: usize) -> Vec<Generated> {
    cycles.iter().step_by(step).map(generate).collect()
}

#[test]
fn two_thread_tests_over_semantics_scopes_and_placements_get_the_references_verdicts() {
    let choices = Choices {
        sems: vec![
            SemKind::Weak,
            SemKind::Relaxed,
            SemKind::Acquire,
            SemKind::Release,
        ],
        scopes: vec![Scope::Cta, Scope::Gpu],
        placements: vec![Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys],
    };
    let e = enumerate(
        &alphabet("Rfe Fre Coe PodWW PodWR PodRW PodRR"),
        4,
        2,
        &choices,
        true,
        true,
        1_000_000,
    )
    .unwrap();
    assert!(e.cycles.len() > 5_000, "{}", e.cycles.len());
    let n = same_as_reference(&sample(&e.cycles, 23));
    assert!(n >= 3 * 200, "{n}");
}

#[test]
fn fences_dependencies_atoms_and_internal_edges_get_the_references_verdicts() {
    let choices = Choices {
        sems: vec![SemKind::Relaxed, SemKind::Acquire, SemKind::Release],
        scopes: vec![Scope::Cta, Scope::Gpu],
        placements: vec![Scope::Cta, Scope::Gpu],
    };
    let e = enumerate(
        &alphabet(
            "Rfe Fre Coe Rfi Fri Coi PodWW PodWR PodRW PodRR DpDatadW DpCtrldR DpCtrldW Fence.scdWR Fence.acq_reldWW Fence.acq_reldRR Rmw",
        ),
        5,
        3,
        &choices,
        false,
        true,
        1_000_000,
    )
    .unwrap();
    assert!(e.cycles.len() > 1_000, "{}", e.cycles.len());
    let n = same_as_reference(&sample(&e.cycles, 5));
    assert!(n >= 3 * 150, "{n}");
    // And with annotations, on a smaller alphabet of three threads.
    let e = enumerate(
        &alphabet("Rfe Fre PodWW PodRW PodRR Rmw"),
        5,
        3,
        &Choices {
            scopes: vec![Scope::Gpu],
            ..choices
        },
        true,
        false,
        1_000_000,
    )
    .unwrap();
    let n = same_as_reference(&sample(&e.cycles, 2));
    assert!(n >= 3 * 40, "{n}");
}

#[test]
fn proxies_and_volatile_accesses_get_the_references_verdicts() {
    let mut tests = Vec::new();
    for t in [
        "PodWW[w,rel.gpu] Rfe PodRR[acq.gpu,*.sur] Fre",
        "PodWW[*.tex,rel.gpu] Rfe PodRR[acq.gpu,w.tex] Fre",
        "PodWW[vol] Rfe@* PodRR[vol] Fre@*",
        "PodWR[vol,*] Fre@* PodWR[vol,*] Fre@*",
        "Rfe[*.sur,] PosRR[acq.gpu,w.sur] Fre",
    ] {
        let e = expand(
            &parse_patterns(t).unwrap(),
            &Choices {
                sems: vec![SemKind::Weak, SemKind::Relaxed, SemKind::Volatile],
                scopes: vec![Scope::Cta, Scope::Sys],
                placements: vec![Scope::Cta, Scope::Gpu, Scope::Sys],
            },
            10_000,
        )
        .unwrap();
        tests.extend(e.cycles.iter().map(generate));
    }
    assert!(tests.len() >= 40, "{}", tests.len());
    same_as_reference(&tests);
}

/// The classic shapes, written as cycles with the annotations and placements of the
/// library's hand-written tests, with the library test each mirrors.
const CLASSICS: [(&str, &str); 28] = [
    ("PodWW Rfe PodRR Fre", "MP+weak"),
    ("PodWW[rlx.gpu] Rfe PodRR[rlx.gpu] Fre", "MP+rlx"),
    (
        "PodWW[w,rel.gpu] Rfe PodRR[acq.gpu,w] Fre",
        "MP+rel+acq-gpu",
    ),
    (
        "PodWW[w,rel.cta] Rfe PodRR[acq.cta,w] Fre",
        "MP+rel+acq-cta-diff-cta",
    ),
    (
        "PodWW[w,rel.cta] Rfe@cta PodRR[acq.cta,w] Fre@cta",
        "MP+rel+acq-cta-same-cta",
    ),
    (
        "PodWW[w,rel.gpu] Rfe@sys PodRR[acq.gpu,w] Fre@sys",
        "MP+rel+acq-gpu-diff-gpu",
    ),
    (
        "PodWW[w,rel.sys] Rfe@sys PodRR[acq.sys,w] Fre@sys",
        "MP+rel+acq-sys-diff-gpu",
    ),
    (
        "Fence.acq_rel.gpudWW[w,rlx.gpu] Rfe Fence.acq_rel.gpudRR[rlx.gpu,w] Fre",
        "MP+fences",
    ),
    ("PodWR[rlx.gpu] Fre PodWR[rlx.gpu] Fre", "SB+rlx"),
    (
        "Fence.sc.gpudWR[rlx.gpu] Fre Fence.sc.gpudWR[rlx.gpu] Fre",
        "SB+fence.sc-gpu",
    ),
    (
        "Fence.sc.ctadWR[rlx.gpu] Fre Fence.sc.ctadWR[rlx.gpu] Fre",
        "SB+fence.sc-cta-diff-cta",
    ),
    (
        "Fence.acq_rel.gpudWR[rlx.gpu] Fre Fence.acq_rel.gpudWR[rlx.gpu] Fre",
        "SB+fence.acq_rel",
    ),
    ("PodRW[rlx.gpu] Rfe PodRW[rlx.gpu] Rfe", "LB+rlx"),
    (
        "PodRW[acq.gpu,rel.gpu] Rfe PodRW[acq.gpu,rel.gpu] Rfe",
        "LB+acq+rel",
    ),
    ("DpDatadW[rlx.gpu] Rfe DpDatadW[rlx.gpu] Rfe", "LB+data"),
    (
        "Rfe[rlx.gpu,] PodRR[acq.gpu] Fre Rfe[rlx.gpu,] PodRR[acq.gpu] Fre",
        "IRIW+acq",
    ),
    (
        "Rfe[rlx.gpu,] Fence.sc.gpudRR[rlx.gpu] Fre Rfe[rlx.gpu,] Fence.sc.gpudRR[rlx.gpu] Fre",
        "IRIW+fence.sc",
    ),
    (
        "Rfe[rlx.gpu,] PodRW[acq.gpu,rel.gpu] Rfe PodRR[acq.gpu,rlx.gpu] Fre",
        "WRC+rel+acq",
    ),
    (
        "Rfe[rlx.gpu,] PodRW[rlx.gpu] Rfe PodRR[rlx.gpu] Fre",
        "WRC+rlx",
    ),
    (
        "PodWW[w,rel.gpu] Rfe PodRW[acq.gpu,rel.gpu] Rfe PodRR[acq.gpu,w] Fre",
        "ISA2+rel+acq",
    ),
    ("PodWW[rlx.gpu] Coe PodWW[rlx.gpu] Coe", "2+2W+rlx"),
    (
        "PodWW[rlx.gpu,rel.gpu] Coe PodWW[rlx.gpu,rel.gpu] Coe",
        "2+2W+rel",
    ),
    (
        "Fence.sc.gpudWW[rlx.gpu] Coe Fence.sc.gpudWW[rlx.gpu] Coe",
        "2+2W+fence.sc",
    ),
    (
        "Fence.sc.gpudWW[rlx.gpu] Coe Fence.sc.gpudWR[rlx.gpu] Fre",
        "R+fence.sc",
    ),
    ("PodWW[rlx.gpu] Coe PodWR[rlx.gpu] Fre", "R+rlx"),
    (
        "PodWW[rlx.gpu,rel.gpu] Rfe PodRW[acq.gpu,rlx.gpu] Coe",
        "S+rel+acq",
    ),
    ("Rfe[rlx.gpu,] PosRR[rlx.gpu] Fre", "CoRR+rlx"),
    ("Rfe PosRR Fre", "CoRR+weak"),
];

/// The library's hand-worked verdicts (1: the condition holds under ptx-v7.5).
fn library_expectations() -> Vec<(String, bool)> {
    let csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/library/expected.csv");
    std::fs::read_to_string(csv)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .map(|l| {
            let (path, v) = l.rsplit_once(',').unwrap();
            let stem = Path::new(path).file_stem().unwrap().to_string_lossy();
            (stem.into_owned(), v.trim() == "1")
        })
        .collect()
}

#[test]
fn generated_classics_get_the_librarys_hand_worked_verdicts() {
    let expected = library_expectations();
    let mut bad = Vec::new();
    for (cycle, lib) in CLASSICS {
        let holds = expected
            .iter()
            .find(|(n, _)| n == lib)
            .unwrap_or_else(|| panic!("{lib} is not in the library's expected.csv"))
            .1;
        let g = generate(&Cycle::parse(cycle).unwrap());
        let want = if holds {
            Verdict::Allowed
        } else {
            Verdict::Forbidden
        };
        let got = verdict(&g.test, Model::PtxV75);
        if got != want {
            bad.push(format!(
                "{lib} ({cycle}): generated {got:?}, library {want:?}\n{}",
                g.text
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Properties over random cycles.

/// A random checked cycle: edges drawn from an alphabet with directions that meet, random
/// annotations and placements; drawn again until it describes a test.
#[derive(Clone, Debug)]
struct RandomCycle(Cycle);

fn pick<T: Copy>(g: &mut Gen, xs: &[T]) -> T {
    *g.choose(xs).unwrap()
}

fn random_ann(g: &mut Gen, d: Dir, atom: bool) -> Option<Ann> {
    let scope = pick(g, &Scope::ALL);
    let sems: Vec<Sem> = [
        Sem::Weak,
        Sem::Volatile,
        Sem::Relaxed(scope),
        Sem::Acquire(scope),
        Sem::Release(scope),
    ]
    .into_iter()
    .filter(|s| s.fits(d) && (!atom || !matches!(s, Sem::Weak | Sem::Volatile)))
    .collect();
    if bool::arbitrary(g) && !atom {
        return None;
    }
    Some(Ann::generic(pick(g, &sems)))
}

impl Arbitrary for RandomCycle {
    fn arbitrary(g: &mut Gen) -> RandomCycle {
        let kinds = alphabet(
            "Rfe Fre Coe Rfi Fri Coi PodWW PodWR PodRW PodRR PosWW PosWR PosRW PosRR DpDatadW DpCtrldR DpCtrldW Fence.sc.gpudWR Fence.acq_rel.ctadWW Fence.acquire.sysdRR Fence.release.gpudWW Rmw",
        );
        for _ in 0..200 {
            let len = 2 + usize::from(u8::arbitrary(g)) % 6;
            let mut edges: Vec<Edge> = Vec::new();
            for k in 0..len {
                let fitting: Vec<EdgeKind> = kinds
                    .iter()
                    .map(|e| e.kind)
                    .filter(|e| k == 0 || e.src() == edges[k - 1].kind.tgt())
                    .collect();
                edges.push(Edge::plain(pick(g, &fitting)));
            }
            let n = edges.len();
            for i in 0..n {
                let atom =
                    edges[i].kind == EdgeKind::Rmw || edges[(i + n - 1) % n].kind == EdgeKind::Rmw;
                edges[i].src = random_ann(g, edges[i].kind.src(), atom);
                if edges[i].kind.is_external() && bool::arbitrary(g) {
                    edges[i].place = Some(pick(g, &Scope::ALL));
                }
            }
            if let Ok(c) = Cycle::from_edges(&edges) {
                return RandomCycle(c);
            }
        }
        RandomCycle(Cycle::parse("PodWW Rfe PodRR Fre").unwrap())
    }
}

/// The test with every source line set to 0 (a parsed test carries its lines).
fn without_lines(mut t: litmus::ast::Test) -> litmus::ast::Test {
    for code in &mut t.code {
        for (_, line) in code.iter_mut() {
            *line = 0;
        }
    }
    t
}

#[test]
fn random_cycles_parse_back_and_print_back() {
    fn prop(c: RandomCycle) -> TestResult {
        let c = c.0;
        let text = c.to_string();
        let again = Cycle::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text)));
        assert_eq!(again, c, "{text}");
        let g = generate(&c);
        let parsed = litmus::parse(&g.text).unwrap_or_else(|e| panic!("{e}\n{}", g.text));
        assert_eq!(without_lines(parsed.clone()), g.test, "{}", g.text);
        assert_eq!(Cycle::parse(&parsed.comments[0]).unwrap(), c);
        assert_eq!(litmus::print::dialect(&parsed), g.text);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(RandomCycle) -> TestResult);
}

/// How strong an access's semantics is: (0 weak | 1 relaxed | 2 acquire or release, scope),
/// volatile being relaxed at system scope.
fn strength(s: Sem) -> (u8, Option<Scope>) {
    match s {
        Sem::Weak => (0, None),
        Sem::Volatile => (1, Some(Scope::Sys)),
        Sem::Relaxed(x) => (1, Some(x)),
        Sem::Acquire(x) | Sem::Release(x) => (2, Some(x)),
    }
}

/// The annotations strictly stronger than `a` for an access of direction `d`: at least as
/// strong a kind at a scope at least as wide, and not the same.
fn stronger(a: Ann, d: Dir) -> Vec<Ann> {
    let (rank, scope) = strength(a.sem);
    let mut out = Vec::new();
    for x in Scope::ALL {
        for sem in [
            Sem::Relaxed(x),
            Sem::Acquire(x),
            Sem::Release(x),
            Sem::Volatile,
        ] {
            let (r, s) = strength(sem);
            if sem.fits(d) && r >= rank && (rank == 0 || s >= scope) && (r, s) != (rank, scope) {
                let b = Ann {
                    sem,
                    proxy: a.proxy,
                };
                if !out.contains(&b) {
                    out.push(b);
                }
            }
        }
    }
    out
}

#[test]
fn a_stronger_annotation_never_allows_more() {
    fn prop(c: RandomCycle, which: u8, how: u8) -> TestResult {
        let c = c.0;
        let n = c.events().len();
        let i = usize::from(which) % n;
        let e = c.events()[i];
        if e.rmw.is_some() {
            return TestResult::discard();
        }
        let options = stronger(e.ann, e.dir);
        if options.is_empty() {
            return TestResult::discard();
        }
        let strong = options[usize::from(how) % options.len()];
        // The same cycle with event i's annotation replaced: every event annotated on its
        // outgoing edge.
        let edges: Vec<Edge> = c
            .edges()
            .iter()
            .enumerate()
            .map(|(k, edge)| Edge {
                src: Some(if k == i { strong } else { c.events()[k].ann }),
                tgt: None,
                ..*edge
            })
            .collect();
        let Ok(s) = Cycle::from_edges(&edges) else {
            return TestResult::discard();
        };
        let (weak, firm) = (generate(&c), generate(&s));
        for m in [Model::PtxV75, Model::PtxV60] {
            let (a, b) = (verdict(&weak.test, m), verdict(&firm.test, m));
            if a == Verdict::Forbidden && b == Verdict::Allowed {
                panic!(
                    "under {}, strengthening event {i} to `{strong}` allows more:\n{}\n{}",
                    m.name(),
                    weak.text,
                    firm.text
                );
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(RandomCycle, u8, u8) -> TestResult);
}

#[test]
fn random_cycles_get_the_references_verdicts() {
    fn prop(c: RandomCycle) -> TestResult {
        same_as_reference(&[generate(&c.0)]);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(RandomCycle) -> TestResult);
}

#[test]
fn an_enumeration_names_each_test_once() {
    let e = enumerate(
        &alphabet("Rfe Fre Coe Rfi PodWW PodWR PodRW PodRR Fence.scdWR DpDatadW Rmw"),
        5,
        3,
        &Choices {
            sems: vec![SemKind::Relaxed, SemKind::Acquire, SemKind::Release],
            scopes: vec![Scope::Cta, Scope::Gpu],
            placements: vec![Scope::Cta, Scope::Gpu],
        },
        true,
        true,
        2_000_000,
    )
    .unwrap();
    let mut names = std::collections::HashSet::new();
    for c in &e.cycles {
        let n = litmus::diy::name::test_name(c);
        assert!(names.insert(n.clone()), "{n} twice");
    }
    assert!(names.len() > 10_000, "{}", names.len());
}
