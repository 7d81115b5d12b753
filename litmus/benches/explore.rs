//! Time against allowed executions for the incremental explorer (issue 21): the family of the
//! issue (threads in different CTAs each `st x, 2i+1; ld r0, x; st x, 2i+2; ld r1, x`), IRIW
//! with more readers, and a ticket lock with more threads (also without symmetry reduction,
//! every execution built, for comparison). The README's table comes from the
//! command line on the same tests; this bench covers the sizes that finish in about a second
//! (set `EXPLORE_BENCH_LARGE=1` for the larger ones) and prints each size's counts.

use criterion::{criterion_group, criterion_main, Criterion};
use litmus::run::{run, RunOptions};

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

criterion_group!(benches, bench);
criterion_main!(benches);
