//! Variables: declarations in any state space, array shapes and initialisers.

use super::*;

/// A variable declaration in an addressable state space.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// The variable's name.
    pub name: String,
    /// The state space it lives in.
    pub space: StateSpace,
    /// Linking directive (module scope only).
    pub linkage: Linkage,
    /// `.align N`, if given.
    pub align: Option<u32>,
    /// `.v2/.v4` element vectors.
    pub vec: Option<VecWidth>,
    /// The element type.
    pub ty: Type,
    /// Array dimensions, outermost first; empty for a scalar.
    pub dims: Vec<ArrayDim>,
    /// Initial value, if any.
    pub init: Option<Initializer>,
    /// `.ptr` attributes of a kernel parameter or variable (`.ptr.global.align 16`).
    pub ptr: Option<PtrAttr>,
    /// Where it was declared.
    pub span: Span,
}

impl Variable {
    /// The number of elements (product of dimensions), or `None` when an outer dimension is
    /// unsized (`[]`).
    pub fn element_count(&self) -> Option<u64> {
        let lanes = self.vec.map_or(1, |v| v.len() as u64);
        self.dims.iter().try_fold(lanes, |acc, d| match d {
            ArrayDim::Sized(n) => acc.checked_mul(*n),
            ArrayDim::Unsized => None,
        })
    }

    /// The size in bytes, or `None` when unsized.
    pub fn size_bytes(&self) -> Option<u64> {
        self.element_count()?
            .checked_mul(u64::from(self.ty.bytes()))
    }

    /// Bytes of one entry of dimension `depth` (0: outermost): the inner dimensions' sizes
    /// times the element size, all lanes of a vector element included (`None` if an inner
    /// dimension is unsized or the product overflows).
    pub fn entry_bytes(&self, depth: usize) -> Option<u64> {
        let lanes = self.vec.map_or(1, |v| v.len() as u64);
        let element = u64::from(self.ty.bytes()) * lanes;
        self.dims
            .get(depth + 1..)
            .unwrap_or(&[])
            .iter()
            .try_fold(element, |acc, d| match d {
                ArrayDim::Sized(n) => acc.checked_mul(*n),
                ArrayDim::Unsized => None,
            })
    }

    /// The bytes the variable occupies: its size, or for an array whose outer dimension is
    /// unsized one entry per item of its initialiser's outer list (0 without one, as for
    /// `.extern .shared` arrays; saturating on overflow).
    pub fn allocated_bytes(&self) -> u64 {
        if let Some(n) = self.size_bytes() {
            return n;
        }
        match (&self.init, self.dims.first()) {
            (Some(Initializer::List(items)), Some(ArrayDim::Unsized)) => self
                .entry_bytes(0)
                .map_or(u64::MAX, |e| e.saturating_mul(items.len() as u64)),
            _ => 0,
        }
    }

    /// The alignment the variable must have: its `.align`, else its element size.
    pub fn alignment(&self) -> u32 {
        let elem = self.ty.bytes() * self.vec.map_or(1, |v| v.len() as u32);
        self.align.unwrap_or(elem.max(1))
    }
}

/// One array dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayDim {
    /// `[N]`
    Sized(u64),
    /// `[]`: size taken from the initialiser, or unsized (`.extern .shared`).
    Unsized,
}

/// `.ptr{.space}{.align N}` attributes of a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    /// The space the pointer points to (`Generic` when not given).
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
}

/// A variable initialiser.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// One value.
    Value(InitValue),
    /// `{ … }`: one entry per element (nested for multi-dimensional arrays).
    List(Vec<Initializer>),
}

/// A scalar initial value.
#[derive(Clone, Debug, PartialEq)]
pub enum InitValue {
    /// An integer constant (its 64-bit two's complement pattern).
    Int(i64),
    /// A float constant, as the raw bits of the given width.
    Float(FloatImm),
    /// The address of a variable or function, plus a byte offset; `generic(sym)` when
    /// `generic` is set.
    Address {
        /// The symbol whose address is taken.
        sym: SymbolRef,
        /// A byte offset added to it.
        offset: i64,
        /// Whether written as `generic(sym)`.
        generic: bool,
    },
}

/// A module-scope symbol named in an initialiser or call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolRef {
    /// A module-scope variable.
    Global(GlobalId),
    /// A function.
    Function(FuncId),
}
