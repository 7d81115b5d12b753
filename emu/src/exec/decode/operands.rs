//! Lowering operands: registers to slots, immediates to raw bits of the instruction's type,
//! symbols to addresses (fixed, or frame-relative per lane), and address operands to a base,
//! an offset and a state space.

use super::context::{FnCtx, SlotInfo};
use super::error::DecodeError;
use super::layout::Place;
use crate::exec::launch::shared_layout::SharedKey;
use crate::exec::memory::{CONST_WINDOW, FUNCTION_BASE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
use crate::exec::program::{AddrBase as DBase, AddrSpace, DAddr, Dst, Src};
use crate::ir::{
    AddrBase, FloatImm, FunctionKind, Imm, Instr, Operand, ParamKind, ParamWindow, SpaceQual,
    StateSpace, Type, VarRef,
};
use crate::validate::forms::{Dest, Value};
use crate::validate::Unguaranteed;

/// Where a symbol lives, as an address base in a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymPlace {
    /// A fixed address in a space.
    Fixed(u64, AddrSpace),
    /// A frame-relative local address.
    Frame(u64),
    /// A `.reg` parameter held in a register slot.
    Reg(u32),
}

impl FnCtx<'_> {
    /// The offset this function's code uses for a shared variable.
    fn shared_at(&self, key: SharedKey, span: crate::ir::Span) -> Result<SymPlace, DecodeError> {
        let offsets = self.layout.shared.per_func[self.fid as usize]
            .as_ref()
            .map_err(Clone::clone)?;
        match offsets.get(&key) {
            Some(&o) => Ok(SymPlace::Fixed(o, AddrSpace::Shared)),
            // The shared layout places every shared variable its function names.
            None => Err(Unguaranteed::at(span, "a shared variable the layout placed").into()),
        }
    }

    /// Places a symbol.
    pub fn sym_place(&self, v: VarRef, span: crate::ir::Span) -> Result<SymPlace, DecodeError> {
        let lay = self.layout;
        Ok(match v {
            VarRef::Global(g) => match lay.globals.get(g.index()).copied().flatten() {
                Some(Place::Global(a)) => SymPlace::Fixed(a, AddrSpace::Global),
                Some(Place::Shared) => self.shared_at(SharedKey::Global(g.index() as u32), span)?,
                Some(Place::DynamicShared) => self.shared_at(SharedKey::Dynamic, span)?,
                Some(Place::Const(o)) => SymPlace::Fixed(o, AddrSpace::Const),
                Some(Place::Local(o)) => SymPlace::Fixed(o, AddrSpace::Local),
                // The parser declares module variables in the spaces the layout places.
                None => return Err(Unguaranteed::at(span, "a variable with storage").into()),
            },
            VarRef::Local(id) => {
                let fid = self.fid as usize;
                let local = self.func.locals.get(id.index());
                if local.is_some_and(|v| matches!(v.space, StateSpace::Shared(_))) {
                    self.shared_at(SharedKey::Local(self.fid, id.index() as u32), span)?
                } else if let Some(Some(off)) = lay.frames[fid].1.get(id.index()) {
                    SymPlace::Frame(*off)
                } else {
                    return Err(DecodeError::Unsupported {
                        what: "a function-scope variable in this state space".into(),
                        span,
                    });
                }
            }
            VarRef::Param(i) => {
                let p = self
                    .func
                    .params
                    .get(i as usize)
                    // The parser resolves a parameter's name to its index.
                    .ok_or_else(|| Unguaranteed::at(span, "a parameter of the function"))?;
                let (off, _) = lay.frames[self.fid as usize].0.params[i as usize];
                match (self.func.kind, p.kind) {
                    (FunctionKind::Entry, _) => SymPlace::Fixed(off, AddrSpace::KernelParam),
                    (FunctionKind::Func, ParamKind::Param) => SymPlace::Frame(off),
                    (FunctionKind::Func, ParamKind::Reg(r)) => match self.slot(r) {
                        SlotInfo::Val { slot, .. } => SymPlace::Reg(slot),
                        SlotInfo::Pred(_) => {
                            return Err(DecodeError::Unsupported {
                                what: "predicate parameters".into(),
                                span,
                            })
                        }
                    },
                }
            }
            VarRef::Return(i) => {
                let r = self
                    .func
                    .returns
                    .get(i as usize)
                    // The parser resolves a return value's name to its index.
                    .ok_or_else(|| Unguaranteed::at(span, "a return value of the function"))?;
                match r.kind {
                    ParamKind::Param => {
                        SymPlace::Frame(lay.frames[self.fid as usize].0.returns[i as usize].0)
                    }
                    ParamKind::Reg(reg) => match self.slot(reg) {
                        SlotInfo::Val { slot, .. } => SymPlace::Reg(slot),
                        SlotInfo::Pred(_) => {
                            return Err(DecodeError::Unsupported {
                                what: "predicate return values".into(),
                                span,
                            })
                        }
                    },
                }
            }
            VarRef::Function(f) => {
                SymPlace::Fixed(FUNCTION_BASE + u64::from(f.0), AddrSpace::Global)
            }
        })
    }

    /// Lowers a source operand read as type `ty`: the validator guarantees a value there
    /// ([`crate::validate::Validated::value`]).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu), or the symbol cannot be placed.
    pub fn src(&self, op: &Operand, ty: Type, span: crate::ir::Span) -> Result<Src, DecodeError> {
        self.src_of(self.validated.value(span, op)?, ty, span)
    }

    /// Lowers a value the validator guaranteed, read as type `ty`.
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu), or the symbol cannot be placed.
    pub fn src_of(
        &self,
        v: Value<'_>,
        ty: Type,
        span: crate::ir::Span,
    ) -> Result<Src, DecodeError> {
        Ok(match v {
            Value::Reg(r) => match self.slot(r) {
                SlotInfo::Val { slot, .. } => Src::Reg(slot),
                SlotInfo::Pred(slot) => Src::Pred { slot, neg: false },
            },
            Value::NotPred(r) => match self.slot(r) {
                SlotInfo::Pred(slot) => Src::Pred { slot, neg: true },
                // The rule `operand-type` (`validate/types.rs`) negates predicates only.
                SlotInfo::Val { .. } => {
                    return Err(Unguaranteed::at(span, "a predicate register after `!`").into())
                }
            },
            Value::Imm(i) => Src::Imm(imm_bits(i, ty)),
            Value::Special(s) => Src::Special(s),
            Value::Symbol(sa) => match self.sym_place(sa.sym, span)? {
                SymPlace::Fixed(a, AddrSpace::Shared) => {
                    Src::SharedSym(a.wrapping_add(sa.offset as u64))
                }
                SymPlace::Fixed(a, _) => Src::Imm(a.wrapping_add(sa.offset as u64)),
                SymPlace::Frame(o) => Src::Frame(o.wrapping_add(sa.offset as u64)),
                SymPlace::Reg(slot) => Src::Reg(slot),
            },
        })
    }

    /// Lowers a destination operand written by an instruction of type `ty`: the validator
    /// guarantees one register there ([`crate::validate::Validated::dest`]).
    ///
    /// # Errors
    /// The guarantee did not hold (a bug of ptxemu), or the symbol cannot be placed.
    pub fn dst(&self, op: &Operand, ty: Type, span: crate::ir::Span) -> Result<Dst, DecodeError> {
        match self.validated.dest(span, op)? {
            Dest::Reg(r) => Ok(self.reg_dst(r, ty)),
            Dest::Sink => Ok(Dst::Sink),
            Dest::Symbol(sa) => match self.sym_place(sa.sym, span)? {
                SymPlace::Reg(slot) => Ok(Dst::Reg {
                    slot,
                    bits: ty.bits().min(64) as u8,
                    sext_from: 0,
                }),
                // The rule `operand-kind` (`validate/instr.rs`) names no variable as a
                // destination: a symbol there is a `.reg` parameter.
                SymPlace::Fixed(..) | SymPlace::Frame(_) => {
                    Err(Unguaranteed::at(span, "a destination register").into())
                }
            },
        }
    }

    /// The destination for register `r` written with an instruction of type `ty`.
    pub fn reg_dst(&self, r: crate::ir::RegId, ty: Type) -> Dst {
        match self.slot(r) {
            SlotInfo::Pred(slot) => Dst::Pred(slot),
            SlotInfo::Val { slot, bits, .. } => {
                let tb = ty.bits().min(64) as u8;
                let sext_from = if ty.is_signed() && tb < bits { tb } else { 0 };
                Dst::Reg {
                    slot,
                    bits,
                    sext_from,
                }
            }
        }
    }

    /// Lowers an address operand of a memory instruction in the given space.
    pub fn addr(
        &self,
        op: &Operand,
        space: SpaceQual,
        span: crate::ir::Span,
    ) -> Result<DAddr, DecodeError> {
        let a = self.validated.address(span, op)?;
        let declared = self.space_of(space.space);
        let (base, sym_space) = match a.base {
            AddrBase::Reg(r) => match self.slot(r) {
                SlotInfo::Val { slot, .. } => (DBase::Reg(slot), None),
                // The rule `operand-type` (`validate/types.rs`) bases no address on a
                // predicate.
                SlotInfo::Pred(_) => {
                    return Err(
                        Unguaranteed::at(span, "an address based on a value register").into(),
                    )
                }
            },
            AddrBase::None => (DBase::Fixed(0), None),
            AddrBase::Var(v) => match self.sym_place(v, span)? {
                SymPlace::Fixed(addr, sp) => (DBase::Fixed(addr), Some(sp)),
                SymPlace::Frame(off) => (DBase::Frame(off), Some(AddrSpace::Local)),
                SymPlace::Reg(_) => {
                    return Err(DecodeError::Unsupported {
                        what: "taking the address of a .reg parameter".into(),
                        span,
                    })
                }
            },
        };
        let space = match (declared, sym_space) {
            // A named variable is accessed in its own space; with generic addressing its
            // address is first converted to a generic one.
            (AddrSpace::Generic, Some(sp)) => {
                let (b, sp) = to_generic(base, sp);
                return Ok(DAddr {
                    base: b,
                    offset: a.offset,
                    space: sp,
                });
            }
            (AddrSpace::KernelParam, Some(AddrSpace::Local)) => AddrSpace::Local,
            (AddrSpace::KernelParam, None) if self.func.kind == FunctionKind::Func => {
                AddrSpace::Local
            }
            (d, _) => d,
        };
        Ok(DAddr {
            base,
            offset: a.offset,
            space,
        })
    }

    /// The decoded space of an instruction's state-space qualifier.
    pub fn space_of(&self, s: StateSpace) -> AddrSpace {
        match s {
            StateSpace::Generic => AddrSpace::Generic,
            StateSpace::Global => AddrSpace::Global,
            StateSpace::Shared(_) => AddrSpace::Shared,
            StateSpace::Local => AddrSpace::Local,
            StateSpace::Const => AddrSpace::Const,
            StateSpace::Param(ParamWindow::Entry) => AddrSpace::KernelParam,
            StateSpace::Param(ParamWindow::Func) => {
                if self.func.kind == FunctionKind::Entry {
                    AddrSpace::KernelParam
                } else {
                    AddrSpace::Local
                }
            }
        }
    }
}

