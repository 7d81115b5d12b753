//! Fuzzes the race-report reader (`explain --race-report`): any text is read as a `--race
//! --json` report or refused; one that reads is explained as text, DOT, SVG and a page.
//! Panics are not fine, and no raw control character reaches the page.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::race_report(data));
