//! Fuzzes the SASS `LD` front end and interpreter: any listing parses or fails with an error;
//! one that parses runs a small launch (two CTAs of 33 threads, two 4 KiB buffers as
//! parameters, a step budget) under the checks the first byte selects; faults are fine,
//! panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::sass(data));
