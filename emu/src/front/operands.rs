//! Operands: registers, negated predicates, dual destinations `d|p`, special registers,
//! immediates, symbols (with `+offset`), braced vectors, addresses `[base+offset]`, labels
//! and the sink `_` (PTX ISA "Operand Types", "Addresses as Operands").
//!
//! Names are resolved through a [`NameResolver`], so the same code parses instructions in a
//! module (with declared registers) and in litmus-test cells (where the caller decides).

use super::cursor::Cursor;
use super::error::{Error, ErrorKind};
use super::lexer::Tok;
use crate::ir::{
    AddrBase, Address, FloatImm, Imm, LabelId, Operand, ProtoId, RegId, Span, SpecialReg,
    SymbolAddr, VarRef, VecElem,
};

/// Resolves names met in instructions.
pub trait NameResolver {
    /// A register named `name`, if declared.
    fn register(&mut self, name: &str) -> Option<RegId>;
    /// A variable, parameter or function named `name`, if declared.
    fn variable(&mut self, name: &str) -> Option<VarRef>;
    /// The label `name`; in a label context (`bra L`) an undeclared label may be created as
    /// a forward reference.
    fn label(&mut self, name: &str, span: Span, create: bool) -> Option<LabelId>;
    /// A `.callprototype` named `name`, if declared.
    fn prototype(&mut self, name: &str) -> Option<ProtoId>;
}

fn int_value(c: &mut Cursor<'_>, neg: bool) -> Result<i64, Error> {
    let v = c.int()?;
    Ok(if neg {
        (v as i64).wrapping_neg()
    } else {
        v as i64
    })
}

/// Parses an immediate: an integer constant expression, or a float literal with an optional
/// leading `-`.
fn immediate(c: &mut Cursor<'_>) -> Result<Option<Imm>, Error> {
    if super::constexpr::starts(c) {
        return Ok(Some(Imm::Int(super::constexpr::parse(c)?)));
    }
    let neg = matches!(c.peek().tok, Tok::Punct('-'))
        && matches!(
            c.peek_at(1).tok,
            Tok::Int(_) | Tok::F32(_) | Tok::F64(_) | Tok::Decimal(_)
        );
    if neg {
        c.bump();
    }
    let imm = match c.peek().tok {
        Tok::F32(b) => {
            c.bump();
            Imm::Float(FloatImm::F32(if neg { b ^ 0x8000_0000 } else { b }))
        }
        Tok::F64(b) => {
            c.bump();
            Imm::Float(FloatImm::F64(if neg { b ^ (1 << 63) } else { b }))
        }
        Tok::Decimal(v) => {
            c.bump();
            Imm::Float(FloatImm::F64((if neg { -v } else { v }).to_bits()))
        }
        _ => return Ok(None),
    };
    Ok(Some(imm))
}

/// Reads a special register name (`%tid` plus a glued `.x` component).
fn special(c: &mut Cursor<'_>, name: &str) -> Option<SpecialReg> {
    if let Some(d) = c.dot() {
        if !c.peek().spaced {
            if let Some(r) = SpecialReg::from_name(&format!("{name}.{d}")) {
                c.bump();
                return Some(r);
            }
        }
    }
    SpecialReg::from_name(name)
}

/// Parses `+ int`, `- int` or `+ - int` after a base; returns the offset (0 when absent).
fn offset(c: &mut Cursor<'_>) -> Result<i64, Error> {
    if c.eat('+') {
        let neg = c.eat('-');
        int_value(c, neg)
    } else if c.is('-') && matches!(c.peek_at(1).tok, Tok::Int(_)) {
        c.bump();
        int_value(c, true)
    } else {
        Ok(0)
    }
}

fn undeclared(name: &str, span: Span) -> Error {
    Error::new(ErrorKind::Undeclared(name.to_string()), span)
}

/// Parses an address `[…]` (the `[` is next).
fn address(c: &mut Cursor<'_>, r: &mut dyn NameResolver) -> Result<Address, Error> {
    c.expect('[')?;
    let addr = match &c.peek().tok {
        Tok::Ident(name) => {
            let span = c.span();
            c.bump();
            let base = if let Some(reg) = r.register(name) {
                AddrBase::Reg(reg)
            } else if let Some(v) = r.variable(name) {
                AddrBase::Var(v)
            } else {
                return Err(undeclared(name, span));
            };
            if c.is('-') {
                // ptxas reads only `+N` and `+-N` after a base inside brackets.
                return Err(Error::new(
                    ErrorKind::Syntax("a negative address offset is written `+-N`".into()),
                    c.span(),
                ));
            }
            Address {
                base,
                offset: offset(c)?,
            }
        }
        Tok::Int(_) | Tok::Punct('-') => {
            let neg = c.eat('-');
            Address {
                base: AddrBase::None,
                offset: int_value(c, neg)?,
            }
        }
        _ => return Err(c.unexpected("an address")),
    };
    c.expect(']')?;
    Ok(addr)
}

