//! Hardware observations against the model: litmus7-format logs (ours and herdtools7's) and
//! the harness's JSON histograms read back, and each observed outcome judged by the model.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::ast::{loop_heads, CmpOp, Expr, Term, Test};
use crate::explain::{explain, Unproduced};
use crate::run::{run, RunError, RunOptions};

/// An outcome: term name (`P1:r0`, `x`) → value.
pub type State = BTreeMap<String, i64>;

/// What hardware showed for one test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The test's name as the log gives it.
    pub name: String,
    /// Each outcome with how many instances ended in it.
    pub states: Vec<(State, u64)>,
    /// The device line of the log, if any.
    pub device: Option<String>,
    /// Instances abandoned because a loop ran past its budget (harness logs only).
    pub abandoned: u64,
    /// Where each state came from (`line 12`, `state 3`), parallel to `states`.
    pub origins: Vec<String>,
}

impl Observed {
    /// Instances that ran to completion.
    pub fn instances(&self) -> u64 {
        self.states.iter().fold(0, |n, s| n.saturating_add(s.1))
    }
}

/// Refuses a histogram whose counts add up to more than a `u64` holds (no real run comes
/// near; a corrupt log can), so every sum of its counts is exact.
fn check_total(states: &[(State, u64)], what: &str) -> Result<(), String> {
    states
        .iter()
        .try_fold(0u64, |n, s| n.checked_add(s.1))
        .map(|_| ())
        .ok_or_else(|| format!("{what}: the counts add up to more than {}", u64::MAX))
}

/// A term name in one spelling: `1:r0`, `P1:%r0` → `P1:r0`; `[x]` → `x`.
pub fn normalise_term(t: &str) -> String {
    let t = t.trim();
    if let Some((th, reg)) = t.split_once(':') {
        let th = th.trim().trim_start_matches('P');
        return format!("P{th}:{}", reg.trim().trim_start_matches('%'));
    }
    t.trim_start_matches('[').trim_end_matches(']').to_string()
}

fn parse_value(v: &str) -> Option<i64> {
    let v = v.trim();
    let (neg, v) = match v.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, v),
    };
    let x = match v.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => v.parse::<i64>().ok()?,
    };
    Some(if neg { -x } else { x })
}

/// Parses one histogram line (`12345 *>1:r0=1; 1:r1=0;`).
///
/// # Errors
/// A malformed line, or one naming a key twice.
fn parse_state_line(line: &str) -> Result<(State, u64), String> {
    let malformed = || format!("malformed state line `{line}`");
    let digits = line
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(malformed)?;
    let count: u64 = line[..digits].parse().map_err(|_| malformed())?;
    if count == 0 {
        return Err(format!(
            "a count of 0 in `{line}` (a histogram lists only outcomes that were observed)"
        ));
    }
    let rest = line[digits..].trim_start();
    let rest = rest
        .strip_prefix(":>")
        .or_else(|| rest.strip_prefix("*>"))
        .ok_or_else(malformed)?;
    let mut state = State::new();
    for part in rest.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.rsplit_once('=').ok_or_else(malformed)?;
        let v = parse_value(v).ok_or_else(malformed)?;
        crate::compare_keys::insert_once(&mut state, normalise_term(k), v)?;
    }
    Ok((state, count))
}

/// Reads a litmus7-format log: every `Test … / Histogram (N states)` section.
///
/// # Errors
/// A histogram with fewer or malformed state lines than it announces (`line N: …`).
pub fn parse_log(text: &str) -> Result<Vec<Observed>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Observed> = Vec::new();
    let mut device = None;
    let mut k = 0;
    while k < lines.len() {
        let l = lines[k].trim_end();
        if let Some(d) = l.strip_prefix("Device ") {
            device = Some(d.to_string());
        } else if let Some(rest) = l.strip_prefix("Test ") {
            let name = rest.split_whitespace().next().unwrap_or("").to_string();
            out.push(Observed {
                name,
                states: Vec::new(),
                device: device.take(),
                abandoned: 0,
                origins: Vec::new(),
            });
        } else if let Some(rest) = l.strip_prefix("Histogram (") {
            let n: usize = rest
                .split_whitespace()
                .next()
                .and_then(|x| x.parse().ok())
                .ok_or_else(|| format!("line {}: malformed histogram header `{l}`", k + 1))?;
            let Some(cur) = out.last_mut() else {
                return Err(format!("line {}: histogram before any `Test` line", k + 1));
            };
            for j in 0..n {
                let at = k + 1 + j;
                let line = lines.get(at).ok_or_else(|| {
                    format!(
                        "line {}: the histogram announces {n} states but the log ends after {j}",
                        at + 1
                    )
                })?;
                let st = parse_state_line(line).map_err(|e| format!("line {}: {e}", at + 1))?;
                cur.states.push(st);
                cur.origins.push(format!("line {}", at + 1));
            }
            crate::compare_keys::same_keys(&cur.states, &cur.origins)?;
            check_total(&cur.states, &format!("line {}", k + 1))?;
            k += n;
        } else if let Some(rest) = l.strip_prefix("Abandoned ") {
            if let (Some(cur), Some(n)) = (
                out.last_mut(),
                rest.split_whitespace().nth(1).and_then(|x| x.parse().ok()),
            ) {
                cur.abandoned = n;
            }
        }
        k += 1;
    }
    Ok(out)
}

