//! Reading PTX litmus files (litmus-format spec §1): the herd/Dat3M dialect the conformance
//! corpus uses, plus real PTX syntax in thread cells (`st.release.gpu.global.u32 [x], 1`).
//!
//! Layout: `PTX name`, quoted comments, `{ init }`, a thread header row
//! (`P0@cta 0,gpu 0 | …;`), instruction rows (one cell per thread, `|`-separated, `;`-ended),
//! then optional `locations [..]` and `filter`, and the final condition.

use models::vocab::{Proxy, Scope};

use crate::ast::{
    ArithOp, BranchCmp, Expr, Inst, LocDecl, Mo, Quantifier, RmwOp, Test, ThreadDecl, Val,
};

/// A litmus parse error with its 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    /// The line.
    pub line: u32,
    /// The column (1-based, in characters).
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

/// An error at a byte offset of the file, before it is turned into a line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawError {
    pub(crate) pos: usize,
    pub(crate) message: String,
}

pub(crate) fn err(pos: usize, m: impl Into<String>) -> RawError {
    RawError {
        pos,
        message: m.into(),
    }
}

/// The 1-based line and column of byte offset `pos` in `src`.
pub(crate) fn line_col(src: &str, pos: usize) -> (u32, u32) {
    let pos = pos.min(src.len());
    let before = &src[..pos];
    let line = before.matches('\n').count() as u32 + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = src[start..pos].chars().count() as u32 + 1;
    (line, col)
}

/// Blanks out `(* … *)` comments and `<< … >>` blocks, keeping every byte offset (and so
/// every line and column) where it was.
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut depth = 0;
    let mut angle = false;
    let b: Vec<char> = src.chars().collect();
    let mut i = 0;
    let blank = |out: &mut String, c: char| {
        if c == '\n' {
            out.push('\n');
        } else {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        }
    };
    while i < b.len() {
        let pair = |x: char, y: char| i + 1 < b.len() && b[i] == x && b[i + 1] == y;
        if !angle && pair('(', '*') {
            depth += 1;
            out.push_str("  ");
            i += 2;
            continue;
        }
        if depth > 0 && pair('*', ')') {
            depth -= 1;
            out.push_str("  ");
            i += 2;
            continue;
        }
        if depth == 0 && pair('<', '<') {
            angle = true;
        }
        if angle && pair('>', '>') {
            angle = false;
            out.push_str("  ");
            i += 2;
            continue;
        }
        if depth > 0 || angle {
            blank(&mut out, b[i]);
        } else {
            out.push(b[i]);
        }
        i += 1;
    }
    out
}

/// A cursor over the file's text.
struct Text<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Text<'a> {
    fn skip_ws(&mut self) {
        while let Some(c) = self.s[self.pos..].chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    /// Takes the text up to (not including) `c`, moving past `c`.
    fn until(&mut self, c: char) -> Option<&'a str> {
        let rest = self.rest();
        let i = rest.find(c)?;
        self.pos += i + c.len_utf8();
        Some(&rest[..i])
    }
}

pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b.trim()),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

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

fn scope(s: &str) -> Option<Scope> {
    Scope::from_name(s)
}

fn proxy_of_name(s: &str) -> Option<Proxy> {
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
        _ => return None,
    })
}

fn operands(s: &str) -> Vec<String> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    s.split(',').map(|x| x.trim().to_string()).collect()
}

/// Whether a cell is written in the dialect (as opposed to real PTX).
fn is_dialect(op: &str, rest: &str) -> bool {
    let base = op.split('.').next().unwrap_or("");
    let dialect_op = matches!(
        base,
        "ld" | "st"
            | "tld"
            | "suld"
            | "cold"
            | "sust"
            | "atom"
            | "suatom"
            | "red"
            | "sured"
            | "fence"
            | "bar"
            | "add"
            | "sub"
            | "mul"
            | "div"
            | "beq"
            | "bne"
            | "blt"
            | "bgt"
            | "ble"
            | "bge"
            | "goto"
    );
    let ptx_quals = [
        ".global",
        ".shared",
        ".local",
        ".volatile",
        ".mmio",
        ".nc",
        ".u32",
        ".s32",
        ".b32",
        ".u64",
        ".s64",
        ".b64",
        ".param",
    ];
    dialect_op
        && !rest.contains('[')
        && !rest.contains('%')
        && !ptx_quals.iter().any(|q| op.contains(q))
}

