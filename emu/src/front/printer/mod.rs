//! Printing a module back as PTX, in a canonical form: qualifiers in one fixed legal order,
//! immediates as decimal integers, `0f`/`0d` float bit patterns (finite decimal literals as
//! shortest round-trip decimals), one statement per line. Parsing the output gives the same
//! IR (up to source positions). `.file` and `.loc` print back; `.section` contents (the DWARF
//! tables) were skipped, so an inlined `.loc`'s `function_name` names a label the printed
//! module no longer declares.

use std::fmt::Write;

use crate::ir::{
    AddrBase, AddressSize, ArchSuffix, ArrayDim, Block, Family, FileDecl, FloatImm, Function,
    FunctionKind, Imm, InitValue, Initializer, InlinedAt, Instr, LabelOrProto, Linkage, Loc,
    Module, ModuleItem, Op, Operand, ParamDecl, ParamKind, PerfDirective, RegDeclForm, StateSpace,
    Stmt, SymbolRef, TargetKind, TargetOption, Type, VarRef, Variable, VecElem,
};

mod arith;
mod data;
mod qual;
mod sync;

/// Prints a whole module.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    // A module without `.version` or `.target` (version 0.0, sm_0: what the parser leaves
    // when they are absent) prints without them, so that the printed form parses again.
    if m.version.major != 0 {
        let _ = writeln!(out, ".version {}.{}", m.version.major, m.version.minor);
    }
    let suffix = match m.target.suffix {
        ArchSuffix::None => "",
        ArchSuffix::Arch => "a",
        ArchSuffix::Family => "f",
    };
    if m.target.sm != 0 {
        let _ = write!(out, ".target sm_{}{suffix}", m.target.sm);
        for o in &m.target.options {
            out.push_str(match o {
                TargetOption::TexmodeUnified => ", texmode_unified",
                TargetOption::TexmodeIndependent => ", texmode_independent",
                TargetOption::Debug => ", debug",
                TargetOption::MapF64ToF32 => ", map_f64_to_f32",
            });
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        ".address_size {}\n",
        match m.address_size {
            AddressSize::Bits32 => 32,
            AddressSize::Bits64 => 64,
        }
    );
    for item in &m.items {
        match item {
            ModuleItem::Global(g) => {
                out.push_str(&variable(m, None, &m.globals[g.index()]));
                out.push('\n');
            }
            ModuleItem::Function(f) => function(&mut out, m, &m.functions[f.index()], true),
            ModuleItem::Declaration(f) => function(&mut out, m, &m.functions[f.index()], false),
            ModuleItem::File(i) => {
                let FileDecl { index, name, stamp } = &m.files[*i as usize];
                let _ = write!(out, ".file {index} \"{name}\"");
                if let Some((time, size)) = stamp {
                    let _ = write!(out, ", {time}, {size}");
                }
                out.push('\n');
            }
        }
    }
    out
}

fn linkage(l: Linkage) -> &'static str {
    match l {
        Linkage::Internal => "",
        Linkage::Visible => ".visible ",
        Linkage::Extern => ".extern ",
        Linkage::Weak => ".weak ",
        Linkage::Common => ".common ",
    }
}

pub(super) fn space_dir(s: StateSpace) -> &'static str {
    match s {
        StateSpace::Global => ".global",
        StateSpace::Shared(_) => ".shared",
        StateSpace::Local => ".local",
        StateSpace::Const => ".const",
        StateSpace::Param(_) => ".param",
        StateSpace::Generic => "",
    }
}

fn var_tail(out: &mut String, v: &Variable, name: &str) {
    if let Some(a) = v.align {
        let _ = write!(out, " .align {a}");
    }
    if let Some(vw) = v.vec {
        let _ = write!(out, " .{}", vw.name());
    }
    let _ = write!(out, " .{}", v.ty.name());
    if let Some(p) = v.ptr {
        out.push_str(" .ptr");
        if p.space != StateSpace::Generic {
            out.push(' ');
            out.push_str(space_dir(p.space));
        }
        if let Some(a) = p.align {
            let _ = write!(out, " .align {a}");
        }
    }
    if !name.is_empty() {
        let _ = write!(out, " {name}");
    }
    for d in &v.dims {
        match d {
            ArrayDim::Sized(n) => {
                let _ = write!(out, "[{n}]");
            }
            ArrayDim::Unsized => out.push_str("[]"),
        }
    }
}

