//! Printing a module back as PTX, in a canonical form: qualifiers in one fixed legal order,
//! immediates as decimal integers, `0f`/`0d` float bit patterns (finite decimal literals as
//! shortest round-trip decimals), one statement per line. Parsing the output gives the same
//! IR (up to source positions).

use std::fmt::Write;

use super::quals::{l1_evict_name, l2_evict_name, prefetch_name, space_name};
use crate::ir::{
    AddrBase, AddressSize, ArchSuffix, Arith, ArrayDim, AtomOp, BarKind, BarRedOp, Block, BoolOp,
    CacheHints, CmpOp, CvtRounding, DivKind, Fence, FloatImm, Function, FunctionKind, Imm,
    InitValue, Initializer, Instr, LabelOrProto, Linkage, MembarLevel, Module, ModuleItem, MulMode,
    Op, Operand, ParamDecl, ParamKind, PerfDirective, PolicyKind, PrefetchLevel, PrmtMode, ReduxOp,
    RegDeclForm, ShflMode, ShiftMode, StateSpace, Stmt, SymbolRef, TargetKind, TargetOption,
    TestpClass, Type, VarRef, Variable, VecElem, VoteMode,
};
use models::vocab::{LoadSem, RmwSem, StoreSem};

/// Prints a whole module.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(out, ".version {}.{}", m.version.major, m.version.minor);
    let suffix = match m.target.suffix {
        ArchSuffix::None => "",
        ArchSuffix::Arch => "a",
        ArchSuffix::Family => "f",
    };
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

fn space_dir(s: StateSpace) -> &'static str {
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
            Op::Tma(t) => out.push_str(&super::tma::join_args(t, &a)),
            _ => out.push_str(&a.join(", ")),
        }
    }
    out.push(';');
    out
}

fn q(out: &mut String, s: &str) {
    out.push('.');
    out.push_str(s);
}

fn arith(out: &mut String, a: &Arith) {
    let Arith {
        ty,
        rnd,
        ftz,
        sat,
        cc,
        relu,
    } = *a;
    if let Some(r) = rnd {
        q(out, r.name());
    }
    if ftz {
        q(out, "ftz");
    }
    if sat {
        q(out, "sat");
    }
    if relu {
        q(out, "relu");
    }
    if cc {
        q(out, "cc");
    }
    q(out, ty.name());
}

fn hints(out: &mut String, h: &CacheHints) {
    let CacheHints {
        l1,
        l2,
        cache_hint,
        prefetch,
    } = *h;
    if let Some(e) = l1 {
        q(out, l1_evict_name(e));
    }
    if let Some(e) = l2 {
        q(out, l2_evict_name(e));
    }
    if cache_hint {
        q(out, "L2::cache_hint");
    }
    if let Some(p) = prefetch {
        q(out, prefetch_name(p));
    }
}

fn cmp_name(c: CmpOp) -> &'static str {
    use CmpOp as C;
    match c {
        C::Eq => "eq",
        C::Ne => "ne",
        C::Lt => "lt",
        C::Le => "le",
        C::Gt => "gt",
        C::Ge => "ge",
        C::Lo => "lo",
        C::Ls => "ls",
        C::Hi => "hi",
        C::Hs => "hs",
        C::Equ => "equ",
        C::Neu => "neu",
        C::Ltu => "ltu",
        C::Leu => "leu",
        C::Gtu => "gtu",
        C::Geu => "geu",
        C::Num => "num",
        C::Nan => "nan",
    }
}

fn bool_name(b: BoolOp) -> &'static str {
    match b {
        BoolOp::And => "and",
        BoolOp::Or => "or",
        BoolOp::Xor => "xor",
    }
}

fn kind(out: &mut String, k: DivKind) {
    match k {
        DivKind::Exact => {}
        DivKind::Approx => q(out, "approx"),
        DivKind::Full => q(out, "full"),
        DivKind::Rounded(r) => q(out, r.name()),
    }
}

