//! The tutorial's pages (`docs/tutorial/`), generated from the steps ([`super::STEPS`]) and
//! the tests of a folder: an index (`README.md`) that links the model's introduction, one page
//! per step (`01-litmus-tests.md`, …) with its introduction and, per test, the test, its
//! verdicts under ptx-v7.5 and sc, its picture (`img/NAME.svg`), a link that opens it in the
//! playground, and the explanation in words; tests of the folder that no step names go to a
//! last page. `ptxemu explain --format md -o DIR FOLDER` writes them, and a test fails when
//! the committed pages differ.

use std::fmt::Write as _;

use models::ptx::Model;

use crate::explain::explain;
use crate::html::pictures;
use crate::run::{RunError, RunOptions};

use super::STEPS;

/// Where the playground links point: the page `bash web/build.sh site && python3 -m
/// http.server -d site` serves.
pub const PLAYGROUND: &str = "http://localhost:8000/index.html";

/// One generated file: its path below the tutorial's folder, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// `README.md`, `03-fences.md`, `img/MP+weak.svg`.
    pub path: String,
    /// The file's text.
    pub text: String,
}

/// Why the pages could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PagesError {
    /// A test does not parse.
    #[error("{test}: {error}")]
    Parse {
        /// The test's name.
        test: String,
        /// The parse error.
        error: crate::ParseError,
    },
    /// A test could not be run or explained.
    #[error("{test}: {error}")]
    Run {
        /// The test's name.
        test: String,
        /// The run's error.
        error: RunError,
    },
}

/// A link that opens `source` under `model` in the playground.
pub fn playground_link(source: &str, model: Model) -> String {
    format!(
        "{PLAYGROUND}#model={}&test={}",
        percent(model.name()),
        percent(source)
    )
}

/// Percent-encodes everything but the unreserved characters of RFC 3986.
fn percent(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The pages for `tests` (name, text), in the steps' order; `ro` sets the run's limits (its
/// model is ignored: every test is shown under ptx-v7.5 and sc).
///
/// # Errors
/// A test that does not parse, or cannot be run or explained.
pub fn pages(tests: &[(String, String)], ro: &RunOptions) -> Result<Vec<Page>, PagesError> {
    let mut steps: Vec<Chosen<'_>> = Vec::new();
    let mut used = vec![false; tests.len()];
    for step in STEPS {
        let mut mine = Vec::new();
        for ex in step.tests {
            if let Some(k) = tests.iter().position(|(n, _)| n == ex.name) {
                used[k] = true;
                mine.push(&tests[k]);
            }
        }
        if !mine.is_empty() {
            steps.push((step.slug.to_string(), step.title, step.intro, mine));
        }
    }
    let rest: Vec<&(String, String)> = tests
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(t, _)| t)
        .collect();
    if !rest.is_empty() {
        steps.push((
            "more-tests".to_string(),
            "More tests",
            "Tests of the folder that no step of the path names, in the order of their names.",
            rest,
        ));
    }
    let files: Vec<String> = steps
        .iter()
        .enumerate()
        .map(|(k, step)| format!("{:02}-{}.md", k + 1, step.0))
        .collect();
    let mut out = Vec::new();
    let mut index = String::from(INDEX_HEAD);
    for (k, (_, title, _, tests)) in steps.iter().enumerate() {
        let names: Vec<&str> = tests.iter().map(|(n, _)| n.as_str()).collect();
        let _ = writeln!(
            index,
            "{}. [{title}]({}): {}",
            k + 1,
            files[k],
            names.join(", ")
        );
    }
    index.push_str(INDEX_TAIL);
    out.push(Page {
        path: "README.md".to_string(),
        text: index,
    });
    for (k, (_, title, intro, tests)) in steps.iter().enumerate() {
        let mut s = String::new();
        let _ = writeln!(s, "# {}. {title}\n", k + 1);
        s.push_str(&nav(k, &files));
        let _ = writeln!(s, "\n{intro}\n");
        for (name, source) in tests {
            let (section, svg) = test_section(name, source, ro)?;
            s.push_str(&section);
            if let Some(svg) = svg {
                out.push(Page {
                    path: format!("img/{name}.svg"),
                    text: svg,
                });
            }
        }
        s.push_str(&nav(k, &files));
        out.push(Page {
            path: files[k].clone(),
            text: s,
        });
    }
    Ok(out)
}

/// A step as the pages show it: slug, title, introduction, and the folder's tests it holds.
type Chosen<'a> = (String, &'a str, &'a str, Vec<&'a (String, String)>);

