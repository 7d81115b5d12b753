//! Time against allowed executions for the incremental explorer (issue 21): the family of the
//! issue (threads in different CTAs each `st x, 2i+1; ld r0, x; st x, 2i+2; ld r1, x`), IRIW
//! with more readers, and a ticket lock with more threads. The README's table comes from the
//! command line on the same tests; this bench covers the sizes that finish in about a second
//! (set `EXPLORE_BENCH_LARGE=1` for the larger ones) and prints each size's counts.

use criterion::{criterion_group, criterion_main, Criterion};
use litmus::run::{run, RunOptions};

/// A litmus test from its columns (one per thread, each thread in its own CTA).
fn test(name: &str, init: &str, cols: &[Vec<String>], cond: &str) -> litmus::ast::Test {
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let places: Vec<String> = (0..cols.len())
        .map(|i| format!("P{i}@cta {i},gpu 0"))
        .collect();
    let mut s = format!(
        "PTX {name}\n\"bench\"\n{{\n {init}\n}}\n {} ;\n",
        places.join(" | ")
    );
    for r in 0..rows {
        let cells: Vec<&str> = cols
            .iter()
            .map(|c| c.get(r).map_or("", String::as_str))
            .collect();
        s += &format!(" {} ;\n", cells.join(" | "));
    }
    s += &format!("exists ({cond})\n");
    litmus::parse(&s).expect("a generated test parses")
}

/// The family of issue 21 with `n` threads.
pub fn family(n: usize) -> litmus::ast::Test {
    let cols: Vec<Vec<String>> = (0..n)
        .map(|i| {
            vec![
                format!("st.relaxed.gpu x, {}", 2 * i + 1),
                "ld.relaxed.gpu r0, x".into(),
                format!("st.relaxed.gpu x, {}", 2 * i + 2),
                "ld.relaxed.gpu r1, x".into(),
            ]
        })
        .collect();
    test(&format!("family{n}"), "x=0;", &cols, "x == 1")
}

/// IRIW with two writers and `k` acquiring readers (alternately x then y, y then x).
pub fn iriw(k: usize) -> litmus::ast::Test {
    let mut cols = vec![
        vec!["st.relaxed.gpu x, 1".to_string()],
        vec!["st.relaxed.gpu y, 1".to_string()],
    ];
    for j in 0..k {
        let (a, b) = if j % 2 == 0 { ("x", "y") } else { ("y", "x") };
        cols.push(vec![
            format!("ld.acquire.gpu r0, {a}"),
            format!("ld.acquire.gpu r1, {b}"),
        ]);
    }
    let cond = "P2:r0 == 1 /\\ P2:r1 == 0 /\\ P3:r0 == 1 /\\ P3:r1 == 0";
    test(&format!("iriw{k}"), "x=0; y=0;", &cols, cond)
}

/// A ticket lock (libcu++'s, as in the corpus' Ticketlock tests) taken by `n` threads.
pub fn ticket(n: usize) -> litmus::ast::Test {
    let cols: Vec<Vec<String>> = (0..n)
        .map(|i| {
            [
                "atom.acquire.gpu.add r1, in, 1",
                "LC00:",
                "ld.acquire.gpu r2, out",
                "beq r1,r2,LC01",
                "goto LC00",
                "LC01:",
                "ld.weak r3, x",
                &format!("st.weak x, {}", i + 1),
                "atom.release.gpu.add r4, out, 1",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect()
        })
        .collect();
    let cond: Vec<String> = (0..n).map(|i| format!("P{i}:r3 == 0")).collect();
    test(
        &format!("ticket{n}"),
        "in=0; out=0; x=0;",
        &cols,
        &cond.join(" /\\ "),
    )
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
    ];
    if large {
        cases.extend([family(4), iriw(5), iriw(6), ticket(4)]);
    }
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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
