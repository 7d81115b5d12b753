//! Wide and deep inputs (issue 23) on a test thread's 2 MiB stack: each shape of the `shapes`
//! fuzz target's generator, at sizes from small to far past every bound, parses or is refused
//! with an error, and what parses is run, explained and made a harness. None overflows.

#[path = "../../fuzz/fuzz_targets/shapes_gen.rs"]
mod shapes_gen;

use shapes_gen::{shape, Shape};

fn exercise(kind: u8, n: usize) {
    match shape(kind, n) {
        Shape::Litmus(src) => {
            if let Ok(test) = litmus::parse(&src) {
                let ro = litmus::run::RunOptions {
                    max_candidates: 20_000,
                    ..Default::default()
                };
                let _ = litmus::run::run(&test, &ro);
                let _ = litmus::explain::explain(&test, &ro, None);
                let _ = litmus::harness::generate(
                    &test,
                    "s.litmus",
                    &litmus::harness::HarnessOptions::default(),
                );
            }
        }
        Shape::Ptx(src) => {
            if let Ok(m) = emu::front::parse_module(&src, "s.ptx") {
                let _ = emu::validate::validate_module(&m);
            }
        }
    }
}

#[test]
fn every_shape_at_every_size_ends_without_a_crash() {
    for kind in 0..9u8 {
        // Many init locations are checked separately below: their cost grows with the size.
        let sizes: &[usize] = if kind == 5 {
            &[1, 64, 2_000]
        } else {
            &[1, 64, 1_000, 20_000, 200_000]
        };
        for &n in sizes {
            exercise(kind, n);
        }
    }
}

#[test]
fn fuzz_bytes_select_shapes_and_sizes() {
    assert!(shapes_gen::from_bytes(&[0, 1]).is_none());
    for bytes in [[0u8, 0, 1], [4, 1, 0], [7, 255, 255], [8, 16, 0]] {
        assert!(shapes_gen::from_bytes(&bytes).is_some());
    }
}

#[test]
fn many_init_locations_parse_in_linear_time() {
    // Issue 23: the offset of each init entry was found by summing all before it; 20,000
    // locations took minutes and 1 GiB.
    let Shape::Litmus(src) = shape(5, 50_000) else {
        unreachable!()
    };
    let started = std::time::Instant::now();
    let t = litmus::parse(&src).unwrap();
    assert_eq!(t.locations.len(), 50_000);
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

#[test]
fn many_unused_init_locations_run_and_explain_in_linear_time() {
    // Found by the fuzz campaign: each declared location became an init event of every
    // candidate, and the model's relations grow with the square of the events (17,164
    // locations no thread touches took 40 s and 800 MB to run, minutes to explain).
    let Shape::Litmus(src) = shape(5, 20_000) else {
        unreachable!()
    };
    let started = std::time::Instant::now();
    let t = litmus::parse(&src).unwrap();
    let ro = litmus::run::RunOptions::default();
    let r = litmus::run::run(&t, &ro).unwrap();
    assert!(r.holds && r.positive == 1, "l0 == 1 is the one outcome");
    litmus::explain::explain(&t, &ro, None).unwrap();
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}
