//! Variable declarations: state space, alignment, pointer attributes, vector width, type,
//! array dimensions and initialisers (scalars, nested braces, addresses of globals).

use super::cursor::Cursor;
use super::error::{Error, ErrorKind};
use super::lexer::Tok;
use super::module::*;
use super::quals::space_of;
use super::MAX_NESTING;
use crate::ir::{
    ArrayDim, FloatImm, InitValue, Initializer, Linkage, PtrAttr, StateSpace, SymbolRef, Type,
    Variable, VecWidth,
};

/// Variable attributes before the name: space, `.align`, `.ptr…`, `.vN`, type.
pub(super) struct VarHead {
    pub(super) space: StateSpace,
    pub(super) align: Option<u32>,
    pub(super) ptr: Option<PtrAttr>,
    pub(super) vec: Option<VecWidth>,
    pub(super) ty: Type,
}

pub(super) fn var_head(c: &mut Cursor<'_>, space: StateSpace) -> Result<VarHead, Error> {
    let mut head = VarHead {
        space,
        align: None,
        ptr: None,
        vec: None,
        ty: Type::B8,
    };
    let mut ty = None;
    while let Some(d) = c.dot() {
        match d {
            "align" => {
                c.bump();
                let a = c.int()? as u32;
                match &mut head.ptr {
                    Some(p) if ty.is_some() => p.align = Some(a),
                    _ => head.align = Some(a),
                }
            }
            "ptr" => {
                c.bump();
                head.ptr = Some(PtrAttr {
                    space: StateSpace::Generic,
                    align: None,
                });
            }
            "v2" | "v4" | "v8" => {
                c.bump();
                head.vec = Some(match d {
                    "v2" => VecWidth::V2,
                    "v4" => VecWidth::V4,
                    _ => VecWidth::V8,
                });
            }
            _ => {
                if let Some(t) = Type::from_name(d) {
                    c.bump();
                    ty = Some(t);
                } else if let (Some(p), Some(s)) = (&mut head.ptr, space_of(d)) {
                    c.bump();
                    p.space = s.space;
                } else {
                    break;
                }
            }
        }
    }
    head.ty = ty.ok_or_else(|| c.unexpected("a type"))?;
    Ok(head)
}

pub(super) fn dims(c: &mut Cursor<'_>) -> Result<Vec<ArrayDim>, Error> {
    let mut out = Vec::new();
    while c.eat('[') {
        if c.eat(']') {
            out.push(ArrayDim::Unsized);
        } else {
            out.push(ArrayDim::Sized(c.int()?));
            c.expect(']')?;
        }
    }
    Ok(out)
}

pub(super) fn init_value(c: &mut Cursor<'_>, g: &Globals) -> Result<InitValue, Error> {
    let neg = c.eat('-');
    match c.peek().tok.clone() {
        Tok::Int(v) => {
            c.bump();
            let v = v as i64;
            Ok(InitValue::Int(if neg { v.wrapping_neg() } else { v }))
        }
        Tok::F32(b) => {
            c.bump();
            Ok(InitValue::Float(FloatImm::F32(if neg {
                b ^ 0x8000_0000
            } else {
                b
            })))
        }
        Tok::F64(b) => {
            c.bump();
            Ok(InitValue::Float(FloatImm::F64(if neg {
                b ^ (1 << 63)
            } else {
                b
            })))
        }
        Tok::Decimal(v) => {
            c.bump();
            Ok(InitValue::Float(FloatImm::F64(
                (if neg { -v } else { v }).to_bits(),
            )))
        }
        Tok::Ident(name) => {
            let span = c.span();
            c.bump();
            let (name, generic) = if name == "generic" && c.eat('(') {
                let (n, _) = c.ident()?;
                c.expect(')')?;
                (n.to_string(), true)
            } else {
                (name, false)
            };
            let sym = if let Some(v) = g.vars.get(&name) {
                SymbolRef::Global(*v)
            } else if let Some(f) = g.funcs.get(&name) {
                SymbolRef::Function(*f)
            } else {
                return Err(Error::new(ErrorKind::Undeclared(name), span));
            };
            let mut offset = 0i64;
            if c.eat('+') {
                offset = c.int()? as i64;
            }
            Ok(InitValue::Address {
                sym,
                offset,
                generic,
            })
        }
        _ => Err(c.unexpected("an initial value")),
    }
}

pub(super) fn initializer(c: &mut Cursor<'_>, g: &Globals) -> Result<Initializer, Error> {
    nested_initializer(c, g, 0)
}

pub(super) fn nested_initializer(
    c: &mut Cursor<'_>,
    g: &Globals,
    depth: u32,
) -> Result<Initializer, Error> {
    if c.eat('{') {
        if depth >= MAX_NESTING {
            return Err(Error::new(
                ErrorKind::Syntax(format!(
                    "initialiser lists nested more than {} deep",
                    MAX_NESTING
                )),
                c.span(),
            ));
        }
        let mut items = Vec::new();
        if c.eat('}') {
            return Ok(Initializer::List(items));
        }
        loop {
            items.push(nested_initializer(c, g, depth + 1)?);
            if c.eat('}') {
                break;
            }
            c.expect(',')?;
        }
        Ok(Initializer::List(items))
    } else {
        Ok(Initializer::Value(init_value(c, g)?))
    }
}

/// Parses a variable declaration statement (the space directive is next); returns every
/// variable it declares.
pub(super) fn variables(
    c: &mut Cursor<'_>,
    g: &Globals,
    linkage: Linkage,
) -> Result<Vec<Variable>, Error> {
    let span = c.span();
    let d = c.dot().unwrap_or("");
    let space = space_of(d)
        .map(|s| s.space)
        .ok_or_else(|| c.unexpected("a state space"))?;
    c.bump();
    let head = var_head(c, space)?;
    let mut out = Vec::new();
    loop {
        let (name, nspan) = c.ident()?;
        let dims = dims(c)?;
        let init = if c.eat('=') {
            Some(initializer(c, g)?)
        } else {
            None
        };
        out.push(Variable {
            name: name.to_string(),
            space: head.space,
            linkage,
            align: head.align,
            vec: head.vec,
            ty: head.ty,
            dims,
            init,
            ptr: head.ptr,
            span: if out.is_empty() { span } else { nspan },
        });
        if !c.eat(',') {
            break;
        }
    }
    c.expect(';')?;
    Ok(out)
}
