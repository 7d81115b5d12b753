//! Explaining a data-race report of `ptxemu run --race --json`: the two accesses, each
//! condition of the PTX memory model's definition of a data race checked against what the
//! report says about them, and the causality edge that is missing. Pictures are in [`draw`].
//!
//! The input is the JSON of the whole `run --json` output (an object with a `races` array) or
//! the `races` array alone. Each race has `first` and `second` accesses (`line`,
//! `instruction`, `cta`, `thread`, `address`, and optionally `kind`, `sem`, `scope`, `space`,
//! `warp`, `lane`, `bytes`, `proxy`, `cluster`), a `reason` and optionally `seen`.

pub mod draw;

use std::fmt::{self, Write as _};

use models::vocab::Scope;
use serde_json::Value;

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store (or an asynchronous copy's write).
    Write,
    /// A read-modify-write.
    Atomic,
}

impl AccessKind {
    /// The report's word for it.
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        }
    }

    /// The one-letter tag of pictures (R, W, RMW).
    pub fn tag(self) -> &'static str {
        match self {
            AccessKind::Read => "R",
            AccessKind::Write => "W",
            AccessKind::Atomic => "RMW",
        }
    }

    /// Whether it writes.
    pub fn writes(self) -> bool {
        self != AccessKind::Read
    }
}

/// One of the two accesses of a race.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    /// PTX source line.
    pub line: u64,
    /// The instruction's text.
    pub instruction: String,
    /// The CTA's coordinates.
    pub cta: [u64; 3],
    /// The thread's coordinates in its CTA.
    pub thread: [u64; 3],
    /// The first byte's address.
    pub address: u64,
    /// Read, write or atomic, when the report says.
    pub kind: Option<AccessKind>,
    /// Its semantics (`weak`, `relaxed`, `acquire`, `release`, `volatile`, ...), when given.
    pub sem: Option<String>,
    /// Its scope, when given.
    pub scope: Option<Scope>,
    /// The state space (`global`, `shared`, ...), when given.
    pub space: Option<String>,
    /// Warp index in the CTA, when given.
    pub warp: Option<u64>,
    /// Lane in the warp, when given.
    pub lane: Option<u64>,
    /// How many bytes, when given.
    pub bytes: Option<u64>,
    /// The proxy (`generic`, `async`, ...), when given.
    pub proxy: Option<String>,
    /// The cluster's coordinates, when the launch has clusters.
    pub cluster: Option<[u64; 3]>,
}

/// Whether a race was seen on every explored schedule or on some.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// On every explored schedule.
    Every,
    /// On some of them.
    Some,
}

/// One reported race.
#[derive(Clone, Debug, PartialEq)]
pub struct Race {
    /// The first access.
    pub first: Access,
    /// The second access.
    pub second: Access,
    /// Why they are unordered, in the detector's words.
    pub reason: String,
    /// On which schedules it was seen, when given.
    pub seen: Option<Seen>,
}

/// A race report.
#[derive(Clone, Debug, PartialEq)]
pub struct RaceReport {
    /// The kernel, when the report names it.
    pub kernel: Option<String>,
    /// The races.
    pub races: Vec<Race>,
}

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
        Scope::from_name(s.trim_start_matches('.'))
            .ok_or_else(|| shape(p, format!("`{s}` is not a scope (cta, cluster, gpu, sys)")))
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
    })
}

/// Reads a race report: the JSON of `ptxemu run --race --json` or its `races` array alone.
///
/// # Errors
/// A syntax error with its line and column, or the path of the first value that does not
/// fit the report's shape.
pub fn parse_report(text: &str) -> Result<RaceReport, ReportError> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
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

/// Coordinates as `(x,y,z)`.
pub fn xyz(c: &[u64; 3]) -> String {
    format!("({},{},{})", c[0], c[1], c[2])
}

impl Access {
    /// Whether it is strong: an atomic, or an access with semantics other than weak.
    pub fn strong(&self) -> Option<bool> {
        if self.kind == Some(AccessKind::Atomic) {
            return Some(true);
        }
        self.sem.as_deref().map(|s| s != "weak" && !s.is_empty())
    }

    /// Its scope as the model sees it: the given one, `.sys` for volatile and mmio, `.gpu` for
    /// an atomic without one (the PTX default).
    pub fn effective_scope(&self) -> Option<Scope> {
        self.scope.or(match self.sem.as_deref() {
            Some("volatile") | Some("mmio") => Some(Scope::Sys),
            _ if self.kind == Some(AccessKind::Atomic) => Some(Scope::Gpu),
            _ => None,
        })
    }

    /// The cluster it runs in: the given one, or its own CTA in a launch without clusters.
    fn cluster_id(&self) -> [u64; 3] {
        self.cluster.unwrap_or(self.cta)
    }

