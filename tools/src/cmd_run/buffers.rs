//! The arguments and buffers of a launch: `--grid`/`--block` shapes, `--arg` specs laid out in
//! device memory, `--dump` files and the `buffers` of `--json`.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use serde_json::Value as Json;

use crate::argspec::{self, ArgSpec, BufRef};
use crate::launch;

/// Parses `X[,Y[,Z]]` given by the command-line option `--{what}`.
pub(crate) fn shape(s: &str, what: &str) -> Result<[u32; 3]> {
    shape_named(s, &format!("--{what}"))
}

/// Parses `X[,Y[,Z]]`; errors name it `label` (`--grid`, or a plan's `` `cluster` ``).
pub(crate) fn shape_named(s: &str, label: &str) -> Result<[u32; 3]> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        bail!("{label} takes X[,Y[,Z]], got `{s}`");
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .trim()
            .parse()
            .map_err(|_| anyhow!("{label}: `{p}` is not a positive integer"))?;
        if out[i] == 0 {
            bail!("{label}: dimensions must be at least 1");
        }
    }
    Ok(out)
}

/// Buffer arguments placed in device memory: for each argument, its parameter bytes and, for
/// a buffer, its (address, length); and the named buffers (`--buffer`).
pub(crate) struct LaidOut {
    /// Parameter values in order.
    pub values: Vec<Vec<u8>>,
    /// For each argument: the buffer's address and length, or `None` for a scalar.
    pub buffers: Vec<Option<(u64, usize)>>,
    /// Each `--buffer NAME=SPEC`: its name, address and length.
    pub named: Vec<(String, u64, usize)>,
}

