//! Reading a cycle: edges separated by spaces (or commas outside brackets), each a diy7 edge
//! name with optional PTX annotations of its ends in brackets and, on an external edge, a
//! placement after `@`:
//!
//! ```text
//! edge   := base ( "[" ann? ( "," ann? )? "]" )? ( "@" scope )?
//! base   := Rfe | Rfi | Fre | Fri | Coe | Coi | Wse | Wsi | Rmw
//!         | Pod DIR DIR | Pos DIR DIR
//!         | Dp (Addr | Data | Ctrl) (d | s) DIR
//!         | Fence . (sc | acq_rel | acquire | release) [ . scope ] (d | s) DIR DIR
//! ann    := sem [ . scope ] [ . proxy ]
//! sem    := w | weak | vol | volatile | rlx | relaxed | acq | acquire | rel | release | *
//! scope  := cta | cluster | gpu | sys | *
//! proxy  := generic | tex | texture | sur | surface | const | constant
//! ```
//!
//! `[A]` annotates both ends with `A`; `[A,]` the source only; `[,B]` the target only. A
//! strong access names its scope; a weak or volatile one does not. In a template (what
//! `ptxemu diy --cycle` and the enumeration read), `*` leaves a semantics, a scope or a
//! placement (`@*`) open, and a fence may leave out its scope: each is filled with every
//! value the enumeration is given. Every error names the 1-based column of the bad token (or
//! of the bad part inside it).

use models::vocab::{FenceSem, Proxy, Scope};

use super::edge::{proxy_word, Com, Dep, Dir, Edge, EdgeKind, Loc, Reach};
use super::pattern::{AnnPattern, EdgePattern, Pick, SemKind};

/// A malformed cycle: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("column {col}: {message}")]
pub struct CycleError {
    /// The 1-based column (in characters) of the bad token or part.
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

impl CycleError {
    /// An error at `col`.
    pub fn at(col: usize, message: impl Into<String>) -> CycleError {
        CycleError {
            col,
            message: message.into(),
        }
    }

    /// The error under the cycle it is about: the message, the cycle, and a caret under the
    /// bad column.
    pub fn render(&self, cycle: &str) -> String {
        let pad = " ".repeat(self.col.saturating_sub(1));
        format!("{self}\n  {cycle}\n  {pad}^")
    }
}

/// One edge as written, with the column of its first character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// The edge.
    pub edge: Edge,
    /// Its 1-based column.
    pub col: usize,
}

/// One edge of a template as written, with the column of its first character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrittenPattern {
    /// The edge.
    pub edge: EdgePattern,
    /// Its 1-based column.
    pub col: usize,
}

/// Reads a cycle: a template with nothing left open.
///
/// # Errors
/// The first malformed token, with its column; a `*`; an empty text.
pub fn parse_edges(text: &str) -> Result<Vec<Written>, CycleError> {
    parse_patterns(text)?
        .into_iter()
        .map(|w| {
            let edge = w.edge.concrete().ok_or_else(|| {
                let k = text
                    .chars()
                    .skip(w.col - 1)
                    .position(|c| c == '*')
                    .unwrap_or(0);
                CycleError::at(
                    w.col + k,
                    "`*` leaves a choice open, which only an enumeration fills (ptxemu diy --cycle with --sems, --scopes and --placements)",
                )
            })?;
            Ok(Written { edge, col: w.col })
        })
        .collect()
}

/// Reads a cycle template (or an enumeration's alphabet of edges).
///
/// # Errors
/// The first malformed token, with its column; an empty text.
pub fn parse_patterns(text: &str) -> Result<Vec<WrittenPattern>, CycleError> {
    let tokens = tokens(text)?;
    if tokens.is_empty() {
        return Err(CycleError::at(
            1,
            "no edge: write a cycle such as `PodWW Rfe PodRR Fre`",
        ));
    }
    tokens
        .into_iter()
        .map(|(col, tok)| {
            Ok(WrittenPattern {
                edge: edge(&tok, col)?,
                col,
            })
        })
        .collect()
}

