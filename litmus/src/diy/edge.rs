//! The vocabulary of cycles: the edges of diy7 (communication, program order, dependencies,
//! fences, read-modify-writes) and the PTX annotations of their ends (access semantics, scope,
//! proxy) and of external edges (where the two threads sit).
//!
//! Everything here prints in the cycle syntax that `syntax.rs` reads (`docs/diy.md` has the
//! grammar), so a printed edge parses back to itself.

use std::fmt;

use models::vocab::{FenceSem, Proxy, Scope};

/// The direction of an access: a write or a read. `W` sorts before `R`, so that the canonical
/// rotation of a cycle puts writing threads first, as diy7's family names do (`WW+RR` is MP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dir {
    /// A write.
    W,
    /// A read.
    R,
}

impl Dir {
    /// The letter of the direction.
    pub fn letter(self) -> char {
        match self {
            Dir::W => 'W',
            Dir::R => 'R',
        }
    }
}

/// A communication relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Com {
    /// Reads-from: a write to a read of its value.
    Rf,
    /// From-reads: a read to a write coherence-after the one it read.
    Fr,
    /// Coherence: a write to a write coherence-after it.
    Co,
}

impl Com {
    /// The relation's source direction.
    pub fn src(self) -> Dir {
        match self {
            Com::Rf | Com::Co => Dir::W,
            Com::Fr => Dir::R,
        }
    }

    /// The relation's target direction.
    pub fn tgt(self) -> Dir {
        match self {
            Com::Rf => Dir::R,
            Com::Fr | Com::Co => Dir::W,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Com::Rf => "Rf",
            Com::Fr => "Fr",
            Com::Co => "Co",
        }
    }
}

/// Whether an edge joins two threads (`e`) or stays in one (`i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reach {
    /// Between different threads.
    External,
    /// Within one thread, forward in program order.
    Internal,
}

/// A dependency from a read to a later access of its thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dep {
    /// The read's value computes the later access's address.
    Addr,
    /// The read's value computes the later write's value.
    Data,
    /// The read's value decides a branch before the later access.
    Ctrl,
}

impl Dep {
    fn name(self) -> &'static str {
        match self {
            Dep::Addr => "Addr",
            Dep::Data => "Data",
            Dep::Ctrl => "Ctrl",
        }
    }
}

/// Whether a program-order edge stays on its location (`s`) or moves to another (`d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loc {
    /// The same location.
    Same,
    /// A different location.
    Different,
}

impl Loc {
    fn letter(self) -> char {
        match self {
            Loc::Same => 's',
            Loc::Different => 'd',
        }
    }
}

/// What an edge is, with the directions of its ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// `Rfe`, `Rfi`, `Fre`, `Fri`, `Coe`, `Coi` (also read as `Wse`/`Wsi`).
    Com(Com, Reach),
    /// `PodXY` / `PosXY`: program order to a different or the same location.
    Po(Loc, Dir, Dir),
    /// `DpAddrdY`, `DpDatadW`, `DpCtrldY` (and `s` for the same location): from a read.
    Dp(Dep, Loc, Dir),
    /// `Fence.SEM.SCOPEdXY`: program order with a `fence.SEM.SCOPE` between the two accesses.
    /// The scope may be left open in an enumeration's alphabet (`Fence.scdWR`), never in a
    /// test.
    Fence(FenceSem, Option<Scope>, Loc, Dir, Dir),
    /// `Rmw`: the read and the write of one `atom.exch`.
    Rmw,
}

impl EdgeKind {
    /// The direction of the edge's source.
    pub fn src(self) -> Dir {
        match self {
            EdgeKind::Com(c, _) => c.src(),
            EdgeKind::Po(_, s, _) | EdgeKind::Fence(_, _, _, s, _) => s,
            EdgeKind::Dp(..) | EdgeKind::Rmw => Dir::R,
        }
    }

    /// The direction of the edge's target.
    pub fn tgt(self) -> Dir {
        match self {
            EdgeKind::Com(c, _) => c.tgt(),
            EdgeKind::Po(_, _, t) | EdgeKind::Dp(_, _, t) | EdgeKind::Fence(_, _, _, _, t) => t,
            EdgeKind::Rmw => Dir::W,
        }
    }

    /// Whether the edge joins two threads.
    pub fn is_external(self) -> bool {
        matches!(self, EdgeKind::Com(_, Reach::External))
    }

    /// Whether the edge's target accesses another location than its source.
    pub fn changes_location(self) -> bool {
        match self {
            EdgeKind::Po(l, ..) | EdgeKind::Dp(_, l, _) | EdgeKind::Fence(_, _, l, _, _) => {
                l == Loc::Different
            }
            EdgeKind::Com(..) | EdgeKind::Rmw => false,
        }
    }

    /// Whether the edge is program order (with or without a fence or dependency): two such
    /// edges in a row compose into one.
    pub fn is_program_order(self) -> bool {
        matches!(
            self,
            EdgeKind::Po(..) | EdgeKind::Dp(..) | EdgeKind::Fence(..)
        )
    }

