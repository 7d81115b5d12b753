//! Tensor-core throughput: the Triton 3.9 fp16 matmul of the corpus
//! (`tests/fixtures/triton/corpus/matmul_fp16.div.sm80`, 64×64 tiles, BK 32, three cp.async
//! stages, ldmatrix and `mma.sync.m16n8k16` with f32 accumulation) on 512×512×512, on one host
//! thread. Criterion's throughput is the multiplication's 2·512³ floating-point operations, so
//! "elem/s" reads as emulated FLOP/s per core.
//!
//! Beside it the bench prints numpy's float32 `a @ b` on one core of the same machine, when a
//! Python with numpy is found (`PTXEMU_PYTHON`, default `python3`); otherwise the figure
//! measured when the bench was written (see README, "Triton kernels and asynchronous copies").
//!
//! The launch takes what Triton's `matmul.json` says (num_warps 4, shared 16384) and passes its
//! two trailing scratch pointers as null, as `ptxemu run` does.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use emu::exec::{LaunchConfig, Machine};

const PTX: &str =
    include_str!("../../tests/fixtures/triton/corpus/matmul_fp16.div.sm80/matmul.ptx");
const META: &str =
    include_str!("../../tests/fixtures/triton/corpus/matmul_fp16.div.sm80/matmul.json");
const N: usize = 512;
const TILE: usize = 64;

/// numpy's float32 matmul 512³ on one core of the development machine, printed when the bench
/// cannot run Python itself.
const NUMPY_RECORDED: &str =
    "recorded on the 2-core AMD EPYC development machine: numpy float32 matmul 512^3, one thread, 97 GFLOP/s";

/// Deterministic binary16 bits of values in [-1, 1).
fn halves(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .flat_map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            // sign, exponent 2^-4..2^-1, ten random fraction bits
            let s = (x >> 31) as u16;
            let e = 11 + ((x >> 24) & 3) as u16;
            let f = ((x >> 8) & 0x3FF) as u16;
            ((s << 15) | (e << 10) | f).to_le_bytes()
        })
        .collect()
}

fn buffer(m: &mut Machine, bytes: &[u8]) -> Vec<u8> {
    let a = m.alloc(bytes.len() as u64, "bench buffer").unwrap();
    m.write(a, bytes);
    a.to_le_bytes().to_vec()
}

fn setup() -> (Machine, LaunchConfig, Vec<Vec<u8>>) {
    assert!(
        META.contains("\"num_warps\": 4") && META.contains("\"shared\": 16384"),
        "matmul.json no longer says num_warps 4 and shared 16384"
    );
    let module = emu::front::parse_module(PTX, "matmul.ptx").expect("matmul PTX parses");
    let mut m = Machine::load(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "matmul.ptx",
    )
    .expect("matmul PTX decodes");
    let mut args = vec![
        buffer(&mut m, &halves(N * N, 1)),
        buffer(&mut m, &halves(N * N, 2)),
        buffer(&mut m, &vec![0; N * N * 2]),
    ];
    // M, N, K, stride_am, stride_bk, stride_cm; then Triton's two scratch pointers.
    for _ in 0..6 {
        args.push((N as u32).to_le_bytes().to_vec());
    }
    args.push(0u64.to_le_bytes().to_vec());
    args.push(0u64.to_le_bytes().to_vec());
    let t = (N / TILE) as u32;
    let mut cfg = LaunchConfig::new("matmul", [t, t, 1], [128, 1, 1]);
    cfg.dynamic_shared = 16384;
    cfg.threads = 1;
    (m, cfg, args)
}

/// numpy's float32 512³ matmul on one thread, in GFLOP/s, if Python and numpy are there.
fn numpy_gflops() -> Option<f64> {
    let py = std::env::var("PTXEMU_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = "import os\n\
        os.environ['OMP_NUM_THREADS']='1'; os.environ['OPENBLAS_NUM_THREADS']='1'\n\
        os.environ['MKL_NUM_THREADS']='1'\n\
        import numpy as np, time\n\
        a=np.random.rand(512,512).astype(np.float32); b=np.random.rand(512,512).astype(np.float32)\n\
        a@b\n\
        best=1e9\n\
        for _ in range(20):\n\
        \x20   t=time.perf_counter(); a@b; best=min(best,time.perf_counter()-t)\n\
        print(2*512**3/best/1e9)\n";
    let out = std::process::Command::new(py)
        .args(["-c", script])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

fn bench(c: &mut Criterion) {
    let (mut m, cfg, args) = setup();
    let probe = m.launch(&cfg, &args).expect("launch");
    assert!(probe.fault.is_none(), "matmul: {:?}", probe.fault);
    match numpy_gflops() {
        Some(g) => eprintln!("numpy float32 matmul 512^3, one thread: {g:.1} GFLOP/s"),
        None => eprintln!("numpy not found; {NUMPY_RECORDED}"),
    }
    let mut g = c.benchmark_group("triton_matmul_fp16_512");
    g.sample_size(10);
    g.throughput(Throughput::Elements(2 * (N as u64).pow(3)));
    g.bench_function("ptxemu_threads_1", |bch| {
        bch.iter(|| black_box(m.launch(&cfg, &args).expect("launch")))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
