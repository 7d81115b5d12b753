//! Interpreting one path of a thread in event mode: the machine state of a path, the
//! instructions event mode understands, and the branching on each read's possible values.
//!
//! Values are computed with the interpreter's typed semantics functions
//! (`crate::semantics::int` for arithmetic and comparisons, `crate::semantics::atomic` for
//! `atom`/`red`), on the instruction's width and signedness: `atom.add.u32` on 4294967295
//! gives 0, `atom.min.s32` reads 0xFFFFFFFF as -1. A result is held in the 64-bit register
//! sign-extended for a signed type and zero-extended otherwise; a store writes its value
//! cut to the store's width the same way.

use models::event::{BarrierTag, FenceKind};
use models::vocab::{FenceSem, LoadSem, Proxy, RmwSem, Scope, StoreSem};

use crate::ir::{
    AddrBase, AtomOp, Bar, BarKind, Fence, Imm, Instr, Ld, MulMode, Op, Operand, Type, VarRef,
};
use crate::semantics::int::{self as si, IntOp};

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
    /// The events the path has recorded so far.
    pub(super) fn events_len(&self) -> usize {
        self.events.len()
    }

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

/// The bits of a `ty` result as a register value: sign-extended for a signed type,
/// zero-extended otherwise.
pub(super) fn typed_value(bits: u64, ty: Type) -> i64 {
    let w = ty.bits().min(64);
    if ty.is_signed() {
        si::sign_extend(bits, w)
    } else {
        si::wrap(bits, w) as i64
    }
}

/// Refuses a type event mode does not compute with: only integer types are values here.
fn integer(ty: Type, index: usize) -> Result<Type, EventError> {
    if ty.is_integer() && ty.bits() <= 64 {
        Ok(ty)
    } else {
        Err(unsupported(
            index,
            format!("event mode computes with integer types, not .{ty}"),
        ))
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

/// The value an `atom`/`red` of `op` on `ty` writes, by the interpreter's value function; a
/// failed `cas` writes the old value back (deviation 1 of `crate::event`).
pub(super) fn atom_value(
    op: AtomOp,
    ty: Type,
    old: i64,
    b: i64,
    c: i64,
    index: usize,
) -> Result<i64, EventError> {
    let f = crate::semantics::atomic::value_fn(op, ty)
        .ok_or_else(|| unsupported(index, format!("atom.{op:?}.{ty} does not exist")))?;
    Ok(match f(old as u64, b as u64, c as u64) {
        Some(new) => typed_value(new, ty),
        None => old,
    })
}

/// The qualifiers of an `atom` or `red`.
struct Rmw {
    sem: Option<RmwSem>,
    scope: Option<Scope>,
    op: AtomOp,
    ty: Type,
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
    let ty = integer(q.ty, index)?;
    each_value(st, domain(loc), |mut s, v| {
        let ri = s.events.len();
        let mut r = base_event(EvKind::Read { loc, value: v }, &s, index, Some(proxy));
        r.strong = true;
        r.scope = Some(scope);
        r.acquire = read_acquires;
        r.rmw = Some(None);
        r.red = q.red;
        s.events.push(r);
        let nv = atom_value(q.op, ty, v, b, c, index)?;
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
            set_reg(
                &mut s,
                ins.args.first(),
                typed_value(v as u64, ty),
                read,
                index,
            )?;
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
                    ty: a.ty,
                    red: false,
                };
                return rmw(ins, st, index, proxy, r, domain, stack);
            }
            Op::Red(rd) => {
                let r = Rmw {
                    sem: rd.sem,
                    scope: rd.scope,
                    op: rd.op,
                    ty: rd.ty,
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
    let ty = integer(ld.ty, index)?;
    each_value(st, domain(loc), |mut s, v| {
        let mut ev = e.clone();
        ev.kind = EvKind::Read { loc, value: v };
        let ri = s.events.len();
        s.events.push(ev);
        // The register holds what a load of the type gives; the event keeps the value read.
        let r = typed_value(v as u64, ty);
        set_reg(&mut s, ins.args.first(), r, Deps::from([ri]), index)?;
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
            let v = typed_value(v as u64, integer(stq.ty, index)?);
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
        Op::Mov(ty) => {
            let (v, t) = value(st, ins.args.get(1), index)?;
            let v = match ty {
                Type::Pred => v,
                _ => typed_value(v as u64, integer(*ty, index)?),
            };
            set_reg(st, ins.args.first(), v, t, index)?;
        }
        Op::Add(_) | Op::Sub(_) | Op::Mul(_) | Op::Div(_) | Op::And(_) | Op::Or(_) | Op::Xor(_) => {
            let (a, ta) = value(st, ins.args.get(1), index)?;
            let (b, tb) = value(st, ins.args.get(2), index)?;
            set_reg(
                st,
                ins.args.first(),
                int_op(op, a, b, index)?,
                union(&ta, &tb),
                index,
            )?;
        }
        Op::Setp(sp) => {
            let (a, ta) = value(st, ins.args.get(1), index)?;
            let (b, tb) = value(st, ins.args.get(2), index)?;
            let ty = integer(sp.ty, index)?;
            if sp.bool_op.is_some() {
                return Err(unsupported(index, "setp with a combining predicate"));
            }
            let r = si::compare(sp.cmp, a as u64, b as u64, ty.bits(), ty.is_signed());
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

/// The value of a two-operand integer instruction (`add`, `sub`, `mul.lo`, `div`, `and`,
/// `or`, `xor`) on litmus registers, by the interpreter's semantics on the instruction's type
/// (division by zero: `div.s` gives -1, `div.u` all ones).
pub(super) fn int_op(op: &Op, a: i64, b: i64, index: usize) -> Result<i64, EventError> {
    let plain = |ar: &crate::ir::Arith| -> Result<Type, EventError> {
        if ar.sat || ar.cc {
            return Err(unsupported(
                index,
                "event mode computes no .sat or .cc forms",
            ));
        }
        integer(ar.ty, index)
    };
    let (which, ty) = match op {
        Op::Add(ar) => (IntOp::Add, plain(ar)?),
        Op::Sub(ar) => (IntOp::Sub, plain(ar)?),
        Op::Mul(m) if matches!(m.mode, Some(MulMode::Lo)) => (IntOp::MulLo, plain(&m.arith)?),
        Op::Mul(_) => return Err(unsupported(index, "event mode computes mul.lo only")),
        Op::Div(d) => (IntOp::Div, integer(d.ty, index)?),
        Op::And(t) => (IntOp::And, integer(*t, index)?),
        Op::Or(t) => (IntOp::Or, integer(*t, index)?),
        Op::Xor(t) => (IntOp::Xor, integer(*t, index)?),
        other => {
            return Err(unsupported(
                index,
                format!("{other:?} is not an integer operation"),
            ))
        }
    };
    let bits = si::int_op(which, a as u64, b as u64, ty.bits(), ty.is_signed());
    Ok(typed_value(bits, ty))
}
