//! Operands of SASS instructions: registers, predicates, immediates, constant-bank words and
//! memory operands, as the seed and nvdisasm write them.

use super::ir::*;

pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b.trim()),
        None => (false, s.strip_prefix('+').unwrap_or(s).trim()),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

pub(crate) fn parse_reg(s: &str) -> Option<Reg> {
    let s = s.trim();
    let s = s.strip_suffix(".reuse").unwrap_or(s);
    if s == "RZ" {
        return Some(Reg::RZ);
    }
    let n: u32 = s.strip_prefix('R')?.parse().ok()?;
    (n <= 254).then_some(Reg(n as u8))
}

pub(crate) fn parse_pred(s: &str) -> Option<PredUse> {
    let s = s.trim();
    let (negated, s) = match s.strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, s),
    };
    let pred = if s == "PT" {
        Pred::PT
    } else {
        let n: u8 = s.strip_prefix('P')?.parse().ok()?;
        if n > 6 {
            return None;
        }
        Pred(n)
    };
    Some(PredUse { pred, negated })
}

fn parse_const(s: &str) -> Option<(u8, u32)> {
    let rest = s.trim().strip_prefix("c[")?;
    let (bank, rest) = rest.split_once(']')?;
    let off = rest.trim().strip_prefix('[')?.strip_suffix(']')?;
    Some((parse_int(bank)? as u8, parse_int(off)? as u32))
}

fn to_u32(v: i64) -> Option<u32> {
    if (-(1i64 << 31)..(1i64 << 32)).contains(&v) {
        Some(v as u32)
    } else {
        None
    }
}

pub(crate) fn parse_src(s: &str) -> Option<Src> {
    if let Some(r) = parse_reg(s) {
        return Some(Src::Reg(r));
    }
    if let Some((bank, offset)) = parse_const(s) {
        return Some(Src::Const { bank, offset });
    }
    parse_int(s).and_then(to_u32).map(Src::Imm)
}

/// `[Ra + ImmS32]`, `[Ra - off]`, `[Ra + -off]`, `[Ra]`, `[ImmU32]`.
pub(crate) fn parse_address(s: &str) -> Result<Address, String> {
    let inner = s
        .trim()
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or_else(|| format!("expected a memory operand `[Ra + offset]`, found `{s}`"))?
        .trim();
    if inner.is_empty() {
        return Err("empty memory operand".into());
    }
    let first_end = inner
        .find(|c: char| c == '+' || (c == '-' && !inner.starts_with('-')))
        .unwrap_or(inner.len());
    let head = inner[..first_end].trim();
    if let Some(base) = parse_reg(head) {
        let rest = inner[first_end..].trim();
        let offset = if rest.is_empty() {
            0
        } else {
            let v = parse_int(rest.strip_prefix('+').unwrap_or(rest))
                .ok_or_else(|| format!("bad offset `{rest}`"))?;
            if !(-(1i64 << 31)..(1i64 << 31)).contains(&v) {
                return Err(format!("offset {v} does not fit a signed 32-bit immediate"));
            }
            v as i32 as u32
        };
        return Ok(Address { base, offset });
    }
    let v = parse_int(inner).ok_or_else(|| format!("bad address `{inner}`"))?;
    if !(0..(1i64 << 32)).contains(&v) {
        return Err(format!(
            "absolute address {v} does not fit an unsigned 32-bit immediate"
        ));
    }
    Ok(Address {
        base: Reg::RZ,
        offset: v as u32,
    })
}

/// Splits operands at top-level commas.
pub(crate) fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() || !out.is_empty() {
        out.push(&s[start..]);
    }
    out
}
