//! The PTX lexer (PTX ISA "Syntax": source format, comments, identifiers, constants).
//!
//! Produces tokens with their byte offset, line and column. Identifiers may start with a
//! letter, `_`, `$` or `%` and contain letters, digits, `_` and `$`. A `.` followed by
//! identifier characters is a directive or qualifier token; its text keeps `::` parts
//! (`.shared::cta`, `.L2::256B`). Integer literals are decimal, hexadecimal (`0x`), octal
//! (leading `0`) or binary (`0b`), with an optional `U` suffix; float literals are `0f`/`0F`
//! (8 hex digits, f32 bits), `0d`/`0D` (16 hex digits, f64 bits) or decimal with a point or
//! exponent. Comments (`//`, `/* */`) are skipped.

use super::error::{Error, ErrorKind};
use crate::ir::{FileId, Span};

/// A token kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier (`%r1`, `$L__BB0_2`, `_Z3foo`, `sm_90`).
    Ident(String),
    /// A directive or qualifier without its dot (`version`, `u32`, `shared::cta`).
    Dot(String),
    /// An integer literal's value (two's complement in 64 bits for negative values arises
    /// only through a preceding `-`).
    Int(u64),
    /// `0fXXXXXXXX`: f32 bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: f64 bits.
    F64(u64),
    /// A decimal float literal.
    Decimal(f64),
    /// A string literal's contents.
    Str(String),
    /// A punctuation character: `, ; : { } [ ] ( ) | ! @ + - < > =`.
    Punct(char),
    /// End of input.
    Eof,
}

/// A token with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where it is.
    pub span: Span,
    /// Whether whitespace or a comment preceded it (qualifier chains are glued).
    pub spaced: bool,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Splits `src` into tokens.
///
/// # Errors
/// An unterminated comment or string, a malformed number, or a character PTX does not use.
pub fn lex(src: &str, file: FileId) -> Result<Vec<Token>, Error> {
    let b = src.as_bytes();
    let mut toks = Vec::with_capacity(src.len() / 4);
    let mut i = 0usize;
    let mut line = 1u32;
    let mut line_start = 0usize;
    let mut spaced = true;
    // Columns count characters from the line's start; the last one computed is kept so that
    // a long line costs linear time, not quadratic (tokens come in order).
    let last_col = std::cell::Cell::new((0usize, 0usize, 1u32));
    let span_at = |start: usize, end: usize, line: u32, line_start: usize| {
        let (ls, pos, col) = last_col.get();
        let col = if ls == line_start && pos <= start {
            col + src[pos..start].chars().count() as u32
        } else {
            src[line_start..start].chars().count() as u32 + 1
        };
        last_col.set((line_start, start, col));
        Span {
            file,
            offset: start as u32,
            len: (end - start) as u32,
            line,
            col,
        }
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            line_start = i;
            spaced = true;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            spaced = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            spaced = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let start = i;
            let Some(end) = block_comment_end(b, i) else {
                return Err(Error::new(
                    ErrorKind::Lex("unterminated `/*` comment".into()),
                    span_at(start, start + 2, line, line_start),
                ));
            };
            for (k, &ch) in b[start..end].iter().enumerate() {
                if ch == b'\n' {
                    line += 1;
                    line_start = start + k + 1;
                }
            }
            i = end;
            spaced = true;
            continue;
        }
        let start = i;
        let tok = if c == b'"' {
            let (s, end) = string_literal(src, i).map_err(|end| {
                Error::new(
                    ErrorKind::Lex("unterminated string".into()),
                    span_at(start, end, line, line_start),
                )
            })?;
            i = end;
            Tok::Str(s)
        } else if c == b'.' && b.get(i + 1).is_some_and(|&n| is_ident_char(n)) {
            let s0 = i + 1;
            i = dotted_end(b, s0);
            Tok::Dot(src[s0..i].to_string())
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let (t, end) = number(src, i).map_err(|m| {
                Error::new(
                    ErrorKind::Lex(m),
                    span_at(start, (i + 1).min(b.len()), line, line_start),
                )
            })?;
            i = end;
            t
        } else if is_ident_start(c) {
            i += 1;
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            if &src[start..i] == "%" {
                return Err(Error::new(
                    ErrorKind::Lex("`%` must begin a name (`%r1`, `%tid`)".into()),
                    span_at(start, i, line, line_start),
                ));
            }
            Tok::Ident(src[start..i].to_string())
        } else if b",;:{}[]()|!@+-<>=~*/&^?".contains(&c) {
            i += 1;
            Tok::Punct(c as char)
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return Err(Error::new(
                ErrorKind::Lex(format!(
                    "unexpected character `{}`",
                    super::error::printable(&ch.to_string())
                )),
                span_at(start, start + ch.len_utf8(), line, line_start),
            ));
        };
        toks.push(Token {
            tok,
            span: span_at(start, i, line, line_start),
            spaced,
        });
        spaced = false;
    }
    toks.push(Token {
        tok: Tok::Eof,
        span: span_at(b.len(), b.len(), line, line_start.min(b.len())),
        spaced: true,
    });
    Ok(toks)
}

