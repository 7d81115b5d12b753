//! A hardware campaign's summary: the logs of many tests, from the shards of a job array and
//! from several machines, merged per test and device and judged by the model
//! ([`crate::compare`]), then summarised like herdtools7's mcompare7: per test, the forbidden
//! outcomes observed (with the test's cycle) and the allowed outcomes never observed; per
//! relaxation (each edge of the generated tests' cycles), how often the outcome the cycle
//! describes (the test's condition, the "weak" outcome) was seen. As JSON and as an HTML table
//! whose columns are the devices.
//!
//! Merging: histograms of one test from one device add up (a shard rerun, two logs of one
//! machine); their states must name the same terms, and a state counted 0 times is dropped.
//! Logs without a device line count as one device, `unknown device`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::ast::{CmpOp, Expr, Term, Test};
use crate::compare::{compare, state_text, Comparison, Observed, State};
use crate::diy::Cycle;
use crate::draw::esc;
use crate::run::{run, RunOptions};

/// The device of logs that name none.
pub const UNKNOWN_DEVICE: &str = "unknown device";

/// Adds up the histograms of each (test, device) pair.
///
/// # Errors
/// Two histograms of one test and device whose states name different terms.
pub fn merge(logs: Vec<(String, Observed)>) -> Result<Vec<Observed>, String> {
    /// A group: the first histogram (name, device, keys), the summed counts, and the log
    /// it came from.
    type Group = (Observed, BTreeMap<State, u64>, String);
    let mut groups: BTreeMap<(String, String), Group> = BTreeMap::new();
    for (origin, obs) in logs {
        let device = obs.device.clone().unwrap_or_else(|| UNKNOWN_DEVICE.into());
        let key = (obs.name.clone(), device.clone());
        let keys_of = |o: &Observed| {
            o.states
                .first()
                .map(|(s, _)| s.keys().cloned().collect::<Vec<_>>())
        };
        match groups.get_mut(&key) {
            None => {
                let mut h = BTreeMap::new();
                for (s, n) in &obs.states {
                    let e: &mut u64 = h.entry(s.clone()).or_default();
                    *e = e.saturating_add(*n);
                }
                let mut first = obs.clone();
                first.device = Some(device);
                groups.insert(key, (first, h, origin));
            }
            Some((first, h, first_origin)) => {
                if let (Some(a), Some(b)) = (keys_of(first), keys_of(&obs)) {
                    if a != b {
                        return Err(format!(
                            "{origin}: the histogram of `{}` names {}, but {first_origin}'s names {}",
                            obs.name,
                            b.join(", "),
                            a.join(", ")
                        ));
                    }
                }
                for (s, n) in &obs.states {
                    let e: &mut u64 = h.entry(s.clone()).or_default();
                    *e = e.checked_add(*n).ok_or_else(|| {
                        format!(
                            "{origin}: the counts of `{}` add up to more than {}",
                            obs.name,
                            u64::MAX
                        )
                    })?;
                }
                first.abandoned = first.abandoned.saturating_add(obs.abandoned);
                if first.states.is_empty() {
                    first.states = obs.states.clone();
                }
            }
        }
    }
    Ok(groups
        .into_values()
        .map(|(mut o, h, _)| {
            // A state seen no time is no observation (litmus7 never prints one; a hand-made
            // log may).
            o.states = h.into_iter().filter(|(_, n)| *n > 0).collect();
            o.origins = (0..o.states.len())
                .map(|k| format!("merged state {k}"))
                .collect();
            o
        })
        .collect())
}

/// Whether a state satisfies a condition; `None` when the state lacks one of its terms.
pub fn satisfies(e: &Expr, s: &State) -> Option<bool> {
    let value = |t: &Term| -> Option<i64> {
        match t {
            Term::Const(c) => Some(*c),
            Term::Reg(th, r) => s
                .get(&format!("P{th}:{}", r.trim_start_matches('%')))
                .copied(),
            Term::Loc(l) => s.get(l).copied(),
        }
    };
    Some(match e {
        Expr::True => true,
        Expr::Not(a) => !satisfies(a, s)?,
        Expr::And(a, b) => satisfies(a, s)? && satisfies(b, s)?,
        Expr::Or(a, b) => satisfies(a, s)? || satisfies(b, s)?,
        Expr::Cmp(a, op, b) => {
            let (x, y) = (value(a)?, value(b)?);
            match op {
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
                CmpOp::Lt => x < y,
                CmpOp::Gt => x > y,
                CmpOp::Le => x <= y,
                CmpOp::Ge => x >= y,
            }
        }
    })
}

/// One test on one device.
#[derive(Clone, Debug)]
pub struct DeviceResult {
    /// The device.
    pub device: String,
    /// The comparison with the model.
    pub comparison: Comparison,
    /// Instances whose outcome satisfies the test's condition (the cycle's outcome).
    pub weak: u64,
}

