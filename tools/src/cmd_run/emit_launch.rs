//! `ptxemu run ... --emit-launch DIR`: the launch a run would make, written as a plan a CUDA
//! driver-API host (`tools/gpu/launch_host.cu`) replays on a GPU, instead of running it.
//!
//! DIR gets `module.ptx` (a copy of the module), `argN.bin` (each buffer's initial bytes,
//! also those of a tensor map's own `data=` buffer, under the map's index) and `launch.txt`,
//! one record a line, words separated by single spaces:
//!
//! ```text
//! ptxemu-launch 1
//! module module.ptx
//! kernel NAME
//! grid X Y Z
//! block X Y Z
//! cluster X Y Z            (0 0 0: none given; the kernel's .reqnctapercluster, if any, applies)
//! shared BYTES             (dynamic shared memory)
//! params N
//! data I BYTES argI.bin    (a tensor map's own buffer, before the params)
//! param I scalar SIZE HEX  (the parameter's bytes in memory order)
//! param I buffer BYTES argI.bin
//! param I tmap tiled DTYPE RANK DIMS.. STRIDES.. BOX.. ESTRIDES.. INTERLEAVE SWIZZLE L2 OOB BUF OFFSET
//! param I tmap im2col DTYPE RANK DIMS.. STRIDES.. ESTRIDES.. INTERLEAVE SWIZZLE L2 OOB
//!     LOWER.. UPPER.. CHANNELS PIXELS BUF OFFSET          (one line)
//! end
//! ```
//!
//! Tensor-map numbers are the CUDA driver's enums (`CUtensorMapDataType`, `...Interleave`,
//! `...Swizzle`, `...L2promotion`, `...FloatOOBfill`); DIMS has RANK entries, STRIDES RANK-1
//! (bytes, dimensions 1 and up), BOX and ESTRIDES RANK, LOWER and UPPER RANK-2. BUF is the
//! parameter index whose buffer holds the tensor (the map's own index for `data=`), OFFSET
//! bytes into it. What the host cannot replay (module variables, plans, SASS) is refused.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use emu::semantics::tma::{Dtype, TensorMap};

use super::RunArgs;
use crate::argspec::{ArgSpec, BufRef};
use crate::launch;
use crate::tmap_arg::TmapSpec;

/// Refuses, before anything else, the options a replaying host could not reproduce.
///
/// # Errors
/// The option, named (exit status 2).
pub(super) fn refuse_unreplayable(a: &RunArgs) -> Result<()> {
    let bad = [
        ("--plan", a.plan.is_some()),
        ("--isa sass", a.isa == "sass"),
        ("--set", !a.sets.is_empty()),
        ("--dump-var", !a.dump_vars.is_empty()),
        ("--dump", !a.dumps.is_empty()),
        ("--buffer", !a.buffers.is_empty()),
    ];
    match bad.iter().find(|b| b.1) {
        Some((flag, _)) => Err(launch::refuse(
            "options",
            format!(
                "--emit-launch cannot be combined with {flag}: the replaying host launches one PTX kernel with its arguments only{}",
                if *flag == "--dump" {
                    " (it writes every buffer to DIR/out/argN.bin)"
                } else {
                    ""
                }
            ),
        )),
        None => Ok(()),
    }
}

/// The launch, as resolved by the run (Triton metadata and scratch arguments applied).
pub(super) struct Launch<'a> {
    /// The PTX file.
    pub file: &'a Path,
    /// The kernel.
    pub kernel: &'a str,
    /// Grid in CTAs.
    pub grid: [u32; 3],
    /// CTA shape.
    pub block: [u32; 3],
    /// `--cluster`, if given.
    pub cluster: Option<[u32; 3]>,
    /// Dynamic shared memory bytes.
    pub shared_bytes: u32,
}

/// CUDA's `CUtensorMapDataType` for ptxemu's (PTX `tensormap.replace`) element-type number.
fn driver_dtype(code: u32) -> Result<u32> {
    let d = Dtype::from_code(code)
        .ok_or_else(|| launch::refuse("arguments", format!("tensor-map dtype {code}")))?;
    Ok(match d {
        Dtype::U8 => 0,
        Dtype::U16 => 1,
        Dtype::U32 => 2,
        Dtype::S32 => 3,
        Dtype::U64 => 4,
        Dtype::S64 => 5,
        Dtype::F16 => 6,
        Dtype::F32 => 7,
        Dtype::F64 => 8,
        Dtype::Bf16 => 9,
        Dtype::F32Ftz => 10,
        Dtype::Tf32 => 11,
        Dtype::Tf32Ftz => 12,
    })
}

/// CUDA's `CUtensorMapSwizzle` for ptxemu's swizzle mode and atomicity.
fn driver_swizzle(m: &TensorMap) -> u32 {
    if m.atomicity > 0 {
        3 + m.atomicity
    } else {
        m.swizzle
    }
}