    /// Whether an operation of this access's scope `s` includes the thread of `o`.
    fn includes(&self, s: Scope, o: &Access) -> bool {
        match s {
            Scope::Sys | Scope::Gpu => true,
            Scope::Cluster => self.cluster_id() == o.cluster_id(),
            Scope::Cta => self.cta == o.cta,
        }
    }

    /// The instruction with its runs of white space (tabs of compiler output) made one space.
    pub fn instr(&self) -> String {
        self.instruction
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Its place: CTA, thread, warp and lane.
    pub fn place(&self) -> String {
        let mut s = format!("thread {} of CTA {}", xyz(&self.thread), xyz(&self.cta));
        if let (Some(w), Some(l)) = (self.warp, self.lane) {
            let _ = write!(s, " (warp {w}, lane {l})");
        }
        s
    }

    /// What it touches: space, address and bytes.
    pub fn target(&self) -> String {
        let mut s = String::new();
        if let Some(sp) = &self.space {
            let _ = write!(s, "{sp} ");
        }
        let _ = write!(s, "{:#x}", self.address);
        if let Some(b) = self.bytes {
            let _ = write!(s, ", {b} byte(s)");
        }
        s
    }

    /// Kind, semantics and scope, as far as the report says.
    pub fn nature(&self) -> String {
        let kind = self
            .kind
            .map_or("access (kind not given)", AccessKind::name);
        let mut s = kind.to_string();
        if let Some(sem) = &self.sem {
            let _ = write!(s, ", {sem}");
        }
        if let Some(sc) = self.scope {
            let _ = write!(s, ", .{sc}");
        }
        if let Some(p) = &self.proxy {
            let _ = write!(s, ", {p} proxy");
        }
        s
    }
}

/// One condition of the definition of a data race, as the report's facts bear it out:
/// `Some(true)` holds, `Some(false)` does not (the pair would not be a data race),
/// `None` the report does not say enough.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The condition.
    pub name: &'static str,
    /// Whether it holds.
    pub holds: Option<bool>,
    /// Why, in the model's words.
    pub why: String,
}

fn overlap(a: &Access, b: &Access) -> Condition {
    let name = "they access overlapping bytes";
    if let (Some(x), Some(y)) = (&a.space, &b.space) {
        if x != y {
            return Condition {
                name,
                holds: None,
                why: format!("the accesses name different state spaces ({x} and {y}); their addresses are compared as given"),
            };
        }
        if x.starts_with("shared") && x != "shared::cluster" && a.cta != b.cta {
            return Condition {
                name,
                holds: Some(false),
                why: format!("both are in .shared::cta memory, but of different CTAs ({} and {}): not the same bytes", xyz(&a.cta), xyz(&b.cta)),
            };
        }
    }
    match (a.bytes, b.bytes) {
        (Some(n), Some(m)) => {
            let lo = a.address.max(b.address);
            let hi = a.address.saturating_add(n).min(b.address.saturating_add(m));
            if lo < hi {
                Condition {
                    name,
                    holds: Some(true),
                    why: format!("{} byte(s) in common, from {lo:#x}", hi - lo),
                }
            } else {
                Condition {
                    name,
                    holds: Some(false),
                    why: format!(
                        "[{:#x}, +{n}) and [{:#x}, +{m}) are disjoint",
                        a.address, b.address
                    ),
                }
            }
        }
        _ if a.address == b.address => Condition {
            name,
            holds: Some(true),
            why: format!("both start at {:#x}", a.address),
        },
        _ => Condition {
            name,
            holds: None,
            why: "the report gives no sizes and the addresses differ".into(),
        },
    }
}

fn writes(a: &Access, b: &Access) -> Condition {
    let name = "at least one of them writes";
    match (a.kind, b.kind) {
        (Some(x), Some(y)) => {
            let holds = x.writes() || y.writes();
            let an = |k: AccessKind| if k == AccessKind::Atomic { "an" } else { "a" };
            let why = format!("a is {} {}, b is {} {}", an(x), x.name(), an(y), y.name());
            Condition {
                name,
                holds: Some(holds),
                why,
            }
        }
        _ => Condition {
            name,
            holds: None,
            why: "the report does not say which access writes".into(),
        },
    }
}

fn threads(a: &Access, b: &Access) -> Condition {
    let same = a.cta == b.cta && a.thread == b.thread;
    let why = if same {
        "both are the same thread: program order orders them".to_string()
    } else if a.cta == b.cta {
        format!(
            "threads {} and {} of one CTA",
            xyz(&a.thread),
            xyz(&b.thread)
        )
    } else {
        format!(
            "threads of different CTAs, {} and {}",
            xyz(&a.cta),
            xyz(&b.cta)
        )
    };
    Condition {
        name: "they are in different threads",
        holds: Some(!same),
        why,
    }
}

