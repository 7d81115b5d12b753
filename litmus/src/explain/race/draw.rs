//! Pictures of a race report, drawn with the same boxes, edges and legend as litmus
//! executions: one panel per race, a column per thread, a box per access, the missing
//! causality edge between them in red, and the definition's conditions under them. SVG, DOT
//! and a self-contained HTML page.

use std::fmt::Write as _;

use models::explain::EdgeKind;

use super::{xyz, Access, Race, RaceReport, Seen};
use crate::draw::{edge, esc, event_box, legend, open, Legend, BOX};
use crate::html::PAGE_STYLE;

const LEFT: f64 = 40.0;
const GAP: f64 = 260.0;
const MIN_WIDTH: f64 = 1100.0;

/// The boxes' size for a race: wide enough for the longer instruction.
fn box_size(r: &Race) -> (f64, f64) {
    let chars = [&r.first, &r.second]
        .iter()
        .map(|a| {
            let (t, sub) = box_text("a", a);
            t.chars().count().max(sub.chars().count())
        })
        .max()
        .unwrap_or(0);
    ((7.4 * chars as f64 + 20.0).max(BOX.0), BOX.1)
}

/// The picture's width for some races.
fn width(races: &[(usize, &Race)]) -> f64 {
    races
        .iter()
        .map(|(_, r)| LEFT + 2.0 * box_size(r).0 + GAP + 40.0)
        .fold(MIN_WIDTH, f64::max)
}
const LINE: f64 = 16.0;
/// Characters of a condition line before it wraps (at a space; nothing is cut).
const WRAP: usize = 140;

/// The box's first line: tag, kind and line; its second: the instruction.
fn box_text(tag: &str, a: &Access) -> (String, String) {
    let kind = a.kind.map_or("?", |k| k.tag());
    let mut first = format!("{tag}: {kind} line {}", a.line);
    if let Some(sem) = &a.sem {
        let _ = write!(first, " {sem}");
    }
    if let Some(sc) = a.scope {
        let _ = write!(first, ".{sc}");
    }
    (first, a.instr())
}

/// Splits `s` into lines of at most `width` characters at spaces (a longer word stays whole).
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for w in s.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    out.push(line);
    out
}

/// The lines under a race's boxes: where each access goes, then the conditions.
fn caption(r: &Race) -> Vec<String> {
    let mut lines = Vec::new();
    for (tag, a) in [("a", &r.first), ("b", &r.second)] {
        lines.extend(wrap(
            &format!("{tag}: {} at {}", a.nature(), a.target()),
            WRAP,
        ));
    }
    for c in r.conditions() {
        let mark = match c.holds {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "?",
        };
        lines.extend(wrap(&format!("[{mark}] {}: {}", c.name, c.why), WRAP));
    }
    lines.extend(wrap(&format!("Fix: {}.", r.hint()), WRAP));
    lines
}

fn panel_height(r: &Race) -> f64 {
    60.0 + BOX.1 + 30.0 + LINE * caption(r).len() as f64 + 20.0
}

/// Draws race `k` (1-based) with its panel's top at `y`.
fn panel(s: &mut String, k: usize, r: &Race, y: f64) {
    let seen = match r.seen {
        Some(Seen::Every) => ", seen on every explored schedule",
        Some(Seen::Some) => ", seen on some explored schedules",
        None => "",
    };
    let _ = writeln!(
        s,
        r#"<text class="race" x="10" y="{:.0}" font-weight="bold">Race {k}{}</text>"#,
        y + 14.0,
        esc(seen)
    );
    let size = box_size(r);
    let cols = [LEFT, LEFT + size.0 + GAP];
    for ((x, tag), a) in cols.iter().zip(["a", "b"]).zip([&r.first, &r.second]) {
        let _ = writeln!(
            s,
            r#"<text class="thread" x="{x:.0}" y="{:.0}" font-weight="bold">{tag}: {}</text>"#,
            y + 44.0,
            esc(&a.place())
        );
    }
    let at = |x: f64| (x, y + 60.0);
    edge(
        s,
        at(cols[0]),
        at(cols[1]),
        size,
        (0, EdgeKind::Cause, true),
        "cause? missing",
    );
    for ((x, tag), a) in cols.iter().zip(["a", "b"]).zip([&r.first, &r.second]) {
        let (text, sub) = box_text(tag, a);
        event_box(s, at(*x), size, "#fdfefe", &text, &sub);
    }
    let mut ly = y + 60.0 + BOX.1 + 30.0;
    for line in caption(r) {
        let colour = if line.starts_with("[NO]") {
            "#e60000"
        } else {
            "#222"
        };
        let _ = writeln!(
            s,
            r#"<text class="why" x="10" y="{ly:.0}" fill="{colour}">{}</text>"#,
            esc(&line)
        );
        ly += LINE;
    }
}

