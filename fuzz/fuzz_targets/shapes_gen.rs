//! Wide and deep inputs from a few bytes (shared by the `shapes` fuzz target and the
//! workspace test `litmus/tests/wide_and_deep.rs`): the first byte picks a shape, the next two
//! its size, so a short input reaches chains and nestings of hundreds of thousands.

/// One generated input: a litmus test or a PTX module.
pub enum Shape {
    /// A litmus test's text.
    Litmus(String),
    /// A PTX module's text.
    Ptx(String),
}

/// The shape `kind` of size `n`.
pub fn shape(kind: u8, n: usize) -> Shape {
    let litmus = |init: String, heads: String, body: String, cond: String| {
        Shape::Litmus(format!(
            "PTX S\n{{\n{init}\n}}\n {heads} ;\n {body} ;\nexists ({cond})\n"
        ))
    };
    let one = || {
        (
            "x=0;".to_string(),
            "P0@cta 0,gpu 0".to_string(),
            "st.relaxed.gpu x, 1".to_string(),
        )
    };
    let ptx = |body: String| {
        Shape::Ptx(format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n{body}\n"
        ))
    };
    match kind % 9 {
        k @ (0 | 1) => {
            let op = if k == 0 { " /\\ " } else { " \\/ " };
            let (i, h, b) = one();
            litmus(i, h, b, vec!["x == 1"; n.max(1)].join(op))
        }
        2 => {
            let (i, h, b) = one();
            litmus(i, h, b, format!("{}x == 1{}", "(".repeat(n), ")".repeat(n)))
        }
        3 => {
            let (i, h, b) = one();
            litmus(i, h, b, format!("{}x == 1", "~".repeat(n)))
        }
        4 => {
            let n = n.max(1);
            let heads: Vec<String> = (0..n).map(|t| format!("P{t}@cta {t},gpu 0")).collect();
            litmus(
                "x=0;".into(),
                heads.join(" | "),
                vec!["st.relaxed.gpu x, 1"; n].join(" | "),
                "x == 1".into(),
            )
        }
        5 => {
            let init: Vec<String> = (0..n.max(1)).map(|k| format!("l{k}=0;")).collect();
            let (_, h, _) = one();
            litmus(
                init.join(" "),
                h,
                "st.relaxed.gpu l0, 1".into(),
                "l0 == 1".into(),
            )
        }
        6 => ptx(format!(
            ".global .u32 g = {};",
            vec!["1"; n.max(1)].join(" + ")
        )),
        7 => ptx(format!(
            ".visible .entry k()\n{}ret;{}\n",
            "{\n".repeat(n.max(1)),
            "}\n".repeat(n.max(1))
        )),
        _ => ptx(format!(
            ".global .u32 g = {}1{};",
            "(-".repeat(n),
            ")".repeat(n)
        )),
    }
}

/// The shape the fuzz input `data` selects, if it holds three bytes.
pub fn from_bytes(data: &[u8]) -> Option<Shape> {
    let [kind, hi, lo, ..] = *data else {
        return None;
    };
    // Sizes up to 2^16 * 4: far past every bound, yet quick to build.
    Some(shape(kind, (usize::from(hi) << 8 | usize::from(lo)) * 4))
}