fn shift_mode(m: ShiftMode) -> &'static str {
    match m {
        ShiftMode::Clamp => "clamp",
        ShiftMode::Wrap => "wrap",
    }
}

fn atom_op(o: AtomOp) -> &'static str {
    match o {
        AtomOp::And => "and",
        AtomOp::Or => "or",
        AtomOp::Xor => "xor",
        AtomOp::Cas => "cas",
        AtomOp::Exch => "exch",
        AtomOp::Add => "add",
        AtomOp::Inc => "inc",
        AtomOp::Dec => "dec",
        AtomOp::Min => "min",
        AtomOp::Max => "max",
    }
}

fn rmw(out: &mut String, sem: Option<RmwSem>, scope: Option<models::vocab::Scope>) {
    if let Some(s) = sem {
        q(out, s.name());
    }
    if let Some(s) = scope {
        q(out, s.name());
    }
}

/// The mnemonic with its qualifiers, in canonical order.
pub fn mnemonic(op: &Op) -> String {
    let mut s = String::new();
    let o = &mut s;
    match op {
        Op::Add(a) => {
            o.push_str("add");
            arith(o, a);
        }
        Op::Sub(a) => {
            o.push_str("sub");
            arith(o, a);
        }
        Op::Mul(mm) | Op::Mad(mm) => {
            o.push_str(if matches!(op, Op::Mul(_)) {
                "mul"
            } else {
                "mad"
            });
            if let Some(md) = mm.mode {
                q(
                    o,
                    match md {
                        MulMode::Lo => "lo",
                        MulMode::Hi => "hi",
                        MulMode::Wide => "wide",
                    },
                );
            }
            arith(o, &mm.arith);
        }
        Op::Fma(a) => {
            o.push_str("fma");
            arith(o, a);
        }
        Op::Mul24(m) | Op::Mad24(m) => {
            o.push_str(if matches!(op, Op::Mul24(_)) {
                "mul24"
            } else {
                "mad24"
            });
            q(o, if m.hi { "hi" } else { "lo" });
            if m.sat {
                q(o, "sat");
            }
            q(o, m.ty.name());
        }
        Op::Sad(t) => {
            o.push_str("sad");
            q(o, t.name());
        }
        Op::Div(d) => {
            o.push_str("div");
            kind(o, d.kind);
            if d.ftz {
                q(o, "ftz");
            }
            q(o, d.ty.name());
        }
        Op::Rem(t) => {
            o.push_str("rem");
            q(o, t.name());
        }
        Op::Abs(u) | Op::Neg(u) => {
            o.push_str(if matches!(op, Op::Abs(_)) {
                "abs"
            } else {
                "neg"
            });
            if u.ftz {
                q(o, "ftz");
            }
            q(o, u.ty.name());
        }
        Op::Min(m) | Op::Max(m) => {
            o.push_str(if matches!(op, Op::Min(_)) {
                "min"
            } else {
                "max"
            });
            if m.ftz {
                q(o, "ftz");
            }
            if m.nan {
                q(o, "NaN");
            }
            if m.xorsign_abs {
                q(o, "xorsign");
                q(o, "abs");
            }
            if m.relu {
                q(o, "relu");
            }
            q(o, m.ty.name());
        }
        Op::Addc(c) | Op::Subc(c) => {
            o.push_str(if matches!(op, Op::Addc(_)) {
                "addc"
            } else {
                "subc"
            });
            if c.cc {
                q(o, "cc");
            }
            q(o, c.ty.name());
        }
        Op::Madc(mc) => {
            o.push_str("madc");
            q(o, if mc.hi { "hi" } else { "lo" });
            if mc.cc {
                q(o, "cc");
            }
            q(o, mc.ty.name());
        }
        Op::Popc(t) => {
            o.push_str("popc");
            q(o, t.name());
        }
        Op::Clz(t) => {
            o.push_str("clz");
            q(o, t.name());
        }
        Op::Bfind(b) => {
            o.push_str("bfind");
            if b.shiftamt {
                q(o, "shiftamt");
            }
            q(o, b.ty.name());
        }
        Op::Fns => o.push_str("fns.b32"),
        Op::Brev(t) => {
            o.push_str("brev");
            q(o, t.name());
        }
        Op::Bfe(t) => {
            o.push_str("bfe");
            q(o, t.name());
        }
        Op::Bfi(t) => {
            o.push_str("bfi");
            q(o, t.name());
        }
        Op::Bmsk(m) => {
            o.push_str("bmsk");
            q(o, shift_mode(*m));
            q(o, "b32");
        }
        Op::Szext(z) => {
            o.push_str("szext");
            q(o, shift_mode(z.mode));
            q(o, z.ty.name());
        }
        Op::Dp4a(d) => {
            o.push_str("dp4a");
            q(o, d.a_ty.name());
            q(o, d.b_ty.name());
        }
        Op::Dp2a(d) => {
            o.push_str("dp2a");
            q(o, if d.hi { "hi" } else { "lo" });
            q(o, d.a_ty.name());
            q(o, d.b_ty.name());
        }
        Op::And(t) | Op::Or(t) | Op::Xor(t) | Op::Not(t) | Op::Cnot(t) => {
            o.push_str(match op {
                Op::And(_) => "and",
                Op::Or(_) => "or",
                Op::Xor(_) => "xor",
                Op::Not(_) => "not",
                _ => "cnot",
            });
            q(o, t.name());
        }
        Op::Lop3 => o.push_str("lop3.b32"),
        Op::Shf(sh) => {
            o.push_str("shf");
            q(o, if sh.left { "l" } else { "r" });
            q(o, shift_mode(sh.mode));
            q(o, "b32");
        }
        Op::Shl(t) => {
            o.push_str("shl");
            q(o, t.name());
        }
        Op::Shr(t) => {
            o.push_str("shr");
            q(o, t.name());
        }
        Op::Prmt(md) => {
            o.push_str("prmt.b32");
            if let Some(md) = md {
                q(
                    o,
                    match md {
                        PrmtMode::F4e => "f4e",
                        PrmtMode::B4e => "b4e",
                        PrmtMode::Rc8 => "rc8",
                        PrmtMode::Ecl => "ecl",
                        PrmtMode::Ecr => "ecr",
                        PrmtMode::Rc16 => "rc16",
                    },
                );
            }
        }
        Op::Rcp(f)
        | Op::Sqrt(f)
        | Op::Rsqrt(f)
        | Op::Sin(f)
        | Op::Cos(f)
        | Op::Lg2(f)
        | Op::Ex2(f)
        | Op::Tanh(f) => {
            o.push_str(match op {
                Op::Rcp(_) => "rcp",
                Op::Sqrt(_) => "sqrt",
                Op::Rsqrt(_) => "rsqrt",
                Op::Sin(_) => "sin",
                Op::Cos(_) => "cos",
                Op::Lg2(_) => "lg2",
                Op::Ex2(_) => "ex2",
                _ => "tanh",
            });
            kind(o, f.kind);
            if f.ftz {
                q(o, "ftz");
            }
            q(o, f.ty.name());
        }
        Op::Testp(t) => {
            o.push_str("testp");
            q(
                o,
                match t.class {
                    TestpClass::Finite => "finite",
                    TestpClass::Infinite => "infinite",
                    TestpClass::Number => "number",
                    TestpClass::NotANumber => "notanumber",
                    TestpClass::Normal => "normal",
                    TestpClass::Subnormal => "subnormal",
                },
            );
            q(o, t.ty.name());
        }
        Op::Copysign(t) => {
            o.push_str("copysign");
            q(o, t.name());
        }
        Op::Setp(sp) => {
            o.push_str("setp");
            q(o, cmp_name(sp.cmp));
            if let Some(b) = sp.bool_op {
                q(o, bool_name(b));
            }
            if sp.ftz {
                q(o, "ftz");
            }
            q(o, sp.ty.name());
        }
        Op::Set(st) => {
            o.push_str("set");
            q(o, cmp_name(st.cmp));
            if let Some(b) = st.bool_op {
                q(o, bool_name(b));
            }
            if st.ftz {
                q(o, "ftz");
            }
            q(o, st.dst.name());
            q(o, st.src.name());
        }
        Op::Selp(t) => {
            o.push_str("selp");
            q(o, t.name());
        }
        Op::Slct(sl) => {
            o.push_str("slct");
            if sl.ftz {
                q(o, "ftz");
            }
            q(o, sl.dst.name());
            q(o, sl.sel.name());
        }
        Op::Mov(t) => {
            o.push_str("mov");
            q(o, t.name());
        }
        Op::Ld(l) => {
            o.push_str("ld");
            match l.sem() {
                None => {}
                Some(LoadSem::Weak) => q(o, "weak"),
                Some(LoadSem::Volatile) => q(o, "volatile"),
                Some(LoadSem::Relaxed(s)) => {
                    q(o, "relaxed");
                    q(o, s.name());
                }
                Some(LoadSem::Acquire(s)) => {
                    q(o, "acquire");
                    q(o, s.name());
                }
                Some(LoadSem::Mmio) => o.push_str(".mmio.relaxed.sys"),
            }
            if let Some(n) = space_name(l.space) {
                q(o, n);
            }
            if let Some(c) = l.cop() {
                q(o, c.name());
            }
            if l.nc() {
                q(o, "nc");
            }
            hints(o, &l.hints);
            if let Some(v) = l.vec {
                q(o, v.name());
            }
            q(o, l.ty.name());
        }
        Op::Ldu(l) => {
            o.push_str("ldu");
            if let Some(n) = space_name(l.space) {
                q(o, n);
            }
            if let Some(v) = l.vec {
                q(o, v.name());
            }
            q(o, l.ty.name());
        }
        Op::St(st) => {
            o.push_str("st");
            match st.sem() {
                None => {}
                Some(StoreSem::Weak) => q(o, "weak"),
                Some(StoreSem::Volatile) => q(o, "volatile"),
                Some(StoreSem::Relaxed(s)) => {
                    q(o, "relaxed");
                    q(o, s.name());
                }
                Some(StoreSem::Release(s)) => {
                    q(o, "release");
                    q(o, s.name());
                }
                Some(StoreSem::Mmio) => o.push_str(".mmio.relaxed.sys"),
            }
            if let Some(n) = space_name(st.space) {
                q(o, n);
            }
            if let Some(c) = st.cop() {
                q(o, c.name());
            }
            hints(o, &st.hints);
            if let Some(v) = st.vec {
                q(o, v.name());
            }
            q(o, st.ty.name());
        }
        Op::Prefetch(p) => {
            o.push_str(if p.uniform { "prefetchu" } else { "prefetch" });
            if let Some(n) = space_name(p.space) {
                q(o, n);
            }
            q(
                o,
                match p.level {
                    PrefetchLevel::L1 => "L1",
                    PrefetchLevel::L2 => "L2",
                    PrefetchLevel::L2EvictLast => "L2::evict_last",
                    PrefetchLevel::L2EvictNormal => "L2::evict_normal",
                    PrefetchLevel::Tensormap => "tensormap",
                },
            );
        }
        Op::ApplyPriority => o.push_str("applypriority.global.L2::evict_normal"),
        Op::Discard => o.push_str("discard.global.L2"),
        Op::CreatePolicy(c) => {
            o.push_str("createpolicy");
            match c.kind {
                PolicyKind::Fractional => q(o, "fractional"),
                PolicyKind::Range => q(o, "range"),
                PolicyKind::Cvt => o.push_str(".cvt.L2"),
            }
            if c.kind != PolicyKind::Cvt {
                q(o, l2_evict_name(c.primary));
                if let Some(sec) = c.secondary {
                    q(o, l2_evict_name(sec));
                }
            }
            q(o, "b64");
        }
        Op::Isspacep(sp) => {
            o.push_str("isspacep");
            q(o, space_dir(*sp).trim_start_matches('.'));
        }
        Op::Cvta(c) => {
            o.push_str("cvta");
            if c.to {
                q(o, "to");
            }
            if let Some(n) = space_name(c.space) {
                q(o, n);
            }
            q(o, c.ty.name());
        }
        Op::Cvt(c) => {
            o.push_str("cvt");
            match c.rnd {
                Some(CvtRounding::Float(r)) => q(o, r.name()),
                Some(CvtRounding::Int(r)) => q(o, r.name()),
                None => {}
            }
            if c.ftz {
                q(o, "ftz");
            }
            if c.sat {
                q(o, "sat");
            }
            if c.relu {
                q(o, "relu");
            }
            if c.satfinite {
                q(o, "satfinite");
            }
            q(o, c.dst.name());
            q(o, c.src.name());
        }
        Op::CvtPack(c) => {
            o.push_str("cvt.pack.sat");
            q(o, c.dst.name());
            q(o, c.src.name());
            if let Some(t) = c.c {
                q(o, t.name());
            }
        }
        Op::Shfl(sh) => {
            o.push_str("shfl");
            if sh.sync {
                q(o, "sync");
            }
            q(
                o,
                match sh.mode {
                    ShflMode::Up => "up",
                    ShflMode::Down => "down",
                    ShflMode::Bfly => "bfly",
                    ShflMode::Idx => "idx",
                },
            );
            q(o, "b32");
        }
        Op::Vote(v) => {
            o.push_str("vote");
            if v.sync {
                q(o, "sync");
            }
            o.push_str(match v.mode {
                VoteMode::All => ".all.pred",
                VoteMode::Any => ".any.pred",
                VoteMode::Uni => ".uni.pred",
                VoteMode::Ballot => ".ballot.b32",
            });
        }
        Op::Match(mt) => {
            o.push_str(if mt.all {
                "match.all.sync"
            } else {
                "match.any.sync"
            });
            q(o, mt.ty.name());
        }
        Op::Redux(r) => {
            o.push_str("redux.sync");
            q(
                o,
                match r.op {
                    ReduxOp::Add => "add",
                    ReduxOp::Min => "min",
                    ReduxOp::Max => "max",
                    ReduxOp::And => "and",
                    ReduxOp::Or => "or",
                    ReduxOp::Xor => "xor",
                },
            );
            if r.abs {
                q(o, "abs");
            }
            if r.nan {
                q(o, "NaN");
            }
            q(o, r.ty.name());
        }
        Op::Activemask => o.push_str("activemask.b32"),
        Op::Elect => o.push_str("elect.sync"),
        Op::Bar(b) => {
            o.push_str(if b.barrier { "barrier" } else { "bar" });
            if b.cta {
                q(o, "cta");
            }
            match b.kind {
                BarKind::Sync => q(o, "sync"),
                BarKind::Arrive => q(o, "arrive"),
                BarKind::Red(BarRedOp::Popc) => o.push_str(".red.popc.u32"),
                BarKind::Red(BarRedOp::And) => o.push_str(".red.and.pred"),
                BarKind::Red(BarRedOp::Or) => o.push_str(".red.or.pred"),
            }
            if b.aligned {
                q(o, "aligned");
            }
        }
        Op::BarWarpSync => o.push_str("bar.warp.sync"),
        Op::Membar(l) => {
            o.push_str("membar");
            q(
                o,
                match l {
                    MembarLevel::Cta => "cta",
                    MembarLevel::Gl => "gl",
                    MembarLevel::Sys => "sys",
                },
            );
        }
        Op::Fence(f) => {
            o.push_str("fence");
            match f {
                Fence::Memory { sem, scope } => {
                    if let Some(s) = sem {
                        q(o, s.name());
                    }
                    q(o, scope.name());
                }
                Fence::ProxyAlias => o.push_str(".proxy.alias"),
                Fence::ProxyAsync(sp) => {
                    o.push_str(".proxy.async");
                    if let Some(sp) = sp {
                        if let Some(n) = space_name(crate::ir::SpaceQual::plain(*sp)) {
                            q(o, n);
                        }
                    }
                }
                Fence::ProxyKind(p) => {
                    o.push_str(".proxy");
                    q(o, p.name());
                }
                Fence::ProxyTensormap { release, scope } => {
                    o.push_str(".proxy.tensormap::generic");
                    q(o, if *release { "release" } else { "acquire" });
                    q(o, scope.name());
                }
            }
        }
        Op::Atom(a) => {
            o.push_str("atom");
            rmw(o, a.sem, a.scope);
            if let Some(n) = space_name(a.space) {
                q(o, n);
            }
            q(o, atom_op(a.op));
            if a.noftz {
                q(o, "noftz");
            }
            if a.cache_hint {
                q(o, "L2::cache_hint");
            }
            if let Some(v) = a.vec {
                q(o, v.name());
            }
            q(o, a.ty.name());
        }
        Op::Red(r) => {
            o.push_str("red");
            rmw(o, r.sem, r.scope);
            if let Some(n) = space_name(r.space) {
                q(o, n);
            }
            q(o, atom_op(r.op));
            if r.noftz {
                q(o, "noftz");
            }
            if r.cache_hint {
                q(o, "L2::cache_hint");
            }
            if let Some(v) = r.vec {
                q(o, v.name());
            }
            q(o, r.ty.name());
        }
        Op::Nanosleep => o.push_str("nanosleep.u32"),
        Op::Griddepcontrol(a) => {
            o.push_str(match a {
                crate::ir::GriddepAction::LaunchDependents => "griddepcontrol.launch_dependents",
                crate::ir::GriddepAction::Wait => "griddepcontrol.wait",
            });
        }
        Op::Setmaxnreg(s) => {
            let crate::ir::Setmaxnreg {
                inc,
                sync_aligned,
                ty,
            } = s;
            o.push_str(if *inc {
                "setmaxnreg.inc"
            } else {
                "setmaxnreg.dec"
            });
            if *sync_aligned {
                o.push_str(".sync.aligned");
            }
            q(o, ty.name());
        }
        Op::Pmevent { mask } => o.push_str(if *mask { "pmevent.mask" } else { "pmevent" }),
        Op::Bra { uni } => o.push_str(if *uni { "bra.uni" } else { "bra" }),
        Op::BrxIdx { uni } => o.push_str(if *uni { "brx.idx.uni" } else { "brx.idx" }),
        Op::Call(c) => o.push_str(if c.uni { "call.uni" } else { "call" }),
        Op::Ret { uni } => o.push_str(if *uni { "ret.uni" } else { "ret" }),
        Op::Exit => o.push_str("exit"),
        Op::Trap => o.push_str("trap"),
        Op::Brkpt => o.push_str("brkpt"),
        Op::Tcgen05(t) => super::tcgen05::mnemonic(o, t),
        Op::CpAsync(c) => super::async_copy::cp_mnemonic(o, c),
        Op::Tma(t) => super::tma::mnemonic(o, t),
        Op::Mbarrier(m) => super::async_copy::mbarrier_mnemonic(o, m),
        Op::Wgmma(w) => super::wgmma::mnemonic(o, w),
        Op::WarpMatrix(w) => {
            o.push_str(super::mma::opcode(w));
            super::mma::mnemonic(o, w);
        }
    }
    s
}

#[doc(hidden)]
pub fn type_name(t: Type) -> &'static str {
    t.name()
}
