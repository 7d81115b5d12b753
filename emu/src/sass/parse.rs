//! Reading SASS program text: one instruction per line ending in `;`, labels `NAME:`, `//` and
//! `/* */` comments, an optional leading `/*0048*/` address as nvdisasm prints it (which `BRA`
//! may name), guards, scheduling annotations in braces, and the operand forms of the seed.

use std::collections::HashMap;

use super::ir::*;
use super::operands::{parse_address, parse_int, parse_pred, parse_reg, parse_src, split_operands};

/// A parse error at a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    /// `file:line:col: error: message`, the line, and a caret under the column.
    pub fn render(&self, src: &str, file: &str) -> String {
        let span = crate::ir::Span {
            line: self.line,
            col: self.col,
            len: 1,
            ..crate::ir::Span::default()
        };
        crate::front::error::render_at(src, file, span, &format!("error: {}", self.message))
    }
}

/// A branch target as written, resolved once every label and address is known.
enum Target {
    Label(String),
    Address(u64),
}

#[derive(Clone, Copy)]
struct Line<'a> {
    no: u32,
    /// Column of `text` in the source line (1-based).
    col: u32,
    text: &'a str,
    address: Option<u64>,
}

/// Strips comments, keeping a leading `/*hex*/` as the line's address.
fn clean_lines(src: &str) -> Result<Vec<(u32, String, Option<u64>)>, ParseError> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (k, raw) in src.lines().enumerate() {
        let no = k as u32 + 1;
        let mut text = String::new();
        let mut address = None;
        let chars: Vec<char> = raw.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if in_block {
                if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    in_block = false;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            if chars[i] == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                let rest: String = chars[i + 2..].iter().collect();
                if let Some(end) = rest.find("*/") {
                    let inner = rest[..end].trim();
                    if text.trim().is_empty() && address.is_none() {
                        if let Ok(a) = u64::from_str_radix(inner.trim_start_matches("0x"), 16) {
                            if !inner.is_empty() {
                                address = Some(a);
                            }
                        }
                    }
                    // Keep columns: replace the comment by spaces.
                    text.extend(std::iter::repeat_n(' ', end + 4));
                    i += end + 4;
                } else {
                    in_block = true;
                    i += 2;
                }
                continue;
            }
            text.push(chars[i]);
            i += 1;
        }
        out.push((no, text, address));
    }
    if in_block {
        return Err(ParseError {
            line: src.lines().count() as u32,
            col: 1,
            message: "unterminated `/*` comment".into(),
        });
    }
    Ok(out)
}

fn err(l: &Line<'_>, at: &str, message: impl Into<String>) -> ParseError {
    // `at` is a subslice of `l.text`: its offset gives the column.
    let off = (at.as_ptr() as usize).saturating_sub(l.text.as_ptr() as usize);
    let off = if off > l.text.len() { 0 } else { off };
    ParseError {
        line: l.no,
        col: l.col + l.text[..off].chars().count() as u32,
        message: message.into(),
    }
}

