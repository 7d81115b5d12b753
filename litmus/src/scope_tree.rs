//! herd's GPU scope trees (ASPLOS'15 §4.1: `(device (kernel (cta (warp P0)) (cta (warp P1))))`)
//! read as litmus thread positions: GPU id, CTA id and warp (see [`crate::gpu_ptx`] for the
//! numbering rules). The PTX memory model has no warp scope; warps only matter on hardware.

use crate::ast::ThreadDecl;
use crate::parse::{err, RawError};

/// A level of the hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Device,
    Kernel,
    Cta,
    Warp,
}

/// A node: a level with children, or a thread.
#[derive(Debug)]
enum Node {
    Group(Level, Vec<Node>),
    Thread(u32),
}

/// Reads the trees of `text` (one or more, e.g. one per device); `at` is their byte offset.
fn nodes(text: &str, at: usize) -> Result<Vec<Node>, RawError> {
    let mut toks = Vec::new();
    let mut word = String::new();
    for (i, c) in text.char_indices() {
        if c == '(' || c == ')' || c.is_whitespace() {
            if !word.is_empty() {
                toks.push((std::mem::take(&mut word), at + i));
            }
            if !c.is_whitespace() {
                toks.push((c.to_string(), at + i));
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        toks.push((word, at + text.len()));
    }
    let mut k = 0;
    let mut out = Vec::new();
    while k < toks.len() {
        out.push(node(&toks, &mut k, 0)?);
    }
    Ok(out)
}

/// The deepest a scope tree may nest (a real one has four levels: device, kernel, CTA,
/// warp); reading and walking it recurse once per level.
const MAX_TREE_DEPTH: usize = 64;

fn node(toks: &[(String, usize)], k: &mut usize, depth: usize) -> Result<Node, RawError> {
    let (t, pos) = &toks[*k];
    *k += 1;
    if depth >= MAX_TREE_DEPTH {
        return Err(err(
            *pos,
            format!("the scope tree nests more than {MAX_TREE_DEPTH} levels (device, kernel, cta and warp make four)"),
        ));
    }
    if t != "(" {
        let id = t
            .strip_prefix('P')
            .or_else(|| t.strip_prefix('T'))
            .and_then(|d| d.parse::<u32>().ok())
            .ok_or_else(|| {
                err(
                    *pos,
                    format!("`{t}` in the scope tree is not a thread (P0, P1, …)"),
                )
            })?;
        return Ok(Node::Thread(id));
    }
    let (kw, kpos) = toks
        .get(*k)
        .ok_or_else(|| err(*pos, "unterminated scope tree"))?;
    *k += 1;
    let level = match kw.as_str() {
        "device" => Level::Device,
        "kernel" | "grid" => Level::Kernel,
        "cta" | "block" | "work_group" => Level::Cta,
        "warp" | "sub_group" => Level::Warp,
        other => {
            return Err(err(
                *kpos,
                format!("unknown level `{other}` in the scope tree (device, kernel, cta, warp)"),
            ))
        }
    };
    let mut children = Vec::new();
    loop {
        match toks.get(*k) {
            None => return Err(err(*pos, "unterminated scope tree")),
            Some((t, _)) if t == ")" => {
                *k += 1;
                return Ok(Node::Group(level, children));
            }
            Some(_) => children.push(node(toks, k, depth + 1)?),
        }
    }
}

/// Numbering state of the walk.
#[derive(Default)]
struct Counters {
    gpus: u32,
    ctas: u32,
    /// Position of each thread, by id.
    placed: Vec<Option<ThreadDecl>>,
}

/// Where a node sits.
#[derive(Clone, Copy)]
struct Ctx {
    gpu: Option<u32>,
    cta: Option<u32>,
    warp: Option<u32>,
}

fn walk(n: &Node, ctx: Ctx, c: &mut Counters, warps: &mut u32, at: usize) -> Result<(), RawError> {
    match n {
        Node::Thread(id) => {
            let slot = c.placed.get_mut(*id as usize).ok_or_else(|| {
                err(
                    at,
                    format!("the scope tree names P{id}, which the test lacks"),
                )
            })?;
            if slot.is_some() {
                return Err(err(at, format!("the scope tree names P{id} twice")));
            }
            let cta = match ctx.cta {
                Some(k) => k,
                None => {
                    c.ctas += 1;
                    c.ctas - 1
                }
            };
            *slot = Some(ThreadDecl {
                id: *id,
                cta,
                gpu: ctx.gpu.unwrap_or(0),
                warp: ctx.warp,
                cluster: None,
            });
        }
        Node::Group(level, children) => {
            let mut inner = ctx;
            let mut own_warps = 0u32;
            let warps = match level {
                Level::Device => {
                    inner = Ctx {
                        gpu: Some(c.gpus),
                        cta: None,
                        warp: None,
                    };
                    c.gpus += 1;
                    &mut own_warps
                }
                Level::Kernel => {
                    inner.cta = None;
                    inner.warp = None;
                    &mut own_warps
                }
                Level::Cta => {
                    inner.cta = Some(c.ctas);
                    inner.warp = None;
                    c.ctas += 1;
                    &mut own_warps
                }
                Level::Warp => {
                    if inner.cta.is_none() {
                        inner.cta = Some(c.ctas);
                        c.ctas += 1;
                    }
                    inner.warp = Some(*warps);
                    *warps += 1;
                    warps
                }
            };
            for ch in children {
                walk(ch, inner, c, warps, at)?;
            }
        }
    }
    Ok(())
}

/// The positions of threads `P0 … P(n-1)` from scope-tree text at byte offset `at`.
///
/// # Errors
/// A malformed tree, or a thread missing from it or named twice.
pub(crate) fn placement(text: &str, at: usize, n: u32) -> Result<Vec<ThreadDecl>, RawError> {
    let mut c = Counters {
        placed: vec![None; n as usize],
        ..Counters::default()
    };
    let top = Ctx {
        gpu: None,
        cta: None,
        warp: None,
    };
    let mut warps = 0u32;
    for node in nodes(text, at)? {
        walk(&node, top, &mut c, &mut warps, at)?;
    }
    c.placed
        .into_iter()
        .enumerate()
        .map(|(k, p)| p.ok_or_else(|| err(at, format!("the scope tree does not place P{k}"))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str, n: u32) -> Vec<(u32, u32, Option<u32>)> {
        placement(text, 0, n)
            .unwrap()
            .iter()
            .map(|t| (t.gpu, t.cta, t.warp))
            .collect()
    }

    #[test]
    fn trees_become_positions() {
        assert_eq!(
            pos("(device (kernel (cta (warp P0)) (cta (warp P1))))", 2),
            vec![(0, 0, Some(0)), (0, 1, Some(0))]
        );
        assert_eq!(
            pos("(device (cta (warp P0) (warp P1 P2)))", 3),
            vec![(0, 0, Some(0)), (0, 0, Some(1)), (0, 0, Some(1))]
        );
        assert_eq!(
            pos("(device (cta P0 P1) (cta P2))", 3),
            vec![(0, 0, None), (0, 0, None), (0, 1, None)]
        );
        assert_eq!(
            pos("(device P0) (device P1)", 2),
            vec![(0, 0, None), (1, 1, None)]
        );
        assert_eq!(
            pos("(grid (cta (warp T0) (warp T1)))", 2),
            vec![(0, 0, Some(0)), (0, 0, Some(1))]
        );
    }

    #[test]
    fn bad_trees_are_errors() {
        let e = |t: &str, n| placement(t, 0, n).unwrap_err().message;
        assert!(e("(device (cta P0))", 2).contains("does not place P1"));
        assert!(e("(device (cta P0 P0))", 1).contains("twice"));
        assert!(e("(device (team P0))", 1).contains("unknown level `team`"));
        assert!(e("(device (cta P0)", 1).contains("unterminated"));
        assert!(e("(device (cta P3))", 1).contains("lacks"));
    }
}
