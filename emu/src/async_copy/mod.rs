//! The asynchronous copies and the mbarrier objects they complete on (PTX ISA "cp.async",
//! "cp.async.wait_group", "cp.async.mbarrier.arrive", "mbarrier"): their syntax, validation,
//! lowering and execution, and the per-CTA state they share (README.md in this folder).

pub mod access_check;
pub mod cp_async;
pub mod decoded;
pub mod lower;
pub mod mbarrier;
pub mod pending;
pub mod state;
pub mod syntax;
pub mod validate;
