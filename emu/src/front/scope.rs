//! The names of one function body: registers, variables, labels (scoped to their `{}`
//! block, as ptxas scopes them) and prototypes, with the module's globals behind them.

use std::collections::HashMap;

use super::error::{Error, ErrorKind};
use super::operands::NameResolver;
use crate::ir::{
    FuncId, GlobalId, LabelId, LabelInfo, LocalId, ProtoId, Prototype, RegId, RegInfo, Span,
    VarRef, Variable,
};

/// What a name in a function scope stands for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Name {
    Reg(RegId),
    Local(LocalId),
    Param(u32),
    Return(u32),
    Proto(ProtoId),
}

/// Module-level names.
#[derive(Default)]
pub(super) struct Globals {
    pub(super) vars: HashMap<String, GlobalId>,
    pub(super) funcs: HashMap<String, FuncId>,
}

/// The state of the function being parsed.
pub(super) struct FnScope<'g> {
    pub(super) globals: &'g Globals,
    pub(super) scopes: Vec<HashMap<String, Name>>,
    pub(super) regs: Vec<RegInfo>,
    pub(super) locals: Vec<Variable>,
    pub(super) labels: Vec<LabelInfo>,
    /// Labels by name, one map per enclosing block (innermost last): a label is visible in
    /// the block that defines it and in the blocks nested inside, as ptxas scopes them (Triton
    /// repeats `waitLoop:` in each inline-asm block).
    pub(super) label_scopes: Vec<HashMap<String, LabelId>>,
    pub(super) label_defined: Vec<Option<Span>>,
    pub(super) label_first_use: Vec<Span>,
    pub(super) protos: Vec<Prototype>,
    pub(super) unsupported: Vec<(String, Span)>,
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
    pub(super) fn lookup(&self, name: &str) -> Option<Name> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    pub(super) fn declare(&mut self, name: &str, n: Name, span: Span) -> Result<(), Error> {
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
    pub(super) fn open_labels(&mut self, defined: Vec<(String, Span)>) {
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

    pub(super) fn new_label(&mut self, name: &str, span: Span) -> LabelId {
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

    pub(super) fn define_label(&mut self, name: &str, span: Span) -> Result<LabelId, Error> {
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
