//! Calls and returns: activation frames in each lane's local memory, and the copying of
//! `.param` arguments and return values (PTX ISA "Function Declarations and Definitions",
//! "Parameter State Space").
//!
//! A call pushes, for every calling lane, a frame holding the callee's `.param` parameters,
//! return parameters and function-scope `.local`/`.param` variables; the caller's argument
//! bytes are copied into the callee's parameters. A return copies the callee's return
//! parameters into the caller's return operands and pops the frame. Built-in functions
//! (`vprintf`, `malloc`, `free`, `__assertfail`) run at once without a frame.

use super::builtins;
use super::ctx::fit;
use super::fault::{FaultKind, LaneFault};
use super::launch::CtaOutput;
use super::memory::FUNCTION_BASE;
use super::program::{
    ArgSource, Builtin, CallSite, DFunc, DFuncKind, Dst, Extra, Program, RetDest, Src,
};
use super::warp::{Frame, RegBlock, Warp};
use super::Env;

/// The most local memory one lane may use (frames of deep recursion included).
pub const LOCAL_LIMIT: u64 = 16 << 20;

/// The default limit on call depth (`--max-call-depth`): far beyond what real kernels use
/// (CUDA's default 1 KiB stack holds a few dozen frames), yet small enough that a runaway
/// recursion stops in milliseconds.
pub const DEFAULT_MAX_CALL_DEPTH: u32 = 1024;

/// Host bytes of one register block (values and predicates of all 32 lanes). A lane's frame
/// is charged the whole block, as one recursing lane makes the warp hold one per depth: so
/// the lane limit bounds the warp's register blocks too.
pub fn register_bytes(value_slots: u32, pred_slots: u32) -> u64 {
    u64::from(value_slots) * 32 * 8 + u64::from(pred_slots) * 4
}

/// Checks a call to `depth` whose frame ends at `new_sp` and whose frames' registers total
/// `regs` bytes against the depth limit and the lane's local-memory limit.
fn check_depth(depth: u32, new_sp: u64, regs: u64, max_depth: u32) -> Result<(), FaultKind> {
    if depth > max_depth {
        return Err(FaultKind::Undefined {
            detail: format!(
                "call depth {depth} exceeds the limit of {max_depth} nested calls (runaway recursion?); --max-call-depth raises it"
            ),
        });
    }
    if new_sp.saturating_add(regs) > LOCAL_LIMIT {
        return Err(FaultKind::Undefined {
            detail: format!(
                "stack overflow: call depth {depth} needs {new_sp} bytes of local memory and {regs} of registers, more than the {LOCAL_LIMIT} bytes a thread may have"
            ),
        });
    }
    Ok(())
}

/// Writes `value` into a destination for the lanes of `mask` in a register block.
pub fn write_lanes(block: &mut RegBlock, d: &Dst, mask: u32, value: u64) {
    match *d {
        Dst::Reg {
            slot,
            bits,
            sext_from,
        } => {
            let mut m = mask;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                block.vals[slot as usize * 32 + l] = fit(value, bits, sext_from);
                m &= m - 1;
            }
        }
        Dst::Pred(slot) => {
            let p = &mut block.preds[slot as usize];
            if value & 1 != 0 {
                *p |= mask;
            } else {
                *p &= !mask;
            }
        }
        Dst::Sink => {}
    }
}

/// Reads a source for one lane from a register block (frame addresses use `frame_base`).
fn read_src(block: &RegBlock, s: &Src, lane: usize, frame_base: u64) -> u64 {
    match *s {
        Src::Reg(slot) => block.vals[slot as usize * 32 + lane],
        Src::Pred { slot, neg } => u64::from(((block.preds[slot as usize] >> lane) & 1 == 1) ^ neg),
        Src::Imm(v) => v,
        Src::Frame(off) => frame_base + off,
        // A call argument: the CTA-relative offset (device functions of cluster kernels are
        // inlined by nvcc; a rank's own address works either way).
        Src::SharedSym(off) => off,
        Src::Special(_) | Src::None => 0,
    }
}

fn copy_local(warp: &mut Warp, lane: usize, from: u64, to: u64, size: u64) {
    let mem = &mut warp.local[lane].data;
    let (f, t, n) = (from as usize, to as usize, size as usize);
    if f + n <= mem.len() && t + n <= mem.len() {
        mem.copy_within(f..f + n, t);
    }
}

fn write_local(warp: &mut Warp, lane: usize, at: u64, size: u64, value: u64) {
    let mem = &mut warp.local[lane].data;
    let n = size.min(8) as usize;
    let a = at as usize;
    if a + n <= mem.len() {
        mem[a..a + n].copy_from_slice(&value.to_le_bytes()[..n]);
    }
}

fn read_local(warp: &Warp, lane: usize, at: u64, size: u64) -> u64 {
    let mem = &warp.local[lane].data;
    let n = size.min(8) as usize;
    let a = at as usize;
    let mut b = [0u8; 8];
    if a + n <= mem.len() {
        b[..n].copy_from_slice(&mem[a..a + n]);
    }
    u64::from_le_bytes(b)
}

