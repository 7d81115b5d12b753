//! Events of a candidate execution and their attributes (memory-model spec §2.1): kind,
//! thread position, location, value, strength, scope, memory-order tags and proxy.
//!
//! Locations come in two kinds: the *physical* location (`loc`: aliases of one object share
//! it) and the *virtual* (generic) address (`vloc`: a generic alias has its own; texture,
//! surface and constant aliases use their target's).

use crate::vocab::{Proxy, Scope};

/// What an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A memory read.
    Read,
    /// A memory write (initial values included).
    Write,
    /// A fence (memory fence or proxy fence).
    Fence,
    /// A CTA barrier (one event per barrier instruction executed, as Dat3M models it).
    Barrier,
}

/// Which fence an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceKind {
    /// `fence.sc` / `membar`.
    Sc,
    /// `fence.acq_rel` (and a bare `fence`).
    AcqRel,
    /// `fence.acquire`.
    Acquire,
    /// `fence.release`.
    Release,
    /// `fence.proxy.P` for a proxy P (no scope).
    Proxy(Proxy),
    /// `fence.proxy.alias`.
    Alias,
}

/// A barrier event's identity: instance, optional named-barrier id and quorum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarrierTag {
    /// The barrier instance number `N`.
    pub instance: i64,
    /// The named-barrier id, if given.
    pub id: Option<i64>,
    /// The quorum, if given.
    pub quorum: Option<i64>,
    /// `bar.arrive` (arrives, never waits).
    pub arrive: bool,
}

/// Where a thread sits in the thread hierarchy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ThreadPos {
    /// Device.
    pub gpu: u32,
    /// Cluster (a CTA launched without a cluster is its own cluster).
    pub cluster: u32,
    /// CTA.
    pub cta: u32,
}

impl ThreadPos {
    /// Whether an operation of scope `s` by a thread at `self` includes a thread at `o`.
    pub fn includes(&self, s: Scope, o: &ThreadPos) -> bool {
        match s {
            Scope::Sys => true,
            Scope::Gpu => self.gpu == o.gpu,
            Scope::Cluster => self.gpu == o.gpu && self.cluster == o.cluster,
            Scope::Cta => self.gpu == o.gpu && self.cta == o.cta,
        }
    }
}

/// One event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// What it is.
    pub kind: EventKind,
    /// The thread (index), or `None` for an initial write.
    pub thread: Option<u32>,
    /// The thread's position (meaningless for initial writes).
    pub pos: ThreadPos,
    /// Physical location (memory events).
    pub loc: Option<u32>,
    /// Virtual (generic) address (memory events).
    pub vloc: Option<u32>,
    /// The value read or written.
    pub value: i64,
    /// Strong (relaxed, acquire, release, volatile, mmio, RMWs, fences).
    pub strong: bool,
    /// The scope of a strong operation.
    pub scope: Option<Scope>,
    /// An acquire read (`ld.acquire`, the read half of an acquiring RMW).
    pub acquire: bool,
    /// A release write (`st.release`, the write half of a releasing RMW).
    pub release: bool,
    /// For fences: which.
    pub fence: Option<FenceKind>,
    /// The proxy the event goes through (`None` for initial writes, barriers and alias
    /// fences, which are same-proxy with nothing).
    pub proxy: Option<Proxy>,
    /// Half of a read-modify-write.
    pub rmw: bool,
    /// The read half of a `red` (never the start of an acquire pattern in the ISA's reading).
    pub red: bool,
    /// For barriers: which.
    pub barrier: Option<BarrierTag>,
    /// A short text for reports (instruction as written, or `x = 0` for initial writes).
    pub text: String,
    /// The instruction's index in its thread (for reports).
    pub instr: u32,
}

impl Event {
    /// An initial write of `value` to a location.
    pub fn init(loc: u32, vloc: u32, value: i64, text: String) -> Event {
        Event {
            kind: EventKind::Write,
            thread: None,
            pos: ThreadPos::default(),
            loc: Some(loc),
            vloc: Some(vloc),
            value,
            strong: false,
            scope: None,
            acquire: false,
            release: false,
            fence: None,
            proxy: None,
            rmw: false,
            red: false,
            barrier: None,
            text,
            instr: 0,
        }
    }

    /// Whether this is an initial write.
    pub fn is_init(&self) -> bool {
        self.thread.is_none()
    }

    /// Whether this is a memory access.
    pub fn is_mem(&self) -> bool {
        matches!(self.kind, EventKind::Read | EventKind::Write)
    }
}