/// Parses one thread cell (possibly a label, possibly empty) into instructions.
fn cell(text: &str, line: usize) -> Result<Vec<Inst>, RawError> {
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
        out.push(Inst::Ptx(t.to_string()));
        return Ok(out);
    }
    let q: Vec<&str> = op.split('.').collect();
    let args = operands(rest);
    let arg = |k: usize| -> Result<&str, RawError> {
        args.get(k)
            .map(String::as_str)
            .ok_or_else(|| err(line, format!("`{t}` needs more operands")))
    };
    let base = q[0];
    let inst = match base {
        "ld" | "tld" | "suld" | "cold" => {
            let proxy = match base {
                "tld" => Proxy::Texture,
                "suld" => Proxy::Surface,
                "cold" => Proxy::Constant,
                _ => Proxy::Generic,
            };
            if q.len() == 1 {
                // `ld r, v`: a local move.
                Inst::Move {
                    reg: arg(0)?.to_string(),
                    val: val(arg(1)?, line)?,
                }
            } else {
                let m =
                    mo(q[1]).ok_or_else(|| err(line, format!("unknown load order `.{}`", q[1])))?;
                let s = q.get(2).and_then(|s| scope(s));
                match (m, s) {
                    (Mo::Weak, None) | (Mo::Relaxed | Mo::Acquire, Some(_)) => {}
                    _ => {
                        return Err(err(
                            line,
                            format!("`{op}`: loads are .weak, .relaxed.S or .acquire.S"),
                        ))
                    }
                }
                Inst::Load {
                    mo: m,
                    scope: s,
                    proxy,
                    reg: arg(0)?.to_string(),
                    loc: arg(1)?.to_string(),
                }
            }
        }
        "st" | "sust" => {
            let proxy = if base == "sust" {
                Proxy::Surface
            } else {
                Proxy::Generic
            };
            let m = q.get(1).and_then(|x| mo(x)).ok_or_else(|| {
                err(
                    line,
                    format!("`{op}` needs .weak, .relaxed.S or .release.S"),
                )
            })?;
            let s = q.get(2).and_then(|s| scope(s));
            match (m, s) {
                (Mo::Weak, None) | (Mo::Relaxed | Mo::Release, Some(_)) => {}
                _ => {
                    return Err(err(
                        line,
                        format!("`{op}`: stores are .weak, .relaxed.S or .release.S"),
                    ))
                }
            }
            Inst::Store {
                mo: m,
                scope: s,
                proxy,
                loc: arg(0)?.to_string(),
                val: val(arg(1)?, line)?,
            }
        }
        "atom" | "suatom" | "red" | "sured" => {
            let proxy = if base.starts_with("su") {
                Proxy::Surface
            } else {
                Proxy::Generic
            };
            if q.len() != 4 {
                return Err(err(
                    line,
                    format!("`{op}` is written {base}.ORDER.SCOPE.OP"),
                ));
            }
            let m = mo(q[1])
                .filter(|m| *m != Mo::Weak)
                .ok_or_else(|| err(line, format!("`{op}`: unknown order `.{}`", q[1])))?;
            let s = scope(q[2])
                .ok_or_else(|| err(line, format!("`{op}`: unknown scope `.{}`", q[2])))?;
            let rop = match q[3] {
                "add" => RmwOp::Add,
                "sub" => RmwOp::Sub,
                "and" => RmwOp::And,
                "or" => RmwOp::Or,
                "xor" => RmwOp::Xor,
                "exch" => RmwOp::Exch,
                "cas" => RmwOp::Cas,
                other => {
                    return Err(err(
                        line,
                        format!("`{op}`: operation `.{other}` is not supported"),
                    ))
                }
            };
            let is_red = base.ends_with("red");
            if is_red {
                Inst::Rmw {
                    mo: m,
                    scope: s,
                    proxy,
                    op: rop,
                    reg: None,
                    loc: arg(0)?.to_string(),
                    val: val(arg(1)?, line)?,
                    val2: None,
                }
            } else {
                let val2 = if rop == RmwOp::Cas {
                    Some(val(arg(3)?, line)?)
                } else {
                    None
                };
                Inst::Rmw {
                    mo: m,
                    scope: s,
                    proxy,
                    op: rop,
                    reg: Some(arg(0)?.to_string()),
                    loc: arg(1)?.to_string(),
                    val: val(arg(2)?, line)?,
                    val2,
                }
            }
        }
        "fence" => match q.get(1).copied() {
            Some("sc") | Some("acq_rel") => {
                let s = q
                    .get(2)
                    .and_then(|s| scope(s))
                    .ok_or_else(|| err(line, format!("`{op}` needs a scope")))?;
                Inst::Fence {
                    sc: q[1] == "sc",
                    scope: s,
                }
            }
            Some("proxy") => match q.get(2).copied() {
                Some("alias") => Inst::AliasFence,
                Some(p) => Inst::ProxyFence(
                    proxy_of_name(p).ok_or_else(|| err(line, format!("unknown proxy `{p}`")))?,
                ),
                None => return Err(err(line, "fence.proxy needs a proxy")),
            },
            _ => return Err(err(line, format!("unknown fence `{op}`"))),
        },
        "bar" => {
            let arrive = match (q.get(1).copied(), q.get(2).copied()) {
                (Some("cta"), Some("sync")) => false,
                (Some("cta"), Some("arrive")) => true,
                _ => {
                    return Err(err(
                        line,
                        format!("`{op}`: barriers are bar.cta.sync or bar.cta.arrive"),
                    ))
                }
            };
            Inst::Barrier {
                arrive,
                instance: val(arg(0)?, line)?,
                id: args.get(1).map(|a| val(a, line)).transpose()?,
                quorum: args.get(2).map(|a| val(a, line)).transpose()?,
            }
        }
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
    };
    out.push(inst);
    Ok(out)
}

