//! Faults of the emulated program: values, never panics (STYLE "Three kinds of failure").
//!
//! A [`Fault`] says what went wrong ([`FaultKind`]) and where: kernel, CTA, warp, lane, the
//! PTX source line and instruction text, the program's own source line when the PTX carries
//! `.loc` ([`SourceLine`]), and the address involved when there is one.

use std::fmt;
use std::sync::Arc;

/// What went wrong in the emulated program, or which limit of the tool was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An access to an address that maps to no allocation or window.
    OutOfBounds {
        /// The state space the access was made in.
        space: String,
        /// Bytes accessed.
        size: u32,
        /// Why it is out of bounds (e.g. "past the end of a 1024-byte allocation").
        detail: String,
    },
    /// An address that is not a multiple of the access size.
    Misaligned {
        /// The required alignment.
        align: u32,
    },
    /// Threads wait at barriers that can never complete.
    BarrierDeadlock {
        /// A description of which barrier, which warps wait, and which have exited.
        detail: String,
    },
    /// A `.aligned` or `.sync` collective executed by a divergent warp, or with a member mask
    /// naming lanes that cannot join.
    DivergentCollective {
        /// What diverged.
        detail: String,
    },
    /// The launch ran more warp instructions than `--max-steps` allows.
    StepBudgetExhausted {
        /// The budget.
        budget: u64,
    },
    /// The launch ran longer than `--timeout` allows; it did not finish.
    TimedOut {
        /// The time allowed.
        timeout: std::time::Duration,
        /// CTAs that had finished (ended or faulted).
        ctas_done: u64,
        /// CTAs in the grid.
        ctas: u64,
        /// Warp instructions executed.
        steps: u64,
    },
    /// `trap` executed.
    Trap,
    /// `brkpt` executed.
    Breakpoint,
    /// A device-side `assert` failed (`__assertfail`).
    AssertFailed {
        /// The assertion text, file, line and function as the program passed them.
        message: String,
    },
    /// Undefined behaviour that the PTX ISA names and ptxemu detects.
    Undefined {
        /// What happened.
        detail: String,
    },
    /// A construct the interpreter does not implement.
    Unsupported {
        /// What is missing.
        what: String,
    },
    /// Memory the launch needs (a CTA's shared or local memory, a deeper call's frame, the
    /// race detector's shadow memory) is past the run's limit or refused by the host: a limit
    /// of the run, which [`super::Machine::launch`] reports as
    /// [`super::LaunchError::Memory`], not as a fault of the program.
    HostMemory(super::reserve::ReserveError),
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::OutOfBounds {
                space,
                size,
                detail,
            } => write!(f, "out-of-bounds {size}-byte {space} access: {detail}"),
            FaultKind::Misaligned { align } => {
                write!(f, "misaligned access: address is not a multiple of {align}")
            }
            FaultKind::BarrierDeadlock { detail } => write!(f, "barrier deadlock: {detail}"),
            FaultKind::DivergentCollective { detail } => {
                write!(f, "divergent collective: {detail}")
            }
            FaultKind::StepBudgetExhausted { budget } => write!(
                f,
                "step budget exhausted: more than {budget} warp instructions executed (raise --max-steps)"
            ),
            FaultKind::TimedOut {
                timeout,
                ctas_done,
                ctas,
                steps,
            } => write!(
                f,
                "stopped by --timeout {} after {ctas_done} of {ctas} CTA(s) done and {steps} warp instructions executed; the launch did not finish: no result",
                timeout.as_secs_f64()
            ),
            FaultKind::Trap => f.write_str("trap executed"),
            FaultKind::Breakpoint => f.write_str("brkpt executed"),
            FaultKind::AssertFailed { message } => write!(f, "assertion failed: {message}"),
            FaultKind::Undefined { detail } => write!(f, "undefined behaviour: {detail}"),
            FaultKind::Unsupported { what } => write!(f, "unsupported by ptxemu: {what}"),
            FaultKind::HostMemory(e) => write!(f, "{e}"),
        }
    }
}

