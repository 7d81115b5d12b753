//! Reading herd's `GPU_PTX` litmus format (Alglave et al., "GPU concurrency: weak behaviours
//! and programming assumptions", ASPLOS'15, §4.1, and herdtools7's `GPU_PTXParser.mly`) into
//! the same [`Test`] the dialect gives.
//!
//! Layout: `GPU_PTX name`, quoted comments, `{ init }` with typed register declarations
//! (`0:.reg .s32 r0;`, `0:.reg .b64 r1 = x;` for a register holding x's address), a header row
//! `P0 | P1 ;`, instruction rows of real PTX, then in any order a scope tree
//! (`scopeTree (device (kernel (cta (warp P0)) (cta (warp P1))))`), a memory map
//! (`x: global, y: shared`) and the final condition.
//!
//! Translation, in litmus-format terms:
//! 1. Each `device` is a GPU id; each `cta` a CTA id, numbered across the whole tree (a
//!    `kernel` boundary separates CTAs too); each `warp` a warp index in its CTA. A thread
//!    directly under a `device` or `kernel` gets a CTA of its own; directly under a `cta`, no
//!    warp. `grid` is read as `kernel`, `block`/`work_group` as `cta`, `sub_group` as `warp`.
//! 2. `[rK]` with `rK` declared to hold `x`'s address becomes `[x]`; an address register that
//!    the code reads or writes as a value is refused, since litmus locations have no numeric
//!    address.
//! 3. The memory map becomes each access's state space: the access gets `.global` or `.shared`
//!    (`local` is read as `shared`, as herd does). A shared location used by threads of
//!    different CTAs is refused: each CTA has its own shared memory, so the test would name
//!    two locations with one name.
//! 4. Predicate registers `pK` become `%pK`, so the PTX front end reads them as registers.
//! 5. Instructions keep their PTX meaning under the current model: `.ca`/`.cg`/`.wt` loads
//!    and stores are weak, `.volatile` is relaxed at system scope, `membar.{cta,gl,sys}` is
//!    `fence.sc.{cta,gpu,sys}`, `atom` without `.sem`/scope is `.relaxed.gpu`.

mod tail;

use crate::ast::{Inst, LocDecl, Test, ThreadDecl};
use crate::cell::cell;
use crate::parse::{err, line_col, parse_int, strip_comments, ParseError, RawError};
use tail::Tail;

/// Parses a GPU_PTX litmus test.
///
/// # Errors
/// The first problem found, with its line and column.
pub fn parse(src: &str) -> Result<Test, ParseError> {
    let clean = strip_comments(src);
    read(&clean).map_err(|e| e.located(&clean))
}

/// A register declaration of the init block.
struct RegDecl {
    thread: u32,
    name: String,
    /// The location whose address it holds, if any.
    addr: Option<String>,
    /// Its initial integer value, if any.
    value: Option<i64>,
}

fn read(s: &str) -> Result<Test, RawError> {
    let start = s.len() - s.trim_start().len();
    let body = &s[start + "GPU_PTX".len()..];
    let open = body
        .find('{')
        .ok_or_else(|| err(start, "missing the `{ … }` initial state"))?;
    let header = &body[..open];
    let name = header.split_whitespace().next().unwrap_or("").to_string();
    // As in the dialect: one comment, from the first quote to the last.
    let comments = match (header.find('"'), header.rfind('"')) {
        (Some(a), Some(b)) if b > a => vec![header[a + 1..b].trim().to_string()],
        _ => Vec::new(),
    };
    let init_pos = start + "GPU_PTX".len() + open + 1;
    let close = s[init_pos..]
        .find('}')
        .ok_or_else(|| err(init_pos, "unterminated `{` initial state"))?;
    let (regs, mut locations) = init(&s[init_pos..init_pos + close], init_pos)?;
    let mut pos = init_pos + close + 1;
    // Header row.
    let row_end = s[pos..]
        .find(';')
        .ok_or_else(|| err(pos, "missing the thread header row `P0 | P1 ;`"))?;
    let mut nthreads = 0u32;
    for (k, name) in s[pos..pos + row_end].split('|').enumerate() {
        if k >= crate::parse::MAX_THREADS {
            return Err(crate::parse::too_many_threads(pos));
        }
        let n = name.trim();
        let id = n
            .strip_prefix('P')
            .or_else(|| n.strip_prefix('T'))
            .and_then(|d| d.parse::<usize>().ok());
        if id != Some(k) {
            return Err(err(
                pos,
                format!("thread {k} is named `{n}`; threads are P0, P1, … in order"),
            ));
        }
        nthreads += 1;
    }
    pos += row_end + 1;
    let nt = nthreads as usize;
    let mut code: Vec<Vec<(Inst, u32)>> = vec![Vec::new(); nt];
    let mut raw: Vec<Vec<(String, usize)>> = vec![Vec::new(); nt];
    loop {
        let rest = &s[pos..];
        let t = rest.trim_start();
        if t.is_empty() || starts_tail(t) {
            break;
        }
        let row_pos = pos;
        let end = rest
            .find(';')
            .ok_or_else(|| err(row_pos, "an instruction row must end with `;`"))?;
        let cells: Vec<&str> = rest[..end].split('|').collect();
        if cells.len() != nt {
            return Err(err(
                row_pos,
                format!(
                    "this row has {} cell(s) but there are {nt} thread(s)",
                    cells.len()
                ),
            ));
        }
        let mut at = row_pos;
        for (k, c) in cells.iter().enumerate() {
            if !c.trim().is_empty() {
                let lead = c.len() - c.trim_start().len();
                raw[k].push((c.trim().to_string(), at + lead));
            }
            at += c.len() + 1;
        }
        pos += end + 1;
    }
    let tail = Tail::read(s, pos)?;
    let threads = crate::scope_tree::placement(&tail.tree, tail.tree_pos, nthreads)?;
    let spaces = tail.spaces;
    for (t, cells) in raw.iter().enumerate() {
        for (text, at) in cells {
            let thread = u32::try_from(t).unwrap_or(u32::MAX);
            let ptx = translate(text, *at, thread, &regs, &spaces)?;
            let line = line_col(s, *at).0;
            for i in cell(&ptx, *at)? {
                code[t].push((i, line));
            }
        }
    }
    check_shared(&code, &threads, &spaces, tail.tree_pos)?;
    // Locations: declared ones, then those the address registers name.
    for r in &regs {
        if let Some(a) = &r.addr {
            if !locations.iter().any(|(n, _)| n == a) {
                locations.push((a.clone(), LocDecl::Value(0)));
            }
        }
    }
    let reg_init = regs
        .iter()
        .filter_map(|r| r.value.map(|v| (r.thread, r.name.clone(), v)))
        .collect();
    Ok(Test {
        name,
        comments,
        locations,
        reg_init,
        threads,
        code,
        quantifier: tail.quantifier,
        condition: tail.condition,
        observed: Vec::new(),
        filter: None,
    })
}

