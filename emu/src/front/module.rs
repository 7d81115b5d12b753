//! Parsing a whole module: header directives, module-scope variables with initialisers,
//! kernel and function declarations and definitions, and function bodies with nested
//! blocks, register and variable declarations, labels, prototypes and target lists.
//! Debug directives (`.file`, `.loc`, `.section`) are parsed and dropped.

use std::collections::HashMap;

use super::cursor::Cursor;
use super::error::{Error, ErrorKind};
use super::lexer::{lex, Tok};
use super::operands::{operand_list, paren_list, NameResolver};
use super::quals::{space_of, Quals};
use super::MAX_NESTING;
use crate::ir::{
    AddressSize, ArchSuffix, ArrayDim, Block, Call, FileId, FloatImm, FuncId, Function,
    FunctionKind, GlobalId, Guard, InitValue, Initializer, Instr, LabelId, LabelInfo, LabelOrProto,
    Linkage, LocalId, Module, ModuleItem, Op, Operand, ParamDecl, ParamKind, PerfDirective,
    ProtoId, Prototype, PtrAttr, RegDecl, RegDeclForm, RegId, RegInfo, Span, StateSpace, Stmt,
    SymbolRef, Target, TargetKind, TargetList, TargetOption, Type, VarRef, Variable, VecWidth,
    Version,
};

/// What a name in a function scope stands for.
#[derive(Clone, Copy, Debug)]
enum Name {
    Reg(RegId),
    Local(LocalId),
    Param(u32),
    Return(u32),
    Proto(ProtoId),
}

/// Module-level names.
#[derive(Default)]
struct Globals {
    vars: HashMap<String, GlobalId>,
    funcs: HashMap<String, FuncId>,
}

/// The state of the function being parsed.
struct FnScope<'g> {
    globals: &'g Globals,
    scopes: Vec<HashMap<String, Name>>,
    regs: Vec<RegInfo>,
    locals: Vec<Variable>,
    labels: Vec<LabelInfo>,
    /// Labels by name, one map per enclosing block (innermost last): a label is visible in
    /// the block that defines it and in the blocks nested inside, as ptxas scopes them (Triton
    /// repeats `waitLoop:` in each inline-asm block).
    label_scopes: Vec<HashMap<String, LabelId>>,
    label_defined: Vec<Option<Span>>,
    label_first_use: Vec<Span>,
    protos: Vec<Prototype>,
    unsupported: Vec<(String, Span)>,
}

impl NameResolver for FnScope<'_> {
    fn register(&mut self, name: &str) -> Option<RegId> {
        match self.lookup(name)? {
            Name::Reg(r) => Some(r),
            Name::Local(_) | Name::Param(_) | Name::Return(_) | Name::Proto(_) => None,
        }
    }

    fn variable(&mut self, name: &str) -> Option<VarRef> {
        match self.lookup(name) {
            Some(Name::Local(l)) => return Some(VarRef::Local(l)),
            Some(Name::Param(i)) => return Some(VarRef::Param(i)),
            Some(Name::Return(i)) => return Some(VarRef::Return(i)),
            Some(Name::Reg(_) | Name::Proto(_)) => return None,
            None => {}
        }
        if let Some(g) = self.globals.vars.get(name) {
            return Some(VarRef::Global(*g));
        }
        self.globals.funcs.get(name).map(|f| VarRef::Function(*f))
    }

    fn label(&mut self, name: &str, span: Span, create: bool) -> Option<LabelId> {
        if let Some(l) = self.label_scopes.iter().rev().find_map(|s| s.get(name)) {
            return Some(*l);
        }
        if !create {
            return None;
        }
        Some(self.new_label(name, span))
    }

    fn prototype(&mut self, name: &str) -> Option<ProtoId> {
        match self.lookup(name)? {
            Name::Proto(p) => Some(p),
            Name::Reg(_) | Name::Local(_) | Name::Param(_) | Name::Return(_) => None,
        }
    }
}

