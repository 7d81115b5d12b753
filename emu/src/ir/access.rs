//! How `ld` and `st` meet memory: the combinations of semantics, the non-coherent path and
//! cache operators that PTX allows, as types in which the others cannot be written (a cache
//! operator with `.relaxed`, `.nc` with a semantics qualifier, `.wb` on a load, `.lu` on a
//! store). The parser refuses those combinations when it builds these values.

use models::vocab::{LoadSem, Scope, StoreSem};

use super::CacheOp;

/// A load's cache operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadCop {
    /// `.ca`
    Ca,
    /// `.cg`
    Cg,
    /// `.cs`
    Cs,
    /// `.lu`
    Lu,
    /// `.cv`
    Cv,
}

/// A store's cache operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreCop {
    /// `.wb`
    Wb,
    /// `.cg`
    Cg,
    /// `.cs`
    Cs,
    /// `.wt`
    Wt,
}

/// The semantics of a load other than weak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OrderedLoad {
    /// `.volatile`
    Volatile,
    /// `.relaxed.scope`
    Relaxed(Scope),
    /// `.acquire.scope`
    Acquire(Scope),
    /// `.mmio.relaxed.sys`
    Mmio,
}

/// The semantics of a store other than weak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OrderedStore {
    /// `.volatile`
    Volatile,
    /// `.relaxed.scope`
    Relaxed(Scope),
    /// `.release.scope`
    Release(Scope),
    /// `.mmio.relaxed.sys`
    Mmio,
}

/// How a load reads memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadMode {
    /// A weak load (`.weak` written or no semantics), with an optional cache operator.
    Weak {
        /// Whether `.weak` was written.
        written: bool,
        /// The cache operator.
        cop: Option<LoadCop>,
    },
    /// `.nc`: the non-coherent read-only path (no semantics), with an optional cache operator.
    NonCoherent {
        /// The cache operator.
        cop: Option<LoadCop>,
    },
    /// A strong or volatile load (no cache operator).
    Ordered(OrderedLoad),
}

/// How a store writes memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreMode {
    /// A weak store, with an optional cache operator.
    Weak {
        /// Whether `.weak` was written.
        written: bool,
        /// The cache operator.
        cop: Option<StoreCop>,
    },
    /// A strong or volatile store (no cache operator).
    Ordered(OrderedStore),
}

impl From<LoadCop> for CacheOp {
    fn from(c: LoadCop) -> CacheOp {
        match c {
            LoadCop::Ca => CacheOp::Ca,
            LoadCop::Cg => CacheOp::Cg,
            LoadCop::Cs => CacheOp::Cs,
            LoadCop::Lu => CacheOp::Lu,
            LoadCop::Cv => CacheOp::Cv,
        }
    }
}

impl From<StoreCop> for CacheOp {
    fn from(c: StoreCop) -> CacheOp {
        match c {
            StoreCop::Wb => CacheOp::Wb,
            StoreCop::Cg => CacheOp::Cg,
            StoreCop::Cs => CacheOp::Cs,
            StoreCop::Wt => CacheOp::Wt,
        }
    }
}

impl OrderedLoad {
    /// The semantics keyword (`volatile`, `relaxed`, `acquire`, `mmio`).
    pub fn keyword(self) -> &'static str {
        match self {
            OrderedLoad::Volatile => "volatile",
            OrderedLoad::Relaxed(_) => "relaxed",
            OrderedLoad::Acquire(_) => "acquire",
            OrderedLoad::Mmio => "mmio",
        }
    }
}

impl OrderedStore {
    /// The semantics keyword (`volatile`, `relaxed`, `release`, `mmio`).
    pub fn keyword(self) -> &'static str {
        match self {
            OrderedStore::Volatile => "volatile",
            OrderedStore::Relaxed(_) => "relaxed",
            OrderedStore::Release(_) => "release",
            OrderedStore::Mmio => "mmio",
        }
    }
}

impl LoadMode {
    /// The mode of what was written, or why PTX has no such load.
    ///
    /// # Errors
    /// A cache operator with a semantics qualifier other than `.weak`, `.nc` with any
    /// semantics qualifier, or a store-only cache operator.
    pub fn new(sem: Option<LoadSem>, nc: bool, cop: Option<CacheOp>) -> Result<LoadMode, String> {
        let cop = match cop {
            None => None,
            Some(CacheOp::Ca) => Some(LoadCop::Ca),
            Some(CacheOp::Cg) => Some(LoadCop::Cg),
            Some(CacheOp::Cs) => Some(LoadCop::Cs),
            Some(CacheOp::Lu) => Some(LoadCop::Lu),
            Some(CacheOp::Cv) => Some(LoadCop::Cv),
            Some(c @ (CacheOp::Wb | CacheOp::Wt)) => {
                return Err(format!(
                    "`.{}` is a store cache operator; loads take .ca, .cg, .cs, .lu or .cv",
                    c.name()
                ))
            }
        };
        let ordered = match sem {
            None | Some(LoadSem::Weak) => None,
            Some(LoadSem::Volatile) => Some(OrderedLoad::Volatile),
            Some(LoadSem::Relaxed(s)) => Some(OrderedLoad::Relaxed(s)),
            Some(LoadSem::Acquire(s)) => Some(OrderedLoad::Acquire(s)),
            Some(LoadSem::Mmio) => Some(OrderedLoad::Mmio),
        };
        match (nc, ordered, sem) {
            (true, _, Some(_)) => Err(format!(
                "`ld.global.nc` takes no semantics qualifier, found .{}",
                ordered.map_or("weak", OrderedLoad::keyword)
            )),
            (true, _, None) => Ok(LoadMode::NonCoherent { cop }),
            (false, Some(o), _) if cop.is_some() => Err(format!(
                "a cache operator cannot be combined with {} semantics",
                o.keyword()
            )),
            (false, Some(o), _) => Ok(LoadMode::Ordered(o)),
            (false, None, s) => Ok(LoadMode::Weak {
                written: s.is_some(),
                cop,
            }),
        }
    }