/// Parses a braced vector `{a, b, _, …}` (the `{` is next).
fn vector(c: &mut Cursor<'_>, r: &mut dyn NameResolver) -> Result<Vec<VecElem>, Error> {
    c.expect('{')?;
    let mut out = Vec::new();
    loop {
        if let Some(i) = immediate(c)? {
            out.push(VecElem::Imm(i));
        } else {
            let (name, span) = c.ident()?;
            if name == "_" {
                out.push(VecElem::Sink);
            } else {
                out.push(VecElem::Reg(
                    r.register(name).ok_or_else(|| undeclared(name, span))?,
                ));
            }
        }
        if c.eat('}') {
            break;
        }
        c.expect(',')?;
    }
    Ok(out)
}

/// Parses one operand. In a label context, unknown names are forward label references.
///
/// # Errors
/// Malformed operands and undeclared names.
pub fn operand(
    c: &mut Cursor<'_>,
    r: &mut dyn NameResolver,
    label_ctx: bool,
) -> Result<Operand, Error> {
    if c.is('[') {
        return Ok(Operand::Address(address(c, r)?));
    }
    if c.is('{') {
        return Ok(Operand::Vector(vector(c, r)?));
    }
    if c.is('!') && !super::constexpr::starts(c) {
        c.bump();
        let (name, span) = c.ident()?;
        return r
            .register(name)
            .map(Operand::NotPred)
            .ok_or_else(|| undeclared(name, span));
    }
    if let Some(i) = immediate(c)? {
        return Ok(Operand::Imm(i));
    }
    let (name, span) = c.ident()?;
    if name == "_" {
        if c.eat('|') {
            let (n2, s2) = c.ident()?;
            let p = r.register(n2).ok_or_else(|| undeclared(n2, s2))?;
            return Ok(Operand::SinkDual(p));
        }
        return Ok(Operand::Sink);
    }
    if let Some(reg) = r.register(name) {
        if c.eat('|') {
            let (n2, s2) = c.ident()?;
            let p = r.register(n2).ok_or_else(|| undeclared(n2, s2))?;
            return Ok(Operand::Dual(reg, p));
        }
        return Ok(Operand::Reg(reg));
    }
    if name.starts_with('%') {
        if let Some(s) = special(c, name) {
            return Ok(Operand::Special(s));
        }
    }
    // A predefined identifier (PTX ISA "Predefined Identifiers"), unless the module declares
    // a variable of that name.
    if name == "WARP_SZ" && r.variable(name).is_none() {
        return Ok(Operand::Special(SpecialReg::WarpSz));
    }
    if !label_ctx {
        if let Some(v) = r.variable(name) {
            let off = offset(c)?;
            return Ok(Operand::Symbol(SymbolAddr {
                sym: v,
                offset: off,
            }));
        }
    }
    if let Some(l) = r.label(name, span, label_ctx) {
        return Ok(Operand::Label(l));
    }
    if label_ctx {
        if let Some(v) = r.variable(name) {
            return Ok(Operand::Symbol(SymbolAddr { sym: v, offset: 0 }));
        }
    }
    Err(undeclared(name, span))
}

/// A tensor operand `[tmap, {c0, ...}]` of the bulk tensor copies, pushed as an address and
/// a vector; returns false (consuming nothing) when the brackets hold a plain address.
fn tensor_operand(
    c: &mut Cursor<'_>,
    r: &mut dyn NameResolver,
    out: &mut Vec<Operand>,
) -> Result<bool, Error> {
    let mut k = 1;
    loop {
        match &c.peek_at(k).tok {
            Tok::Punct(',') if matches!(c.peek_at(k + 1).tok, Tok::Punct('{')) => break,
            Tok::Punct(']' | ';' | ',') => return Ok(false),
            _ if k > 16 => return Ok(false),
            _ => k += 1,
        }
    }
    c.expect('[')?;
    let (name, span) = c.ident()?;
    let base = if let Some(reg) = r.register(name) {
        AddrBase::Reg(reg)
    } else if let Some(v) = r.variable(name) {
        AddrBase::Var(v)
    } else {
        return Err(undeclared(name, span));
    };
    let off = offset(c)?;
    c.expect(',')?;
    let v = vector(c, r)?;
    c.expect(']')?;
    out.push(Operand::Address(Address { base, offset: off }));
    out.push(Operand::Vector(v));
    Ok(true)
}

/// Parses a comma-separated operand list up to (not including) `;`.
///
/// # Errors
/// As [`operand`].
pub fn operand_list(
    c: &mut Cursor<'_>,
    r: &mut dyn NameResolver,
    label_ctx: bool,
) -> Result<Vec<Operand>, Error> {
    let mut out = Vec::new();
    if c.is(';') {
        return Ok(out);
    }
    loop {
        if c.is('[') && tensor_operand(c, r, &mut out)? {
            if !c.eat(',') {
                break;
            }
            continue;
        }
        out.push(operand(c, r, label_ctx)?);
        if !c.eat(',') {
            break;
        }
    }
    Ok(out)
}

/// Parses a parenthesised operand list `( a, b, … )` (the `(` is next).
///
/// # Errors
/// As [`operand`].
pub fn paren_list(c: &mut Cursor<'_>, r: &mut dyn NameResolver) -> Result<Vec<Operand>, Error> {
    c.expect('(')?;
    let mut out = Vec::new();
    if c.eat(')') {
        return Ok(out);
    }
    loop {
        out.push(operand(c, r, false)?);
        if c.eat(')') {
            break;
        }
        c.expect(',')?;
    }
    Ok(out)
}
