//! The conditions of the PTX memory model's definition of a data race, checked against what a
//! report says about the two accesses, and the race in words.

use std::fmt::Write as _;

use models::vocab::Scope;

use super::{xyz, Access, AccessKind, Race};

/// One condition of the definition of a data race, as the report's facts bear it out:
/// `Some(true)` holds, `Some(false)` does not (the pair would not be a data race),
/// `None` the report does not say enough.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The condition.
    pub name: &'static str,
    /// Whether it holds.
    pub holds: Option<bool>,
    /// Why, in the model's words.
    pub why: String,
}

fn overlap(a: &Access, b: &Access) -> Condition {
    let name = "they access overlapping bytes";
    if let (Some(x), Some(y)) = (&a.space, &b.space) {
        if x != y {
            return Condition {
                name,
                holds: None,
                why: format!("the accesses name different state spaces ({x} and {y}); their addresses are compared as given"),
            };
        }
        if x.starts_with("shared") && x != "shared::cluster" && a.cta != b.cta {
            return Condition {
                name,
                holds: Some(false),
                why: format!("both are in .shared::cta memory, but of different CTAs ({} and {}): not the same bytes", xyz(&a.cta), xyz(&b.cta)),
            };
        }
    }
    match (a.bytes, b.bytes) {
        (Some(n), Some(m)) => {
            let lo = a.address.max(b.address);
            let hi = a.address.saturating_add(n).min(b.address.saturating_add(m));
            if lo < hi {
                Condition {
                    name,
                    holds: Some(true),
                    why: format!("{} byte(s) in common, from {lo:#x}", hi - lo),
                }
            } else {
                Condition {
                    name,
                    holds: Some(false),
                    why: format!(
                        "[{:#x}, +{n}) and [{:#x}, +{m}) are disjoint",
                        a.address, b.address
                    ),
                }
            }
        }
        _ if a.address == b.address => Condition {
            name,
            holds: Some(true),
            why: format!("both start at {:#x}", a.address),
        },
        _ => Condition {
            name,
            holds: None,
            why: "the report gives no sizes and the addresses differ".into(),
        },
    }
}

fn writes(a: &Access, b: &Access) -> Condition {
    let name = "at least one of them writes";
    match (a.kind, b.kind) {
        (Some(x), Some(y)) => {
            let holds = x.writes() || y.writes();
            let an = |k: AccessKind| if k == AccessKind::Atomic { "an" } else { "a" };
            let why = format!("a is {} {}, b is {} {}", an(x), x.name(), an(y), y.name());
            Condition {
                name,
                holds: Some(holds),
                why,
            }
        }
        _ => Condition {
            name,
            holds: None,
            why: "the report does not say which access writes".into(),
        },
    }
}

fn threads(a: &Access, b: &Access) -> Condition {
    let same = a.cta == b.cta && a.thread == b.thread;
    let why = if same {
        "both are the same thread: program order orders them".to_string()
    } else if a.cta == b.cta {
        format!(
            "threads {} and {} of one CTA",
            xyz(&a.thread),
            xyz(&b.thread)
        )
    } else {
        format!(
            "threads of different CTAs, {} and {}",
            xyz(&a.cta),
            xyz(&b.cta)
        )
    };
    Condition {
        name: "they are in different threads",
        holds: Some(!same),
        why,
    }
}