/// Reads a harness JSON histogram.
///
/// # Errors
/// Not JSON, or missing `test` / `states`, or a malformed state.
pub fn parse_histogram_json(text: &str) -> Result<Observed, String> {
    let v: Value = emu::host::json::parse(text).map_err(|e| format!("not JSON: {e}"))?;
    let name = v["test"].as_str().ok_or("missing \"test\"")?.to_string();
    let mut states = Vec::new();
    for (k, s) in v["states"]
        .as_array()
        .ok_or("missing \"states\"")?
        .iter()
        .enumerate()
    {
        let count = s["count"]
            .as_u64()
            .ok_or_else(|| format!("state {k}: missing \"count\""))?;
        if count == 0 {
            return Err(format!(
                "state {k}: a count of 0 (a histogram lists only outcomes that were observed)"
            ));
        }
        let mut state = State::new();
        for (t, val) in s["values"]
            .as_object()
            .ok_or_else(|| format!("state {k}: missing \"values\""))?
        {
            let x = val
                .as_i64()
                .ok_or_else(|| format!("state {k}: `{t}` is not an integer"))?;
            crate::compare_keys::insert_once(&mut state, normalise_term(t), x)
                .map_err(|e| format!("state {k}: {e}"))?;
        }
        states.push((state, count));
    }
    let origins: Vec<String> = (0..states.len()).map(|k| format!("state {k}")).collect();
    crate::compare_keys::same_keys(&states, &origins)?;
    check_total(&states, "states")?;
    let device = v["gpu"].as_str().map(|g| {
        format!(
            "{g} ({}), driver {}, runtime {}",
            v["sm"].as_str().unwrap_or("?"),
            v["driver"],
            v["runtime"]
        )
    });
    Ok(Observed {
        name,
        states,
        device,
        abandoned: v["abandoned"].as_u64().unwrap_or(0),
        origins,
    })
}

/// An observed outcome the model forbids.
#[derive(Clone, Debug)]
pub struct Forbidden {
    /// The outcome (on the terms the model shows).
    pub state: State,
    /// How many instances ended in it.
    pub count: u64,
    /// Why the model forbids it: each candidate's axiom and cycle, or why no candidate
    /// produces it at all.
    pub why: Vec<String>,
}

/// One test's comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The terms compared (shown by both the model and the log).
    pub terms: Vec<String>,
    /// Observed outcomes the model allows, with counts.
    pub allowed: Vec<(State, u64)>,
    /// Observed outcomes the model forbids.
    pub forbidden: Vec<Forbidden>,
    /// Observed outcomes the model cannot judge: no execution the model counts produces them,
    /// but the test has loops and the model counts only executions whose loops exit on their
    /// first try (hardware instances may retry). With the reason.
    pub unjudged: Vec<(State, u64, String)>,
    /// Outcomes the model allows that no instance showed.
    pub unobserved: Vec<State>,
    /// Instances that completed.
    pub instances: u64,
}

fn term_of(name: &str) -> Term {
    match name.split_once(':') {
        Some((th, r)) => Term::Reg(
            th.trim_start_matches('P').parse().unwrap_or(0),
            r.to_string(),
        ),
        None => Term::Loc(name.to_string()),
    }
}

/// The outcome as a condition (`P1:r0 == 1 /\ …`).
pub fn outcome_expr(state: &State) -> Expr {
    state
        .iter()
        .map(|(t, v)| Expr::Cmp(term_of(t), CmpOp::Eq, Term::Const(*v)))
        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)))
        .unwrap_or(Expr::True)
}

