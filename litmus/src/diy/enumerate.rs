//! Enumerations: the cycles a template stands for, and the critical cycles over an alphabet
//! of edges.
//!
//! A template's open choices (`*`, `@*`, a fence without a scope) are filled with each value
//! given, in order; each resulting cycle is checked ([`Cycle::new`]) and kept once, by its
//! canonical text. Instances that describe no test (an atom's halves at different scopes,
//! placements that contradict each other, a read-only proxy on a write) are left out and
//! counted.
//!
//! The critical cycles over an alphabet (diy7's generation) are the sequences of its edges,
//! up to `max_edges` long and with two to `max_threads` external edges, in which:
//! 1. each edge starts where the previous one ends (a read or a write), all around;
//! 2. no two program-order edges (`Po*`, `Dp*`, `Fence*`) follow each other (they compose
//!    into one);
//! 3. no two communication edges follow each other whose composition is itself one
//!    communication edge: `Co;Co` and `Fr;Co` (coherence and from-reads are transitive), and
//!    `Rf;Fr` (a coherence edge);
//! 4. the location changes never or at least twice, and no location is accessed more than
//!    three times (Shasha and Snir's critical cycles access a location at most three times);
//!
//! each counted once up to rotation, as diy7 does: a cycle and its rotations are one test.
//! Reflections are different tests (the edges change meaning), and so are cycles that differ
//! only in annotations or placements.

use std::collections::HashSet;

use models::vocab::Scope;

use super::cycle::Cycle;
use super::edge::{Com, Dir, Edge, EdgeKind};
use super::pattern::{AnnPattern, EdgePattern, Pick, SemKind};
use super::syntax::{CycleError, Written, WrittenPattern};

/// What the open choices of a template are filled with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choices {
    /// Semantics for `*` (those that do not suit an access are skipped for it).
    pub sems: Vec<SemKind>,
    /// Scopes for `.*` and for fences without a scope.
    pub scopes: Vec<Scope>,
    /// Placements for `@*`.
    pub placements: Vec<Scope>,
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            sems: vec![
                SemKind::Weak,
                SemKind::Relaxed,
                SemKind::Acquire,
                SemKind::Release,
            ],
            scopes: vec![Scope::Cta, Scope::Gpu, Scope::Sys],
            placements: vec![Scope::Cta, Scope::Gpu],
        }
    }
}

/// Why an enumeration produced nothing or would produce too much.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnumerationError {
    /// The template itself is malformed.
    #[error(transparent)]
    Cycle(#[from] CycleError),
    /// More tests than the limit.
    #[error("the enumeration would make up to {would} tests, more than the limit of {limit}; narrow it (fewer --sems, --scopes, --placements, --edges, a smaller --max-edges) or raise --max-tests")]
    TooMany {
        /// The bound on the tests it would make.
        would: u128,
        /// The limit.
        limit: u64,
    },
}

/// The cycles of an enumeration, with what was left out.
#[derive(Clone, Debug, Default)]
pub struct Enumerated {
    /// Each cycle once, in the order first made.
    pub cycles: Vec<Cycle>,
    /// Instances left out because they describe no test, with the first reason met.
    pub left_out: u64,
    /// The first reason an instance was left out.
    pub first_reason: Option<String>,
}

/// Fills a template's open choices with each of `choices`.
///
/// # Errors
/// A malformed template (with the column of the edge at fault), two annotations of one
/// access that differ, an open semantics no given one suits, or more than `limit` instances.
pub fn expand(
    template: &[WrittenPattern],
    choices: &Choices,
    limit: u64,
) -> Result<Enumerated, EnumerationError> {
    // The template's shape, every choice at its default, is checked first, so that an error
    // of shape (directions, threads, locations) names the column of the edge at fault.
    let skeleton: Vec<Written> = template
        .iter()
        .map(|w| {
            let mut kind = w.edge.kind;
            if let EdgeKind::Fence(sem, None, l, a, b) = kind {
                kind = EdgeKind::Fence(sem, Some(Scope::Gpu), l, a, b);
            }
            Written {
                edge: Edge::plain(kind),
                col: w.col,
            }
        })
        .collect();
    Cycle::new(&skeleton)?;
    let mut out = Enumerated::default();
    let mut seen = HashSet::new();
    expand_into(template, choices, limit, &mut out, &mut seen)?;
    if out.cycles.is_empty() {
        if let Some(r) = &out.first_reason {
            return Err(CycleError::at(template.first().map_or(1, |w| w.col), r.clone()).into());
        }
    }
    Ok(out)
}

