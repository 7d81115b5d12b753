//! SASS for SPA 5.0 (Maxwell): the seed's generic `LD` in every form, its mirror `ST`, and the
//! companions a runnable program needs (`MOV`, `MOV32I`, `IADD`, `IADD32I`, `ISCADD`, `SHL`,
//! `SHR`, `LOP`, `ISETP`, `S2R`, `BRA`, `EXIT`, `NOP`): a typed IR, a parser of program text as
//! people and nvdisasm write it, and an interpreter over the generic thread address space.

pub mod exec;
pub mod ir;
mod operands;
pub mod parse;

pub use exec::{SassConfig, SassMachine, SassReport, Windows};
pub use parse::{parse_program, ParseError};
