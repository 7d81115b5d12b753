//! Parsing a whole module: header directives, module-scope variables, and kernel and function
//! declarations and definitions with their parameters and performance directives. Function
//! bodies are parsed by `body`, the names they use are resolved by `scope`, and variable
//! declarations by `var_decl`. `.file` and `.loc` are kept (`debug_info`); `.section`
//! contents are skipped.

use std::collections::HashMap;

pub(super) use super::body::*;
use super::cursor::Cursor;
use super::error::{Error, ErrorKind};
use super::lexer::{lex, Tok};
pub(super) use super::scope::*;
pub(super) use super::var_decl::*;
use crate::ir::{
    AddressSize, ArchSuffix, FileId, FuncId, Function, FunctionKind, GlobalId, Linkage, Module,
    ModuleItem, ParamDecl, ParamKind, PerfDirective, RegId, RegInfo, StateSpace, Target,
    TargetOption, Variable, Version,
};

/// Parses a PTX module.
///
/// # Errors
/// The first lexical, syntax or name error, with its position.
pub fn parse_module(src: &str, file_name: &str) -> Result<Module, Error> {
    parse_inner(src).map_err(|mut e| {
        e.file = file_name.to_string();
        e
    })
}

pub(super) fn parse_inner(src: &str) -> Result<Module, Error> {
    let toks = lex(src, FileId(0))?;
    let mut c = Cursor::new(&toks);
    let mut module = Module {
        version: Version::new(0, 0),
        target: Target {
            sm: 0,
            suffix: ArchSuffix::None,
            options: Vec::new(),
        },
        address_size: AddressSize::Bits64,
        globals: Vec::new(),
        functions: Vec::new(),
        items: Vec::new(),
        files: Vec::new(),
    };
    let mut g = Globals::default();
    prescan_functions(&toks, &mut module, &mut g);
    let mut first = true;
    while !c.at_eof() {
        let span = c.span();
        let Some(d) = c.dot() else {
            return Err(c.unexpected("a directive"));
        };
        if d == "version" && !first {
            let why = if module.version.major != 0 {
                "a second `.version` directive: a module has one"
            } else {
                "`.version` must be the module's first directive"
            };
            return Err(Error::new(ErrorKind::Syntax(why.into()), span));
        }
        first = false;
        match d {
            "version" => {
                c.bump();
                module.version = version(&mut c, src)?;
            }
            "target" => {
                if module.target.sm != 0 {
                    return Err(Error::new(
                        ErrorKind::Syntax("a second `.target` directive: a module has one".into()),
                        span,
                    ));
                }
                c.bump();
                module.target = target(&mut c)?;
            }
            "address_size" => {
                c.bump();
                module.address_size = match c.int()? {
                    32 => AddressSize::Bits32,
                    64 => AddressSize::Bits64,
                    n => {
                        return Err(Error::new(
                            ErrorKind::Syntax(format!("address size {n} is not 32 or 64")),
                            span,
                        ))
                    }
                };
            }
            "file" => {
                c.bump();
                let f = super::debug_info::file(&mut c)?;
                module
                    .items
                    .push(ModuleItem::File(module.files.len() as u32));
                module.files.push(f);
            }
            "section" => {
                c.bump();
                while !c.at_eof() && !c.is('{') {
                    c.bump();
                }
                c.expect('{')?;
                c.skip_braced();
            }
            "pragma" => {
                c.bump();
                if let Tok::Str(_) = c.peek().tok {
                    c.bump();
                }
                c.expect(';')?;
            }
            _ => {
                let linkage = linkage(&mut c);
                match c.dot() {
                    Some("entry") | Some("func") => {
                        let (fid, has_body) = function(&mut c, &mut module, &g, linkage)?;
                        let item = if has_body {
                            ModuleItem::Function(fid)
                        } else {
                            ModuleItem::Declaration(fid)
                        };
                        module.items.push(item);
                    }
                    Some("global" | "const" | "shared" | "local") => {
                        for v in variables(&mut c, &g, linkage)? {
                            let id = GlobalId(module.globals.len() as u32);
                            g.vars.insert(v.name.clone(), id);
                            module.globals.push(v);
                            module.items.push(ModuleItem::Global(id));
                        }
                    }
                    _ => return Err(c.unexpected("a declaration")),
                }
            }
        }
    }
    // Functions declared but neither defined nor ever listed keep their prescanned stubs.
    Ok(module)
}