/// One test of the campaign.
#[derive(Clone, Debug)]
pub struct TestSummary {
    /// The test's name.
    pub name: String,
    /// Its file.
    pub file: String,
    /// Its cycle, when it was generated from one (its header's quoted comment).
    pub cycle: Option<Cycle>,
    /// Whether the model allows the condition's outcome.
    pub allowed: bool,
    /// Per device.
    pub devices: Vec<DeviceResult>,
}

/// One relaxation (an edge of the generated tests' cycles).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relaxation {
    /// The edge, as the canonical cycle prints it.
    pub edge: String,
    /// Tests whose cycle has it.
    pub tests: usize,
    /// Of those, the ones whose outcome the model allows.
    pub allowed: usize,
    /// Of those, the ones whose outcome some device showed.
    pub seen: usize,
    /// Instances run, over all devices.
    pub instances: u64,
    /// Instances that showed the outcome.
    pub weak: u64,
}

/// The whole campaign.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The model's name.
    pub model: String,
    /// The devices, in order.
    pub devices: Vec<String>,
    /// Per test, in name order.
    pub tests: Vec<TestSummary>,
    /// Per relaxation, in edge order.
    pub relaxations: Vec<Relaxation>,
}

/// Judges one test's merged histograms, one per device, under `ro`'s model; the test's
/// outcome is allowed when some allowed execution satisfies its condition.
///
/// # Errors
/// As [`compare`].
pub fn summarise_test(
    test: &Test,
    file: &str,
    per_device: &[Observed],
    ro: &RunOptions,
) -> Result<TestSummary, String> {
    let cycle = test.comments.first().and_then(|c| Cycle::parse(c).ok());
    let allowed = run(test, ro).map_err(|e| e.to_string())?.positive > 0;
    let mut devices = Vec::new();
    for obs in per_device {
        let comparison = compare(test, obs, ro)?;
        let weak = obs
            .states
            .iter()
            .filter(|(s, _)| satisfies(&test.condition, s) == Some(true))
            .fold(0u64, |n, (_, k)| n.saturating_add(*k));
        devices.push(DeviceResult {
            device: obs.device.clone().unwrap_or_else(|| UNKNOWN_DEVICE.into()),
            comparison,
            weak,
        });
    }
    Ok(TestSummary {
        name: test.name.clone(),
        file: file.to_string(),
        cycle,
        allowed,
        devices,
    })
}

/// Puts the tests together: the devices met and the relaxations of the generated tests.
pub fn campaign(model: &str, mut tests: Vec<TestSummary>) -> Campaign {
    tests.sort_by(|a, b| a.name.cmp(&b.name));
    let mut devices: Vec<String> = tests
        .iter()
        .flat_map(|t| t.devices.iter().map(|d| d.device.clone()))
        .collect();
    devices.sort();
    devices.dedup();
    let mut relax: BTreeMap<String, Relaxation> = BTreeMap::new();
    for t in &tests {
        let Some(c) = &t.cycle else { continue };
        let mut edges: Vec<String> = c.edges().iter().map(ToString::to_string).collect();
        edges.sort();
        edges.dedup();
        let instances = t
            .devices
            .iter()
            .fold(0u64, |n, d| n.saturating_add(d.comparison.instances));
        let weak = t.devices.iter().fold(0u64, |n, d| n.saturating_add(d.weak));
        for e in edges {
            let r = relax.entry(e.clone()).or_insert_with(|| Relaxation {
                edge: e,
                ..Relaxation::default()
            });
            r.tests += 1;
            r.allowed += usize::from(t.allowed);
            r.seen += usize::from(weak > 0);
            r.instances = r.instances.saturating_add(instances);
            r.weak = r.weak.saturating_add(weak);
        }
    }
    Campaign {
        model: model.to_string(),
        devices,
        tests,
        relaxations: relax.into_values().collect(),
    }
}

impl Relaxation {
    /// The rate at which the outcome was seen (0 when nothing ran).
    pub fn rate(&self) -> f64 {
        if self.instances == 0 {
            0.0
        } else {
            self.weak as f64 / self.instances as f64
        }
    }
}

impl TestSummary {
    /// Whether some device showed an outcome the model forbids.
    pub fn forbidden_seen(&self) -> bool {
        self.devices
            .iter()
            .any(|d| !d.comparison.forbidden.is_empty())
    }
}

fn states(v: &[State]) -> Value {
    Value::Array(v.iter().map(|s| json!(state_text(s))).collect())
}