/// The index after the `/* */` comment that starts at `i`; `None` if it is unterminated.
fn block_comment_end(b: &[u8], mut i: usize) -> Option<usize> {
    i += 2;
    loop {
        if i + 1 >= b.len() {
            return None;
        }
        if b[i] == b'*' && b[i + 1] == b'/' {
            return Some(i + 2);
        }
        i += 1;
    }
}

/// The contents of the string literal whose opening quote is at `i`, and the index after its
/// closing quote (a backslash takes the next character as it is). `Err`: where the line or the
/// input ended first.
fn string_literal(src: &str, mut i: usize) -> Result<(String, usize), usize> {
    let b = src.as_bytes();
    i += 1;
    let mut s = String::new();
    loop {
        match b.get(i) {
            None | Some(b'\n') => return Err(i),
            Some(b'"') => return Ok((s, i + 1)),
            Some(b'\\') if i + 1 < b.len() => {
                let ch = src[i + 1..].chars().next().unwrap_or('?');
                s.push(ch);
                i += 1 + ch.len_utf8();
            }
            Some(_) => {
                let ch = src[i..].chars().next().unwrap_or('?');
                s.push(ch);
                i += ch.len_utf8();
            }
        }
    }
}

/// The index after a directive or qualifier's name starting at `i` (after its dot), `::`
/// parts included (`shared::cta`).
fn dotted_end(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && is_ident_char(b[i]) {
            i += 1;
        }
        if i + 2 < b.len() + 1
            && b.get(i) == Some(&b':')
            && b.get(i + 1) == Some(&b':')
            && b.get(i + 2).is_some_and(|&n| is_ident_char(n))
        {
            i += 2;
            continue;
        }
        return i;
    }
}

/// Lexes a number starting at `i`; returns the token and the index after it.
fn number(src: &str, i: usize) -> Result<(Tok, usize), String> {
    let b = src.as_bytes();
    let hex_run = |from: usize| {
        let mut j = from;
        while j < b.len() && b[j].is_ascii_hexdigit() {
            j += 1;
        }
        j
    };
    if b[i] == b'0'
        && matches!(b.get(i + 1), Some(b'f' | b'F'))
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        let end = hex_run(i + 2);
        if end - (i + 2) != 8 {
            return Err("a `0f` float literal needs exactly 8 hex digits".into());
        }
        let v = u32::from_str_radix(&src[i + 2..end], 16).map_err(|e| e.to_string())?;
        return Ok((Tok::F32(v), end));
    }
    if b[i] == b'0'
        && matches!(b.get(i + 1), Some(b'd' | b'D'))
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        let end = hex_run(i + 2);
        if end - (i + 2) != 16 {
            return Err("a `0d` float literal needs exactly 16 hex digits".into());
        }
        let v = u64::from_str_radix(&src[i + 2..end], 16).map_err(|e| e.to_string())?;
        return Ok((Tok::F64(v), end));
    }
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        let end = hex_run(i + 2);
        if end == i + 2 {
            return Err("`0x` needs hex digits".into());
        }
        let v = u64::from_str_radix(&src[i + 2..end], 16)
            .map_err(|_| "hex literal does not fit in 64 bits".to_string())?;
        return Ok((Tok::Int(v), suffix(b, end)));
    }
    if b[i] == b'0'
        && matches!(b.get(i + 1), Some(b'b' | b'B'))
        && b.get(i + 2).is_some_and(|c| *c == b'0' || *c == b'1')
    {
        let mut end = i + 2;
        while end < b.len() && (b[end] == b'0' || b[end] == b'1') {
            end += 1;
        }
        let v = u64::from_str_radix(&src[i + 2..end], 2)
            .map_err(|_| "binary literal does not fit in 64 bits".to_string())?;
        return Ok((Tok::Int(v), suffix(b, end)));
    }
    let mut end = i;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    let mut is_float = false;
    if end < b.len() && b[end] == b'.' && b.get(end + 1).is_none_or(|c| !c.is_ascii_alphabetic()) {
        is_float = true;
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if end < b.len() && matches!(b[end], b'e' | b'E') {
        let mut j = end + 1;
        if j < b.len() && matches!(b[j], b'+' | b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            is_float = true;
            end = j;
        }
    }
    let text = &src[i..end];
    if is_float {
        let v: f64 = text
            .parse()
            .map_err(|_| format!("bad float literal `{text}`"))?;
        return Ok((Tok::Decimal(v), end));
    }
    let v = if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8).map_err(|_| format!("bad octal literal `{text}`"))?
    } else {
        text.parse::<u64>()
            .map_err(|_| format!("integer literal `{text}` does not fit in 64 bits"))?
    };
    Ok((Tok::Int(v), suffix(b, end)))
}

