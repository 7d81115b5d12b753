//! Explaining a data-race report of `ptxemu run --race --json`: the two accesses, each
//! condition of the PTX memory model's definition of a data race checked against what the
//! report says about them, and the causality edge that is missing. Pictures are in [`draw`].
//!
//! The input is the JSON of the whole `run --json` output (an object with a `races` array) or
//! the `races` array alone. Each race has `first` and `second` accesses (`line`,
//! `instruction`, `cta`, `thread`, `address`, and optionally `source` (the `.loc` position),
//! `kind`, `sem`, `scope` (`null` for none), `space`, `warp`, `lane`, `bytes`, `proxy`,
//! `cluster`), a `reason` and optionally `seen`, `count` and `fence_sc_dependent`.

mod analysis;
pub mod draw;
mod parse;

pub use analysis::Condition;
pub use parse::{parse_report, ReportError};

use std::fmt::Write as _;

use models::vocab::Scope;

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
    /// The program's source position (`file:line` or `file:line:column`), when the PTX
    /// carries `.loc`.
    pub source: Option<String>,
    /// The launch argument whose buffer holds the address (`arg 1, byte 16`, with the
    /// parameter's name when it has its own), when the report names one.
    pub argument: Option<String>,
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
    /// How many pairs of dynamic accesses of the two instructions raced, when given.
    pub count: Option<u64>,
    /// Whether the run ordered the pair through Fence-SC order only, which another allowed
    /// order does not (false when not given).
    pub fence_sc_dependent: bool,
}

/// A race report.
#[derive(Clone, Debug, PartialEq)]
pub struct RaceReport {
    /// The kernel, when the report names it.
    pub kernel: Option<String>,
    /// The races.
    pub races: Vec<Race>,
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
        if let Some(a) = &self.argument {
            let _ = write!(s, " ({a})");
        }
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

impl RaceReport {
    /// The title of its pictures: the kernel the report names, else `name` (where it came
    /// from).
    pub fn title(&self, name: &str) -> String {
        match &self.kernel {
            Some(k) => format!("Data races in {}", emu::ir::kernel_name::display(k)),
            None => format!("Data races of {name}"),
        }
    }

    /// The report in words.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let of = self.kernel.as_deref().map_or(String::new(), |k| {
            format!(" in kernel {}", emu::ir::kernel_name::display(k))
        });
        if self.races.is_empty() {
            let _ = writeln!(s, "No data race{of} in the report.");
            return s;
        }
        let _ = writeln!(s, "{} data race(s){of}.", self.races.len());
        for (i, r) in self.races.iter().enumerate() {
            let mut notes: Vec<String> = Vec::new();
            match r.seen {
                Some(Seen::Every) => notes.push("seen on every explored schedule".into()),
                Some(Seen::Some) => notes.push("seen on some explored schedules only".into()),
                None => {}
            }
            if let Some(n) = r.count {
                let s = if n == 1 { "" } else { "s" };
                notes.push(format!("{n} racing access pair{s}"));
            }
            if r.fence_sc_dependent {
                notes.push("under another Fence-SC order".into());
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join("; "))
            };
            let _ = writeln!(s, "\nRace {}{notes}:", i + 1);
            s.push_str(&r.text());
        }
        s
    }
}
