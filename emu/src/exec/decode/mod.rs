//! Lowering a validated [`Module`] into the interpreter's [`Program`].
//!
//! Each function's body is flattened (nested blocks disappear: names were resolved by the
//! parser), labels become program counters, registers become slots, variables become fixed
//! addresses or frame offsets ([`layout`], [`crate::exec::launch::shared_layout`]), and each instruction gets the execution
//! function for its opcode and types ([`ops`]).
//!
//! A construct the interpreter cannot lower refuses only the kernels that reach it: the
//! function that holds it is kept with the first such error, and every kernel calling it
//! directly or indirectly is refused at launch with that error ([`DFunc::refused`]). The
//! other kernels of the module run.

pub mod context;
pub mod error;
pub mod layout;
pub mod operands;
pub mod ops;
mod source_lines;

use crate::exec::fault::SourceLine;
use crate::exec::launch::shared_layout::KernelSharedInfo;
use crate::exec::program::{
    Builtin, DFunc, DFuncKind, DInstr, Dst, Extra, FrameLayout, InstrInfo, Program, Src, NO_GUARD,
};
use crate::ir::{Block, Function, Instr, MemoryClass, Module, Op, ParamKind, Stmt, Type};
use crate::validate::Validated;
use smallvec::SmallVec;
use source_lines::SourceLines;
use std::sync::Arc;

use context::{FnCtx, SlotInfo};
pub use error::DecodeError;

fn builtin_for(name: &str) -> Option<Builtin> {
    Some(match name {
        "vprintf" => Builtin::Vprintf,
        "malloc" => Builtin::Malloc,
        "free" => Builtin::Free,
        "__assertfail" => Builtin::AssertFail,
        _ => return None,
    })
}

/// The flattened instructions of one body, each with the source line of the `.loc` before it.
#[derive(Default)]
struct Flat<'a> {
    instrs: Vec<&'a Instr>,
    sources: Vec<Option<Arc<SourceLine>>>,
}

fn flatten<'a>(b: &'a Block, out: &mut Flat<'a>, labels: &mut [u32], src: &mut SourceLines<'_>) {
    for s in &b.stmts {
        match s {
            Stmt::Instr(i) => {
                out.instrs.push(i);
                out.sources.push(src.current());
            }
            Stmt::Loc(l) => src.directive(l),
            Stmt::Label(l) => {
                if let Some(slot) = labels.get_mut(l.index()) {
                    *slot = out.instrs.len() as u32;
                }
            }
            Stmt::Block(inner) => flatten(inner, out, labels, src),
            Stmt::Regs(_)
            | Stmt::Var(_)
            | Stmt::Prototype(_)
            | Stmt::Targets(_)
            | Stmt::Pragma(_) => {}
        }
    }
}

fn assign_slots(f: &Function) -> (Vec<SlotInfo>, u32, u32) {
    let mut vals = 0u32;
    let mut preds = 0u32;
    let slots = f
        .regs
        .iter()
        .map(|r| {
            if r.ty == Type::Pred {
                preds += 1;
                SlotInfo::Pred(preds - 1)
            } else {
                let elems = r.vec.map_or(1, |v| v.len() as u32);
                let per = if r.ty == Type::B128 { 2 } else { 1 };
                let count = elems * per;
                let s = SlotInfo::Val {
                    slot: vals,
                    bits: if r.ty == Type::B128 {
                        64
                    } else {
                        r.ty.bits() as u8
                    },
                    count: count as u8,
                };
                vals += count;
                s
            }
        })
        .collect();
    (slots, vals, preds)
}

/// Stands in for an instruction that could not be lowered; its function is refused, so it
/// never runs.
fn placeholder() -> DInstr {
    DInstr {
        exec: crate::exec::step::hints::nop,
        guard: NO_GUARD,
        d: [Dst::Sink; 2],
        s: [Src::None; 4],
        extra: Extra::None,
        control: false,
    }
}

