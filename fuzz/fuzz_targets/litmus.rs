//! Fuzzes the litmus side: any text parses or fails with an error; a test that parses is run
//! under the model the first byte selects (with a small candidate budget, so running out is an
//! error, not a hang) and turned into a hardware harness; errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::litmus(data));
