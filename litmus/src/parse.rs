//! Reading PTX litmus files (litmus-format spec §1): the herd/Dat3M dialect the conformance
//! corpus uses, plus real PTX syntax in thread cells (`st.release.gpu.global.u32 [x], 1`).
//! One cell is read by `cell.rs`; a file that starts with `GPU_PTX` is herd's format, read by
//! [`crate::gpu_ptx`].
//!
//! Layout: `PTX name`, quoted comments, `{ init }`, a thread header row
//! (`P0@cta 0,gpu 0 | …;`), instruction rows (one cell per thread, `|`-separated, `;`-ended),
//! then optional `locations [..]` and `filter`, and the final condition.

use crate::ast::{Expr, Inst, Quantifier, Term, Test};
use crate::cell::cell;

mod address;
mod prologue;

use address::AddressReg;

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

impl RawError {
    /// The error with its offset in `src` turned into a line and column.
    pub(crate) fn located(self, src: &str) -> ParseError {
        let (line, col) = line_col(src, self.pos);
        ParseError {
            line,
            col,
            // The message may quote the file: escaped, and a line-sized quote cut short.
            message: emu::front::error::clipped(&self.message, MAX_MESSAGE_CHARS),
        }
    }
}

/// How many characters of a parse error's message are shown.
const MAX_MESSAGE_CHARS: usize = 400;

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
pub(crate) fn strip_comments(src: &str) -> String {
    // Without an opening `(*` or `<<` there is nothing to blank (most generated tests).
    if !src.contains("(*") && !src.contains("<<") {
        return src.to_string();
    }
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

/// How many threads a litmus test may have. Exploring grows factorially with the threads,
/// published GPU tests use at most 8, and the bound keeps every per-thread structure small.
pub const MAX_THREADS: usize = 64;

/// The refusal of a thread header row with more than [`MAX_THREADS`] threads.
pub(crate) fn too_many_threads(pos: usize) -> RawError {
    err(
        pos,
        format!("a litmus test has at most {MAX_THREADS} threads; this header row has more"),
    )
}

/// Parses a litmus test: the dialect, or herd's GPU_PTX format (see [`crate::gpu_ptx`]) when
/// the file starts with `GPU_PTX`.
///
/// # Errors
/// The first problem found, with its line.
pub fn parse(src: &str) -> Result<Test, ParseError> {
    if src.trim_start().starts_with("GPU_PTX") {
        return crate::gpu_ptx::parse(src);
    }
    let clean = strip_comments(src);
    parse_clean(&clean).map_err(|e| e.located(&clean))
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
    let (name, comments) = prologue::header(&mut t)?;
    let prologue::InitialState {
        locations,
        reg_init,
        addresses,
    } = prologue::initial_state(&mut t)?;
    t.skip_ws();
    if t.rest().starts_with(';') {
        t.pos += 1;
    }
    let threads = prologue::thread_header(&mut t)?;
    let code = instruction_rows(&mut t, clean, threads.len(), &addresses)?;
    let (observed, filter) = locations_and_filter(&mut t)?;
    let (quantifier, condition) = final_condition(&mut t)?;
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

/// The instruction rows, one cell per thread, up to the first keyword of the tail: each
/// thread's instructions with their lines, with the registers that hold addresses resolved
/// (`[r2]` → `[x]`).
fn instruction_rows(
    t: &mut Text<'_>,
    clean: &str,
    nthreads: usize,
    addresses: &[AddressReg],
) -> Result<Vec<Vec<(Inst, u32)>>, RawError> {
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
            let text = address::resolve(c, k as u32, addresses, cell_pos)?;
            for i in cell(&text, cell_pos)? {
                code[k].push((i, cell_line));
            }
        }
    }
    Ok(code)
}

/// The optional `locations [ … ]` and `filter …` sections, in either order.
fn locations_and_filter(t: &mut Text<'_>) -> Result<(Vec<Term>, Option<Expr>), RawError> {
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
            let body = filter_text(t);
            filter = Some(crate::cond::expr(&body, line)?);
            continue;
        }
        break;
    }
    Ok((observed, filter))
}

/// The final condition: its quantifier and expression (`exists (true)` when there is none).
fn final_condition(t: &mut Text<'_>) -> Result<(Quantifier, Expr), RawError> {
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
    Ok((quantifier, condition))
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

    #[test]
    fn more_threads_than_the_bound_are_refused_in_both_dialects() {
        // Issue 23: 200 and 1,000 one-store threads once overflowed the stack.
        for n in [MAX_THREADS + 1, 200, 1000] {
            let heads: Vec<String> = (0..n).map(|i| format!("P{i}@cta {i},gpu 0")).collect();
            let body = vec!["st.relaxed.gpu x, 1"; n].join(" | ");
            let src = format!(
                "PTX T\n{{ x=0; }}\n {} ;\n {body} ;\nexists (x == 1)\n",
                heads.join(" | ")
            );
            let e = parse(&src).unwrap_err();
            assert!(e.message.contains("at most 64 threads"), "{e}");
            assert_eq!(e.line, 3);
            let names: Vec<String> = (0..n).map(|i| format!("P{i}")).collect();
            let body = vec!["st.u32 [x], 1"; n].join(" | ");
            let src = format!(
                "GPU_PTX T\n{{ x=0; }}\n {} ;\n {body} ;\nexists (x == 1)\n",
                names.join(" | ")
            );
            let e = parse(&src).unwrap_err();
            assert!(e.message.contains("at most 64 threads"), "{e}");
        }
        let heads: Vec<String> = (0..MAX_THREADS)
            .map(|i| format!("P{i}@cta {i},gpu 0"))
            .collect();
        let body = vec!["st.relaxed.gpu x, 1"; MAX_THREADS].join(" | ");
        let src = format!(
            "PTX T\n{{ x=0; }}\n {} ;\n {body} ;\nexists (x == 1)\n",
            heads.join(" | ")
        );
        assert_eq!(parse(&src).unwrap().threads.len(), MAX_THREADS);
    }
    use crate::ast::{LocDecl, Mo, ThreadDecl};
    use models::vocab::{Proxy, Scope};

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
                gpu: 0,
                warp: None,
                cluster: None,
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