/// Finds every function name at module level so that calls and initialisers may refer to
/// functions defined later.
pub(super) fn prescan_functions(
    toks: &[super::lexer::Token],
    module: &mut Module,
    g: &mut Globals,
) {
    let mut depth = 0i32;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth -= 1,
            Tok::Dot(d) if depth == 0 && (d == "entry" || d == "func") => {
                let kind = if d == "entry" {
                    FunctionKind::Entry
                } else {
                    FunctionKind::Func
                };
                let mut j = i + 1;
                if toks.get(j).map(|t| &t.tok) == Some(&Tok::Punct('(')) {
                    let mut pd = 0;
                    while j < toks.len() {
                        match toks[j].tok {
                            Tok::Punct('(') => pd += 1,
                            Tok::Punct(')') => {
                                pd -= 1;
                                if pd == 0 {
                                    j += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                }
                if let Some(Tok::Ident(name)) = toks.get(j).map(|t| &t.tok) {
                    if !g.funcs.contains_key(name) {
                        let id = FuncId(module.functions.len() as u32);
                        g.funcs.insert(name.clone(), id);
                        module.functions.push(Function {
                            name: name.clone(),
                            kind,
                            linkage: Linkage::Internal,
                            returns: Vec::new(),
                            params: Vec::new(),
                            noreturn: false,
                            perf: Vec::new(),
                            regs: Vec::new(),
                            locals: Vec::new(),
                            labels: Vec::new(),
                            prototypes: Vec::new(),
                            body: None,
                            unsupported: Vec::new(),
                            span: toks[j].span,
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
}

pub(super) fn version(c: &mut Cursor<'_>, src: &str) -> Result<Version, Error> {
    let span = c.span();
    let bad = || {
        Error::new(
            ErrorKind::Syntax("expected a version such as 8.0".into()),
            span,
        )
    };
    if !matches!(c.peek().tok, Tok::Decimal(_) | Tok::Int(_)) {
        return Err(bad());
    }
    c.bump();
    let text = src
        .get(span.offset as usize..(span.offset + span.len) as usize)
        .ok_or_else(bad)?;
    let (a, b) = text.split_once('.').unwrap_or((text, "0"));
    let v = Version::new(a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
    if v.major == 0 {
        return Err(Error::new(
            ErrorKind::Syntax(format!(
                "PTX ISA {text} does not exist: the first version is 1.0"
            )),
            span,
        ));
    }
    Ok(v)
}

pub(super) fn target(c: &mut Cursor<'_>) -> Result<Target, Error> {
    let (name, span) = c.ident()?;
    let arch = name
        .strip_prefix("sm_")
        .or_else(|| name.strip_prefix("compute_"))
        .ok_or_else(|| Error::new(ErrorKind::Syntax(format!("unknown target `{name}`")), span))?;
    let (digits, suffix) = match arch.strip_suffix('a') {
        Some(d) => (d, ArchSuffix::Arch),
        None => match arch.strip_suffix('f') {
            Some(d) => (d, ArchSuffix::Family),
            None => (arch, ArchSuffix::None),
        },
    };
    let sm: u32 = digits
        .parse()
        .map_err(|_| Error::new(ErrorKind::Syntax(format!("unknown target `{name}`")), span))?;
    let mut options = Vec::new();
    while c.eat(',') {
        let (o, sp) = c.ident()?;
        options.push(match o {
            "texmode_unified" => TargetOption::TexmodeUnified,
            "texmode_independent" => TargetOption::TexmodeIndependent,
            "debug" => TargetOption::Debug,
            "map_f64_to_f32" => TargetOption::MapF64ToF32,
            _ => {
                return Err(Error::new(
                    ErrorKind::Syntax(format!("unknown target option `{o}`")),
                    sp,
                ))
            }
        });
    }
    Ok(Target {
        sm,
        suffix,
        options,
    })
}

pub(super) fn linkage(c: &mut Cursor<'_>) -> Linkage {
    let l = match c.dot() {
        Some("visible") => Linkage::Visible,
        Some("extern") => Linkage::Extern,
        Some("weak") => Linkage::Weak,
        Some("common") => Linkage::Common,
        _ => return Linkage::Internal,
    };
    c.bump();
    l
}

/// Parses a parameter list `( .param … name, … )` into declarations.
pub(super) fn params(
    c: &mut Cursor<'_>,
    scope: &mut FnScope<'_>,
    ret: bool,
    declare: bool,
) -> Result<Vec<ParamDecl>, Error> {
    c.expect('(')?;
    let mut out = Vec::new();
    if c.eat(')') {
        return Ok(out);
    }
    loop {
        let span = c.span();
        let is_reg = c.eat_dot("reg");
        if !is_reg && !c.eat_dot("param") {
            return Err(c.unexpected("`.param` or `.reg`"));
        }
        let head = var_head(c, StateSpace::Param(crate::ir::ParamWindow::Func))?;
        let (name, nspan) = match &c.peek().tok {
            Tok::Ident(_) => c.ident()?,
            _ => ("", c.span()),
        };
        let dims = dims(c)?;
        let idx = out.len() as u32;
        let kind = if is_reg {
            let id = RegId(scope.regs.len() as u32);
            scope.regs.push(RegInfo {
                name: name.to_string(),
                ty: head.ty,
                vec: head.vec,
            });
            if declare && !name.is_empty() {
                scope.declare(name, Name::Reg(id), nspan)?;
            }
            ParamKind::Reg(id)
        } else {
            if declare && !name.is_empty() {
                scope.declare(
                    name,
                    if ret {
                        Name::Return(idx)
                    } else {
                        Name::Param(idx)
                    },
                    nspan,
                )?;
            }
            ParamKind::Param
        };
        out.push(ParamDecl {
            name: name.to_string(),
            kind,
            var: Variable {
                name: name.to_string(),
                space: StateSpace::Param(crate::ir::ParamWindow::Func),
                linkage: Linkage::Internal,
                align: head.align,
                vec: head.vec,
                ty: head.ty,
                dims,
                init: None,
                ptr: head.ptr,
                span,
            },
        });
        if c.eat(')') {
            break;
        }
        c.expect(',')?;
    }
    Ok(out)
}

pub(super) fn perf_list(c: &mut Cursor<'_>) -> Result<Vec<u32>, Error> {
    let mut v = vec![c.int()? as u32];
    while c.eat(',') {
        v.push(c.int()? as u32);
    }
    Ok(v)
}

/// Parses `.entry`/`.func` (the directive is next); returns the function and whether it had
/// a body.
pub(super) fn function(
    c: &mut Cursor<'_>,
    module: &mut Module,
    g: &Globals,
    linkage: Linkage,
) -> Result<(FuncId, bool), Error> {
    let span = c.span();
    let kind = if c.eat_dot("entry") {
        FunctionKind::Entry
    } else {
        c.bump();
        FunctionKind::Func
    };
    let mut scope = FnScope {
        globals: g,
        scopes: vec![HashMap::new()],
        regs: Vec::new(),
        locals: Vec::new(),
        labels: Vec::new(),
        label_scopes: Vec::new(),
        label_defined: Vec::new(),
        label_first_use: Vec::new(),
        protos: Vec::new(),
        unsupported: Vec::new(),
    };
    let returns = if kind == FunctionKind::Func && c.is('(') {
        params(c, &mut scope, true, true)?
    } else {
        Vec::new()
    };
    let (name, nspan) = c.ident()?;
    let fid = *g
        .funcs
        .get(name)
        .ok_or_else(|| Error::new(ErrorKind::Undeclared(name.to_string()), nspan))?;
    let params = if c.is('(') {
        params(c, &mut scope, false, true)?
    } else {
        Vec::new()
    };
    let mut noreturn = false;
    let mut perf = Vec::new();
    loop {
        match c.dot() {
            Some("noreturn") => {
                c.bump();
                noreturn = true;
            }
            Some("maxntid") => {
                c.bump();
                perf.push(PerfDirective::Maxntid(perf_list(c)?));
            }
            Some("reqntid") => {
                c.bump();
                perf.push(PerfDirective::Reqntid(perf_list(c)?));
            }
            Some("minnctapersm") => {
                c.bump();
                perf.push(PerfDirective::Minnctapersm(c.int()? as u32));
            }
            Some("maxnctapersm") => {
                c.bump();
                perf.push(PerfDirective::Maxnctapersm(c.int()? as u32));
            }
            Some("maxnreg") => {
                c.bump();
                perf.push(PerfDirective::Maxnreg(c.int()? as u32));
            }
            Some("maxclusterrank") => {
                c.bump();
                perf.push(PerfDirective::Maxclusterrank(c.int()? as u32));
            }
            Some("reqnctapercluster") => {
                c.bump();
                perf.push(PerfDirective::Reqnctapercluster(perf_list(c)?));
            }
            Some("explicitcluster") => {
                c.bump();
                perf.push(PerfDirective::Explicitcluster);
            }
            Some("blocksareclusters") => {
                c.bump();
                perf.push(PerfDirective::Blocksareclusters);
            }
            Some("pragma") => {
                c.bump();
                let Tok::Str(s) = c.peek().tok.clone() else {
                    return Err(c.unexpected("a string"));
                };
                c.bump();
                c.expect(';')?;
                perf.push(PerfDirective::Pragma(s));
            }
            _ => break,
        }
    }
    let f = &mut module.functions[fid.index()];
    f.kind = kind;
    if f.body.is_none() {
        f.linkage = linkage;
        f.returns = returns;
        f.params = params;
        f.noreturn = noreturn;
        f.perf = perf;
        f.span = span;
    }
    if c.eat(';') {
        if f.body.is_none() {
            f.regs = scope.regs;
        }
        return Ok((fid, false));
    }
    if !c.is('{') {
        return Err(c.unexpected("`{` or `;`"));
    }
    if module.functions[fid.index()].body.is_some() {
        return Err(Error::new(ErrorKind::Redeclared(name.to_string()), nspan));
    }
    let body = block(c, &mut scope)?;
    for (i, def) in scope.label_defined.iter().enumerate() {
        if def.is_none() {
            return Err(Error::new(
                ErrorKind::Undeclared(scope.labels[i].name.clone()),
                scope.label_first_use[i],
            ));
        }
    }
    let f = &mut module.functions[fid.index()];
    f.regs = scope.regs;
    f.locals = scope.locals;
    f.labels = scope.labels;
    f.prototypes = scope.protos;
    f.unsupported = scope.unsupported;
    f.body = Some(body);
    Ok((fid, true))
}