    /// The communication relation of the edge, if it is one.
    pub fn com(self) -> Option<Com> {
        match self {
            EdgeKind::Com(c, _) => Some(c),
            EdgeKind::Po(..) | EdgeKind::Dp(..) | EdgeKind::Fence(..) | EdgeKind::Rmw => None,
        }
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EdgeKind::Com(c, r) => {
                let e = match r {
                    Reach::External => 'e',
                    Reach::Internal => 'i',
                };
                write!(f, "{}{e}", c.name())
            }
            EdgeKind::Po(l, s, t) => {
                let base = match l {
                    Loc::Same => "Pos",
                    Loc::Different => "Pod",
                };
                write!(f, "{base}{}{}", s.letter(), t.letter())
            }
            EdgeKind::Dp(d, l, t) => write!(f, "Dp{}{}{}", d.name(), l.letter(), t.letter()),
            EdgeKind::Fence(sem, scope, l, s, t) => {
                write!(f, "Fence.{}", sem.name())?;
                if let Some(sc) = scope {
                    write!(f, ".{}", sc.name())?;
                }
                write!(f, "{}{}{}", l.letter(), s.letter(), t.letter())
            }
            EdgeKind::Rmw => f.write_str("Rmw"),
        }
    }
}

/// The semantics of one access, with its scope where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sem {
    /// `.weak` (the default of `ld`/`st`).
    Weak,
    /// `.volatile`: relaxed at system scope, without a scope qualifier of its own.
    Volatile,
    /// `.relaxed.S`.
    Relaxed(Scope),
    /// `.acquire.S` (reads only).
    Acquire(Scope),
    /// `.release.S` (writes only).
    Release(Scope),
}

impl Sem {
    /// The scope, for a strong access that names one.
    pub fn scope(self) -> Option<Scope> {
        match self {
            Sem::Weak | Sem::Volatile => None,
            Sem::Relaxed(s) | Sem::Acquire(s) | Sem::Release(s) => Some(s),
        }
    }

    /// Whether an access of direction `d` can have these semantics.
    pub fn fits(self, d: Dir) -> bool {
        match self {
            Sem::Weak | Sem::Volatile | Sem::Relaxed(_) => true,
            Sem::Acquire(_) => d == Dir::R,
            Sem::Release(_) => d == Dir::W,
        }
    }

    /// The short word of the cycle syntax (`w`, `vol`, `rlx`, `acq`, `rel`).
    pub fn word(self) -> &'static str {
        match self {
            Sem::Weak => "w",
            Sem::Volatile => "vol",
            Sem::Relaxed(_) => "rlx",
            Sem::Acquire(_) => "acq",
            Sem::Release(_) => "rel",
        }
    }

    /// How strong the semantics is, for "a stronger annotation never allows more": weak 0,
    /// relaxed and volatile 1, acquire and release 2 (at the same scope, and a wider scope
    /// is stronger).
    pub fn strength(self) -> u8 {
        match self {
            Sem::Weak => 0,
            Sem::Volatile | Sem::Relaxed(_) => 1,
            Sem::Acquire(_) | Sem::Release(_) => 2,
        }
    }
}

/// The annotation of one end of an edge: the access's semantics and the proxy it goes
/// through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ann {
    /// Semantics and scope.
    pub sem: Sem,
    /// Proxy: generic, or texture, surface or constant (through a virtual alias of the
    /// location).
    pub proxy: Proxy,
}

impl Ann {
    /// A generic-proxy annotation.
    pub fn generic(sem: Sem) -> Ann {
        Ann {
            sem,
            proxy: Proxy::Generic,
        }
    }

    /// The default annotation of a plain access: weak, generic.
    pub const WEAK: Ann = Ann {
        sem: Sem::Weak,
        proxy: Proxy::Generic,
    };
}

/// The short word of a proxy in the cycle syntax.
pub fn proxy_word(p: Proxy) -> &'static str {
    match p {
        Proxy::Texture => "tex",
        Proxy::Surface => "sur",
        Proxy::Constant => "const",
        Proxy::Generic | Proxy::Async | Proxy::Tensormap | Proxy::Fabric | Proxy::ReadOnly => {
            "generic"
        }
    }
}

impl fmt::Display for Ann {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.sem.word())?;
        if let Some(s) = self.sem.scope() {
            write!(f, ".{}", s.name())?;
        }
        if self.proxy != Proxy::Generic {
            write!(f, ".{}", proxy_word(self.proxy))?;
        }
        Ok(())
    }
}

/// One edge of a cycle as written: what it is, the annotations given for its two ends (none:
/// the default, or what the neighbouring edge says), and for an external edge, the narrowest
/// scope that contains both threads (`@cta`: one CTA; `@cluster`: two CTAs of one cluster;
/// `@gpu`: two clusters of one GPU; `@sys`: two GPUs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The relation.
    pub kind: EdgeKind,
    /// The source's annotation, if given.
    pub src: Option<Ann>,
    /// The target's annotation, if given.
    pub tgt: Option<Ann>,
    /// Where the two threads of an external edge sit, if given.
    pub place: Option<Scope>,
}

impl Edge {
    /// An unannotated edge.
    pub fn plain(kind: EdgeKind) -> Edge {
        Edge {
            kind,
            src: None,
            tgt: None,
            place: None,
        }
    }
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        match (self.src, self.tgt) {
            (None, None) => {}
            (Some(a), Some(b)) if a == b => write!(f, "[{a}]")?,
            (a, b) => {
                let show = |x: Option<Ann>| x.map_or(String::new(), |a| a.to_string());
                write!(f, "[{},{}]", show(a), show(b))?;
            }
        }
        if let Some(p) = self.place {
            write!(f, "@{}", p.name())?;
        }
        Ok(())
    }
}

/// A whole cycle as written: its edges in order, separated by spaces.
pub fn cycle_text(edges: &[Edge]) -> String {
    edges
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}
