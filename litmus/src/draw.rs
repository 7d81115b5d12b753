//! Drawing: the picture of an execution ([`execution`]: SVG written directly, the same for
//! `ptxemu explain --format svg|html`, the tutorial and the playground), its Graphviz DOT for
//! Graphviz users, and the shared pieces (styles per relation, boxes, edges, legends) that the
//! race pictures use.

use std::fmt::Write as _;

use models::explain::EdgeKind;

use crate::explain::{describe, effect, labels, Explanation, Witness};

pub mod execution;

pub use execution::svg;

/// Escapes text for XML and HTML (element content and quoted attributes).
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Colour and dash pattern of an edge kind.
pub(crate) fn style(k: EdgeKind) -> (&'static str, &'static str) {
    match k {
        EdgeKind::Po => ("#555555", ""),
        EdgeKind::Rf => ("#c0392b", ""),
        EdgeKind::Co => ("#2471a3", ""),
        EdgeKind::Fr => ("#e67e22", "6,4"),
        EdgeKind::Observation => ("#16a085", "2,3"),
        EdgeKind::SyncWith => ("#1e8449", ""),
        EdgeKind::FenceSc => ("#7d3c98", "8,3"),
        EdgeKind::Barrier => ("#8e6e53", "2,2"),
        EdgeKind::Dependency => ("#909497", "1,3"),
        EdgeKind::Cause => ("#d4148c", "10,3"),
    }
}

const W: f64 = 230.0;
const H: f64 = 44.0;

/// Opens an SVG picture of `width` × `height`: the root element, an arrow marker per edge
/// kind (`url(#arrow-NAME)`), a white background and the title.
pub(crate) fn open(width: f64, height: f64, kinds: &[EdgeKind], title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans Mono, monospace" font-size="12">"#
    );
    s.push_str("<defs>");
    for &k in kinds {
        let (c, _) = style(k);
        let _ = write!(
            s,
            r#"<marker id="arrow-{n}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>"#,
            n = k.name()
        );
    }
    s.push_str("</defs>\n");
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="white"/><text x="10" y="18" font-size="14" font-weight="bold">{}</text>"#,
        esc(title)
    );
    s
}

/// Width and height of an event box.
pub(crate) const BOX: (f64, f64) = (W, H);

/// An event box of `size` with its top-left corner at `at`: `text` on the first line, `sub`
/// in grey on the second.
pub(crate) fn event_box(
    s: &mut String,
    at: (f64, f64),
    size: (f64, f64),
    fill: &str,
    text: &str,
    sub: &str,
) {
    let (x0, y0) = at;
    let (w, h) = size;
    let _ = writeln!(
        s,
        r##"<g class="event"><rect x="{x0:.0}" y="{y0:.0}" width="{w}" height="{h}" rx="6" fill="{fill}" stroke="#333"/><text x="{:.0}" y="{:.0}">{}</text><text x="{:.0}" y="{:.0}" fill="#555" font-size="11">{}</text></g>"##,
        x0 + 8.0,
        y0 + 17.0,
        esc(text),
        x0 + 8.0,
        y0 + 34.0,
        esc(sub)
    );
}