/// Whether they are not morally strong, and why.
fn not_morally_strong(a: &Access, b: &Access) -> Condition {
    let name = "they are not morally strong";
    let no = |why: String| Condition {
        name,
        holds: Some(true),
        why,
    };
    for (tag, x) in [("a", a), ("b", b)] {
        match x.strong() {
            Some(false) => return no(format!("{tag}'s `{}` is weak", x.instr())),
            None => {
                return Condition {
                    name,
                    holds: None,
                    why: format!("the report gives no semantics for {tag}"),
                }
            }
            Some(true) => {}
        }
    }
    if let (Some(p), Some(q)) = (&a.proxy, &b.proxy) {
        if p != q {
            return no(format!("they use different proxies ({p} and {q})"));
        }
    }
    for (tag, x, y) in [("a", a, b), ("b", b, a)] {
        match x.effective_scope() {
            None => {
                return Condition {
                    name,
                    holds: None,
                    why: format!("the report gives no scope for {tag}"),
                }
            }
            Some(s) if !x.includes(s, y) => {
                return no(format!(
                    "the .{s} scope of {tag}'s `{}` does not include {}",
                    x.instr(),
                    y.place()
                ))
            }
            Some(_) => {}
        }
    }
    if a.address != b.address || a.bytes != b.bytes {
        return no(
            "they overlap only partly: morally strong accesses must cover the same bytes".into(),
        );
    }
    Condition {
        name,
        holds: Some(false),
        why: "both are strong, at scopes that include each other's threads, on the same bytes: they are morally strong, so by the model's definition this pair is no data race".into(),
    }
}

impl Race {
    /// The conditions of the definition of a data race, checked against the report.
    pub fn conditions(&self) -> Vec<Condition> {
        let (a, b) = (&self.first, &self.second);
        vec![
            overlap(a, b),
            writes(a, b),
            threads(a, b),
            not_morally_strong(a, b),
            Condition {
                name: "neither is before the other in causality order",
                holds: Some(true),
                why: self.reason.clone(),
            },
        ]
    }

    /// A way to order the pair, from where the two threads are.
    pub fn hint(&self) -> String {
        let (a, b) = (&self.first, &self.second);
        if self.conditions().iter().any(|c| c.holds == Some(false)) {
            return "none needed if the facts above are right: the pair does not meet the definition of a data race (see NO above), so the report itself is suspect".into();
        }
        let narrow = [a, b]
            .iter()
            .any(|x| x.effective_scope().is_some_and(|s| s < Scope::Gpu));
        if self.fence_sc_dependent {
            return "do not rely on the order fence.sc happen to run in: make the second thread acquire what the first released (after the flag or ticket it reads, __threadfence() or an ld.acquire / atom.acquire at a scope that includes both threads), so that a release/acquire pattern orders the pair".into();
        }
        if a.cta == b.cta {
            let warp = a.warp.is_some() && a.warp == b.warp;
            format!(
                "order them: bar.sync (__syncthreads()) between the two{}; or, if the race is intended, make both accesses strong (atomic or .relaxed)",
                if warp { ", or bar.warp.sync (__syncwarp()) as they are in one warp" } else { "" }
            )
        } else if narrow {
            "the threads are in different CTAs: widen the .cta scope to .gpu (atomics, fences and release/acquire)".into()
        } else {
            "the threads are in different CTAs, and bar.sync orders the threads of one CTA only: publish with a release at .gpu scope (st.release.gpu, or __threadfence() before a relaxed store or atomic) and read after an acquire at .gpu scope".into()
        }
    }

    /// The race in words.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (tag, x) in [("a", &self.first), ("b", &self.second)] {
            let src = x
                .source
                .as_deref()
                .map_or(String::new(), |f| format!(" ({f})"));
            let _ = writeln!(s, "  {tag}: line {}{src}: {}", x.line, x.instr());
            let _ = writeln!(s, "     {} by {}, at {}", x.nature(), x.place(), x.target());
        }
        let _ = writeln!(s, "  Why this is a data race (PTX memory model: two accesses to overlapping bytes, at least one a write, from different threads, not morally strong, unordered by causality order):");
        for c in self.conditions() {
            let mark = match c.holds {
                Some(true) => "yes",
                Some(false) => "NO ",
                None => " ? ",
            };
            let _ = writeln!(s, "    [{mark}] {}: {}", c.name, c.why);
        }
        if self.fence_sc_dependent {
            let _ = writeln!(s, "  Missing: a causality-order edge a -> b or b -> a that holds under every Fence-SC order (the run's order gave one; another order the model allows does not).");
        } else {
            let _ = writeln!(s, "  Missing: a causality-order edge a -> b or b -> a.");
        }
        let _ = writeln!(s, "  Fix: {}.", self.hint());
        s
    }
}