/// The races of a report as one SVG picture, a panel per race. `None` when it has none.
pub fn svg(report: &RaceReport, title: &str) -> Option<String> {
    let numbered: Vec<(usize, &Race)> = report
        .races
        .iter()
        .enumerate()
        .map(|(i, r)| (i + 1, r))
        .collect();
    svg_of(&numbered, title)
}

/// The SVG of some races, each with its number in the report.
fn svg_of(races: &[(usize, &Race)], title: &str) -> Option<String> {
    if races.is_empty() {
        return None;
    }
    let legend_h = 40.0;
    let body: f64 = races.iter().map(|(_, r)| panel_height(r)).sum();
    let height = 30.0 + body + legend_h;
    let w = width(races);
    let mut s = open(w, height, &[EdgeKind::Cause], title);
    let mut y = 30.0;
    for &(k, r) in races {
        panel(&mut s, k, r, y);
        y += panel_height(r);
    }
    let entries = [Legend {
        colour: "#e60000",
        dash: "10,3",
        width: 3.5,
        text: "cause? missing: causality order has neither a -> b nor b -> a".to_string(),
    }];
    legend(&mut s, &entries, w, height - legend_h + 10.0);
    s.push_str("\n</svg>\n");
    Some(s)
}

fn dot_label(tag: &str, a: &Access) -> String {
    let (first, instr) = box_text(tag, a);
    format!("{first}\\n{instr}\\n{}", a.target()).replace('"', "'")
}

/// The races of a report in Graphviz DOT. `None` when it has none.
pub fn dot(report: &RaceReport, title: &str) -> Option<String> {
    if report.races.is_empty() {
        return None;
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "digraph races {{\n  label=\"{}\";\n  node [shape=box, fontname=\"monospace\"];",
        title.replace('"', "'")
    );
    for (i, r) in report.races.iter().enumerate() {
        for (tag, a) in [("a", &r.first), ("b", &r.second)] {
            let _ = writeln!(
                s,
                "  subgraph cluster_r{i}{tag} {{\n    label=\"race {}: thread {} of CTA {}\";\n    r{i}{tag} [label=\"{}\"];\n  }}",
                i + 1,
                xyz(&a.thread),
                xyz(&a.cta),
                dot_label(tag, a)
            );
        }
        let _ = writeln!(
            s,
            "  r{i}a -> r{i}b [label=\"cause? missing\\n{}\", color=\"#e60000\", fontcolor=\"#e60000\", style=dashed, penwidth=3.0, dir=both];",
            r.reason.replace('"', "'")
        );
    }
    s.push_str("}\n");
    Some(s)
}

/// A self-contained HTML page: the report in words and a picture per race.
pub fn page(report: &RaceReport, title: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>{PAGE_STYLE}</style></head><body>\n",
        esc(title)
    );
    let _ = writeln!(s, "<h1>{}</h1>", esc(title));
    let _ = writeln!(
        s,
        "<h2>Why</h2>\n<pre id=\"explanation\">{}</pre>",
        esc(&report.text())
    );
    for (i, r) in report.races.iter().enumerate() {
        let cap = format!(
            "Race {}: line {} and line {}, unordered by causality order",
            i + 1,
            r.first.line,
            r.second.line
        );
        if let Some(pic) = svg_of(&[(i + 1, r)], &cap) {
            let _ = writeln!(
                s,
                "<figure>{pic}<figcaption>{}</figcaption></figure>",
                esc(&cap)
            );
        }
    }
    s.push_str("</body></html>\n");
    s
}
