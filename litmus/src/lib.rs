//! PTX litmus tests: the herd/Dat3M file format, conditions, and the orchestration that runs
//! each thread through the `emu` interpreter in event mode and hands the events to `models`.

pub mod ast;
pub mod barrier;
pub mod cond;
pub mod draw;
pub mod explain;
pub mod html;
pub mod lower;
pub mod parse;
pub mod report;
pub mod run;

pub use parse::{parse, ParseError};