fn mem_qualifiers(mods: &[&str], store: bool) -> Result<(bool, CacheOp, Size), String> {
    let (mut extended, mut cop, mut size) = (false, None, None);
    let mut k = 0;
    while k < mods.len() {
        let m = mods[k];
        let set_size = |size: &mut Option<Size>, s: Size| {
            if size.replace(s).is_some() {
                Err(format!("more than one size ({m})"))
            } else {
                Ok(())
            }
        };
        match m {
            "E" => extended = true,
            "U8" => set_size(&mut size, Size::U8)?,
            "S8" => set_size(&mut size, Size::S8)?,
            "U16" => set_size(&mut size, Size::U16)?,
            "S16" => set_size(&mut size, Size::S16)?,
            "32" => set_size(&mut size, Size::B32)?,
            "64" => set_size(&mut size, Size::B64)?,
            "128" => set_size(&mut size, Size::B128)?,
            "U" if mods.get(k + 1) == Some(&"128") => {
                set_size(&mut size, Size::U128)?;
                k += 1;
            }
            _ => {
                let c = match (m, store) {
                    ("CA", false) => CacheOp::Ca,
                    ("CG", _) => CacheOp::Cg,
                    ("CS", _) => CacheOp::Cs,
                    ("LU", false) => CacheOp::Lu,
                    ("CV", false) => CacheOp::Cv,
                    ("CI", false) => CacheOp::Ci,
                    ("WB", true) => CacheOp::Wb,
                    ("WT", true) => CacheOp::Wt,
                    _ => {
                        return Err(format!(
                            "unknown qualifier `.{m}` for {}",
                            if store { "ST" } else { "LD" }
                        ))
                    }
                };
                if cop.replace(c).is_some() {
                    return Err(format!("more than one cache operator (.{m})"));
                }
            }
        }
        k += 1;
    }
    if store && size == Some(Size::U128) {
        return Err("`.U.128` is a load hint; ST has no uniform form".into());
    }
    let default_cop = if store { CacheOp::Wb } else { CacheOp::Ca };
    Ok((
        extended,
        cop.unwrap_or(default_cop),
        size.unwrap_or_default(),
    ))
}

fn check_data_reg(r: Reg, size: Size) -> Result<(), String> {
    let n = size.regs();
    if r.is_rz() || n == 1 {
        return Ok(());
    }
    if !r.0.is_multiple_of(n) {
        return Err(format!(
            "a {}-bit access needs a register aligned to {n} (R{} is not)",
            size.bytes() * 8,
            r.0
        ));
    }
    if u32::from(r.0) + u32::from(n) - 1 > 254 {
        return Err(format!(
            "{r}…R{} runs past R254",
            u32::from(r.0) + u32::from(n) - 1
        ));
    }
    Ok(())
}

fn parse_mem(op: &str, mods: &[&str], ops: &[&str], store: bool) -> Result<MemAccess, String> {
    let (extended, cop, size) = mem_qualifiers(mods, store)?;
    if !(2..=3).contains(&ops.len()) {
        return Err(format!(
            "{op} takes {} and an optional Plg predicate",
            if store {
                "[address], Rb"
            } else {
                "Rd, [address]"
            }
        ));
    }
    let (data_s, addr_s) = if store {
        (ops[1], ops[0])
    } else {
        (ops[0], ops[1])
    };
    let data = parse_reg(data_s)
        .ok_or_else(|| format!("expected a register, found `{}`", data_s.trim()))?;
    check_data_reg(data, size)?;
    let addr = parse_address(addr_s)?;
    if extended && !addr.base.is_rz() && (!addr.base.0.is_multiple_of(2) || addr.base.0 >= 254) {
        return Err(format!(
            "`.E` takes the address from the pair {{R{}, {}}}: the base must be even and below R254",
            u32::from(addr.base.0) + 1,
            addr.base
        ));
    }
    let plg = match ops.get(2) {
        Some(p) => parse_pred(p)
            .ok_or_else(|| format!("expected a predicate (Plg), found `{}`", p.trim()))?,
        None => PredUse {
            pred: Pred::PT,
            negated: false,
        },
    };
    Ok(MemAccess {
        extended,
        cop,
        size,
        data,
        addr,
        plg,
    })
}

fn want_reg(s: &str) -> Result<Reg, String> {
    parse_reg(s).ok_or_else(|| format!("expected a register R0…R254 or RZ, found `{}`", s.trim()))
}

fn want_src(s: &str) -> Result<Src, String> {
    parse_src(s).ok_or_else(|| {
        format!(
            "expected a register, an immediate or c[bank][offset], found `{}`",
            s.trim()
        )
    })
}

fn want_pred(s: &str) -> Result<PredUse, String> {
    parse_pred(s).ok_or_else(|| format!("expected a predicate P0…P6 or PT, found `{}`", s.trim()))
}

