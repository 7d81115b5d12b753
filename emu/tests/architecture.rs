//! The structure docs/architecture.md describes, held against the code:
//!
//! 1. no import circle among the files of `emu/src` is larger than [`MAX_CIRCLE`] files
//!    (imports read as text, as the team's cycle script reads them: `crate::…`, `super::…` and
//!    `self::…` paths, each resolved to the longest module prefix that is a file);
//! 2. no file of instruction-execution code names a checker: the instructions report to the
//!    hooks (`exec/hooks`), and only the hooks reach the race detector, the nc check, the L1
//!    model, the proxy checker and (outside the tcgen05 family) Tensor Memory's visibility
//!    checks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The largest import circle allowed (one instruction family's files may import each other).
const MAX_CIRCLE: usize = 8;

/// Every `.rs` file under `dir`, as (path relative to `root`, text).
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable source folder")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&p).expect("readable source file");
            out.push((rel, text));
        }
    }
}

/// The module path of a file (`exec/step/mem.rs` → `exec::step::mem`; `mod.rs` and `lib.rs`
/// name their folder).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text without `//` comments (to the end of the line, as the cycle script strips them).
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path that starts with `crate`, `super` or `self` followed by `::ident` segments.
fn paths(text: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let boundary = i == 0 || !is_ident(chars[i - 1]);
        if !boundary || !chars[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && is_ident(chars[j]) {
            j += 1;
        }
        let word: String = chars[i..j].iter().collect();
        if !matches!(word.as_str(), "crate" | "super" | "self") {
            i = j;
            continue;
        }
        let mut segs = vec![word];
        let mut k = j;
        while k + 2 < chars.len()
            && chars[k] == ':'
            && chars[k + 1] == ':'
            && (chars[k + 2].is_ascii_alphabetic() || chars[k + 2] == '_')
        {
            let mut e = k + 2;
            while e < chars.len() && is_ident(chars[e]) {
                e += 1;
            }
            segs.push(chars[k + 2..e].iter().collect());
            k = e;
        }
        if segs.len() > 1 {
            out.push(segs);
        }
        i = k.max(j);
    }
    out
}

/// The import graph: file → the files its paths resolve to.
fn import_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mods: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|(rel, _)| (module_of(rel), rel.clone()))
        .collect();
    let resolve = |path: &[String]| -> Option<&String> {
        (1..=path.len()).rev().find_map(|n| mods.get(&path[..n]))
    };
    let mut edges = BTreeMap::new();
    for (rel, text) in files {
        let me = module_of(rel);
        let mut to = BTreeSet::new();
        for segs in paths(&strip_comments(text)) {
            let mut base = match segs[0].as_str() {
                "crate" => Vec::new(),
                _ => me.clone(),
            };
            let mut k = 0;
            while k < segs.len() && segs[k] == "super" {
                base.pop();
                k += 1;
            }
            if segs[0] != "super" {
                k = 1;
            }
            let full: Vec<String> = base.into_iter().chain(segs[k..].iter().cloned()).collect();
            if let Some(t) = resolve(&full) {
                if t != rel {
                    to.insert(t.clone());
                }
            }
        }
        edges.insert(rel.clone(), to);
    }
    edges
}

/// The strongly connected components of the graph (Tarjan, iteratively).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let names: Vec<&String> = edges.keys().collect();
    let index_of: BTreeMap<&String, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            edges[*n]
                .iter()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let n = names.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on, mut stack, mut comps, mut next) = (vec![false; n], Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = adj[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp.push(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                comp.sort();
                comps.push(comp);
            }
        }
    }
    comps.retain(|c| c.len() > 1);
    comps.sort_by_key(|c| std::cmp::Reverse(c.len()));
    comps
}

fn emu_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    files
}

#[test]
fn no_import_circle_exceeds_one_family() {
    let files = emu_sources();
    assert!(files.len() > 100, "found only {} source files", files.len());
    let edges = import_graph(&files);
    let comps = circles(&edges);
    let too_big: Vec<String> = comps
        .iter()
        .filter(|c| c.len() > MAX_CIRCLE)
        .map(|c| format!("{} files: {}", c.len(), c.join(", ")))
        .collect();
    assert!(
        too_big.is_empty(),
        "import circles larger than {MAX_CIRCLE} files (one of them holds something that belongs \
         in a module of its own; docs/architecture.md):\n{}",
        too_big.join("\n")
    );
}

