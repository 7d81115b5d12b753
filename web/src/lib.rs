//! The playground's door into ptxemu: one function, [`call`], takes a request as JSON text and
//! answers in JSON text, and a WebAssembly build exports it with the plain C ABI
//! (`ptxemu_alloc`, `ptxemu_call`, `ptxemu_answer_len`, `ptxemu_free`).
//!
//! Why a C-ABI door with JSON strings rather than wasm-bindgen: the page needs three calls with
//! structured answers, which JSON carries; the module then builds with `cargo build --target
//! wasm32-unknown-unknown` alone (no bindgen command-line tool, pinned to the crate's exact
//! version, to install in CI), and the page's loader is twenty lines of standard JavaScript
//! (`WebAssembly.instantiate`, `TextEncoder`) that no generated glue can break.
//!
//! Requests (`op` picks one):
//! - `{"op":"examples"}`: the library's tests in the tutorial's order, grouped by step;
//! - `{"op":"run","test":TEXT,"model":M,"max_candidates":N}`: every outcome the model allows,
//!   and the explanation of the test's condition;
//! - `{"op":"explain","test":TEXT,"model":M,"outcome":COND,"max_candidates":N}`: why an
//!   outcome is allowed or forbidden: the executions to step through, each drawn and
//!   explained.
//!
//! Every answer has `"ok"`; a failed one has `"error"` with `kind` (`parse` with `line` and
//! `col`, `budget`, `run`, `request`) and `message`.

use serde_json::{json, Value};

use litmus::explain::{explain, Explanation, Shown};
use litmus::run::{RunError, RunOptions};
use models::ptx::Model;

/// The budget of candidate executions when a request names none: large enough for every
/// library test, small enough that a runaway test stops within seconds in a browser.
pub const DEFAULT_BUDGET: u64 = 2_000_000;

/// Answers one request (JSON text) with JSON text. Never panics on bad input: a malformed
/// request or test is answered with an error.
pub fn call(request: &str) -> String {
    let answer = match serde_json::from_str::<Value>(request) {
        Ok(req) => dispatch(&req),
        Err(e) => Err(fail("request", &format!("the request is not JSON: {e}"))),
    };
    match answer {
        Ok(v) => v.to_string(),
        Err(e) => json!({"ok": false, "error": e}).to_string(),
    }
}

fn fail(kind: &str, message: &str) -> Value {
    json!({"kind": kind, "message": message})
}

fn dispatch(req: &Value) -> Result<Value, Value> {
    match req.get("op").and_then(Value::as_str) {
        Some("examples") => Ok(examples()),
        Some("run") => run_op(req),
        Some("explain") => explain_op(req),
        Some(other) => Err(fail("request", &format!("unknown op `{other}`"))),
        None => Err(fail("request", "the request names no op")),
    }
}

