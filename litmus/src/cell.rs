//! Reading one thread cell of a litmus instruction row (litmus-format spec §1.6): the
//! herd/Dat3M dialect, the spellings the PTX ISA manual and the field use for the same
//! instructions, and real PTX syntax (kept as text for the lowering).
//!
//! A cell is read as dialect when its opcode is a dialect opcode and it names neither a type
//! (`.u32`, `.b64`, …), nor a state space, nor a `%` register: real PTX always carries a type
//! on memory instructions, so the dialect can accept bracketed addresses (`st.volatile [x], 2`).
//!
//! Spellings accepted beside Dat3M's, with the meaning the PTX ISA gives them:
//! 1. `fence.S` (no semantics) is `fence.acq_rel.S` ("fence" instruction page: `.acq_rel` is
//!    the default); `fence.acquire.S` and `fence.release.S` (PTX 8.6) are kept as such.
//! 2. `ld.volatile r, x` / `st.volatile x, v` (brackets optional, no type): volatile
//!    operations, relaxed at system scope (§8.4.2 "volatile Operation").
//! 3. `atom`/`red` may omit `.sem` (relaxed) and the scope (`.gpu`), as in PTX; `.inc` and
//!    `.dec` take their bound as the last operand. Deviation: a missing bound (the manual's own
//!    `atom.sys.inc.u32 %r0, [x]`, which is not valid PTX) is read as 4294967295, the largest
//!    `.u32`, so `.inc` adds 1 and `.dec` subtracts 1, wrapping at 2^32.
//! 4. `bar.sync N`, `bar.sync.aligned N`, `bar.arrive N` are `bar.cta.sync N` / `bar.cta.arrive
//!    N`. A second operand is a thread count in PTX, which a litmus barrier cannot express: it
//!    is rejected.

use models::vocab::{FenceSem, Proxy, Scope};

use crate::ast::{ArithOp, BranchCmp, Inst, Mo, RmwOp, Val};
use crate::parse::{err, parse_int, RawError};

/// The bound of an `atom.inc`/`.dec` written without one: the largest `.u32`.
pub const DEFAULT_INC_BOUND: i64 = 4_294_967_295;

fn is_reg(s: &str) -> bool {
    s.len() > 1 && s.starts_with('r') && s[1..].chars().all(|c| c.is_ascii_digit())
}

fn val(s: &str, line: usize) -> Result<Val, RawError> {
    let s = s.trim();
    if let Some(v) = parse_int(s) {
        return Ok(Val::Const(v));
    }
    if is_reg(s) {
        return Ok(Val::Reg(s.to_string()));
    }
    Err(err(
        line,
        format!("`{s}` is neither a constant nor a register"),
    ))
}

/// A location operand, with or without brackets: `x` or `[x]`.
fn loc(s: &str, line: usize) -> Result<String, RawError> {
    let t = s.trim();
    let inner = match t.strip_prefix('[') {
        Some(r) => r
            .strip_suffix(']')
            .ok_or_else(|| err(line, format!("unterminated address `{t}`")))?
            .trim(),
        None => t,
    };
    let ok = inner
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok || is_reg(inner) {
        return Err(err(
            line,
            format!("`{t}`: an address in the dialect is a location name"),
        ));
    }
    Ok(inner.to_string())
}

pub(crate) fn proxy_of_name(s: &str) -> Option<Proxy> {
    Some(match s {
        "generic" => Proxy::Generic,
        "texture" => Proxy::Texture,
        "surface" => Proxy::Surface,
        "constant" => Proxy::Constant,
        _ => return None,
    })
}

fn mo(s: &str) -> Option<Mo> {
    Some(match s {
        "weak" => Mo::Weak,
        "relaxed" => Mo::Relaxed,
        "acquire" => Mo::Acquire,
        "release" => Mo::Release,
        "acq_rel" => Mo::AcqRel,
        "volatile" => Mo::Volatile,
        _ => return None,
    })
}

fn operands(s: &str) -> Vec<String> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    s.split(',').map(|x| x.trim().to_string()).collect()
}

const DIALECT_OPS: [&str; 23] = [
    "ld", "st", "tld", "suld", "cold", "sust", "atom", "suatom", "red", "sured", "fence", "bar",
    "add", "sub", "mul", "div", "beq", "bne", "blt", "bgt", "ble", "bge", "goto",
];

/// Qualifiers only real PTX writes: types, state spaces, `.mmio`, `.nc`.
const PTX_QUALS: [&str; 21] = [
    "global", "shared", "local", "param", "const", "mmio", "nc", "u8", "u16", "u32", "u64", "s8",
    "s16", "s32", "s64", "b8", "b16", "b32", "b64", "f32", "f64",
];

