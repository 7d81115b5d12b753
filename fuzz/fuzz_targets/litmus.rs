//! Fuzzes the litmus side: any text parses or fails with an error; a test that parses is run
//! under the model the first byte selects (with a small candidate budget, so running out is an
//! error, not a hang) and turned into a hardware harness; errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let src = String::from_utf8_lossy(rest);
    let Ok(test) = litmus::parse(&src) else { return };
    let mut ro = litmus::run::RunOptions::default();
    ro.model = match flags % 3 {
        0 => models::ptx::Model::PtxV75,
        1 => models::ptx::Model::PtxV60,
        _ => models::ptx::Model::Sc,
    };
    ro.liveness = flags & 4 != 0;
    ro.max_candidates = 20_000;
    let _ = litmus::run::run(&test, &ro);
    let _ = litmus::harness::generate(&test, "fuzz.litmus", &litmus::harness::HarnessOptions::default());
});