/// The tokens of `text` with their columns: separated by whitespace, or by commas outside
/// brackets.
fn tokens(text: &str) -> Result<Vec<(usize, String)>, CycleError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut depth = 0usize;
    let mut open_at = 0;
    for (k, c) in text.chars().enumerate() {
        let col = k + 1;
        let separates = c.is_whitespace() || (c == ',' && depth == 0);
        if separates {
            if depth > 0 {
                return Err(CycleError::at(
                    open_at,
                    "unterminated `[`: an annotation holds no spaces",
                ));
            }
            if !cur.is_empty() {
                out.push((start, std::mem::take(&mut cur)));
            }
            continue;
        }
        if cur.is_empty() {
            start = col;
        }
        match c {
            '[' => {
                if depth > 0 {
                    return Err(CycleError::at(col, "`[` inside an annotation"));
                }
                depth = 1;
                open_at = col;
            }
            ']' => {
                if depth == 0 {
                    return Err(CycleError::at(col, "`]` without its `[`"));
                }
                depth = 0;
            }
            _ => {}
        }
        cur.push(c);
    }
    if depth > 0 {
        return Err(CycleError::at(open_at, "unterminated `[`"));
    }
    if !cur.is_empty() {
        out.push((start, cur));
    }
    Ok(out)
}

const EXPECTED: &str = "expected an edge: Rfe, Rfi, Fre, Fri, Coe, Coi, PodXY, PosXY, DpAddrdY, DpDatadW, DpCtrldY, Fence.SEM.SCOPEdXY or Rmw (X, Y: R or W)";

/// A direction letter at byte `i` of `s`.
fn dir_at(s: &str, i: usize) -> Option<Dir> {
    match s.as_bytes().get(i) {
        Some(b'W') => Some(Dir::W),
        Some(b'R') => Some(Dir::R),
        _ => None,
    }
}

fn loc_at(s: &str, i: usize) -> Option<Loc> {
    match s.as_bytes().get(i) {
        Some(b'd') => Some(Loc::Different),
        Some(b's') => Some(Loc::Same),
        _ => None,
    }
}

/// The base of a token: the edge kind and how many bytes it takes.
fn base(tok: &str, col: usize) -> Result<(EdgeKind, usize), CycleError> {
    let bad = |msg: String| CycleError::at(col, msg);
    let com = |c: Com, r: Reach| Ok((EdgeKind::Com(c, r), 3));
    let head: String = tok.chars().take(3).collect();
    match head.as_str() {
        "Rfe" => return com(Com::Rf, Reach::External),
        "Rfi" => return com(Com::Rf, Reach::Internal),
        "Fre" => return com(Com::Fr, Reach::External),
        "Fri" => return com(Com::Fr, Reach::Internal),
        "Coe" | "Wse" => return com(Com::Co, Reach::External),
        "Coi" | "Wsi" => return com(Com::Co, Reach::Internal),
        "Rmw" => return Ok((EdgeKind::Rmw, 3)),
        "Pod" | "Pos" => {
            let l = if head == "Pod" {
                Loc::Different
            } else {
                Loc::Same
            };
            return match (dir_at(tok, 3), dir_at(tok, 4)) {
                (Some(a), Some(b)) => Ok((EdgeKind::Po(l, a, b), 5)),
                _ => Err(bad(format!(
                    "`{tok}`: {head} takes two directions, as in {head}WR"
                ))),
            };
        }
        _ => {}
    }
    if let Some(rest) = tok.strip_prefix("Dp") {
        let dep = [
            ("Addr", Dep::Addr),
            ("Data", Dep::Data),
            ("Ctrl", Dep::Ctrl),
        ]
        .into_iter()
        .find(|(n, _)| rest.starts_with(n))
        .map(|(_, d)| d)
        .ok_or_else(|| bad(format!("`{tok}`: a dependency is DpAddr, DpData or DpCtrl")))?;
        let at = 2 + 4;
        let (Some(l), Some(t)) = (loc_at(tok, at), dir_at(tok, at + 1)) else {
            return Err(bad(format!(
                "`{tok}`: a dependency goes on with d (another location) or s (the same) and the target's direction, as in DpDatadW"
            )));
        };
        if dep == Dep::Data && t == Dir::R {
            return Err(bad(format!(
                "`{tok}`: a data dependency ends at a write (DpData{}W)",
                if l == Loc::Same { 's' } else { 'd' }
            )));
        }
        return Ok((EdgeKind::Dp(dep, l, t), at + 2));
    }
    if let Some(rest) = tok.strip_prefix("Fence.") {
        let sems = [
            ("acq_rel", FenceSem::AcqRel),
            ("acquire", FenceSem::Acquire),
            ("release", FenceSem::Release),
            ("sc", FenceSem::Sc),
        ];
        let (name, sem) = sems
            .into_iter()
            .find(|(n, _)| rest.starts_with(n))
            .ok_or_else(|| {
                bad(format!(
                    "`{tok}`: a fence is Fence.sc, Fence.acq_rel, Fence.acquire or Fence.release"
                ))
            })?;
        let mut at = "Fence.".len() + name.len();
        let mut scope = None;
        if tok[at..].starts_with('.') {
            let after = &tok[at + 1..];
            let s = Scope::ALL
                .into_iter()
                .find(|s| after.starts_with(s.name()))
                .ok_or_else(|| {
                    bad(format!(
                        "`{tok}`: the fence's scope is cta, cluster, gpu or sys"
                    ))
                })?;
            at += 1 + s.name().len();
            scope = Some(s);
        }
        let (Some(l), Some(a), Some(b)) =
            (loc_at(tok, at), dir_at(tok, at + 1), dir_at(tok, at + 2))
        else {
            return Err(bad(format!(
                "`{tok}`: a fence edge ends with d or s and two directions, as in Fence.sc.gpudWR"
            )));
        };
        return Ok((EdgeKind::Fence(sem, scope, l, a, b), at + 3));
    }
    Err(bad(format!("`{tok}`: {EXPECTED}")))
}