/// One source position named by a `.loc`: the `.file`'s name, line and column.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceFrame {
    /// The name the `.file` directive gives (as written: often a full path).
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, 0 when the compiler gave none.
    pub col: u32,
}

impl fmt::Display for SourceFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.col > 0 {
            write!(f, ":{}", self.col)?;
        }
        Ok(())
    }
}

/// The program's source line of an instruction, from the `.loc` before it: where it is, and,
/// when it lies in an inlined function, the call sites it was inlined at (innermost first).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLine {
    /// The position the `.loc` gives.
    pub at: SourceFrame,
    /// The call sites, innermost first: the last is in the function the PTX was made from.
    pub inlined_at: Vec<SourceFrame>,
}

impl SourceFrame {
    /// As JSON: `file`, `line`, and `column` (`null` when the `.loc` gave none).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "file": &*self.file,
            "line": self.line,
            "column": (self.col > 0).then_some(self.col),
        })
    }
}

impl SourceLine {
    /// As JSON (`--json` and race reports): its position, and `inlined_at`, the call sites,
    /// innermost first (empty when it was not inlined).
    pub fn json(&self) -> serde_json::Value {
        let mut j = self.at.json();
        j["inlined_at"] = self.inlined_at.iter().map(SourceFrame::json).collect();
        j
    }
}

impl fmt::Display for SourceLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.at)?;
        for c in &self.inlined_at {
            write!(f, ", inlined at {c}")?;
        }
        Ok(())
    }
}

/// Where a fault happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultSite {
    /// The kernel's name as the PTX declares it (mangled); the message shows it demangled.
    pub kernel: String,
    /// The CTA's index in the grid.
    pub cta: [u32; 3],
    /// The warp's index in its CTA.
    pub warp: u32,
    /// The lane, when one lane is at fault.
    pub lane: Option<u32>,
    /// The thread's index in its CTA, when one lane is at fault.
    pub tid: Option<[u32; 3]>,
    /// The PTX file and 1-based line of the instruction.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The instruction's text.
    pub instr: String,
    /// The program's source line (from `.loc`), when the PTX gives one.
    pub source: Option<SourceLine>,
    /// The address involved, if any.
    pub address: Option<u64>,
}

/// A fault of the emulated program, with its site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// Where.
    pub site: FaultSite,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.site;
        write!(f, "{}", self.kind)?;
        write!(
            f,
            "\n  in kernel `{}`, CTA ({},{},{}), warp {}",
            crate::ir::kernel_name::display(&s.kernel),
            s.cta[0],
            s.cta[1],
            s.cta[2],
            s.warp
        )?;
        if let Some(lane) = s.lane {
            write!(f, ", lane {lane}")?;
        }
        if let Some(t) = s.tid {
            write!(f, " (thread ({},{},{}))", t[0], t[1], t[2])?;
        }
        if s.line > 0 {
            write!(f, "\n  at {}:{}: {}", s.file, s.line, s.instr)?;
        }
        if let Some(src) = &s.source {
            write!(f, "\n  source {src}")?;
        }
        if let Some(a) = s.address {
            write!(f, "\n  address 0x{a:x}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Fault {}

/// A fault detected deep inside an instruction, before the site is known: the kind, the
/// faulting lane and address. The executor attaches the site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The lane at fault, if one is.
    pub lane: Option<u32>,
    /// The address involved, if any.
    pub address: Option<u64>,
}

impl LaneFault {
    /// A fault with no lane or address.
    pub fn new(kind: FaultKind) -> LaneFault {
        LaneFault {
            kind,
            lane: None,
            address: None,
        }
    }

    /// Attaches the faulting lane.
    pub fn at_lane(mut self, lane: u32) -> LaneFault {
        self.lane = Some(lane);
        self
    }
}