/// Performs the call at `pc` for the lanes of `mask` (whose pcs are `pc`).
///
/// # Errors
/// An indirect call to an address that is no function, a call to a function with no body,
/// a stack overflow, or a fault of a built-in.
pub fn call(
    warp: &mut Warp,
    prog: &Program,
    env: &Env<'_>,
    pc: u32,
    mask: u32,
    out: &mut CtaOutput,
) -> Result<(), LaneFault> {
    let Extra::Call(site) = &prog.code[pc as usize].extra else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "call without a decoded call site".into(),
        }));
    };
    let depth = warp.depth[mask.trailing_zeros() as usize];
    let caller_func = prog.func_of_pc[pc as usize];
    let from = Caller {
        site,
        pc,
        depth,
        block: warp.block_index(prog, depth, caller_func),
    };
    for (callee, lanes) in callees(warp, prog, &from, mask)? {
        let f = &prog.funcs[callee as usize];
        match f.kind {
            DFuncKind::Builtin(b) => call_builtin(warp, env, out, &from, b, lanes)?,
            DFuncKind::Undefined => {
                return Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail: format!(
                            "call to `{}`, which is declared but never defined",
                            f.name
                        ),
                    },
                    lane: Some(lanes.trailing_zeros()),
                    address: None,
                })
            }
            DFuncKind::Code { entry, .. } => {
                let callee_block = warp.block_index(prog, depth + 1, callee);
                let mut m = lanes;
                while m != 0 {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    enter(warp, env, &from, f, callee_block, entry, l)?;
                }
            }
        }
    }
    Ok(())
}

/// Where a call is made from: the call site, its pc, and the caller's depth and register
/// block.
struct Caller<'a> {
    site: &'a CallSite,
    pc: u32,
    depth: u32,
    block: usize,
}

/// Which function each lane of `mask` calls: each callee with its lanes, in the order the
/// lanes first name them.
fn callees(
    warp: &Warp,
    prog: &Program,
    from: &Caller<'_>,
    mask: u32,
) -> Result<Vec<(u32, u32)>, LaneFault> {
    let site = from.site;
    let mut callees: Vec<(u32, u32)> = Vec::new();
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let callee = match (site.callee, site.target_reg) {
            (Some(f), _) => f,
            (None, Some(slot)) => {
                let a = warp.blocks[from.depth as usize][from.block].vals[slot as usize * 32 + l];
                let idx = a.wrapping_sub(FUNCTION_BASE);
                if a < FUNCTION_BASE || idx >= prog.funcs.len() as u64 {
                    return Err(LaneFault {
                        kind: FaultKind::Undefined {
                            detail: "indirect call to an address that is not a function".into(),
                        },
                        lane: Some(l as u32),
                        address: Some(a),
                    });
                }
                idx as u32
            }
            (None, None) => {
                return Err(LaneFault::new(FaultKind::Unsupported {
                    what: "call with no callee".into(),
                }))
            }
        };
        match callees.iter_mut().find(|(f, _)| *f == callee) {
            Some((_, lanes)) => *lanes |= 1 << l,
            None => callees.push((callee, 1 << l)),
        }
    }
    Ok(callees)
}

/// Runs built-in `b` at once for `lanes`: reads every lane's arguments, then calls it lane by
/// lane, writing its result and moving the lane past the call.
fn call_builtin(
    warp: &mut Warp,
    env: &Env<'_>,
    out: &mut CtaOutput,
    from: &Caller<'_>,
    b: Builtin,
    lanes: u32,
) -> Result<(), LaneFault> {
    let site = from.site;
    let block = &warp.blocks[from.depth as usize][from.block];
    let mut args = Vec::with_capacity(site.args.len());
    let mut m = lanes;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let fb = warp.ids.frame_base[l];
        let vals: Vec<u64> = site
            .args
            .iter()
            .map(|a| match a {
                ArgSource::Frame { offset, size } => read_local(warp, l, fb + offset, *size),
                ArgSource::Value(s) => read_src(block, s, l, fb),
            })
            .collect();
        args.push((l, vals));
    }
    for (l, vals) in args {
        let r = builtins::call(b, &vals, warp, l, env, out).map_err(|f| LaneFault {
            lane: Some(l as u32),
            ..f
        })?;
        let fb = warp.ids.frame_base[l];
        if let Some(dest) = site.rets.first() {
            match *dest {
                RetDest::Frame { offset, size } => write_local(warp, l, fb + offset, size, r),
                RetDest::Reg(d) => {
                    let block = &mut warp.blocks[from.depth as usize][from.block];
                    write_lanes(block, &d, 1 << l, r);
                }
            }
        }
        warp.pc[l] = from.pc + 1;
    }
    Ok(())
}

