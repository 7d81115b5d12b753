//! The part of a GPU_PTX test after its instruction rows: the scope tree, the memory map and
//! the final condition, in any order (herd's files put the condition last, its logs first).

use super::{is_ident, Spaces};
use crate::ast::{Expr, Quantifier};
use crate::parse::{err, RawError};

/// Whether `t` starts a scope tree written without the `scopeTree` keyword: `(` and a level.
pub(super) fn starts_tree(t: &str) -> bool {
    t.strip_prefix('(').is_some_and(|r| {
        let w: String = r
            .trim_start()
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        [
            "device",
            "kernel",
            "grid",
            "cta",
            "block",
            "work_group",
            "warp",
            "sub_group",
        ]
        .contains(&w.as_str())
    })
}

/// What follows the instruction rows: scope tree, memory map and condition.
pub(super) struct Tail {
    pub(super) tree: String,
    pub(super) tree_pos: usize,
    pub(super) spaces: Spaces,
    pub(super) quantifier: Quantifier,
    pub(super) condition: Expr,
}

impl Tail {
    pub(super) fn read(s: &str, from: usize) -> Result<Tail, RawError> {
        let mut tree = None;
        let mut spaces = Vec::new();
        let mut cond = None;
        let mut pos = from;
        loop {
            let rest = &s[pos..];
            let t = rest.trim_start();
            if t.is_empty() {
                break;
            }
            pos += rest.len() - t.len();
            if let Some(r) = t
                .strip_prefix("scopeTree")
                .or_else(|| t.strip_prefix("ScopeTree"))
                .or_else(|| starts_tree(t).then_some(t))
            {
                pos += t.len() - r.len();
                let (text, used) = sexpr(&s[pos..], pos)?;
                match &mut tree {
                    // One tree per device: `(device …) (device …)`.
                    Some((all, _)) => {
                        let all: &mut String = all;
                        all.push(' ');
                        all.push_str(&text);
                    }
                    None => tree = Some((text, pos)),
                }
                pos += used;
            } else if let Some((q, r)) = quantifier(t) {
                pos += t.len() - r.len();
                // The condition runs to the next section (a scope tree or a memory map line).
                let end = section_end(&s[pos..]);
                let body = s[pos..pos + end].trim().trim_end_matches(';').trim();
                let e = if body == "true" {
                    Expr::True
                } else {
                    crate::cond::expr(body, pos)?
                };
                cond = Some((q, e));
                pos += end;
            } else {
                let end = section_end_map(t);
                for entry in t[..end].split([',', ';']) {
                    let e = entry.trim();
                    if e.is_empty() {
                        continue;
                    }
                    let (n, sp) = e.split_once(':').ok_or_else(|| {
                        err(pos, format!("cannot read `{e}` (expected `x: global`)"))
                    })?;
                    let shared = match sp.trim() {
                        "global" => false,
                        "shared" | "local" => true,
                        other => {
                            return Err(err(
                                pos,
                                format!("`{other}`: a memory map names global, shared or local"),
                            ))
                        }
                    };
                    spaces.push((n.trim().to_string(), shared));
                }
                pos += end;
            }
        }
        let (tree, tree_pos) =
            tree.ok_or_else(|| err(from, "a GPU_PTX test needs a scope tree (`scopeTree (…)`)"))?;
        let (quantifier, condition) = cond.ok_or_else(|| {
            err(
                from,
                "expected the final condition (exists, ~exists or forall)",
            )
        })?;
        Ok(Tail {
            tree,
            tree_pos,
            spaces,
            quantifier,
            condition,
        })
    }
}

pub(super) fn quantifier(t: &str) -> Option<(Quantifier, &str)> {
    for (k, q) in [
        ("~exists", Quantifier::NotExists),
        ("~ exists", Quantifier::NotExists),
        ("not exists", Quantifier::NotExists),
        ("exists", Quantifier::Exists),
        ("final", Quantifier::Exists),
        ("forall", Quantifier::Forall),
    ] {
        if let Some(r) = t.strip_prefix(k) {
            return Some((q, r));
        }
    }
    None
}

/// Where a condition ends: at a line that starts a scope tree or a memory map.
fn section_end(s: &str) -> usize {
    let mut at = 0;
    for line in s.split_inclusive('\n') {
        let t = line.trim_start();
        let next = t.starts_with("scopeTree")
            || t.starts_with("ScopeTree")
            || starts_tree(t)
            || is_map_line(t);
        if at > 0 && next {
            return at;
        }
        at += line.len();
    }
    s.len()
}

/// Where a memory map ends: at the end of its lines, before a condition or scope tree.
fn section_end_map(s: &str) -> usize {
    let mut at = 0;
    for line in s.split_inclusive('\n') {
        let t = line.trim_start();
        if at > 0 && !is_map_line(t) && !t.trim().is_empty() {
            return at;
        }
        at += line.len();
    }
    s.len()
}

fn is_map_line(t: &str) -> bool {
    t.split_once(':').is_some_and(|(n, rest)| {
        is_ident(n.trim())
            && ["global", "shared", "local"]
                .iter()
                .any(|k| rest.trim_start().starts_with(k))
    })
}

/// A balanced parenthesised expression at the start of `s` (after spaces): its text and the
/// bytes used.
fn sexpr(s: &str, at: usize) -> Result<(String, usize), RawError> {
    let lead = s.len() - s.trim_start().len();
    let mut depth = 0usize;
    for (i, c) in s[lead..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| err(at + lead + i, "unbalanced `)` in the scope tree"))?;
                if depth == 0 {
                    return Ok((s[lead..=lead + i].to_string(), lead + i + 1));
                }
            }
            _ if depth == 0 && !c.is_whitespace() => {
                return Err(err(at + lead + i, "a scope tree starts with `(`"))
            }
            _ => {}
        }
    }
    Err(err(at, "unterminated scope tree"))
}