/// The option lists of a template: per event, per external edge, per fence edge.
struct Options {
    events: Vec<Vec<Option<super::edge::Ann>>>,
    places: Vec<Vec<Option<Scope>>>,
    fences: Vec<Vec<Option<Scope>>>,
}

impl Options {
    fn count(&self) -> u128 {
        self.events
            .iter()
            .map(Vec::len)
            .chain(self.places.iter().map(Vec::len))
            .chain(self.fences.iter().map(Vec::len))
            .fold(1u128, |n, k| n.saturating_mul(k as u128))
    }
}

fn options(template: &[WrittenPattern], c: &Choices) -> Result<Options, CycleError> {
    let n = template.len();
    let prev = |i: usize| (i + n - 1) % n;
    let mut events = Vec::with_capacity(n);
    for i in 0..n {
        let (p, e) = (&template[prev(i)].edge, &template[i].edge);
        let pat = match (p.tgt, e.src) {
            (Some(a), Some(b)) if a != b => {
                return Err(CycleError::at(
                    template[i].col,
                    format!(
                    "`{e}` annotates its source `{b}`, but `{p}` annotated that same access `{a}`"
                ),
                ))
            }
            (a, b) => a.or(b),
        };
        let atom = e.kind == EdgeKind::Rmw || p.kind == EdgeKind::Rmw;
        let d: Dir = e.kind.src();
        events.push(match pat {
            None => vec![None],
            Some(p) => {
                let each: Vec<Option<super::edge::Ann>> = p
                    .each(d, &c.sems, &c.scopes)
                    .into_iter()
                    .filter(|a| {
                        !atom
                            || !matches!(a.sem, super::edge::Sem::Weak | super::edge::Sem::Volatile)
                    })
                    .map(Some)
                    .collect();
                if each.is_empty() {
                    return Err(CycleError::at(
                        template[i].col,
                        format!(
                            "`{e}`: none of the semantics given suits its source (a {}{})",
                            if d == Dir::W { "write" } else { "read" },
                            if atom { " of an atom" } else { "" }
                        ),
                    ));
                }
                each
            }
        });
    }
    let mut places = Vec::new();
    let mut fences = Vec::new();
    for w in template {
        let e = &w.edge;
        if e.kind.is_external() {
            places.push(match e.place {
                None => vec![None],
                Some(Pick::One(s)) => vec![Some(s)],
                Some(Pick::Each) => c.placements.iter().map(|&s| Some(s)).collect(),
            });
        }
        if let EdgeKind::Fence(_, scope, ..) = e.kind {
            fences.push(match scope {
                Some(s) => vec![Some(s)],
                None => c.scopes.iter().map(|&s| Some(s)).collect(),
            });
        }
    }
    Ok(Options {
        events,
        places,
        fences,
    })
}

fn expand_into(
    template: &[WrittenPattern],
    choices: &Choices,
    limit: u64,
    out: &mut Enumerated,
    seen: &mut HashSet<String>,
) -> Result<(), EnumerationError> {
    let opts = options(template, choices)?;
    let would = opts.count();
    if would > u128::from(limit) {
        return Err(EnumerationError::TooMany { would, limit });
    }
    let lists: Vec<&Vec<Option<super::edge::Ann>>> = opts.events.iter().collect();
    let n = template.len();
    let dims: Vec<usize> = lists
        .iter()
        .map(|l| l.len())
        .chain(opts.places.iter().map(Vec::len))
        .chain(opts.fences.iter().map(Vec::len))
        .collect();
    if dims.contains(&0) {
        return Ok(());
    }
    let mut pick = vec![0usize; dims.len()];
    loop {
        let mut edges: Vec<Edge> = Vec::with_capacity(n);
        let (mut pk, mut fk) = (0, 0);
        for (i, w) in template.iter().enumerate() {
            let mut kind = w.edge.kind;
            let mut place = None;
            if kind.is_external() {
                place = opts.places[pk][pick[n + pk]];
                pk += 1;
            }
            if let EdgeKind::Fence(sem, _, l, a, b) = kind {
                let at = n + opts.places.len() + fk;
                kind = EdgeKind::Fence(sem, opts.fences[fk][pick[at]], l, a, b);
                fk += 1;
            }
            edges.push(Edge {
                kind,
                src: lists[i][pick[i]],
                tgt: None,
                place,
            });
        }
        match Cycle::from_edges(&edges) {
            Ok(c) => {
                if seen.insert(c.to_string()) {
                    out.cycles.push(c);
                }
            }
            Err(e) => {
                out.left_out += 1;
                if out.first_reason.is_none() {
                    out.first_reason = Some(e.message);
                }
            }
        }
        // Next combination, the last choice fastest.
        let mut k = dims.len();
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            pick[k] += 1;
            if pick[k] < dims[k] {
                break;
            }
            pick[k] = 0;
        }
    }
}

