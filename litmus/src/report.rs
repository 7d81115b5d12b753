//! Printing results: herd7's text format, one JSON object per test, and comparison with
//! Dat3M-style expectation CSVs (`PATH,1|0`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::ast::Quantifier;
use crate::run::Report;

/// herd7's name for the kind of a test.
pub fn kind(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

/// The observation: whether allowed executions satisfying the condition exist never,
/// sometimes or always.
pub fn observation(r: &Report) -> &'static str {
    if r.positive == 0 {
        "Never"
    } else if r.negative == 0 {
        "Always"
    } else {
        "Sometimes"
    }
}

/// The report in herd7's text format.
pub fn herd_text(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Test {} {}", r.name, kind(r.quantifier));
    if r.liveness {
        match &r.hang {
            None => {
                let _ = writeln!(s, "Liveness: no execution hangs");
            }
            Some(h) => {
                let who: Vec<String> = h
                    .threads
                    .iter()
                    .enumerate()
                    .map(|(t, w)| format!("P{t} {w}"))
                    .collect();
                let _ = writeln!(s, "Liveness: an execution hangs ({})", who.join(", "));
            }
        }
        let _ = writeln!(s, "{}", if r.holds { "Ok" } else { "No" });
        let _ = writeln!(s, "Candidates {} Allowed {}", r.candidates, r.allowed);
        let _ = writeln!(s, "Time {} {:.3}", r.name, r.time.as_secs_f64());
        return s;
    }
    let _ = writeln!(s, "States {}", r.states.len());
    for (vals, info) in &r.states {
        let mut line = String::new();
        for (t, v) in r.terms.iter().zip(vals) {
            let _ = write!(line, "{t}={v}; ");
        }
        let mark = if info.satisfies { " (*)" } else { "" };
        let _ = writeln!(s, "{}{mark}", line.trim_end());
    }
    let _ = writeln!(s, "{}", if r.holds { "Ok" } else { "No" });
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", r.positive, r.negative);
    let verdict = if r.holds {
        "is validated"
    } else {
        "is NOT validated"
    };
    let _ = writeln!(
        s,
        "Condition {} {} {verdict}",
        r.quantifier.name(),
        r.condition
    );
    let _ = writeln!(
        s,
        "Observation {} {} {} {}",
        r.name,
        observation(r),
        r.positive,
        r.negative
    );
    let _ = writeln!(s, "Candidates {} Allowed {}", r.candidates, r.allowed);
    let _ = writeln!(s, "Time {} {:.3}", r.name, r.time.as_secs_f64());
    s
}

/// The report as one JSON object.
pub fn json(r: &Report, file: &str) -> Value {
    let states: Vec<Value> = r
        .states
        .iter()
        .map(|(vals, info)| {
            let mut m = Map::new();
            for (t, v) in r.terms.iter().zip(vals) {
                m.insert(t.to_string(), json!(v));
            }
            m.insert("_count".into(), json!(info.count));
            m.insert("_satisfies".into(), json!(info.satisfies));
            Value::Object(m)
        })
        .collect();
    let mut o = json!({
        "test": r.name,
        "file": file,
        "model": r.model.name(),
        "quantifier": r.quantifier.name(),
        "condition": r.condition.to_string(),
        "holds": r.holds,
        "observation": observation(r),
        "positive": r.positive,
        "negative": r.negative,
        "states": states,
        "candidates": r.candidates,
        "explored": r.explored,
        "allowed": r.allowed,
        "time_s": r.time.as_secs_f64(),
    });
    if r.liveness {
        o["liveness"] = json!({
            "hangs": r.hang.is_some(),
            "threads": r.hang.as_ref().map(|h| h.threads.clone()),
        });
    }
    o
}

/// Expectations read from a CSV: path (as written) → expected `holds`.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    /// Rows in file order.
    pub rows: Vec<(String, bool)>,
    by_path: HashMap<PathBuf, bool>,
}

impl Expectations {
    /// Reads `PATH,1|0` rows; `//` lines and blank lines are skipped.
    ///
    /// # Errors
    /// A row that is not `PATH,0` or `PATH,1`, with its line number.
    pub fn parse(text: &str) -> Result<Expectations, String> {
        let mut e = Expectations::default();
        for (k, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.is_empty() || l.starts_with("//") {
                continue;
            }
            let (p, v) = l
                .rsplit_once(',')
                .ok_or_else(|| format!("line {}: expected PATH,1|0", k + 1))?;
            let v = match v.trim() {
                "1" => true,
                "0" => false,
                other => return Err(format!("line {}: expected 1 or 0, found `{other}`", k + 1)),
            };
            let p = p.trim().to_string();
            e.by_path.insert(normalise(Path::new(&p)), v);
            e.rows.push((p, v));
        }
        Ok(e)
    }

    /// The expectation for a file, if listed (paths compare after normalisation).
    pub fn get(&self, file: &Path) -> Option<bool> {
        self.by_path.get(&normalise(file)).copied()
    }
}

/// A path without `.` components and redundant separators.
pub fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_and_lookup() {
        let e =
            Expectations::parse("// header\nlitmus/PTX/a.litmus,1\n\n./litmus/PTX/b.litmus, 0\n")
                .unwrap();
        assert_eq!(e.rows.len(), 2);
        assert_eq!(e.get(Path::new("litmus/PTX/b.litmus")), Some(false));
        assert_eq!(e.get(Path::new("./litmus/x/../PTX/a.litmus")), Some(true));
        assert_eq!(e.get(Path::new("litmus/PTX/c.litmus")), None);
        assert!(Expectations::parse("a.litmus,2")
            .unwrap_err()
            .contains("line 1"));
    }
}