impl LaidOut {
    /// The (address, length) of the buffer `r` names.
    ///
    /// # Errors
    /// No buffer argument at that index, or no buffer of that name.
    pub fn resolve(&self, r: &BufRef) -> Result<(u64, usize), String> {
        match r {
            BufRef::Index(k) => match self.buffers.get(*k) {
                Some(Some(b)) => Ok(*b),
                Some(None) => Err(format!("argument {k} is not a buffer")),
                None => Err(format!(
                    "there is no argument {k} ({} given)",
                    self.buffers.len()
                )),
            },
            BufRef::Name(n) => self
                .named
                .iter()
                .find(|(m, _, _)| m == n)
                .map(|(_, a, l)| (*a, *l))
                .ok_or_else(|| {
                    let names: Vec<&str> = self.named.iter().map(|(m, _, _)| m.as_str()).collect();
                    format!(
                        "no buffer named `{n}` (--buffer gives: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    )
                }),
        }
    }
}

/// Parses the `--arg` specs.
pub(crate) fn specs_of(args: &[String]) -> Result<Vec<ArgSpec>> {
    args.iter()
        .map(|s| argspec::parse(s).map_err(|e| anyhow!("--arg {e}")))
        .collect()
}

/// Parses the `--buffer NAME=SPEC`s: buffers that are no kernel parameter (a `Params`
/// struct's tensors), named for struct fields (`u64:@NAME`), tensor maps (`buf=NAME`) and
/// `--dump NAME=PATH`.
pub(crate) fn named_of(buffers: &[String]) -> Result<Vec<(String, ArgSpec)>> {
    let mut out: Vec<(String, ArgSpec)> = Vec::new();
    for b in buffers {
        let (name, spec) = b
            .split_once('=')
            .ok_or_else(|| anyhow!("--buffer takes NAME=TYPE[N]:INIT, got `{b}`"))?;
        let name = name.trim();
        if !matches!(BufRef::parse(name), Ok(BufRef::Name(_))) {
            bail!("--buffer `{b}`: a buffer's name is letters, digits and `_`, not starting with a digit");
        }
        if out.iter().any(|(n, _)| n == name) {
            bail!("--buffer `{name}` is given twice");
        }
        let spec = argspec::parse(spec).map_err(|e| anyhow!("--buffer {name}: {e}"))?;
        if !matches!(spec, ArgSpec::Buffer { .. }) {
            bail!("--buffer {name}: {spec} is not a buffer (TYPE[N]:INIT)");
        }
        out.push((name.to_string(), spec));
    }
    Ok(out)
}

/// Places a buffer (argument `i`'s, or a `--buffer`, named by `label`) in `machine`'s global
/// memory, through the run's memory budget, and writes its initial contents.
///
/// # Errors
/// The buffer is past the run's memory limit or refused by the host (kind `memory`).
pub(crate) fn place_on(
    machine: &mut emu::exec::Machine,
    contents: &argspec::Contents,
    label: &str,
) -> Result<u64> {
    let addr = machine
        .alloc(contents.len() as u64, label)
        .map_err(launch::memory)?;
    contents.write_with(|off, b| machine.write(addr + off, b));
    Ok(addr)
}

/// Places every buffer argument and named buffer in device memory with `place` (given the
/// initial contents and a label, it allocates, fills and returns the address); scalars pass
/// as bytes; tensor maps and by-value structs are finished with the buffers' addresses.
///
/// # Errors
/// A spec's contents cannot be read, or `place` refuses.
pub(crate) fn lay_out(
    specs: &[ArgSpec],
    named: &[(String, ArgSpec)],
    mut place: impl FnMut(&argspec::Contents, &str) -> Result<u64>,
) -> Result<LaidOut> {
    let mut out = LaidOut {
        values: Vec::new(),
        buffers: Vec::new(),
        named: Vec::new(),
    };
    for (i, spec) in specs.iter().enumerate() {
        match spec {
            ArgSpec::Scalar { bytes, .. } => {
                out.values.push(bytes.clone());
                out.buffers.push(None);
            }
            ArgSpec::Buffer { .. } => {
                let bytes = spec
                    .buffer_contents()
                    .map_err(|e| anyhow!("--arg {i}: {e}"))?;
                let addr = place(&bytes, &format!("argument {i}"))?;
                out.values.push(addr.to_le_bytes().to_vec());
                out.buffers.push(Some((addr, bytes.len())));
            }
            ArgSpec::TensorMap(t) => {
                out.values.push(Vec::new());
                match &t.data {
                    Some(d) => {
                        let bytes = d.buffer_contents().map_err(|e| anyhow!("--arg {i}: {e}"))?;
                        let addr = place(&bytes, &format!("argument {i}"))?;
                        out.buffers.push(Some((addr, bytes.len())));
                    }
                    None => out.buffers.push(None),
                }
            }
            ArgSpec::ByValue(_) => {
                out.values.push(Vec::new());
                out.buffers.push(None);
            }
        }
    }
    for (name, spec) in named {
        let bytes = spec
            .buffer_contents()
            .map_err(|e| anyhow!("--buffer {name}: {e}"))?;
        let addr = place(&bytes, &format!("buffer `{name}`"))?;
        out.named.push((name.clone(), addr, bytes.len()));
    }
    // Tensor maps and structs hold buffer addresses, known once every buffer is placed.
    for (i, spec) in specs.iter().enumerate() {
        match spec {
            ArgSpec::TensorMap(t) => {
                let b = match &t.buf {
                    Some(r) => out
                        .resolve(r)
                        .map_err(|e| anyhow!("--arg {i}: buf=: {e}"))?,
                    None => out.buffers[i].ok_or_else(|| anyhow!("--arg {i}: no tensor"))?,
                };
                out.values[i] = t.bytes(b).map_err(|e| anyhow!("--arg {i}: {e}"))?;
            }
            ArgSpec::ByValue(b) => {
                out.values[i] = b
                    .bytes(&|r| out.resolve(r))
                    .map_err(|e| anyhow!("--arg {i}: {e}"))?;
            }
            ArgSpec::Scalar { .. } | ArgSpec::Buffer { .. } => {}
        }
    }
    Ok(out)
}

/// Parses `--dump N=PATH` (a buffer argument) and `--dump NAME=PATH` (a `--buffer`) against
/// the laid-out arguments; returns each dump's (address, length, path).
pub(crate) fn dumps_of(dumps: &[String], laid: &LaidOut) -> Result<Vec<(u64, usize, PathBuf)>> {
    let mut out = Vec::new();
    for d in dumps {
        let (n, path) = d
            .split_once('=')
            .ok_or_else(|| anyhow!("--dump takes N=PATH or NAME=PATH, got `{d}`"))?;
        let r = BufRef::parse(n).map_err(|_| {
            anyhow!("--dump: `{n}` is neither an argument index nor a --buffer name")
        })?;
        let (addr, len) = match &r {
            BufRef::Index(k) => match laid.buffers.get(*k) {
                Some(Some(b)) => *b,
                Some(None) => bail!("--dump {k}: argument {k} is a scalar, not a buffer"),
                None => bail!(
                    "--dump {k}: there are only {} arguments",
                    laid.buffers.len()
                ),
            },
            BufRef::Name(_) => laid.resolve(&r).map_err(|e| anyhow!("--dump {n}: {e}"))?,
        };
        out.push((addr, len, PathBuf::from(path)));
    }
    Ok(out)
}

/// Writes the dumps, reading final bytes with `read` (into a buffer, at an address).
pub(crate) fn write_dumps(
    dumps: &[(u64, usize, PathBuf)],
    read: impl Fn(u64, &mut [u8]) -> bool,
) -> Result<()> {
    for (addr, len, path) in dumps {
        dump_to(path, *addr, *len as u64, &read)?;
    }
    Ok(())
}

/// Writes the `len` bytes at device address `addr` to `path`, a piece of at most 1 MiB at a
/// time (a 16 GiB buffer needs no 16 GiB of host memory to be dumped).
///
/// # Errors
/// The file cannot be written, or the bytes cannot be read (kind `io`).
pub(crate) fn dump_to(
    path: &std::path::Path,
    addr: u64,
    len: u64,
    read: &impl Fn(u64, &mut [u8]) -> bool,
) -> Result<()> {
    use std::io::Write;
    let cannot = |e: &dyn std::fmt::Display| {
        launch::refuse("io", format!("cannot write {}: {e}", path.display()))
    };
    let f = std::fs::File::create(path).map_err(|e| cannot(&e))?;
    let mut w = std::io::BufWriter::new(f);
    let mut chunk = vec![0u8; len.min(1 << 20) as usize];
    let mut at = 0u64;
    while at < len {
        let n = (len - at).min(chunk.len() as u64) as usize;
        if !read(addr + at, &mut chunk[..n]) {
            return Err(cannot(&format!("0x{:x} is not device memory", addr + at)));
        }
        w.write_all(&chunk[..n]).map_err(|e| cannot(&e))?;
        at += n as u64;
    }
    w.flush().map_err(|e| cannot(&e))
}

/// The `buffers` array of `--json` (values for buffers of at most 4096 elements): buffer
/// arguments (`arg`), then `--buffer`s (`name`, and `arg` null).
pub(crate) fn buffers_json(
    specs: &[ArgSpec],
    named: &[(String, ArgSpec)],
    laid: &LaidOut,
    read: impl Fn(u64, u64) -> Option<Vec<u8>>,
) -> Vec<Json> {
    let mut bufs = Vec::new();
    for (i, (spec, b)) in specs.iter().zip(&laid.buffers).enumerate() {
        let (ArgSpec::Buffer { ty, count, .. }, Some((addr, len))) = (spec, b) else {
            continue;
        };
        let o = launch::buffer_json(i, *ty, *count, *addr, || {
            read(*addr, *len as u64).unwrap_or_default()
        });
        bufs.push(Json::Object(o));
    }
    for ((name, spec), (_, addr, len)) in named.iter().zip(&laid.named) {
        let ArgSpec::Buffer { ty, count, .. } = spec else {
            continue;
        };
        let mut o = launch::buffer_json(0, *ty, *count, *addr, || {
            read(*addr, *len as u64).unwrap_or_default()
        });
        o.insert("arg".into(), Json::Null);
        o.insert("name".into(), Json::String(name.clone()));
        bufs.push(Json::Object(o));
    }
    bufs
}

/// The exit status once the dumps were written: a fault's or conflict's status stands; a dump
/// that failed on a clean run makes it 2. The dump's failure is reported either way.
pub(crate) fn after_dumps(status: u8, dumped: Result<()>) -> u8 {
    match dumped {
        Ok(()) => status,
        Err(e) => {
            errln!("ptxemu: {e:#}");
            if status == 0 {
                2
            } else {
                status
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(shape("4", "grid").unwrap(), [4, 1, 1]);
        assert_eq!(shape("4,2", "grid").unwrap(), [4, 2, 1]);
        assert_eq!(shape("1,2,3", "grid").unwrap(), [1, 2, 3]);
        assert!(shape("0", "grid").is_err());
        assert!(shape("1,2,3,4", "grid").is_err());
        assert!(shape("x", "block").is_err());
    }
}
