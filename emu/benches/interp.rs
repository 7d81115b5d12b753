//! Interpreter throughput: thread-instructions per second on vectorAdd (2^22 elements), a
//! shared-memory reduction (2^20 elements) and a tiled 256x256 matrix multiply, each beside a
//! native Rust implementation of the same algorithm (compiled with the bench, so at
//! `opt-level = 3`), on one host thread and on all cores.
//!
//! Before criterion runs, the bench prints the ratios of the goals measured in one run:
//! each kernel's one-thread launch against its native loop (CPU time) and against its
//! two-thread launch (wall time), the least of `PTXEMU_BENCH_ROUNDS` (default 5; 0 skips the
//! table) interleaved rounds. `PTXEMU_BENCH_TABLE_ONLY=1` stops after the table.
//!
//! The PTX comes from `benches/kernels/bench_kernels.cu` (nvcc 13, committed). Criterion's
//! throughput is set to the launch's thread-instruction count, so "elem/s" reads as
//! thread-instructions per second.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use emu::exec::{LaunchConfig, Machine};

mod support;

const PTX: &str = include_str!("kernels/bench_kernels.ptx");

struct Setup {
    machine: Machine,
    cfg: LaunchConfig,
    args: Vec<Vec<u8>>,
}

fn machine() -> Machine {
    let module = emu::front::parse_module(PTX, "bench_kernels.ptx").expect("bench PTX parses");
    Machine::load(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "bench_kernels.ptx",
    )
    .expect("bench PTX decodes")
}

fn buffer(m: &mut Machine, bytes: &[u8]) -> Vec<u8> {
    let a = m.alloc(bytes.len() as u64, "bench buffer").unwrap();
    m.write(a, bytes);
    a.to_le_bytes().to_vec()
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        })
        .collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const N_VEC: usize = 1 << 22;
const N_RED: usize = 1 << 20;
const N_MAT: usize = 256;

fn setup_vector_add(threads: usize) -> Setup {
    let mut m = machine();
    let a = floats(N_VEC, 1);
    let b = floats(N_VEC, 2);
    let args = vec![
        buffer(&mut m, &bytes_f32(&a)),
        buffer(&mut m, &bytes_f32(&b)),
        buffer(&mut m, &vec![0; N_VEC * 4]),
        (N_VEC as i32).to_le_bytes().to_vec(),
    ];
    let mut cfg = LaunchConfig::new("vector_add", [(N_VEC / 256) as u32, 1, 1], [256, 1, 1]);
    cfg.threads = threads;
    Setup {
        machine: m,
        cfg,
        args,
    }
}

fn setup_reduce(threads: usize) -> Setup {
    let mut m = machine();
    let input: Vec<u8> = (0..N_RED as u32)
        .flat_map(|i| (i % 1000).to_le_bytes())
        .collect();
    let blocks = N_RED / 512;
    let args = vec![
        buffer(&mut m, &input),
        buffer(&mut m, &vec![0; blocks * 4]),
        (N_RED as i32).to_le_bytes().to_vec(),
    ];
    let mut cfg = LaunchConfig::new("reduce_sum", [blocks as u32, 1, 1], [256, 1, 1]);
    cfg.threads = threads;
    Setup {
        machine: m,
        cfg,
        args,
    }
}

fn setup_matmul(threads: usize) -> Setup {
    let mut m = machine();
    let a = floats(N_MAT * N_MAT, 3);
    let b = floats(N_MAT * N_MAT, 4);
    let args = vec![
        buffer(&mut m, &bytes_f32(&a)),
        buffer(&mut m, &bytes_f32(&b)),
        buffer(&mut m, &vec![0; N_MAT * N_MAT * 4]),
        (N_MAT as i32).to_le_bytes().to_vec(),
    ];
    let t = (N_MAT / 16) as u32;
    let mut cfg = LaunchConfig::new("matmul_tiled", [t, t, 1], [16, 16, 1]);
    cfg.threads = threads;
    Setup {
        machine: m,
        cfg,
        args,
    }
}

fn native_vector_add(a: &[f32], b: &[f32], c: &mut [f32]) {
    for ((c, a), b) in c.iter_mut().zip(a).zip(b) {
        *c = a + b;
    }
}

fn native_reduce(input: &[u32], out: &mut [u32]) {
    // The same tree as the kernel: pairs of 256-element halves, then halving strides.
    for (blk, o) in out.iter_mut().enumerate() {
        let base = blk * 512;
        let mut s = [0u32; 256];
        for (t, v) in s.iter_mut().enumerate() {
            *v = input[base + t].wrapping_add(input[base + t + 256]);
        }
        let mut k = 128;
        while k > 0 {
            for t in 0..k {
                s[t] = s[t].wrapping_add(s[t + k]);
            }
            k /= 2;
        }
        *o = s[0];
    }
}

fn native_matmul_with(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc = a[row * n + k].mul_add(b[k * n + col], acc);
            }
            c[row * n + col] = acc;
        }
    }
}

