//! Event mode: running one thread of a litmus test over the IR and recording the memory events
//! it performs, for every choice of the values its reads return.
//!
//! A read may return any value of its location's *domain* (the caller's over-approximation of
//! the values written there); each choice is one branch of a depth-first exploration, and each
//! path that ends is a [`Trace`]. Registers hold mathematical integers (64-bit, wrapping), as
//! the litmus dialect's do. Dependencies are tracked by taint: every register carries the set
//! of reads its value came from; a store's value gives data dependencies, and every event after
//! a conditional branch (or under a guard) depends on the reads that decided it.
//!
//! Loops follow the litmus corpus' await semantics: a path that takes a backward jump is
//! dropped, except that in liveness mode a backward jump over an iteration with no write ends
//! the trace as *spinning*. In liveness mode, every barrier reached also yields a trace that
//! stops just before it (*blocked*).
//!
//! Deliberate deviations:
//! 1. A failed `atom.cas` still writes the old value back (Dat3M's reading, litmus spec §1.6).

use models::event::{BarrierTag, FenceKind};
use models::vocab::{LoadSem, Proxy, RmwSem, Scope, StoreSem};

use crate::ir::{
    AddrBase, AtomOp, BarKind, CmpOp, Fence, Imm, Instr, Op, Operand, RegId, Type, VarRef,
};

/// What a recorded event is.
#[derive(Clone, Debug, PartialEq)]
pub enum EvKind {
    /// A read of `loc` returning `value`.
    Read {
        /// The location (a module-global index).
        loc: u32,
        /// The value.
        value: i64,
    },
    /// A write of `value` to `loc`.
    Write {
        /// The location.
        loc: u32,
        /// The value.
        value: i64,
    },
    /// A fence.
    Fence(FenceKind),
    /// A barrier.
    Barrier(BarrierTag),
}

/// One event of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// What it is.
    pub kind: EvKind,
    /// Strong (relaxed or stronger).
    pub strong: bool,
    /// Scope of a strong access or fence.
    pub scope: Option<Scope>,
    /// Acquire read.
    pub acquire: bool,
    /// Release write.
    pub release: bool,
    /// Proxy (`None` for barriers and alias fences).
    pub proxy: Option<Proxy>,
    /// Part of a read-modify-write; for the write half, the index of its read.
    pub rmw: Option<Option<usize>>,
    /// The read half of a `red`.
    pub red: bool,
    /// Reads (indices into the trace) whose values flow into this write's value.
    pub data: Vec<usize>,
    /// Reads that decided a branch or guard before this event.
    pub ctrl: Vec<usize>,
    /// The instruction that performed it.
    pub instr: usize,
}

/// How a trace ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The thread ran to its end.
    Done,
    /// The thread spins forever in a loop whose iteration writes nothing.
    Spin,
    /// The thread waits at a barrier (the trace stops before it).
    Blocked,
}

/// One path through a thread.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The events, in program order.
    pub events: Vec<TraceEvent>,
    /// Final register values (indexed by `RegId`).
    pub regs: Vec<i64>,
    /// How it ends.
    pub ending: Ending,
    /// For a spinning trace: the index of the first event of the iteration that repeats
    /// forever (the events since the loop head was last passed).
    pub spin_start: usize,
    /// For a blocked trace: the barrier instruction it waits at, and the barrier.
    pub blocked_at: Option<(usize, BarrierTag)>,
}

impl Trace {
    fn new(st: State, ending: Ending) -> Trace {
        Trace {
            events: st.events,
            regs: st.regs,
            ending,
            spin_start: 0,
            blocked_at: None,
        }
    }
}

/// A thread's code in event mode.
#[derive(Clone, Debug, Default)]
pub struct ThreadCode {
    /// The instructions.
    pub instrs: Vec<Instr>,
    /// Where each label points (label index → instruction index).
    pub labels: Vec<usize>,
    /// The proxy of each instruction's accesses (litmus `tld`/`suld`/`sust`/`cold`).
    pub proxies: Vec<Proxy>,
    /// Number of registers.
    pub nregs: usize,
    /// Initial register values.
    pub reg_init: Vec<(RegId, i64)>,
}

