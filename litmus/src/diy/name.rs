//! Names of generated tests, in diy7's style: the family the cycle's shape belongs to (MP, SB,
//! IRIW, …), then what each thread does, then the scope and the placement.
//!
//! 1. **Family.** Each thread's directions in program order (`WW`, `RR`, a single `W`), joined
//!    by `+` from the canonical rotation, give the shape's key (`WW+RR`); the conventional
//!    names of diy7's catalogue map keys to families (`WW+RR` is MP, `W+RW+RR` WRC,
//!    `W+RR+W+RR` IRIW, …; on one location `W+RR` is CoRR); a key with no name is its own name.
//! 2. **Threads.** Each thread is written as its internal edges in order, joined by `-`, each
//!    edge followed by the codes of its two accesses (`po` + `r` + `l` = `porl`: program order
//!    from a relaxed to a release access); a thread of one access is that access's code. When
//!    every thread reads the same, it is written once with an `s` (`MP+porrs`, diy7's plural).
//! 3. **Codes.** Accesses: `w` weak, `v` volatile, `r` relaxed, `a` acquire, `l` release
//!    (diy7's letters), with `_t`, `_s`, `_c` for the texture, surface and constant proxies.
//!    Edges: `po`, `pos`, `data`, `datas`, `ctrl`, `ctrls`, `rfi`, `fri`, `coi`, `rmw`, and a
//!    fence by its semantics, `fsc`, `far` (acq_rel), `facq`, `frel`, with `s` for a fence
//!    between two accesses of one location (`fscs`).
//! 4. **Scope.** When every scoped access and fence has one scope, it is written once after
//!    the threads (`.gpu`); otherwise each scoped code carries its scope's letter (`c`, `cl`,
//!    `g`, `s`: `porglc`).
//! 5. **Placement.** `@` and each external edge's placement in cycle order, once when all are
//!    equal (`@cta`, `@gpu`, `@cta.gpu.gpu`).
//!
//! The name determines the canonical cycle, so two tests of one enumeration never share a
//! name.

use models::vocab::{FenceSem, Proxy, Scope};

use super::cycle::{Cycle, Event};
use super::edge::{Com, Dep, EdgeKind, Loc, Reach, Sem};

/// The conventional names of shapes (diy7's catalogue), by key.
const FAMILIES: [(&str, &str); 30] = [
    ("WW+RR", "MP"),
    ("WR+WR", "SB"),
    ("RW+RW", "LB"),
    ("WW+RW", "S"),
    ("WW+WR", "R"),
    ("WW+WW", "2+2W"),
    ("W+RW+RR", "WRC"),
    ("W+RR+WR", "RWC"),
    ("W+RW+RW", "WWC"),
    ("W+RW+WR", "WRW+WR"),
    ("W+RR+WW", "WRR+2W"),
    ("W+RW+WW", "WRW+2W"),
    ("WW+RW+RR", "ISA2"),
    ("WW+RR+WR", "W+RWC"),
    ("WW+RW+WR", "Z6.0"),
    ("WW+WW+RW", "Z6.1"),
    ("WW+RW+RW", "Z6.2"),
    ("WW+WW+RR", "Z6.3"),
    ("WW+WR+WR", "Z6.4"),
    ("WW+WW+WR", "Z6.5"),
    ("WR+WR+WR", "3.SB"),
    ("RW+RW+RW", "3.LB"),
    ("WW+WW+WW", "3.2W"),
    ("WR+WR+WR+WR", "4.SB"),
    ("RW+RW+RW+RW", "4.LB"),
    ("WW+WW+WW+WW", "4.2W"),
    ("W+RR+W+RR", "IRIW"),
    ("W+RR+W+RW", "IRRWIW"),
    ("W+RW+W+RR", "IRRWIW"),
    ("W+RW+W+RW", "IRWIW"),
];

/// The names of one-location shapes (coherence tests), by key.
const COHERENCE: [(&str, &str); 3] = [("W+RR", "CoRR"), ("W+WR", "CoWR"), ("W+RW", "CoRW2")];