impl FnScope<'_> {
    fn lookup(&self, name: &str) -> Option<Name> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn declare(&mut self, name: &str, n: Name, span: Span) -> Result<(), Error> {
        let top = self
            .scopes
            .last_mut()
            .ok_or_else(|| Error::new(ErrorKind::Syntax("no scope".into()), span))?;
        if top.insert(name.to_string(), n).is_some() {
            return Err(Error::new(ErrorKind::Redeclared(name.to_string()), span));
        }
        Ok(())
    }

    /// Opens a block's label scope, with the labels the block itself defines (found ahead, so
    /// that a branch may name a label defined later in the block or in an enclosing one).
    fn open_labels(&mut self, defined: Vec<(String, Span)>) {
        self.label_scopes.push(HashMap::new());
        for (name, span) in defined {
            let in_this_block = self
                .label_scopes
                .last()
                .is_some_and(|s| s.contains_key(&name));
            if !in_this_block {
                self.new_label(&name, span);
            }
        }
    }

    fn new_label(&mut self, name: &str, span: Span) -> LabelId {
        let id = LabelId(self.labels.len() as u32);
        self.labels.push(LabelInfo {
            name: name.to_string(),
        });
        if let Some(top) = self.label_scopes.last_mut() {
            top.insert(name.to_string(), id);
        }
        self.label_defined.push(None);
        self.label_first_use.push(span);
        id
    }

    fn define_label(&mut self, name: &str, span: Span) -> Result<LabelId, Error> {
        let known = self.label_scopes.last().and_then(|s| s.get(name)).copied();
        let id = match known {
            Some(l) => l,
            None => self.new_label(name, span),
        };
        if self.label_defined[id.index()].is_some() {
            return Err(Error::new(ErrorKind::Redeclared(name.to_string()), span));
        }
        self.label_defined[id.index()] = Some(span);
        Ok(id)
    }
}

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

fn parse_inner(src: &str) -> Result<Module, Error> {
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
                c.skip_line(span.line);
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
fn prescan_functions(toks: &[super::lexer::Token], module: &mut Module, g: &mut Globals) {
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

fn version(c: &mut Cursor<'_>, src: &str) -> Result<Version, Error> {
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

fn target(c: &mut Cursor<'_>) -> Result<Target, Error> {
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

fn linkage(c: &mut Cursor<'_>) -> Linkage {
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

/// Variable attributes before the name: space, `.align`, `.ptr…`, `.vN`, type.
struct VarHead {
    space: StateSpace,
    align: Option<u32>,
    ptr: Option<PtrAttr>,
    vec: Option<VecWidth>,
    ty: Type,
}

fn var_head(c: &mut Cursor<'_>, space: StateSpace) -> Result<VarHead, Error> {
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

fn dims(c: &mut Cursor<'_>) -> Result<Vec<ArrayDim>, Error> {
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

fn init_value(c: &mut Cursor<'_>, g: &Globals) -> Result<InitValue, Error> {
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

fn initializer(c: &mut Cursor<'_>, g: &Globals) -> Result<Initializer, Error> {
    nested_initializer(c, g, 0)
}

fn nested_initializer(c: &mut Cursor<'_>, g: &Globals, depth: u32) -> Result<Initializer, Error> {
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
fn variables(c: &mut Cursor<'_>, g: &Globals, linkage: Linkage) -> Result<Vec<Variable>, Error> {
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

/// Parses a parameter list `( .param … name, … )` into declarations.
fn params(
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

fn perf_list(c: &mut Cursor<'_>) -> Result<Vec<u32>, Error> {
    let mut v = vec![c.int()? as u32];
    while c.eat(',') {
        v.push(c.int()? as u32);
    }
    Ok(v)
}

/// Parses `.entry`/`.func` (the directive is next); returns the function and whether it had
/// a body.
fn function(
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

/// Parses `{ … }` (the `{` is next).
fn block(c: &mut Cursor<'_>, s: &mut FnScope<'_>) -> Result<Block, Error> {
    s.open_labels(c.block_labels());
    let b = block_body(c, s);
    s.label_scopes.pop();
    b
}

/// The statements of a block whose label scope is open.
fn block_body(c: &mut Cursor<'_>, s: &mut FnScope<'_>) -> Result<Block, Error> {
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
                "loc" | "file" => {
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
fn skip_statement(c: &mut Cursor<'_>) {
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

fn prototype(c: &mut Cursor<'_>, s: &mut FnScope<'_>, name: &str) -> Result<Prototype, Error> {
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

fn reg_decl(c: &mut Cursor<'_>, s: &mut FnScope<'_>) -> Result<Vec<Stmt>, Error> {
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
fn call(c: &mut Cursor<'_>, r: &mut dyn NameResolver, op: Op) -> Result<(Op, Vec<Operand>), Error> {
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
