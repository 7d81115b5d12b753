//! Cost of `--race`: the same launch with and without the race detector, on one host thread
//! (the detector always runs on one), for the interpreter benchmark's kernels at smaller
//! sizes: vectorAdd (64K elements, global memory only), a shared-memory tree reduction (64K
//! elements, `bar.sync` every step) and a tiled 64×64 matrix multiply (shared tiles, two
//! barriers per tile), and the same matrix multiply at 256×256, the size of the goal:
//! at most 10× the plain run. Before criterion runs, the bench prints each kernel's ratio
//! measured in one run (CPU time, the least of `PTXEMU_BENCH_ROUNDS`, default 5, interleaved
//! rounds; 0 skips the table, `PTXEMU_BENCH_TABLE_ONLY=1` stops after it).

use criterion::{criterion_group, criterion_main, Criterion};
use emu::exec::{LaunchConfig, Machine};
use emu::race::RaceOptions;

mod support;

const PTX: &str = include_str!("kernels/bench_kernels.ptx");

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

/// A machine with the kernel's buffers, the launch and its arguments.
fn setup(kernel: &str) -> (Machine, LaunchConfig, Vec<Vec<u8>>) {
    let mut m = machine();
    let ones = |n: usize| -> Vec<u8> { (0..n).flat_map(|_| 1.0f32.to_le_bytes()).collect() };
    let (cfg, args) = match kernel {
        "vector_add" => {
            let n = 1 << 16;
            let args = vec![
                buffer(&mut m, &ones(n)),
                buffer(&mut m, &ones(n)),
                buffer(&mut m, &vec![0; n * 4]),
                (n as i32).to_le_bytes().to_vec(),
            ];
            (
                LaunchConfig::new(kernel, [(n / 256) as u32, 1, 1], [256, 1, 1]),
                args,
            )
        }
        "reduce_sum" => {
            let n = 1 << 16;
            let blocks = n / 512;
            let args = vec![
                buffer(&mut m, &vec![1; n * 4]),
                buffer(&mut m, &vec![0; blocks * 4]),
                (n as i32).to_le_bytes().to_vec(),
            ];
            (
                LaunchConfig::new(kernel, [blocks as u32, 1, 1], [256, 1, 1]),
                args,
            )
        }
        "matmul_tiled" | "matmul_tiled_256" => {
            let n = if kernel == "matmul_tiled" { 64 } else { 256 };
            let args = vec![
                buffer(&mut m, &ones(n * n)),
                buffer(&mut m, &ones(n * n)),
                buffer(&mut m, &vec![0; n * n * 4]),
                (n as i32).to_le_bytes().to_vec(),
            ];
            let t = (n / 16) as u32;
            (
                LaunchConfig::new("matmul_tiled", [t, t, 1], [16, 16, 1]),
                args,
            )
        }
        other => panic!("no bench kernel {other}"),
    };
    (m, cfg, args)
}

const KERNELS: [&str; 4] = [
    "vector_add",
    "reduce_sum",
    "matmul_tiled",
    "matmul_tiled_256",
];

/// `--race` against the plain run, interleaved round by round, from this one run (CPU time).
fn paired_table() {
    let rounds = support::rounds(5);
    if rounds == 0 {
        return;
    }
    eprintln!(
        "paired, least of {rounds} rounds, one host thread, CPU seconds; load {} (1-minute average)",
        support::load()
    );
    eprintln!("kernel              plain      race  race/plain");
    for kernel in KERNELS {
        let mut runs: Vec<_> = [false, true]
            .into_iter()
            .map(|race| {
                let (m, mut cfg, args) = setup(kernel);
                cfg.threads = 1;
                cfg.race = race.then(RaceOptions::default);
                (m, cfg, args)
            })
            .collect();
        let mut best = [f64::INFINITY; 2];
        for _ in 0..rounds {
            for ((m, cfg, args), b) in runs.iter_mut().zip(&mut best) {
                let (cpu, _) = support::timed(|| {
                    let r = m.launch(cfg, args).expect("launch");
                    assert!(r.fault.is_none(), "{kernel}: {:?}", r.fault);
                });
                *b = b.min(cpu);
            }
        }
        eprintln!(
            "{kernel:<16} {:>8.4}  {:>8.4}  {:>8.1}x",
            best[0],
            best[1],
            best[1] / best[0]
        );
    }
}

fn bench(c: &mut Criterion) {
    paired_table();
    if support::table_only() {
        return;
    }
    let mut g = c.benchmark_group("race");
    g.sample_size(10);
    for kernel in KERNELS {
        for race in [false, true] {
            let (mut m, mut cfg, args) = setup(kernel);
            cfg.threads = 1;
            cfg.race = race.then(RaceOptions::default);
            let r = m.launch(&cfg, &args).expect("launch");
            assert!(r.fault.is_none(), "{kernel}: {:?}", r.fault);
            if let Some(rep) = &r.races {
                assert!(
                    rep.races.is_empty(),
                    "{kernel} is race-free: {:?}",
                    rep.races
                );
            }
            let name = format!("{kernel}/{}", if race { "race" } else { "plain" });
            g.bench_function(&name, |b| b.iter(|| m.launch(&cfg, &args).expect("launch")));
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
