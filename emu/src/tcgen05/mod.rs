//! tcgen05 and Tensor Memory (PTX ISA "Tensorcore 5th Generation Instructions"; spec
//! tcgen05.md): the register ↔ Tensor Memory layouts of `tcgen05.ld/st`, one CTA's Tensor
//! Memory with its allocation and checks, `tcgen05.ld.red`'s reductions, and the Tensor Memory writes of asynchronous operations
//! (`tcgen05.cp`, `tcgen05.mma`) not yet observed complete. The interpreter's
//! side (warp-synchronous execution, faults, tracing) is in `exec::step::tcgen05`.

pub mod async_writes;
pub mod layout;
pub mod memory;
pub mod mma_track;
pub mod observe;
pub mod pair_log;
pub mod reduce;
pub mod trace;
