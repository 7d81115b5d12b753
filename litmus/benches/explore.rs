//! Time against allowed executions for the incremental explorer (issue 21): the family of the
//! issue (threads in different CTAs each `st x, 2i+1; ld r0, x; st x, 2i+2; ld r1, x`), IRIW
//! with more readers, and a ticket lock with more threads (also without symmetry reduction,
//! every execution built, for comparison). The README's table comes from the
//! command line on the same tests; this bench covers the sizes that finish in about a second
//! (set `EXPLORE_BENCH_LARGE=1` for the larger ones) and prints each size's counts.

use criterion::{criterion_group, criterion_main, Criterion};
use litmus::explore::universe;
use litmus::run::{prepare, run, thread_paths, usable_paths, RunOptions};
use models::explore::{explore, Brakes, Leaf, Sink, Universe};
use models::rel::Rel;
use models::Next;

#[path = "../tests/support/mod.rs"]
mod support;
use support::{family, iriw, ticket};

/// A scaled test of the curves, parsed.
fn parsed(src: String) -> litmus::ast::Test {
    litmus::parse(&src).expect("a generated test parses")
}

fn bench(c: &mut Criterion) {
    let large = std::env::var_os("EXPLORE_BENCH_LARGE").is_some();
    let mut cases = vec![
        family(2),
        family(3),
        iriw(2),
        iriw(3),
        iriw(4),
        ticket(2),
        ticket(3),
        ticket(4),
        ticket(5),
    ];
    if large {
        cases.extend([family(4), iriw(5), iriw(6), ticket(6)]);
    }
    let cases: Vec<litmus::ast::Test> = cases.into_iter().map(parsed).collect();
    let ro = RunOptions::default();
    let mut g = c.benchmark_group("explore");
    g.sample_size(10);
    for t in &cases {
        let r = run(t, &ro).expect("runs");
        eprintln!(
            "{}: {} allowed, {} judged, {} partial",
            t.name, r.allowed, r.candidates, r.explored
        );
        g.bench_function(format!("{}-{}-allowed", t.name, r.allowed), |b| {
            b.iter(|| run(t, &ro).expect("runs"))
        });
    }
    // The ticket lock without symmetry reduction, every execution built (the cost it saves).
    let whole = RunOptions {
        symmetry: false,
        ..RunOptions::default()
    };
    for n in [3, 4] {
        let t = parsed(ticket(n));
        g.bench_function(format!("{}-every-execution-built", t.name), |b| {
            b.iter(|| run(&t, &whole).expect("runs"))
        });
    }
    g.finish();
}

/// A sink that only counts the allowed executions.
struct Count(u64);

impl Sink for Count {
    fn syncbars(&mut self, _: &[u32], _: &[Vec<usize>], n: usize) -> Vec<Rel> {
        vec![Rel::empty(n)]
    }
    fn visit(&mut self, _: &Universe, leaf: &Leaf<'_>) -> Next {
        if leaf.verdict.is_ok() {
            self.0 += 1;
        }
        Next::Continue
    }
}

/// The ticket lock's search alone, with symmetry reduction: the universe built once, then
/// explored with a sink that only counts. This is the part of a run that grows with the
/// executions; a run adds parsing, the threads' paths and the universe (start-up), and each
/// execution's states.
fn search(c: &mut Criterion) {
    let ro = RunOptions::default();
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    for n in 2..=5 {
        let t = parsed(ticket(n));
        let p = prepare(&t).expect("prepares");
        let all = thread_paths(&p, false, ro.limits).expect("paths");
        let per = usable_paths(&all, false);
        let mut u = universe(&p, &per);
        u.symmetric = true;
        let go = || {
            explore(&u, ro.model, ro.opts, 1, Brakes::default(), None, &|| {
                Count(0)
            })
        };
        let allowed: u64 = go().sinks.iter().map(|s| s.0).sum();
        g.bench_function(format!("{}-{allowed}-allowed", t.name), |b| b.iter(go));
    }
    g.finish();
}

criterion_group!(benches, bench, search);
criterion_main!(benches);