fn arity(op: &str, ops: &[&str], n: usize) -> Result<(), String> {
    if ops.len() == n {
        Ok(())
    } else {
        Err(format!("{op} takes {n} operand(s), found {}", ops.len()))
    }
}

fn parse_op(mnemonic: &str, ops: &[&str]) -> Result<(Op, Option<Target>), String> {
    let mut parts = mnemonic.split('.');
    let op = parts.next().unwrap_or("");
    let mods: Vec<&str> = parts.collect();
    let no_mods = |mods: &[&str]| {
        if mods.is_empty() {
            Ok(())
        } else {
            Err(format!("{op} takes no qualifier `.{}`", mods.join(".")))
        }
    };
    let r = match op {
        "LD" => Op::Ld(parse_mem(op, &mods, ops, false)?),
        "ST" => Op::St(parse_mem(op, &mods, ops, true)?),
        "MOV" => {
            no_mods(&mods)?;
            arity(op, ops, 2)?;
            Op::Mov(want_reg(ops[0])?, want_src(ops[1])?)
        }
        "MOV32I" => {
            no_mods(&mods)?;
            arity(op, ops, 2)?;
            match want_src(ops[1])? {
                Src::Imm(v) => Op::Mov32i(want_reg(ops[0])?, v),
                _ => return Err("MOV32I takes a 32-bit immediate".into()),
            }
        }
        "IADD" | "IADD32I" => {
            no_mods(&mods)?;
            arity(op, ops, 3)?;
            let b = want_src(ops[2])?;
            if op == "IADD32I" && !matches!(b, Src::Imm(_)) {
                return Err("IADD32I takes a 32-bit immediate".into());
            }
            Op::Iadd(want_reg(ops[0])?, want_reg(ops[1])?, b)
        }
        "ISCADD" => {
            no_mods(&mods)?;
            arity(op, ops, 4)?;
            let sh = parse_int(ops[3])
                .filter(|v| (0..32).contains(v))
                .ok_or_else(|| format!("ISCADD's shift must be 0…31, found `{}`", ops[3].trim()))?;
            Op::Iscadd(
                want_reg(ops[0])?,
                want_reg(ops[1])?,
                want_src(ops[2])?,
                sh as u32,
            )
        }
        "SHL" => {
            no_mods(&mods)?;
            arity(op, ops, 3)?;
            Op::Shl(want_reg(ops[0])?, want_reg(ops[1])?, want_src(ops[2])?)
        }
        "SHR" => parse_shr(&mods, ops)?,
        "LOP" => {
            let lop = match mods.as_slice() {
                ["AND"] => LogicOp::And,
                ["OR"] => LogicOp::Or,
                ["XOR"] => LogicOp::Xor,
                _ => return Err("LOP takes one of .AND, .OR, .XOR".into()),
            };
            arity(op, ops, 3)?;
            Op::Lop(lop, want_reg(ops[0])?, want_reg(ops[1])?, want_src(ops[2])?)
        }
        "ISETP" => parse_isetp(&mods, ops)?,
        "S2R" => {
            no_mods(&mods)?;
            arity(op, ops, 2)?;
            Op::S2r(want_reg(ops[0])?, special_reg(ops[1])?)
        }
        "BRA" => {
            arity(op, ops, 1)?;
            return Ok((Op::Bra(0), Some(branch_target(ops[0])?)));
        }
        "EXIT" | "NOP" => {
            no_mods(&mods)?;
            arity(op, ops, 0)?;
            if op == "EXIT" {
                Op::Exit
            } else {
                Op::Nop
            }
        }
        "" => return Err("expected an instruction".into()),
        other => return Err(format!("unknown instruction `{other}`")),
    };
    Ok((r, None))
}

