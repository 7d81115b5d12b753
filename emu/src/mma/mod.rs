//! The warp-level matrix instructions (PTX ISA "Warp Level Matrix Multiply-Accumulate
//! Instructions": `mma.sync`, `ldmatrix`, `stmatrix`, `movmatrix` and `wmma`): their syntax,
//! validation, lowering and execution (README.md in this folder).

pub mod byte_moves;
pub mod decoded;
pub mod exec;
pub mod layout;
pub mod lower;
pub mod syntax;
pub mod validate;
pub mod wmma;
