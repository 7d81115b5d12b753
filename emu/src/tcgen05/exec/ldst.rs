//! `tcgen05.ld` and `tcgen05.st` in the interpreter: the warp's 32 threads move registers
//! to and from their quarter of Tensor Memory by the shape's cell layout (with `.pack::16b`
//! / `.unpack::16b` two 16-bit cells per register), checked cell by cell (for `.32x32b` and
//! `.16x32bx2`, whose registers are consecutive columns, each thread's cells as one run), and
//! `.red` reductions of the loaded values. See [`crate::tcgen05::exec`] for the
//! warp-collective rules.

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};
use crate::ir::Tcgen05;
use crate::ir::TmemShape;
use crate::tcgen05::exec::{collective, decoded, fault, record, tmem, undefined, uniform};
use crate::tcgen05::memory::{Access, TensorMemory, TmemError};
use crate::tcgen05::reduce::reduce;
use crate::tcgen05::trace::{TmemAction, TmemMove};
use smallvec::{smallvec, SmallVec};

type R = Result<Flow, LaneFault>;

/// The cells of register `j` of thread `t` (two with packing).
fn cells_of(
    shape: crate::ir::TmemShape,
    packed: bool,
    taddr: u32,
    split: u32,
    t: u32,
    j: u32,
) -> SmallVec<[(u32, u32); 2]> {
    if packed {
        SmallVec::from_slice(&shape.packed_cells(taddr, split, t, j))
    } else {
        smallvec![shape.cell(taddr, split, t, j)]
    }
}

/// Where thread `t`'s cells lie when they are one run of a lane's consecutive columns:
/// `(lane, first column, cells)`. So they lie for `.32x32b` and `.16x32bx2`, whose register
/// `j` is the `j`-th column from the thread's first (two cells a register with packing);
/// `None` for the other shapes.
fn thread_run(
    shape: TmemShape,
    packed: bool,
    taddr: u32,
    split: u32,
    t: u32,
    regs: u32,
) -> Option<(u32, u32, u32)> {
    if !matches!(shape, TmemShape::S32x32b | TmemShape::S16x32bx2) {
        return None;
    }
    let (lane, column) = cells_of(shape, packed, taddr, split, t, 0)[0];
    Some((lane, column, if packed { 2 * regs } else { regs }))
}

/// Every thread's run of cells ([`thread_run`]), when the shape has them.
pub(crate) fn thread_runs(
    shape: TmemShape,
    packed: bool,
    taddr: u32,
    split: u32,
    regs: u32,
) -> Option<[(u32, u32, u32); 32]> {
    thread_run(shape, packed, taddr, split, 0, regs)?;
    Some(std::array::from_fn(|t| {
        thread_run(shape, packed, taddr, split, t as u32, regs).unwrap_or_default()
    }))
}

/// [`walk`] for a shape whose threads each access one run of cells ([`thread_runs`]), with
/// no trace kept: every run is checked whole before anything moves, then `visit(tmem, t,
/// first cell)` moves thread `t`'s registers and its run is marked pending for the warp.
/// Returns `false`, having changed nothing, when a run fails its check: walking cell by
/// cell then reports the bad cell exactly.
fn walk_runs(
    t_mem: &mut TensorMemory,
    access: Access,
    (warp, pc): (u32, u32),
    runs: &[(u32, u32, u32); 32],
    mut visit: impl FnMut(&mut TensorMemory, u32, u32),
) -> bool {
    let columns = t_mem.columns();
    let mut firsts = [0u32; 32];
    for (first, &run) in firsts.iter_mut().zip(runs) {
        match t_mem.check_run(run, warp, access, &columns) {
            Some(at) => *first = at,
            None => return false,
        }
    }
    for (t, (&first, &(_, _, len))) in firsts.iter().zip(runs).enumerate() {
        visit(t_mem, t as u32, first);
        t_mem.pend_run(first, len, warp, pc, access);
    }
    true
}

/// Every (thread, register) of an `ld`/`st`, thread by thread: its cells (two with packing)
/// are checked for `access`, `visit(tmem, t, j, cells)` moves the register's data and returns
/// the 32-bit value moved, and the cells are marked pending for the warp. Returns the trace's
/// moves (when tracing), or the first bad cell's error with its thread.
fn walk(
    t_mem: &mut TensorMemory,
    access: Access,
    who: (u32, u32, bool),
    regs: u32,
    cells_of: impl Fn(u32, u32) -> SmallVec<[(u32, u32); 2]>,
    mut visit: impl FnMut(&mut TensorMemory, u32, u32, &[u32]) -> u32,
) -> Result<Vec<TmemMove>, (TmemError, u32)> {
    let (warp, pc, trace) = who;
    let mut moves = Vec::new();
    for t in 0..32u32 {
        for j in 0..regs {
            let cells = cells_of(t, j);
            let mut at: SmallVec<[u32; 2]> = SmallVec::new();
            for &(lane, column) in &cells {
                at.push(
                    t_mem
                        .check(lane, column, warp, access)
                        .map_err(|e| (e, t))?,
                );
            }
            let value = visit(t_mem, t, j, &at);
            for &a in &at {
                t_mem.pend(a, warp, pc, access);
            }
            if trace {
                moves.push(TmemMove {
                    thread: t,
                    reg: j,
                    cells,
                    value,
                });
            }
        }
    }
    Ok(moves)
}