/// `SHR{.U32|.S32} d, a, b`.
fn parse_shr(mods: &[&str], ops: &[&str]) -> Result<Op, String> {
    let unsigned = match mods {
        [] | ["S32"] => false,
        ["U32"] => true,
        _ => {
            return Err(format!(
                "SHR takes .U32 or .S32, found `.{}`",
                mods.join(".")
            ))
        }
    };
    arity("SHR", ops, 3)?;
    Ok(Op::Shr {
        d: want_reg(ops[0])?,
        a: want_reg(ops[1])?,
        b: want_src(ops[2])?,
        unsigned,
    })
}

/// `ISETP.cmp{.U32|.S32}.bop p, q, a, b, c`.
fn parse_isetp(mods: &[&str], ops: &[&str]) -> Result<Op, String> {
    let mut cmp = None;
    let mut unsigned = false;
    let mut bop = None;
    for m in mods {
        match *m {
            "LT" => cmp = Some(Cmp::Lt),
            "EQ" => cmp = Some(Cmp::Eq),
            "LE" => cmp = Some(Cmp::Le),
            "GT" => cmp = Some(Cmp::Gt),
            "NE" => cmp = Some(Cmp::Ne),
            "GE" => cmp = Some(Cmp::Ge),
            "U32" => unsigned = true,
            "S32" => unsigned = false,
            "AND" => bop = Some(BoolOp::And),
            "OR" => bop = Some(BoolOp::Or),
            "XOR" => bop = Some(BoolOp::Xor),
            other => return Err(format!("unknown ISETP qualifier `.{other}`")),
        }
    }
    let cmp = cmp.ok_or("ISETP needs a comparison (.LT .EQ .LE .GT .NE .GE)")?;
    let bop = bop.ok_or("ISETP needs a boolean operation (.AND .OR .XOR)")?;
    arity("ISETP", ops, 5)?;
    let p = want_pred(ops[0])?;
    let q = want_pred(ops[1])?;
    if p.negated || q.negated {
        return Err("ISETP's destination predicates cannot be negated".into());
    }
    Ok(Op::Isetp {
        cmp,
        unsigned,
        bop,
        p: p.pred,
        q: q.pred,
        a: want_reg(ops[2])?,
        b: want_src(ops[3])?,
        c: want_pred(ops[4])?,
    })
}

/// The special register `S2R` reads (`SR_TID.X`, …).
fn special_reg(s: &str) -> Result<SpecialReg, String> {
    Ok(match s.trim() {
        "SR_TID.X" => SpecialReg::Tid(0),
        "SR_TID.Y" => SpecialReg::Tid(1),
        "SR_TID.Z" => SpecialReg::Tid(2),
        "SR_CTAID.X" => SpecialReg::CtaId(0),
        "SR_CTAID.Y" => SpecialReg::CtaId(1),
        "SR_CTAID.Z" => SpecialReg::CtaId(2),
        "SR_LANEID" => SpecialReg::LaneId,
        other => return Err(format!("unknown special register `{other}`")),
    })
}

/// The target of a `BRA`: a label, or an address written in hex.
fn branch_target(s: &str) -> Result<Target, String> {
    let t = s
        .trim()
        .trim_start_matches('`')
        .trim_start_matches('(')
        .trim_end_matches(')');
    Ok(match parse_int(t) {
        Some(a) if t.starts_with("0x") => Target::Address(a as u64),
        _ if !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || "_.$".contains(c)) => {
            Target::Label(t.to_string())
        }
        _ => return Err(format!("BRA takes a label or an address, found `{t}`")),
    })
}

