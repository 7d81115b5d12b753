//! The PTX ISA for ptxemu: a typed IR, a front end that parses and validates modules as nvcc
//! and clang emit them, and an interpreter that runs kernels over grids of CTAs of warps.
#![warn(missing_docs)]

pub mod async_copy;
pub mod cluster;
pub mod cluster_launch;
pub mod event;
pub mod exec;
pub mod front;
pub mod host;
pub mod ir;
pub mod mma;
pub mod race;
pub mod sass;
pub mod semantics;
pub mod tcgen05;
pub mod tma;
pub mod validate;
pub mod wgmma;
