//! Fuzzes wide and deep inputs: flat `/\` and `\/` chains, parentheses and `~` nested deep,
//! hundreds of threads, thousands of init locations, and PTX constant-expression chains and
//! nested blocks, each of a size the input picks (see `shapes_gen.rs`). Every one parses or is
//! refused with an error, and what parses runs under a small budget; no stack overflow.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "shapes_gen.rs"]
mod shapes_gen;

fuzz_target!(|data: &[u8]| {
    match shapes_gen::from_bytes(data) {
        Some(shapes_gen::Shape::Litmus(src)) => {
            if let Ok(test) = litmus::parse(&src) {
                let mut ro = litmus::run::RunOptions::default();
                ro.max_candidates = 20_000;
                let _ = litmus::run::run(&test, &ro);
                let _ = litmus::explain::explain(&test, &ro, None);
                let _ = litmus::harness::generate(&test, "s.litmus", &litmus::harness::HarnessOptions::default());
            }
        }
        Some(shapes_gen::Shape::Ptx(src)) => {
            if let Ok(m) = emu::front::parse_module(&src, "s.ptx") {
                let _ = emu::validate::validate_module(&m);
            }
        }
        None => {}
    }
});