/// Whether a cell is written in the dialect (as opposed to real PTX).
fn is_dialect(op: &str, rest: &str) -> bool {
    let mut q = op.split('.');
    let base = q.next().unwrap_or("");
    DIALECT_OPS.contains(&base)
        && !rest.contains('%')
        && !q.any(|x| PTX_QUALS.contains(&x) || x.starts_with("shared::"))
}

/// Real PTX `atom`/`red` `.inc`/`.dec` written without a bound (the PTX ISA manual's own
/// litmus tests do this) get the default bound; other PTX text is returned as written.
fn complete_ptx(op: &str, rest: &str, text: &str) -> String {
    let q: Vec<&str> = op.split('.').collect();
    let wants = match q[0] {
        "atom" => 3,
        "red" => 2,
        _ => return text.to_string(),
    };
    if q.iter().any(|x| *x == "inc" || *x == "dec") && operands(rest).len() + 1 == wants {
        return format!("{op} {rest}, {DEFAULT_INC_BOUND}");
    }
    text.to_string()
}

/// Parses one thread cell (possibly a label, possibly empty) into instructions. `line` is the
/// byte offset of the cell, which errors carry.
pub(crate) fn cell(text: &str, line: usize) -> Result<Vec<Inst>, RawError> {
    let mut out = Vec::new();
    let line = line + (text.len() - text.trim_start().len());
    let mut t = text.trim();
    // Leading labels `LC01:`.
    while let Some(i) = t.find(':') {
        let head = t[..i].trim();
        if !head.is_empty()
            && head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !head.contains(' ')
        {
            out.push(Inst::Label(head.to_string()));
            t = t[i + 1..].trim();
        } else {
            break;
        }
    }
    if t.is_empty() {
        return Ok(out);
    }
    let (op, rest) = match t.find(char::is_whitespace) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, ""),
    };
    if !is_dialect(op, rest) {
        out.push(Inst::Ptx(complete_ptx(op, rest, t)));
        return Ok(out);
    }
    out.push(dialect(op, rest, t, line)?);
    Ok(out)
}

/// One dialect instruction: opcode `op`, operand text `rest`, whole text `t`.
fn dialect(op: &str, rest: &str, t: &str, line: usize) -> Result<Inst, RawError> {
    let q: Vec<&str> = op.split('.').collect();
    let args = operands(rest);
    let arg = |k: usize| -> Result<&str, RawError> {
        args.get(k)
            .map(String::as_str)
            .ok_or_else(|| err(line, format!("`{t}` needs more operands")))
    };
    let base = q[0];
    Ok(match base {
        "ld" | "tld" | "suld" | "cold" => {
            let proxy = match base {
                "tld" => Proxy::Texture,
                "suld" => Proxy::Surface,
                "cold" => Proxy::Constant,
                _ => Proxy::Generic,
            };
            if q.len() == 1 && !arg(1)?.starts_with('[') {
                // `ld r, v`: a local move.
                return Ok(Inst::Move {
                    reg: arg(0)?.to_string(),
                    val: val(arg(1)?, line)?,
                });
            }
            let (m, s) = access_sem(&q, op, line)?;
            match (m, s) {
                (Mo::Weak | Mo::Volatile, None) | (Mo::Relaxed | Mo::Acquire, Some(_)) => {}
                _ => {
                    return Err(err(
                        line,
                        format!("`{op}`: loads are .weak, .volatile, .relaxed.S or .acquire.S"),
                    ))
                }
            }
            Inst::Load {
                mo: m,
                scope: s,
                proxy,
                reg: arg(0)?.to_string(),
                loc: loc(arg(1)?, line)?,
            }
        }
        "st" | "sust" => {
            let proxy = if base == "sust" {
                Proxy::Surface
            } else {
                Proxy::Generic
            };
            let (m, s) = access_sem(&q, op, line)?;
            match (m, s) {
                (Mo::Weak | Mo::Volatile, None) | (Mo::Relaxed | Mo::Release, Some(_)) => {}
                _ => {
                    return Err(err(
                        line,
                        format!("`{op}`: stores are .weak, .volatile, .relaxed.S or .release.S"),
                    ))
                }
            }
            Inst::Store {
                mo: m,
                scope: s,
                proxy,
                loc: loc(arg(0)?, line)?,
                val: val(arg(1)?, line)?,
            }
        }
        "atom" | "suatom" | "red" | "sured" => rmw(&q, op, &args, t, line)?,
        "fence" => fence(&q, op, line)?,
        "bar" => barrier(&q, op, &args, t, line)?,
        "add" | "sub" | "mul" | "div" => {
            let aop = match base {
                "add" => ArithOp::Add,
                "sub" => ArithOp::Sub,
                "mul" => ArithOp::Mul,
                _ => ArithOp::Div,
            };
            Inst::Arith {
                op: aop,
                reg: arg(0)?.to_string(),
                a: val(arg(1)?, line)?,
                b: val(arg(2)?, line)?,
            }
        }
        "beq" | "bne" | "blt" | "bgt" | "ble" | "bge" => {
            let cmp = match base {
                "beq" => BranchCmp::Eq,
                "bne" => BranchCmp::Ne,
                "blt" => BranchCmp::Lt,
                "bgt" => BranchCmp::Gt,
                "ble" => BranchCmp::Le,
                _ => BranchCmp::Ge,
            };
            Inst::Branch {
                cmp,
                a: val(arg(0)?, line)?,
                b: val(arg(1)?, line)?,
                label: arg(2)?.to_string(),
            }
        }
        "goto" => Inst::Goto(arg(0)?.to_string()),
        _ => return Err(err(line, format!("unknown instruction `{op}`"))),
    })
}

