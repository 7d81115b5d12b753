//! Fuzzes launch plans: any text is a plan run by `ptxemu run --plan` (the command line itself,
//! under small budgets); it exits 0-3 (no abort, no panic) and writes nothing outside the
//! plan's folder. Needs the release binary (`cargo build --release`, or `$PTXEMU_BIN`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::plan(data));
