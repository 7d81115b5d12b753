//! Reading an instruction's qualifiers (`.global`, `.u32`, `.relaxed`, `.L2::cache_hint` …).
//!
//! Qualifiers are taken by name in any order; once an instruction family has taken what it
//! understands, any left over is an error that names the qualifier and the instruction.

use super::error::{Error, ErrorKind};
use crate::ir::{
    CacheHints, CacheOp, FloatRounding, IntRounding, L1Evict, L2Evict, ParamWindow, PrefetchSize,
    Scope, SharedWindow, SpaceQual, Span, StateSpace, Type, VecWidth,
};

/// The qualifiers of one instruction, consumed as they are recognised.
pub struct Quals {
    /// The instruction's name (for messages).
    pub opcode: String,
    items: Vec<(String, Span)>,
    used: Vec<bool>,
    /// The span of the whole mnemonic.
    pub span: Span,
}

impl Quals {
    /// Qualifiers `items` of instruction `opcode`.
    pub fn new(opcode: &str, items: Vec<(String, Span)>, span: Span) -> Quals {
        let used = vec![false; items.len()];
        Quals {
            opcode: opcode.to_string(),
            items,
            used,
            span,
        }
    }

    /// The qualifiers not yet taken, in order.
    pub fn remaining(&self) -> impl Iterator<Item = &str> {
        self.items
            .iter()
            .zip(&self.used)
            .filter(|(_, u)| !**u)
            .map(|((s, _), _)| s.as_str())
    }

    /// Takes qualifier `name` if present.
    pub fn take(&mut self, name: &str) -> bool {
        for (i, (s, _)) in self.items.iter().enumerate() {
            if !self.used[i] && s == name {
                self.used[i] = true;
                return true;
            }
        }
        false
    }

    /// Takes every remaining occurrence of qualifier `name`; returns how many there were.
    pub fn take_every(&mut self, name: &str) -> usize {
        let mut n = 0;
        for (i, (s, _)) in self.items.iter().enumerate() {
            if !self.used[i] && s == name {
                self.used[i] = true;
                n += 1;
            }
        }
        n
    }

    /// The first qualifier as written, taken or not.
    pub fn first(&self) -> Option<&str> {
        self.items.first().map(|(s, _)| s.as_str())
    }

    /// The second qualifier as written, taken or not.
    pub fn second(&self) -> Option<&str> {
        self.items.get(1).map(|(s, _)| s.as_str())
    }

    /// Takes the first remaining qualifier that `f` maps to a value.
    pub fn take_map<T>(&mut self, f: impl Fn(&str) -> Option<T>) -> Option<T> {
        for (i, (s, _)) in self.items.iter().enumerate() {
            if self.used[i] {
                continue;
            }
            if let Some(v) = f(s) {
                self.used[i] = true;
                return Some(v);
            }
        }
        None
    }

    /// Takes every remaining qualifier that `f` maps to a value, in order.
    pub fn take_all<T>(&mut self, f: impl Fn(&str) -> Option<T>) -> Vec<T> {
        let mut out = Vec::new();
        for (i, (s, _)) in self.items.iter().enumerate() {
            if self.used[i] {
                continue;
            }
            if let Some(v) = f(s) {
                self.used[i] = true;
                out.push(v);
            }
        }
        out
    }

    /// Takes a type qualifier, required.
    ///
    /// # Errors
    /// When no type qualifier is present.
    pub fn ty(&mut self) -> Result<Type, Error> {
        self.take_map(Type::from_name)
            .ok_or_else(|| self.syntax(format!("`{}` needs a type qualifier", self.opcode)))
    }

    /// Takes two type qualifiers in order (`cvt.f32.s32`: destination then source).
    ///
    /// # Errors
    /// When fewer than two are present.
    pub fn two_types(&mut self) -> Result<(Type, Type), Error> {
        let a = self.ty()?;
        let b = self.ty()?;
        Ok((a, b))
    }

    /// Takes an optional scope qualifier.
    pub fn scope(&mut self) -> Option<Scope> {
        self.take_map(Scope::from_name)
    }

    /// Takes an optional state-space qualifier (generic when absent).
    pub fn space(&mut self) -> SpaceQual {
        self.take_map(space_of).unwrap_or(SpaceQual::GENERIC)
    }

    /// Takes an optional float rounding qualifier.
    pub fn float_rounding(&mut self) -> Option<FloatRounding> {
        self.take_map(float_rounding_of)
    }

    /// Takes an optional integer rounding qualifier.
    pub fn int_rounding(&mut self) -> Option<IntRounding> {
        self.take_map(|s| {
            Some(match s {
                "rni" => IntRounding::Rni,
                "rzi" => IntRounding::Rzi,
                "rmi" => IntRounding::Rmi,
                "rpi" => IntRounding::Rpi,
                _ => return None,
            })
        })
    }

    /// Takes an optional vector width.
    pub fn vec(&mut self) -> Option<VecWidth> {
        self.take_map(|s| {
            Some(match s {
                "v2" => VecWidth::V2,
                "v4" => VecWidth::V4,
                "v8" => VecWidth::V8,
                _ => return None,
            })
        })
    }

    /// Takes an optional cache operator.
    pub fn cache_op(&mut self) -> Option<CacheOp> {
        self.take_map(|s| {
            Some(match s {
                "ca" => CacheOp::Ca,
                "cg" => CacheOp::Cg,
                "cs" => CacheOp::Cs,
                "lu" => CacheOp::Lu,
                "cv" => CacheOp::Cv,
                "wb" => CacheOp::Wb,
                "wt" => CacheOp::Wt,
                _ => return None,
            })
        })
    }

