//! Where every variable lives: module globals in one global region, `.const` variables in the
//! constant bank, `.shared` variables (module and function scope) in each kernel's own shared
//! memory layout ([`crate::exec::launch::shared_layout`]), module `.local` variables at the start of each thread's
//! local memory, and each function's parameters and function-scope `.local`/`.param` variables
//! in its activation frame. Initialisers are written into the images here, with symbol
//! addresses resolved.

use super::error::DecodeError;
use crate::exec::memory::FUNCTION_BASE;
use crate::exec::program::{FrameLayout, GlobalsImage};
use crate::ir::{
    ArrayDim, FloatImm, Function, FunctionKind, InitValue, Initializer, Module, ParamKind, Span,
    StateSpace, SymbolRef, Type, Variable,
};
use crate::validate::Unguaranteed;

/// Where a module-scope variable was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A global address.
    Global(u64),
    /// A sized `.shared` variable: its offset depends on the kernel
    /// ([`crate::exec::launch::shared_layout`]).
    Shared,
    /// An offset in the constant bank.
    Const(u64),
    /// An offset in each thread's local memory.
    Local(u64),
    /// Unsized `.extern .shared`: the start of dynamic shared memory.
    DynamicShared,
}

/// The memory layout of a module.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Placement of each module-scope variable.
    pub globals: Vec<Option<Place>>,
    /// The globals region: its size and initialisers.
    pub globals_image: GlobalsImage,
    /// Where the globals region starts.
    pub globals_base: u64,
    /// Constant bank contents.
    pub const_bank: Vec<u8>,
    /// Module `.local` bytes.
    pub module_local: u64,
    /// Frame layout of each function, and the frame offset of each function-scope variable.
    pub frames: Vec<(FrameLayout, Vec<Option<u64>>)>,
    /// Each kernel's shared memory, and the shared offsets each function's code uses.
    pub shared: crate::exec::launch::shared_layout::SharedPlan,
}

fn align_to(x: u64, a: u64) -> u64 {
    let a = a.max(1);
    x.div_ceil(a) * a
}

/// Computes the layout of `module` with the globals region at `globals_base`.
///
/// # Errors
/// An initialiser that cannot be encoded.
pub fn layout(module: &Module, globals_base: u64) -> Result<Layout, DecodeError> {
    let mut l = Layout {
        globals_base,
        shared: crate::exec::launch::shared_layout::plan(module),
        ..Layout::default()
    };
    let mut global_off = 0u64;
    let mut const_off = 0u64;
    for v in &module.globals {
        let size = v.allocated_bytes();
        let align = u64::from(v.alignment());
        let place = match v.space {
            StateSpace::Global => {
                global_off = align_to(global_off, align);
                let p = Place::Global(globals_base + global_off);
                global_off += size;
                Some(p)
            }
            StateSpace::Const => {
                const_off = align_to(const_off, align);
                let p = Place::Const(const_off);
                const_off += size;
                Some(p)
            }
            StateSpace::Shared(_) => {
                if v.size_bytes().is_none() && v.init.is_none() {
                    Some(Place::DynamicShared)
                } else {
                    Some(Place::Shared)
                }
            }
            StateSpace::Local => {
                l.module_local = align_to(l.module_local, align);
                let p = Place::Local(l.module_local);
                l.module_local += size;
                Some(p)
            }
            StateSpace::Generic | StateSpace::Param(_) => None,
        };
        l.globals.push(place);
    }
    if global_off > crate::exec::memory::MAX_ALLOCATION {
        return Err(DecodeError::Unsupported {
            what: format!(
                "the module's .global variables take {global_off} bytes; ptxemu holds at most {} in one allocation",
                crate::exec::memory::MAX_ALLOCATION
            ),
            span: module.globals.first().map_or_else(Span::default, |v| v.span),
        });
    }
    // The rule `const-bank-full` (`validate/limits.rs`) fits them in one bank.
    if const_off > crate::exec::memory::CONST_BANK_SIZE {
        let span = module
            .globals
            .first()
            .map_or_else(Span::default, |v| v.span);
        return Err(Unguaranteed::decl(span, "within one constant bank").into());
    }
    // The globals region is not materialised here: only its initialisers' bytes are kept,
    // and device memory (which starts zeroed) receives them when the module is loaded.
    l.globals_image = GlobalsImage {
        len: global_off,
        inits: Vec::new(),
    };
    l.const_bank = vec![0; const_off as usize];
    for f in &module.functions {
        l.frames.push(frame_layout(f));
    }
    // Initialisers.
    for (i, v) in module.globals.iter().enumerate() {
        let Some(init) = &v.init else { continue };
        let (global, off) = match l.globals[i] {
            Some(Place::Global(a)) => (true, a - globals_base),
            Some(Place::Const(o)) => (false, o),
            Some(Place::Shared | Place::Local(_) | Place::DynamicShared) | None => continue,
        };
        // The rule `initializer-shape` (`validate/init.rs`) gives the initialiser the
        // variable's shape, so it encodes within the variable.
        let mut bytes = Vec::new();
        encode_shaped(v, init, 0, &l.globals, &mut bytes)?;
        let too_large = || {
            DecodeError::from(Unguaranteed::decl(
                v.span,
                "an initialiser within its variable",
            ))
        };
        let end = off.checked_add(bytes.len() as u64).ok_or_else(too_large)?;
        if global {
            if end > l.globals_image.len {
                return Err(too_large());
            }
            l.globals_image.inits.push((off, bytes));
        } else {
            let Some(dst) = l.const_bank.get_mut(off as usize..end as usize) else {
                return Err(too_large());
            };
            dst.copy_from_slice(&bytes);
        }
    }
    Ok(l)
}

