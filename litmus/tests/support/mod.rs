//! What several litmus test binaries (and the explorer benchmark) share: the scaled tests of
//! issue 21's curves as litmus text, and running a test under one model and engine.
//! Each binary uses a part of it.
#![allow(dead_code)]

pub mod generated;

use litmus::run::{run, Engine, Report, RunOptions};
use models::ptx::Model;

/// A litmus test from its columns (one per thread, each thread in its own CTA of GPU 0).
pub fn columns(name: &str, init: &str, cols: &[Vec<String>], cond: &str) -> String {
    let places: Vec<String> = (0..cols.len())
        .map(|i| format!("P{i}@cta {i},gpu 0"))
        .collect();
    layout(name, "issue 21", init, &places, cols, cond)
}

/// A litmus test: its name, source line, initial state, each thread's placement
/// (`P0@cta 0,gpu 0`) and instructions (a column per thread), and its condition.
pub fn layout(
    name: &str,
    source: &str,
    init: &str,
    places: &[String],
    cols: &[Vec<String>],
    cond: &str,
) -> String {
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let mut s = format!(
        "PTX {name}\n\"{source}\"\n{{\n {init}\n}}\n {} ;\n",
        places.join(" | ")
    );
    for r in 0..rows {
        let cells: Vec<&str> = cols
            .iter()
            .map(|c| c.get(r).map_or("", String::as_str))
            .collect();
        s += &format!(" {} ;\n", cells.join(" | "));
    }
    s + &format!("exists ({cond})\n")
}

/// The family of issue 21 with `n` threads: each `st x, 2i+1; ld r0, x; st x, 2i+2; ld r1, x`.
pub fn family(n: usize) -> String {
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
    columns(&format!("family{n}"), "x=0;", &cols, "x == 1")
}

/// IRIW with two writers and `k` acquiring readers (alternately x then y, y then x).
pub fn iriw(k: usize) -> String {
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
    columns(&format!("iriw{k}"), "x=0; y=0;", &cols, cond)
}

/// A ticket lock (libcu++'s, as in the corpus' Ticketlock tests) taken by `n` threads: take a
/// ticket, spin until it is served (an await loop), read and write x, serve the next. The
/// condition asks that every critical section read x's initial value.
pub fn ticket(n: usize) -> String {
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
    columns(
        &format!("ticket{n}"),
        "in=0; out=0; x=0;",
        &cols,
        &cond.join(" /\\ "),
    )
}

/// Every model, each with both engines (the reference enumeration and the explorer).
pub fn engines() -> impl Iterator<Item = (Model, Engine)> {
    [Model::Sc, Model::PtxV75, Model::PtxV60]
        .into_iter()
        .flat_map(|m| [(m, Engine::Enumerate), (m, Engine::Explore)])
}

/// Runs `test` under `model` with `engine` and the default options; panics naming both.
pub fn run_as(test: &litmus::ast::Test, model: Model, engine: Engine) -> Report {
    run(
        test,
        &RunOptions {
            model,
            engine,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{model:?} {engine:?}: {e}"))
}