/// Parses a SASS program.
///
/// # Errors
/// The first malformed line, with its line and column.
pub fn parse_program(src: &str) -> Result<Program, ParseError> {
    let cleaned = clean_lines(src)?;
    let mut prog = Program::default();
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut addresses: HashMap<u64, usize> = HashMap::new();
    let mut pending: Vec<(usize, Target, Line<'_>)> = Vec::new();
    for (no, text, address) in &cleaned {
        let lead = text.len() - text.trim_start().len();
        let mut l = Line {
            no: *no,
            col: 1 + text[..lead].chars().count() as u32,
            text: text.trim_start(),
            address: *address,
        };
        // Labels: `NAME:` before an instruction or alone.
        loop {
            let t = l.text;
            let Some(colon) = t.find(':') else { break };
            let name = &t[..colon];
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_.$".contains(c))
                || name.contains('[')
            {
                break;
            }
            if labels.insert(name.to_string(), prog.instrs.len()).is_some() {
                return Err(err(&l, t, format!("label `{name}` is defined twice")));
            }
            let rest = &t[colon + 1..];
            let skip = rest.len() - rest.trim_start().len();
            l.col += (colon + 1 + skip) as u32;
            l.text = rest.trim_start();
        }
        let mut t = l.text.trim_end();
        if t.is_empty() {
            continue;
        }
        // Annotations may also follow the `;`.
        let mut trailing = Vec::new();
        while let Some(open) = t.ends_with('}').then(|| t.rfind('{')).flatten() {
            trailing.insert(0, t[open + 1..t.len() - 1].trim().to_string());
            t = t[..open].trim_end();
        }
        let Some(body) = t.strip_suffix(';') else {
            return Err(err(
                &l,
                &t[t.len()..],
                "expected `;` at the end of the instruction",
            ));
        };
        if body.contains(';') {
            return Err(err(
                &l,
                &body[body.find(';').unwrap_or(0)..],
                "one instruction per line",
            ));
        }
        // Annotations in braces.
        let mut annotations = Vec::new();
        let mut core = String::new();
        let mut rest = body;
        while let Some(open) = rest.find('{') {
            core.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                return Err(err(&l, &rest[open..], "unterminated `{` annotation"));
            };
            annotations.push(rest[open + 1..open + close].trim().to_string());
            rest = &rest[open + close + 1..];
        }
        core.push_str(rest);
        annotations.extend(trailing);
        let core = core.trim();
        let (guard, after_guard) = match core.strip_prefix('@') {
            Some(g) => {
                let (p, r) = g.split_once(char::is_whitespace).unwrap_or((g, ""));
                let pu = parse_pred(p).ok_or_else(|| err(&l, body, format!("bad guard `@{p}`")))?;
                (pu, r.trim_start())
            }
            None => (
                PredUse {
                    pred: Pred::PT,
                    negated: false,
                },
                core,
            ),
        };
        let (mnemonic, operands) = after_guard
            .split_once(char::is_whitespace)
            .unwrap_or((after_guard, ""));
        let ops = split_operands(operands);
        if ops.iter().any(|o| o.trim().is_empty()) {
            return Err(err(&l, body, "empty operand"));
        }
        let mn_at = body.find(mnemonic).map_or(body, |i| &body[i..]);
        let (op, target) = parse_op(mnemonic, &ops).map_err(|m| err(&l, mn_at, m))?;
        if let Some(a) = l.address {
            addresses.insert(a, prog.instrs.len());
        }
        if let Some(t) = target {
            pending.push((prog.instrs.len(), t, l));
        }
        prog.instrs.push(Instr {
            guard,
            op,
            annotations,
            text: core.to_string(),
            pos: Pos {
                line: l.no,
                col: l.col,
            },
        });
    }
    for (at, target, l) in pending {
        let dest = match &target {
            Target::Label(n) => labels.get(n).copied(),
            Target::Address(a) => addresses.get(a).copied(),
        };
        let Some(d) = dest else {
            let what = match target {
                Target::Label(n) => format!("branch to undefined label `{n}`"),
                Target::Address(a) => {
                    format!("branch to address 0x{a:x}, which no `/*addr*/` line has")
                }
            };
            return Err(err(&l, l.text, what));
        };
        prog.instrs[at].op = Op::Bra(d);
    }
    Ok(prog)
}
