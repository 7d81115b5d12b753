//! Fuzzes the readers of hardware results: any text is a litmus7-format log and a harness JSON
//! histogram, read or refused with an error; every state read prints. Panics are not fine.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::log(data));