/// Whether a file is instruction-execution code: it executes against the interpreter's
/// context (`Ctx<'_>`), and is neither the context itself, the hooks, nor the decoded program.
fn executes_instructions(rel: &str, text: &str) -> bool {
    let excluded = rel == "exec/ctx.rs"
        || rel.starts_with("exec/hooks/")
        || rel.starts_with("exec/program/")
        || rel.starts_with("race/");
    if excluded {
        return false;
    }
    let t = strip_comments(text);
    t.match_indices("Ctx<'_>")
        .any(|(i, _)| i == 0 || !t[..i].ends_with(is_ident))
}

/// The checker a piece of instruction code names, if any (`family`: the file's top folder;
/// the tcgen05 family may use its own Tensor Memory model's checks).
fn names_checker(code: &str, family: &str) -> Option<&'static str> {
    let t = strip_comments(code);
    let word = |w: &str| {
        t.match_indices(w).any(|(i, _)| {
            // A field (`.race`) follows any expression; a name must start a word.
            let before = t[..i].chars().next_back();
            let after = t[i + w.len()..].chars().next();
            (w.starts_with('.') || !before.is_some_and(is_ident)) && !after.is_some_and(is_ident)
        })
    };
    const PATTERNS: [(&str, &str); 9] = [
        ("race::", "the race detector"),
        ("CtaRace", "the race detector"),
        ("nc_check", "the nc check"),
        ("NcTracker", "the nc check"),
        ("L1System", "the L1 model"),
        ("exec::l1", "the L1 model"),
        ("proxy_check", "the proxy checker"),
        ("ProxyState", "the proxy checker"),
        (".tma.", "the proxy checker's state"),
    ];
    // A pattern must start a word (`trace::` is no `race::`), unless it starts with `.`.
    let starts = |w: &str| {
        t.match_indices(w)
            .any(|(i, _)| w.starts_with('.') || !t[..i].chars().next_back().is_some_and(is_ident))
    };
    for (p, what) in PATTERNS {
        if starts(p) {
            return Some(what);
        }
    }
    if word(".race") {
        return Some("the race detector");
    }
    if word(".obs") {
        return Some("the observers");
    }
    if family != "tcgen05"
        && ["observe", "async_writes", "mma_track"]
            .iter()
            .any(|w| word(w))
    {
        return Some("Tensor Memory's visibility checks");
    }
    None
}

#[test]
fn the_checker_names_are_recognised() {
    assert_eq!(
        names_checker("if c.race.is_some() {}", "exec"),
        Some("the race detector")
    );
    assert_eq!(
        names_checker("use crate::race::cta::Access;", "exec"),
        Some("the race detector")
    );
    assert_eq!(
        names_checker("if let Some(t) = c.obs.nc {}", "exec"),
        Some("the observers")
    );
    assert_eq!(
        names_checker("c.asyncs.tma.commit(t);", "tma"),
        Some("the proxy checker's state")
    );
    assert_eq!(
        names_checker("crate::exec::l1::L1Use", "exec"),
        Some("the L1 model")
    );
    assert_eq!(
        names_checker("tm.observe.waited(t, off, ph);", "async_copy"),
        Some("Tensor Memory's visibility checks")
    );
    assert_eq!(
        names_checker("tm.observe.waited(t, off, ph);", "tcgen05"),
        None
    );
    assert_eq!(
        names_checker("c.after_read(&loc, l, 4, m.nc); // c.race", "exec"),
        None
    );
    assert_eq!(
        names_checker("let trace = c.tmem_opts.trace;", "tcgen05"),
        None
    );
}

#[test]
fn instruction_code_names_no_checker() {
    let files = emu_sources();
    let exec: Vec<&(String, String)> = files
        .iter()
        .filter(|(rel, text)| executes_instructions(rel, text))
        .collect();
    let names: Vec<&str> = exec.iter().map(|(r, _)| r.as_str()).collect();
    assert!(
        names.contains(&"exec/step/mem.rs") && names.contains(&"tcgen05/exec/mma.rs"),
        "the instruction-execution files were not found: {names:?}"
    );
    let offenders: Vec<String> = exec
        .iter()
        .filter_map(|(rel, text)| {
            let family = rel.split('/').next().unwrap_or("");
            names_checker(text, family).map(|what| format!("{rel} names {what}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "instruction code must report to the hooks (emu/src/exec/hooks), not call a checker:\n{}",
        offenders.join("\n")
    );
}
