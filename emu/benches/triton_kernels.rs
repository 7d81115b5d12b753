//! Where Triton users spend ptxemu's time: Triton 3.9's own builds of three kernels at each
//! tensor-core generation (sm_80 `mma.sync`, sm_90a `wgmma`, sm_100a `tcgen05.mma`), launched
//! as Triton's launcher launches them (`tests/fixtures/triton/bench/`, made by its `gen.py`):
//!
//! * `matmul_fp16_512`: the corpus's pointer matmul, fp16 in, f32 accumulation, fp16 out,
//!   512×512×512 with 128×128×64 tiles (16 CTAs of 4 warps);
//! * `attn_causal_d128`: causal attention forward, head dimension 128, sequence length 512,
//!   128×64 tiles (4 CTAs);
//! * `mm_persistent_512` and `mm_ws_512`: the persistent TMA matmul (device-made tensor
//!   descriptors at sm_90a and sm_100a), plain and warp-specialized, 512×512×512 with
//!   128×64×32 tiles walked by 8 programs.
//!
//! Before criterion runs, the bench checks every build's output against a reference computed
//! here (exact inputs: multiples of 1/8, so the f32 sums are exact and only the final fp16
//! rounding differs) and prints one table measured in one run: for each kernel and target the
//! least of `PTXEMU_BENCH_ROUNDS` (default 3; 0 skips the table) interleaved launches on one
//! host thread (CPU time and wall time) and on two (wall time), the ratio of CPU times to the
//! sm_80 build, the two-thread speed-up, and numpy's float32 matmul of 512³ on one thread
//! (CPU time) beside the matmul (`PTXEMU_PYTHON` names the Python; OpenBLAS, MKL and OpenMP
//! limited to one thread). `PTXEMU_BENCH_TABLE_ONLY=1` stops after the table;
//! `PTXEMU_BENCH_TARGET` keeps one target's builds and `PTXEMU_BENCH_SIZE` sets the matmuls'
//! size (for instruction counts under callgrind). Criterion's throughput is the kernel's FLOPs (2·M·N·K for the
//! matmuls, 4·L²·D/2 for causal attention's two products), so "elem/s" reads as emulated
//! FLOP/s.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use emu::exec::{LaunchConfig, Machine};
use emu::host::triton::TritonMeta;
use std::path::Path;

mod support;

/// One Triton build: the target's name, its PTX and its metadata.
struct Build {
    target: &'static str,
    ptx: &'static str,
    meta: &'static str,
}

macro_rules! build {
    ($target:literal, $dir:literal, $stem:literal) => {
        Build {
            target: $target,
            ptx: include_str!(concat!("../../tests/fixtures/", $dir, "/", $stem, ".ptx")),
            meta: include_str!(concat!("../../tests/fixtures/", $dir, "/", $stem, ".json")),
        }
    };
}

const MATMUL: [Build; 3] = [
    build!("sm80", "triton/bench/matmul_fp16.sm80", "matmul"),
    build!("sm90a", "triton/bench/matmul_fp16.sm90", "matmul"),
    build!("sm100a", "triton/bench/matmul_fp16.sm100", "matmul"),
];
const ATTENTION: [Build; 3] = [
    build!("sm80", "triton/bench/attn_causal.sm80", "attn_causal"),
    build!("sm90a", "triton/bench/attn_causal.sm90", "attn_causal"),
    build!("sm100a", "triton/bench/attn_causal.sm100", "attn_causal"),
];
const PERSISTENT: [Build; 3] = [
    build!("sm80", "triton/bench/mm_persistent.sm80", "mm_persistent"),
    build!("sm90a", "triton/bench/mm_persistent.sm90", "mm_persistent"),
    build!(
        "sm100a",
        "triton/bench/mm_persistent.sm100",
        "mm_persistent"
    ),
];
/// The sm_90a and sm_100a builds are the tensor-core corpus's (the same kernel and tiles).
const WARP_SPECIALIZED: [Build; 3] = [
    build!("sm80", "triton/bench/mm_ws.sm80", "mm_ws"),
    build!("sm90a", "triton/tc/corpus/mm_ws.sm90", "mm_ws"),
    build!("sm100a", "tcgen05_kernels/triton/mm_ws.sm100", "mm_ws"),
];