fn variable(m: &Module, f: Option<&Function>, v: &Variable) -> String {
    let mut out = String::new();
    out.push_str(linkage(v.linkage));
    out.push_str(space_dir(v.space));
    var_tail(&mut out, v, &v.name);
    if let Some(init) = &v.init {
        out.push_str(" = ");
        initializer(&mut out, m, f, init);
    }
    out.push(';');
    out
}

fn float_text(f: FloatImm) -> String {
    match f {
        FloatImm::F32(b) => format!("0f{b:08X}"),
        FloatImm::F64(b) => {
            let v = f64::from_bits(b);
            if v.is_finite() && !(v == 0.0 && v.is_sign_negative()) {
                let s = format!("{v:?}");
                if s.parse::<f64>().map(f64::to_bits) == Ok(b) && !s.starts_with('-') {
                    return s;
                }
            }
            format!("0d{b:016X}")
        }
    }
}

fn initializer(out: &mut String, m: &Module, f: Option<&Function>, i: &Initializer) {
    match i {
        Initializer::List(items) => {
            out.push('{');
            for (k, it) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                initializer(out, m, f, it);
            }
            out.push('}');
        }
        Initializer::Value(InitValue::Int(v)) => {
            let _ = write!(out, "{v}");
        }
        Initializer::Value(InitValue::Float(fl)) => out.push_str(&float_text(*fl)),
        Initializer::Value(InitValue::Address {
            sym,
            offset,
            generic,
        }) => {
            let name = match sym {
                SymbolRef::Global(g) => &m.globals[g.index()].name,
                SymbolRef::Function(fid) => &m.functions[fid.index()].name,
            };
            if *generic {
                let _ = write!(out, "generic({name})");
            } else {
                out.push_str(name);
            }
            if *offset != 0 {
                let _ = write!(out, "+{offset}");
            }
        }
    }
    let _ = f;
}

fn param_list(out: &mut String, ps: &[ParamDecl], multiline: bool) {
    out.push('(');
    for (k, p) in ps.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        if multiline {
            out.push_str("\n\t");
        }
        out.push_str(match p.kind {
            ParamKind::Param => ".param",
            ParamKind::Reg(_) => ".reg",
        });
        var_tail(out, &p.var, &p.name);
    }
    if multiline && !ps.is_empty() {
        out.push('\n');
    }
    out.push(')');
}

fn function(out: &mut String, m: &Module, f: &Function, with_body: bool) {
    out.push_str(linkage(f.linkage));
    match f.kind {
        FunctionKind::Entry => out.push_str(".entry "),
        FunctionKind::Func => {
            out.push_str(".func ");
            if !f.returns.is_empty() {
                param_list(out, &f.returns, false);
                out.push(' ');
            }
        }
    }
    out.push_str(&f.name);
    if f.kind == FunctionKind::Entry || !f.params.is_empty() {
        param_list(out, &f.params, true);
    }
    if f.noreturn {
        out.push_str(" .noreturn");
    }
    for p in &f.perf {
        out.push('\n');
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        let _ = match p {
            PerfDirective::Maxntid(v) => write!(out, ".maxntid {}", list(v)),
            PerfDirective::Reqntid(v) => write!(out, ".reqntid {}", list(v)),
            PerfDirective::Minnctapersm(n) => write!(out, ".minnctapersm {n}"),
            PerfDirective::Maxnctapersm(n) => write!(out, ".maxnctapersm {n}"),
            PerfDirective::Maxnreg(n) => write!(out, ".maxnreg {n}"),
            PerfDirective::Maxclusterrank(n) => write!(out, ".maxclusterrank {n}"),
            PerfDirective::Reqnctapercluster(v) => write!(out, ".reqnctapercluster {}", list(v)),
            PerfDirective::Explicitcluster => write!(out, ".explicitcluster"),
            PerfDirective::Blocksareclusters => write!(out, ".blocksareclusters"),
            PerfDirective::Pragma(s) => write!(out, ".pragma \"{s}\";"),
        };
    }
    match (&f.body, with_body) {
        (Some(b), true) => {
            out.push_str("\n{\n");
            block(out, m, f, b, 1);
            out.push_str("}\n\n");
        }
        _ => out.push_str(";\n\n"),
    }
}