/// Whether `t` starts the part after the instruction rows.
fn starts_tail(t: &str) -> bool {
    t.starts_with("scopeTree")
        || t.starts_with("ScopeTree")
        || tail::starts_tree(t)
        || tail::quantifier(t).is_some()
}

/// Locations with their declarations, in order.
type Locs = Vec<(String, LocDecl)>;

/// The init block: register declarations and location values.
fn init(block: &str, at: usize) -> Result<(Vec<RegDecl>, Locs), RawError> {
    let mut regs = Vec::new();
    let mut locs = Vec::new();
    let mut off = at;
    for entry in block.split(';') {
        let e = entry.trim();
        let here = off + (entry.len() - entry.trim_start().len());
        off += entry.len() + 1;
        if e.is_empty() {
            continue;
        }
        let (lhs, rhs) = match e.split_once('=') {
            Some((l, r)) => (l.trim(), Some(r.trim())),
            None => (e, None),
        };
        if let Some((th, decl)) = lhs.split_once(':') {
            let thread: u32 = th
                .trim()
                .trim_start_matches('P')
                .parse()
                .map_err(|_| err(here, format!("bad thread in `{e}`")))?;
            let words: Vec<&str> = decl.split_whitespace().collect();
            let name = match words.as_slice() {
                [".reg", ty, name] if ty.starts_with('.') => *name,
                [name] => *name,
                _ => return Err(err(here, format!("cannot read the declaration `{e}`"))),
            };
            if !is_gpu_reg(name) {
                return Err(err(
                    here,
                    format!("`{name}`: GPU_PTX registers are r0…r9 and p0…p9"),
                ));
            }
            let (mut addr, mut value) = (None, None);
            match rhs {
                None => {}
                Some(r) => match parse_int(r) {
                    Some(v) => value = Some(v),
                    None => {
                        let l = r.trim_start_matches('&');
                        if !is_ident(l) {
                            return Err(err(here, format!("cannot read the initial value `{r}`")));
                        }
                        addr = Some(l.to_string());
                    }
                },
            }
            regs.push(RegDecl {
                thread,
                name: name.to_string(),
                addr,
                value,
            });
        } else {
            let name = lhs.split_whitespace().last().unwrap_or("");
            if !is_ident(name) {
                return Err(err(here, format!("cannot read `{e}`")));
            }
            let v = match rhs {
                None => 0,
                Some(r) => parse_int(r).ok_or_else(|| {
                    err(
                        here,
                        format!("`{r}`: location initial values must be integers"),
                    )
                })?,
            };
            locs.push((name.to_string(), LocDecl::Value(v)));
        }
    }
    Ok((regs, locs))
}

fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// herd's GPU_PTX register names: `r0`…`r9`, `p0`…`p9` (any number of digits accepted).
fn is_gpu_reg(s: &str) -> bool {
    s.len() > 1
        && (s.starts_with('r') || s.starts_with('p'))
        && s[1..].chars().all(|c| c.is_ascii_digit())
}

/// The memory-map entry of a location: `true` for shared.
pub(super) type Spaces = Vec<(String, bool)>;

