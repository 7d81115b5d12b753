//! Pages for people: one self-contained HTML page per test (the verdict, the pictures first,
//! then the explanation in words, the outcomes with counts, and the test), and an index of such
//! pages.

use std::fmt::Write as _;

use crate::draw::{esc, svg};
use crate::explain::Explanation;
use crate::report::observation;

/// The style sheet of explanation pages.
pub(crate) const PAGE_STYLE: &str = "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}pre{background:#f6f8fa;padding:1em;white-space:pre-wrap}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}.yes{background:#e8f8f5}.verdict{font-size:1.2em;font-weight:bold}figure{margin:1em 0}";

/// The pictures of an explanation: (caption, SVG), one per execution shown.
pub fn pictures(x: &Explanation) -> Vec<(String, String)> {
    x.shown()
        .into_iter()
        .map(|sh| {
            let pic = svg(x, sh.witness, &sh.caption);
            (sh.caption, pic)
        })
        .collect()
}

/// One self-contained page for a test: `source` is the litmus file's text.
pub fn page(x: &Explanation, source: &str) -> String {
    let r = &x.report;
    let mut s = String::new();
    let title = format!(
        "{} — ptxemu ({})",
        x.prepared.test.name,
        x.options.model.name()
    );
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>{PAGE_STYLE}</style></head><body>\n",
        esc(&title)
    );
    let _ = writeln!(s, "<h1>{}</h1>", esc(&x.prepared.test.name));
    if let Some(c) = x.prepared.test.comments.first() {
        let _ = writeln!(s, "<p>{}</p>", esc(c));
    }
    let _ = writeln!(
        s,
        "<p class=\"verdict\" id=\"verdict\">Under {}: {} {}: {}</p>\n<p>{} candidate executions, {} allowed; positive {}, negative {} (observation: {}).</p>",
        x.options.model.name(),
        r.quantifier.name(),
        esc(&r.condition.to_string()),
        if r.holds { "holds" } else { "does not hold" },
        r.candidates,
        r.allowed,
        r.positive,
        r.negative,
        observation(r)
    );
    for (cap, pic) in pictures(x) {
        let _ = writeln!(
            s,
            "<figure>{pic}<figcaption>{}</figcaption></figure>",
            esc(&cap)
        );
    }
    let _ = writeln!(
        s,
        "<h2>Why, in words</h2>\n<pre id=\"explanation\">{}</pre>",
        esc(&x.text())
    );
    let _ = writeln!(s, "<h2>Outcomes under {}</h2>", x.options.model.name());
    s.push_str("<table id=\"outcomes\"><tr>");
    for t in &r.terms {
        let _ = write!(s, "<th>{}</th>", esc(&t.to_string()));
    }
    s.push_str("<th>executions</th><th>satisfies the condition</th></tr>\n");
    for (vals, info) in &r.states {
        let _ = write!(
            s,
            "<tr class=\"{}\">",
            if info.satisfies { "yes" } else { "no" }
        );
        for v in vals {
            let _ = write!(s, "<td>{v}</td>");
        }
        let _ = writeln!(
            s,
            "<td>{}</td><td>{}</td></tr>",
            info.count,
            if info.satisfies { "yes" } else { "no" }
        );
    }
    s.push_str("</table>\n");
    let _ = writeln!(
        s,
        "<h2>The test</h2>\n<pre>{}</pre>",
        esc(source.trim_end())
    );
    s.push_str("</body></html>\n");
    s
}

/// An index page linking to the pages of several tests: (name, file, verdict line).
pub fn index(entries: &[(String, String, String)]) -> String {
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ptxemu litmus tests</title><style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}td{padding:2px 10px}</style></head><body><h1>Litmus tests</h1><table>\n");
    for (name, file, verdict) in entries {
        let _ = writeln!(
            s,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td></tr>",
            esc(file),
            esc(name),
            esc(verdict)
        );
    }
    s.push_str("</table></body></html>\n");
    s
}
