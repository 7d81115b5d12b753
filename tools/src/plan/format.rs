//! The launch-plan file (`ptxemu run --plan FILE`, docs/plan-format.md, version 1): JSON read
//! into a typed [`Plan`]. Every key is known or refused (a key given twice too), every spec is
//! parsed here, every file the plan names is checked against the path policy
//! (`crate::confine`: inside the plan's folder unless `--plan-root` says otherwise), and every
//! error names the step it is in; what needs the module (kernels, parameters, variables) is
//! checked by `plan::check`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{Map, Value as Json};

use crate::argspec::{self, ArgSpec};
use crate::confine::{Confined, Use};
use crate::launch::refuse;

/// A parsed plan.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The module, relative to the current folder (the plan's `module` joined to its folder).
    pub module: Option<PathBuf>,
    /// Named buffers, in allocation order, with their specs (`file=` made relative to the
    /// plan's folder).
    pub buffers: Vec<(String, ArgSpec)>,
    /// The steps.
    pub steps: Vec<Step>,
}

/// A step's position: its index path (`[2, 1]` is the second step inside step 2).
pub(crate) type StepPath = Vec<usize>;

/// The text of a step path, as the plan documentation writes it (`2.1`).
pub(crate) fn path_text(at: &[usize]) -> String {
    at.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// One step of a plan.
#[derive(Debug)]
pub(crate) struct Step {
    /// Where it is.
    pub at: StepPath,
    /// What it does.
    pub kind: StepKind,
}

/// What a step does.
#[derive(Debug)]
pub(crate) enum StepKind {
    /// A kernel launch.
    Launch(LaunchStep),
    /// `NAME=SPEC` written to a module variable (as `--set` takes it).
    Set {
        /// The variable.
        name: String,
        /// Its new (leading) bytes.
        spec: ArgSpec,
    },
    /// A named buffer overwritten with a buffer spec of its size.
    Write {
        /// The buffer.
        buffer: String,
        /// Its new contents.
        spec: ArgSpec,
    },
    /// Steps run again and again.
    Repeat {
        /// How many rounds.
        until: Until,
        /// The steps of one round.
        steps: Vec<Step>,
    },
    /// A named buffer's bytes written to a file.
    Dump {
        /// The buffer.
        buffer: String,
        /// The file (checked against the path policy).
        path: PathBuf,
    },
    /// `NAME=PATH`: a module variable's bytes written to a file (as `--dump-var` takes it).
    DumpVar {
        /// The variable.
        name: String,
        /// The file (checked against the path policy).
        path: PathBuf,
    },
}

/// When a repeat stops.
#[derive(Debug, Clone)]
pub(crate) enum Until {
    /// After this many rounds.
    Times(u64),
    /// After a round that leaves every byte of the buffer zero; at most `max` rounds.
    WhileNonzero {
        /// The buffer tested.
        buffer: String,
        /// The most rounds.
        max: u64,
    },
}

/// A launch step.
#[derive(Debug)]
pub(crate) struct LaunchStep {
    /// The kernel.
    pub kernel: String,
    /// Grid shape.
    pub grid: [u32; 3],
    /// CTA shape.
    pub block: [u32; 3],
    /// Cluster shape (`None`: the kernel's `.reqnctapercluster`, else 1).
    pub cluster: Option<[u32; 3]>,
    /// The arguments.
    pub args: Vec<PlanArg>,
    /// Dynamic shared memory bytes.
    pub shared_bytes: u32,
}

/// One launch argument.
#[derive(Debug)]
pub(crate) enum PlanArg {
    /// `@NAME` or `@NAME+BYTES`: a named buffer's address, or an address inside it (as a host
    /// program passes `d_data + blockSize`).
    Named {
        /// The buffer.
        name: String,
        /// Bytes past its start.
        offset: u64,
    },
    /// An `--arg` spec (an inline buffer lives for this launch only).
    Spec(ArgSpec),
}

fn bad(at: &str, message: String) -> anyhow::Error {
    refuse("plan", format!("{at}: {message}"))
}

/// Refuses keys other than `allowed`.
fn known_keys(o: &Map<String, Json>, allowed: &[&str], at: &str) -> Result<()> {
    for k in o.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(bad(
                at,
                format!(
                    "unknown key `{}` (expected {})",
                    shown(k),
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn string<'a>(v: &'a Json, at: &str, what: &str) -> Result<&'a str> {
    v.as_str()
        .ok_or_else(|| bad(at, format!("`{what}` must be a string, not {v}")))
}

fn count(v: &Json, at: &str, what: &str) -> Result<u64> {
    v.as_u64().ok_or_else(|| {
        bad(
            at,
            format!("`{what}` must be a non-negative integer, not {v}"),
        )
    })
}

fn dims(v: &Json, at: &str, what: &str) -> Result<[u32; 3]> {
    let text = match v {
        Json::String(s) => s.clone(),
        Json::Number(n) => n.to_string(),
        other => {
            return Err(bad(
                at,
                format!("`{what}` must be \"X[,Y[,Z]]\" or a number, not {other}"),
            ))
        }
    };
    crate::cmd_run::shape_named(&text, &format!("`{what}`")).map_err(|e| bad(at, format!("{e:#}")))
}

/// An `--arg` spec of the plan, its `file=` taken from the plan's folder and checked against
/// the path policy before anything reads it. Tensor maps are refused here, before their spec
/// could read a file (`tmap:driver,file=`): plans do not take them yet.
fn spec(text: &str, files: &Confined, at: &str) -> Result<ArgSpec> {
    if text.trim_start().starts_with("tmap:") {
        return Err(bad(
            at,
            "tensor maps are not supported in plans yet; use a single `ptxemu run`".into(),
        ));
    }
    let s = argspec::parse(text).map_err(|e| bad(at, e))?;
    if let ArgSpec::Buffer {
        init: argspec::Init::File(p),
        ..
    } = &s
    {
        files
            .resolve(p, Use::Read)
            .map_err(|e| bad(at, format!("{e:#}")))?;
    }
    Ok(s.relative_to(files.base()))
}

/// `NAME=REST` of a step.
fn name_eq<'a>(v: &'a Json, at: &str, key: &str, form: &str) -> Result<(&'a str, &'a str)> {
    let text = string(v, at, key)?;
    match text.split_once('=') {
        Some((n, rest)) if !n.trim().is_empty() && !rest.is_empty() => Ok((n.trim(), rest)),
        _ => Err(bad(
            at,
            format!("`{key}` takes {form}, got `{}`", shown(text)),
        )),
    }
}

/// Reads a plan file; its files must lie inside `root` (`--plan-root`), by default the
/// plan's folder.
///
/// # Errors
/// An unreadable file, JSON that is not a version-1 plan (a key given twice included), an
/// unknown key, a malformed value, or a path outside the root, naming the step (the caller
/// names the file).
pub(crate) fn read(path: &Path, root: Option<&Path>) -> Result<Plan> {
    let text = crate::bounded::read_text(path)
        .map_err(|e| refuse("io", format!("cannot read {}: {e}", path.display())))?;
    let json: Json =
        emu::host::json::parse(&text).map_err(|e| refuse("plan", format!("not JSON: {e}")))?;
    let files = Confined::new(path.parent().unwrap_or(Path::new("")), root)?;
    let dir = &files;
    let at = "the plan";
    let Json::Object(top) = &json else {
        return Err(bad(at, "a plan is a JSON object".into()));
    };
    known_keys(top, &["version", "module", "buffers", "steps"], at)?;
    match top.get("version") {
        Some(v) if v.as_u64() == Some(1) => {}
        Some(v) => return Err(bad(at, format!("`version` {v}: only version 1 is known"))),
        None => return Err(bad(at, "`version` is missing (1)".into())),
    }
    let module = top
        .get("module")
        .map(|m| {
            string(m, at, "module").and_then(|m| {
                files
                    .resolve(Path::new(m), Use::Read)
                    .map_err(|e| bad(at, format!("`module`: {e:#}")))
            })
        })
        .transpose()?;
    let mut buffers: Vec<(String, ArgSpec)> = Vec::new();
    if let Some(b) = top.get("buffers") {
        let Json::Object(b) = b else {
            return Err(bad(at, "`buffers` must be an object of NAME: SPEC".into()));
        };
        for (name, v) in b {
            let bat = format!("buffer `{}`", shown(name));
            let s = spec(string(v, &bat, name)?, dir, &bat)?;
            if !matches!(s, ArgSpec::Buffer { .. }) {
                return Err(bad(
                    &bat,
                    format!("{s} is not a buffer spec (TYPE[N]:INIT)"),
                ));
            }
            buffers.push((name.clone(), s));
        }
        let order = buffer_order(&text);
        buffers.sort_by_key(|(n, _)| order.iter().position(|o| o == n));
    }
    let steps = match top.get("steps") {
        Some(Json::Array(s)) => steps_of(s, &[], dir)?,
        Some(other) => return Err(bad(at, format!("`steps` must be an array, not {other}"))),
        None => return Err(bad(at, "`steps` is missing".into())),
    };
    Ok(Plan {
        module,
        buffers,
        steps,
    })
}

/// A key or name read from the plan, as messages show it (control bytes escaped, cut).
fn shown(s: &str) -> String {
    emu::front::error::clipped(s, 80)
}

/// The path of `NAME=PATH`, checked as a file the plan writes.
fn output(files: &Confined, p: &str, at: &str) -> Result<PathBuf> {
    files
        .resolve(Path::new(p), Use::Write)
        .map_err(|e| bad(at, format!("{e:#}")))
}

fn steps_of(list: &[Json], parent: &[usize], dir: &Confined) -> Result<Vec<Step>> {
    let mut out = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let mut at = parent.to_vec();
        at.push(i);
        let kind = step(v, &at, dir)?;
        out.push(Step { at, kind });
    }
    Ok(out)
}

fn step(v: &Json, path: &[usize], dir: &Confined) -> Result<StepKind> {
    let at = format!("step {}", path_text(path));
    let kinds = ["launch", "set", "write", "repeat", "dump", "dump_var"];
    let Json::Object(o) = v else {
        return Err(bad(
            &at,
            format!("a step is an object with one of {}", kinds.join(", ")),
        ));
    };
    let mut keys = o.keys();
    let (Some(key), None) = (keys.next(), keys.next()) else {
        return Err(bad(
            &at,
            format!("a step has exactly one key, one of {}", kinds.join(", ")),
        ));
    };
    let body = &o[key];
    let at = format!("{at} ({})", shown(key));
    Ok(match key.as_str() {
        "launch" => StepKind::Launch(launch(body, &at, dir)?),
        "set" => {
            let (name, s) = name_eq(body, &at, "set", "NAME=SPEC")?;
            StepKind::Set {
                name: name.to_string(),
                spec: spec(s, dir, &at)?,
            }
        }
        "write" => {
            let (name, s) = name_eq(body, &at, "write", "NAME=SPEC")?;
            let spec = spec(s, dir, &at)?;
            if !matches!(spec, ArgSpec::Buffer { .. }) {
                return Err(bad(
                    &at,
                    format!("{spec} is not a buffer spec (TYPE[N]:INIT)"),
                ));
            }
            StepKind::Write {
                buffer: name.to_string(),
                spec,
            }
        }
        "repeat" => repeat(body, path, &at, dir)?,
        "dump" => {
            let (name, p) = name_eq(body, &at, "dump", "NAME=PATH")?;
            StepKind::Dump {
                buffer: name.to_string(),
                path: output(dir, p, &at)?,
            }
        }
        "dump_var" => {
            let (name, p) = name_eq(body, &at, "dump_var", "NAME=PATH")?;
            StepKind::DumpVar {
                name: name.to_string(),
                path: output(dir, p, &at)?,
            }
        }
        other => {
            return Err(bad(
                &at,
                format!(
                    "unknown step `{}` (expected {})",
                    shown(other),
                    kinds.join(", ")
                ),
            ))
        }
    })
}

fn launch(v: &Json, at: &str, dir: &Confined) -> Result<LaunchStep> {
    let Json::Object(o) = v else {
        return Err(bad(at, "`launch` must be an object".into()));
    };
    known_keys(
        o,
        &["kernel", "grid", "block", "cluster", "args", "shared_bytes"],
        at,
    )?;
    let need = |k: &str| o.get(k).ok_or_else(|| bad(at, format!("`{k}` is missing")));
    let kernel = string(need("kernel")?, at, "kernel")?.to_string();
    let grid = dims(need("grid")?, at, "grid")?;
    let block = dims(need("block")?, at, "block")?;
    let cluster = o
        .get("cluster")
        .map(|c| dims(c, at, "cluster"))
        .transpose()?;
    let args = match o.get("args") {
        None => Vec::new(),
        Some(Json::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let aat = format!("{at}, argument {i}");
                let text = string(v, &aat, "args")?;
                Ok(match text.strip_prefix('@') {
                    Some(named) => {
                        let (name, offset) = match named.split_once('+') {
                            Some((n, off)) => {
                                let off = off.trim().parse::<u64>().map_err(|_| {
                                    bad(
                                        &aat,
                                        format!(
                                            "`{text}`: the offset after `+` must be a byte count"
                                        ),
                                    )
                                })?;
                                (n.trim(), off)
                            }
                            None => (named, 0),
                        };
                        PlanArg::Named {
                            name: name.to_string(),
                            offset,
                        }
                    }
                    None => PlanArg::Spec(spec(text, dir, &aat)?),
                })
            })
            .collect::<Result<_>>()?,
        Some(other) => return Err(bad(at, format!("`args` must be an array, not {other}"))),
    };
    let shared_bytes = match o.get("shared_bytes") {
        None => 0,
        Some(v) => u32::try_from(count(v, at, "shared_bytes")?)
            .map_err(|_| bad(at, format!("`shared_bytes` {v} does not fit 32 bits")))?,
    };
    Ok(LaunchStep {
        kernel,
        grid,
        block,
        cluster,
        args,
        shared_bytes,
    })
}

