//! Fuzzes the interpreter: a module that parses and validates is run (every kernel, one small
//! launch, zero-filled buffer arguments); faults are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::run(data));
