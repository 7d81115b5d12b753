//! Interpreting one path of a thread in event mode: the machine state of a path, the
//! instructions event mode understands, and the branching on each read's possible values.

use models::event::{BarrierTag, FenceKind};
use models::vocab::{FenceSem, LoadSem, Proxy, RmwSem, Scope, StoreSem};

use crate::ir::{
    AddrBase, AtomOp, Bar, BarKind, CmpOp, Fence, Imm, Instr, Ld, Op, Operand, VarRef,
};

use super::{Deps, Domain, Ending, EvKind, EventError, Limits, ThreadCode, Trace, TraceEvent};

/// Where the paths of an exploration go: the traces, and the events of each path dropped at a
/// backward jump (up to the jump).
pub(super) struct Out<'a> {
    pub(super) traces: Vec<Trace>,
    pub(super) dropped: &'a mut dyn FnMut(&[TraceEvent]),
}

/// The machine state of one path.
pub(super) struct State {
    pc: usize,
    regs: Vec<i64>,
    taint: Vec<Deps>,
    ctrl: Deps,
    events: Vec<TraceEvent>,
    last_pass: Vec<Option<usize>>,
    steps: usize,
}

impl Clone for State {
    /// A copy whose events have room to grow as much as the original's before reallocating
    /// (a derived clone's exact capacity makes the first push of every branch reallocate).
    fn clone(&self) -> State {
        let mut events = Vec::with_capacity(self.events.capacity().max(self.events.len() + 4));
        events.extend_from_slice(&self.events);
        State {
            pc: self.pc,
            regs: self.regs.clone(),
            taint: self.taint.clone(),
            ctrl: self.ctrl.clone(),
            events,
            last_pass: self.last_pass.clone(),
            steps: self.steps,
        }
    }
}