fn suffix(b: &[u8], end: usize) -> usize {
    if end < b.len()
        && (b[end] == b'U' || b[end] == b'u')
        && b.get(end + 1).is_none_or(|c| !is_ident_char(*c))
    {
        end + 1
    } else {
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s, FileId(0))
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn a_lone_percent_sign_is_no_name() {
        // ptxas: "Parsing error near '%'" for `.reg .b64 %;`.
        let e = lex(".reg .b64 %;", FileId(0)).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Lex(ref m) if m.contains("must begin a name")));
        assert_eq!(e.span.col, 11);
        assert!(lex(".reg .b64 %r1, %_x, %$y;", FileId(0)).is_ok());
    }

    #[test]
    fn columns_count_characters_from_each_line_start() {
        // Kept incrementally along a line; checked against counting from the line's start,
        // across comments with multi-byte characters, several lines and a /* */ comment.
        let src = "a, b /* é\n ü */ c, \"dé\" x\n  e ,f // ö\n\tg";
        let mut line_start = 0;
        let mut line = 1;
        for t in lex(src, FileId(0)).unwrap() {
            let at = t.span.offset as usize;
            while let Some(nl) = src[line_start..at].find('\n') {
                line_start += nl + 1;
                line += 1;
            }
            assert_eq!(t.span.line, line, "{:?}", t.tok);
            let want = src[line_start..at].chars().count() as u32 + 1;
            assert_eq!(t.span.col, want, "{:?}", t.tok);
        }
    }

    #[test]
    fn identifiers_qualifiers_and_punctuation() {
        assert_eq!(
            toks("ld.global.nc.v4.f32 {%f1,%f2}, [%rd1+-8];"),
            vec![
                Tok::Ident("ld".into()),
                Tok::Dot("global".into()),
                Tok::Dot("nc".into()),
                Tok::Dot("v4".into()),
                Tok::Dot("f32".into()),
                Tok::Punct('{'),
                Tok::Ident("%f1".into()),
                Tok::Punct(','),
                Tok::Ident("%f2".into()),
                Tok::Punct('}'),
                Tok::Punct(','),
                Tok::Punct('['),
                Tok::Ident("%rd1".into()),
                Tok::Punct('+'),
                Tok::Punct('-'),
                Tok::Int(8),
                Tok::Punct(']'),
                Tok::Punct(';'),
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("$L__BB0_2:")[..2],
            [Tok::Ident("$L__BB0_2".into()), Tok::Punct(':')]
        );
        assert_eq!(
            toks(".shared::cta .L2::256B")[..2],
            [Tok::Dot("shared::cta".into()), Tok::Dot("L2::256B".into())]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            toks("42 0x2A 052 0b101010 42U")[..5],
            [
                Tok::Int(42),
                Tok::Int(42),
                Tok::Int(42),
                Tok::Int(42),
                Tok::Int(42)
            ]
        );
        assert_eq!(
            toks("0f3F800000 0d3FF0000000000000")[..2],
            [Tok::F32(0x3f80_0000), Tok::F64(0x3ff0_0000_0000_0000)]
        );
        assert_eq!(
            toks("1.5 2e3 0.25e-1")[..3],
            [Tok::Decimal(1.5), Tok::Decimal(2000.0), Tok::Decimal(0.025)]
        );
        assert_eq!(toks("0xFFFFFFFFFFFFFFFF")[0], Tok::Int(u64::MAX));
        assert_eq!(toks("8.0")[0], Tok::Decimal(8.0));
    }

    #[test]
    fn comments_and_positions() {
        let t = lex("// c\n  /* a\n b */ add.u32", FileId(0)).unwrap();
        assert_eq!(t[0].tok, Tok::Ident("add".into()));
        assert_eq!((t[0].span.line, t[0].span.col), (3, 7));
        assert!(!t[1].spaced, "qualifier glued to its opcode");
    }

    #[test]
    fn escapes_before_multibyte_characters_do_not_split_them() {
        // Found by fuzzing: a backslash followed by a multi-byte character.
        let src = ".pragma \"a\\\u{e9}b\";";
        let t = lex(src, FileId(0)).unwrap();
        assert_eq!(t[1].tok, Tok::Str("a\u{e9}b".into()));
        assert!(
            lex("\"\\\u{1F600}", FileId(0)).is_err(),
            "unterminated, but no panic"
        );
    }

    #[test]
    fn errors_have_positions() {
        let e = lex("add.u32 %r1, 0f3F80;", FileId(0)).unwrap_err();
        assert_eq!((e.span.line, e.span.col), (1, 14));
        assert!(lex("/* open", FileId(0)).is_err());
        assert!(lex("mov.u32 %r1, #3;", FileId(0))
            .unwrap_err()
            .to_string()
            .contains('#'));
        assert!(lex("99999999999999999999999", FileId(0)).is_err());
    }
}