/// Whether `b` may follow `a` in a critical cycle (rules 1–3).
fn may_follow(a: EdgeKind, b: EdgeKind) -> bool {
    if a.tgt() != b.src() {
        return false;
    }
    if a.is_program_order() && b.is_program_order() {
        return false;
    }
    !matches!(
        (a.com(), b.com()),
        (Some(Com::Co), Some(Com::Co))
            | (Some(Com::Fr), Some(Com::Co))
            | (Some(Com::Rf), Some(Com::Fr))
    )
}

/// The critical cycles over `alphabet` (see the module documentation), as templates: each
/// once up to rotation, in a fixed order (by length, then as the alphabet lists the edges).
/// Each event of a base cycle takes `*` when `annotate` (so that the enumeration fills it
/// with each semantics), and each external edge `@*` when `place`.
pub fn critical_cycles(
    alphabet: &[EdgePattern],
    max_edges: usize,
    max_threads: usize,
    annotate: bool,
    place: bool,
) -> Vec<Vec<EdgePattern>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut seq: Vec<usize> = Vec::new();
    for len in 2..=max_edges {
        grow(alphabet, len, max_threads, &mut seq, &mut |s| {
            let cycle: Vec<EdgePattern> = s.iter().map(|&k| alphabet[k]).collect();
            if !closes(&cycle) {
                return;
            }
            let key = rotation_key(&cycle);
            if seen.insert(key) {
                out.push(cycle);
            }
        });
    }
    let open = AnnPattern {
        sem: Pick::Each,
        scope: Pick::Each,
        proxy: models::vocab::Proxy::Generic,
    };
    for c in &mut out {
        let n = c.len();
        for i in 0..n {
            if annotate && c[i].src.is_none() && c[(i + n - 1) % n].tgt.is_none() {
                c[i].src = Some(open);
            }
            if place && c[i].kind.is_external() && c[i].place.is_none() {
                c[i].place = Some(Pick::Each);
            }
        }
    }
    out
}

/// Extends `seq` with alphabet indices up to `len` edges, calling `done` on each full one
/// that ends with an external edge.
fn grow(
    alphabet: &[EdgePattern],
    len: usize,
    max_threads: usize,
    seq: &mut Vec<usize>,
    done: &mut dyn FnMut(&[usize]),
) {
    if seq.len() == len {
        if alphabet[seq[len - 1]].kind.is_external() {
            done(seq);
        }
        return;
    }
    let externals = seq
        .iter()
        .filter(|&&k| alphabet[k].kind.is_external())
        .count();
    for k in 0..alphabet.len() {
        let e = alphabet[k].kind;
        if let Some(&last) = seq.last() {
            if !may_follow(alphabet[last].kind, e) {
                continue;
            }
        }
        if e.is_external() && externals + 1 > max_threads {
            continue;
        }
        seq.push(k);
        grow(alphabet, len, max_threads, seq, done);
        seq.pop();
    }
}