/// One token: base, annotations, placement.
fn edge(tok: &str, col: usize) -> Result<EdgePattern, CycleError> {
    if !tok.is_ascii() {
        let k = tok.chars().position(|c| !c.is_ascii()).unwrap_or(0);
        return Err(CycleError::at(
            col + k,
            format!("`{tok}`: unexpected character"),
        ));
    }
    let (kind, mut at) = base(tok, col)?;
    let mut e = EdgePattern::plain(kind);
    if tok[at..].starts_with('[') {
        let close = tok[at..]
            .find(']')
            .map(|k| at + k)
            .ok_or_else(|| CycleError::at(col + at, format!("`{tok}`: unterminated `[`")))?;
        let inner = &tok[at + 1..close];
        let parts: Vec<&str> = inner.split(',').collect();
        let ann_at =
            |k: usize| col + at + 1 + parts[..k].iter().map(|p| p.len() + 1).sum::<usize>();
        let read = |k: usize| -> Result<Option<AnnPattern>, CycleError> {
            if parts[k].is_empty() {
                Ok(None)
            } else {
                annotation(parts[k], ann_at(k)).map(Some)
            }
        };
        match parts.len() {
            1 if inner.is_empty() => {
                return Err(CycleError::at(
                    col + at,
                    format!("`{tok}`: empty annotation `[]`"),
                ));
            }
            1 => {
                let a = read(0)?;
                e.src = a;
                e.tgt = a;
            }
            2 => {
                e.src = read(0)?;
                e.tgt = read(1)?;
            }
            _ => {
                return Err(CycleError::at(
                    ann_at(2) - 1,
                    format!("`{tok}`: an edge has two ends, so at most two annotations"),
                ));
            }
        }
        for (end, dir, ann) in [("source", kind.src(), e.src), ("target", kind.tgt(), e.tgt)] {
            if let Some(a) = ann {
                fits(a, dir, kind, end)
                    .map_err(|m| CycleError::at(col + at, format!("`{tok}`: {m}")))?;
            }
        }
        at = close + 1;
    }
    if let Some(p) = tok[at..].strip_prefix('@') {
        let place = if p == "*" {
            Pick::Each
        } else {
            Pick::One(Scope::from_name(p).ok_or_else(|| {
                CycleError::at(
                    col + at,
                    format!("`{tok}`: a placement is @cta, @cluster, @gpu or @sys (the narrowest scope holding both threads), or @* for each"),
                )
            })?)
        };
        if !kind.is_external() {
            return Err(CycleError::at(
                col + at,
                format!(
                    "`{tok}`: only an external edge joins two threads, so only it has a placement"
                ),
            ));
        }
        e.place = Some(place);
        at = tok.len();
    }
    if at != tok.len() {
        return Err(CycleError::at(
            col + at,
            format!(
                "`{tok}`: unexpected `{}` after `{}`",
                &tok[at..],
                &tok[..at]
            ),
        ));
    }
    Ok(e)
}