/// Lays out a function's frame: parameters, return parameters, then function-scope
/// `.local`/`.param` variables. For a kernel, the parameters are laid out in the parameter
/// buffer instead (offsets from 0) and the frame holds only the variables.
fn frame_layout(f: &Function) -> (FrameLayout, Vec<Option<u64>>) {
    let mut off = 0u64;
    let mut params = Vec::new();
    let place = |v: &Variable, off: &mut u64| {
        let a = u64::from(v.alignment());
        *off = align_to(*off, a);
        let at = *off;
        let size = v.allocated_bytes();
        *off += size;
        (at, size)
    };
    let mut poff = 0u64;
    for p in &f.params {
        match (f.kind, p.kind) {
            (FunctionKind::Entry, _) => params.push(place(&p.var, &mut poff)),
            (FunctionKind::Func, ParamKind::Param) => params.push(place(&p.var, &mut off)),
            (FunctionKind::Func, ParamKind::Reg(_)) => params.push((0, p.var.allocated_bytes())),
        }
    }
    let mut returns = Vec::new();
    for r in &f.returns {
        match r.kind {
            ParamKind::Param => returns.push(place(&r.var, &mut off)),
            ParamKind::Reg(_) => returns.push((0, r.var.allocated_bytes())),
        }
    }
    let mut locals = Vec::with_capacity(f.locals.len());
    for v in &f.locals {
        match v.space {
            StateSpace::Local | StateSpace::Param(_) => locals.push(Some(place(v, &mut off).0)),
            StateSpace::Generic
            | StateSpace::Global
            | StateSpace::Shared(_)
            | StateSpace::Const => locals.push(None),
        }
    }
    (
        FrameLayout {
            size: align_to(off, 16),
            params,
            returns,
        },
        locals,
    )
}

/// Encodes the part of `v`'s initialiser at dimension `depth` (its shape already checked):
/// each entry of a list is padded with zeros to the size of one entry of that dimension, and
/// a sized dimension's list to the whole dimension.
fn encode_shaped(
    v: &Variable,
    init: &Initializer,
    depth: usize,
    places: &[Option<Place>],
    out: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    let (Some(dim), Initializer::List(items)) = (v.dims.get(depth), init) else {
        return encode_init(init, v.ty, places, out, v.span);
    };
    // The rule `initializer-shape` (`validate/init.rs`) fits the initialiser to them.
    let too_big = || {
        DecodeError::from(Unguaranteed::decl(
            v.span,
            "an initialiser that fits its dimensions",
        ))
    };
    let entry = v.entry_bytes(depth).ok_or_else(too_big)? as usize;
    let start = out.len();
    for (k, item) in items.iter().enumerate() {
        encode_shaped(v, item, depth + 1, places, out)?;
        let end = start + (k + 1) * entry;
        if out.len() > end {
            return Err(too_big());
        }
        out.resize(end, 0);
    }
    if let ArrayDim::Sized(n) = *dim {
        out.resize(start + entry * n as usize, 0);
    }
    Ok(())
}

/// Encodes an initialiser as little-endian bytes of element type `ty`.
fn encode_init(
    init: &Initializer,
    ty: Type,
    places: &[Option<Place>],
    out: &mut Vec<u8>,
    span: Span,
) -> Result<(), DecodeError> {
    match init {
        Initializer::List(items) => {
            for i in items {
                encode_init(i, ty, places, out, span)?;
            }
            Ok(())
        }
        Initializer::Value(v) => {
            let n = ty.bytes() as usize;
            let bits: u64 = match v {
                InitValue::Int(i) => {
                    if ty.is_float() {
                        float_bits(ty, *i as f64)
                    } else {
                        *i as u64
                    }
                }
                InitValue::Float(FloatImm::F32(b)) => {
                    if ty == Type::F64 {
                        f64::from(f32::from_bits(*b)).to_bits()
                    } else {
                        u64::from(*b)
                    }
                }
                InitValue::Float(FloatImm::F64(b)) => {
                    if ty == Type::F64 {
                        *b
                    } else {
                        u64::from((f64::from_bits(*b) as f32).to_bits())
                    }
                }
                InitValue::Address {
                    sym,
                    offset,
                    generic,
                } => {
                    let base = match sym {
                        SymbolRef::Function(f) => FUNCTION_BASE + u64::from(f.0),
                        SymbolRef::Global(g) => match places.get(g.index()).copied().flatten() {
                            Some(Place::Global(a)) => a,
                            Some(Place::Const(o)) => {
                                if *generic {
                                    crate::exec::memory::CONST_WINDOW + o
                                } else {
                                    o
                                }
                            }
                            Some(Place::Shared | Place::Local(_) | Place::DynamicShared) | None => {
                                return Err(DecodeError::Unsupported {
                                    what: "an initialiser holding the address of a local or shared variable (each kernel places its shared variables itself)".into(),
                                    span,
                                })
                            }
                        },
                    };
                    base.wrapping_add(*offset as u64)
                }
            };
            out.extend_from_slice(&bits.to_le_bytes()[..n.min(8)]);
            if n > 8 {
                out.extend(std::iter::repeat_n(0u8, n - 8));
            }
            Ok(())
        }
    }
}

fn float_bits(ty: Type, v: f64) -> u64 {
    match ty {
        Type::F64 => v.to_bits(),
        Type::F32 => u64::from((v as f32).to_bits()),
        _ => v as u64,
    }
}
