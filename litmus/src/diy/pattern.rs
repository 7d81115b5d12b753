//! Cycle templates: cycles whose annotations, scopes and placements may be left open with `*`
//! (`PodWW[w,rel.*] Rfe@* PodRR[acq.*,w] Fre@*`), to be filled with each of the semantics,
//! scopes and placements an enumeration is given. A template with nothing open is a cycle.

use models::vocab::{Proxy, Scope};

use std::fmt;

use super::edge::{proxy_word, Ann, Dir, Edge, EdgeKind, Sem};

/// A choice a template makes, or leaves to the enumeration (`*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pick<T> {
    /// This value.
    One(T),
    /// Each value the enumeration is given.
    Each,
}

/// An access semantics without its scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SemKind {
    /// `w`
    Weak,
    /// `vol`
    Volatile,
    /// `rlx`
    Relaxed,
    /// `acq` (reads)
    Acquire,
    /// `rel` (writes)
    Release,
}

impl SemKind {
    /// Every kind, weakest first.
    pub const ALL: [SemKind; 5] = [
        SemKind::Weak,
        SemKind::Volatile,
        SemKind::Relaxed,
        SemKind::Acquire,
        SemKind::Release,
    ];

    /// The semantics at scope `s` (ignored by weak and volatile).
    pub fn at(self, s: Scope) -> Sem {
        match self {
            SemKind::Weak => Sem::Weak,
            SemKind::Volatile => Sem::Volatile,
            SemKind::Relaxed => Sem::Relaxed(s),
            SemKind::Acquire => Sem::Acquire(s),
            SemKind::Release => Sem::Release(s),
        }
    }

    /// Whether the semantics names a scope.
    pub fn scoped(self) -> bool {
        matches!(self, SemKind::Relaxed | SemKind::Acquire | SemKind::Release)
    }

    /// Reads a word of the cycle syntax (`w`, `weak`, `rlx`, `relaxed`, …).
    pub fn from_word(w: &str) -> Option<SemKind> {
        Some(match w {
            "w" | "weak" => SemKind::Weak,
            "vol" | "volatile" => SemKind::Volatile,
            "rlx" | "relaxed" => SemKind::Relaxed,
            "acq" | "acquire" => SemKind::Acquire,
            "rel" | "release" => SemKind::Release,
            _ => return None,
        })
    }

    /// The short word.
    pub fn word(self) -> &'static str {
        self.at(Scope::Gpu).word()
    }
}

/// The annotation of one end in a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AnnPattern {
    /// The semantics, or each (`*`).
    pub sem: Pick<SemKind>,
    /// The scope of a scoped semantics, or each (`rlx.*`, and `*` alone).
    pub scope: Pick<Scope>,
    /// The proxy.
    pub proxy: Proxy,
}

impl AnnPattern {
    /// The pattern of one annotation.
    pub fn of(a: Ann) -> AnnPattern {
        let kind = match a.sem {
            Sem::Weak => SemKind::Weak,
            Sem::Volatile => SemKind::Volatile,
            Sem::Relaxed(_) => SemKind::Relaxed,
            Sem::Acquire(_) => SemKind::Acquire,
            Sem::Release(_) => SemKind::Release,
        };
        AnnPattern {
            sem: Pick::One(kind),
            scope: Pick::One(a.sem.scope().unwrap_or(Scope::Gpu)),
            proxy: a.proxy,
        }
    }

    /// The annotation, when nothing is left open.
    pub fn concrete(self) -> Option<Ann> {
        match (self.sem, self.scope) {
            (Pick::One(k), Pick::One(s)) => Some(Ann {
                sem: k.at(s),
                proxy: self.proxy,
            }),
            (Pick::One(k), Pick::Each) if !k.scoped() => Some(Ann {
                sem: k.at(Scope::Gpu),
                proxy: self.proxy,
            }),
            _ => None,
        }
    }

    /// Every annotation the pattern stands for on an access of direction `d`, given the
    /// enumeration's semantics and scopes, in a fixed order (semantics as listed, then
    /// scopes as listed); kinds that do not suit `d` are left out.
    pub fn each(self, d: Dir, sems: &[SemKind], scopes: &[Scope]) -> Vec<Ann> {
        let kinds: Vec<SemKind> = match self.sem {
            Pick::One(k) => vec![k],
            Pick::Each => sems.to_vec(),
        };
        let mut out = Vec::new();
        for k in kinds {
            let scopes: Vec<Scope> = if !k.scoped() {
                vec![Scope::Gpu]
            } else {
                match self.scope {
                    Pick::One(s) => vec![s],
                    Pick::Each => scopes.to_vec(),
                }
            };
            for s in scopes {
                let sem = k.at(s);
                if sem.fits(d) {
                    let a = Ann {
                        sem,
                        proxy: self.proxy,
                    };
                    if !out.contains(&a) {
                        out.push(a);
                    }
                }
            }
        }
        out
    }
}

/// One edge of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EdgePattern {
    /// The relation (a fence without a scope takes each scope).
    pub kind: EdgeKind,
    /// The source's annotation, if given.
    pub src: Option<AnnPattern>,
    /// The target's annotation, if given.
    pub tgt: Option<AnnPattern>,
    /// The placement of an external edge, if given.
    pub place: Option<Pick<Scope>>,
}

impl EdgePattern {
    /// The template of a plain edge of kind `kind`.
    pub fn plain(kind: EdgeKind) -> EdgePattern {
        EdgePattern {
            kind,
            src: None,
            tgt: None,
            place: None,
        }
    }

    /// The edge, when no annotation or placement is left open (a fence's missing scope is
    /// kept: a cycle refuses it, an enumeration fills it).
    pub fn concrete(self) -> Option<Edge> {
        let ann = |a: Option<AnnPattern>| match a {
            None => Some(None),
            Some(p) => p.concrete().map(Some),
        };
        let place = match self.place {
            None => None,
            Some(Pick::One(s)) => Some(s),
            Some(Pick::Each) => return None,
        };
        Some(Edge {
            kind: self.kind,
            src: ann(self.src)?,
            tgt: ann(self.tgt)?,
            place,
        })
    }
}

impl fmt::Display for AnnPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sem {
            Pick::One(k) => f.write_str(k.word())?,
            Pick::Each => f.write_str("*")?,
        }
        let scoped = match self.sem {
            Pick::One(k) => k.scoped(),
            Pick::Each => true,
        };
        if scoped {
            match self.scope {
                Pick::One(s) => write!(f, ".{}", s.name())?,
                Pick::Each => f.write_str(".*")?,
            }
        }
        if self.proxy != Proxy::Generic {
            write!(f, ".{}", proxy_word(self.proxy))?;
        }
        Ok(())
    }
}

impl fmt::Display for EdgePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        match (self.src, self.tgt) {
            (None, None) => {}
            (Some(a), Some(b)) if a == b => write!(f, "[{a}]")?,
            (a, b) => {
                let show = |x: Option<AnnPattern>| x.map_or(String::new(), |a| a.to_string());
                write!(f, "[{},{}]", show(a), show(b))?;
            }
        }
        match self.place {
            None => {}
            Some(Pick::One(s)) => write!(f, "@{}", s.name())?,
            Some(Pick::Each) => f.write_str("@*")?,
        }
        Ok(())
    }
}