/// Whether annotation `a` can suit an end of direction `d` of an edge of kind `kind` (an open
/// semantics always can: the enumeration keeps the ones that suit).
pub(super) fn fits(a: AnnPattern, d: Dir, kind: EdgeKind, end: &str) -> Result<(), String> {
    let Pick::One(k) = a.sem else {
        return Ok(());
    };
    if !k.at(Scope::Gpu).fits(d) {
        let what = match d {
            Dir::W => "a write",
            Dir::R => "a read",
        };
        return Err(format!(
            "the {end} is {what}, which cannot be `{}`",
            k.word()
        ));
    }
    if matches!(a.proxy, Proxy::Texture | Proxy::Constant) && d == Dir::W {
        return Err(format!(
            "the {end} is a write, and the {} proxy only reads",
            proxy_word(a.proxy)
        ));
    }
    if kind == EdgeKind::Rmw {
        if matches!(k, SemKind::Weak | SemKind::Volatile) {
            return Err(format!(
                "the {end} belongs to an atom, which is never `{}`",
                k.word()
            ));
        }
        if matches!(a.proxy, Proxy::Texture | Proxy::Constant) {
            return Err(format!(
                "the {end} belongs to an atom, which no {} access can be",
                proxy_word(a.proxy)
            ));
        }
    }
    Ok(())
}