/// Gives every function that reaches a refused function (through calls) that function's
/// error, naming the callee, so a kernel is refused exactly when it could run into it.
fn refuse_callers(funcs: &mut [DFunc], callees: &[Vec<u32>]) {
    loop {
        let mut changed = false;
        for f in 0..funcs.len() {
            if funcs[f].refused.is_some() {
                continue;
            }
            let culprit = callees[f]
                .iter()
                .find_map(|&c| funcs[c as usize].refused.clone().map(|e| (c, e)));
            if let Some((c, e)) = culprit {
                let via = funcs[c as usize].name.clone();
                funcs[f].refused = Some(match e {
                    DecodeError::Unsupported { what, span } => DecodeError::Unsupported {
                        what: format!("{what} (in `{via}`, which it calls)"),
                        span,
                    },
                    DecodeError::Unguaranteed(u) => DecodeError::Unguaranteed(u),
                    DecodeError::Memory(m) => DecodeError::Memory(m),
                });
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Decodes a module the validator accepted (lowering reads the operand forms it guarantees,
/// [`crate::validate::forms`]), with its global variables placed from `globals_base`.
///
/// # Errors
/// A module-wide problem (its `.global` or `.const` variables do not fit, an initialiser
/// cannot be encoded). A function the interpreter cannot lower is not an error here: it is
/// recorded in [`DFunc::refused`] and refuses the kernels that reach it.
pub fn decode(
    validated: &Validated,
    file_name: &str,
    source: &str,
    globals_base: u64,
) -> Result<Program, DecodeError> {
    let module = validated.module();
    let lines: Vec<&str> = source.lines().collect();
    let lay = layout::layout(module, globals_base)?;
    let mut out = Emitted::default();
    let mut funcs: Vec<DFunc> = Vec::with_capacity(module.functions.len());
    // First pass: entry pcs, so that calls and function addresses can refer to any function.
    let bodies = flatten_bodies(module, source);
    for (fid, f) in module.functions.iter().enumerate() {
        let (slots, mut value_slots, mut pred_slots) = assign_slots(f);
        let cc_slot = pred_slots;
        pred_slots += 1;
        let (frame, _) = lay.frames[fid].clone();
        let (instrs, labels) = &bodies[fid];
        let entry = out.code.len() as u32;
        let fx = FnCtx {
            module,
            validated,
            func: f,
            fid: fid as u32,
            layout: &lay,
            slots,
            labels: labels.clone(),
            cc_slot,
        };
        let mut refused: Option<DecodeError> =
            f.unsupported
                .first()
                .map(|(what, span)| DecodeError::Unsupported {
                    what: what.clone(),
                    span: *span,
                });
        lower_body(&fx, instrs, &lines, &mut refused, &mut out);
        let kind = if f.body.is_some() {
            DFuncKind::Code {
                entry,
                end: out.code.len() as u32,
            }
        } else if let Some(b) = builtin_for(&f.name) {
            DFuncKind::Builtin(b)
        } else {
            DFuncKind::Undefined
        };
        let reg_slot = |k: &ParamKind| match k {
            ParamKind::Reg(r) => match fx.slots.get(r.index()) {
                Some(SlotInfo::Val { slot, .. }) => Some(*slot),
                Some(SlotInfo::Pred(_)) | None => None,
            },
            ParamKind::Param => None,
        };
        let reg_params = f.params.iter().map(|p| reg_slot(&p.kind)).collect();
        let reg_returns = f.returns.iter().map(|p| reg_slot(&p.kind)).collect();
        value_slots = value_slots.max(1);
        if refused.is_none() {
            if let Err(e) = &lay.shared.per_func[fid] {
                refused = Some(e.clone());
            }
        }
        let shared = lay.shared.kernels[fid]
            .as_ref()
            .map(|k| KernelSharedInfo {
                base: k.base,
                static_end: k.static_end,
                dynamic_offset: k.dynamic_offset,
            })
            .unwrap_or_default();
        funcs.push(DFunc {
            name: f.name.clone(),
            kind,
            value_slots,
            pred_slots,
            frame: FrameLayout { ..frame },
            reg_params,
            reg_returns,
            shared,
            refused,
        });
    }
    refuse_callers(&mut funcs, &lay.shared.callees);
    Ok(Program {
        code: out.code,
        info: out.info,
        funcs,
        func_of_pc: out.func_of_pc,
        const_bank: lay.const_bank,
        globals_image: lay.globals_image,
        globals_base,
        module_local_size: lay.module_local,
        file_name: file_name.to_string(),
        race_ops: out.race_ops,
    })
}

/// Each function's flattened body and its labels' pcs, pcs counted across the module in
/// function order.
fn flatten_bodies<'m>(module: &'m Module, source: &str) -> Vec<(Flat<'m>, Vec<u32>)> {
    let mut bodies = Vec::new();
    let mut next_pc = 0u32;
    let mut src = SourceLines::new(module, source);
    for f in &module.functions {
        let mut labels = vec![0u32; f.labels.len()];
        let mut instrs = Flat::default();
        src.start_function();
        if let Some(b) = &f.body {
            flatten(b, &mut instrs, &mut labels, &mut src);
        }
        for l in labels.iter_mut() {
            *l += next_pc;
        }
        // A body that runs off its closing brace returns there (ptxas ends it with EXIT or
        // RET): each body gets one implicit `ret` after its last instruction.
        next_pc += instrs.instrs.len() as u32 + u32::from(f.body.is_some());
        bodies.push((instrs, labels));
    }
    bodies
}

/// The decoded instructions so far, with what is recorded of each.
#[derive(Default)]
struct Emitted {
    code: Vec<DInstr>,
    info: Vec<InstrInfo>,
    race_ops: Vec<crate::race::RaceOp>,
    func_of_pc: Vec<u32>,
}

impl Emitted {
    fn push(&mut self, d: DInstr, race: crate::race::RaceOp, info: InstrInfo, fid: u32) {
        self.code.push(d);
        self.race_ops.push(race);
        self.info.push(info);
        self.func_of_pc.push(fid);
    }
}

/// Lowers one function's instructions, and the implicit `ret` at its closing brace, into
/// `out`; the first instruction that cannot be lowered becomes a placeholder and the
/// function's `refused` reason (unless it has one).
fn lower_body(
    fx: &FnCtx<'_>,
    instrs: &Flat<'_>,
    lines: &[&str],
    refused: &mut Option<DecodeError>,
    out: &mut Emitted,
) {
    let f = fx.func;
    for (ins, source) in instrs.instrs.iter().zip(&instrs.sources) {
        let d = match ops::lower(fx, ins) {
            Ok(d) => d,
            Err(e) => {
                refused.get_or_insert(e);
                placeholder()
            }
        };
        let info = InstrInfo {
            span: ins.span,
            text: lines
                .get((ins.span.line as usize).wrapping_sub(1))
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| operands::describe(fx, ins)),
            source: source.clone(),
        };
        out.push(d, memory_role(&ins.op), info, fx.fid);
    }
    if let Some(body) = &f.body {
        let implicit = Instr {
            guard: None,
            op: Op::Ret { uni: false },
            args: SmallVec::new(),
            span: body.close,
        };
        let d = ops::lower(fx, &implicit).unwrap_or_else(|e| {
            refused.get_or_insert(e);
            placeholder()
        });
        let info = InstrInfo {
            span: body.close,
            text: format!("ret (implicit, at the closing brace of `{}`)", f.name),
            source: None,
        };
        out.push(d, crate::race::RaceOp::Other, info, fx.fid);
    }
}

/// What an instruction is to the race detector: nothing when the opcode table gives its
/// opcode no memory-model class, else its form's description.
fn memory_role(op: &Op) -> crate::race::RaceOp {
    match op.info().memory {
        MemoryClass::None => crate::race::RaceOp::Other,
        MemoryClass::Access
        | MemoryClass::Fence
        | MemoryClass::Async
        | MemoryClass::Mbarrier
        | MemoryClass::ClusterBarrier
        | MemoryClass::TensorCore => crate::race::describe(op),
    }
}