fn block(out: &mut String, m: &Module, f: &Function, b: &Block, depth: usize) {
    let ind = "\t".repeat(depth);
    for s in &b.stmts {
        match s {
            Stmt::Regs(d) => {
                let vec = d.vec.map(|v| format!(" .{}", v.name())).unwrap_or_default();
                let names = match &d.form {
                    RegDeclForm::Range { prefix, count } => format!("{prefix}<{count}>"),
                    RegDeclForm::List => d
                        .regs
                        .iter()
                        .map(|r| f.regs[r.index()].name.clone())
                        .collect::<Vec<_>>()
                        .join(", "),
                };
                let _ = writeln!(out, "{ind}.reg{vec} .{} {names};", d.ty.name());
            }
            Stmt::Var(l) => {
                let _ = writeln!(out, "{ind}{}", variable(m, Some(f), &f.locals[l.index()]));
            }
            Stmt::Prototype(p) => {
                let p = &f.prototypes[p.index()];
                let _ = write!(out, "{ind}{}: .callprototype ", p.name);
                if !p.returns.is_empty() {
                    param_list(out, &p.returns, false);
                    out.push(' ');
                }
                out.push('_');
                out.push(' ');
                param_list(out, &p.params, false);
                if p.noreturn {
                    out.push_str(" .noreturn");
                }
                out.push_str(";\n");
            }
            Stmt::Targets(t) => {
                let name = &f.labels[t.name.index()].name;
                let list = match &t.targets {
                    TargetKind::Branch(ls) => format!(
                        ".branchtargets {}",
                        ls.iter()
                            .map(|l| f.labels[l.index()].name.clone())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    TargetKind::Call(fs) => format!(
                        ".calltargets {}",
                        fs.iter()
                            .map(|x| m.functions[x.index()].name.clone())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                let _ = writeln!(out, "{name}: {list};");
            }
            Stmt::Label(l) => {
                let _ = writeln!(out, "{}:", f.labels[l.index()].name);
            }
            Stmt::Instr(i) => {
                let _ = writeln!(out, "{ind}{}", print_instruction(m, f, i));
            }
            Stmt::Block(inner) => {
                let _ = writeln!(out, "{ind}{{");
                block(out, m, f, inner, depth + 1);
                let _ = writeln!(out, "{ind}}}");
            }
            Stmt::Pragma(p) => {
                let _ = writeln!(out, "{ind}.pragma \"{p}\";");
            }
            Stmt::Loc(Loc {
                pos,
                inlined,
                span: _,
            }) => {
                let _ = write!(out, "{ind}.loc {} {} {}", pos.file, pos.line, pos.col);
                if let Some(InlinedAt {
                    function_name,
                    offset,
                    at,
                }) = inlined
                {
                    let _ = write!(out, ", function_name {function_name}");
                    if *offset != 0 {
                        let _ = write!(out, "+{offset}");
                    }
                    let _ = write!(out, ", inlined_at {} {} {}", at.file, at.line, at.col);
                }
                out.push('\n');
            }
        }
    }
}

fn var_name<'a>(m: &'a Module, f: &'a Function, v: VarRef) -> &'a str {
    match v {
        VarRef::Global(g) => &m.globals[g.index()].name,
        VarRef::Local(l) => &f.locals[l.index()].name,
        VarRef::Param(i) => &f.params[i as usize].name,
        VarRef::Return(i) => &f.returns[i as usize].name,
        VarRef::Function(fid) => &m.functions[fid.index()].name,
    }
}

fn operand(m: &Module, f: &Function, o: &Operand) -> String {
    let reg = |r: crate::ir::RegId| f.regs[r.index()].name.clone();
    match o {
        Operand::Reg(r) => reg(*r),
        Operand::NotPred(r) => format!("!{}", reg(*r)),
        Operand::Dual(a, b) => format!("{}|{}", reg(*a), reg(*b)),
        Operand::SinkDual(b) => format!("_|{}", reg(*b)),
        Operand::Special(s) => s.name(),
        Operand::Imm(Imm::Int(v)) => v.to_string(),
        Operand::Imm(Imm::Float(fl)) => float_text(*fl),
        Operand::Symbol(s) => {
            let n = var_name(m, f, s.sym);
            if s.offset != 0 {
                format!("{n}+{}", s.offset)
            } else {
                n.to_string()
            }
        }
        Operand::Vector(v) => {
            let items: Vec<String> = v
                .iter()
                .map(|e| match e {
                    VecElem::Reg(r) => reg(*r),
                    VecElem::Sink => "_".into(),
                    VecElem::Imm(Imm::Int(i)) => i.to_string(),
                    VecElem::Imm(Imm::Float(fl)) => float_text(*fl),
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Operand::Address(a) => {
            let base = match a.base {
                AddrBase::Reg(r) => reg(r),
                AddrBase::Var(v) => var_name(m, f, v).to_string(),
                AddrBase::None => return format!("[{}]", a.offset),
            };
            if a.offset == 0 {
                format!("[{base}]")
            } else {
                format!("[{base}+{}]", a.offset)
            }
        }
        Operand::Label(l) => f.labels[l.index()].name.clone(),
        Operand::Sink => "_".into(),
    }
}

/// Prints one instruction of function `f` (without indentation or newline).
pub fn print_instruction(m: &Module, f: &Function, i: &Instr) -> String {
    let mut out = String::new();
    if let Some(g) = i.guard {
        let _ = write!(
            out,
            "@{}{} ",
            if g.negated { "!" } else { "" },
            f.regs[g.reg.index()].name
        );
    }
    out.push_str(&mnemonic(&i.op));
    if let Op::Call(c) = &i.op {
        out.push(' ');
        if !c.returns.is_empty() {
            let r: Vec<String> = c.returns.iter().map(|o| operand(m, f, o)).collect();
            let _ = write!(out, "({}), ", r.join(", "));
        }
        out.push_str(&operand(m, f, &c.callee));
        if !c.args.is_empty() || c.target_info.is_some() {
            let a: Vec<String> = c.args.iter().map(|o| operand(m, f, o)).collect();
            let _ = write!(out, ", ({})", a.join(", "));
        }
        match c.target_info {
            Some(LabelOrProto::Proto(p)) => {
                let _ = write!(out, ", {}", f.prototypes[p.index()].name);
            }
            Some(LabelOrProto::Targets(l)) => {
                let _ = write!(out, ", {}", f.labels[l.index()].name);
            }
            None => {}
        }
    } else if !i.args.is_empty() {
        let a: Vec<String> = i.args.iter().map(|o| operand(m, f, o)).collect();
        out.push(' ');
        match &i.op {
            Op::Tma(t) => out.push_str(&crate::tma::syntax::join_args(t, &a)),
            _ => out.push_str(&a.join(", ")),
        }
    }
    out.push(';');
    out
}

/// The mnemonic with its qualifiers, in canonical order: each family of the opcode table
/// ([`crate::ir::Family`]) writes its own opcodes.
pub fn mnemonic(op: &Op) -> String {
    let mut s = String::new();
    let o = &mut s;
    match op.info().family {
        Family::Int => arith::int(o, op),
        Family::Bits => arith::bits(o, op),
        Family::FloatCmp => arith::float_cmp(o, op),
        Family::Data => data::data(o, op),
        Family::Warp => sync::warp(o, op),
        Family::Sync => sync::sync(o, op),
        Family::Control => control(o, op),
        Family::Tcgen05 => {
            if let Op::Tcgen05(t) = op {
                crate::tcgen05::syntax::mnemonic(o, t);
            }
        }
        Family::CpAsync => {
            if let Op::CpAsync(c) = op {
                crate::async_copy::syntax::cp_mnemonic(o, c);
            }
        }
        Family::Mbarrier => {
            if let Op::Mbarrier(m) = op {
                crate::async_copy::syntax::mbarrier_mnemonic(o, m);
            }
        }
        Family::Tma => {
            if let Op::Tma(t) = op {
                crate::tma::syntax::mnemonic(o, t);
            }
        }
        Family::Cluster => {
            if let Op::Cluster(c) = op {
                o.push_str(&c.mnemonic());
            }
        }
        Family::ClusterLaunch => {
            if let Op::ClusterLaunch(c) = op {
                o.push_str(&c.mnemonic());
            }
        }
        Family::WarpMatrix => {
            if let Op::WarpMatrix(w) = op {
                o.push_str(crate::mma::syntax::opcode(w));
                crate::mma::syntax::mnemonic(o, w);
            }
        }
        Family::Wgmma => {
            if let Op::Wgmma(w) = op {
                crate::wgmma::syntax::mnemonic(o, w);
            }
        }
    }
    s
}

/// The control-flow opcodes: the table's name, with `.uni` or `.mask` where written.
fn control(o: &mut String, op: &Op) {
    o.push_str(op.info().name);
    let flag = match op {
        Op::Bra { uni } | Op::BrxIdx { uni } | Op::Ret { uni } => uni.then_some("uni"),
        Op::Call(c) => c.uni.then_some("uni"),
        Op::Pmevent { mask } => mask.then_some("mask"),
        _ => None,
    };
    if let Some(f) = flag {
        o.push('.');
        o.push_str(f);
    }
}

#[doc(hidden)]
pub fn type_name(t: Type) -> &'static str {
    t.name()
}