/// The same loop compiled with the FMA instruction, so `mul_add` is one instruction rather than
/// a libm call (the baseline would otherwise flatter the interpreter).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn native_matmul_fma(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    native_matmul_with(a, b, c, n)
}

fn native_matmul(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports FMA, checked just above.
        return unsafe { native_matmul_fma(a, b, c, n) };
    }
    native_matmul_with(a, b, c, n)
}

/// The goals' ratios from one run: ptxemu on one host thread against the native loop (CPU
/// time, the native loop repeated to run as long) and ptxemu on one host thread against two
/// (wall time), interleaved round by round.
fn paired_table() {
    let rounds = support::rounds(5);
    if rounds == 0 {
        return;
    }
    eprintln!(
        "paired, least of {rounds} rounds; load {} (1-minute average)",
        support::load()
    );
    eprintln!("kernel          native CPU s  1T CPU s  1T/native  1T wall s  2T wall s  speed-up");
    type Native = Box<dyn FnMut()>;
    type Kernel = (&'static str, fn(usize) -> Setup, Native);
    let kernels: [Kernel; 3] = [
        ("vector_add_4M", setup_vector_add, {
            let (a, b) = (floats(N_VEC, 1), floats(N_VEC, 2));
            let mut out = vec![0.0; N_VEC];
            Box::new(move || native_vector_add(black_box(&a), black_box(&b), &mut out))
        }),
        ("reduce_1M", setup_reduce, {
            let input: Vec<u32> = (0..N_RED as u32).map(|i| i % 1000).collect();
            let mut out = vec![0; N_RED / 512];
            Box::new(move || native_reduce(black_box(&input), &mut out))
        }),
        ("matmul_256", setup_matmul, {
            let (a, b) = (floats(N_MAT * N_MAT, 3), floats(N_MAT * N_MAT, 4));
            let mut out = vec![0.0; N_MAT * N_MAT];
            Box::new(move || native_matmul(black_box(&a), black_box(&b), &mut out, N_MAT))
        }),
    ];
    for (name, make, mut native) in kernels {
        let mut one = make(1);
        let mut two = make(2);
        let mut best = [f64::INFINITY; 4];
        for _ in 0..rounds {
            let (cpu, wall) = support::timed(|| {
                black_box(one.machine.launch(&one.cfg, &one.args).expect("launch"));
            });
            // The native loop as many times as fit in the launch's time (a few milliseconds
            // are too short for the CPU clock to resolve well).
            let reps = 20;
            let (native_cpu, _) = support::timed(|| (0..reps).for_each(|_| native()));
            let (_, wall2) = support::timed(|| {
                black_box(two.machine.launch(&two.cfg, &two.args).expect("launch"));
            });
            best[0] = best[0].min(native_cpu / f64::from(reps));
            best[1] = best[1].min(cpu);
            best[2] = best[2].min(wall);
            best[3] = best[3].min(wall2);
        }
        eprintln!(
            "{name:<15} {:>12.5}  {:>8.4}  {:>8.1}x  {:>9.4}  {:>9.4}  {:>7.2}x",
            best[0],
            best[1],
            best[1] / best[0],
            best[2],
            best[3],
            best[2] / best[3]
        );
    }
}

fn bench(c: &mut Criterion) {
    paired_table();
    if support::table_only() {
        return;
    }
    type Make = fn(usize) -> Setup;
    let kernels: [(&str, Make); 3] = [
        ("vector_add_4M", setup_vector_add),
        ("reduce_1M", setup_reduce),
        ("matmul_256", setup_matmul),
    ];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (name, make) in kernels {
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        for threads in [1, cores] {
            let mut s = make(threads);
            let probe = s.machine.launch(&s.cfg, &s.args).expect("launch");
            assert!(probe.fault.is_none(), "{name}: {:?}", probe.fault);
            g.throughput(Throughput::Elements(probe.counts.thread_instructions));
            g.bench_function(BenchmarkId::new("ptxemu_threads", threads), |bch| {
                bch.iter(|| black_box(s.machine.launch(&s.cfg, &s.args).expect("launch")))
            });
        }
        match name {
            "vector_add_4M" => {
                let a = floats(N_VEC, 1);
                let b = floats(N_VEC, 2);
                let mut out = vec![0.0; N_VEC];
                g.bench_function("native", |bch| {
                    bch.iter(|| native_vector_add(black_box(&a), black_box(&b), &mut out))
                });
            }
            "reduce_1M" => {
                let input: Vec<u32> = (0..N_RED as u32).map(|i| i % 1000).collect();
                let mut out = vec![0; N_RED / 512];
                g.bench_function("native", |bch| {
                    bch.iter(|| native_reduce(black_box(&input), &mut out))
                });
            }
            _ => {
                let a = floats(N_MAT * N_MAT, 3);
                let b = floats(N_MAT * N_MAT, 4);
                let mut out = vec![0.0; N_MAT * N_MAT];
                g.bench_function("native", |bch| {
                    bch.iter(|| native_matmul(black_box(&a), black_box(&b), &mut out, N_MAT))
                });
            }
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