/// Whether they are not morally strong, and why.
fn not_morally_strong(a: &Access, b: &Access) -> Condition {
    let name = "they are not morally strong";
    let no = |why: String| Condition {
        name,
        holds: Some(true),
        why,
    };
    for (tag, x) in [("a", a), ("b", b)] {
        match x.strong() {
            Some(false) => return no(format!("{tag}'s `{}` is weak", x.instr())),
            None => {
                return Condition {
                    name,
                    holds: None,
                    why: format!("the report gives no semantics for {tag}"),
                }
            }
            Some(true) => {}
        }
    }
    if let (Some(p), Some(q)) = (&a.proxy, &b.proxy) {
        if p != q {
            return no(format!("they use different proxies ({p} and {q})"));
        }
    }
    for (tag, x, y) in [("a", a, b), ("b", b, a)] {
        match x.effective_scope() {
            None => {
                return Condition {
                    name,
                    holds: None,
                    why: format!("the report gives no scope for {tag}"),
                }
            }
            Some(s) if !x.includes(s, y) => {
                return no(format!(
                    "the .{s} scope of {tag}'s `{}` does not include {}",
                    x.instr(),
                    y.place()
                ))
            }
            Some(_) => {}
        }
    }
    if a.address != b.address || a.bytes != b.bytes {
        return no(
            "they overlap only partly: morally strong accesses must cover the same bytes".into(),
        );
    }
    Condition {
        name,
        holds: Some(false),
        why: "both are strong, at scopes that include each other's threads, on the same bytes: they are morally strong, so by the model's definition this pair is no data race".into(),
    }
}

impl Race {
    /// The conditions of the definition of a data race, checked against the report.
    pub fn conditions(&self) -> Vec<Condition> {
        let (a, b) = (&self.first, &self.second);
        vec![
            overlap(a, b),
            writes(a, b),
            threads(a, b),
            not_morally_strong(a, b),
            Condition {
                name: "neither is before the other in causality order",
                holds: Some(true),
                why: self.reason.clone(),
            },
        ]
    }

    /// A way to order the pair, from where the two threads are.
    pub fn hint(&self) -> String {
        let (a, b) = (&self.first, &self.second);
        if self.conditions().iter().any(|c| c.holds == Some(false)) {
            return "none needed if the facts above are right: the pair does not meet the definition of a data race (see NO above), so the report itself is suspect".into();
        }
        let narrow = [a, b]
            .iter()
            .any(|x| x.effective_scope().is_some_and(|s| s < Scope::Gpu));
        if a.cta == b.cta {
            let warp = a.warp.is_some() && a.warp == b.warp;
            format!(
                "order them: bar.sync (__syncthreads()) between the two{}; or, if the race is intended, make both accesses strong (atomic or .relaxed)",
                if warp { ", or bar.warp.sync (__syncwarp()) as they are in one warp" } else { "" }
            )
        } else if narrow {
            "the threads are in different CTAs: widen the .cta scope to .gpu (atomics, fences and release/acquire)".into()
        } else {
            "the threads are in different CTAs, and bar.sync orders the threads of one CTA only: publish with a release at .gpu scope (st.release.gpu, or __threadfence() before a relaxed store or atomic) and read after an acquire at .gpu scope".into()
        }
    }

    /// The race in words.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (tag, x) in [("a", &self.first), ("b", &self.second)] {
            let _ = writeln!(s, "  {tag}: line {}: {}", x.line, x.instr());
            let _ = writeln!(s, "     {} by {}, at {}", x.nature(), x.place(), x.target());
        }
        let _ = writeln!(s, "  Why this is a data race (PTX memory model: two accesses to overlapping bytes, at least one a write, from different threads, not morally strong, unordered by causality order):");
        for c in self.conditions() {
            let mark = match c.holds {
                Some(true) => "yes",
                Some(false) => "NO ",
                None => " ? ",
            };
            let _ = writeln!(s, "    [{mark}] {}: {}", c.name, c.why);
        }
        let _ = writeln!(s, "  Missing: a causality-order edge a -> b or b -> a.");
        let _ = writeln!(s, "  Fix: {}.", self.hint());
        s
    }
}

impl RaceReport {
    /// The report in words.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let of = self
            .kernel
            .as_deref()
            .map_or(String::new(), |k| format!(" in kernel {k}"));
        if self.races.is_empty() {
            let _ = writeln!(s, "No data race{of} in the report.");
            return s;
        }
        let _ = writeln!(s, "{} data race(s){of}.", self.races.len());
        for (i, r) in self.races.iter().enumerate() {
            let seen = match r.seen {
                Some(Seen::Every) => " (seen on every explored schedule)",
                Some(Seen::Some) => " (seen on some explored schedules only)",
                None => "",
            };
            let _ = writeln!(s, "\nRace {}{seen}:", i + 1);
            s.push_str(&r.text());
        }
        s
    }
}