/// The shape's key: each thread's directions, joined by `+`.
pub fn key(c: &Cycle) -> String {
    c.thread_events()
        .iter()
        .map(|t| {
            t.iter()
                .map(|&i| c.events()[i].dir.letter())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("+")
}

/// The family of the cycle's shape (rule 1).
pub fn family(c: &Cycle) -> String {
    let k = key(c);
    let table: &[(&str, &str)] = if c.locations() == 1 {
        &COHERENCE
    } else {
        &FAMILIES
    };
    table
        .iter()
        .find(|(key, _)| *key == k)
        .map_or(k.clone(), |(_, n)| n.to_string())
}

fn scope_letter(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "c",
        Scope::Cluster => "cl",
        Scope::Gpu => "g",
        Scope::Sys => "s",
    }
}

/// The code of one access (rule 3), with its scope's letter when `scoped`.
fn access_code(e: &Event, scoped: bool) -> String {
    let letter = match e.ann.sem {
        Sem::Weak => "w",
        Sem::Volatile => "v",
        Sem::Relaxed(_) => "r",
        Sem::Acquire(_) => "a",
        Sem::Release(_) => "l",
    };
    let mut s = letter.to_string();
    if let (true, Some(sc)) = (scoped, e.ann.sem.scope()) {
        s.push_str(scope_letter(sc));
    }
    match e.ann.proxy {
        Proxy::Texture => s.push_str("_t"),
        Proxy::Surface => s.push_str("_s"),
        Proxy::Constant => s.push_str("_c"),
        Proxy::Generic | Proxy::Async | Proxy::Tensormap | Proxy::Fabric | Proxy::ReadOnly => {}
    }
    s
}

/// The word of an internal edge (rule 3), with its fence's scope letter when `scoped`.
fn edge_word(k: EdgeKind, scoped: bool) -> String {
    match k {
        EdgeKind::Po(Loc::Different, ..) => "po".into(),
        EdgeKind::Po(Loc::Same, ..) => "pos".into(),
        EdgeKind::Dp(d, l, _) => {
            let base = match d {
                Dep::Addr => "addr",
                Dep::Data => "data",
                Dep::Ctrl => "ctrl",
            };
            match l {
                Loc::Different => base.into(),
                Loc::Same => format!("{base}s"),
            }
        }
        EdgeKind::Com(c, _) => match c {
            Com::Rf => "rfi".into(),
            Com::Fr => "fri".into(),
            Com::Co => "coi".into(),
        },
        EdgeKind::Rmw => "rmw".into(),
        EdgeKind::Fence(sem, scope, l, _, _) => {
            let base = match sem {
                FenceSem::Sc => "fsc",
                FenceSem::AcqRel => "far",
                FenceSem::Acquire => "facq",
                FenceSem::Release => "frel",
            };
            let mut s = base.to_string();
            if let (true, Some(sc)) = (scoped, scope) {
                s.push_str(scope_letter(sc));
            }
            if l == Loc::Same {
                s.push('s');
            }
            s
        }
    }
}

/// The scopes named by the cycle's accesses and fences.
fn scopes(c: &Cycle) -> Vec<Scope> {
    let mut v: Vec<Scope> = c
        .events()
        .iter()
        .filter_map(|e| e.ann.sem.scope())
        .chain(c.edges().iter().filter_map(|e| match e.kind {
            EdgeKind::Fence(_, s, ..) => s,
            _ => None,
        }))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The test's name (rules 1–5).
pub fn test_name(c: &Cycle) -> String {
    let used = scopes(c);
    let scoped = used.len() > 1;
    let events = c.events();
    let edges = c.edges();
    let threads: Vec<String> = c
        .thread_events()
        .iter()
        .map(|t| {
            if t.len() == 1 {
                return access_code(&events[t[0]], scoped);
            }
            t.windows(2)
                .map(|w| {
                    format!(
                        "{}{}{}",
                        edge_word(edges[w[0]].kind, scoped),
                        access_code(&events[w[0]], scoped),
                        access_code(&events[w[1]], scoped)
                    )
                })
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect();
    let mut name = family(c);
    if threads.len() > 1 && threads.iter().all(|t| *t == threads[0]) {
        name.push('+');
        name.push_str(&threads[0]);
        name.push('s');
    } else {
        for t in &threads {
            name.push('+');
            name.push_str(t);
        }
    }
    if let [only] = used[..] {
        name.push('.');
        name.push_str(only.name());
    }
    let places: Vec<&str> = edges
        .iter()
        .filter_map(|e| match (e.kind, e.place) {
            (EdgeKind::Com(_, Reach::External), Some(p)) => Some(p.name()),
            _ => None,
        })
        .collect();
    name.push('@');
    if places.iter().all(|p| *p == places[0]) {
        name.push_str(places[0]);
    } else {
        name.push_str(&places.join("."));
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> String {
        test_name(&Cycle::parse(s).unwrap())
    }

    #[test]
    fn classic_shapes_get_diy7_family_names() {
        for (fam, cycle) in super::super::family::FAMILIES {
            let c = Cycle::parse(cycle).unwrap();
            assert_eq!(family(&c), *fam, "{cycle}");
        }
    }

    #[test]
    fn names_follow_the_rules() {
        assert_eq!(name("PodWW Rfe PodRR Fre"), "MP+powws@gpu");
        assert_eq!(
            name("PodWW[rlx.gpu,rel.gpu] Rfe PodRR[acq.gpu,rlx.gpu] Fre"),
            "MP+porl+poar.gpu@gpu"
        );
        assert_eq!(
            name("PodWW[rlx.cta,rel.gpu] Rfe@cta PodRR[acq.gpu,rlx.cta] Fre@cta"),
            "MP+porclg+poagrc@cta"
        );
        assert_eq!(
            name("Fence.sc.sysdWR[rlx.sys] Fre@sys Fence.sc.sysdWR[rlx.sys] Fre@sys"),
            "SB+fscrrs.sys@sys"
        );
        assert_eq!(name("Rfe PodRW Rfe PodRR Fre"), "WRC+w+poww+poww@gpu");
        assert_eq!(name("Rfe PosRR Fre"), "CoRR+w+posww@gpu");
        assert_eq!(
            name("Rfe@cta PodRR Fre@gpu Rfe@gpu PodRR Fre@cta"),
            "IRIW+w+poww+w+poww@cta.gpu.gpu.cta"
        );
    }
}
