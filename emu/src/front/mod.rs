//! The PTX front end: lexer, parser and canonical printer.
//!
//! [`parse_module`] reads whole modules as nvcc 12/13 and clang 16 emit them (PTX ISA chapters
//! "Syntax", "State Spaces, Types, and Variables", "Directives", "Instruction Set");
//! [`print_module`] writes a module back as PTX; [`parse_instruction`] reads one instruction
//! whose names the caller resolves (for PTX inside litmus-test cells).
//!
//! Not handled: the C preprocessor (`#include`, `#define`), which compiler output never uses;
//! `.alias`; textures, surfaces and samplers as variables.

/// How deeply the parsers let constructs nest (blocks, initialiser lists, parentheses and
/// unary operators): each level is a recursion, and a bound keeps hostile input from
/// overflowing the stack.
pub const MAX_NESTING: u32 = 200;

mod body;
pub mod constexpr;
pub mod cursor;
mod debug_info;
pub mod error;
pub mod lexer;
pub mod module;
pub mod opcodes;
pub mod operands;
pub mod printer;
pub mod quals;
mod scope;
mod var_decl;

pub use error::{Error, ErrorKind};
pub use module::parse_module;
pub use operands::NameResolver;
pub use printer::{print_instruction, print_module};

use crate::ir::{FileId, Instr};

/// Parses one instruction (with an optional `@p` guard, ending in `;` or the end of the text)
/// whose names `resolver` resolves.
///
/// # Errors
/// Syntax errors, unknown instructions or qualifiers, unresolved names.
pub fn parse_instruction(text: &str, resolver: &mut dyn NameResolver) -> Result<Instr, Error> {
    let owned;
    let text = if text.trim_end().ends_with(';') {
        text
    } else {
        owned = format!("{text};");
        &owned
    };
    let toks = lexer::lex(text, FileId(0))?;
    let mut c = cursor::Cursor::new(&toks);
    let ins = module::instruction(&mut c, resolver)?;
    if !c.at_eof() {
        return Err(c.unexpected("the end of the instruction"));
    }
    Ok(ins)
}
