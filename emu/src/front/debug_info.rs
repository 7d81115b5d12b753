//! The debugging directives that carry source locations: `.file` (module scope) and `.loc`
//! (function bodies), PTX ISA "Debugging Directives". `.loc` has no terminating `;`: it ends
//! with its line.

use super::cursor::Cursor;
use super::error::{Error, ErrorKind};
use super::lexer::Tok;
use crate::ir::{FileDecl, InlinedAt, Loc, SourcePos, Span};

fn syntax(what: String, c: &Cursor<'_>) -> Error {
    Error::new(ErrorKind::Syntax(what), c.span())
}

/// Consumes the bare word `w` if it is next.
fn eat_word(c: &mut Cursor<'_>, w: &str) -> bool {
    if matches!(&c.peek().tok, Tok::Ident(s) if s == w) {
        c.bump();
        true
    } else {
        false
    }
}

/// An integer operand of a debugging directive that fits 32 bits.
fn number(c: &mut Cursor<'_>, what: &str) -> Result<u32, Error> {
    let span = c.span();
    let v = c.int()?;
    u32::try_from(v)
        .map_err(|_| Error::new(ErrorKind::Syntax(format!("{what} {v} is too large")), span))
}

/// An integer operand of a `.loc`, which must lie on the directive's line (`at`).
fn number_on(c: &mut Cursor<'_>, at: Span, what: &str) -> Result<u32, Error> {
    if c.at_eof() || c.peek().span.line != at.line {
        return Err(Error::new(
            ErrorKind::Syntax(format!("the `.loc` directive ends before its {what}")),
            at,
        ));
    }
    number(c, what)
}

/// `file line column`, on the directive's line.
fn position(c: &mut Cursor<'_>, at: Span) -> Result<SourcePos, Error> {
    Ok(SourcePos {
        file: number_on(c, at, "file index")?,
        line: number_on(c, at, "line")?,
        col: number_on(c, at, "column")?,
    })
}

/// Parses the rest of a `.loc` directive (the `.loc` is consumed; `span` is the directive's).
///
/// # Errors
/// Anything but `f l c` or `f l c, function_name LABEL[+N], inlined_at f l c` on the line.
pub(super) fn loc(c: &mut Cursor<'_>, span: Span) -> Result<Loc, Error> {
    let line = span.line;
    let pos = position(c, span)?;
    let mut inlined = None;
    if c.peek().span.line == line && c.eat(',') {
        if !eat_word(c, "function_name") {
            return Err(c.unexpected("`function_name`"));
        }
        let (label, _) = c.ident()?;
        let function_name = label.to_string();
        let offset = if c.eat('+') { c.int()? } else { 0 };
        c.expect(',')?;
        if !eat_word(c, "inlined_at") {
            return Err(c.unexpected("`inlined_at`"));
        }
        inlined = Some(InlinedAt {
            function_name,
            offset,
            at: position(c, span)?,
        });
    }
    if !c.at_eof() && c.peek().span.line == line {
        return Err(syntax(
            format!(
                "expected the end of the `.loc` directive, found {}",
                describe(&c.peek().tok)
            ),
            c,
        ));
    }
    Ok(Loc { pos, inlined, span })
}

/// Parses the rest of a `.file` directive (the `.file` is consumed).
///
/// # Errors
/// Anything but `N "name"` optionally followed by `, timestamp, size`.
pub(super) fn file(c: &mut Cursor<'_>) -> Result<FileDecl, Error> {
    let index = number(c, "file index")?;
    let Tok::Str(name) = c.peek().tok.clone() else {
        return Err(c.unexpected("the file's name as a string"));
    };
    c.bump();
    let stamp = if c.eat(',') {
        let time = c.int()?;
        c.expect(',')?;
        Some((time, c.int()?))
    } else {
        None
    };
    Ok(FileDecl { index, name, stamp })
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Dot(s) => format!("`.{s}`"),
        Tok::Int(v) => format!("`{v}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::F32(_) | Tok::F64(_) | Tok::Decimal(_) => "a float literal".into(),
        Tok::Eof => "the end of the file".into(),
    }
}