impl State {
    /// The state at the thread's first instruction, registers holding their initial values.
    pub(super) fn start(code: &ThreadCode) -> State {
        let mut regs = vec![0i64; code.nregs];
        for (r, v) in &code.reg_init {
            if let Some(x) = regs.get_mut(r.index()) {
                *x = *v;
            }
        }
        State {
            pc: 0,
            taint: vec![no_deps(); code.nregs],
            regs,
            ctrl: no_deps(),
            events: Vec::with_capacity(16),
            last_pass: vec![None; code.instrs.len() + 1],
            steps: 0,
        }
    }
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

/// The empty set of reads.
fn no_deps() -> Deps {
    Deps::from([])
}

/// The union of two sets of reads (one of them, shared, when it contains the other).
fn union(a: &Deps, b: &Deps) -> Deps {
    let within = |x: &[usize], y: &[usize]| x.iter().all(|i| y.binary_search(i).is_ok());
    if within(b, a) {
        return a.clone();
    }
    if within(a, b) {
        return b.clone();
    }
    let mut v: Vec<usize> = a.iter().chain(b.iter()).copied().collect();
    v.sort_unstable();
    v.dedup();
    v.into()
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

fn value(st: &State, o: Option<&Operand>, index: usize) -> Result<(i64, Deps), EventError> {
    match o {
        Some(Operand::Reg(r)) => Ok((st.regs[r.index()], st.taint[r.index()].clone())),
        Some(Operand::NotPred(r)) => Ok((
            i64::from(st.regs[r.index()] == 0),
            st.taint[r.index()].clone(),
        )),
        Some(Operand::Imm(Imm::Int(v))) => Ok((*v, no_deps())),
        _ => Err(unsupported(index, "unsupported operand in event mode")),
    }
}

fn set_reg(
    st: &mut State,
    o: Option<&Operand>,
    v: i64,
    taint: Deps,
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
        data: no_deps(),
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
    domain: Domain<'_>,
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
        (0, no_deps())
    };
    let read_acquires = sem.read_acquires();
    let write_releases = sem.write_releases();
    each_value(st, domain(loc), |mut s, v| {
        let ri = s.events.len();
        let mut r = base_event(EvKind::Read { loc, value: v }, &s, index, Some(proxy));
        r.strong = true;
        r.scope = Some(scope);
        r.acquire = read_acquires;
        r.rmw = Some(None);
        r.red = q.red;
        s.events.push(r);
        let nv = atom_value(q.op, v, b, c);
        let mut w = base_event(EvKind::Write { loc, value: nv }, &s, index, Some(proxy));
        w.strong = true;
        w.scope = Some(scope);
        w.release = write_releases;
        w.rmw = Some(Some(ri));
        let read = Deps::from([ri]);
        let mut data = union(&tb, &tc);
        if q.op != AtomOp::Exch {
            data = union(&data, &read);
        }
        w.data = data;
        s.events.push(w);
        if !q.red {
            set_reg(&mut s, ins.args.first(), v, read, index)?;
        }
        s.pc += 1;
        stack.push(s);
        Ok(())
    })
}

/// Calls `branch` with a state for each value, in order: copies of `st`, and `st` itself for
/// the last value (no call when there are no values).
fn each_value(
    st: State,
    vals: &[i64],
    mut branch: impl FnMut(State, i64) -> Result<(), EventError>,
) -> Result<(), EventError> {
    let Some((&last, rest)) = vals.split_last() else {
        return Ok(());
    };
    for &v in rest {
        branch(st.clone(), v)?;
    }
    branch(st, last)
}

/// Runs one path from `st` until it ends or branches on a read (pushing the alternatives).
pub(super) fn run(
    code: &ThreadCode,
    mut st: State,
    domain: Domain<'_>,
    liveness: bool,
    limits: Limits,
    stack: &mut Vec<State>,
    out: &mut Out<'_>,
) -> Result<(), EventError> {
    loop {
        st.last_pass[st.pc] = Some(st.events.len());
        let Some(ins) = code.instrs.get(st.pc) else {
            out.traces.push(Trace::new(st, Ending::Done));
            return Ok(());
        };
        count_step(&mut st, limits)?;
        let index = st.pc;
        let proxy = code.proxies.get(index).copied().unwrap_or(Proxy::Generic);
        if !guard_passes(&mut st, ins) {
            st.pc += 1;
            continue;
        }
        match &ins.op {
            Op::Ld(ld) => return load(ins, ld, st, index, proxy, domain, stack),
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
            Op::Bra { .. } => {
                let target = branch_target(code, ins, index)?;
                if target <= index {
                    backward_jump(st, target, liveness, out);
                    return Ok(());
                }
                st.pc = target;
                continue;
            }
            Op::Ret { .. } | Op::Exit => {
                out.traces.push(Trace::new(st, Ending::Done));
                return Ok(());
            }
            Op::Bar(b) => barrier(&mut st, ins, b, index, liveness, out)?,
            op => straight_line(&mut st, ins, op, index, proxy)?,
        }
        st.pc += 1;
    }
}

/// Counts one executed instruction against the path's step limit.
fn count_step(st: &mut State, limits: Limits) -> Result<(), EventError> {
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
    Ok(())
}

/// Whether `ins`'s guard lets it run; the guard's reads join the control dependencies either way.
fn guard_passes(st: &mut State, ins: &Instr) -> bool {
    let Some(g) = ins.guard else {
        return true;
    };
    let on = (st.regs[g.reg.index()] != 0) != g.negated;
    st.ctrl = union(&st.ctrl, &st.taint[g.reg.index()]);
    on
}

/// Performs an `ld`: one branch per value its read may return (none when the domain is empty).
fn load(
    ins: &Instr,
    ld: &Ld,
    st: State,
    index: usize,
    proxy: Proxy,
    domain: Domain<'_>,
    stack: &mut Vec<State>,
) -> Result<(), EventError> {
    let loc = loc_of(ins, 1, index)?;
    let sem = LoadSem::effective(ld.sem());
    let mut e = base_event(EvKind::Read { loc, value: 0 }, &st, index, Some(proxy));
    e.strong = sem.is_strong();
    e.scope = sem.scope();
    e.acquire = matches!(sem, LoadSem::Acquire(_));
    each_value(st, domain(loc), |mut s, v| {
        let mut ev = e.clone();
        ev.kind = EvKind::Read { loc, value: v };
        let ri = s.events.len();
        s.events.push(ev);
        set_reg(&mut s, ins.args.first(), v, Deps::from([ri]), index)?;
        s.pc += 1;
        stack.push(s);
        Ok(())
    })
}

/// The instruction index a `bra` jumps to (past the end for an unplaced label).
fn branch_target(code: &ThreadCode, ins: &Instr, index: usize) -> Result<usize, EventError> {
    let Some(Operand::Label(l)) = ins.args.first() else {
        return Err(unsupported(index, "bra needs a label"));
    };
    Ok(code
        .labels
        .get(l.index())
        .copied()
        .unwrap_or(code.instrs.len()))
}

/// A backward jump to `target` (await semantics): the path is dropped (its events go to
/// `out.dropped`), or in liveness mode ends as spinning when the iteration since `target` was
/// last passed wrote nothing.
fn backward_jump(st: State, target: usize, liveness: bool, out: &mut Out<'_>) {
    let since = st.last_pass[target].unwrap_or(0);
    let wrote = st.events[since..]
        .iter()
        .any(|e| matches!(e.kind, EvKind::Write { .. }));
    if liveness && !wrote {
        let mut t = Trace::new(st, Ending::Spin);
        t.spin_start = since;
        out.traces.push(t);
    } else {
        (out.dropped)(&st.events);
    }
}

/// Records a barrier event; in liveness mode a waiting barrier also ends a trace just before it.
fn barrier(
    st: &mut State,
    ins: &Instr,
    b: &Bar,
    index: usize,
    liveness: bool,
    out: &mut Out<'_>,
) -> Result<(), EventError> {
    let arg = |k: usize| -> Result<Option<i64>, EventError> {
        match ins.args.get(k) {
            None => Ok(None),
            Some(o) => value(st, Some(o), index).map(|(v, _)| Some(v)),
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
        out.traces.push(t);
    }
    let e = base_event(EvKind::Barrier(tag), st, index, None);
    st.events.push(e);
    Ok(())
}

/// Performs an instruction that neither branches nor ends the path: a store, a fence, or
/// register arithmetic. Anything else is outside event mode.
fn straight_line(
    st: &mut State,
    ins: &Instr,
    op: &Op,
    index: usize,
    proxy: Proxy,
) -> Result<(), EventError> {
    match op {
        Op::St(stq) => {
            let loc = loc_of(ins, 0, index)?;
            let (v, taint) = value(st, ins.args.get(1), index)?;
            let sem = StoreSem::effective(stq.sem());
            let mut e = base_event(EvKind::Write { loc, value: v }, st, index, Some(proxy));
            e.strong = sem.is_strong();
            e.scope = sem.scope();
            e.release = matches!(sem, StoreSem::Release(_));
            e.data = taint;
            st.events.push(e);
        }
        Op::Fence(f) => {
            let (kind, scope, px) = fence_event(f);
            let mut e = base_event(EvKind::Fence(kind), st, index, px);
            e.strong = true;
            e.scope = scope;
            st.events.push(e);
        }
        Op::Membar(level) => {
            let mut e = base_event(
                EvKind::Fence(FenceKind::Sc),
                st,
                index,
                Some(Proxy::Generic),
            );
            e.strong = true;
            e.scope = Some(level.scope());
            st.events.push(e);
        }
        Op::Mov(_) => {
            let (v, t) = value(st, ins.args.get(1), index)?;
            set_reg(st, ins.args.first(), v, t, index)?;
        }
        Op::Add(_) | Op::Sub(_) | Op::Mul(_) | Op::Div(_) | Op::And(_) | Op::Or(_) | Op::Xor(_) => {
            let (a, ta) = value(st, ins.args.get(1), index)?;
            let (b, tb) = value(st, ins.args.get(2), index)?;
            set_reg(
                st,
                ins.args.first(),
                int_op(op, a, b),
                union(&ta, &tb),
                index,
            )?;
        }
        Op::Setp(sp) => {
            let (a, ta) = value(st, ins.args.get(1), index)?;
            let (b, tb) = value(st, ins.args.get(2), index)?;
            let r = cmp(sp.cmp, a, b);
            let dst = match ins.args.first() {
                Some(Operand::Dual(p, _)) => Some(Operand::Reg(*p)),
                other => other.cloned(),
            };
            set_reg(st, dst.as_ref(), i64::from(r), union(&ta, &tb), index)?;
        }
        other => {
            return Err(unsupported(
                index,
                format!("{other:?} is not supported in litmus threads"),
            ))
        }
    }
    Ok(())
}

/// The fence kind, scope and proxy of the event a fence instruction records.
fn fence_event(f: &Fence) -> (FenceKind, Option<Scope>, Option<Proxy>) {
    match f {
        Fence::Memory { sem, scope } => {
            let k = match sem {
                Some(FenceSem::Sc) => FenceKind::Sc,
                Some(FenceSem::AcqRel) | None => FenceKind::AcqRel,
                Some(FenceSem::Acquire) => FenceKind::Acquire,
                Some(FenceSem::Release) => FenceKind::Release,
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
        Fence::ProxyAsync(_) => (FenceKind::Proxy(Proxy::Async), None, Some(Proxy::Async)),
        Fence::ProxyTensormap { .. } => (
            FenceKind::Proxy(Proxy::Tensormap),
            None,
            Some(Proxy::Tensormap),
        ),
    }
}

/// The value of a two-operand integer instruction (`add`, `sub`, `mul`, `div`, `and`, `or`,
/// `xor`) on litmus registers; division by zero gives -1.
fn int_op(op: &Op, a: i64, b: i64) -> i64 {
    match op {
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
    }
}