/// An event-mode failure: something the litmus executor cannot interpret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// An instruction or operand form outside event mode.
    #[error("instruction {index}: {what}")]
    Unsupported {
        /// The instruction index.
        index: usize,
        /// What.
        what: String,
    },
    /// Too many paths.
    #[error("more than {0} paths through one thread")]
    TooManyPaths(usize),
}

/// Limits of an exploration.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most traces a thread may produce.
    pub max_traces: usize,
    /// The most instructions one path may execute.
    pub max_steps: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_traces: 200_000,
            max_steps: 10_000,
        }
    }
}

#[derive(Clone)]
struct State {
    pc: usize,
    regs: Vec<i64>,
    taint: Vec<Vec<usize>>,
    ctrl: Vec<usize>,
    events: Vec<TraceEvent>,
    last_pass: Vec<Option<usize>>,
    steps: usize,
}

fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut v: Vec<usize> = a.iter().chain(b).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Explores every path of `code`; `domain(loc)` gives the values a read of `loc` may return.
///
/// # Errors
/// An instruction event mode cannot interpret, or a path explosion.
pub fn traces(
    code: &ThreadCode,
    domain: &dyn Fn(u32) -> Vec<i64>,
    liveness: bool,
    limits: Limits,
) -> Result<Vec<Trace>, EventError> {
    let mut regs = vec![0i64; code.nregs];
    for (r, v) in &code.reg_init {
        if let Some(x) = regs.get_mut(r.index()) {
            *x = *v;
        }
    }
    let start = State {
        pc: 0,
        taint: vec![Vec::new(); code.nregs],
        regs,
        ctrl: Vec::new(),
        events: Vec::new(),
        last_pass: vec![None; code.instrs.len() + 1],
        steps: 0,
    };
    let mut out = Vec::new();
    let mut stack = vec![start];
    while let Some(st) = stack.pop() {
        run(code, st, domain, liveness, limits, &mut stack, &mut out)?;
        if out.len() > limits.max_traces {
            return Err(EventError::TooManyPaths(limits.max_traces));
        }
    }
    Ok(out)
}

fn unsupported(index: usize, what: impl Into<String>) -> EventError {
    EventError::Unsupported {
        index,
        what: what.into(),
    }
}

fn loc_of(i: &Instr, k: usize, index: usize) -> Result<u32, EventError> {
    match i.args.get(k) {
        Some(Operand::Address(a)) => match a.base {
            AddrBase::Var(VarRef::Global(g)) if a.offset == 0 => Ok(g.0),
            _ => Err(unsupported(
                index,
                "event mode addresses memory by variable name only",
            )),
        },
        _ => Err(unsupported(index, "expected an address operand")),
    }
}

fn value(st: &State, o: Option<&Operand>, index: usize) -> Result<(i64, Vec<usize>), EventError> {
    match o {
        Some(Operand::Reg(r)) => Ok((st.regs[r.index()], st.taint[r.index()].clone())),
        Some(Operand::NotPred(r)) => Ok((
            i64::from(st.regs[r.index()] == 0),
            st.taint[r.index()].clone(),
        )),
        Some(Operand::Imm(Imm::Int(v))) => Ok((*v, Vec::new())),
        _ => Err(unsupported(index, "unsupported operand in event mode")),
    }
}

fn set_reg(
    st: &mut State,
    o: Option<&Operand>,
    v: i64,
    taint: Vec<usize>,
    index: usize,
) -> Result<(), EventError> {
    match o {
        Some(Operand::Reg(r)) => {
            st.regs[r.index()] = v;
            st.taint[r.index()] = taint;
            Ok(())
        }
        Some(Operand::Sink) => Ok(()),
        _ => Err(unsupported(index, "expected a register destination")),
    }
}

