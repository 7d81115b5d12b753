//! The abstract syntax of a PTX litmus test (litmus-format spec §1): locations with initial
//! values and aliases, initial registers, threads with their positions and code, and the final
//! condition.

use models::vocab::{FenceSem, Proxy, Scope};

/// A value operand: a constant or a register of the thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    /// An integer constant.
    Const(i64),
    /// A register name (`r3`).
    Reg(String),
}

/// How a location is declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocDecl {
    /// A new location with an initial value.
    Value(i64),
    /// `name @ proxy aliases target`: a virtual alias of another location.
    Alias {
        /// `generic`, `texture`, `surface` or `constant`.
        proxy: Proxy,
        /// The aliased location.
        target: String,
    },
}

/// Memory order of a dialect access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mo {
    /// `.weak`
    Weak,
    /// `.relaxed`
    Relaxed,
    /// `.acquire`
    Acquire,
    /// `.release`
    Release,
    /// `.acq_rel`
    AcqRel,
    /// `.volatile` (loads and stores only): relaxed at system scope (PTX ISA "volatile
    /// Operation"), without a scope qualifier of its own.
    Volatile,
}

/// An operation of `atom`/`red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwOp {
    /// `.add`
    Add,
    /// `.sub`
    Sub,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
    /// `.exch`
    Exch,
    /// `.cas`
    Cas,
    /// `.inc`: `old >= bound ? 0 : old + 1`, the bound in the operand.
    Inc,
    /// `.dec`: `old == 0 || old > bound ? bound : old - 1`, the bound in the operand.
    Dec,
}

/// A comparison of a conditional branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchCmp {
    /// `beq`
    Eq,
    /// `bne`
    Ne,
    /// `blt`
    Lt,
    /// `bgt`
    Gt,
    /// `ble`
    Le,
    /// `bge`
    Ge,
}

/// Local arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `div` (signed)
    Div,
}

/// One instruction of a thread cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// `ld{.mo.S} r, x` (with a proxy for `tld`/`suld`/`cold`).
    Load {
        /// Order (`Weak` for `.weak`).
        mo: Mo,
        /// Scope (none for weak).
        scope: Option<Scope>,
        /// Proxy.
        proxy: Proxy,
        /// Destination register.
        reg: String,
        /// Location.
        loc: String,
    },
    /// `st{.mo.S} x, v`.
    Store {
        /// Order.
        mo: Mo,
        /// Scope.
        scope: Option<Scope>,
        /// Proxy.
        proxy: Proxy,
        /// Location.
        loc: String,
        /// Value.
        val: Val,
    },
    /// `atom.mo.S.op r, x, v{, n}` or `red.mo.S.op x, v`.
    Rmw {
        /// Order.
        mo: Mo,
        /// Scope.
        scope: Scope,
        /// Proxy.
        proxy: Proxy,
        /// Operation.
        op: RmwOp,
        /// Result register (`None` for `red`).
        reg: Option<String>,
        /// Location.
        loc: String,
        /// Operand (expected value for `cas`).
        val: Val,
        /// New value of `cas`.
        val2: Option<Val>,
    },
    /// `fence.sc.S`, `fence.acq_rel.S` (also written `fence.S`), `fence.acquire.S` or
    /// `fence.release.S`.
    Fence {
        /// The semantics.
        sem: FenceSem,
        /// Scope.
        scope: Scope,
    },
    /// `fence.proxy.P`.
    ProxyFence(Proxy),
    /// `fence.proxy.alias`.
    AliasFence,
    /// `bar.cta.sync N{, id{, q}}` / `bar.cta.arrive …`.
    Barrier {
        /// Arrive only.
        arrive: bool,
        /// Instance.
        instance: Val,
        /// Named-barrier id.
        id: Option<Val>,
        /// Quorum.
        quorum: Option<Val>,
    },
    /// `ld r, v` (a local move).
    Move {
        /// Destination.
        reg: String,
        /// Value.
        val: Val,
    },
    /// `add|sub|mul|div r, a, b`.
    Arith {
        /// Operation.
        op: ArithOp,
        /// Destination.
        reg: String,
        /// Operands.
        a: Val,
        /// Operands.
        b: Val,
    },
    /// `beq a, b, L` and friends.
    Branch {
        /// Comparison.
        cmp: BranchCmp,
        /// Operands.
        a: Val,
        /// Operands.
        b: Val,
        /// Target label.
        label: String,
    },
    /// `goto L`.
    Goto(String),
    /// `L:`.
    Label(String),
    /// An instruction written in real PTX syntax, kept as text (parsed by the lowering).
    Ptx(String),
}

/// A thread's declared position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadDecl {
    /// The thread number (`P1` → 1).
    pub id: u32,
    /// CTA id.
    pub cta: u32,
    /// GPU id.
    pub gpu: u32,
    /// Warp within the CTA, when the test places it (`,warp N`; GPU_PTX scope trees).
    /// The memory model has no warp scope; the placement matters on hardware only.
    pub warp: Option<u32>,
    /// Cluster of the CTA within its GPU, when the test names one (`,cluster N`): CTAs that
    /// name the same cluster of one GPU share it (PTX 7.8 `.cluster` scope); a CTA that names
    /// none is a cluster of its own, as a CTA launched without clusters is.
    pub cluster: Option<u32>,
}

/// A comparison operator of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `==` or `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
}

/// A term of a condition.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Term {
    /// A thread's register: (thread, register).
    Reg(u32, String),
    /// A location's final value.
    Loc(String),
    /// A constant.
    Const(i64),
}