/// Parses a litmus test.
///
/// # Errors
/// The first problem found, with its line.
pub fn parse(src: &str) -> Result<Test, ParseError> {
    let clean = strip_comments(src);
    parse_clean(&clean).map_err(|e| {
        let (line, col) = line_col(&clean, e.pos);
        ParseError {
            line,
            col,
            message: e.message,
        }
    })
}

fn parse_clean(clean: &str) -> Result<Test, RawError> {
    let mut t = Text { s: clean, pos: 0 };
    t.skip_ws();
    let head_line = t.pos;
    let rest = t.rest();
    if !(rest.starts_with("PTX") || rest.starts_with("ptx")) {
        return Err(err(head_line, "a PTX litmus test starts with `PTX name`"));
    }
    t.pos += 3;
    // Everything up to `{` is the header: the name, then free text and quoted comments (which
    // may span lines and themselves contain quotes).
    let header_pos = t.pos;
    let header = t
        .until('{')
        .ok_or_else(|| err(header_pos, "missing the `{ … }` initial state"))?;
    let name = header.split_whitespace().next().unwrap_or("").to_string();
    let mut comments = Vec::new();
    if let (Some(a), Some(b)) = (header.find('"'), header.rfind('"')) {
        if b > a {
            comments.push(header[a + 1..b].trim().to_string());
        }
    }
    let init_line = t.pos;
    let init = t
        .until('}')
        .ok_or_else(|| err(init_line, "unterminated `{` initial state"))?;
    let mut locations = Vec::new();
    let mut reg_init = Vec::new();
    for (k, entry) in init.split(';').enumerate() {
        let e = entry.trim();
        if e.is_empty() {
            continue;
        }
        let line = init_line + init.split(';').take(k).map(|s| s.len() + 1).sum::<usize>();
        if let Some((lhs, rhs)) = e.split_once('@') {
            let words: Vec<&str> = rhs.split_whitespace().collect();
            match words.as_slice() {
                [p, "aliases", target] => {
                    let proxy = proxy_of_name(p)
                        .ok_or_else(|| err(line, format!("unknown proxy `{p}`")))?;
                    if !locations
                        .iter()
                        .any(|(n, _): &(String, LocDecl)| n == target)
                    {
                        return Err(err(
                            line,
                            format!("`{target}` must be declared before its alias"),
                        ));
                    }
                    locations.push((
                        lhs.trim().to_string(),
                        LocDecl::Alias {
                            proxy,
                            target: target.to_string(),
                        },
                    ));
                }
                _ => return Err(err(line, format!("cannot read `{e}`"))),
            }
            continue;
        }
        let (lhs, rhs) = e
            .split_once('=')
            .ok_or_else(|| err(line, format!("cannot read `{e}`")))?;
        let (lhs, rhs) = (lhs.trim(), rhs.trim());
        if let Some((th, reg)) = lhs.split_once(':') {
            let th: u32 = th
                .trim()
                .trim_start_matches('P')
                .parse()
                .map_err(|_| err(line, format!("bad thread in `{lhs}`")))?;
            let v = parse_int(rhs).ok_or_else(|| {
                err(
                    line,
                    format!("`{rhs}`: register initial values must be integers"),
                )
            })?;
            reg_init.push((th, reg.trim().to_string(), v));
        } else {
            let v = match parse_int(rhs) {
                Some(v) => v,
                None => {
                    let other = rhs.trim_start_matches('&');
                    match locations.iter().find(|(n, _)| n == other) {
                        Some((_, LocDecl::Value(v))) => *v,
                        _ => {
                            return Err(err(line, format!("cannot read the initial value `{rhs}`")))
                        }
                    }
                }
            };
            locations.push((lhs.to_string(), LocDecl::Value(v)));
        }
    }
    t.skip_ws();
    if t.rest().starts_with(';') {
        t.pos += 1;
    }
    // Thread header.
    t.skip_ws();
    let th_line = t.pos;
    let header_row = t
        .until(';')
        .ok_or_else(|| err(th_line, "missing the thread header row"))?;
    let mut threads = Vec::new();
    for (k, decl) in header_row.split('|').enumerate() {
        let d = decl.trim();
        let (p, pos) = d
            .split_once('@')
            .ok_or_else(|| err(th_line, format!("thread `{d}` needs @cta N,gpu M")))?;
        let id: u32 = p
            .trim()
            .trim_start_matches('P')
            .parse()
            .map_err(|_| err(th_line, format!("bad thread name `{p}`")))?;
        if id as usize != k {
            return Err(err(
                th_line,
                format!("thread {k} is named P{id}; threads must be numbered in order"),
            ));
        }
        let mut cta = None;
        let mut gpu = None;
        for part in pos.split(',') {
            let w: Vec<&str> = part.split_whitespace().collect();
            match w.as_slice() {
                ["cta", n] => cta = n.parse().ok(),
                ["gpu", n] => gpu = n.parse().ok(),
                _ => return Err(err(th_line, format!("cannot read the position `{pos}`"))),
            }
        }
        threads.push(ThreadDecl {
            id,
            cta: cta.ok_or_else(|| err(th_line, format!("thread P{id} needs a cta")))?,
            gpu: gpu.ok_or_else(|| err(th_line, format!("thread P{id} needs a gpu")))?,
        });
    }
    let nthreads = threads.len();
    let mut code: Vec<Vec<(Inst, u32)>> = vec![Vec::new(); nthreads];
    // Instruction rows until the condition.
    loop {
        t.skip_ws();
        let r = t.rest();
        let kw = [
            "exists",
            "~exists",
            "~ exists",
            "not exists",
            "forall",
            "final",
            "locations",
            "filter",
        ];
        if r.is_empty() || kw.iter().any(|k| r.starts_with(k)) {
            break;
        }
        let line = t.pos;
        let row = t
            .until(';')
            .ok_or_else(|| err(line, "an instruction row must end with `;`"))?;
        let cells: Vec<&str> = row.split('|').collect();
        if cells.len() != nthreads {
            return Err(err(
                line,
                format!(
                    "this row has {} cell(s) but there are {nthreads} thread(s)",
                    cells.len()
                ),
            ));
        }
        for (k, c) in cells.iter().enumerate() {
            let cell_pos = line + cells[..k].iter().map(|c| c.len() + 1).sum::<usize>();
            let cell_line = line_col(clean, cell_pos).0;
            for i in cell(c, cell_pos)? {
                code[k].push((i, cell_line));
            }
        }
    }
    // locations / filter / condition.
    let mut observed = Vec::new();
    let mut filter = None;
    loop {
        t.skip_ws();
        let line = t.pos;
        if t.rest().starts_with("locations") {
            t.pos += "locations".len();
            t.skip_ws();
            if !t.rest().starts_with('[') {
                return Err(err(line, "`locations` needs `[ … ]`"));
            }
            t.pos += 1;
            let list = t
                .until(']')
                .ok_or_else(|| err(line, "unterminated `locations [`"))?;
            for item in list.split(';') {
                let i = item.trim();
                if !i.is_empty() {
                    observed.push(crate::cond::term(i, line)?);
                }
            }
            continue;
        }
        if t.rest().starts_with("filter") {
            t.pos += "filter".len();
            let body = filter_text(&mut t);
            filter = Some(crate::cond::expr(&body, line)?);
            continue;
        }
        break;
    }
    t.skip_ws();
    let line = t.pos;
    let rest = t.rest().trim();
    let (quantifier, body) = if let Some(b) = rest
        .strip_prefix("~exists")
        .or_else(|| rest.strip_prefix("~ exists"))
        .or_else(|| rest.strip_prefix("not exists"))
    {
        (Quantifier::NotExists, b)
    } else if let Some(b) = rest
        .strip_prefix("exists")
        .or_else(|| rest.strip_prefix("final"))
    {
        (Quantifier::Exists, b)
    } else if let Some(b) = rest.strip_prefix("forall") {
        (Quantifier::Forall, b)
    } else if rest.is_empty() {
        (Quantifier::Exists, "true")
    } else {
        return Err(err(
            line,
            "expected the final condition (exists, ~exists or forall)",
        ));
    };
    let body = body.trim().trim_end_matches(';').trim();
    let condition = if body == "true" {
        Expr::True
    } else {
        crate::cond::expr(body, line)?
    };
    Ok(Test {
        name,
        comments,
        locations,
        reg_init,
        threads,
        code,
        quantifier,
        condition,
        observed,
        filter,
    })
}