    /// Takes the cache hints (eviction priorities, `.L2::cache_hint`, prefetch size).
    pub fn hints(&mut self) -> CacheHints {
        CacheHints {
            l1: self.take_map(|s| {
                Some(match s {
                    "L1::evict_normal" => L1Evict::Normal,
                    "L1::evict_unchanged" => L1Evict::Unchanged,
                    "L1::evict_first" => L1Evict::First,
                    "L1::evict_last" => L1Evict::Last,
                    "L1::no_allocate" => L1Evict::NoAllocate,
                    _ => return None,
                })
            }),
            l2: self.take_map(l2_evict_of),
            cache_hint: self.take("L2::cache_hint"),
            prefetch: self.take_map(|s| {
                Some(match s {
                    "L2::64B" => PrefetchSize::B64,
                    "L2::128B" => PrefetchSize::B128,
                    "L2::256B" => PrefetchSize::B256,
                    _ => return None,
                })
            }),
        }
    }

    /// A syntax error at the mnemonic.
    pub fn syntax(&self, m: String) -> Error {
        Error::new(ErrorKind::Syntax(m), self.span)
    }

    /// Fails if any qualifier was not taken, naming the first one.
    ///
    /// # Errors
    /// An unknown qualifier for this instruction.
    pub fn finish(&self) -> Result<(), Error> {
        for (i, (s, span)) in self.items.iter().enumerate() {
            if !self.used[i] {
                return Err(Error::new(
                    ErrorKind::UnknownQualifier {
                        qualifier: format!(".{s}"),
                        instruction: self.opcode.clone(),
                    },
                    *span,
                ));
            }
        }
        Ok(())
    }
}

/// A state-space qualifier.
pub fn space_of(s: &str) -> Option<SpaceQual> {
    let (space, explicit_window) = match s {
        "global" => (StateSpace::Global, false),
        "shared" => (StateSpace::Shared(SharedWindow::Cta), false),
        "shared::cta" => (StateSpace::Shared(SharedWindow::Cta), true),
        "shared::cluster" => (StateSpace::Shared(SharedWindow::Cluster), true),
        "local" => (StateSpace::Local, false),
        "param" => (StateSpace::Param(ParamWindow::Func), false),
        "param::entry" => (StateSpace::Param(ParamWindow::Entry), true),
        "param::func" => (StateSpace::Param(ParamWindow::Func), true),
        "const" => (StateSpace::Const, false),
        _ => return None,
    };
    Some(SpaceQual {
        space,
        explicit_window,
    })
}

/// The qualifier text of a state space as written.
pub fn space_name(q: SpaceQual) -> Option<&'static str> {
    Some(match (q.space, q.explicit_window) {
        (StateSpace::Generic, _) => return None,
        (StateSpace::Global, _) => "global",
        (StateSpace::Shared(SharedWindow::Cta), false) => "shared",
        (StateSpace::Shared(SharedWindow::Cta), true) => "shared::cta",
        (StateSpace::Shared(SharedWindow::Cluster), _) => "shared::cluster",
        (StateSpace::Local, _) => "local",
        (StateSpace::Param(ParamWindow::Func), false) => "param",
        (StateSpace::Param(ParamWindow::Entry), false) => "param",
        (StateSpace::Param(ParamWindow::Entry), true) => "param::entry",
        (StateSpace::Param(ParamWindow::Func), true) => "param::func",
        (StateSpace::Const, _) => "const",
    })
}

/// A float rounding qualifier.
pub fn float_rounding_of(s: &str) -> Option<FloatRounding> {
    Some(match s {
        "rn" => FloatRounding::Rn,
        "rz" => FloatRounding::Rz,
        "rm" => FloatRounding::Rm,
        "rp" => FloatRounding::Rp,
        "rna" => FloatRounding::Rna,
        "rs" => FloatRounding::Rs,
        _ => return None,
    })
}

/// An L2 eviction-priority qualifier.
pub fn l2_evict_of(s: &str) -> Option<L2Evict> {
    Some(match s {
        "L2::evict_normal" => L2Evict::Normal,
        "L2::evict_first" => L2Evict::First,
        "L2::evict_last" => L2Evict::Last,
        _ => return None,
    })
}

/// The text of an L2 eviction priority.
pub fn l2_evict_name(e: L2Evict) -> &'static str {
    match e {
        L2Evict::Normal => "L2::evict_normal",
        L2Evict::First => "L2::evict_first",
        L2Evict::Last => "L2::evict_last",
    }
}

/// The text of an L1 eviction priority.
pub fn l1_evict_name(e: L1Evict) -> &'static str {
    match e {
        L1Evict::Normal => "L1::evict_normal",
        L1Evict::Unchanged => "L1::evict_unchanged",
        L1Evict::First => "L1::evict_first",
        L1Evict::Last => "L1::evict_last",
        L1Evict::NoAllocate => "L1::no_allocate",
    }
}

/// The text of a prefetch size.
pub fn prefetch_name(p: PrefetchSize) -> &'static str {
    match p {
        PrefetchSize::B64 => "L2::64B",
        PrefetchSize::B128 => "L2::128B",
        PrefetchSize::B256 => "L2::256B",
    }
}
