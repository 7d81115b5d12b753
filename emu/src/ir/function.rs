//! Functions and kernels: parameters, performance directives, register and label tables, and the statement tree of the body.

use super::*;

/// A kernel (`.entry`) or device function (`.func`), declared or defined.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// Kernel or device function.
    pub kind: FunctionKind,
    /// Linking directive.
    pub linkage: Linkage,
    /// Return parameters (`.func` only).
    pub returns: Vec<ParamDecl>,
    /// Parameters.
    pub params: Vec<ParamDecl>,
    /// `.noreturn`
    pub noreturn: bool,
    /// Performance-tuning directives (`.maxntid`, `.reqntid`, …).
    pub perf: Vec<PerfDirective>,
    /// Every register declared in the body, in declaration order.
    pub regs: Vec<RegInfo>,
    /// Every function-scope variable, in declaration order.
    pub locals: Vec<Variable>,
    /// Every label, in declaration order.
    pub labels: Vec<LabelInfo>,
    /// Every `.callprototype` declared in the body.
    pub prototypes: Vec<Prototype>,
    /// The body, or `None` for a declaration.
    pub body: Option<Block>,
    /// Instructions of the body that are PTX but that ptxemu does not implement (`mma`,
    /// `cp.async`, …), left out of the body: what each is and where. The validator reports
    /// them; the interpreter refuses the kernels that reach this function.
    pub unsupported: Vec<(String, Span)>,
    /// Where the function was declared.
    pub span: Span,
}

/// Kernel or device function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `.entry`: launched from the host.
    Entry,
    /// `.func`: called from device code.
    Func,
}

/// A function parameter (or return value).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    /// The parameter's name (may be empty in declarations and prototypes).
    pub name: String,
    /// `.param` or `.reg`.
    pub kind: ParamKind,
    /// The parameter as a variable: type, alignment, array dimensions, `.ptr` attributes.
    pub var: Variable,
}

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// In the `.param` state space.
    Param,
    /// In a register (`.reg` parameters of `.func`).
    Reg(RegId),
}

/// A performance-tuning directive of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerfDirective {
    /// `.maxntid x[, y[, z]]`
    Maxntid(Vec<u32>),
    /// `.reqntid x[, y[, z]]`
    Reqntid(Vec<u32>),
    /// `.minnctapersm n`
    Minnctapersm(u32),
    /// `.maxnctapersm n`
    Maxnctapersm(u32),
    /// `.maxnreg n`
    Maxnreg(u32),
    /// `.maxclusterrank n`
    Maxclusterrank(u32),
    /// `.reqnctapercluster x[, y[, z]]`
    Reqnctapercluster(Vec<u32>),
    /// `.explicitcluster`
    Explicitcluster,
    /// `.pragma "…"` attached to the function.
    Pragma(String),
    /// `.blocksareclusters`
    Blocksareclusters,
}

/// A declared register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    /// The register's full name (`%r12`).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `.v2/.v4` vector registers.
    pub vec: Option<VecWidth>,
}

/// A declared label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelInfo {
    /// The label's name.
    pub name: String,
}

/// A `.callprototype` declaration: the signature of indirect call targets.
#[derive(Clone, Debug, PartialEq)]
pub struct Prototype {
    /// The label naming it.
    pub name: String,
    /// Return parameters.
    pub returns: Vec<ParamDecl>,
    /// Parameters.
    pub params: Vec<ParamDecl>,
    /// `.noreturn`
    pub noreturn: bool,
}

/// A `{ … }` block: a scope for declarations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// The closing `}`.
    pub close: Span,
}

/// A statement in a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// A register declaration.
    Regs(RegDecl),
    /// A function-scope variable declaration.
    Var(LocalId),
    /// A `.callprototype` declaration.
    Prototype(ProtoId),
    /// `name: .branchtargets L1, L2, …;` or `name: .calltargets f1, f2, …;`.
    Targets(TargetList),
    /// A label definition.
    Label(LabelId),
    /// An instruction.
    Instr(Instr),
    /// A nested block.
    Block(Block),
    /// `.pragma "…";` inside a body.
    Pragma(String),
    /// `.loc`: the source position of the instructions that follow.
    Loc(Loc),
}

/// A `.reg` declaration statement, remembered as written so it prints back the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDecl {
    /// The registers' type.
    pub ty: Type,
    /// `.v2/.v4` vector registers.
    pub vec: Option<VecWidth>,
    /// The registers it declares, in order (possibly none: `%r<0>`).
    pub regs: Vec<RegId>,
    /// `%r<37>` (a parameterised range with this prefix and count) or a list of names.
    pub form: RegDeclForm,
}

/// How a `.reg` declaration names its registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegDeclForm {
    /// `.reg .b32 %r<37>;`: registers `%r0` … `%r36`.
    Range {
        /// The common prefix.
        prefix: String,
        /// How many.
        count: u32,
    },
    /// `.reg .b32 a, b, c;`
    List,
}

/// A branch-target or call-target list (for `brx.idx` and indirect calls).
#[derive(Clone, Debug, PartialEq)]
pub struct TargetList {
    /// The list's own label.
    pub name: LabelId,
    /// The targets.
    pub targets: TargetKind,
}

/// The entries of a [`TargetList`].
#[derive(Clone, Debug, PartialEq)]
pub enum TargetKind {
    /// `.branchtargets`
    Branch(Vec<LabelId>),
    /// `.calltargets`
    Call(Vec<FuncId>),
}

impl Function {
    /// The register a [`RegId`] names.
    pub fn reg(&self, r: RegId) -> &RegInfo {
        &self.regs[r.index()]
    }

    /// Visits every instruction of the body in order, depth first.
    pub fn instructions(&self) -> Vec<&Instr> {
        fn walk<'a>(b: &'a Block, out: &mut Vec<&'a Instr>) {
            for s in &b.stmts {
                match s {
                    Stmt::Instr(i) => out.push(i),
                    Stmt::Block(inner) => walk(inner, out),
                    Stmt::Regs(_)
                    | Stmt::Var(_)
                    | Stmt::Prototype(_)
                    | Stmt::Targets(_)
                    | Stmt::Label(_)
                    | Stmt::Pragma(_)
                    | Stmt::Loc(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        if let Some(b) = &self.body {
            walk(b, &mut out);
        }
        out
    }
}