/// Enters function `f` (whose body starts at `entry`) for lane `l`: pushes its frame after
/// checking the stack, passes the arguments, and moves the lane to the callee.
fn enter(
    warp: &mut Warp,
    env: &Env<'_>,
    from: &Caller<'_>,
    f: &DFunc,
    callee_block: usize,
    entry: u32,
    l: usize,
) -> Result<(), LaneFault> {
    let caller_fb = warp.ids.frame_base[l];
    let fb = warp.sp[l].div_ceil(16) * 16;
    let new_sp = fb + f.frame.size;
    // The callee's registers are a fresh block per depth: they count
    // towards the lane's stack as its local bytes do.
    let regs = warp.stack[l].last().map_or(0, |fr| fr.reg_bytes)
        + register_bytes(f.value_slots, f.pred_slots);
    check_depth(from.depth + 1, new_sp, regs, env.max_call_depth).map_err(|kind| LaneFault {
        kind,
        lane: Some(l as u32),
        address: None,
    })?;
    warp.ensure_local(l, new_sp, env.global.budget())
        .map_err(|e| LaneFault {
            kind: FaultKind::HostMemory(e),
            lane: Some(l as u32),
            address: None,
        })?;
    warp.local[l].data[fb as usize..new_sp as usize].fill(0);
    pass_args(warp, from, f, callee_block, l, caller_fb, fb);
    warp.stack[l].push(Frame {
        ret_pc: from.pc + 1,
        call_pc: from.pc,
        caller_frame_base: caller_fb,
        reg_bytes: regs,
    });
    warp.depth[l] += 1;
    warp.pc[l] = entry;
    warp.ids.frame_base[l] = fb;
    warp.sp[l] = new_sp;
    Ok(())
}

/// Copies lane `l`'s arguments from the caller (frame at `caller_fb`) into the callee's
/// parameters: its register parameters, or its frame at `fb`.
fn pass_args(
    warp: &mut Warp,
    from: &Caller<'_>,
    f: &DFunc,
    callee_block: usize,
    l: usize,
    caller_fb: u64,
    fb: u64,
) {
    for (i, a) in from.site.args.iter().enumerate() {
        let reg_param = f.reg_params.get(i).copied().flatten();
        let (poff, psize) = f.frame.params.get(i).copied().unwrap_or((0, 0));
        let value = match a {
            ArgSource::Frame { offset, size } => {
                if reg_param.is_none() {
                    copy_local(warp, l, caller_fb + offset, fb + poff, *size.min(&psize));
                    continue;
                }
                read_local(warp, l, caller_fb + offset, *size)
            }
            ArgSource::Value(s) => read_src(
                &warp.blocks[from.depth as usize][from.block],
                s,
                l,
                caller_fb,
            ),
        };
        match reg_param {
            Some(slot) => {
                let b = &mut warp.blocks[from.depth as usize + 1][callee_block];
                b.vals[slot as usize * 32 + l] = value;
            }
            None => write_local(warp, l, fb + poff, psize, value),
        }
    }
}

/// Returns from the current function for the lanes of `mask`; returns the lanes that
/// returned from the kernel itself (and so exit).
///
/// # Errors
/// None today; kept fallible for call-site checks.
pub fn ret(warp: &mut Warp, prog: &Program, pc: u32, mask: u32) -> Result<u32, LaneFault> {
    // Lanes in the kernel's own frame (depth 0: no call frame to pop) exit; when every
    // returning lane is there, nothing else is to be done.
    let mut nested = 0u32;
    for (l, d) in warp.depth.iter().enumerate() {
        nested |= u32::from(*d != 0) << l;
    }
    if mask & nested == 0 {
        return Ok(mask);
    }
    let callee = prog.func_of_pc[pc as usize];
    let f = &prog.funcs[callee as usize];
    let mut exited = 0u32;
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let Some(frame) = warp.stack[l].pop() else {
            exited |= 1 << l;
            continue;
        };
        let depth = warp.depth[l];
        let fb = warp.ids.frame_base[l];
        if let Extra::Call(site) = &prog.code[frame.call_pc as usize].extra {
            let caller_func = prog.func_of_pc[frame.call_pc as usize];
            for (i, dest) in site.rets.iter().enumerate() {
                let reg_ret = f.reg_returns.get(i).copied().flatten();
                let (roff, rsize) = f.frame.returns.get(i).copied().unwrap_or((0, 0));
                let value = match reg_ret {
                    Some(slot) => {
                        let bi = warp.block_index(prog, depth, callee);
                        warp.blocks[depth as usize][bi].vals[slot as usize * 32 + l]
                    }
                    None => {
                        if let RetDest::Frame { offset, size } = *dest {
                            copy_local(
                                warp,
                                l,
                                fb + roff,
                                frame.caller_frame_base + offset,
                                size.min(rsize),
                            );
                            continue;
                        }
                        read_local(warp, l, fb + roff, rsize)
                    }
                };
                match *dest {
                    RetDest::Frame { offset, size } => {
                        write_local(warp, l, frame.caller_frame_base + offset, size, value)
                    }
                    RetDest::Reg(d) => {
                        let bi = warp.block_index(prog, depth - 1, caller_func);
                        write_lanes(&mut warp.blocks[depth as usize - 1][bi], &d, 1 << l, value);
                    }
                }
            }
        }
        warp.sp[l] = fb;
        warp.ids.frame_base[l] = frame.caller_frame_base;
        warp.depth[l] = depth - 1;
        warp.pc[l] = frame.ret_pc;
    }
    Ok(exited)
}
