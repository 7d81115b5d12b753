//! Lowering the bulk copies, tensor copies and tensor-map instructions: their addresses,
//! coordinate vectors, sizes and values resolved once (`crate::tma::copy` runs them).

use crate::exec::decode::context::FnCtx;
use crate::exec::decode::error::DecodeError;
use crate::exec::program::{DAddr, DInstr, Extra, Src};
use crate::ir::tma::{BulkSpace, Completion, TensorDir, Tma};
use crate::ir::{Instr, SpaceQual, StateSpace, Type};
use crate::tma::copy as step;
use crate::tma::decoded::TmaInstr;
use crate::tma::tensormap;
use crate::validate::Unguaranteed;

type D = Result<DInstr, DecodeError>;

fn space(s: BulkSpace) -> SpaceQual {
    match s {
        BulkSpace::Global => SpaceQual {
            space: StateSpace::Global,
            explicit_window: false,
        },
        // A CTA's own `.shared::cta` addresses are valid `.shared::cluster` addresses.
        BulkSpace::SharedCta | BulkSpace::SharedCluster => SpaceQual::SHARED_CTA,
    }
}

fn shared_cta() -> SpaceQual {
    space(BulkSpace::SharedCta)
}

fn addr(fx: &FnCtx<'_>, ins: &Instr, k: usize, s: SpaceQual) -> Result<DAddr, DecodeError> {
    fx.addr(fx.arg(ins, k)?, s, ins.span)
}

fn vector(fx: &FnCtx<'_>, ins: &Instr, k: usize) -> Result<Vec<Src>, DecodeError> {
    fx.validated
        .values_of(ins, k)?
        .into_iter()
        .map(|e| fx.src_of(e, Type::S32, ins.span))
        .collect()
}

fn empty(op: Tma) -> TmaInstr {
    TmaInstr {
        op,
        dst: None,
        src: None,
        tmap: None,
        mbar: None,
        coords: Vec::new(),
        offsets: Vec::new(),
        value: Src::None,
        ordinal: 0,
        mask: Src::None,
    }
}

/// Lowers one of these instructions.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu).
pub fn lower(fx: &FnCtx<'_>, ins: &Instr, t: &Tma, mut d: DInstr) -> D {
    let generic = SpaceQual::GENERIC;
    let mut x = empty(*t);
    match t {
        Tma::Bulk(c) | Tma::Reduce(crate::ir::tma::BulkReduce { copy: c, .. }) => {
            x.dst = Some(addr(fx, ins, 0, space(c.dst))?);
            x.src = Some(addr(fx, ins, 1, space(c.src))?);
            x.value = fx.src(fx.arg(ins, 2)?, Type::U32, ins.span)?;
            if c.completion == Completion::Mbarrier {
                x.mbar = Some(addr(fx, ins, 3, shared_cta())?);
            }
            if c.multicast {
                x.mask = fx.src(fx.arg(ins, 4)?, Type::U16, ins.span)?;
            }
            d.exec = step::bulk;
        }
        Tma::Tensor(c) => {
            if c.dir == TensorDir::Load {
                x.dst = Some(addr(fx, ins, 0, space(c.shared))?);
                x.tmap = Some(addr(fx, ins, 1, generic)?);
                x.coords = vector(fx, ins, 2)?;
                x.mbar = Some(addr(fx, ins, 3, shared_cta())?);
                if c.im2col {
                    x.offsets = vector(fx, ins, 4)?;
                }
                if c.multicast {
                    x.mask =
                        fx.src(fx.arg(ins, 4 + usize::from(c.im2col))?, Type::U16, ins.span)?;
                }
            } else {
                x.tmap = Some(addr(fx, ins, 0, generic)?);
                x.coords = vector(fx, ins, 1)?;
                x.src = Some(addr(fx, ins, 2, space(c.shared))?);
            }
            d.exec = step::tensor;
        }
        Tma::Prefetch { .. } | Tma::PrefetchTensor { .. } => {
            // No effect on memory; operands are still resolved so malformed ones are refused.
            if let Tma::PrefetchTensor { .. } = t {
                x.tmap = Some(addr(fx, ins, 0, generic)?);
                x.coords = vector(fx, ins, 1)?;
            } else {
                x.src = Some(addr(fx, ins, 0, space(BulkSpace::Global))?);
            }
            d.exec = step::prefetch;
        }
        Tma::CommitGroup => d.exec = step::commit_group,
        Tma::WaitGroup { .. } => {
            x.value = fx.src(fx.arg(ins, 0)?, Type::U32, ins.span)?;
            d.exec = step::wait_group;
        }
        Tma::Replace { field, shared, ty } => {
            let s = match shared {
                Some(true) => shared_cta(),
                Some(false) => space(BulkSpace::Global),
                None => generic,
            };
            x.tmap = Some(addr(fx, ins, 0, s)?);
            let mut k = 1;
            if field.has_ordinal() {
                // The rule `operand-kind` (`validate.rs`) bounds the ordinal to 0..=4.
                x.ordinal = match fx.validated.int_of(ins, 1)? {
                    n @ 0..=4 => n as u32,
                    _ => return Err(Unguaranteed::instr(ins, "an ordinal 0 to 4").into()),
                };
                k = 2;
            }
            x.value = fx.src(fx.arg(ins, k)?, *ty, ins.span)?;
            d.exec = tensormap::replace;
        }
        Tma::CpFenceproxy { .. } => {
            x.dst = Some(addr(fx, ins, 0, space(BulkSpace::Global))?);
            x.src = Some(addr(fx, ins, 1, shared_cta())?);
            d.exec = tensormap::cp_fenceproxy;
        }
    }
    d.extra = Extra::Tma(Box::new(x));
    Ok(d)
}

/// Lowers `fence.proxy.async{.space}` (a proxy checker's fence) over the state space `s`
/// (all of them when `None`).
pub fn lower_fence_proxy_async(s: Option<StateSpace>, mut d: DInstr) -> D {
    let mut x = empty(Tma::CommitGroup);
    // Bit 0: covers shared memory; bit 1: covers global memory.
    x.ordinal = match s {
        None => 3,
        Some(StateSpace::Global) => 2,
        Some(StateSpace::Shared(_)) => 1,
        Some(_) => 0,
    };
    d.exec = tensormap::fence_proxy_async;
    d.extra = Extra::Tma(Box::new(x));
    Ok(d)
}

/// Lowers `fence.proxy.tensormap::generic.acquire.*` (a proxy checker's fence), with its
/// optional tensor-map address.
///
/// # Errors
/// A guarantee of the validator that did not hold (a bug of ptxemu).
pub fn lower_fence_proxy_tensormap(fx: &FnCtx<'_>, ins: &Instr, mut d: DInstr) -> D {
    let mut x = empty(Tma::CommitGroup);
    if let Some(o) = ins.args.first() {
        x.tmap = Some(fx.addr(o, SpaceQual::GENERIC, ins.span)?);
    }
    d.exec = tensormap::fence_proxy_tensormap;
    d.extra = Extra::Tma(Box::new(x));
    Ok(d)
}
