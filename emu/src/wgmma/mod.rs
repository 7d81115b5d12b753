//! The warpgroup-level matrix instructions (PTX ISA "Asynchronous Warpgroup Level Matrix
//! Multiply-Accumulate Instructions": `wgmma.mma_async`, `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group`): their syntax, validation, lowering and execution (README.md in this
//! folder).

pub mod accumulators;
pub mod decoded;
pub mod exec;
pub mod lower;
pub mod state;
pub mod syntax;
pub mod validate;
