//! The picture of one execution, laid out for reading: one column per thread (initial writes
//! on a row above), each event in a box sized to its text, edges as curves where relations
//! between the same two events are drawn apart, each with its own label placed where it
//! overlaps no box and no other label, the violated axiom's cycle in red, and a legend of the
//! relations drawn (and only those).
//!
//! Text widths are estimated for a monospaced font (DejaVu Sans Mono advances 0.602 em; the
//! layout reserves [`ADVANCE`] em per character), so the geometry holds in any browser that
//! has a monospaced font of that width or narrower. The layout keeps pictures narrow (a
//! four-thread test is about 1,000 pixels wide) so that they stay readable at 800 pixels.

use std::fmt::Write as _;

use models::explain::{edges, EdgeKind};
use models::ptx::Violation;

use super::{esc, style};
use crate::explain::{describe, effect, labels, Explanation, Witness};

/// Characters' advance, in em, reserved for monospaced text.
pub const ADVANCE: f64 = 0.62;
/// Font size of event text.
const FONT: f64 = 12.0;
/// Font size of second lines, labels and the legend.
const SMALL: f64 = 11.0;
/// Font size of the title.
const TITLE: f64 = 14.0;
/// Inner padding of a box.
const PAD: f64 = 8.0;
/// Height of an event box.
const BOX_H: f64 = 40.0;
/// Space between thread columns (room for cross-thread labels).
const GAP_X: f64 = 84.0;
/// Space between rows.
const GAP_Y: f64 = 44.0;
/// Outer margin.
const MARGIN: f64 = 16.0;
/// The narrowest picture (the title and legend wrap within it).
const MIN_W: f64 = 560.0;

/// The width of `text` at font `size`.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * ADVANCE
}

/// An axis-aligned rectangle: left, top, width, height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Whether the two rectangles share interior points.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    /// The rectangle grown by `d` on every side.
    fn grow(&self, d: f64) -> Rect {
        Rect {
            x: self.x - d,
            y: self.y - d,
            w: self.w + 2.0 * d,
            h: self.h + 2.0 * d,
        }
    }

    fn centre(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }
}

/// The box of a line of text whose baseline starts at (`x`, `y`).
pub fn text_box(x: f64, y: f64, text: &str, size: f64) -> Rect {
    Rect {
        x,
        y: y - 0.8 * size,
        w: text_width(text, size),
        h: 1.05 * size,
    }
}

/// One edge to draw.
pub(crate) struct Drawn {
    /// The event it leaves.
    pub(crate) from: usize,
    /// The event it reaches.
    pub(crate) to: usize,
    /// Its relation.
    pub(crate) kind: EdgeKind,
    /// Whether it is an edge of the violated axiom's cycle.
    pub(crate) on_cycle: bool,
}

/// The edges to draw: every relation of the execution worth drawing, and the violated
/// axiom's cycle (its edges marked, with a causality edge where the cycle goes through one).
pub(crate) fn drawn_edges(x: &Explanation, w: &Witness) -> Vec<Drawn> {
    let st = x.statics(w);
    let cycle: Vec<(usize, usize, String)> = match &w.verdict {
        Err(Violation { cycle, edges, .. }) => (0..cycle.len())
            .map(|i| (cycle[i], cycle[(i + 1) % cycle.len()], edges[i].clone()))
            .collect(),
        Ok(()) => Vec::new(),
    };
    let on_cycle = |a: usize, b: usize, kind: EdgeKind| {
        cycle.iter().any(|(p, q, e)| {
            *p == a && *q == b && (e == kind.name() || (e == "po-loc" && kind == EdgeKind::Po))
        })
    };
    let mut out: Vec<Drawn> = Vec::new();
    for (kind, rel) in edges(&st, &w.skeleton, &w.choice) {
        for (a, b) in rel.pairs() {
            if kind == EdgeKind::Co && w.skeleton.events[a].is_init() {
                continue;
            }
            out.push(Drawn {
                from: a,
                to: b,
                kind,
                on_cycle: on_cycle(a, b, kind),
            });
        }
    }
    for (a, b, e) in &cycle {
        if !out.iter().any(|d| d.from == *a && d.to == *b && d.on_cycle) {
            let kind = match e.as_str() {
                "rf" => EdgeKind::Rf,
                "co" => EdgeKind::Co,
                "fr" => EdgeKind::Fr,
                "po" | "po-loc" => EdgeKind::Po,
                "dep" => EdgeKind::Dependency,
                "sc" => EdgeKind::FenceSc,
                _ => EdgeKind::Cause,
            };
            out.push(Drawn {
                from: *a,
                to: *b,
                kind,
                on_cycle: true,
            });
        }
    }
    out
}

