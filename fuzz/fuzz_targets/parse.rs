//! Fuzzes the front end: any input must parse or fail with an error, never panic; a module
//! that parses must validate and print without panicking, and its printed form must parse.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::parse(data));
