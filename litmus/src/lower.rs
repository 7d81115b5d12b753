//! Lowering a litmus thread to the `emu` IR, so that the interpreter's event mode runs it.
//!
//! Dialect instructions become the PTX instructions they stand for (`ld.acquire.gpu r0, x`
//! → `ld.acquire.gpu.b64 r0, [x]`), written as text and read by the real PTX front end, so
//! that one instruction parser serves both the dialect and the real-PTX cells
//! (`st.release.gpu.global.u32 [x], 1`). A few dialect forms have no single PTX instruction:
//! `atom…sub` becomes an `add` of the negated operand; a conditional branch becomes a `setp`
//! and a guarded `bra`; `tld`/`suld`/`sust`/`cold` keep their proxy beside the instruction.
//!
//! Names: registers are `r<digits>` or `%name` (`%r1` and `r1` are one register); every other
//! name in an address is a location, created on first use with initial value 0.

use std::collections::HashMap;

use emu::event::ThreadCode;
use emu::front::{parse_instruction, NameResolver};
use emu::ir::{GlobalId, LabelId, Op, ProtoId, RegId, Span, VarRef};
use models::vocab::{Proxy, Scope};

use crate::ast::{ArithOp, BranchCmp, Inst, Mo, RmwOp, Val};

/// Locations of a whole test, shared by its threads: name → index (a `GlobalId`).
#[derive(Clone, Debug, Default)]
pub struct Locations {
    /// Names in order of index.
    pub names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Locations {
    /// The index of `name`, creating it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&k) = self.index.get(name) {
            return k;
        }
        let k = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), k);
        k
    }

    /// The index of `name`, if known.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }
}

/// One thread's registers: canonical name (without `%`) → id.
#[derive(Clone, Debug, Default)]
pub struct Registers {
    /// Names in order of id.
    pub names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Registers {
    /// The id of register `name` (`%` optional), creating it if new.
    pub fn intern(&mut self, name: &str) -> RegId {
        let n = name.trim_start_matches('%');
        if let Some(&k) = self.index.get(n) {
            return RegId(k);
        }
        let k = self.names.len() as u32;
        self.names.push(n.to_string());
        self.index.insert(n.to_string(), k);
        RegId(k)
    }

    /// The id of register `name`, if the thread uses it.
    pub fn get(&self, name: &str) -> Option<RegId> {
        self.index
            .get(name.trim_start_matches('%'))
            .map(|&k| RegId(k))
    }
}

/// Whether `name` names a register rather than a location.
pub fn is_register_name(name: &str) -> bool {
    name.starts_with('%')
        || (name.len() > 1
            && name.starts_with('r')
            && name[1..].chars().all(|c| c.is_ascii_digit()))
}

struct Resolver<'a> {
    locs: &'a mut Locations,
    regs: &'a mut Registers,
    labels: &'a mut Vec<String>,
}

impl NameResolver for Resolver<'_> {
    fn register(&mut self, name: &str) -> Option<RegId> {
        is_register_name(name).then(|| self.regs.intern(name))
    }

    fn variable(&mut self, name: &str) -> Option<VarRef> {
        (!is_register_name(name)).then(|| VarRef::Global(GlobalId(self.locs.intern(name))))
    }

    fn label(&mut self, name: &str, _span: Span, _create: bool) -> Option<LabelId> {
        Some(LabelId(label_index(self.labels, name) as u32))
    }

    fn prototype(&mut self, _name: &str) -> Option<ProtoId> {
        None
    }
}

fn label_index(labels: &mut Vec<String>, name: &str) -> usize {
    match labels.iter().position(|l| l == name) {
        Some(k) => k,
        None => {
            labels.push(name.to_string());
            labels.len() - 1
        }
    }
}

/// A lowering error: which instruction of the thread, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LowerError {
    /// Index of the instruction in the thread's cell list.
    pub inst: usize,
    /// What went wrong.
    pub message: String,
}

fn v(x: &Val) -> String {
    match x {
        Val::Const(c) => c.to_string(),
        Val::Reg(r) => r.clone(),
    }
}

fn sem_scope(mo: Mo, scope: Option<Scope>) -> String {
    let m = match mo {
        Mo::Weak => "weak",
        Mo::Relaxed => "relaxed",
        Mo::Acquire => "acquire",
        Mo::Release => "release",
        Mo::AcqRel => "acq_rel",
        Mo::Volatile => "volatile",
    };
    match scope {
        Some(s) => format!(".{m}.{}", s.name()),
        None => format!(".{m}"),
    }
}

