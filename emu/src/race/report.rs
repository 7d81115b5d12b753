//! Race reports: both accesses in full, and why the model leaves them unordered, in its own
//! words (morally strong, causality order, scopes that do not include a thread).

use std::fmt;

use models::vocab::{FenceSem, Scope};

use super::op::{Kind, RaceOp, Sem};
use super::sc_order::NamedFence;
use super::shadow::{Acc, Rel};
use super::RaceShared;
use crate::exec::fault::SourceLine;
use crate::exec::program::info::InstrInfo;

/// Why an expected synchronisation did not happen, remembered per thread.
#[derive(Clone, Debug)]
pub enum Miss {
    /// An acquire met a release whose scope (or its own) does not include the other thread.
    Scope {
        /// The release.
        release: Rel,
        /// The acquire's instruction.
        acquire_pc: u32,
        /// The acquire's scope.
        acquire_scope: Scope,
    },
    /// A strong read did not observe a write carrying releases: the two are not morally
    /// strong.
    NotObserved {
        /// The write.
        write: Acc,
        /// The read's instruction.
        read_pc: u32,
    },
}

/// One access of a race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessReport {
    /// The instruction's index in the decoded program.
    pub pc: u32,
    /// Its PTX line (filled by [`RaceReport::locate`]).
    pub line: u32,
    /// Its text.
    pub instruction: String,
    /// The program's source line, when the PTX carries `.loc` (filled by
    /// [`RaceReport::locate`]).
    pub source: Option<SourceLine>,
    /// read, write or atomic.
    pub kind: &'static str,
    /// weak, relaxed, acquire, release, acq_rel, volatile or mmio.
    pub sem: &'static str,
    /// cta, cluster, gpu or sys; `None` for weak accesses (JSON `null`).
    pub scope: Option<&'static str>,
    /// global or shared.
    pub space: &'static str,
    /// `%ctaid`.
    pub cta: [u32; 3],
    /// `%tid`.
    pub thread: [u32; 3],
    /// The warp in the CTA.
    pub warp: u32,
    /// The lane.
    pub lane: u32,
    /// The state-space address (global address, or offset in the CTA's shared memory).
    pub address: u64,
    /// Bytes.
    pub bytes: u32,
    /// For shared memory in a launch with clusters of several CTAs: the `%ctaid` and cluster
    /// rank of the CTA that owns the bytes (the accessing CTA's, or a peer's reached through a
    /// `.shared::cluster` address).
    pub owner: Option<([u32; 3], u32)>,
    /// For a global access: the launch argument whose buffer holds the address (filled by
    /// [`RaceReport::name_arguments`]).
    pub argument: Option<super::BufferArg>,
}

/// A data race between two instructions (reported once per pair).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// The access that came first in the execution.
    pub first: AccessReport,
    /// The later access.
    pub second: AccessReport,
    /// Why they race, in the model's words.
    pub reason: String,
    /// How many pairs of dynamic accesses of these two instructions raced: each racing
    /// (earlier access, later access) once, whatever bytes they share; repeated accesses of
    /// one instruction that an access of it ordered after them stands for count once (a lower
    /// bound, docs/race.md).
    pub count: u64,
    /// Both accesses wrote identical bytes, made by lanes of one warp executing one
    /// instruction (the race is real under the PTX memory model; reports classify it apart,
    /// and `ptxemu run --race-allow-identical` accepts it).
    pub identical_lanes: bool,
    /// Whether this run ordered the pair through Fence-SC order, and another Fence-SC order
    /// consistent with everything the run read and wrote leaves it unordered.
    pub fence_sc_dependent: bool,
}

/// The races of one launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RaceReport {
    /// Races, ordered by instruction.
    pub races: Vec<Race>,
    /// Words of global memory with a shadow (memory cost).
    pub shadow_words: usize,
    /// Pairs this run ordered only through Fence-SC order that were not decided (the fence
    /// log was full): not reported, possibly races.
    pub sc_undecided: u64,
}

impl RaceReport {
    /// Fills in lines and instruction texts from the program.
    pub fn locate(&mut self, info: &[InstrInfo]) {
        for r in &mut self.races {
            for a in [&mut r.first, &mut r.second] {
                if let Some(i) = info.get(a.pc as usize) {
                    a.line = i.span.line;
                    a.instruction.clone_from(&i.text);
                    a.source = i.source.as_deref().cloned();
                }
            }
            let lines = |pc: u32| match info.get(pc as usize) {
                Some(i) => match &i.source {
                    Some(s) => format!("line {} ({})", i.span.line, s.at),
                    None => format!("line {}", i.span.line),
                },
                None => "line 0".into(),
            };
            r.reason = fill_lines(&r.reason, lines);
        }
    }
}