/// The order and scope of a load or store: `q[1]` (`ld` alone with a bracketed address is
/// weak), `q[2]` the scope.
fn access_sem(q: &[&str], op: &str, line: usize) -> Result<(Mo, Option<Scope>), RawError> {
    let m = match q.get(1) {
        None => Mo::Weak,
        Some(x) => mo(x).ok_or_else(|| err(line, format!("`{op}`: unknown order `.{x}`")))?,
    };
    let s = match q.get(2) {
        None => None,
        Some(x) => Some(
            Scope::from_name(x)
                .ok_or_else(|| err(line, format!("`{op}`: unknown scope `.{x}`")))?,
        ),
    };
    if q.len() > 3 {
        return Err(err(line, format!("`{op}`: too many qualifiers")));
    }
    Ok((m, s))
}

/// `atom|red[.sem][.scope].op …`; PTX's defaults are `.relaxed` and `.gpu`.
fn rmw(q: &[&str], op: &str, args: &[String], t: &str, line: usize) -> Result<Inst, RawError> {
    let base = q[0];
    let proxy = if base.starts_with("su") {
        Proxy::Surface
    } else {
        Proxy::Generic
    };
    let mut m = Mo::Relaxed;
    let mut s = Scope::Gpu;
    let mut rop = None;
    for (k, x) in q.iter().enumerate().skip(1) {
        let last = k + 1 == q.len();
        if let (false, Some(o)) = (last, mo(x)) {
            if k != 1 || matches!(o, Mo::Weak | Mo::Volatile) {
                return Err(err(line, format!("`{op}`: unknown order `.{x}`")));
            }
            m = o;
        } else if let (false, Some(sc)) = (last, Scope::from_name(x)) {
            s = sc;
        } else if last {
            rop = Some(match *x {
                "add" => RmwOp::Add,
                "sub" => RmwOp::Sub,
                "and" => RmwOp::And,
                "or" => RmwOp::Or,
                "xor" => RmwOp::Xor,
                "exch" => RmwOp::Exch,
                "cas" => RmwOp::Cas,
                "inc" => RmwOp::Inc,
                "dec" => RmwOp::Dec,
                other => {
                    return Err(err(
                        line,
                        format!("`{op}`: operation `.{other}` is not supported"),
                    ))
                }
            });
        } else {
            return Err(err(
                line,
                format!("`{op}`: unknown qualifier `.{x}` (write {base}[.ORDER][.SCOPE].OP)"),
            ));
        }
    }
    let rop = rop.ok_or_else(|| err(line, format!("`{op}` needs an operation (.add, .cas, …)")))?;
    let arg = |k: usize| -> Result<&str, RawError> {
        args.get(k)
            .map(String::as_str)
            .ok_or_else(|| err(line, format!("`{t}` needs more operands")))
    };
    let bounded = matches!(rop, RmwOp::Inc | RmwOp::Dec);
    let operand = |k: usize| -> Result<Val, RawError> {
        match args.get(k) {
            None if bounded => Ok(Val::Const(DEFAULT_INC_BOUND)),
            _ => val(arg(k)?, line),
        }
    };
    let is_red = base.ends_with("red");
    let (reg, at) = if is_red {
        (None, 0)
    } else {
        (Some(arg(0)?.to_string()), 1)
    };
    let val2 = if rop == RmwOp::Cas && !is_red {
        Some(val(arg(at + 2)?, line)?)
    } else {
        None
    };
    Ok(Inst::Rmw {
        mo: m,
        scope: s,
        proxy,
        op: rop,
        reg,
        loc: loc(arg(at)?, line)?,
        val: operand(at + 1)?,
        val2,
    })
}