fn words<T: ToString>(v: &[T]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `param I tmap ...` record of tensor-map argument `i`.
fn tmap_line(i: usize, t: &TmapSpec) -> Result<String> {
    let m = &t.map;
    let r = m.rank as usize;
    let mut s = format!(
        "param {i} tmap {} {} {r} {} {}",
        if m.im2col { "im2col" } else { "tiled" },
        driver_dtype(m.dtype)?,
        words(&m.dims[..r]),
        words(&m.strides[1..r]),
    );
    if !m.im2col {
        write!(s, " {}", words(&m.boxes[..r]))?;
    }
    write!(
        s,
        " {} {} {} {} {}",
        words(&m.estrides[..r]),
        m.interleave,
        driver_swizzle(m),
        m.l2,
        m.fill
    )?;
    if m.im2col {
        let sp = r - 2;
        write!(
            s,
            " {} {} {} {}",
            words(&m.lower[..sp]),
            words(&m.upper[..sp]),
            m.boxes[0],
            m.pixels
        )?;
    }
    let buf = match &t.buf {
        None => i,
        Some(BufRef::Index(k)) => *k,
        Some(BufRef::Name(n)) => {
            return Err(launch::refuse(
                "arguments",
                format!("--arg {i}: --emit-launch replays tensor maps over buffer arguments, not over --buffer `{n}`"),
            ))
        }
    };
    write!(s, " {buf} {}", m.addr)?;
    Ok(s.replace("  ", " "))
}

fn io(what: &Path, e: impl std::fmt::Display) -> anyhow::Error {
    launch::refuse("io", format!("--emit-launch: {}: {e}", what.display()))
}

/// Writes buffer argument `i`'s initial bytes to `dir/argI.bin`; returns its size.
fn write_buffer(dir: &Path, i: usize, spec: &ArgSpec) -> Result<usize> {
    let bytes = spec
        .buffer_bytes()
        .map_err(|e| launch::refuse("arguments", format!("--arg {i}: {e}")))?;
    let path = dir.join(format!("arg{i}.bin"));
    std::fs::write(&path, &bytes).map_err(|e| io(&path, e))?;
    Ok(bytes.len())
}

/// Writes the plan of launch `l` with arguments `specs` to `dir` (created if missing).
///
/// # Errors
/// An argument the host cannot replay, a tensor map pointing at a scalar, or an unwritable
/// folder (exit status 2).
pub(super) fn emit(dir: &Path, l: &Launch, specs: &[ArgSpec]) -> Result<ExitCode> {
    launch::check_shape(l.grid, l.block)?;
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let module = dir.join("module.ptx");
    std::fs::copy(l.file, &module).map_err(|e| io(&module, e))?;
    let c = l.cluster.unwrap_or([0; 3]);
    let mut out = format!(
        "ptxemu-launch 1\nmodule module.ptx\nkernel {}\ngrid {}\nblock {}\ncluster {}\nshared {}\nparams {}\n",
        l.kernel,
        words(&l.grid),
        words(&l.block),
        words(&c),
        l.shared_bytes,
        specs.len()
    );
    let mut params = String::new();
    for (i, spec) in specs.iter().enumerate() {
        match spec {
            ArgSpec::Scalar { bytes, .. } => {
                let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                writeln!(params, "param {i} scalar {} {hex}", bytes.len())?;
            }
            ArgSpec::Buffer { .. } => {
                let n = write_buffer(dir, i, spec)?;
                writeln!(params, "param {i} buffer {n} arg{i}.bin")?;
            }
            ArgSpec::TensorMap(t) => {
                match (&t.data, &t.buf) {
                    (Some(d), _) => {
                        let n = write_buffer(dir, i, d)?;
                        writeln!(out, "data {i} {n} arg{i}.bin")?;
                    }
                    (None, Some(BufRef::Index(k)))
                        if !matches!(specs.get(*k), Some(ArgSpec::Buffer { .. })) =>
                    {
                        return Err(launch::refuse(
                            "arguments",
                            format!("--arg {i}: buf={k} is not a buffer argument"),
                        ));
                    }
                    _ => {}
                }
                writeln!(params, "{}", tmap_line(i, t)?)?;
            }
            ArgSpec::ByValue(_) => {
                return Err(launch::refuse(
                    "arguments",
                    format!("--arg {i}: --emit-launch does not replay structs holding buffer addresses or tensor maps yet"),
                ));
            }
        }
    }
    out.push_str(&params);
    out.push_str("end\n");
    let path = dir.join("launch.txt");
    std::fs::write(&path, out).map_err(|e| io(&path, e))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_enums() {
        // CUtensorMapDataType: FLOAT64 8, BFLOAT16 9, FLOAT32_FTZ 10 (PTX orders them
        // f32.ftz, f64, bf16).
        let code = |n: &str| Dtype::from_name(n).unwrap().code();
        assert_eq!(driver_dtype(code("f64")).unwrap(), 8);
        assert_eq!(driver_dtype(code("bf16")).unwrap(), 9);
        assert_eq!(driver_dtype(code("f32_ftz")).unwrap(), 10);
        assert_eq!(driver_dtype(code("tf32_ftz")).unwrap(), 12);
        let t = crate::tmap_arg::parse(
            "tiled,dtype=f16,buf=0,dims=64x8,strides=128,box=64x8,swizzle=128B_atom_64B",
        )
        .unwrap();
        assert_eq!(driver_swizzle(&t.map), 6);
        assert_eq!(
            tmap_line(1, &t).unwrap(),
            "param 1 tmap tiled 6 2 64 8 128 64 8 1 1 0 6 0 0 0 0"
        );
    }
}
