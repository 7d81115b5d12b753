//! Litmus tests from Python: `ptxemu litmus --json`'s object and `ptxemu explain`'s text or
//! SVG.

use litmus::run::{run_with, RunOptions};
use models::ptx::Model;
use pyo3::prelude::*;

fn options(py: Python<'_>, model: &str) -> PyResult<RunOptions> {
    let Some(model) = Model::from_name(model) else {
        return Err(crate::raise(
            py,
            "LitmusError",
            (format!(
                "unknown model `{model}` (expected ptx-v7.5, ptx-v6.0 or sc)"
            ),),
        ));
    };
    Ok(RunOptions {
        model,
        ..RunOptions::default()
    })
}

fn parse(py: Python<'_>, src: &str, name: &str) -> PyResult<litmus::ast::Test> {
    litmus::parse(src).map_err(|e| crate::raise(py, "LitmusError", (format!("{name}:{e}"),)))
}

/// Runs a litmus test under `model`; returns `ptxemu litmus --json`'s object, as JSON text.
#[pyfunction]
#[pyo3(signature = (src, name, model = "ptx-v7.5"))]
pub fn litmus_json(py: Python<'_>, src: &str, name: &str, model: &str) -> PyResult<String> {
    let ro = options(py, model)?;
    let test = parse(py, src, name)?;
    let report = py
        .allow_threads(|| run_with(&test, &ro, None))
        .map_err(|e| crate::raise(py, "LitmusError", (format!("{name}: {e}"),)))?;
    let mut o = litmus::report::json(&report, name);
    // As `ptxemu litmus --json`: a condition reading a register no instruction writes.
    let line = litmus::unwritten::condition_line(src).unwrap_or(1);
    let warnings: Vec<String> = litmus::unwritten::unwritten_registers(&test)
        .iter()
        .map(|w| format!("{name}:{line}: {w}"))
        .collect();
    if !warnings.is_empty() {
        o["warnings"] = serde_json::json!(warnings);
    }
    Ok(o.to_string())
}

/// Explains an outcome of a litmus test (default: its condition) as `text`, `svg`, `dot` or
/// `html`, as `ptxemu explain --format` does.
#[pyfunction]
#[pyo3(signature = (src, name, model = "ptx-v7.5", outcome = None, format = "text"))]
pub fn explain(
    py: Python<'_>,
    src: &str,
    name: &str,
    model: &str,
    outcome: Option<&str>,
    format: &str,
) -> PyResult<String> {
    let fail = |m: String| crate::raise(py, "LitmusError", (m,));
    let ro = options(py, model)?;
    let test = parse(py, src, name)?;
    let out = match outcome {
        Some(o) => Some(
            litmus::cond::parse_condition(o)
                .map_err(|e| fail(format!("outcome: column {}: {}", e.col, e.message)))?,
        ),
        None => None,
    };
    if let Some(o) = &out {
        litmus::outcome_names::check_outcome(&test, o)
            .map_err(|e| fail(format!("outcome: {e} in {name}")))?;
    }
    let x = py
        .allow_threads(|| litmus::explain::explain(&test, &ro, out))
        .map_err(|e| fail(format!("{name}: {e}")))?;
    match format {
        "text" => Ok(x.text()),
        "html" => Ok(litmus::html::page(&x, src)),
        "svg" | "dot" => {
            let w = x.pictured().ok_or_else(|| {
                fail(format!(
                    "no candidate execution produces {}: nothing to draw",
                    x.outcome
                ))
            })?;
            let title = format!("{}: {}", x.prepared.test.name, x.outcome);
            Ok(if format == "svg" {
                litmus::draw::svg(&x, w, &title)
            } else {
                litmus::draw::dot(&x, w, &title)
            })
        }
        other => Err(fail(format!(
            "format `{other}`: expected text, svg, dot or html"
        ))),
    }
}

/// Explains a race report (the JSON of `ptxemu run --race --json`, or its `races` array) as
/// `text`, `svg`, `dot` or `html`, as `ptxemu explain --race-report --format` does.
#[pyfunction]
#[pyo3(signature = (report, format = "text"))]
pub fn explain_race_report(py: Python<'_>, report: &str, format: &str) -> PyResult<String> {
    use litmus::explain::race::{draw, parse_report};
    let fail = |m: String| crate::raise(py, "RaceReportError", (m,));
    let r = parse_report(report).map_err(|e| fail(format!("race report: {e}")))?;
    let title = r.title("the report");
    let none = || fail("the report has no race: nothing to draw".into());
    match format {
        "text" => Ok(r.text()),
        "svg" => draw::svg(&r, &title).ok_or_else(none),
        "dot" => draw::dot(&r, &title).ok_or_else(none),
        "html" => Ok(draw::page(&r, &title)),
        other => Err(fail(format!(
            "format `{other}`: expected text, svg, dot or html"
        ))),
    }
}
