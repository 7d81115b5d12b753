//! Writing a [`Test`] back in the litmus dialect (litmus-format spec §1.2), so that a test read
//! from another spelling (herd's GPU_PTX, the PTX manual's) can be seen as ptxemu reads it.
//! The output parses back to the same test, up to source line numbers.

use std::fmt::Write as _;

use crate::ast::{Expr, LocDecl, Test};

/// The test in the dialect: header, comments, initial state, positioned thread header,
/// column-aligned instruction rows, `locations`, `filter` and the condition.
pub fn dialect(test: &Test) -> String {
    let Test {
        name,
        comments,
        locations,
        reg_init,
        threads,
        code,
        quantifier,
        condition,
        observed,
        filter,
    } = test;
    let mut o = String::new();
    let _ = writeln!(o, "PTX {name}");
    for c in comments {
        let _ = writeln!(o, "\"{}\"", c.replace('"', "'"));
    }
    o.push_str("{\n");
    for (n, d) in locations {
        match d {
            LocDecl::Value(v) => {
                let _ = writeln!(o, " {n} = {v};");
            }
            LocDecl::Alias { proxy, target } => {
                let _ = writeln!(o, " {n} @ {} aliases {target};", proxy.name());
            }
        }
    }
    for (t, r, v) in reg_init {
        let _ = writeln!(o, " P{t}:{r} = {v};");
    }
    o.push_str("}\n");
    let head: Vec<String> = threads
        .iter()
        .map(|t| {
            let w = t.warp.map_or(String::new(), |w| format!(",warp {w}"));
            let c = t.cluster.map_or(String::new(), |c| format!(",cluster {c}"));
            format!("P{}@cta {}{c},gpu {}{w}", t.id, t.cta, t.gpu)
        })
        .collect();
    let rows = code.iter().map(Vec::len).max().unwrap_or(0);
    let cells: Vec<Vec<String>> = code
        .iter()
        .map(|c| {
            (0..rows)
                .map(|k| c.get(k).map_or(String::new(), |(i, _)| i.to_string()))
                .collect()
        })
        .collect();
    let width: Vec<usize> = (0..threads.len())
        .map(|t| {
            cells
                .get(t)
                .into_iter()
                .flatten()
                .map(String::len)
                .chain(std::iter::once(head[t].len()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let row = |o: &mut String, items: &mut dyn Iterator<Item = &String>| {
        let parts: Vec<String> = items.zip(&width).map(|(s, w)| format!("{s:<w$}")).collect();
        let _ = writeln!(o, " {} ;", parts.join(" | "));
    };
    row(&mut o, &mut head.iter());
    for k in 0..rows {
        row(&mut o, &mut cells.iter().map(|c| &c[k]));
    }
    if !observed.is_empty() {
        let list: Vec<String> = observed.iter().map(ToString::to_string).collect();
        let _ = writeln!(o, "locations [{};]", list.join("; "));
    }
    if let Some(f) = filter {
        let _ = writeln!(o, "filter {f}");
    }
    let body = match condition {
        Expr::True => "true".to_string(),
        e => e.to_string(),
    };
    let _ = writeln!(o, "{} {body}", quantifier.name());
    o
}
