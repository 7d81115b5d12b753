//! Front-end speed: parsing and validating a module whose initialiser is one long line, as
//! nvcc writes large constant tables (lexing was once quadratic in a line's length).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// A module with a `.global .u32 table[n]` initialised on one line.
fn module(n: usize) -> String {
    let values: Vec<String> = (0..n).map(|k| (k * 7919 % 65521).to_string()).collect();
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.global .u32 table[{n}] = {{{}}};\n\
         .visible .entry k()\n{{\nret;\n}}\n",
        values.join(", ")
    )
}

fn long_lines(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse_one_long_line");
    for n in [10_000usize, 100_000] {
        let src = module(n);
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &src, |b, src| {
            b.iter(|| {
                let m = emu::front::parse_module(black_box(src), "table.ptx").expect("parses");
                assert!(emu::validate::validate_module(&m).is_empty());
                m
            })
        });
    }
    g.finish();
}

criterion_group!(benches, long_lines);
criterion_main!(benches);