/// Where everything goes.
struct Layout {
    /// Each event's box.
    boxes: Vec<Rect>,
    /// Each event's two lines of text.
    lines: Vec<(String, String)>,
    /// Thread headers: text and baseline start.
    headers: Vec<(String, f64, f64)>,
    /// Title lines' baseline y.
    title: Vec<(String, f64)>,
    /// The right edge of the content.
    right: f64,
    /// The bottom of the content.
    bottom: f64,
}

/// Splits `text` into lines of at most `width` pixels at `size` (words kept whole).
fn wrap(text: &str, width: f64, size: f64) -> Vec<String> {
    let max = ((width / (size * ADVANCE)).floor() as usize).max(8);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

fn layout(x: &Explanation, w: &Witness, title: &str) -> Layout {
    let p = &x.prepared;
    let ev = &w.skeleton.events;
    let names = labels(&w.skeleton);
    let lines: Vec<(String, String)> = (0..ev.len())
        .map(|i| {
            let head = if ev[i].is_init() {
                format!("{} init {}", names[i], ev[i].text)
            } else {
                let d = describe(&w.skeleton, p, i);
                format!(
                    "{} {}",
                    names[i],
                    d.split_once(": ").map_or(d.as_str(), |x| x.1)
                )
            };
            (head, effect(&w.skeleton, p, i))
        })
        .collect();
    let box_w =
        |i: usize| text_width(&lines[i].0, FONT).max(text_width(&lines[i].1, SMALL)) + 2.0 * PAD;
    let nthreads = p.threads.len();
    let header = |t: usize| {
        let (gpu, cta) = p.places[t];
        format!("P{t} (CTA {cta}, GPU {gpu})")
    };
    let mut col_w: Vec<f64> = (0..nthreads)
        .map(|t| text_width(&header(t), FONT))
        .collect();
    for (i, e) in ev.iter().enumerate() {
        if let Some(t) = e.thread {
            let t = t as usize;
            col_w[t] = col_w[t].max(box_w(i));
        }
    }
    let mut col_x = Vec::with_capacity(nthreads);
    let mut cx = MARGIN;
    for wd in &col_w {
        col_x.push(cx);
        cx += wd + GAP_X;
    }
    let columns_right = cx - GAP_X;
    // The title wraps within the width the content needs (at least MIN_W).
    let inits: Vec<usize> = (0..ev.len()).filter(|&i| ev[i].is_init()).collect();
    let init_right = MARGIN + inits.iter().map(|&i| box_w(i) + 40.0).sum::<f64>() - 40.0;
    let content_w = columns_right.max(init_right).max(MIN_W - MARGIN);
    let title_lines = wrap(title, content_w - MARGIN, TITLE);
    let mut y = MARGIN;
    let mut title_at = Vec::new();
    for l in title_lines {
        y += TITLE * 1.3;
        title_at.push((l, y));
    }
    y += 14.0;
    let mut boxes = vec![
        Rect {
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0
        };
        ev.len()
    ];
    let mut ix = MARGIN;
    for &i in &inits {
        boxes[i] = Rect {
            x: ix,
            y,
            w: box_w(i),
            h: BOX_H,
        };
        ix += box_w(i) + 40.0;
    }
    if !inits.is_empty() {
        y += BOX_H + GAP_Y;
    }
    let header_y = y + FONT;
    let headers = (0..nthreads)
        .map(|t| (header(t), col_x[t], header_y))
        .collect();
    let top = header_y + 12.0;
    let mut row = vec![0usize; nthreads];
    let mut bottom = top;
    for (i, e) in ev.iter().enumerate() {
        if let Some(t) = e.thread {
            let t = t as usize;
            let by = top + row[t] as f64 * (BOX_H + GAP_Y);
            boxes[i] = Rect {
                x: col_x[t],
                y: by,
                w: box_w(i),
                h: BOX_H,
            };
            row[t] += 1;
            bottom = bottom.max(by + BOX_H);
        }
    }
    Layout {
        boxes,
        lines,
        headers,
        title: title_at,
        right: MARGIN + content_w,
        bottom,
    }
}

/// A point where the straight line from the centre of `r` towards (`tx`, `ty`) leaves `r`.
fn border(r: &Rect, tx: f64, ty: f64) -> (f64, f64) {
    let (cx, cy) = r.centre();
    let (dx, dy) = (tx - cx, ty - cy);
    let fx = if dx.abs() < 1e-9 {
        f64::INFINITY
    } else {
        (r.w / 2.0) / dx.abs()
    };
    let fy = if dy.abs() < 1e-9 {
        f64::INFINITY
    } else {
        (r.h / 2.0) / dy.abs()
    };
    let f = fx.min(fy).min(1.0);
    (cx + dx * f, cy + dy * f)
}

/// A quadratic curve: start, control point, end.
#[derive(Clone, Copy)]
struct Curve {
    s: (f64, f64),
    c: (f64, f64),
    e: (f64, f64),
}

impl Curve {
    fn at(&self, t: f64) -> (f64, f64) {
        let u = 1.0 - t;
        (
            u * u * self.s.0 + 2.0 * u * t * self.c.0 + t * t * self.e.0,
            u * u * self.s.1 + 2.0 * u * t * self.c.1 + t * t * self.e.1,
        )
    }
}

/// The curve of an edge between boxes `a` and `b`, bent by `bend` pixels (its apex that far
/// from the straight line) towards the side given by the pair's canonical direction, so that
/// edges a→b and b→a with different bends lie apart.
fn curve(a: &Rect, b: &Rect, bend: f64, canonical: bool) -> Curve {
    let (ac, bc) = (a.centre(), b.centre());
    let (dx, dy) = (bc.0 - ac.0, bc.1 - ac.1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    // The normal of the canonical direction (lower event index to higher).
    let sign = if canonical { 1.0 } else { -1.0 };
    let (nx, ny) = (-dy / len * sign, dx / len * sign);
    let mid = (
        (ac.0 + bc.0) / 2.0 + nx * bend,
        (ac.1 + bc.1) / 2.0 + ny * bend,
    );
    let s = border(a, mid.0, mid.1);
    let e = border(b, mid.0, mid.1);
    // Control point so that the curve passes through `mid` at t = 1/2.
    let c = (
        2.0 * mid.0 - (s.0 + e.0) / 2.0,
        2.0 * mid.1 - (s.1 + e.1) / 2.0,
    );
    Curve { s, c, e }
}

/// A legend entry's text.
fn legend_text(k: EdgeKind) -> String {
    format!("{} {}", k.name(), k.meaning())
}

/// The execution as an SVG picture; `title` is drawn above it (wrapped to the picture's width).
pub fn svg(x: &Explanation, w: &Witness, title: &str) -> String {
    let lay = layout(x, w, title);
    let ev = &w.skeleton.events;
    let edges = drawn_edges(x, w);
    // Parallel edges: group by unordered pair, spread the bends.
    let mut curves: Vec<Curve> = Vec::with_capacity(edges.len());
    for (k, d) in edges.iter().enumerate() {
        let (lo, hi) = (d.from.min(d.to), d.from.max(d.to));
        let group: Vec<usize> = edges
            .iter()
            .enumerate()
            .filter(|(_, o)| o.from.min(o.to) == lo && o.from.max(o.to) == hi)
            .map(|(j, _)| j)
            .collect();
        let rank = group.iter().position(|&j| j == k).unwrap_or(0) as f64;
        let n = group.len() as f64;
        let same_thread = ev[d.from].thread.is_some() && ev[d.from].thread == ev[d.to].thread;
        let (a, b) = (&lay.boxes[d.from], &lay.boxes[d.to]);
        let adjacent_rows = (a.y - b.y).abs() <= BOX_H + GAP_Y + 1.0;
        let bend = if same_thread && !adjacent_rows {
            // Around the boxes in between, on the column's right.
            // (The bend's side follows the lower event, which is the upper box.)
            -(0.5 * a.w.max(b.w) + 24.0 + 18.0 * rank)
        } else if n == 1.0 {
            if same_thread {
                0.0
            } else {
                14.0
            }
        } else {
            (rank - (n - 1.0) / 2.0) * 30.0 + if same_thread { 0.0 } else { 8.0 }
        };
        curves.push(curve(a, b, bend, d.from <= d.to));
    }
    // Labels: first free spot along the curve, else the nearest free spot around its middle.
    let mut taken: Vec<Rect> = lay.boxes.iter().map(|r| r.grow(3.0)).collect();
    for (t, hx, hy) in &lay.headers {
        taken.push(text_box(*hx, *hy, t, FONT).grow(2.0));
    }
    for (t, ty) in &lay.title {
        taken.push(text_box(MARGIN, *ty, t, TITLE).grow(2.0));
    }
    let mut placed: Vec<(f64, f64, (f64, f64))> = Vec::with_capacity(edges.len());
    let mut far_right = lay.right;
    let mut far_bottom = lay.bottom;
    for (d, c) in edges.iter().zip(&curves) {
        let label = d.kind.name();
        let lw = text_width(label, SMALL);
        let lh = 1.05 * SMALL;
        let fits = |cx: f64, cy: f64, taken: &[Rect]| {
            let r = Rect {
                x: cx - lw / 2.0,
                y: cy - lh / 2.0,
                w: lw,
                h: lh,
            };
            r.x >= 2.0 && r.y >= 2.0 && !taken.iter().any(|o| o.overlaps(&r.grow(1.5)))
        };
        let mut spot = None;
        'along: for t in [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74] {
            let (px, py) = c.at(t);
            for off in [
                (0.0, 0.0),
                (0.0, -9.0),
                (0.0, 9.0),
                (lw / 2.0 + 5.0, 0.0),
                (-lw / 2.0 - 5.0, 0.0),
            ] {
                if fits(px + off.0, py + off.1, &taken) {
                    spot = Some((px + off.0, py + off.1, (px, py)));
                    break 'along;
                }
            }
        }
        let spot = spot.unwrap_or_else(|| {
            let (px, py) = c.at(0.5);
            let mut found = None;
            'spiral: for ring in 1..200 {
                let r = ring as f64 * 6.0;
                for k in 0..24 {
                    let a = k as f64 * std::f64::consts::PI / 12.0;
                    let (qx, qy) = (px + r * a.cos(), py + r * a.sin());
                    if fits(qx, qy, &taken) {
                        found = Some((qx, qy, (px, py)));
                        break 'spiral;
                    }
                }
            }
            // Nothing free within 1,200 pixels: below everything.
            found.unwrap_or((MARGIN + lw, far_bottom + 20.0, (px, py)))
        });
        let r = Rect {
            x: spot.0 - lw / 2.0,
            y: spot.1 - lh / 2.0,
            w: lw,
            h: lh,
        };
        far_right = far_right.max(r.x + r.w + MARGIN);
        far_bottom = far_bottom.max(r.y + r.h);
        taken.push(r);
        placed.push(spot);
    }
    // The legend: the relations drawn, then the cycle.
    let mut kinds: Vec<EdgeKind> = edges.iter().map(|d| d.kind).collect();
    kinds.sort();
    kinds.dedup();
    let mut entries: Vec<(String, &'static str, &'static str, f64)> = kinds
        .iter()
        .map(|&k| {
            let (c, dash) = style(k);
            (legend_text(k), c, dash, 2.0)
        })
        .collect();
    if edges.iter().any(|d| d.on_cycle) {
        entries.push(("violating cycle".to_string(), "#e60000", "", 3.5));
    }
    let width = far_right.max(MIN_W);
    let mut legend_at = Vec::new();
    let (mut lx, mut ly) = (MARGIN, far_bottom + 30.0);
    for (text, ..) in &entries {
        let wd = 30.0 + text_width(text, SMALL) + 18.0;
        if lx > MARGIN && lx + wd > width - MARGIN {
            lx = MARGIN;
            ly += 20.0;
        }
        legend_at.push((lx, ly));
        lx += wd;
    }
    let height = ly + 16.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="execution" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT}">"#
    );
    s.push_str("<defs>");
    for &k in &kinds {
        let (c, _) = style(k);
        let _ = write!(
            s,
            r#"<marker id="arrow-{n}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>"#,
            n = k.name()
        );
    }
    s.push_str(r##"<marker id="arrow-cycle" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#e60000"/></marker>"##);
    s.push_str("</defs>\n");
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for (t, ty) in &lay.title {
        let _ = writeln!(
            s,
            r#"<text class="title" x="{MARGIN}" y="{ty:.1}" font-size="{TITLE}" font-weight="bold">{}</text>"#,
            esc(t)
        );
    }
    for (t, hx, hy) in &lay.headers {
        let _ = writeln!(
            s,
            r#"<text class="thread" x="{hx:.1}" y="{hy:.1}" font-weight="bold">{}</text>"#,
            esc(t)
        );
    }
    // Edges under the boxes, cycle edges last (on top).
    let mut order: Vec<usize> = (0..edges.len()).collect();
    order.sort_by_key(|&k| edges[k].on_cycle);
    for &k in &order {
        let (d, c) = (&edges[k], &curves[k]);
        let (colour, dash) = style(d.kind);
        let (colour, width, marker) = if d.on_cycle {
            ("#e60000", 3.0, "cycle".to_string())
        } else {
            (colour, 1.6, d.kind.name().to_string())
        };
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{dash}""#)
        };
        let _ = writeln!(
            s,
            r#"<path class="edge {n}{h}" data-from="{f}" data-to="{t}" d="M{:.1},{:.1} Q{:.1},{:.1} {:.1},{:.1}" fill="none" stroke="{colour}" stroke-width="{width}"{dash} marker-end="url(#arrow-{marker})"/>"#,
            c.s.0,
            c.s.1,
            c.c.0,
            c.c.1,
            c.e.0,
            c.e.1,
            n = d.kind.name(),
            h = if d.on_cycle { " cycle" } else { "" },
            f = d.from,
            t = d.to,
        );
    }
    let names = labels(&w.skeleton);
    let on_cycle_event = |i: usize| {
        edges
            .iter()
            .any(|d| d.on_cycle && (d.from == i || d.to == i))
    };
    for (i, r) in lay.boxes.iter().enumerate() {
        let fill = if ev[i].is_init() {
            "#f4f6f7"
        } else {
            "#fdfefe"
        };
        let (stroke, sw) = if on_cycle_event(i) {
            ("#e60000", 2.0)
        } else {
            ("#333", 1.0)
        };
        let _ = writeln!(
            s,
            r##"<g class="event" data-event="{i}" data-label="{}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{BOX_H}" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/><text x="{:.1}" y="{:.1}">{}</text><text x="{:.1}" y="{:.1}" fill="#555" font-size="{SMALL}">{}</text></g>"##,
            esc(&names[i]),
            r.x,
            r.y,
            r.w,
            r.x + PAD,
            r.y + 16.0,
            esc(&lay.lines[i].0),
            r.x + PAD,
            r.y + 32.0,
            esc(&lay.lines[i].1)
        );
    }
    for (d, (lx, ly, at)) in edges.iter().zip(&placed) {
        let (colour, _) = style(d.kind);
        let colour = if d.on_cycle { "#e60000" } else { colour };
        let lw = text_width(d.kind.name(), SMALL);
        if ((lx - at.0).powi(2) + (ly - at.1).powi(2)).sqrt() > 14.0 {
            let _ = writeln!(
                s,
                r#"<line class="leader" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="0.8" stroke-dasharray="1,2"/>"#,
                at.0, at.1, lx, ly
            );
        }
        let _ = writeln!(
            s,
            r#"<text class="label {n}{h}" x="{:.1}" y="{:.1}" fill="{colour}" font-size="{SMALL}"{b} stroke="white" stroke-width="3" paint-order="stroke">{n}</text>"#,
            lx - lw / 2.0,
            ly + 0.8 * SMALL - 1.05 * SMALL / 2.0,
            n = d.kind.name(),
            h = if d.on_cycle { " cycle" } else { "" },
            b = if d.on_cycle {
                r#" font-weight="bold""#
            } else {
                ""
            },
        );
    }
    for ((text, colour, dash, wd), (lx, ly)) in entries.iter().zip(&legend_at) {
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{dash}""#)
        };
        let _ = writeln!(
            s,
            r#"<g class="legend"><line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="{wd}"{dash}/><text x="{:.1}" y="{:.1}" font-size="{SMALL}">{}</text></g>"#,
            ly - 4.0,
            lx + 24.0,
            ly - 4.0,
            lx + 30.0,
            ly,
            esc(text)
        );
    }
    s.push_str("</svg>\n");
    s
}