/// `tcgen05.ld{.red}.sync.aligned.shape.num{.pack::16b}…`.
pub fn ld(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let Tcgen05::Ld(l) = m.op else {
        return Err(undefined(
            "tcgen05.ld decoded as another instruction".into(),
        ));
    };
    let what = if l.red.is_some() {
        "tcgen05.ld.red"
    } else {
        "tcgen05.ld"
    };
    if let Err(flow) = collective(c, i, what)? {
        return Ok(flow);
    }
    let taddr = uniform(c, &m.taddr, "taddr", what)?.wrapping_add(m.taddr_offset as u32);
    let regs = l.shape.regs(l.num.count());
    let who = (c.ids.warp, c.pc, c.tmem_opts.trace);
    let mut out = vec![[0u64; 32]; regs as usize];
    let cells = |t, j| cells_of(l.shape, l.pack, taddr, m.split, t, j);
    let runs = thread_runs(l.shape, l.pack, taddr, m.split, regs).filter(|_| !who.2);
    crate::tcgen05::exec::mma::check_ld(c, regs, &cells, runs.as_ref(), what)?;
    let by_runs = runs.is_some_and(|runs| {
        walk_runs(
            tmem(c),
            Access::Load,
            (who.0, who.1),
            &runs,
            |t_mem, t, first| {
                let from = t_mem.run(first, if l.pack { 2 * regs } else { regs });
                for (j, reg) in out.iter_mut().enumerate() {
                    reg[t as usize] = u64::from(if l.pack {
                        (from[2 * j] & 0xFFFF) | (from[2 * j + 1] & 0xFFFF) << 16
                    } else {
                        from[j]
                    });
                }
            },
        )
    });
    let moves = if by_runs {
        Vec::new()
    } else {
        walk(
            tmem(c),
            Access::Load,
            who,
            regs,
            cells,
            |t_mem, t, j, at| {
                let value = at.iter().enumerate().fold(0u32, |v, (k, &a)| {
                    let cell = t_mem.read(a);
                    v | if l.pack {
                        (cell & 0xFFFF) << (16 * k)
                    } else {
                        cell
                    }
                });
                out[j as usize][t as usize] = u64::from(value);
                value
            },
        )
        .map_err(|(e, t)| fault(c, e, what, Some(t), Some(taddr)))?
    };
    for (d, v) in m.dsts.iter().zip(&out) {
        c.write(d, v);
    }
    let redvals = l.red.map(|red| {
        let per_thread: [u64; 32] = std::array::from_fn(|t| {
            let vals: Vec<u32> = out.iter().map(|r| r[t] as u32).collect();
            u64::from(reduce(red, &vals))
        });
        c.write(&m.redval, &per_thread);
        per_thread.iter().map(|v| *v as u32).collect()
    });
    record(c, Some(taddr), TmemAction::Load { redvals }, moves);
    Ok(Flow::Next)
}

/// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32`.
pub fn st(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let Tcgen05::St(s) = m.op else {
        return Err(undefined(
            "tcgen05.st decoded as another instruction".into(),
        ));
    };
    let what = "tcgen05.st";
    if let Err(flow) = collective(c, i, what)? {
        return Ok(flow);
    }
    let taddr = uniform(c, &m.taddr, "taddr", what)?.wrapping_add(m.taddr_offset as u32);
    let values: Vec<[u64; 32]> = m.srcs.iter().map(|src| c.fetch(src)).collect();
    let regs = s.shape.regs(s.num.count());
    let who = (c.ids.warp, c.pc, c.tmem_opts.trace);
    let cells = |t, j| cells_of(s.shape, s.unpack, taddr, m.split, t, j);
    let runs = thread_runs(s.shape, s.unpack, taddr, m.split, regs).filter(|_| !who.2);
    let by_runs = runs.is_some_and(|runs| {
        walk_runs(
            tmem(c),
            Access::Store,
            (who.0, who.1),
            &runs,
            |t_mem, t, first| {
                let to = t_mem.run_mut(first, if s.unpack { 2 * regs } else { regs });
                for (j, reg) in values.iter().enumerate() {
                    let value = reg[t as usize] as u32;
                    if s.unpack {
                        to[2 * j] = value & 0xFFFF;
                        to[2 * j + 1] = value >> 16;
                    } else {
                        to[j] = value;
                    }
                }
            },
        )
    });
    let moves = if by_runs {
        Vec::new()
    } else {
        walk(
            tmem(c),
            Access::Store,
            who,
            regs,
            cells,
            |t_mem, t, j, at| {
                let value = values[j as usize][t as usize] as u32;
                for (k, &a) in at.iter().enumerate() {
                    let half = (value >> (16 * k)) & 0xFFFF;
                    t_mem.write(a, if s.unpack { half } else { value });
                }
                value
            },
        )
        .map_err(|(e, t)| fault(c, e, what, Some(t), Some(taddr)))?
    };
    record(c, Some(taddr), TmemAction::Store, moves);
    Ok(Flow::Next)
}