/// One annotation, `rel.gpu`, `w.sur`, `acq.*` or `*`, starting at column `col`.
fn annotation(s: &str, col: usize) -> Result<AnnPattern, CycleError> {
    let parts: Vec<&str> = s.split('.').collect();
    let bad = |k: usize, m: String| {
        let off: usize = parts[..k].iter().map(|p| p.len() + 1).sum();
        CycleError::at(col + off, m)
    };
    let word = parts[0];
    let sem = if word == "*" {
        Pick::Each
    } else {
        Pick::One(SemKind::from_word(word).ok_or_else(|| {
            bad(
                0,
                format!("`{word}`: an access is w, vol, rlx.SCOPE, acq.SCOPE or rel.SCOPE (or * for each)"),
            )
        })?)
    };
    let written_scope = match parts.get(1) {
        Some(&"*") => Some(Pick::Each),
        Some(p) => Scope::from_name(p).map(Pick::One),
        None => None,
    };
    let mut k = 1;
    let scope = match (sem, written_scope) {
        (Pick::One(kind), Some(sc)) if !kind.scoped() => {
            let name = match sc {
                Pick::One(s) => s.name(),
                Pick::Each => "*",
            };
            return Err(bad(
                1,
                format!("`{word}.{name}`: a {} access has no scope", kind.word()),
            ));
        }
        (Pick::One(kind), None) if kind.scoped() => {
            if let Some(p) = parts.get(1) {
                return Err(bad(
                    1,
                    format!("`{p}` is not a scope: cta, cluster, gpu, sys or *"),
                ));
            }
            return Err(bad(
                0,
                format!("`{s}`: `{word}` needs a scope: {word}.cta, {word}.cluster, {word}.gpu, {word}.sys or {word}.*"),
            ));
        }
        (_, Some(sc)) => {
            k = 2;
            sc
        }
        (Pick::Each, None) => Pick::Each,
        (Pick::One(_), None) => Pick::One(Scope::Gpu),
    };
    let mut proxy = Proxy::Generic;
    if let Some(p) = parts.get(k) {
        proxy = match *p {
            "generic" => Proxy::Generic,
            "tex" | "texture" => Proxy::Texture,
            "sur" | "surface" => Proxy::Surface,
            "const" | "constant" => Proxy::Constant,
            _ => {
                return Err(bad(
                    k,
                    format!("`{p}`: a proxy is generic, tex, sur or const"),
                ))
            }
        };
        k += 1;
    }
    if k < parts.len() {
        return Err(bad(
            k,
            format!("`{s}`: unexpected `.{}`", parts[k..].join(".")),
        ));
    }
    Ok(AnnPattern { sem, scope, proxy })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diy::edge::cycle_text;

    fn edges(s: &str) -> Vec<Edge> {
        parse_edges(s)
            .unwrap()
            .into_iter()
            .map(|w| w.edge)
            .collect()
    }

    #[test]
    fn the_classic_spellings_read_and_print_back() {
        for s in [
            "PodWW Rfe PodRR Fre",
            "Rfe PodRW Rfe PodRR Fre",
            "DpDatadW Rfe DpCtrldR Fre",
            "Fence.sc.gpudWR Fre@cta Fence.acq_rel.sysdWR Fre@sys",
            "PodWW[rlx.gpu,rel.gpu] Rfe@gpu PodRR[acq.gpu,rlx.gpu] Fre@gpu",
            "Rfe Rmw[acq.cta,rel.cta] Coe",
            "PodWR[w.sur,vol] Fre Rfi Fri PosRR Coi",
        ] {
            assert_eq!(cycle_text(&edges(s)), s);
        }
        assert_eq!(cycle_text(&edges("Wse Wsi")), "Coe Coi");
        assert_eq!(
            cycle_text(&edges("PodWW[relaxed.gpu] Rfe")),
            "PodWW[rlx.gpu] Rfe"
        );
    }

    #[test]
    fn a_malformed_cycle_names_the_column_of_the_bad_token() {
        let cases = [
            ("PodWW Rfx PodRR", 7, "expected an edge"),
            ("PodWW Rfe PodQR Fre", 11, "two directions"),
            ("PodWW[rlx] Rfe", 7, "needs a scope"),
            ("PodWW[rlx.warp] Rfe", 11, "`warp` is not a scope"),
            ("PodWW[rlx.gpu,acq.gpu] Rfe", 6, "cannot be `acq`"),
            ("PodWW[w.gpu] Rfe", 9, "has no scope"),
            ("PodWW Rfe@warp", 10, "placement"),
            ("PodWW@cta Rfe", 6, "only an external edge"),
            ("PodWW Rfe[rlx.gpu", 10, "unterminated"),
            ("Fence.sc.gpuxWR Fre", 1, "ends with d or s"),
            ("Fence.full.gpudWR", 1, "Fence.sc"),
            ("DpDatadR Fre", 1, "ends at a write"),
            ("Rmw[w,rlx.gpu] Coe", 4, "never `w`"),
            ("PodWWx Rfe", 6, "unexpected `x`"),
            ("PodWW[rlx.gpu,rel.gpu,acq.gpu] Rfe", 22, "at most two"),
            ("", 1, "no edge"),
        ];
        for (text, col, why) in cases {
            let e = parse_edges(text).unwrap_err();
            assert_eq!(e.col, col, "{text}: {e}");
            assert!(e.message.contains(why), "{text}: {e}");
        }
        let e = parse_edges("PodWW Rfx").unwrap_err();
        assert_eq!(e.render("PodWW Rfx").lines().last().unwrap(), "        ^");
    }

    #[test]
    fn templates_leave_choices_open_and_cycles_refuse_them() {
        let t = parse_patterns("PodWW[w,rel.*] Rfe@* PodRR[*,w] Fre Fence.scdWR").unwrap();
        assert_eq!(t[0].edge.tgt.unwrap().scope, Pick::Each);
        assert_eq!(t[1].edge.place, Some(Pick::Each));
        assert_eq!(t[2].edge.src.unwrap().sem, Pick::Each);
        let e = parse_edges("PodWW[w,rel.*] Rfe").unwrap_err();
        assert_eq!(e.col, 13, "{e}");
        assert!(e.message.contains("leaves a choice open"), "{e}");
    }
}