/// Whether a full sequence closes into a critical cycle (rules 1–4 across the wrap-around).
fn closes(cycle: &[EdgePattern]) -> bool {
    let n = cycle.len();
    if !may_follow(cycle[n - 1].kind, cycle[0].kind) {
        return false;
    }
    let externals = cycle.iter().filter(|e| e.kind.is_external()).count();
    let changes: Vec<usize> = (0..n)
        .filter(|&i| cycle[i].kind.changes_location())
        .collect();
    if externals < 2 || changes.len() == 1 {
        return false;
    }
    // Accesses per location: the events of each stretch between two changes.
    let longest = if changes.is_empty() {
        n
    } else {
        (0..changes.len())
            .map(|k| {
                let (a, b) = (changes[k], changes[(k + 1) % changes.len()]);
                (b + n - a) % n
            })
            .map(|d| if d == 0 { n } else { d })
            .max()
            .unwrap_or(n)
    };
    longest <= 3
}

/// A key shared by all rotations of a template: its smallest rotation's text.
fn rotation_key(cycle: &[EdgePattern]) -> String {
    let n = cycle.len();
    let tokens: Vec<String> = cycle.iter().map(ToString::to_string).collect();
    (0..n)
        .map(|s| {
            (0..n)
                .map(|k| tokens[(s + k) % n].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .min()
        .unwrap_or_default()
}

/// The cycles of every critical cycle over `alphabet`, with their open choices filled.
///
/// # Errors
/// More than `limit` instances in all; an open semantics no given one suits.
pub fn enumerate(
    alphabet: &[EdgePattern],
    max_edges: usize,
    max_threads: usize,
    choices: &Choices,
    annotate: bool,
    place: bool,
    limit: u64,
) -> Result<Enumerated, EnumerationError> {
    let bases = critical_cycles(alphabet, max_edges, max_threads, annotate, place);
    let templates: Vec<Vec<WrittenPattern>> = bases
        .into_iter()
        .map(|b| {
            let mut col = 1;
            b.into_iter()
                .map(|edge| {
                    let w = WrittenPattern { edge, col };
                    col += edge.to_string().len() + 1;
                    w
                })
                .collect()
        })
        .collect();
    let mut total: u128 = 0;
    for t in &templates {
        total = total.saturating_add(options(t, choices)?.count());
    }
    if total > u128::from(limit) {
        return Err(EnumerationError::TooMany {
            would: total,
            limit,
        });
    }
    let mut out = Enumerated::default();
    let mut seen = HashSet::new();
    for t in &templates {
        expand_into(t, choices, limit, &mut out, &mut seen)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diy::syntax::parse_patterns;

    fn alphabet(s: &str) -> Vec<EdgePattern> {
        parse_patterns(s)
            .unwrap()
            .into_iter()
            .map(|w| w.edge)
            .collect()
    }

    #[test]
    fn the_two_thread_critical_cycles_over_po_and_com_are_the_six_classics() {
        let a = alphabet("Rfe Fre Coe PodWW PodWR PodRW PodRR");
        let got: Vec<String> = critical_cycles(&a, 4, 2, false, false)
            .iter()
            .map(|c| {
                Cycle::from_edges(&c.iter().map(|e| e.concrete().unwrap()).collect::<Vec<_>>())
                    .unwrap()
                    .to_string()
            })
            .collect();
        let mut got = got;
        got.sort();
        let mut want: Vec<String> = [
            "PodWW Rfe PodRR Fre",
            "PodWR Fre PodWR Fre",
            "PodRW Rfe PodRW Rfe",
            "PodWW Rfe PodRW Coe",
            "PodWW Coe PodWR Fre",
            "PodWW Coe PodWW Coe",
        ]
        .iter()
        .map(|s| Cycle::parse(s).unwrap().to_string())
        .collect();
        want.sort();
        assert_eq!(got, want);
    }

    /// The cycles of `critical_cycles` over `alphabet`, read as concrete cycles.
    fn concrete_cycles(alphabet_text: &str, max_edges: usize, max_threads: usize) -> Vec<Cycle> {
        critical_cycles(
            &alphabet(alphabet_text),
            max_edges,
            max_threads,
            false,
            false,
        )
        .iter()
        .map(|c| {
            Cycle::from_edges(&c.iter().map(|e| e.concrete().unwrap()).collect::<Vec<_>>()).unwrap()
        })
        .collect()
    }

    #[test]
    fn the_three_thread_critical_cycles_over_po_and_com_are_diy7s_seventeen_families() {
        // Worked out by hand. Over `Pod**` and `Rfe Fre Coe` a thread is one write (its
        // incoming edge `Coe` or `Fre`, its outgoing `Rfe`: `Co;Co`, `Fr;Co` and `Rf;Fr` do
        // not follow each other, and a lone read would need `Rf;Fr`) or two accesses joined
        // by `Pod`. A thread ending with a read cannot pass to one starting with a read (no
        // R-to-R communication edge), and the location must change twice, so at most one
        // thread is a lone write. Three two-access threads up to rotation: WW+WW+WW,
        // WR+WR+WR, RW+RW+RW, WW+WW+WR, WW+WW+RW, WW+WW+RR, WW+WR+WR, WW+RW+RW, WW+RW+WR,
        // WW+RR+WR, WW+RW+RR (11); a lone write then RW or RR, then any allowed thread:
        // W+RW+WW, W+RW+WR, W+RW+RW, W+RW+RR, W+RR+WW, W+RR+WR (6). Their names are those of
        // diy7's catalogue (herdtools7's namer, `pp_key`), each shape once.
        let mut got: Vec<String> = concrete_cycles("Rfe Fre Coe PodWW PodWR PodRW PodRR", 6, 3)
            .iter()
            .filter(|c| c.thread_events().len() == 3)
            .map(crate::diy::name::family)
            .collect();
        got.sort();
        let mut want = vec![
            "3.2W", "3.SB", "3.LB", "Z6.5", "Z6.1", "Z6.3", "Z6.4", "Z6.2", "Z6.0", "W+RWC",
            "ISA2", "WRW+2W", "WRW+WR", "WWC", "WRC", "WRR+2W", "RWC",
        ];
        want.sort_unstable();
        assert_eq!(got, want);
        // With the six two-thread classics, nothing else.
        assert_eq!(
            concrete_cycles("Rfe Fre Coe PodWW PodWR PodRW PodRR", 6, 3).len(),
            6 + 17
        );
    }

    #[test]
    fn over_rfe_fre_and_podrr_the_only_critical_cycle_is_iriw() {
        // Lone writes and RR threads alternate (a write reaches a read by Rfe, a read a
        // write by Fre; RR cannot follow RR), and one RR thread changes location only once:
        // two writes and two readers, IRIW, is the only cycle up to four threads.
        let got: Vec<String> = concrete_cycles("Rfe Fre PodRR", 8, 4)
            .iter()
            .map(|c| format!("{} {c}", crate::diy::name::family(c)))
            .collect();
        let iriw = Cycle::parse("Rfe PodRR Fre Rfe PodRR Fre").unwrap();
        assert_eq!(got, vec![format!("IRIW {iriw}")]);
    }

    #[test]
    fn a_template_is_filled_with_each_choice_once() {
        let t = parse_patterns("PodWW[w,rel.*] Rfe@* PodRR[acq.*,w] Fre@*").unwrap();
        let c = Choices {
            scopes: vec![Scope::Cta, Scope::Gpu],
            placements: vec![Scope::Cta, Scope::Cluster, Scope::Gpu],
            ..Choices::default()
        };
        let e = expand(&t, &c, 1000).unwrap();
        // 2 × 2 scopes, 3 consistent placements of a two-thread ring (both edges alike).
        assert_eq!(e.cycles.len(), 12);
        assert_eq!(e.left_out, 4 * 6);
        let e = expand(&t, &c, 10).unwrap_err();
        assert!(
            matches!(
                e,
                EnumerationError::TooMany {
                    would: 36,
                    limit: 10
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn symmetric_cycles_are_counted_once_up_to_rotation() {
        // SB with each access relaxed or release/acquire at one scope: the two threads are
        // interchangeable, so (a, b) and (b, a) are one test.
        let t = parse_patterns("PodWR[*] Fre PodWR[*] Fre").unwrap();
        let c = Choices {
            sems: vec![SemKind::Relaxed, SemKind::Release, SemKind::Acquire],
            scopes: vec![Scope::Gpu],
            ..Choices::default()
        };
        // Per thread: W in {rlx, rel} × R in {rlx, acq} = 4; unordered pairs with repeats:
        // 4 · 5 / 2 = 10.
        assert_eq!(expand(&t, &c, 1000).unwrap().cycles.len(), 10);
    }
}
