//! Integer constant expressions in operands (PTX ISA "Constant Expressions"): literals,
//! parentheses, unary `+ - ! ~`, binary `* / + - << >> < > <= >= == != & ^ | && ||` and
//! `?:`, with C's precedence. They are evaluated in 64-bit two's complement, as signed values
//! (the unsigned arithmetic PTX uses when an operand has a `U` suffix is not modelled; it
//! differs only for `>>`, `/` and comparisons of values with the top bit set). `%` cannot be
//! written (`%3` is a register name), as ptxas also reads it.

use super::cursor::Cursor;
use super::error::{Error, ErrorKind};
use super::lexer::Tok;
use super::MAX_NESTING;

/// Whether the next tokens begin an integer constant expression (a literal, `(`, or a unary
/// operator in front of one), as opposed to a float literal, a name or `!%p`.
pub fn starts(c: &Cursor<'_>) -> bool {
    let mut k = 0;
    loop {
        match c.peek_at(k).tok {
            Tok::Int(_) | Tok::Punct('(') => return true,
            Tok::Punct('-' | '+' | '!' | '~') => k += 1,
            _ => return false,
        }
    }
}

/// Parses and evaluates one expression.
///
/// # Errors
/// A malformed expression, or a division by zero.
pub fn parse(c: &mut Cursor<'_>) -> Result<i64, Error> {
    ternary(c, 0)
}

fn too_deep(c: &Cursor<'_>) -> Error {
    Error::new(
        ErrorKind::Syntax(format!(
            "a constant expression nested more than {MAX_NESTING} deep"
        )),
        c.span(),
    )
}

fn ternary(c: &mut Cursor<'_>, depth: u32) -> Result<i64, Error> {
    if depth > MAX_NESTING {
        return Err(too_deep(c));
    }
    let cond = binary(c, 0, depth)?;
    if !c.eat('?') {
        return Ok(cond);
    }
    let a = ternary(c, depth + 1)?;
    c.expect(':')?;
    let b = ternary(c, depth + 1)?;
    Ok(if cond != 0 { a } else { b })
}

/// A binary operator at the cursor: its text (one or two characters), and its precedence
/// (higher binds tighter).
fn operator(c: &Cursor<'_>) -> Option<(&'static str, u8)> {
    let first = match c.peek().tok {
        Tok::Punct(p) => p,
        _ => return None,
    };
    let second = match c.peek_at(1).tok {
        Tok::Punct(p) if !c.peek_at(1).spaced => Some(p),
        _ => None,
    };
    Some(match (first, second) {
        ('|', Some('|')) => ("||", 1),
        ('&', Some('&')) => ("&&", 2),
        ('|', _) => ("|", 3),
        ('^', _) => ("^", 4),
        ('&', _) => ("&", 5),
        ('=', Some('=')) => ("==", 6),
        ('!', Some('=')) => ("!=", 6),
        ('<', Some('<')) => ("<<", 8),
        ('>', Some('>')) => (">>", 8),
        ('<', Some('=')) => ("<=", 7),
        ('>', Some('=')) => (">=", 7),
        ('<', _) => ("<", 7),
        ('>', _) => (">", 7),
        ('+', _) => ("+", 9),
        ('-', _) => ("-", 9),
        ('*', _) => ("*", 10),
        ('/', _) => ("/", 10),
        _ => return None,
    })
}

/// Operators binding at least as tightly as `min`, left to right.
fn binary(c: &mut Cursor<'_>, min: u8, depth: u32) -> Result<i64, Error> {
    let mut lhs = unary(c, depth)?;
    while let Some((op, prec)) = operator(c) {
        if prec < min {
            break;
        }
        let span = c.span();
        for _ in 0..op.len() {
            c.bump();
        }
        let rhs = binary(c, prec + 1, depth)?;
        lhs = match op {
            "||" => i64::from(lhs != 0 || rhs != 0),
            "&&" => i64::from(lhs != 0 && rhs != 0),
            "|" => lhs | rhs,
            "^" => lhs ^ rhs,
            "&" => lhs & rhs,
            "==" => i64::from(lhs == rhs),
            "!=" => i64::from(lhs != rhs),
            "<" => i64::from(lhs < rhs),
            ">" => i64::from(lhs > rhs),
            "<=" => i64::from(lhs <= rhs),
            ">=" => i64::from(lhs >= rhs),
            "<<" => lhs.wrapping_shl(rhs as u32),
            ">>" => lhs.wrapping_shr(rhs as u32),
            "+" => lhs.wrapping_add(rhs),
            "-" => lhs.wrapping_sub(rhs),
            "*" => lhs.wrapping_mul(rhs),
            _ => {
                if rhs == 0 {
                    return Err(Error::new(
                        ErrorKind::Syntax("division by zero in a constant expression".into()),
                        span,
                    ));
                }
                lhs.wrapping_div(rhs)
            }
        };
    }
    Ok(lhs)
}

fn unary(c: &mut Cursor<'_>, depth: u32) -> Result<i64, Error> {
    let deeper = |c: &mut Cursor<'_>| ternary_operand(c, depth + 1);
    if c.eat('-') {
        return Ok(deeper(c)?.wrapping_neg());
    }
    if c.eat('+') {
        return deeper(c);
    }
    if c.eat('!') {
        return Ok(i64::from(deeper(c)? == 0));
    }
    if c.eat('~') {
        return Ok(!deeper(c)?);
    }
    if c.eat('(') {
        let v = ternary(c, depth + 1)?;
        c.expect(')')?;
        return Ok(v);
    }
    Ok(c.int()? as i64)
}

/// The operand of a unary operator, one level deeper (refused past [`MAX_NESTING`]).
fn ternary_operand(c: &mut Cursor<'_>, depth: u32) -> Result<i64, Error> {
    if depth > MAX_NESTING {
        return Err(too_deep(c));
    }
    unary(c, depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;

    fn eval(text: &str) -> Result<i64, String> {
        let toks = lex(text, crate::ir::FileId(0)).map_err(|e| format!("{e:?}"))?;
        let mut c = Cursor::new(&toks);
        assert!(starts(&c), "{text}");
        let v = parse(&mut c).map_err(|e| format!("{e:?}"))?;
        assert!(c.at_eof(), "{text}: not all read");
        Ok(v)
    }

    #[test]
    fn c_precedence_and_operators() {
        for (text, want) in [
            ("2", 2),
            ("-2", -2),
            ("!2", 0),
            ("!0", 1),
            ("~2", -3),
            ("!!2", 1),
            ("- 2", -2),
            ("(1+2)", 3),
            ("1+2*3", 7),
            ("(1+2)*3", 9),
            ("1<<4", 16),
            ("0x10|1", 17),
            ("-(4)", -4),
            ("10-2-3", 5),
            ("7/2", 3),
            ("1<2 && 3>=3", 1),
            ("1 == 2 || 2 != 2", 0),
            ("6&3^1", 3),
            ("1 ? 5 : 6", 5),
            ("0 ? 5 : 1 ? 7 : 8", 7),
            ("-1>>1", -1),
        ] {
            assert_eq!(eval(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn malformed_expressions_and_division_by_zero_are_errors() {
        assert!(eval("1/0").unwrap_err().contains("division by zero"));
        assert!(eval("(1+2").is_err());
        assert!(eval("1+").is_err());
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(eval(&deep).unwrap_err().contains("nested more than"));
        let signs = format!("{}1", "-".repeat(100_000));
        assert!(eval(&signs).unwrap_err().contains("nested more than"));
        assert_eq!(
            eval(&format!("{}1{}", "(".repeat(150), ")".repeat(150))),
            Ok(1)
        );
    }
}