/// The text of a `filter` expression: up to the quantifier keyword.
fn filter_text(t: &mut Text<'_>) -> String {
    let r = t.rest();
    let stops = ["exists", "~exists", "forall", "final", "locations"];
    let end = stops
        .iter()
        .filter_map(|k| r.find(k))
        .min()
        .unwrap_or(r.len());
    t.pos += end;
    r[..end].trim().trim_end_matches(';').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = r#"PTX MP-cta
"Message passing"
{
x=0;
y=0;
P1:r1=0;
}
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0         ;
 st.weak x, 1           | ld.acquire.cta r1, y   ;
 st.release.cta y, 1    | ld.weak r2, x          ;
exists
(P1:r1 == 1 /\ P1:r2 != 1)"#;

    #[test]
    fn reads_a_corpus_style_test() {
        let t = parse(MP).unwrap();
        assert_eq!(t.name, "MP-cta");
        assert_eq!(t.comments, vec!["Message passing".to_string()]);
        assert_eq!(t.locations.len(), 2);
        assert_eq!(t.reg_init, vec![(1, "r1".to_string(), 0)]);
        assert_eq!(
            t.threads[1],
            ThreadDecl {
                id: 1,
                cta: 1,
                gpu: 0
            }
        );
        assert_eq!(t.code[0].len(), 2);
        assert_eq!(t.code[1][0].1, 9, "line of P1's first instruction");
        assert!(matches!(
            t.code[1][0].0,
            Inst::Load {
                mo: Mo::Acquire,
                scope: Some(Scope::Cta),
                ..
            }
        ));
        assert_eq!(t.quantifier, Quantifier::Exists);
    }

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

    #[test]
    fn aliases_and_errors() {
        let src = "PTX A\n{ x = 0; y @ generic aliases x; t @ texture aliases y; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, y ;\nexists (P0:r0 == 0)";
        let t = parse(src).unwrap();
        assert_eq!(
            t.locations[2],
            (
                "t".to_string(),
                LocDecl::Alias {
                    proxy: Proxy::Texture,
                    target: "y".into()
                }
            )
        );
        let bad = "PTX B\n{ y @ generic aliases x; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, y ;\nexists (P0:r0 == 0)";
        assert_eq!(parse(bad).unwrap_err().line, 2);
        let cellbad = "PTX D\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n ld.weak r0, x | st.bogus x, 1 ;\nexists (P0:r0 == 0)";
        let e = parse(cellbad).unwrap_err();
        assert_eq!((e.line, e.col), (4, 18), "{e}");
        let rows = "PTX C\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 0)";
        assert!(parse(rows)
            .unwrap_err()
            .message
            .contains("1 cell(s) but there are 2"));
    }
}
