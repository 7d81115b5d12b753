//! tcgen05 and Tensor Memory (PTX ISA "Tensorcore 5th Generation Instructions"; spec
//! tcgen05.md), one folder for the family (README.md in this folder):
//!
//! - the instructions: their syntax ([`syntax`]), validation ([`validate`]), lowering
//!   ([`lower`]) and warp-synchronous execution with its faults and tracing ([`exec`]);
//! - Tensor Memory: one CTA's Tensor Memory with its allocation and checks ([`memory`]), the
//!   register ↔ Tensor Memory layouts of `tcgen05.ld/st` ([`layout`]), `tcgen05.ld.red`'s
//!   reductions ([`reduce`]), the Tensor Memory writes of asynchronous operations
//!   (`tcgen05.cp`, `tcgen05.mma`) not yet observed complete ([`async_writes`], [`mma_track`],
//!   [`observe`]), the CTA pair's allocation log ([`pair_log`]) and `--trace-tmem`
//!   ([`trace`]).

pub mod async_writes;
pub mod decoded;
pub mod exec;
pub mod layout;
pub mod lower;
pub mod memory;
pub mod mma_track;
pub mod observe;
pub mod pair_log;
pub mod reduce;
pub mod syntax;
pub mod trace;
pub mod validate;
