//! Lowering `cp.async` (non-bulk) and `mbarrier`: resolving the shared and global addresses
//! and the count, size and state operands once (`crate::async_copy::cp_async` runs them).

use crate::async_copy::cp_async::{self as step, op};

use crate::async_copy::decoded::AsyncInstr;
use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DInstr, Dst, Extra, Src};
use crate::ir::{CpAsync, Instr, Mbarrier, MbarrierOp, Operand, SpaceQual, StateSpace, Type};
use crate::validate::Unguaranteed;
use models::vocab::SharedWindow;

type D = Result<DInstr, DecodeError>;

fn space(shared: Option<bool>) -> SpaceQual {
    match shared {
        Some(explicit) => SpaceQual {
            space: StateSpace::Shared(SharedWindow::Cta),
            explicit_window: explicit,
        },
        None => SpaceQual::GENERIC,
    }
}

fn is_pred(fx: &FnCtx<'_>, o: &Operand) -> bool {
    matches!(o, Operand::Reg(r) | Operand::NotPred(r) if fx.func.regs[r.index()].ty == Type::Pred)
}

/// Lowers a `cp.async` instruction.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu).
pub fn lower_cp(fx: &FnCtx<'_>, ins: &Instr, c: &CpAsync, mut d: DInstr) -> D {
    match c {
        CpAsync::Copy(cp) => {
            let dst = fx.addr(fx.arg(ins, 0)?, space(Some(cp.explicit_cta)), ins.span)?;
            let src = fx.addr(
                fx.arg(ins, 1)?,
                SpaceQual {
                    space: StateSpace::Global,
                    explicit_window: false,
                },
                ins.span,
            )?;
            // The rule `operand-kind` (`async_copy/validate.rs`) sizes a copy 4, 8 or 16.
            let size = match fx.validated.int_of(ins, 2)? {
                n @ (4 | 8 | 16) => n as u64,
                _ => return Err(Unguaranteed::instr(ins, "a cp.async of 4, 8 or 16 bytes").into()),
            };
            d.s[0] = Src::Imm(size);
            d.s[1] = Src::Imm(0);
            // The fourth operand is src-size (an integer) or ignore-src (a predicate); with
            // .L2::cache_hint the last operand is the policy.
            let extra = ins.args.len() - 3 - usize::from(cp.cache_hint);
            if extra == 1 {
                let o = fx.arg(ins, 3)?;
                if is_pred(fx, o) {
                    d.s[1] = fx.src(o, Type::Pred, ins.span)?;
                } else {
                    d.s[0] = fx.src(o, Type::U32, ins.span)?;
                }
            }
            d.extra = Extra::Async(Box::new(AsyncInstr {
                addr: dst,
                src: Some(src),
                param: size,
            }));
            d.exec = step::copy;
        }
        CpAsync::CommitGroup => d.exec = step::commit_group,
        CpAsync::WaitGroup => {
            d.s[0] = fx.src(fx.arg(ins, 0)?, Type::U32, ins.span)?;
            d.exec = step::wait_group;
        }
        CpAsync::WaitAll => d.exec = step::wait_all,
        CpAsync::MbarrierArrive { noinc, shared } => {
            let addr = fx.addr(fx.arg(ins, 0)?, space(*shared), ins.span)?;
            let noinc = if *noinc { op::NOINC } else { 0 };
            d.extra = Extra::Async(Box::new(AsyncInstr {
                addr,
                src: None,
                param: op::CP_ARRIVE | noinc,
            }));
            d.exec = step::mbarrier;
        }
    }
    Ok(d)
}

/// Lowers an `mbarrier` instruction.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu).
pub fn lower_mbarrier(fx: &FnCtx<'_>, ins: &Instr, m: &Mbarrier, mut d: DInstr) -> D {
    // Operand positions: the address is first for init/inval/expect_tx/complete_tx, second
    // after a destination for arrive and the waits.
    let (addr_k, param) = match m.op {
        MbarrierOp::Init => (0, op::INIT),
        MbarrierOp::Inval => (0, op::INVAL),
        MbarrierOp::ExpectTx => (0, op::EXPECT_TX),
        MbarrierOp::CompleteTx => (0, op::COMPLETE_TX),
        MbarrierOp::Arrive {
            drop,
            expect_tx,
            no_complete,
        } => (
            1,
            op::ARRIVE
                | if drop { op::DROP } else { 0 }
                | if expect_tx { op::TX } else { 0 }
                | if no_complete { op::NO_COMPLETE } else { 0 },
        ),
        MbarrierOp::TestWait { parity } => (1, op::WAIT | if parity { op::PARITY } else { 0 }),
        MbarrierOp::TryWait { parity } => {
            (1, op::WAIT | op::TRY | if parity { op::PARITY } else { 0 })
        }
        MbarrierOp::PendingCount => {
            d.d[0] = fx.dst(fx.arg(ins, 0)?, Type::U32, ins.span)?;
            d.s[0] = fx.src(fx.arg(ins, 1)?, Type::B64, ins.span)?;
            d.exec = step::pending_count;
            return Ok(d);
        }
    };
    let addr = fx.addr(fx.arg(ins, addr_k)?, space(m.shared), ins.span)?;
    if addr_k == 1 {
        let ty = if matches!(m.op, MbarrierOp::Arrive { .. }) {
            Type::B64
        } else {
            Type::Pred
        };
        d.d[0] = fx.dst(fx.arg(ins, 0)?, ty, ins.span)?;
    } else {
        d.d[0] = Dst::Sink;
    }
    d.s[0] = match ins.args.get(addr_k + 1) {
        Some(o) => fx.src(o, Type::B64, ins.span)?,
        None => Src::None,
    };
    d.extra = Extra::Async(Box::new(AsyncInstr {
        addr,
        src: None,
        param,
    }));
    d.exec = step::mbarrier;
    Ok(d)
}