/// Judges every observed outcome of `obs` under the options' model.
///
/// # Errors
/// The test cannot be run, or the log shows none of the terms the model shows.
pub fn compare(test: &Test, obs: &Observed, ro: &RunOptions) -> Result<Comparison, String> {
    let report = run(test, ro).map_err(|e: RunError| e.to_string())?;
    let model_terms: Vec<String> = report
        .terms
        .iter()
        .map(|t| normalise_term(&t.to_string()))
        .collect();
    crate::compare_keys::check_against(test, obs, &model_terms)?;
    let logged: BTreeSet<&String> = obs.states.iter().flat_map(|(s, _)| s.keys()).collect();
    let common: Vec<usize> = (0..model_terms.len())
        .filter(|&k| logged.contains(&model_terms[k]))
        .collect();
    if common.is_empty() && !model_terms.is_empty() {
        return Err(format!(
            "the log shows none of the terms the model shows ({})",
            model_terms.join(", ")
        ));
    }
    let project_model = |vals: &Vec<i64>| -> State {
        common
            .iter()
            .map(|&k| (model_terms[k].clone(), vals[k]))
            .collect()
    };
    let allowed_states: BTreeSet<State> = report.states.keys().map(project_model).collect();
    let mut merged: BTreeMap<State, u64> = BTreeMap::new();
    for (s, n) in &obs.states {
        let p: State = common
            .iter()
            .filter_map(|&k| s.get(&model_terms[k]).map(|v| (model_terms[k].clone(), *v)))
            .collect();
        *merged.entry(p).or_default() += n;
    }
    let mut out = Comparison {
        terms: common.iter().map(|&k| model_terms[k].clone()).collect(),
        allowed: Vec::new(),
        forbidden: Vec::new(),
        unjudged: Vec::new(),
        unobserved: allowed_states
            .iter()
            .filter(|s| !merged.contains_key(*s))
            .cloned()
            .collect(),
        instances: obs.instances(),
    };
    for (state, count) in merged {
        if allowed_states.contains(&state) {
            out.allowed.push((state, count));
            continue;
        }
        let e = explain(test, ro, Some(outcome_expr(&state))).map_err(|e| e.to_string())?;
        let violations = e.violations();
        let loops = has_loops(test);
        let why = if !violations.is_empty() {
            violations
        } else if e.hang.is_some() || matches!(e.unproduced, Some(Unproduced::NoCompleteExecution))
        {
            let reason = "no execution completes with every loop exiting on its first try (the only executions the model counts)".to_string();
            if loops {
                out.unjudged.push((state, count, reason));
                continue;
            }
            vec![reason]
        } else {
            match e.unproduced {
                Some(Unproduced::Unreachable(w)) if !w.is_empty() => w,
                _ => vec!["no candidate execution produces it".to_string()],
            }
        };
        if loops {
            // The model explores each loop's first iteration only; hardware instances may
            // retry, so an outcome outside the first-try executions is not evidence.
            let reason = format!(
                "the test loops and the model counts only executions whose loops exit on their first try; among those: {}",
                why.first().map_or("none produces it", String::as_str)
            );
            out.unjudged.push((state, count, reason));
            continue;
        }
        out.forbidden.push(Forbidden { state, count, why });
    }
    Ok(out)
}

/// Whether some thread of the test jumps backwards (has a loop).
fn has_loops(test: &Test) -> bool {
    test.code.iter().any(|code| !loop_heads(code).is_empty())
}

/// The chance that a rerun of the same size shows an outcome seen `n` times (a Poisson
/// estimate: 1 − e^−n).
pub fn rerun_chance(n: u64) -> f64 {
    1.0 - (-(n as f64)).exp()
}