/// The matmuls' M = N = K: `PTXEMU_BENCH_SIZE` (a multiple of 128), else 512. A smaller size
/// keeps a run under `valgrind --tool=callgrind` short (the instruction counts of
/// docs/performance.md are of 128).
fn size() -> usize {
    let n: usize = std::env::var("PTXEMU_BENCH_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(512);
    assert!(
        n >= 128 && n.is_multiple_of(128),
        "PTXEMU_BENCH_SIZE must be a multiple of 128"
    );
    n
}

/// `PTXEMU_BENCH_TARGET`: only the builds for this target (`sm80`, `sm90a`, `sm100a`).
fn target_wanted(target: &str) -> bool {
    std::env::var("PTXEMU_BENCH_TARGET").map_or(true, |t| t == target)
}
/// Attention's sequence length and head dimension.
const L: usize = 512;
const D: usize = 128;
/// Programs of the persistent matmuls.
const PROGRAMS: u32 = 8;

/// Which kernel a launch runs, and so its arguments, grid and reference.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernel {
    Matmul,
    Attention,
    Persistent,
}

/// Deterministic multiples of 1/8 in [-2, 2] with at most 5 significant bits.
fn eighths(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((x >> 16) % 33) as f32 / 8.0 - 2.0
        })
        .collect()
}

/// The binary16 bits of a float that binary16 holds exactly (normal or zero).
fn half_bits(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + 15;
    assert!((1..31).contains(&exp), "{x} is not a normal binary16");
    assert!(b & 0x1FFF == 0, "{x} is not exact in binary16");
    sign | ((exp as u16) << 10) | ((b >> 13) & 0x3FF) as u16
}

/// The value of binary16 bits.
fn half_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1F);
    let frac = f64::from(h & 0x3FF);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

fn halves(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|&x| half_bits(x).to_le_bytes()).collect()
}

fn buffer(m: &mut Machine, bytes: &[u8]) -> u64 {
    let a = m
        .alloc(bytes.len() as u64, "bench buffer")
        .expect("the bench buffer fits the device");
    assert!(m.write(a, bytes));
    a
}

/// A loaded build with its arguments, ready to launch.
struct Launch {
    machine: Machine,
    cfg: LaunchConfig,
    args: Vec<Vec<u8>>,
    /// The output buffer and its reference values.
    out: u64,
    reference: Vec<f64>,
    /// The largest difference allowed: (relative, absolute).
    tolerance: (f64, f64),
}

fn matmul_reference(a: &[f32], b: &[f32], n: usize) -> Vec<f64> {
    let mut c = vec![0.0f64; n * n];
    for i in 0..n {
        for k in 0..n {
            let x = f64::from(a[i * n + k]);
            for j in 0..n {
                c[i * n + j] += x * f64::from(b[k * n + j]);
            }
        }
    }
    c
}

/// Causal attention of fp16 Q, K, V (L × D, row-major) in f64.
fn attention_reference(q: &[f32], k: &[f32], v: &[f32], scale: f64) -> Vec<f64> {
    let mut o = vec![0.0f64; L * D];
    let mut s = vec![0.0f64; L];
    for i in 0..L {
        for (j, sj) in s.iter_mut().enumerate().take(i + 1) {
            let dot: f64 = (0..D)
                .map(|d| f64::from(q[i * D + d]) * f64::from(k[j * D + d]))
                .sum();
            *sj = dot * scale;
        }
        let max = s[..=i].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let p: Vec<f64> = s[..=i].iter().map(|x| (x - max).exp()).collect();
        let sum: f64 = p.iter().sum();
        for d in 0..D {
            let acc: f64 = p
                .iter()
                .enumerate()
                .map(|(j, pj)| pj * f64::from(v[j * D + d]))
                .sum();
            o[i * D + d] = acc / sum;
        }
    }
    o
}

