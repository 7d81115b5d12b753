//! Source locations a compiler left in the PTX: the `.file` table and `.loc` directives (PTX
//! ISA, "Debugging Directives"). nvcc `-lineinfo`, clang `-g` and Triton emit them; faults
//! and race reports name the source line they give beside the PTX line.
//!
//! A `.loc` applies to the instructions that follow it, up to the next `.loc`. Its inlined
//! form (`.loc f l c, function_name LABEL[+off], inlined_at f2 l2 c2`) says that the location
//! lies in a function inlined at `f2:l2:c2`; that call site is itself described by an earlier
//! `.loc` when it was inlined in turn (LLVM emits the chain outermost first).
//!
//! Not modelled: the DWARF sections (`.section .debug_*` is skipped), so `function_name` is kept
//! as the label's text only.

use super::Span;

/// A source position: a `.file` index, a 1-based line, and a column (0: not given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourcePos {
    /// The index a `.file` directive gives its file.
    pub file: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, or 0 when the compiler gave none.
    pub col: u32,
}

/// The inlined form of a `.loc`: the function the location lies in, and where it was inlined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlinedAt {
    /// `function_name LABEL`: the label (in the debug-string section) naming the function.
    pub function_name: String,
    /// `+ N` after the label, 0 when absent.
    pub offset: u64,
    /// `inlined_at f l c`: the call site the function was inlined at.
    pub at: SourcePos,
}

/// A `.loc` directive in a function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The position of the instructions that follow.
    pub pos: SourcePos,
    /// The inlined form's extra fields.
    pub inlined: Option<InlinedAt>,
    /// The directive in the source.
    pub span: Span,
}

/// A `.file` directive: `.file N "name" [, timestamp, size]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDecl {
    /// The index `.loc` directives name the file by.
    pub index: u32,
    /// The file's name as written.
    pub name: String,
    /// The modification time and size, when given.
    pub stamp: Option<(u64, u64)>,
}