/// The generic form of a fixed address in a space (frame addresses stay per lane).
fn to_generic(base: DBase, sp: AddrSpace) -> (DBase, AddrSpace) {
    match (base, sp) {
        (DBase::Fixed(a), AddrSpace::Shared) => {
            (DBase::Fixed(SHARED_WINDOW + a), AddrSpace::Generic)
        }
        (DBase::Fixed(a), AddrSpace::Const) => (DBase::Fixed(CONST_WINDOW + a), AddrSpace::Generic),
        (DBase::Fixed(a), AddrSpace::Local) => (DBase::Fixed(LOCAL_WINDOW + a), AddrSpace::Generic),
        (DBase::Fixed(a), AddrSpace::KernelParam) => {
            (DBase::Fixed(PARAM_WINDOW + a), AddrSpace::Generic)
        }
        (b, s) => (b, s),
    }
}

/// The raw bits of an immediate used with type `ty`.
pub fn imm_bits(i: Imm, ty: Type) -> u64 {
    match (i, ty) {
        (Imm::Int(v), Type::F32) => u64::from((v as f32).to_bits()),
        (Imm::Int(v), Type::F64) => (v as f64).to_bits(),
        (Imm::Int(v), _) => v as u64,
        (Imm::Float(FloatImm::F32(b)), Type::F64) => f64::from(f32::from_bits(b)).to_bits(),
        (Imm::Float(FloatImm::F32(b)), _) => u64::from(b),
        (Imm::Float(FloatImm::F64(b)), Type::F64) => b,
        (Imm::Float(FloatImm::F64(b)), Type::F32) => {
            u64::from((f64::from_bits(b) as f32).to_bits())
        }
        (Imm::Float(FloatImm::F64(b)), _) => b,
    }
}

/// A short text for an instruction in fault reports, when no source text is available.
pub fn describe(fx: &FnCtx<'_>, ins: &Instr) -> String {
    let _ = fx;
    format!("{:?}", ins.op)
}