impl Launch {
    fn new(kernel: Kernel, build: &Build) -> Launch {
        let meta = TritonMeta::parse(build.meta, Path::new("bench.json")).expect("metadata");
        let module = emu::front::parse_module(build.ptx, "bench.ptx").expect("PTX parses");
        let mut m = Machine::load(
            &emu::validate::Validated::new(module).expect("the module validates"),
            "bench.ptx",
        )
        .expect("PTX decodes");
        let (mut args, grid, out, reference, tolerance) = match kernel {
            Kernel::Matmul | Kernel::Persistent => {
                #[allow(non_snake_case)]
                let N = size();
                let a = eighths(N * N, 1);
                let b = eighths(N * N, 2);
                let pa = buffer(&mut m, &halves(&a));
                let pb = buffer(&mut m, &halves(&b));
                let pc = buffer(&mut m, &vec![0; N * N * 2]);
                let n = (N as u32).to_le_bytes().to_vec();
                let mut args = vec![pa.to_le_bytes().to_vec(), pb.to_le_bytes().to_vec()];
                args.push(pc.to_le_bytes().to_vec());
                let grid = if kernel == Kernel::Matmul {
                    // M, N, K, stride_am, stride_bk, stride_cm
                    args.extend(std::iter::repeat_n(n, 6));
                    [(N / 128) as u32, (N / 128) as u32, 1]
                } else {
                    args.extend(std::iter::repeat_n(n, 3));
                    args.push(PROGRAMS.to_le_bytes().to_vec());
                    [PROGRAMS, 1, 1]
                };
                // f32 sums of these inputs are exact; the fp16 output is rounded once.
                (
                    args,
                    grid,
                    pc,
                    matmul_reference(&a, &b, N),
                    (1.0 / 1024.0, 0.0),
                )
            }
            Kernel::Attention => {
                let q: Vec<f32> = eighths(L * D, 3).iter().map(|x| x / 2.0).collect();
                let k: Vec<f32> = eighths(L * D, 4).iter().map(|x| x / 2.0).collect();
                let v = eighths(L * D, 5);
                let scale = 1.0 / (D as f32).sqrt();
                let mut args = Vec::new();
                for t in [&q, &k, &v] {
                    args.push(buffer(&mut m, &halves(t)).to_le_bytes().to_vec());
                }
                let po = buffer(&mut m, &vec![0; L * D * 2]);
                args.push(po.to_le_bytes().to_vec());
                args.push(scale.to_le_bytes().to_vec());
                args.push((L as u32).to_le_bytes().to_vec());
                let reference = attention_reference(&q, &k, &v, f64::from(scale));
                // ex2.approx and P rounded to fp16 (as the attention fixtures allow).
                (args, [(L / 128) as u32, 1, 1], po, reference, (1e-2, 4e-3))
            }
        };
        let params = m.kernel_params(&meta.name).expect("kernel").to_vec();
        let ctas = grid.iter().map(|&g| u64::from(g)).product();
        for bytes in meta.scratch(&params, args.len(), ctas).expect("scratch") {
            let p = if bytes == 0 {
                0
            } else {
                m.alloc(bytes, "Triton scratch")
                    .expect("the scratch fits the device")
            };
            args.push(p.to_le_bytes().to_vec());
        }
        let mut cfg = LaunchConfig::new(&meta.name, grid, [meta.threads(), 1, 1]);
        cfg.dynamic_shared = meta.shared;
        Launch {
            machine: m,
            cfg,
            args,
            out,
            reference,
            tolerance,
        }
    }

    /// One launch on `threads` host threads: (CPU seconds, wall seconds).
    fn run(&mut self, threads: usize) -> (f64, f64) {
        self.cfg.threads = threads;
        let (machine, cfg, args) = (&mut self.machine, &self.cfg, &self.args);
        support::timed(|| {
            let r = machine.launch(cfg, args).expect("launch");
            assert!(r.fault.is_none(), "{}: {:?}", cfg.kernel, r.fault);
            black_box(r);
        })
    }

    /// Compares the output with the reference.
    fn check(&self, what: &str) {
        let n = self.reference.len();
        let bytes = self.machine.read(self.out, n as u64 * 2).expect("output");
        let (rel, abs) = self.tolerance;
        for (i, (h, r)) in bytes.chunks(2).zip(&self.reference).enumerate() {
            let got = half_value(u16::from_le_bytes([h[0], h[1]]));
            assert!(
                (got - r).abs() <= rel * r.abs() + abs,
                "{what}: element {i} is {got}, the reference {r}"
            );
        }
    }
}

