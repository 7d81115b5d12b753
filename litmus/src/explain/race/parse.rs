//! Reading a race report from JSON, with the path of the first value that does not fit.

use std::fmt;

use models::vocab::Scope;
use serde_json::Value;

use super::{Access, AccessKind, Race, RaceReport, Seen};

/// Why a report could not be read: where in the JSON, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportError {
    /// Not JSON at all: line and column of the syntax error.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What the parser says.
        message: String,
    },
    /// JSON, but not a race report: the path of the bad value (`races[0].first.line`).
    Shape {
        /// The path of the value.
        path: String,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Syntax { line, col, message } => {
                write!(f, "{line}:{col}: not JSON: {message}")
            }
            ReportError::Shape { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for ReportError {}

fn shape(path: &str, message: impl Into<String>) -> ReportError {
    ReportError::Shape {
        path: path.to_string(),
        message: message.into(),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn uint(v: &Value, path: &str) -> Result<u64, ReportError> {
    v.as_u64().ok_or_else(|| {
        shape(
            path,
            format!("expected a non-negative integer, found {}", kind_of(v)),
        )
    })
}

fn string(v: &Value, path: &str) -> Result<String, ReportError> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| shape(path, format!("expected a string, found {}", kind_of(v))))
}

fn triple(v: &Value, path: &str) -> Result<[u64; 3], ReportError> {
    let a = v
        .as_array()
        .filter(|a| a.len() == 3)
        .ok_or_else(|| shape(path, format!("expected [x, y, z], found {}", kind_of(v))))?;
    Ok([
        uint(&a[0], &format!("{path}[0]"))?,
        uint(&a[1], &format!("{path}[1]"))?,
        uint(&a[2], &format!("{path}[2]"))?,
    ])
}

/// An address: a number, or a string in hex (`0x...`) or decimal.
fn address(v: &Value, path: &str) -> Result<u64, ReportError> {
    if let Some(n) = v.as_u64() {
        return Ok(n);
    }
    let s = v.as_str().ok_or_else(|| {
        shape(
            path,
            format!(
                "expected an address (a number or \"0x...\"), found {}",
                kind_of(v)
            ),
        )
    })?;
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| shape(path, format!("`{s}` is not an address")))
}

fn optional<T>(
    o: &serde_json::Map<String, Value>,
    key: &str,
    path: &str,
    read: impl Fn(&Value, &str) -> Result<T, ReportError>,
) -> Result<Option<T>, ReportError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => read(v, &format!("{path}.{key}")).map(Some),
    }
}

fn required<'a>(
    o: &'a serde_json::Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<&'a Value, ReportError> {
    o.get(key)
        .ok_or_else(|| shape(&format!("{path}.{key}"), "missing"))
}

fn access(v: &Value, path: &str) -> Result<Access, ReportError> {
    let o = v
        .as_object()
        .ok_or_else(|| shape(path, format!("expected an object, found {}", kind_of(v))))?;
    let kind = optional(o, "kind", path, |v, p| match v.as_str() {
        Some("read") => Ok(AccessKind::Read),
        Some("write") => Ok(AccessKind::Write),
        Some("atomic") => Ok(AccessKind::Atomic),
        _ => Err(shape(p, "expected \"read\", \"write\" or \"atomic\"")),
    })?;
    let scope = optional(o, "scope", path, |v, p| {
        let s = string(v, p)?;
        Scope::from_name(s.trim_start_matches('.')).ok_or_else(|| {
            shape(
                p,
                format!(
                    "`{s}` is not a scope (cta, cluster, gpu, sys; null for an access without one)"
                ),
            )
        })
    })?;
    Ok(Access {
        line: uint(required(o, "line", path)?, &format!("{path}.line"))?,
        instruction: string(
            required(o, "instruction", path)?,
            &format!("{path}.instruction"),
        )?,
        cta: triple(required(o, "cta", path)?, &format!("{path}.cta"))?,
        thread: triple(required(o, "thread", path)?, &format!("{path}.thread"))?,
        address: address(required(o, "address", path)?, &format!("{path}.address"))?,
        kind,
        sem: optional(o, "sem", path, string)?,
        scope,
        space: optional(o, "space", path, string)?,
        warp: optional(o, "warp", path, uint)?,
        lane: optional(o, "lane", path, uint)?,
        bytes: optional(o, "bytes", path, uint)?,
        proxy: optional(o, "proxy", path, string)?,
        cluster: optional(o, "cluster", path, triple)?,
        source: optional(o, "source", path, source)?,
        argument: optional(o, "argument", path, argument)?,
    })
}

