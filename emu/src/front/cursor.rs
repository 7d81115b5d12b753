//! A cursor over tokens with the small helpers every parsing routine uses.

use super::error::{Error, ErrorKind};
use super::lexer::{Tok, Token};
use crate::ir::Span;

/// A position in a token list.
pub struct Cursor<'t> {
    toks: &'t [Token],
    pos: usize,
}

impl<'t> Cursor<'t> {
    /// A cursor at the first token (the list ends with `Tok::Eof`).
    pub fn new(toks: &'t [Token]) -> Cursor<'t> {
        Cursor { toks, pos: 0 }
    }

    /// The current token.
    pub fn peek(&self) -> &'t Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    /// The token `n` places ahead.
    pub fn peek_at(&self, n: usize) -> &'t Token {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }

    /// The labels a block defines at its own level (not inside nested blocks), with their
    /// positions, for a cursor at the block's `{`: each `name:` (a `?` before it makes it part
    /// of a constant expression), except `name: .callprototype`, which names a prototype.
    /// Nothing is consumed.
    pub fn block_labels(&self) -> Vec<(String, Span)> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        let toks = &self.toks[self.pos.min(self.toks.len())..];
        for (k, t) in toks.iter().enumerate() {
            match &t.tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Eof => break,
                Tok::Ident(name) if depth == 1 => {
                    let colon = matches!(self.peek_at(k + 1).tok, Tok::Punct(':'));
                    let proto =
                        matches!(&self.peek_at(k + 2).tok, Tok::Dot(d) if d == "callprototype");
                    let ternary = k > 0 && matches!(toks[k - 1].tok, Tok::Punct('?'));
                    if colon && !proto && !ternary {
                        out.push((name.clone(), t.span));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Consumes and returns the current token.
    pub fn bump(&mut self) -> &'t Token {
        let t = self.peek();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    /// Whether the input is exhausted.
    pub fn at_eof(&self) -> bool {
        matches!(self.peek().tok, Tok::Eof)
    }

    /// The span of the current token.
    pub fn span(&self) -> Span {
        self.peek().span
    }

    /// Consumes punctuation `c` if it is next.
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek().tok == Tok::Punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Whether punctuation `c` is next.
    pub fn is(&self, c: char) -> bool {
        self.peek().tok == Tok::Punct(c)
    }

    /// Consumes punctuation `c`.
    ///
    /// # Errors
    /// When something else is next.
    pub fn expect(&mut self, c: char) -> Result<(), Error> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{c}`")))
        }
    }

    /// Consumes directive `.name` if it is next.
    pub fn eat_dot(&mut self, name: &str) -> bool {
        if matches!(&self.peek().tok, Tok::Dot(d) if d == name) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// The directive name if a directive is next.
    pub fn dot(&self) -> Option<&'t str> {
        match &self.peek().tok {
            Tok::Dot(d) => Some(d.as_str()),
            _ => None,
        }
    }

    /// Consumes an identifier.
    ///
    /// # Errors
    /// When something else is next.
    pub fn ident(&mut self) -> Result<(&'t str, Span), Error> {
        match &self.peek().tok {
            Tok::Ident(s) => {
                let sp = self.peek().span;
                self.bump();
                Ok((s.as_str(), sp))
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    /// Consumes an unsigned integer literal.
    ///
    /// # Errors
    /// When something else is next.
    pub fn int(&mut self) -> Result<u64, Error> {
        match self.peek().tok {
            Tok::Int(v) => {
                self.bump();
                Ok(v)
            }
            _ => Err(self.unexpected("an integer")),
        }
    }

    /// An error saying what was expected and what was found.
    pub fn unexpected(&self, what: &str) -> Error {
        let found = match &self.peek().tok {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Dot(s) => format!("`.{s}`"),
            Tok::Int(v) => format!("`{v}`"),
            Tok::F32(_) | Tok::F64(_) | Tok::Decimal(_) => "a float literal".into(),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Eof => "the end of the file".into(),
        };
        Error::new(
            ErrorKind::Syntax(format!("expected {what}, found {found}")),
            self.span(),
        )
    }

    /// Skips tokens up to and including the `}` closing the `{` just consumed.
    pub fn skip_braced(&mut self) {
        let mut depth = 1;
        while !self.at_eof() && depth > 0 {
            match self.bump().tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
        }
    }

    /// Skips the rest of the current source line (for `.loc`/`.file`).
    pub fn skip_line(&mut self, line: u32) {
        while !self.at_eof() && self.peek().span.line == line {
            if self.is(';') {
                self.bump();
                return;
            }
            self.bump();
        }
    }
}