/// numpy's float32 512³ matmul on one thread, in CPU seconds (the least of 20), if Python and
/// numpy are there.
fn numpy_matmul_seconds() -> Option<f64> {
    let py = std::env::var("PTXEMU_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = "import os\n\
        for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'): os.environ[v] = '1'\n\
        import numpy as np, time\n\
        a = np.random.rand(512, 512).astype(np.float32); b = np.random.rand(512, 512).astype(np.float32)\n\
        a @ b\n\
        best = 1e9\n\
        for _ in range(20):\n\
        \x20   t = time.process_time(); a @ b; best = min(best, time.process_time() - t)\n\
        print(best)\n";
    let out = std::process::Command::new(py)
        .args(["-c", script])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// The kernels of the bench: group name, kernel, builds, FLOPs.
fn kernels() -> [(&'static str, Kernel, &'static [Build; 3], u64); 4] {
    let mm = 2 * (size() as u64).pow(3);
    // Causal: half of the L × L scores, two products of 2·D FLOPs each.
    let attn = 2 * 2 * (L as u64) * (L as u64) * (D as u64) / 2;
    [
        ("matmul_fp16_512", Kernel::Matmul, &MATMUL, mm),
        ("attn_causal_d128", Kernel::Attention, &ATTENTION, attn),
        ("mm_persistent_512", Kernel::Persistent, &PERSISTENT, mm),
        ("mm_ws_512", Kernel::Persistent, &WARP_SPECIALIZED, mm),
    ]
}

/// The table of ratios, every figure from this one run: each build launched `rounds` times,
/// interleaved with the others, on one host thread and on two.
fn paired_table(filter: Option<&str>) {
    let rounds = support::rounds(3);
    if rounds == 0 {
        return;
    }
    let numpy = numpy_matmul_seconds();
    eprintln!(
        "paired launches, least of {rounds} rounds; load {} (1-minute average)",
        support::load()
    );
    eprintln!(
        "kernel             target  1T CPU s  1T wall s  2T wall s  2T speed-up  CPU vs sm80"
    );
    for (name, kernel, builds, _) in kernels() {
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let builds: Vec<&Build> = builds.iter().filter(|b| target_wanted(b.target)).collect();
        let mut launches: Vec<Launch> = builds.iter().map(|b| Launch::new(kernel, b)).collect();
        // (one-thread CPU, one-thread wall, two-thread wall)
        let mut best = vec![[f64::INFINITY; 3]; launches.len()];
        for _ in 0..rounds {
            for (l, b) in launches.iter_mut().zip(&mut best) {
                let (cpu, wall) = l.run(1);
                let (_, wall2) = l.run(2);
                b[0] = b[0].min(cpu);
                b[1] = b[1].min(wall);
                b[2] = b[2].min(wall2);
            }
        }
        for ((l, b), build) in launches.iter().zip(&best).zip(builds.iter()) {
            l.check(&format!("{name} {}", build.target));
            eprintln!(
                "{name:<18} {:<7} {:>8.3}  {:>9.3}  {:>9.3}  {:>10.2}x  {:>10.2}x",
                build.target,
                b[0],
                b[1],
                b[2],
                b[1] / b[2],
                b[0] / best[0][0]
            );
        }
        if kernel == Kernel::Matmul && builds.len() == 3 {
            match numpy {
                Some(s) => eprintln!(
                    "{name:<18} numpy float32 one thread {:.2} ms CPU: sm80 is {:.0}x, sm90a {:.0}x, sm100a {:.0}x",
                    s * 1e3,
                    best[0][0] / s,
                    best[1][0] / s,
                    best[2][0] / s
                ),
                None => eprintln!("{name:<18} numpy not found (set PTXEMU_PYTHON)"),
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    // `cargo bench --bench triton_kernels -- NAME[/TARGET/THREADS]` runs the groups whose name
    // holds NAME (criterion's filter is the last argument that is not an option).
    let filter = std::env::args()
        .skip(1)
        .rfind(|a| !a.starts_with('-'))
        .and_then(|a| a.split('/').next().map(str::to_string))
        .filter(|a| !a.is_empty());
    paired_table(filter.as_deref());
    if support::table_only() {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (name, kernel, builds, flops) in kernels() {
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        g.throughput(Throughput::Elements(flops));
        for build in builds.iter() {
            if !target_wanted(build.target) {
                continue;
            }
            if filter.as_deref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            let mut l = Launch::new(kernel, build);
            for threads in [1, cores] {
                let id = BenchmarkId::new(build.target, format!("threads_{threads}"));
                g.bench_function(id, |b| b.iter(|| l.run(threads)));
            }
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
