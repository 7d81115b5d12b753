//! Fuzzes wide and deep inputs: flat `/\` and `\/` chains, parentheses and `~` nested deep,
//! hundreds of threads, thousands of init locations, and PTX constant-expression chains and
//! nested blocks, each of a size the input picks (see `shapes_gen.rs`). Every one parses or is
//! refused with an error, and what parses runs under a small budget; no stack overflow.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::shapes(data));
