//! Function bodies: nested blocks, register and variable declarations, labels, prototypes,
//! and each instruction statement with its guard, opcode and operands (`call` included).

use std::collections::HashMap;

use super::cursor::Cursor;
use super::error::{Error, ErrorKind};
use super::lexer::Tok;
use super::module::*;
use super::operands::{operand_list, paren_list, NameResolver};
use super::quals::Quals;
use super::MAX_NESTING;
use crate::ir::{
    Block, Call, Guard, Instr, LabelOrProto, Linkage, LocalId, Op, Operand, ProtoId, Prototype,
    RegDecl, RegDeclForm, RegId, RegInfo, Span, Stmt, TargetKind, TargetList, Type, VarRef,
    VecWidth,
};

/// Parses `{ … }` (the `{` is next).
pub(super) fn block(c: &mut Cursor<'_>, s: &mut FnScope<'_>) -> Result<Block, Error> {
    s.open_labels(c.block_labels());
    let b = block_body(c, s);
    s.label_scopes.pop();
    b
}

/// The statements of a block whose label scope is open.
pub(super) fn block_body(c: &mut Cursor<'_>, s: &mut FnScope<'_>) -> Result<Block, Error> {
    c.expect('{')?;
    let mut b = Block::default();
    loop {
        if c.is('}') {
            b.close = c.span();
            c.bump();
            break;
        }
        if c.at_eof() {
            return Err(c.unexpected("`}`"));
        }
        let span = c.span();
        if c.is('{') {
            if s.scopes.len() >= MAX_NESTING as usize {
                return Err(Error::new(
                    ErrorKind::Syntax(format!("blocks nested more than {} deep", MAX_NESTING)),
                    span,
                ));
            }
            s.scopes.push(HashMap::new());
            let inner = block(c, s)?;
            s.scopes.pop();
            b.stmts.push(Stmt::Block(inner));
            continue;
        }
        if let Some(d) = c.dot() {
            match d {
                "reg" => {
                    c.bump();
                    b.stmts.extend(reg_decl(c, s)?);
                }
                "local" | "shared" | "param" | "const" | "global" => {
                    for v in variables(c, s.globals, Linkage::Internal)? {
                        let id = LocalId(s.locals.len() as u32);
                        let name = v.name.clone();
                        s.locals.push(v);
                        s.declare(&name, Name::Local(id), span)?;
                        b.stmts.push(Stmt::Var(id));
                    }
                }
                "pragma" => {
                    c.bump();
                    let Tok::Str(p) = c.peek().tok.clone() else {
                        return Err(c.unexpected("a string"));
                    };
                    c.bump();
                    c.expect(';')?;
                    b.stmts.push(Stmt::Pragma(p));
                }
                "loc" => {
                    c.bump();
                    b.stmts.push(Stmt::Loc(super::debug_info::loc(c, span)?));
                }
                "file" => {
                    c.bump();
                    c.skip_line(span.line);
                }
                _ => return Err(c.unexpected("a statement")),
            }
            continue;
        }
        if let (Tok::Ident(name), Tok::Punct(':')) = (&c.peek().tok, &c.peek_at(1).tok) {
            let (name, nspan) = (name.clone(), c.span());
            c.bump();
            c.bump();
            match c.dot() {
                Some("callprototype") => {
                    c.bump();
                    let p = prototype(c, s, &name)?;
                    let id = ProtoId(s.protos.len() as u32);
                    s.protos.push(p);
                    s.declare(&name, Name::Proto(id), nspan)?;
                    b.stmts.push(Stmt::Prototype(id));
                }
                Some("branchtargets") => {
                    c.bump();
                    let id = s.define_label(&name, nspan)?;
                    let mut ls = Vec::new();
                    loop {
                        let (l, lspan) = c.ident()?;
                        ls.push(
                            s.label(l, lspan, true).ok_or_else(|| {
                                Error::new(ErrorKind::Undeclared(l.into()), lspan)
                            })?,
                        );
                        if !c.eat(',') {
                            break;
                        }
                    }
                    c.expect(';')?;
                    b.stmts.push(Stmt::Targets(TargetList {
                        name: id,
                        targets: TargetKind::Branch(ls),
                    }));
                }
                Some("calltargets") => {
                    c.bump();
                    let id = s.define_label(&name, nspan)?;
                    let mut fs = Vec::new();
                    loop {
                        let (f, fspan) = c.ident()?;
                        fs.push(
                            *s.globals.funcs.get(f).ok_or_else(|| {
                                Error::new(ErrorKind::Undeclared(f.into()), fspan)
                            })?,
                        );
                        if !c.eat(',') {
                            break;
                        }
                    }
                    c.expect(';')?;
                    b.stmts.push(Stmt::Targets(TargetList {
                        name: id,
                        targets: TargetKind::Call(fs),
                    }));
                }
                _ => {
                    let id = s.define_label(&name, nspan)?;
                    b.stmts.push(Stmt::Label(id));
                }
            }
            continue;
        }
        match instruction(c, s) {
            Ok(ins) => b.stmts.push(Stmt::Instr(ins)),
            // An instruction ptxemu does not implement is left out and recorded, so that
            // the module's other kernels can still run (the validator reports it).
            Err(Error {
                kind: ErrorKind::Unsupported(what),
                span,
                ..
            }) => {
                s.unsupported.push((what, span));
                skip_statement(c);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(b)
}

/// Skips the rest of an instruction: up to and including its `;` (braced operand vectors
/// skipped whole), or up to the `}` that closes the enclosing block.
pub(super) fn skip_statement(c: &mut Cursor<'_>) {
    let mut depth = 0u32;
    while !c.at_eof() {
        if c.is('{') {
            depth += 1;
        } else if c.is('}') {
            if depth == 0 {
                return;
            }
            depth -= 1;
        } else if depth == 0 && c.is(';') {
            c.bump();
            return;
        }
        c.bump();
    }
}

pub(super) fn prototype(
    c: &mut Cursor<'_>,
    s: &mut FnScope<'_>,
    name: &str,
) -> Result<Prototype, Error> {
    let returns = if c.is('(') {
        params(c, s, true, false)?
    } else {
        Vec::new()
    };
    let (underscore, sp) = c.ident()?;
    if underscore != "_" {
        return Err(Error::new(
            ErrorKind::Syntax(
                "a call prototype is written `name: .callprototype (rets) _ (params);`".into(),
            ),
            sp,
        ));
    }
    let params = if c.is('(') {
        params(c, s, false, false)?
    } else {
        Vec::new()
    };
    let noreturn = c.eat_dot("noreturn");
    c.expect(';')?;
    Ok(Prototype {
        name: name.to_string(),
        returns,
        params,
        noreturn,
    })
}

pub(super) fn reg_decl(c: &mut Cursor<'_>, s: &mut FnScope<'_>) -> Result<Vec<Stmt>, Error> {
    let mut vec = None;
    let mut ty = None;
    while let Some(d) = c.dot() {
        match d {
            "v2" => vec = Some(VecWidth::V2),
            "v4" => vec = Some(VecWidth::V4),
            "v8" => vec = Some(VecWidth::V8),
            _ => match Type::from_name(d) {
                Some(t) => ty = Some(t),
                None => break,
            },
        }
        c.bump();
    }
    let ty = ty.ok_or_else(|| c.unexpected("a register type"))?;
    let mut stmts = Vec::new();
    let mut list = Vec::new();
    loop {
        let (name, span) = c.ident()?;
        if c.eat('<') {
            let n = c.int()?;
            c.expect('>')?;
            if n > 1 << 20 {
                return Err(Error::new(
                    ErrorKind::Unsupported(format!("{n} registers in one declaration")),
                    span,
                ));
            }
            let mut regs = Vec::with_capacity(n as usize);
            for k in 0..n {
                let id = RegId(s.regs.len() as u32);
                let full = format!("{name}{k}");
                s.regs.push(RegInfo {
                    name: full.clone(),
                    ty,
                    vec,
                });
                s.declare(&full, Name::Reg(id), span)?;
                regs.push(id);
            }
            stmts.push(Stmt::Regs(RegDecl {
                ty,
                vec,
                regs,
                form: RegDeclForm::Range {
                    prefix: name.to_string(),
                    count: n as u32,
                },
            }));
        } else {
            let id = RegId(s.regs.len() as u32);
            s.regs.push(RegInfo {
                name: name.to_string(),
                ty,
                vec,
            });
            s.declare(name, Name::Reg(id), span)?;
            list.push(id);
        }
        if !c.eat(',') {
            break;
        }
    }
    c.expect(';')?;
    if !list.is_empty() {
        stmts.push(Stmt::Regs(RegDecl {
            ty,
            vec,
            regs: list,
            form: RegDeclForm::List,
        }));
    }
    Ok(stmts)
}

/// Parses one instruction with an optional guard (the first token is `@` or the opcode).
///
/// # Errors
/// Syntax, unknown instruction or qualifier, undeclared names.
pub fn instruction(c: &mut Cursor<'_>, r: &mut dyn NameResolver) -> Result<Instr, Error> {
    let start = c.span();
    let guard = if c.eat('@') {
        let negated = c.eat('!');
        let (name, span) = c.ident()?;
        let reg = r
            .register(name)
            .ok_or_else(|| Error::new(ErrorKind::Undeclared(name.to_string()), span))?;
        Some(Guard { reg, negated })
    } else {
        None
    };
    let (opcode, ospan) = c.ident()?;
    let mut quals = Vec::new();
    let mut end = ospan;
    while let Some(d) = c.dot() {
        if c.peek().spaced {
            break;
        }
        end = c.span();
        quals.push((d.to_string(), c.span()));
        c.bump();
    }
    let mnemonic_span = Span {
        len: end.offset + end.len - ospan.offset,
        ..ospan
    };
    let mut q = Quals::new(opcode, quals, mnemonic_span);
    let op = super::opcodes::parse_op(opcode, &mut q)?;
    let (op, args) = match op {
        Op::Call(_) => call(c, r, op)?,
        Op::Bra { .. } | Op::BrxIdx { .. } => (op, operand_list(c, r, true)?),
        other => (other, operand_list(c, r, false)?),
    };
    c.expect(';')?;
    let len = c.span().offset.saturating_sub(start.offset);
    Ok(Instr {
        guard,
        op,
        args: args.into(),
        span: Span { len, ..start },
    })
}

/// Parses the operands of `call` (after the mnemonic).
pub(super) fn call(
    c: &mut Cursor<'_>,
    r: &mut dyn NameResolver,
    op: Op,
) -> Result<(Op, Vec<Operand>), Error> {
    let Op::Call(mut call) = op else {
        return Ok((op, Vec::new()));
    };
    if c.is('(') {
        call.returns = paren_list(c, r)?;
        c.expect(',')?;
    }
    let (name, span) = c.ident()?;
    call.callee = if let Some(reg) = r.register(name) {
        Operand::Reg(reg)
    } else if let Some(v @ VarRef::Function(_)) = r.variable(name) {
        Operand::Symbol(crate::ir::SymbolAddr { sym: v, offset: 0 })
    } else {
        return Err(Error::new(ErrorKind::Undeclared(name.to_string()), span));
    };
    if c.eat(',') {
        if c.is('(') {
            call.args = paren_list(c, r)?;
            if c.eat(',') {
                let (p, ps) = c.ident()?;
                call.target_info = Some(if let Some(proto) = r.prototype(p) {
                    LabelOrProto::Proto(proto)
                } else if let Some(l) = r.label(p, ps, false) {
                    LabelOrProto::Targets(l)
                } else {
                    return Err(Error::new(ErrorKind::Undeclared(p.to_string()), ps));
                });
            }
        } else {
            let (p, ps) = c.ident()?;
            call.target_info = Some(if let Some(proto) = r.prototype(p) {
                LabelOrProto::Proto(proto)
            } else if let Some(l) = r.label(p, ps, false) {
                LabelOrProto::Targets(l)
            } else {
                return Err(Error::new(ErrorKind::Undeclared(p.to_string()), ps));
            });
        }
    }
    Ok((Op::Call(call), Vec::new()))
}

/// Builds the `Op::Call` placeholder for a `call{.uni}` mnemonic.
pub fn call_op(uni: bool) -> Op {
    Op::Call(Box::new(Call {
        uni,
        returns: Vec::new(),
        callee: Operand::Sink,
        args: Vec::new(),
        target_info: None,
    }))
}