/// The campaign as JSON.
pub fn to_json(c: &Campaign) -> Value {
    let tests: Vec<Value> = c
        .tests
        .iter()
        .map(|t| {
            let devices: Vec<Value> = t
                .devices
                .iter()
                .map(|d| {
                    let cmp = &d.comparison;
                    json!({
                        "device": d.device,
                        "instances": cmp.instances,
                        "weak": d.weak,
                        "forbidden_observed": cmp.forbidden.iter().map(|f| json!({
                            "outcome": state_text(&f.state),
                            "count": f.count,
                            "why": f.why,
                        })).collect::<Vec<_>>(),
                        "allowed_observed": cmp.allowed.iter().map(|(s, n)| json!({
                            "outcome": state_text(s),
                            "count": n,
                        })).collect::<Vec<_>>(),
                        "allowed_never_observed": states(&cmp.unobserved),
                        "not_judged": cmp.unjudged.iter().map(|(s, n, why)| json!({
                            "outcome": state_text(s),
                            "count": n,
                            "why": why,
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!({
                "test": t.name,
                "file": t.file,
                "cycle": t.cycle.as_ref().map(ToString::to_string),
                "model_allows_condition": t.allowed,
                "forbidden_observed": t.forbidden_seen(),
                "devices": devices,
            })
        })
        .collect();
    let relaxations: Vec<Value> = c
        .relaxations
        .iter()
        .map(|r| {
            json!({
                "edge": r.edge,
                "tests": r.tests,
                "allowed": r.allowed,
                "seen": r.seen,
                "instances": r.instances,
                "weak": r.weak,
                "rate": r.rate(),
            })
        })
        .collect();
    let forbidden: Vec<&str> = c
        .tests
        .iter()
        .filter(|t| t.forbidden_seen())
        .map(|t| t.name.as_str())
        .collect();
    json!({
        "model": c.model,
        "devices": c.devices,
        "tests": tests,
        "relaxations": relaxations,
        "summary": {
            "tests": c.tests.len(),
            "with_forbidden_observed": forbidden,
            "with_allowed_never_observed": c.tests.iter().filter(|t| t.devices.iter().any(|d| !d.comparison.unobserved.is_empty())).count(),
        },
    })
}

/// A count in mcompare7's short form (`1.2k`, `4.1M`).
fn short(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=9_999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// The campaign as one HTML page: a table of tests by devices (each cell the outcome seen
/// `k/N` times, coloured: red a forbidden outcome observed, green an allowed outcome seen,
/// grey an allowed outcome never seen), then the relaxations.
pub fn to_html(c: &Campaign) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ptxemu campaign</title><style>body{{font-family:sans-serif;margin:1em}}table{{border-collapse:collapse;margin-bottom:2em}}td,th{{border:1px solid #ccc;padding:2px 6px;font-size:13px}}td.forbidden{{background:#f5b7b1;font-weight:bold}}td.seen{{background:#d5f5e3}}td.unseen{{background:#eee;color:#777}}td.ok{{background:#fff}}code{{font-size:12px}}</style></head><body>\n<h1>Campaign under {}</h1>\n",
        esc(&c.model)
    );
    let bad = c.tests.iter().filter(|t| t.forbidden_seen()).count();
    let _ = writeln!(
        s,
        "<p>{} tests on {} device(s); {bad} with an outcome the model forbids observed.</p>",
        c.tests.len(),
        c.devices.len()
    );
    s.push_str("<table id=\"tests\"><tr><th>test</th><th>cycle</th><th>model</th>");
    for d in &c.devices {
        let _ = write!(s, "<th>{}</th>", esc(d));
    }
    s.push_str("</tr>\n");
    for t in &c.tests {
        let _ = write!(
            s,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td>",
            esc(&t.name),
            esc(&t.cycle.as_ref().map_or("-".into(), ToString::to_string)),
            if t.allowed { "Allowed" } else { "Forbidden" }
        );
        for dev in &c.devices {
            match t.devices.iter().find(|d| &d.device == dev) {
                None => s.push_str("<td></td>"),
                Some(d) => {
                    let cmp = &d.comparison;
                    let class = if !cmp.forbidden.is_empty() {
                        "forbidden"
                    } else if d.weak > 0 {
                        "seen"
                    } else if t.allowed {
                        "unseen"
                    } else {
                        "ok"
                    };
                    let mut title = String::new();
                    for f in &cmp.forbidden {
                        let _ = write!(title, "FORBIDDEN {} ×{}; ", state_text(&f.state), f.count);
                    }
                    for u in &cmp.unobserved {
                        let _ = write!(title, "never seen {}; ", state_text(u));
                    }
                    let _ = write!(
                        s,
                        "<td class=\"{class}\" title=\"{}\">{}/{}</td>",
                        esc(title.trim_end()),
                        short(d.weak),
                        short(cmp.instances)
                    );
                }
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n<h2>Relaxations</h2>\n<table id=\"relaxations\"><tr><th>edge</th><th>tests</th><th>allowed</th><th>seen</th><th>weak / instances</th><th>rate</th></tr>\n");
    for r in &c.relaxations {
        let _ = writeln!(
            s,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td>{:.2e}</td></tr>",
            esc(&r.edge),
            r.tests,
            r.allowed,
            r.seen,
            short(r.weak),
            short(r.instances),
            r.rate()
        );
    }
    s.push_str("</table>\n</body></html>\n");
    s
}

/// The campaign as text: the tests with forbidden outcomes observed (with their cycle), how
/// many tests had allowed outcomes never observed, and the relaxations.
pub fn to_text(c: &Campaign) -> String {
    let mut s = String::new();
    for t in c.tests.iter().filter(|t| t.forbidden_seen()) {
        let _ = writeln!(
            s,
            "FORBIDDEN observed in {} ({}), cycle {}:",
            t.name,
            t.file,
            t.cycle.as_ref().map_or("-".into(), ToString::to_string)
        );
        for d in &t.devices {
            for f in &d.comparison.forbidden {
                let _ = writeln!(
                    s,
                    "  on {}: {} observed {} time(s): {}",
                    d.device,
                    state_text(&f.state),
                    f.count,
                    f.why.first().map_or("", String::as_str)
                );
            }
        }
    }
    let never: Vec<&TestSummary> = c
        .tests
        .iter()
        .filter(|t| {
            t.devices
                .iter()
                .any(|d| !d.comparison.unobserved.is_empty())
        })
        .collect();
    let _ = writeln!(
        s,
        "{} test(s) with allowed outcomes never observed{}",
        never.len(),
        if never.is_empty() {
            String::new()
        } else {
            format!(
                " (first: {})",
                never
                    .iter()
                    .take(5)
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    if !c.relaxations.is_empty() {
        let _ = writeln!(s, "relaxation\ttests\tallowed\tseen\tweak/instances\trate");
        for r in &c.relaxations {
            let _ = writeln!(
                s,
                "{}\t{}\t{}\t{}\t{}/{}\t{:.2e}",
                r.edge,
                r.tests,
                r.allowed,
                r.seen,
                r.weak,
                r.instances,
                r.rate()
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(pairs: &[(&str, i64)]) -> State {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn observed(device: Option<&str>, states: Vec<(State, u64)>) -> Observed {
        Observed {
            name: "MP".into(),
            origins: (0..states.len()).map(|k| format!("line {k}")).collect(),
            states,
            device: device.map(str::to_string),
            abandoned: 1,
        }
    }

    #[test]
    fn histograms_of_one_test_and_device_add_up() {
        let a = observed(
            Some("GPU"),
            vec![(state(&[("P1:r0", 1)]), 5), (state(&[("P1:r0", 0)]), 0)],
        );
        let b = observed(Some("GPU"), vec![(state(&[("P1:r0", 1)]), 2)]);
        let c = observed(None, vec![(state(&[("P1:r0", 0)]), 9)]);
        let m = merge(vec![("a".into(), a), ("b".into(), b), ("c".into(), c)]).unwrap();
        assert_eq!(m.len(), 2);
        let gpu = m
            .iter()
            .find(|o| o.device.as_deref() == Some("GPU"))
            .unwrap();
        // 5 + 2 of r0=1; the r0=0 state was counted 0 times, so it is no observation.
        assert_eq!(gpu.states, vec![(state(&[("P1:r0", 1)]), 7)]);
        assert_eq!(gpu.abandoned, 2);
        let other = m
            .iter()
            .find(|o| o.device.as_deref() == Some(UNKNOWN_DEVICE));
        assert_eq!(other.unwrap().instances(), 9);
        let odd = observed(Some("GPU"), vec![(state(&[("P1:r1", 1)]), 2)]);
        let a = observed(Some("GPU"), vec![(state(&[("P1:r0", 1)]), 5)]);
        let e = merge(vec![("a.log".into(), a), ("odd.log".into(), odd)]).unwrap_err();
        assert!(e.contains("odd.log") && e.contains("a.log"), "{e}");
    }

    #[test]
    fn a_state_satisfies_a_condition_over_its_terms() {
        let c = crate::cond::expr("P1:r0 == 1 /\\ (x != 2 \\/ P1:r1 < 0)", 0).unwrap();
        assert_eq!(
            satisfies(&c, &state(&[("P1:r0", 1), ("x", 1), ("P1:r1", 5)])),
            Some(true)
        );
        assert_eq!(
            satisfies(&c, &state(&[("P1:r0", 1), ("x", 2), ("P1:r1", 5)])),
            Some(false)
        );
        assert_eq!(satisfies(&c, &state(&[("P1:r0", 1)])), None);
    }
}