/// A condition expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A comparison.
    Cmp(Term, CmpOp, Term),
    /// Conjunction.
    And(Box<Expr>, Box<Expr>),
    /// Disjunction.
    Or(Box<Expr>, Box<Expr>),
    /// Negation.
    Not(Box<Expr>),
    /// Always true.
    True,
}

/// The quantifier of the final condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// `exists`
    Exists,
    /// `~exists`
    NotExists,
    /// `forall`
    Forall,
}

impl Quantifier {
    /// The keyword as written.
    pub fn name(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
    }
}

/// A whole litmus test.
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    /// The name from the header.
    pub name: String,
    /// Quoted comments of the header.
    pub comments: Vec<String>,
    /// Locations in declaration order.
    pub locations: Vec<(String, LocDecl)>,
    /// Initial registers: (thread, register, value).
    pub reg_init: Vec<(u32, String, i64)>,
    /// Threads.
    pub threads: Vec<ThreadDecl>,
    /// Each thread's code, with the 1-based source line of each instruction.
    pub code: Vec<Vec<(Inst, u32)>>,
    /// The quantifier.
    pub quantifier: Quantifier,
    /// The condition.
    pub condition: Expr,
    /// Extra observed locations (`locations [..]`).
    pub observed: Vec<Term>,
    /// A filter on executions, if given.
    pub filter: Option<Expr>,
}

/// The labels of a thread's code that some later jump goes back to: the heads of its loops.
pub fn loop_heads(code: &[(Inst, u32)]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    let mut heads = Vec::new();
    for (inst, _) in code {
        match inst {
            Inst::Label(l) => seen.push(l),
            Inst::Branch { label, .. } | Inst::Goto(label) if seen.contains(&label.as_str()) => {
                heads.push(label.as_str());
            }
            _ => {}
        }
    }
    heads
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Const(c) => write!(f, "{c}"),
            Val::Reg(r) => f.write_str(r),
        }
    }
}

impl Mo {
    /// The qualifier as written.
    pub fn name(self) -> &'static str {
        match self {
            Mo::Weak => "weak",
            Mo::Relaxed => "relaxed",
            Mo::Acquire => "acquire",
            Mo::Release => "release",
            Mo::AcqRel => "acq_rel",
            Mo::Volatile => "volatile",
        }
    }
}

fn mo_scope(mo: Mo, scope: Option<Scope>) -> String {
    match scope {
        Some(s) => format!(".{}.{}", mo.name(), s.name()),
        None => format!(".{}", mo.name()),
    }
}

fn access_prefix(base: &str, proxy: Proxy) -> &'static str {
    match (base, proxy) {
        ("ld", Proxy::Texture) => "tld",
        ("ld", Proxy::Surface) => "suld",
        ("ld", Proxy::Constant) => "cold",
        ("ld", _) => "ld",
        ("st", Proxy::Surface) => "sust",
        ("st", _) => "st",
        ("atom", Proxy::Surface) => "suatom",
        ("atom", _) => "atom",
        ("red", Proxy::Surface) => "sured",
        _ => "red",
    }
}

impl std::fmt::Display for Inst {
    /// The instruction in the litmus dialect (real-PTX cells as written).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Inst::Load {
                mo,
                scope,
                proxy,
                reg,
                loc,
            } => write!(
                f,
                "{}{} {reg}, {loc}",
                access_prefix("ld", *proxy),
                mo_scope(*mo, *scope)
            ),
            Inst::Store {
                mo,
                scope,
                proxy,
                loc,
                val,
            } => write!(
                f,
                "{}{} {loc}, {val}",
                access_prefix("st", *proxy),
                mo_scope(*mo, *scope)
            ),
            Inst::Rmw {
                mo,
                scope,
                proxy,
                op,
                reg,
                loc,
                val,
                val2,
            } => {
                let o = format!("{op:?}").to_lowercase();
                let ms = mo_scope(*mo, Some(*scope));
                let extra = val2.as_ref().map_or(String::new(), |v| format!(", {v}"));
                match reg {
                    Some(r) => write!(
                        f,
                        "{}{ms}.{o} {r}, {loc}, {val}{extra}",
                        access_prefix("atom", *proxy)
                    ),
                    None => write!(f, "{}{ms}.{o} {loc}, {val}", access_prefix("red", *proxy)),
                }
            }
            Inst::Fence { sem, scope } => write!(f, "fence.{}.{}", sem.name(), scope.name()),
            Inst::ProxyFence(p) => write!(f, "fence.proxy.{}", p.name()),
            Inst::AliasFence => f.write_str("fence.proxy.alias"),
            Inst::Barrier {
                arrive,
                instance,
                id,
                quorum,
            } => {
                write!(
                    f,
                    "bar.cta.{} {instance}",
                    if *arrive { "arrive" } else { "sync" }
                )?;
                if let Some(i) = id {
                    write!(f, ", {i}")?;
                }
                if let Some(q) = quorum {
                    write!(f, ", {q}")?;
                }
                Ok(())
            }
            Inst::Move { reg, val } => write!(f, "ld {reg}, {val}"),
            Inst::Arith { op, reg, a, b } => {
                write!(f, "{} {reg}, {a}, {b}", format!("{op:?}").to_lowercase())
            }
            Inst::Branch { cmp, a, b, label } => write!(
                f,
                "b{} {a}, {b}, {label}",
                format!("{cmp:?}").to_lowercase()
            ),
            Inst::Goto(l) => write!(f, "goto {l}"),
            Inst::Label(l) => write!(f, "{l}:"),
            Inst::Ptx(t) => f.write_str(t),
        }
    }
}