/// The library's tests, step by step, as the tutorial orders them.
fn examples() -> Value {
    let steps: Vec<Value> = litmus::tutorial::STEPS
        .iter()
        .map(|s| {
            json!({
                "title": s.title,
                "tests": s.tests.iter().map(|t| json!({"name": t.name, "source": t.source})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"ok": true, "steps": steps})
}

/// The test, the model and the run options a request carries.
fn options(req: &Value) -> Result<(litmus::ast::Test, RunOptions), Value> {
    let text = req
        .get("test")
        .and_then(Value::as_str)
        .ok_or_else(|| fail("request", "the request carries no test"))?;
    let model_name = req
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("ptx-v7.5");
    let model = Model::from_name(model_name).ok_or_else(|| {
        fail(
            "request",
            &format!("unknown model `{model_name}` (ptx-v7.5, ptx-v6.0 or sc)"),
        )
    })?;
    let budget = match req.get("max_candidates") {
        None | Some(Value::Null) => DEFAULT_BUDGET,
        Some(v) => v
            .as_u64()
            .filter(|&n| n > 0)
            .ok_or_else(|| fail("request", "max_candidates is a positive whole number"))?,
    };
    let test = litmus::parse(text).map_err(
        |e| json!({"kind": "parse", "line": e.line, "col": e.col, "message": e.message}),
    )?;
    let ro = RunOptions {
        model,
        max_candidates: budget,
        ..RunOptions::default()
    };
    Ok((test, ro))
}

/// A run's error as the page shows it: a bad line of the test at its line, the budget's
/// message, or another reason.
fn run_error(e: &RunError) -> Value {
    match e {
        RunError::Lower { line, .. } => {
            json!({"kind": "parse", "line": line, "col": 1, "message": e.to_string()})
        }
        RunError::Budget(_) | RunError::CoherenceChoices | RunError::Halted { .. } => {
            fail("budget", &e.to_string())
        }
        _ => fail("run", &e.to_string()),
    }
}

fn run_op(req: &Value) -> Result<Value, Value> {
    let (test, ro) = options(req)?;
    // The explanation of the condition runs the test too: its report is the run's.
    let x = explain(&test, &ro, None).map_err(|e| run_error(&e))?;
    let r = &x.report;
    let states: Vec<Value> = r
        .states
        .iter()
        .map(|(vals, info)| {
            json!({
                "values": vals,
                "count": info.count,
                "satisfies": info.satisfies,
                "outcome": outcome_of(&r.terms, vals),
            })
        })
        .collect();
    let reachable = r.states.values().any(|s| s.satisfies);
    Ok(json!({
        "ok": true,
        "name": test.name,
        "model": ro.model.name(),
        "quantifier": r.quantifier.name(),
        "condition": r.condition.to_string(),
        "holds": r.holds,
        "reachable": reachable,
        "candidates": r.candidates,
        "allowed": r.allowed,
        "positive": r.positive,
        "negative": r.negative,
        "terms": r.terms.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "states": states,
        "explanation": explanation(&x),
    }))
}

/// The outcome of one state, written as a condition (`P1:r0=1 /\ P1:r1=0`).
fn outcome_of(terms: &[litmus::ast::Term], vals: &[i64]) -> String {
    terms
        .iter()
        .zip(vals)
        .map(|(t, v)| format!("{t}={v}"))
        .collect::<Vec<_>>()
        .join(" /\\ ")
}

fn explain_op(req: &Value) -> Result<Value, Value> {
    let (test, ro) = options(req)?;
    let outcome = match req.get("outcome").and_then(Value::as_str) {
        None | Some("") => None,
        Some(o) => {
            let e = litmus::cond::parse_condition(o).map_err(|e| {
                fail(
                    "request",
                    &format!("outcome: column {}: {}", e.col, e.message),
                )
            })?;
            litmus::outcome_names::check_outcome(&test, &e)
                .map_err(|m| fail("request", &format!("outcome: {m}")))?;
            Some(e)
        }
    };
    let x = explain(&test, &ro, outcome).map_err(|e| run_error(&e))?;
    Ok(json!({"ok": true, "explanation": explanation(&x)}))
}

/// An explanation as the page shows it: the verdict, and each execution to step through with
/// its picture and its words.
fn explanation(x: &Explanation) -> Value {
    let title = format!("{}: {}", x.prepared.test.name, x.outcome);
    let shown: Vec<Value> = x
        .shown()
        .iter()
        .map(|s: &Shown<'_>| {
            json!({
                "caption": s.caption,
                "kind": s.kind.name(),
                "svg": litmus::draw::svg(x, s.witness, &format!("{title} — {}", s.caption)),
                "why": x.witness_text(s.witness),
            })
        })
        .collect();
    json!({
        "outcome": x.outcome.to_string(),
        "verdict": x.verdict_word(),
        "summary": x.summary(),
        "executions": shown,
        "text": x.text(),
    })
}

// The WebAssembly door: the page writes a request into memory it asked for, calls, and reads
// the answer where `ptxemu_call` points, `ptxemu_answer_len` bytes long.

use std::cell::RefCell;

thread_local! {
    static ANSWER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Reserves `len` bytes for a request; the page writes it there.
#[no_mangle]
pub extern "C" fn ptxemu_alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len.max(1)];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Returns memory from [`ptxemu_alloc`].
///
/// # Safety
/// `ptr` and `len` are what `ptxemu_alloc(len)` returned and took, and are freed once.
#[no_mangle]
pub unsafe extern "C" fn ptxemu_free(ptr: *mut u8, len: usize) {
    drop(Vec::from_raw_parts(ptr, len.max(1), len.max(1)));
}

/// Answers the request of `len` bytes at `ptr` (UTF-8 JSON); returns where the answer lies
/// (valid until the next call), its length given by [`ptxemu_answer_len`].
///
/// # Safety
/// `ptr` points at `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ptxemu_call(ptr: *const u8, len: usize) -> *const u8 {
    let bytes = std::slice::from_raw_parts(ptr, len);
    let answer = match std::str::from_utf8(bytes) {
        Ok(req) => call(req),
        Err(_) => {
            json!({"ok": false, "error": fail("request", "the request is not UTF-8")}).to_string()
        }
    };
    ANSWER.with(|a| {
        let mut a = a.borrow_mut();
        *a = answer.into_bytes();
        a.as_ptr()
    })
}

/// The length of the last answer.
#[no_mangle]
pub extern "C" fn ptxemu_answer_len() -> usize {
    ANSWER.with(|a| a.borrow().len())
}