/// The PTX text (one or more instructions) and proxy a dialect instruction stands for.
pub(crate) fn ptx_of(i: &Inst, tmp: &mut usize) -> (Vec<String>, Proxy) {
    let mut fresh = |p: &str| {
        *tmp += 1;
        format!("%__{p}{tmp}")
    };
    match i {
        Inst::Load {
            mo,
            scope,
            proxy,
            reg,
            loc,
        } => (
            vec![format!("ld{}.b64 {reg}, [{loc}]", sem_scope(*mo, *scope))],
            *proxy,
        ),
        Inst::Store {
            mo,
            scope,
            proxy,
            loc,
            val,
        } => (
            vec![format!(
                "st{}.b64 [{loc}], {}",
                sem_scope(*mo, *scope),
                v(val)
            )],
            *proxy,
        ),
        Inst::Rmw {
            mo,
            scope,
            proxy,
            op,
            reg,
            loc,
            val,
            val2,
        } => {
            let ss = sem_scope(*mo, Some(*scope));
            let mut pre = Vec::new();
            let (opname, operand) = match op {
                RmwOp::Add => ("add.u64", v(val)),
                RmwOp::Sub => match val {
                    Val::Const(c) => ("add.u64", c.wrapping_neg().to_string()),
                    Val::Reg(r) => {
                        let t = fresh("neg");
                        pre.push(format!("sub.s64 {t}, 0, {r}"));
                        ("add.u64", t)
                    }
                },
                RmwOp::And => ("and.b64", v(val)),
                RmwOp::Or => ("or.b64", v(val)),
                RmwOp::Xor => ("xor.b64", v(val)),
                RmwOp::Exch => ("exch.b64", v(val)),
                RmwOp::Cas => (
                    "cas.b64",
                    format!("{}, {}", v(val), val2.as_ref().map_or_else(String::new, v)),
                ),
                // PTX has `.inc`/`.dec` for `.u32` only; `val` is the bound.
                RmwOp::Inc => ("inc.u32", v(val)),
                RmwOp::Dec => ("dec.u32", v(val)),
            };
            let text = match reg {
                Some(r) => format!("atom{ss}.{opname} {r}, [{loc}], {operand}"),
                None => format!("red{ss}.{opname} [{loc}], {operand}"),
            };
            pre.push(text);
            (pre, *proxy)
        }
        Inst::Fence { sem, scope } => (
            vec![format!("fence.{}.{}", sem.name(), scope.name())],
            Proxy::Generic,
        ),
        Inst::ProxyFence(p) => (vec![format!("fence.proxy.{}", p.name())], *p),
        Inst::AliasFence => (vec!["fence.proxy.alias".to_string()], Proxy::Generic),
        Inst::Barrier {
            arrive,
            instance,
            id,
            quorum,
        } => {
            let mut args = vec![v(instance)];
            args.extend(id.iter().map(v));
            args.extend(quorum.iter().map(v));
            (
                vec![format!(
                    "bar.cta.{} {}",
                    if *arrive { "arrive" } else { "sync" },
                    args.join(", ")
                )],
                Proxy::Generic,
            )
        }
        Inst::Move { reg, val } => (vec![format!("mov.b64 {reg}, {}", v(val))], Proxy::Generic),
        Inst::Arith { op, reg, a, b } => {
            let o = match op {
                ArithOp::Add => "add",
                ArithOp::Sub => "sub",
                ArithOp::Mul => "mul.lo",
                ArithOp::Div => "div",
            };
            (
                vec![format!("{o}.s64 {reg}, {}, {}", v(a), v(b))],
                Proxy::Generic,
            )
        }
        Inst::Branch { cmp, a, b, label } => {
            let c = match cmp {
                BranchCmp::Eq => "eq",
                BranchCmp::Ne => "ne",
                BranchCmp::Lt => "lt",
                BranchCmp::Gt => "gt",
                BranchCmp::Le => "le",
                BranchCmp::Ge => "ge",
            };
            let p = fresh("p");
            (
                vec![
                    format!("setp.{c}.s64 {p}, {}, {}", v(a), v(b)),
                    format!("@{p} bra {label}"),
                ],
                Proxy::Generic,
            )
        }
        Inst::Goto(l) => (vec![format!("bra {l}")], Proxy::Generic),
        Inst::Label(_) => (Vec::new(), Proxy::Generic),
        Inst::Ptx(t) => (vec![t.clone()], Proxy::Generic),
    }
}

/// A lowered thread.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The code for the interpreter's event mode.
    pub code: ThreadCode,
    /// The thread's registers.
    pub regs: Registers,
    /// The PTX text of each IR instruction (for reports).
    pub text: Vec<String>,
    /// For each IR instruction, the index of the litmus instruction it comes from.
    pub origin: Vec<usize>,
}

