//! The pictures of every library test's explanations (under ptx-v7.5 and sc, every execution
//! shown), checked from the SVG text alone, with the metrics of the font the pictures name
//! (DejaVu Sans Mono: every character advances 0.602 em; ascent 0.76 em, descent 0.24 em):
//! - the SVG is well-formed (every element closed, in order);
//! - no two edge labels overlap, and no label overlaps an event box or another text;
//! - each event's text lies inside its box, and every text inside the picture;
//! - the legend lists exactly the relations drawn (and the cycle only when one is drawn);
//! - two relations between the same two events are drawn apart, with their own labels;
//! - the picture is at most 1,100 pixels wide, so that at 800 pixels its smallest text is
//!   still 8 pixels high.

use std::collections::BTreeSet;
use std::path::Path;

use litmus::explain::explain;
use litmus::run::RunOptions;
use models::ptx::Model;

const ADVANCE: f64 = 0.602;

#[derive(Clone, Copy, Debug)]
struct Box2 {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Box2 {
    fn overlaps(&self, o: &Box2) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
    fn contains(&self, o: &Box2) -> bool {
        o.x >= self.x - 0.01
            && o.y >= self.y - 0.01
            && o.x + o.w <= self.x + self.w + 0.01
            && o.y + o.h <= self.y + self.h + 0.01
    }
}

/// One element: its name, attributes, and text content (for `text`).
#[derive(Debug)]
struct Elem {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    /// The `class` of the enclosing `g`, if any.
    group: String,
}

impl Elem {
    fn attr(&self, k: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.as_str())
    }
    fn num(&self, k: &str) -> f64 {
        self.attr(k)
            .unwrap_or_else(|| panic!("{} has no {k}", self.name))
            .parse()
            .unwrap()
    }
    fn class(&self) -> &str {
        self.attr("class").unwrap_or("")
    }
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// Parses the SVG into its elements, checking that every element is closed in order.
fn parse(svg: &str) -> Result<Vec<Elem>, String> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, String)> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let after = &rest[i + 1..];
        let j = after.find('>').ok_or("an unclosed tag")?;
        let tag = &after[..j];
        rest = &after[j + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let (open, _) = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
            if open != name {
                return Err(format!("<{open}> closed by </{name}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let mut parts = tag.splitn(2, char::is_whitespace);
        let name = parts.next().unwrap_or("").to_string();
        let mut attrs = Vec::new();
        let mut a = parts.next().unwrap_or("");
        while let Some(eq) = a.find("=\"") {
            let key = a[..eq].trim().to_string();
            let v = &a[eq + 2..];
            let end = v.find('"').ok_or("an unclosed attribute")?;
            attrs.push((key, unescape(&v[..end])));
            a = &v[end + 1..];
        }
        let group = stack
            .iter()
            .rev()
            .find(|(n, _)| n == "g")
            .map_or(String::new(), |(_, c)| c.clone());
        let mut e = Elem {
            name: name.clone(),
            attrs,
            text: String::new(),
            group,
        };
        if name == "text" && !self_closing {
            let end = rest.find("</text>").ok_or("an unclosed text")?;
            e.text = unescape(&rest[..end]);
            rest = &rest[end + "</text>".len()..];
        } else if !self_closing {
            stack.push((name.clone(), e.class().to_string()));
        }
        out.push(e);
    }
    if let Some((open, _)) = stack.pop() {
        return Err(format!("<{open}> is never closed"));
    }
    Ok(out)
}

fn text_box(e: &Elem, default_size: f64) -> Box2 {
    let size = e
        .attr("font-size")
        .map_or(default_size, |s| s.parse().unwrap());
    let (x, y) = (e.num("x"), e.num("y"));
    Box2 {
        x,
        y: y - 0.76 * size,
        w: e.text.chars().count() as f64 * size * ADVANCE,
        h: size,
    }
}

/// Checks one picture; returns what is wrong.
fn check(svg: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let elems = match parse(svg) {
        Ok(e) => e,
        Err(e) => return vec![format!("not well-formed: {e}")],
    };
    let root = &elems[0];
    assert_eq!(root.name, "svg");
    let size: f64 = root.num("font-size");
    let (width, height) = (root.num("width"), root.num("height"));
    if width > 1100.0 {
        bad.push(format!("{width} pixels wide: unreadable at 800"));
    }
    let canvas = Box2 {
        x: 0.0,
        y: 0.0,
        w: width,
        h: height,
    };
    // Event boxes and their texts, in document order (a rect, then its two texts).
    let mut boxes: Vec<Box2> = Vec::new();
    let mut texts: Vec<(Box2, String, String)> = Vec::new();
    for e in &elems {
        if e.name == "rect" && e.group == "event" {
            boxes.push(Box2 {
                x: e.num("x"),
                y: e.num("y"),
                w: e.num("width"),
                h: e.num("height"),
            });
        }
        if e.name == "text" {
            let b = text_box(e, size);
            if !canvas.contains(&b) {
                bad.push(format!("text {:?} leaves the picture", e.text));
            }
            if e.group == "event" {
                let owner = boxes.last().copied().unwrap();
                if !owner.contains(&b) {
                    bad.push(format!("text {:?} overflows its box", e.text));
                }
            }
            texts.push((b, e.class().to_string(), e.text.clone()));
        }
    }
    let labels: Vec<&(Box2, String, String)> = texts
        .iter()
        .filter(|(_, c, _)| c.starts_with("label"))
        .collect();
    for (i, (a, _, ta)) in labels.iter().enumerate() {
        for (b, _, tb) in &labels[i + 1..] {
            if a.overlaps(b) {
                bad.push(format!("labels {ta:?} and {tb:?} overlap"));
            }
        }
        for r in &boxes {
            if a.overlaps(r) {
                bad.push(format!("label {ta:?} overlaps an event box"));
            }
        }
        for (o, c, to) in &texts {
            if !c.starts_with("label") && a.overlaps(o) {
                bad.push(format!("label {ta:?} overlaps the text {to:?}"));
            }
        }
    }
    // The legend lists exactly the relations drawn.
    let mut drawn: BTreeSet<String> = BTreeSet::new();
    let mut cycle = false;
    let mut pairs: Vec<(String, String, String, String)> = Vec::new();
    for e in elems
        .iter()
        .filter(|e| e.name == "path" && e.class().starts_with("edge "))
    {
        let mut c = e.class().split(' ').skip(1);
        drawn.insert(c.next().unwrap().to_string());
        cycle |= e.class().ends_with(" cycle");
        let (f, t) = (e.attr("data-from").unwrap(), e.attr("data-to").unwrap());
        let (lo, hi) = if f < t { (f, t) } else { (t, f) };
        pairs.push((
            lo.to_string(),
            hi.to_string(),
            e.attr("d").unwrap().to_string(),
            e.class().to_string(),
        ));
    }
    let legend: BTreeSet<String> = elems
        .iter()
        .filter(|e| e.name == "text" && e.group == "legend")
        .map(|e| e.text.split(' ').next().unwrap().to_string())
        .collect();
    let mut want = drawn.clone();
    if cycle {
        want.insert("violating".to_string());
    }
    if legend != want {
        bad.push(format!("legend {legend:?}, relations drawn {want:?}"));
    }
    // Parallel relations are drawn apart: different curves.
    for (i, a) in pairs.iter().enumerate() {
        for b in &pairs[i + 1..] {
            if a.0 == b.0 && a.1 == b.1 && a.2 == b.2 {
                bad.push(format!(
                    "{} and {} between the same events drawn on one curve",
                    a.3, b.3
                ));
            }
        }
    }
    if labels.len() != pairs.len() {
        bad.push(format!("{} edges but {} labels", pairs.len(), labels.len()));
    }
    bad
}

#[test]
fn every_library_picture_is_legible() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/library");
    let mut bad = Vec::new();
    let mut seen = 0;
    for f in litmus::litmus_files(&dir).unwrap() {
        let test = litmus::parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
        for model in [Model::PtxV75, Model::Sc] {
            let ro = RunOptions {
                model,
                ..RunOptions::default()
            };
            let x = explain(&test, &ro, None).unwrap();
            for (cap, svg) in litmus::html::pictures(&x) {
                seen += 1;
                for b in check(&svg) {
                    bad.push(format!("{} ({}), {cap}: {b}", f.display(), model.name()));
                }
            }
        }
    }
    assert!(seen >= 80, "{seen} pictures");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_checker_sees_overlaps_and_overflows() {
    // The checks themselves, on hand-made pictures.
    let good = r#"<svg width="400" height="200" font-size="12"><g class="event"><rect x="10" y="10" width="100" height="40"/><text x="18" y="26">(1) st x</text></g><path class="edge rf" data-from="1" data-to="2" d="M0,0"/><text class="label rf" x="200" y="100" font-size="11">rf</text><g class="legend"><text x="10" y="190">rf reads from</text></g></svg>"#;
    assert!(check(good).is_empty(), "{:?}", check(good));
    let overflow = good.replace("(1) st x", "(1) st.relaxed.gpu.global.u32 [x], 1");
    assert!(check(&overflow).iter().any(|b| b.contains("overflows")));
    let on_box = good.replace(
        r#"x="200" y="100" font-size="11">rf"#,
        r#"x="30" y="30" font-size="11">rf"#,
    );
    assert!(check(&on_box)
        .iter()
        .any(|b| b.contains("overlaps an event box")));
    let legend = good.replace("rf reads from", "co coherence");
    assert!(check(&legend).iter().any(|b| b.contains("legend")));
    assert!(check("<svg><g></svg>")
        .iter()
        .any(|b| b.contains("well-formed")));
}
