//! The bulk copies, tensor copies and tensor maps (PTX ISA "cp.async.bulk",
//! "cp.reduce.async.bulk", "cp.async.bulk.tensor", "tensormap.replace",
//! "tensormap.cp_fenceproxy", the proxy fences): their syntax, validation, lowering and
//! execution (README.md in this folder). The tensor-map encoding and the copies' address
//! arithmetic are pure functions in `crate::semantics::tma`.

pub mod accesses;
pub mod copy;
pub mod decoded;
pub mod lower;
pub mod pair;
pub mod syntax;
pub mod tensormap;
pub mod validate;