    /// The semantics as written (`None` when none was).
    pub fn sem(self) -> Option<LoadSem> {
        match self {
            LoadMode::Weak { written: true, .. } => Some(LoadSem::Weak),
            LoadMode::Weak { written: false, .. } | LoadMode::NonCoherent { .. } => None,
            LoadMode::Ordered(o) => Some(match o {
                OrderedLoad::Volatile => LoadSem::Volatile,
                OrderedLoad::Relaxed(s) => LoadSem::Relaxed(s),
                OrderedLoad::Acquire(s) => LoadSem::Acquire(s),
                OrderedLoad::Mmio => LoadSem::Mmio,
            }),
        }
    }

    /// Whether the load takes the non-coherent path.
    pub fn nc(self) -> bool {
        matches!(self, LoadMode::NonCoherent { .. })
    }

    /// The cache operator, if one was written.
    pub fn cop(self) -> Option<CacheOp> {
        match self {
            LoadMode::Weak { cop, .. } | LoadMode::NonCoherent { cop } => cop.map(CacheOp::from),
            LoadMode::Ordered(_) => None,
        }
    }
}

impl StoreMode {
    /// The mode of what was written, or why PTX has no such store.
    ///
    /// # Errors
    /// A cache operator with a semantics qualifier other than `.weak`, or a load-only cache
    /// operator.
    pub fn new(sem: Option<StoreSem>, cop: Option<CacheOp>) -> Result<StoreMode, String> {
        let cop = match cop {
            None => None,
            Some(CacheOp::Wb) => Some(StoreCop::Wb),
            Some(CacheOp::Cg) => Some(StoreCop::Cg),
            Some(CacheOp::Cs) => Some(StoreCop::Cs),
            Some(CacheOp::Wt) => Some(StoreCop::Wt),
            Some(c @ (CacheOp::Ca | CacheOp::Lu | CacheOp::Cv)) => {
                return Err(format!(
                    "`.{}` is a load cache operator; stores take .wb, .cg, .cs or .wt",
                    c.name()
                ))
            }
        };
        let ordered = match sem {
            None | Some(StoreSem::Weak) => None,
            Some(StoreSem::Volatile) => Some(OrderedStore::Volatile),
            Some(StoreSem::Relaxed(s)) => Some(OrderedStore::Relaxed(s)),
            Some(StoreSem::Release(s)) => Some(OrderedStore::Release(s)),
            Some(StoreSem::Mmio) => Some(OrderedStore::Mmio),
        };
        match ordered {
            Some(o) if cop.is_some() => Err(format!(
                "a cache operator cannot be combined with {} semantics",
                o.keyword()
            )),
            Some(o) => Ok(StoreMode::Ordered(o)),
            None => Ok(StoreMode::Weak {
                written: sem.is_some(),
                cop,
            }),
        }
    }

    /// The semantics as written (`None` when none was).
    pub fn sem(self) -> Option<StoreSem> {
        match self {
            StoreMode::Weak { written: true, .. } => Some(StoreSem::Weak),
            StoreMode::Weak { written: false, .. } => None,
            StoreMode::Ordered(o) => Some(match o {
                OrderedStore::Volatile => StoreSem::Volatile,
                OrderedStore::Relaxed(s) => StoreSem::Relaxed(s),
                OrderedStore::Release(s) => StoreSem::Release(s),
                OrderedStore::Mmio => StoreSem::Mmio,
            }),
        }
    }

    /// The cache operator, if one was written.
    pub fn cop(self) -> Option<CacheOp> {
        match self {
            StoreMode::Weak { cop, .. } => cop.map(CacheOp::from),
            StoreMode::Ordered(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_legal_combinations_are_built_and_they_read_back() {
        let m = LoadMode::new(None, true, Some(CacheOp::Cg)).unwrap();
        assert!(m.nc() && m.cop() == Some(CacheOp::Cg) && m.sem().is_none());
        let m = LoadMode::new(Some(LoadSem::Acquire(Scope::Gpu)), false, None).unwrap();
        assert_eq!(m.sem(), Some(LoadSem::Acquire(Scope::Gpu)));
        assert!(
            LoadMode::new(Some(LoadSem::Relaxed(Scope::Gpu)), false, Some(CacheOp::Ca)).is_err()
        );
        assert!(LoadMode::new(Some(LoadSem::Weak), true, None).is_err());
        assert!(LoadMode::new(None, false, Some(CacheOp::Wb)).is_err());
        assert!(LoadMode::new(Some(LoadSem::Weak), false, Some(CacheOp::Lu)).is_ok());
        assert!(StoreMode::new(Some(StoreSem::Release(Scope::Sys)), Some(CacheOp::Wt)).is_err());
        assert!(StoreMode::new(None, Some(CacheOp::Cv)).is_err());
        let s = StoreMode::new(Some(StoreSem::Weak), Some(CacheOp::Cs)).unwrap();
        assert_eq!(
            (s.sem(), s.cop()),
            (Some(StoreSem::Weak), Some(CacheOp::Cs))
        );
    }
}