fn cmp(c: CmpOp, a: i64, b: i64) -> bool {
    match c {
        CmpOp::Eq | CmpOp::Equ => a == b,
        CmpOp::Ne | CmpOp::Neu => a != b,
        CmpOp::Lt | CmpOp::Ltu => a < b,
        CmpOp::Le | CmpOp::Leu => a <= b,
        CmpOp::Gt | CmpOp::Gtu => a > b,
        CmpOp::Ge | CmpOp::Geu => a >= b,
        CmpOp::Lo => (a as u64) < (b as u64),
        CmpOp::Ls => (a as u64) <= (b as u64),
        CmpOp::Hi => (a as u64) > (b as u64),
        CmpOp::Hs => (a as u64) >= (b as u64),
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

fn base_event(kind: EvKind, st: &State, instr: usize, proxy: Option<Proxy>) -> TraceEvent {
    TraceEvent {
        kind,
        strong: false,
        scope: None,
        acquire: false,
        release: false,
        proxy,
        rmw: None,
        red: false,
        data: Vec::new(),
        ctrl: st.ctrl.clone(),
        instr,
    }
}

fn atom_value(op: AtomOp, old: i64, b: i64, c: i64) -> i64 {
    match op {
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomOp::Min => old.min(b),
        AtomOp::Max => old.max(b),
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
    }
}

/// The qualifiers of an `atom` or `red`.
struct Rmw {
    sem: Option<RmwSem>,
    scope: Option<Scope>,
    op: AtomOp,
    red: bool,
}

/// Performs an `atom`/`red`: one branch per value its read may return.
fn rmw(
    ins: &Instr,
    st: State,
    index: usize,
    proxy: Proxy,
    q: Rmw,
    domain: &dyn Fn(u32) -> Vec<i64>,
    stack: &mut Vec<State>,
) -> Result<(), EventError> {
    let sem = q.sem.unwrap_or(RmwSem::Relaxed);
    let scope = q.scope.unwrap_or(RmwSem::DEFAULT_SCOPE);
    let (addr_k, b_k) = if q.red { (0, 1) } else { (1, 2) };
    let loc = loc_of(ins, addr_k, index)?;
    let (b, tb) = value(&st, ins.args.get(b_k), index)?;
    let (c, tc) = if q.op == AtomOp::Cas {
        value(&st, ins.args.get(b_k + 1), index)?
    } else {
        (0, Vec::new())
    };
    for v in domain(loc) {
        let mut s = st.clone();
        let ri = s.events.len();
        let mut r = base_event(EvKind::Read { loc, value: v }, &s, index, Some(proxy));
        r.strong = true;
        r.scope = Some(scope);
        r.acquire = sem.read_acquires();
        r.rmw = Some(None);
        r.red = q.red;
        s.events.push(r);
        let nv = atom_value(q.op, v, b, c);
        let mut w = base_event(EvKind::Write { loc, value: nv }, &s, index, Some(proxy));
        w.strong = true;
        w.scope = Some(scope);
        w.release = sem.write_releases();
        w.rmw = Some(Some(ri));
        let mut data = union(&tb, &tc);
        if q.op != AtomOp::Exch {
            data = union(&data, &[ri]);
        }
        w.data = data;
        s.events.push(w);
        if !q.red {
            set_reg(&mut s, ins.args.first(), v, vec![ri], index)?;
        }
        s.pc += 1;
        stack.push(s);
    }
    Ok(())
}

/// Runs one path from `st` until it ends or branches on a read (pushing the alternatives).
fn run(
    code: &ThreadCode,
    mut st: State,
    domain: &dyn Fn(u32) -> Vec<i64>,
    liveness: bool,
    limits: Limits,
    stack: &mut Vec<State>,
    out: &mut Vec<Trace>,
) -> Result<(), EventError> {
    loop {
        st.last_pass[st.pc] = Some(st.events.len());
        let Some(ins) = code.instrs.get(st.pc) else {
            out.push(Trace::new(st, Ending::Done));
            return Ok(());
        };
        st.steps += 1;
        if st.steps > limits.max_steps {
            return Err(unsupported(
                st.pc,
                format!(
                    "a path executes more than {} instructions",
                    limits.max_steps
                ),
            ));
        }
        let index = st.pc;
        let proxy = code.proxies.get(index).copied().unwrap_or(Proxy::Generic);
        if let Some(g) = ins.guard {
            let on = (st.regs[g.reg.index()] != 0) != g.negated;
            st.ctrl = union(&st.ctrl, &st.taint[g.reg.index()].clone());
            if !on {
                st.pc += 1;
                continue;
            }
        }
        match &ins.op {
            Op::Ld(ld) => {
                let loc = loc_of(ins, 1, index)?;
                let sem = LoadSem::effective(ld.sem());
                let mut e = base_event(EvKind::Read { loc, value: 0 }, &st, index, Some(proxy));
                e.strong = sem.is_strong();
                e.scope = sem.scope();
                e.acquire = matches!(sem, LoadSem::Acquire(_));
                let vals = domain(loc);
                if vals.is_empty() {
                    return Ok(());
                }
                for v in &vals {
                    let mut s = st.clone();
                    let mut ev = e.clone();
                    ev.kind = EvKind::Read { loc, value: *v };
                    let ri = s.events.len();
                    s.events.push(ev);
                    set_reg(&mut s, ins.args.first(), *v, vec![ri], index)?;
                    s.pc += 1;
                    stack.push(s);
                }
                return Ok(());
            }
            Op::St(stq) => {
                let loc = loc_of(ins, 0, index)?;
                let (v, taint) = value(&st, ins.args.get(1), index)?;
                let sem = StoreSem::effective(stq.sem());
                let mut e = base_event(EvKind::Write { loc, value: v }, &st, index, Some(proxy));
                e.strong = sem.is_strong();
                e.scope = sem.scope();
                e.release = matches!(sem, StoreSem::Release(_));
                e.data = taint;
                st.events.push(e);
            }
            Op::Atom(a) => {
                let r = Rmw {
                    sem: a.sem,
                    scope: a.scope,
                    op: a.op,
                    red: false,
                };
                return rmw(ins, st, index, proxy, r, domain, stack);
            }
            Op::Red(rd) => {
                let r = Rmw {
                    sem: rd.sem,
                    scope: rd.scope,
                    op: rd.op,
                    red: true,
                };
                return rmw(ins, st, index, proxy, r, domain, stack);
            }
            Op::Fence(f) => {
                let (kind, scope, px) = match f {
                    Fence::Memory { sem, scope } => {
                        let k = match sem {
                            Some(models::vocab::FenceSem::Sc) => FenceKind::Sc,
                            Some(models::vocab::FenceSem::AcqRel) | None => FenceKind::AcqRel,
                            Some(models::vocab::FenceSem::Acquire) => FenceKind::Acquire,
                            Some(models::vocab::FenceSem::Release) => FenceKind::Release,
                        };
                        (k, Some(*scope), Some(Proxy::Generic))
                    }
                    Fence::ProxyAlias => (FenceKind::Alias, None, None),
                    // mbarrier.init makes no event: the fence it orders is a release at
                    // cluster scope (an over-approximation of its narrower ordering).
                    Fence::MbarrierInit => (
                        FenceKind::Release,
                        Some(Scope::Cluster),
                        Some(Proxy::Generic),
                    ),
                    Fence::ProxyKind(p) => (FenceKind::Proxy(*p), None, Some(*p)),
                    Fence::ProxyAsync(_) => {
                        (FenceKind::Proxy(Proxy::Async), None, Some(Proxy::Async))
                    }
                    Fence::ProxyTensormap { .. } => (
                        FenceKind::Proxy(Proxy::Tensormap),
                        None,
                        Some(Proxy::Tensormap),
                    ),
                };
                let mut e = base_event(EvKind::Fence(kind), &st, index, px);
                e.strong = true;
                e.scope = scope;
                st.events.push(e);
            }
            Op::Membar(level) => {
                let mut e = base_event(
                    EvKind::Fence(FenceKind::Sc),
                    &st,
                    index,
                    Some(Proxy::Generic),
                );
                e.strong = true;
                e.scope = Some(level.scope());
                st.events.push(e);
            }
            Op::Bar(b) => {
                let arg = |k: usize| -> Result<Option<i64>, EventError> {
                    match ins.args.get(k) {
                        None => Ok(None),
                        Some(o) => value(&st, Some(o), index).map(|(v, _)| Some(v)),
                    }
                };
                let tag = BarrierTag {
                    instance: arg(0)?.unwrap_or(0),
                    id: arg(1)?,
                    quorum: arg(2)?,
                    arrive: b.kind == BarKind::Arrive,
                };
                if liveness && !tag.arrive {
                    let mut t = Trace::new(st.clone(), Ending::Blocked);
                    t.blocked_at = Some((index, tag));
                    out.push(t);
                }
                let e = base_event(EvKind::Barrier(tag), &st, index, None);
                st.events.push(e);
            }
            Op::Mov(_) => {
                let (v, t) = value(&st, ins.args.get(1), index)?;
                set_reg(&mut st, ins.args.first(), v, t, index)?;
            }
            Op::Add(_)
            | Op::Sub(_)
            | Op::Mul(_)
            | Op::Div(_)
            | Op::And(_)
            | Op::Or(_)
            | Op::Xor(_) => {
                let (a, ta) = value(&st, ins.args.get(1), index)?;
                let (b, tb) = value(&st, ins.args.get(2), index)?;
                let v = match &ins.op {
                    Op::Add(_) => a.wrapping_add(b),
                    Op::Sub(_) => a.wrapping_sub(b),
                    Op::Mul(_) => a.wrapping_mul(b),
                    Op::Div(_) => {
                        if b == 0 {
                            -1
                        } else {
                            a.wrapping_div(b)
                        }
                    }
                    Op::And(_) => a & b,
                    Op::Or(_) => a | b,
                    _ => a ^ b,
                };
                set_reg(&mut st, ins.args.first(), v, union(&ta, &tb), index)?;
            }
            Op::Setp(sp) => {
                let (a, ta) = value(&st, ins.args.get(1), index)?;
                let (b, tb) = value(&st, ins.args.get(2), index)?;
                let r = cmp(sp.cmp, a, b);
                let dst = match ins.args.first() {
                    Some(Operand::Dual(p, _)) => Some(Operand::Reg(*p)),
                    other => other.cloned(),
                };
                set_reg(&mut st, dst.as_ref(), i64::from(r), union(&ta, &tb), index)?;
            }
            Op::Bra { .. } => {
                let Some(Operand::Label(l)) = ins.args.first() else {
                    return Err(unsupported(index, "bra needs a label"));
                };
                let target = code
                    .labels
                    .get(l.index())
                    .copied()
                    .unwrap_or(code.instrs.len());
                if target <= index {
                    // A backward jump: await semantics.
                    let since = st.last_pass[target].unwrap_or(0);
                    let wrote = st.events[since..]
                        .iter()
                        .any(|e| matches!(e.kind, EvKind::Write { .. }));
                    if liveness && !wrote {
                        let mut t = Trace::new(st, Ending::Spin);
                        t.spin_start = since;
                        out.push(t);
                    }
                    return Ok(());
                }
                st.pc = target;
                continue;
            }
            Op::Ret { .. } | Op::Exit => {
                out.push(Trace::new(st, Ending::Done));
                return Ok(());
            }
            other => {
                return Err(unsupported(
                    index,
                    format!("{other:?} is not supported in litmus threads"),
                ))
            }
        }
        st.pc += 1;
    }
}

/// The type litmus registers are declared with (mathematical integers held in 64 bits).
pub const REG_TYPE: Type = Type::S64;