/// An `argument` object (`index`, optional `name` and `offset`) as `arg 1, byte 16` (with
/// the parameter's name when it is not the compiler's `KERNEL_param_N`).
fn argument(v: &Value, path: &str) -> Result<String, ReportError> {
    let o = v
        .as_object()
        .ok_or_else(|| shape(path, format!("expected an object, found {}", kind_of(v))))?;
    let index = uint(required(o, "index", path)?, &format!("{path}.index"))?;
    let name = optional(o, "name", path, string)?.unwrap_or_default();
    let offset = optional(o, "offset", path, uint)?.unwrap_or(0);
    let own = !name.is_empty() && !name.ends_with(&format!("_param_{index}"));
    Ok(if own {
        format!("arg {index} `{name}`, byte {offset}")
    } else {
        format!("arg {index}, byte {offset}")
    })
}

/// A `source` object (`file`, `line`, optional `column`) as `file:line[:column]`.
fn source(v: &Value, path: &str) -> Result<String, ReportError> {
    let o = v
        .as_object()
        .ok_or_else(|| shape(path, format!("expected an object, found {}", kind_of(v))))?;
    let file = string(required(o, "file", path)?, &format!("{path}.file"))?;
    let line = uint(required(o, "line", path)?, &format!("{path}.line"))?;
    Ok(match optional(o, "column", path, uint)? {
        Some(c) => format!("{file}:{line}:{c}"),
        None => format!("{file}:{line}"),
    })
}

fn race(v: &Value, path: &str) -> Result<Race, ReportError> {
    let o = v
        .as_object()
        .ok_or_else(|| shape(path, format!("expected an object, found {}", kind_of(v))))?;
    let seen = optional(o, "seen", path, |v, p| match v.as_str() {
        Some("every") => Ok(Seen::Every),
        Some("some") => Ok(Seen::Some),
        _ => Err(shape(p, "expected \"every\" or \"some\"")),
    })?;
    Ok(Race {
        first: access(required(o, "first", path)?, &format!("{path}.first"))?,
        second: access(required(o, "second", path)?, &format!("{path}.second"))?,
        reason: string(required(o, "reason", path)?, &format!("{path}.reason"))?,
        seen,
        count: optional(o, "count", path, uint)?,
        fence_sc_dependent: optional(o, "fence_sc_dependent", path, |v, p| {
            v.as_bool()
                .ok_or_else(|| shape(p, format!("expected true or false, found {}", kind_of(v))))
        })?
        .unwrap_or(false),
    })
}

/// Reads a race report: the JSON of `ptxemu run --race --json` or its `races` array alone.
///
/// # Errors
/// A syntax error with its line and column, or the path of the first value that does not
/// fit the report's shape.
pub fn parse_report(text: &str) -> Result<RaceReport, ReportError> {
    let v: Value = emu::host::json::parse(text).map_err(|e| {
        let full = e.to_string();
        // serde_json appends " at line L column C", which the error carries separately.
        let message = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(m, _)| m)
            .to_string();
        ReportError::Syntax {
            line: e.line(),
            col: e.column(),
            message,
        }
    })?;
    let (kernel, races) = match &v {
        Value::Array(a) => (None, a),
        Value::Object(o) => {
            let races = o.get("races").ok_or_else(|| {
                shape(
                    "races",
                    "missing: the run was not made with --race (or this is not a run's JSON)",
                )
            })?;
            let races = races.as_array().ok_or_else(|| {
                shape(
                    "races",
                    format!("expected an array, found {}", kind_of(races)),
                )
            })?;
            (
                o.get("kernel").and_then(Value::as_str).map(str::to_string),
                races,
            )
        }
        other => {
            return Err(shape(
                "(top level)",
                format!(
                    "expected a run's JSON object or a `races` array, found {}",
                    kind_of(other)
                ),
            ))
        }
    };
    let races = races
        .iter()
        .enumerate()
        .map(|(i, r)| race(r, &format!("races[{i}]")))
        .collect::<Result<_, _>>()?;
    Ok(RaceReport { kernel, races })
}