/// An outcome in one line (`P1:r0=1; P1:r1=0;`).
pub fn state_text(s: &State) -> String {
    s.iter()
        .map(|(k, v)| format!("{k}={v};"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn litmus7_and_harness_lines_parse_alike() {
        let (s, n) = parse_state_line("50791 *>1:r0=1; 1:r1=0;").unwrap();
        assert_eq!(n, 50791);
        assert_eq!(s["P1:r0"], 1);
        assert_eq!(s["P1:r1"], 0);
        let (s, n) = parse_state_line("2211836:>P0:%r0=0x10; [x]=-2;").unwrap();
        assert_eq!(n, 2211836);
        assert_eq!(s["P0:r0"], 16);
        assert_eq!(s["x"], -2);
        assert!(parse_state_line("12 =>1:r0=1;").is_err());
    }

    const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
        st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;\n\
        exists (1:r0 == 1 /\\ 1:r1 == 0)\n";

    fn compare_log(log: &str) -> Result<Comparison, String> {
        let test = crate::parse(MP).unwrap();
        let obs = parse_log(log)?.remove(0);
        compare(&test, &obs, &RunOptions::default())
    }

    #[test]
    fn a_state_with_a_duplicate_key_is_refused_with_its_line() {
        // Issue 23: the last value was kept, which hid the forbidden outcome 1:r1=0.
        let log = "Test MP Allowed\nHistogram (2 states)\n5 :>1:r0=1; 1:r1=0; 1:r1=1;\n7 :>1:r0=0; 1:r1=0;\n";
        let e = compare_log(log).unwrap_err();
        assert!(e.contains("line 3: `P1:r1` appears twice"), "{e}");
        // Spelled two ways, it is still one key.
        let e = parse_log("Test MP Allowed\nHistogram (1 states)\n5 :>1:r0=1; P1:%r0=0;\n")
            .unwrap_err();
        assert!(e.contains("line 3: `P1:r0` appears twice"), "{e}");
        let json = r#"{"test":"MP","states":[{"count":1,"values":{"1:r0":0,"P1:r0":1}}]}"#;
        assert!(parse_histogram_json(json)
            .unwrap_err()
            .contains("state 0: `P1:r0` appears twice"));
    }

    #[test]
    fn unknown_keys_are_refused_with_their_line() {
        for (extra, why) in [
            (
                "7:r0=0;",
                "`P7:r0` names thread 7, but the test has 2 thread(s)",
            ),
            ("z=0;", "`z` is not a location the test declares"),
            ("1:r9=0;", "`P1:r9` is not a register thread 1 writes"),
        ] {
            let log =
                format!("Test MP Allowed\nHistogram (1 states)\n5 :>1:r0=1; 1:r1=1; {extra}\n");
            let e = compare_log(&log).unwrap_err();
            assert!(e.contains(&format!("line 3: {why}")), "{e}");
        }
        let fine = "Test MP Allowed\nHistogram (1 states)\n5 :>1:r0=1; 1:r1=1; [x]=1; y=1;\n";
        assert_eq!(compare_log(fine).unwrap().instances, 5);
    }

    #[test]
    fn missing_keys_are_refused_with_their_line() {
        // A state lacking a key the others have.
        let log = "Test MP Allowed\nHistogram (2 states)\n5 :>1:r0=1; 1:r1=1;\n7 :>1:r0=1;\n";
        let e = compare_log(log).unwrap_err();
        assert!(
            e.contains("line 4: this state lacks `P1:r1`, which line 3 has"),
            "{e}"
        );
        // Every state lacking a term the condition reads: the outcome would be narrowed.
        let log = "Test MP Allowed\nHistogram (1 states)\n5 :>1:r0=1;\n";
        let e = compare_log(log).unwrap_err();
        assert!(e.contains("line 3: the state lacks `P1:r1`"), "{e}");
        let json = r#"{"test":"MP","states":[{"count":1,"values":{"1:r0":0,"1:r1":0}},{"count":1,"values":{"1:r0":1}}]}"#;
        assert!(parse_histogram_json(json)
            .unwrap_err()
            .contains("state 1: this state lacks `P1:r1`"));
    }

    #[test]
    fn a_truncated_histogram_is_an_error() {
        let log = "Test MP Allowed\nHistogram (3 states)\n5 :>1:r0=0;\n7 *>1:r0=1;\n";
        let e = parse_log(log).unwrap_err();
        assert!(e.contains("announces 3 states"), "{e}");
    }

    #[test]
    fn counts_beyond_u64_are_refused_not_wrapped() {
        let log = format!(
            "Test MP Allowed\nHistogram (2 states)\n{} :>1:r0=0;\n2 *>1:r0=1;\n",
            u64::MAX
        );
        let e = parse_log(&log).unwrap_err();
        assert!(e.contains("line 2: the counts add up"), "{e}");
        // Counts that add up to exactly 2^64 - 1 fit (every count is at least 1: a zero count
        // is refused, since a histogram lists only observed outcomes).
        let fits = format!(
            "Test MP Allowed\nHistogram (2 states)\n{} :>1:r0=0;\n2 :>1:r0=1;\n",
            u64::MAX - 2
        );
        assert_eq!(parse_log(&fits).unwrap()[0].instances(), u64::MAX);
        let json = format!(
            r#"{{"test":"MP","states":[{{"count":{},"values":{{"1:r0":0}}}},{{"count":1,"values":{{"1:r0":1}}}}]}}"#,
            u64::MAX
        );
        assert!(parse_histogram_json(&json)
            .unwrap_err()
            .contains("add up to more than"));
    }

    #[test]
    fn rerun_chance_is_poisson() {
        assert!((rerun_chance(1) - 0.632).abs() < 1e-3);
        assert_eq!(rerun_chance(0), 0.0);
    }
}