fn repeat(v: &Json, path: &[usize], at: &str, dir: &Confined) -> Result<StepKind> {
    let Json::Object(o) = v else {
        return Err(bad(at, "`repeat` must be an object".into()));
    };
    known_keys(o, &["times", "while_nonzero", "max", "steps"], at)?;
    let until = match (o.get("times"), o.get("while_nonzero"), o.get("max")) {
        (Some(t), None, None) => Until::Times(count(t, at, "times")?),
        (None, Some(b), Some(m)) => Until::WhileNonzero {
            buffer: string(b, at, "while_nonzero")?.to_string(),
            max: count(m, at, "max")?,
        },
        (None, Some(_), None) => {
            return Err(bad(
                at,
                "`while_nonzero` needs `max`, the most rounds".into(),
            ))
        }
        (Some(_), _, Some(_)) | (Some(_), Some(_), None) => {
            return Err(bad(
                at,
                "a repeat has either `times` or `while_nonzero` with `max`".into(),
            ))
        }
        (None, None, _) => {
            return Err(bad(
                at,
                "a repeat needs `times: N` or `while_nonzero: NAME` with `max: N`".into(),
            ))
        }
    };
    let steps = match o.get("steps") {
        Some(Json::Array(s)) => steps_of(s, path, dir)?,
        Some(other) => return Err(bad(at, format!("`steps` must be an array, not {other}"))),
        None => return Err(bad(at, "`steps` is missing".into())),
    };
    Ok(StepKind::Repeat { until, steps })
}

/// The names of the `buffers` object in the order written (`serde_json`'s map sorts them).
fn buffer_order(text: &str) -> Vec<String> {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    use std::fmt;

    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some(k) = m.next_key::<String>()? {
                m.next_value::<IgnoredAny>()?;
                keys.push(k);
            }
            Ok(keys)
        }
    }
    struct OrderedBuffers(Vec<String>);
    impl<'de> serde::Deserialize<'de> for OrderedBuffers {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<OrderedBuffers, D::Error> {
            d.deserialize_map(Keys).map(OrderedBuffers)
        }
    }
    struct Top;
    impl<'de> Visitor<'de> for Top {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a plan object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Vec<String>, A::Error> {
            let mut order = Vec::new();
            while let Some(k) = m.next_key::<String>()? {
                if k == "buffers" {
                    order = m.next_value::<OrderedBuffers>()?.0;
                } else {
                    m.next_value::<IgnoredAny>()?;
                }
            }
            Ok(order)
        }
    }
    let mut d = serde_json::Deserializer::from_str(text);
    d.deserialize_map(Top).unwrap_or_default()
}