/// Replaces `@pc<N>@` markers with `line L` (and its source line when known).
fn fill_lines(text: &str, line: impl Fn(u32) -> String) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("@pc") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 3..];
        match tail.find('@') {
            Some(j) => {
                let pc: u32 = tail[..j].parse().unwrap_or(0);
                out.push_str(&line(pc));
                rest = &tail[j + 1..];
            }
            None => {
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

fn at(pc: u32) -> String {
    format!("@pc{pc}@")
}

fn describe(sh: &RaceShared, a: &Acc) -> AccessReport {
    let (kind, sem, scope) = match sh.ops.get(a.pc as usize).and_then(RaceOp::mem) {
        Some((kind, sem, scope)) => (
            if kind == Kind::Atomic || kind == Kind::Red {
                "atomic"
            } else if a.write {
                "write"
            } else {
                kind.name()
            },
            sem.name(),
            scope.map(|s| s.name()),
        ),
        // A cp.async's access (performed by the issuing thread's copy agent).
        _ => (if a.write { "write" } else { "read" }, "weak", None),
    };
    let (cta, thread) = sh.position(a.gtid);
    let local = (a.gtid & !super::cta::AGENTS) % sh.cta_threads.max(1);
    AccessReport {
        pc: a.pc,
        line: 0,
        instruction: String::new(),
        source: None,
        kind,
        sem,
        scope,
        space: if a.shared { "shared" } else { "global" },
        cta,
        thread,
        warp: local / 32,
        lane: local % 32,
        address: a.addr,
        bytes: u32::from(a.size),
        owner: None,
        argument: None,
    }
}

fn who(r: &AccessReport) -> String {
    format!(
        "thread ({},{},{}) of CTA ({},{},{})",
        r.thread[0], r.thread[1], r.thread[2], r.cta[0], r.cta[1], r.cta[2]
    )
}

fn mem_parts(sh: &RaceShared, a: &Acc) -> (Sem, Option<Scope>) {
    match sh.ops.get(a.pc as usize).and_then(RaceOp::mem) {
        Some((_, sem, scope)) => (sem, scope),
        None => (Sem::Weak, None),
    }
}

/// Why the pair is not morally strong.
fn not_ms(sh: &RaceShared, a: &Acc, b: &Acc, ra: &AccessReport, rb: &AccessReport) -> String {
    let (sa, ca) = mem_parts(sh, a);
    let (sb, cb) = mem_parts(sh, b);
    match (sa.strong(), sb.strong()) {
        (false, false) => return "both accesses are weak".into(),
        (false, true) => return format!("the {} at {} is weak", ra.kind, at(a.pc)),
        (true, false) => return format!("the {} at {} is weak", rb.kind, at(b.pc)),
        (true, true) => {}
    }
    let n = sh.cta_threads.max(1);
    let (ka, kb) = (a.gtid / n, b.gtid / n);
    if let Some(s) = ca.filter(|s| !sh.includes(*s, ka, kb)) {
        return format!(
            "the {} at {} does not include {} (scope {} covers {})",
            fence_name(sh, a.pc, s),
            at(a.pc),
            who(rb),
            s.name(),
            covers(s)
        );
    }
    if let Some(s) = cb.filter(|s| !sh.includes(*s, kb, ka)) {
        return format!(
            "the {} at {} does not include {} (scope {} covers {})",
            fence_name(sh, b.pc, s),
            at(b.pc),
            who(ra),
            s.name(),
            covers(s)
        );
    }
    "they overlap without covering the same bytes (a mixed-size race)".into()
}

fn covers(s: Scope) -> &'static str {
    if s == Scope::Cluster {
        "one cluster"
    } else {
        "one CTA"
    }
}

fn fence_name(sh: &RaceShared, pc: u32, scope: Scope) -> String {
    match sh.ops.get(pc as usize) {
        Some(RaceOp::Fence {
            membar: true,
            scope,
            ..
        }) => format!(
            "membar.{}",
            match scope {
                Scope::Cta => "cta",
                Scope::Gpu => "gl",
                Scope::Cluster | Scope::Sys => "sys",
            }
        ),
        Some(RaceOp::Fence { sem, scope, .. }) => {
            format!("fence.{}.{}", FenceSem::name(*sem), scope.name())
        }
        Some(RaceOp::Mem { kind, sem, .. }) => {
            let op = match kind {
                Kind::Atomic => "atom",
                Kind::Red => "red",
                Kind::Write => "st",
                Kind::Read | Kind::ReadNc => "ld",
            };
            format!("{op}.{}.{}", sem.name(), scope.name())
        }
        _ => format!("release at scope {}", scope.name()),
    }
}

/// Why causality order does not relate the pair.
fn not_ordered(
    sh: &RaceShared,
    ra: &AccessReport,
    rb: &AccessReport,
    miss: Option<&Miss>,
    barriers: bool,
) -> String {
    let copy = [ra, rb]
        .into_iter()
        .find(|r| sh.ops.get(r.pc as usize) == Some(&RaceOp::CpAsync));
    let bulk = [ra, rb]
        .into_iter()
        .find(|r| matches!(sh.ops.get(r.pc as usize), Some(RaceOp::Bulk { .. })));
    let mma = [ra, rb]
        .into_iter()
        .find(|r| sh.ops.get(r.pc as usize) == Some(&RaceOp::AsyncMma));
    if let Some(c) = mma {
        return format!(
            "the matrix operation (wgmma.mma_async / tcgen05.mma) at {} reads its shared-memory operands asynchronously (async proxy): the reads are ordered after what the issuing warp's lanes (tcgen05.mma: the issuing thread) did before it, and before another access only through a wgmma.wait_group (tcgen05.commit's mbarrier phase) that retires it followed by a barrier or release/acquire pattern to that access's thread",
            at(c.pc)
        );
    }
    if let Some(c) = bulk {
        return format!(
            "the bulk copy at {} is performed asynchronously by the async proxy: only the mbarrier phase it completes on (for the threads that wait for it) or a cp.async.bulk.wait_group of {} covering its group orders it",
            at(c.pc),
            who(c)
        );
    }
    if let Some(c) = copy {
        return format!(
            "the cp.async at {} is performed asynchronously: only a cp.async.wait_group/wait_all (or an mbarrier phase it arrives on) of {} orders it, and other threads only through a barrier or release/acquire pattern after that",
            at(c.pc),
            who(c)
        );
    }
    match miss {
        Some(Miss::Scope {
            release,
            acquire_pc,
            acquire_scope,
        }) => {
            let (rc, _) = sh.position(release.origin);
            if !sh.includes(release.scope, release.cta, cta_linear(sh, rb.cta)) {
                return format!(
                    "the {} at {} in CTA ({},{},{}) does not include {}, so its release pattern does not synchronise with the acquire at {}",
                    fence_name(sh, release.pc, release.scope),
                    at(release.pc),
                    rc[0], rc[1], rc[2],
                    who(rb),
                    at(*acquire_pc)
                );
            }
            return format!(
                "the acquire {} at {} does not include thread of CTA ({},{},{}) that released at {}",
                fence_name(sh, *acquire_pc, *acquire_scope),
                at(*acquire_pc),
                rc[0],
                rc[1],
                rc[2],
                at(release.pc)
            );
        }
        Some(Miss::NotObserved { write, read_pc }) => {
            let w = describe(sh, write);
            return format!(
                "the strong read at {} does not observe the {} at {} by {} ({}{}): the two are not morally strong, so no release pattern synchronises with it",
                at(*read_pc),
                w.kind,
                at(write.pc),
                who(&w),
                w.sem,
                w.scope.map(|s| format!(".{s}")).unwrap_or_default()
            );
        }
        None => {}
    }
    if ra.cta != rb.cta && sh.cluster_size() > 1 && same_cluster(sh, ra, rb) {
        return format!(
            "no release pattern of {} is observed by an acquire pattern of {}, and no barrier.cluster arrive (release) / wait (acquire) lies between them; bar.sync orders threads of one CTA only",
            who(ra),
            who(rb)
        );
    }
    if ra.cta != rb.cta {
        let mut s = format!(
            "no release pattern of {} is observed by an acquire pattern of {}",
            who(ra),
            who(rb)
        );
        if barriers {
            s.push_str("; bar.sync orders threads of one CTA only");
        }
        return s;
    }
    if ra.warp == rb.warp {
        return "no barrier, bar.warp.sync or release/acquire pattern lies between them (lanes of one warp are not ordered by running together)".into();
    }
    "no barrier or release/acquire pattern lies between them".into()
}

fn same_cluster(sh: &RaceShared, a: &AccessReport, b: &AccessReport) -> bool {
    sh.cluster_of(cta_linear(sh, a.cta)) == sh.cluster_of(cta_linear(sh, b.cta))
}

fn cta_linear(sh: &RaceShared, c: [u32; 3]) -> u32 {
    c[0] + sh.grid[0] * (c[1] + sh.grid[1] * c[2])
}

/// Names `owner` (a CTA linear in the grid) as the owner of a shared-memory race's bytes.
pub(crate) fn set_owner(sh: &RaceShared, race: &mut Race, owner: u32) {
    let (cta, _) = sh.position(owner * sh.cta_threads);
    let rank = sh.rank_of(owner);
    for a in [&mut race.first, &mut race.second] {
        if a.space == "shared" {
            a.owner = Some((cta, rank));
        }
    }
}

/// A race between `first` (earlier) and `second`, with the reason.
pub(crate) fn race(
    sh: &RaceShared,
    first: Acc,
    second: Acc,
    miss: Option<&Miss>,
    barriers: bool,
) -> Race {
    let ra = describe(sh, &first);
    let rb = describe(sh, &second);
    let reason = format!(
        "not morally strong: {}; not ordered by causality order: {}",
        not_ms(sh, &first, &second, &ra, &rb),
        not_ordered(sh, &ra, &rb, miss, barriers)
    );
    Race {
        first: ra,
        second: rb,
        reason,
        count: 1,
        identical_lanes: false,
        fence_sc_dependent: false,
    }
}

/// A race between `first` and `second` that this run ordered only through Fence-SC order,
/// with the fences (pc, thread) that ordered it: one after the first access in its thread,
/// one before the second (`sc_order`).
pub(crate) fn race_under_other_sc_order(
    sh: &RaceShared,
    first: Acc,
    second: Acc,
    after_first: Option<NamedFence>,
    before_second: Option<NamedFence>,
) -> Race {
    let ra = describe(sh, &first);
    let rb = describe(sh, &second);
    let fence = |f: Option<NamedFence>, fallback: &str| match f {
        Some((pc, t)) => {
            let (c, th) = sh.position(t);
            format!(
                "the fence.sc at {} by thread ({},{},{}) of CTA ({},{},{})",
                at(pc),
                th[0],
                th[1],
                th[2],
                c[0],
                c[1],
                c[2]
            )
        }
        None => fallback.to_string(),
    };
    let x = fence(after_first, "a fence.sc after the first access");
    let y = fence(before_second, "a fence.sc before the second access");
    let reason = format!(
        "not morally strong: {}; not ordered by causality order under every Fence-SC order: in this run only Fence-SC order orders them ({x}, after the first access, ran before {y}, before the second); nothing the run read or wrote forces that order, and under the order the model equally allows, with {y} first, no release/acquire pattern or barrier orders the pair",
        not_ms(sh, &first, &second, &ra, &rb),
    );
    Race {
        first: ra,
        second: rb,
        reason,
        count: 1,
        identical_lanes: false,
        fence_sc_dependent: true,
    }
}

impl fmt::Display for AccessReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}{} of {} bytes at {} 0x{:x}{}{} by {} (warp {}, lane {}), line {}{}: {}",
            self.kind,
            self.sem,
            self.scope.map(|s| format!(".{s}")).unwrap_or_default(),
            self.bytes,
            self.space,
            self.address,
            match &self.argument {
                Some(a) => format!(" ({a})"),
                None => String::new(),
            },
            match self.owner {
                Some((c, r)) => format!(" of CTA ({},{},{}) (cluster rank {r})", c[0], c[1], c[2]),
                None => String::new(),
            },
            who(self),
            self.warp,
            self.lane,
            self.line,
            match &self.source {
                Some(s) => format!(" ({s})"),
                None => String::new(),
            },
            self.instruction
        )
    }
}

/// The race's lines: both accesses and the reason (the caller writes the heading).
impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  first:  {}", self.first)?;
        writeln!(f, "  second: {}", self.second)?;
        write!(f, "  why:    {}", self.reason)?;
        if self.identical_lanes {
            write!(
                f,
                "\n  class:  identical bytes written by lanes of one instruction (a race under the PTX memory model all the same)"
            )?;
        }
        Ok(())
    }
}