/// Rewrites one GPU_PTX cell as a real-PTX litmus cell.
fn translate(
    text: &str,
    at: usize,
    thread: u32,
    regs: &[RegDecl],
    spaces: &Spaces,
) -> Result<String, RawError> {
    let addr_of = |r: &str| {
        regs.iter()
            .find(|d| d.thread == thread && d.name == r)
            .and_then(|d| d.addr.clone())
    };
    let mut out = String::new();
    let mut located: Option<String> = None;
    let mut rest = text;
    while let Some(i) = rest.find('[') {
        let j = rest[i..]
            .find(']')
            .ok_or_else(|| err(at, format!("unterminated address in `{text}`")))?;
        let inner = rest[i + 1..i + j].trim();
        let loc = if is_gpu_reg(inner) {
            addr_of(inner).ok_or_else(|| {
                err(
                    at,
                    format!(
                        "`[{inner}]`: register {inner} of P{thread} holds no address (declare \
                         `{thread}:.reg .b64 {inner} = x;`)"
                    ),
                )
            })?
        } else if is_ident(inner) {
            inner.to_string()
        } else {
            return Err(err(at, format!("cannot read the address `[{inner}]`")));
        };
        out.push_str(&registers(&rest[..i], at, thread, regs)?);
        out.push('[');
        out.push_str(&loc);
        out.push(']');
        located = Some(loc);
        rest = &rest[i + j + 1..];
    }
    out.push_str(&registers(rest, at, thread, regs)?);
    match located {
        Some(l) => with_space(&out, &l, spaces, at),
        None => Ok(out),
    }
}

/// Renames predicate registers and refuses address registers used as values.
fn registers(text: &str, at: usize, thread: u32, regs: &[RegDecl]) -> Result<String, RawError> {
    let chars: Vec<char> = text.chars().collect();
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if !word_char(chars[i]) {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && word_char(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        // A qualifier (`.p`) or an already-marked register (`%r1`) is left alone.
        let marked = start > 0 && matches!(chars[start - 1], '.' | '%');
        if !marked && is_gpu_reg(&word) {
            if regs
                .iter()
                .any(|d| d.thread == thread && d.name == word && d.addr.is_some())
            {
                return Err(err(
                    at,
                    format!(
                        "register {word} of P{thread} holds an address and is used as a value; \
                         litmus locations have no numeric address"
                    ),
                ));
            }
            if word.starts_with('p') {
                out.push('%');
            }
        }
        out.push_str(&word);
    }
    Ok(out)
}

/// Adds the memory map's state space to a memory instruction, after its semantics and scope
/// qualifiers (the place PTX's grammar gives it).
fn with_space(text: &str, loc: &str, spaces: &Spaces, at: usize) -> Result<String, RawError> {
    let shared = spaces
        .iter()
        .find(|(n, _)| n == loc)
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            err(
                at,
                format!("location `{loc}` is not in the memory map (`{loc}: global`)"),
            )
        })?;
    let space = if shared { "shared" } else { "global" };
    let (guard, body) = match text.strip_prefix('@') {
        Some(r) => {
            let (g, b) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
            (format!("@{g} "), b.trim_start())
        }
        None => (String::new(), text),
    };
    let (op, operands) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let q: Vec<&str> = op.split('.').collect();
    let declared = q
        .iter()
        .find(|x| matches!(**x, "global" | "shared" | "local"));
    if let Some(d) = declared {
        if *d != space {
            return Err(err(
                at,
                format!("`{op}` accesses `{loc}` as .{d}, but the memory map puts it in {space}"),
            ));
        }
        return Ok(text.to_string());
    }
    let sem = [
        "weak", "volatile", "relaxed", "acquire", "release", "acq_rel", "mmio",
    ];
    let scopes = ["cta", "cluster", "gpu", "sys"];
    let keep = 1 + q[1..]
        .iter()
        .take_while(|x| sem.contains(x) || scopes.contains(x))
        .count();
    let mut parts: Vec<&str> = q[..keep].to_vec();
    parts.push(space);
    parts.extend_from_slice(&q[keep..]);
    Ok(format!("{guard}{} {operands}", parts.join(".")))
}

/// Refuses a shared location that threads of different CTAs use.
fn check_shared(
    code: &[Vec<(Inst, u32)>],
    threads: &[ThreadDecl],
    spaces: &Spaces,
    at: usize,
) -> Result<(), RawError> {
    for (loc, _) in spaces.iter().filter(|(_, s)| *s) {
        let needle = format!("[{loc}]");
        let users: Vec<&ThreadDecl> = threads
            .iter()
            .zip(code)
            .filter(|(_, c)| {
                c.iter()
                    .any(|(i, _)| matches!(i, Inst::Ptx(t) if t.contains(&needle)))
            })
            .map(|(t, _)| t)
            .collect();
        if let Some(w) = users
            .windows(2)
            .find(|w| (w[0].cta, w[0].gpu) != (w[1].cta, w[1].gpu))
        {
            return Err(err(
                at,
                format!(
                    "`{loc}` is in shared memory, but P{} and P{} are in different CTAs; each CTA \
                     has its own shared memory",
                    w[0].id, w[1].id
                ),
            ));
        }
    }
    Ok(())
}