/// A curved edge of `kind` from the box at `a` to the box at `b` (top-left corners, boxes of
/// `size`), the `k`-th edge drawn (which sets its bend), labelled `label`; `hi` draws it thick
/// and red. Returns the label's position.
pub(crate) fn edge(
    s: &mut String,
    a: (f64, f64),
    b: (f64, f64),
    size: (f64, f64),
    (k, kind, hi): (usize, EdgeKind, bool),
    label: &str,
) -> (f64, f64) {
    let (bw, bh) = size;
    let (ax, ay) = (a.0 + bw / 2.0, a.1 + bh / 2.0);
    let (bx, by) = (b.0 + bw / 2.0, b.1 + bh / 2.0);
    let (dx, dy) = (bx - ax, by - ay);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    // Start and end on the boxes' borders (approximately), bend sideways.
    let shrink = |x: f64, y: f64, tx: f64, ty: f64| {
        let (ux, uy) = ((tx - x) / len, (ty - y) / len);
        let f = ((bw / 2.0) / ux.abs().max(1e-9)).min((bh / 2.0) / uy.abs().max(1e-9));
        (x + ux * f, y + uy * f)
    };
    let (sx, sy) = shrink(ax, ay, bx, by);
    let (ex, ey) = shrink(bx, by, ax, ay);
    let bend = if kind == EdgeKind::Po {
        0.0
    } else {
        30.0 + 12.0 * (k % 3) as f64
    } * if (k % 2) == 0 { 1.0 } else { -1.0 };
    let (mx, my) = (
        (sx + ex) / 2.0 - dy / len * bend,
        (sy + ey) / 2.0 + dx / len * bend,
    );
    let (c, dash) = style(kind);
    let (c, width) = if hi { ("#e60000", 3.5) } else { (c, 1.6) };
    let dash = if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    };
    let (lx, ly) = (
        (sx + 2.0 * mx + ex) / 4.0 + 4.0,
        (sy + 2.0 * my + ey) / 4.0 - 4.0,
    );
    let _ = writeln!(
        s,
        r#"<path class="edge {n}{h}" d="M{sx:.1},{sy:.1} Q{mx:.1},{my:.1} {ex:.1},{ey:.1}" fill="none" stroke="{c}" stroke-width="{width}"{dash} marker-end="url(#arrow-{n})"/><text x="{lx:.1}" y="{ly:.1}" fill="{c}" font-size="11">{}</text>"#,
        esc(label),
        n = kind.name(),
        h = if hi { " cycle" } else { "" },
    );
    (lx, ly)
}

/// One entry of a picture's legend: a line in a colour, dash pattern and width, and its text.
pub(crate) struct Legend {
    pub colour: &'static str,
    pub dash: &'static str,
    pub width: f64,
    pub text: String,
}

/// The legend, in rows from `y` down, wrapped before `width`; returns where a next entry
/// would go.
pub(crate) fn legend(s: &mut String, entries: &[Legend], width: f64, y: f64) -> (f64, f64) {
    let (mut lx, mut ly) = (10.0, y);
    for e in entries {
        let dash = if e.dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{}""#, e.dash)
        };
        let _ = write!(
            s,
            r#"<g class="legend"><line x1="{lx:.0}" y1="{ly:.0}" x2="{:.0}" y2="{ly:.0}" stroke="{}" stroke-width="{}"{dash}/><text x="{:.0}" y="{:.0}">{}</text></g>"#,
            lx + 24.0,
            e.colour,
            e.width,
            lx + 28.0,
            ly + 4.0,
            esc(&e.text)
        );
        lx += 28.0 + 8.0 * e.text.len() as f64 + 14.0;
        if lx > width - 200.0 {
            lx = 10.0;
            ly += 22.0;
        }
    }
    (lx, ly)
}

/// The execution in Graphviz DOT.
pub fn dot(x: &Explanation, w: &Witness, title: &str) -> String {
    let p = &x.prepared;
    let labels = labels(&w.skeleton);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "digraph execution {{\n  label=\"{}\";\n  node [shape=box, fontname=\"monospace\"];",
        title.replace('"', "'")
    );
    for t in 0..p.threads.len() {
        let _ = writeln!(s, "  subgraph cluster_p{t} {{\n    label=\"P{t}\";");
        for (i, e) in w.skeleton.events.iter().enumerate() {
            if e.thread == Some(t as u32) {
                let d = describe(&w.skeleton, p, i);
                let _ = writeln!(
                    s,
                    "    e{i} [label=\"{} {}\\n{}\"];",
                    labels[i],
                    d.replace('"', "'"),
                    effect(&w.skeleton, p, i)
                );
            }
        }
        s.push_str("  }\n");
    }
    for (i, e) in w.skeleton.events.iter().enumerate() {
        if e.is_init() {
            let _ = writeln!(
                s,
                "  e{i} [label=\"{} init {}\", style=filled, fillcolor=\"#f4f6f7\"];",
                labels[i], e.text
            );
        }
    }
    for d in execution::drawn_edges(x, w) {
        let (a, b, kind, hi) = (d.from, d.to, d.kind, d.on_cycle);
        let (c, dash) = style(kind);
        let (c, pen) = if hi { ("#e60000", 3.0) } else { (c, 1.2) };
        let st = if dash.is_empty() { "solid" } else { "dashed" };
        let _ = writeln!(s, "  e{a} -> e{b} [label=\"{}\", color=\"{c}\", fontcolor=\"{c}\", style={st}, penwidth={pen}];", kind.name());
    }
    s.push_str("}\n");
    s
}