/// `fence.SEM.S`, `fence.S` (acq_rel), `fence.proxy.P`, `fence.proxy.alias`.
fn fence(q: &[&str], op: &str, line: usize) -> Result<Inst, RawError> {
    let sem = |s: &str| {
        Some(match s {
            "sc" => FenceSem::Sc,
            "acq_rel" => FenceSem::AcqRel,
            "acquire" => FenceSem::Acquire,
            "release" => FenceSem::Release,
            _ => return None,
        })
    };
    let unknown = || err(line, format!("unknown fence `{op}`"));
    match q.get(1..) {
        Some(["proxy", "alias"]) => Ok(Inst::AliasFence),
        Some(["proxy", p]) => {
            Ok(Inst::ProxyFence(proxy_of_name(p).ok_or_else(|| {
                err(line, format!("unknown proxy `{p}` in `{op}`"))
            })?))
        }
        Some(["proxy"]) => Err(err(line, "fence.proxy needs a proxy")),
        // `fence.S`: the ISA's default semantics, acq_rel.
        Some([x]) => match (Scope::from_name(x), sem(x)) {
            (Some(scope), _) => Ok(Inst::Fence {
                sem: FenceSem::AcqRel,
                scope,
            }),
            (None, Some(_)) => Err(err(line, format!("`{op}` needs a scope"))),
            (None, None) => Err(unknown()),
        },
        Some([m, s]) => match (sem(m), Scope::from_name(s)) {
            (Some(sem), Some(scope)) => Ok(Inst::Fence { sem, scope }),
            _ => Err(unknown()),
        },
        _ => Err(unknown()),
    }
}

/// `bar.cta.sync|arrive N{, id{, q}}` (Dat3M) and `bar.sync|arrive{.aligned} N` (PTX).
fn barrier(q: &[&str], op: &str, args: &[String], t: &str, line: usize) -> Result<Inst, RawError> {
    let bad = || {
        err(
            line,
            format!("unknown barrier `{op}`: barriers are bar{{.cta}}.sync or bar{{.cta}}.arrive"),
        )
    };
    let (cta, kind, aligned) = match q.get(1..) {
        Some(["cta", k]) => (true, *k, false),
        Some([k]) => (false, *k, false),
        Some([k, "aligned"]) => (false, *k, true),
        Some(["cta", k, "aligned"]) => (true, *k, true),
        _ => return Err(bad()),
    };
    let arrive = match kind {
        "sync" => false,
        "arrive" => true,
        _ => return Err(bad()),
    };
    if (!cta || aligned) && args.len() > 1 {
        return Err(err(
            line,
            format!(
                "`{t}`: the second operand of PTX `bar` is a thread count, which a litmus barrier \
                 cannot express (write bar.cta.sync N, id, quorum for a named barrier)"
            ),
        ));
    }
    let instance = val(
        args.first()
            .ok_or_else(|| err(line, format!("`{t}` needs a barrier number")))?,
        line,
    )?;
    Ok(Inst::Barrier {
        arrive,
        instance,
        id: args.get(1).map(|a| val(a, line)).transpose()?,
        quorum: args.get(2).map(|a| val(a, line)).transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_of_every_kind() {
        let c = |s: &str| cell(s, 1).unwrap();
        assert!(matches!(&c("LC00:")[..], [Inst::Label(l)] if l == "LC00"));
        assert!(matches!(
            &c("bne r0, 0, LC01")[..],
            [Inst::Branch {
                cmp: BranchCmp::Ne,
                ..
            }]
        ));
        assert!(matches!(
            &c("atom.acq_rel.gpu.cas r0, x, 0, 1")[..],
            [Inst::Rmw {
                op: RmwOp::Cas,
                val2: Some(_),
                ..
            }]
        ));
        assert!(matches!(
            &c("red.acq_rel.sys.sub x, 1")[..],
            [Inst::Rmw {
                op: RmwOp::Sub,
                reg: None,
                ..
            }]
        ));
        assert!(matches!(
            &c("sust.weak s, 2")[..],
            [Inst::Store {
                proxy: Proxy::Surface,
                ..
            }]
        ));
        assert!(matches!(&c("fence.proxy.alias")[..], [Inst::AliasFence]));
        assert!(matches!(
            &c("bar.cta.sync 1, r2, 3")[..],
            [Inst::Barrier {
                id: Some(Val::Reg(_)),
                quorum: Some(Val::Const(3)),
                ..
            }]
        ));
        assert!(matches!(&c("ld r0, 5")[..], [Inst::Move { .. }]));
        assert!(matches!(
            &c("st.release.gpu.global.u32 [x], 1")[..],
            [Inst::Ptx(_)]
        ));
        assert!(matches!(
            &c("ld.volatile.global.u32 %r1, [x]")[..],
            [Inst::Ptx(_)]
        ));
        assert!(c("   ").is_empty());
        assert!(
            cell("ld.weak.gpu r0, x", 3).is_err(),
            "a weak load takes no scope"
        );
        assert!(cell("st.acquire.gpu x, 1", 3).is_err());
        assert!(cell("atom.relaxed.gpu.mul r0, x, 2", 3)
            .unwrap_err()
            .message
            .contains("mul"));
    }
}