/// Lowers one thread. `locs` is shared by the test's threads; `reg_init` gives the thread's
/// initial registers.
///
/// # Errors
/// An instruction the PTX front end rejects, or a branch to a label the thread lacks.
pub fn lower_thread(
    code: &[Inst],
    reg_init: &[(String, i64)],
    locs: &mut Locations,
) -> Result<Lowered, LowerError> {
    let mut regs = Registers::default();
    for (r, _) in reg_init {
        regs.intern(r);
    }
    let mut labels: Vec<String> = Vec::new();
    let mut label_at: Vec<Option<usize>> = Vec::new();
    let mut out = ThreadCode::default();
    let mut tmp = 0usize;
    let mut texts_out = Vec::new();
    let mut origin = Vec::new();
    for (k, inst) in code.iter().enumerate() {
        if let Inst::Label(l) = inst {
            let li = label_index(&mut labels, l);
            label_at.resize(labels.len(), None);
            if label_at[li].is_some() {
                return Err(LowerError {
                    inst: k,
                    message: format!("label `{l}` is defined twice"),
                });
            }
            label_at[li] = Some(out.instrs.len());
            continue;
        }
        let (texts, proxy) = ptx_of(inst, &mut tmp);
        for text in texts {
            let mut res = Resolver {
                locs,
                regs: &mut regs,
                labels: &mut labels,
            };
            let ins = parse_instruction(&text, &mut res).map_err(|e| LowerError {
                inst: k,
                message: format!("`{text}`: {}", e.kind),
            })?;
            let proxy = match &ins.op {
                Op::Ld(ld) if ld.nc() => Proxy::Texture,
                _ => proxy,
            };
            out.instrs.push(ins);
            out.proxies.push(proxy);
            texts_out.push(text);
            origin.push(k);
        }
    }
    label_at.resize(labels.len(), None);
    for (li, at) in label_at.iter().enumerate() {
        match at {
            Some(i) => out.labels.push(*i),
            None => {
                return Err(LowerError {
                    inst: code.len().saturating_sub(1),
                    message: format!("branch to undefined label `{}`", labels[li]),
                });
            }
        }
    }
    out.nregs = regs.names.len();
    out.reg_init = reg_init
        .iter()
        .map(|(r, val)| (regs.get(r).unwrap_or(RegId(0)), *val))
        .collect();
    Ok(Lowered {
        code: out,
        regs,
        text: texts_out,
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use emu::ir::Op;

    #[test]
    fn dialect_and_ptx_cells_lower_to_ir() {
        let code = vec![
            Inst::Label("LC00".into()),
            Inst::Load {
                mo: Mo::Acquire,
                scope: Some(Scope::Gpu),
                proxy: Proxy::Generic,
                reg: "r0".into(),
                loc: "x".into(),
            },
            Inst::Branch {
                cmp: BranchCmp::Ne,
                a: Val::Reg("r0".into()),
                b: Val::Const(1),
                label: "LC01".into(),
            },
            Inst::Rmw {
                mo: Mo::AcqRel,
                scope: Scope::Sys,
                proxy: Proxy::Generic,
                op: RmwOp::Sub,
                reg: None,
                loc: "y".into(),
                val: Val::Reg("r0".into()),
                val2: None,
            },
            Inst::Ptx("ld.volatile.global.u32 %r1, [z]".into()),
            Inst::Ptx("ld.global.nc.u32 %r2, [z]".into()),
            Inst::Label("LC01".into()),
        ];
        let mut locs = Locations::default();
        let l = lower_thread(&code, &[("r5".into(), 3)], &mut locs).unwrap();
        let (tc, regs) = (l.code, l.regs);
        assert_eq!(l.origin[..3], [1, 2, 2]);
        assert_eq!(locs.names, vec!["x", "y", "z"]);
        assert_eq!(regs.get("%r5"), Some(RegId(0)));
        assert_eq!(tc.reg_init, vec![(RegId(0), 3)]);
        assert_eq!(tc.labels, vec![0, tc.instrs.len()]);
        assert!(matches!(tc.instrs[1].op, Op::Setp(_)));
        assert!(tc.instrs[2].guard.is_some());
        assert!(
            matches!(tc.instrs[3].op, Op::Sub(_)),
            "sub of a register negates into a temporary"
        );
        assert!(matches!(tc.instrs[4].op, Op::Red(_)));
        assert_eq!(
            tc.proxies[6],
            Proxy::Texture,
            "ld.global.nc reads through the texture path"
        );
    }

    #[test]
    fn bad_cells_and_labels_are_errors() {
        let mut locs = Locations::default();
        let e =
            lower_thread(&[Inst::Ptx("ld.bogus.u32 %r1, [x]".into())], &[], &mut locs).unwrap_err();
        assert!(e.message.contains("bogus"), "{}", e.message);
        let e = lower_thread(&[Inst::Goto("LC9".into())], &[], &mut locs).unwrap_err();
        assert!(e.message.contains("LC9"));
    }
}
