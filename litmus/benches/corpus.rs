//! The whole Dat3M PTX corpus end to end (parse, lower, explore, judge), and the same split by
//! thread count, to show how cost grows. Targets (issue 4): whole corpus ≤ 20 s on 2 cores,
//! median test ≤ 5 ms.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use litmus::run::{run, RunOptions};

fn corpus() -> Vec<(PathBuf, litmus::ast::Test)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/dat3m-ptx/litmus/PTX");
    litmus::litmus_files(&root)
        .expect("the corpus beside the repository")
        .into_iter()
        .map(|f| {
            let t = litmus::parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
            (f, t)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let tests = corpus();
    let ro = RunOptions::default();
    let sources: Vec<String> = tests
        .iter()
        .map(|(f, _)| std::fs::read_to_string(f).unwrap())
        .collect();
    let mut g = c.benchmark_group("corpus");
    g.sample_size(10);
    g.bench_function(format!("all-{}-files-parse-and-run", tests.len()), |b| {
        b.iter(|| {
            for s in &sources {
                let t = litmus::parse(s).unwrap();
                run(&t, &ro).unwrap();
            }
        })
    });
    for n in 1..=4 {
        let subset: Vec<_> = tests.iter().filter(|(_, t)| t.threads.len() == n).collect();
        if subset.is_empty() {
            continue;
        }
        g.bench_function(format!("threads-{n}-({}-files)", subset.len()), |b| {
            b.iter(|| {
                for (_, t) in &subset {
                    run(t, &ro).unwrap();
                }
            })
        });
    }
    let mut liveness = ro;
    liveness.liveness = true;
    g.bench_function("all-liveness", |b| {
        b.iter(|| {
            for (_, t) in &tests {
                run(t, &liveness).unwrap();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