/// The line of links between steps.
fn nav(k: usize, files: &[String]) -> String {
    let mut parts = Vec::new();
    if k > 0 {
        parts.push(format!("[← previous]({})", files[k - 1]));
    }
    parts.push("[the path](README.md)".to_string());
    if k + 1 < files.len() {
        parts.push(format!("[next →]({})", files[k + 1]));
    }
    format!("{}\n", parts.join(" · "))
}

/// One test's section of a page, and its picture (the section links it as `img/NAME.svg`).
///
/// # Errors
/// The test does not parse, or cannot be run or explained.
pub fn test_section(
    name: &str,
    source: &str,
    ro: &RunOptions,
) -> Result<(String, Option<String>), PagesError> {
    let test = crate::parse(source).map_err(|error| PagesError::Parse {
        test: name.to_string(),
        error,
    })?;
    let fail = |error| PagesError::Run {
        test: name.to_string(),
        error,
    };
    let ptx = RunOptions {
        model: Model::PtxV75,
        ..*ro
    };
    let sc = RunOptions {
        model: Model::Sc,
        ..*ro
    };
    let x = explain(&test, &ptx, None).map_err(fail)?;
    let y = explain(&test, &sc, None).map_err(fail)?;
    let mut s = String::new();
    let _ = writeln!(s, "## {name}\n");
    if let Some(c) = test.comments.first() {
        let _ = writeln!(s, "{c}\n");
    }
    let _ = writeln!(s, "```text\n{}\n```\n", source.trim_end());
    s.push_str(
        "| model | the condition | its outcome | allowed final states |\n|---|---|---|---|\n",
    );
    for r in [&x.report, &y.report] {
        let reachable = r.states.values().any(|st| st.satisfies);
        let _ = writeln!(
            s,
            "| {} | {} `{}` {} | {} | {} |",
            r.model.name(),
            r.quantifier.name(),
            r.condition,
            if r.holds { "holds" } else { "does not hold" },
            if reachable { "allowed" } else { "forbidden" },
            r.states.len()
        );
    }
    let pics = pictures(&x);
    let svg = pics.first().map(|(_, svg)| svg.clone());
    if let Some((cap, _)) = pics.first() {
        let _ = writeln!(s, "\n![{name} under ptx-v7.5: {cap}](img/{name}.svg)\n");
    }
    let _ = writeln!(
        s,
        "[Open {name} in the playground]({}) (ptx-v7.5) · [under sc]({})\n",
        playground_link(source, Model::PtxV75),
        playground_link(source, Model::Sc)
    );
    let _ = writeln!(
        s,
        "<details><summary>Why, under ptx-v7.5</summary>\n\n```text\n{}```\n\n</details>\n",
        x.text()
    );
    let differs = x.allowed.is_some() != y.allowed.is_some();
    if differs {
        let _ = writeln!(
            s,
            "<details><summary>Why, under sc</summary>\n\n```text\n{}```\n\n</details>\n",
            y.text()
        );
    }
    Ok((s, svg))
}

const INDEX_HEAD: &str = "# The PTX memory model, step by step

Generated by `ptxemu explain --format md -o docs/tutorial litmus/tests/library` from ptxemu's litmus library; do not edit by hand (a test fails when these pages differ from what the command writes).

This path teaches the PTX memory model with litmus tests, one idea per step. Each step introduces the idea, then shows its tests: the test itself, whether the outcome its condition asks about is allowed under the PTX model (ptx-v7.5) and under sequential consistency (sc), a picture of an execution that produces it (or of a candidate that would, with the broken axiom's cycle in red), a link that opens the test in the playground, and the explanation in words.

The model in fifteen lines is [the short introduction](../spec/memory-model.md#0-summary-15-lines) of the memory-model notes; read it first, or come back to it after step 2. The playground links open `http://localhost:8000/`: build and serve the playground with `bash web/build.sh site` and `python3 -m http.server -d site` (see [the playground's page](../playground.md)).

";

const INDEX_TAIL: &str = "
Every test here is also a test of ptxemu: `litmus/tests/library/expected.csv` holds the verdicts worked out by hand from the model, and the test suite checks them.
";
