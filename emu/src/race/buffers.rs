//! Naming the buffer a race's global address falls in by the launch argument that passed it
//! (`arg 1, byte 16`), as the out-of-bounds fault names "argument 1": a user reads which of
//! their arrays two threads raced on without matching addresses.
//!
//! An argument names a buffer when its value (an 8-byte parameter) is an address in the same
//! global allocation as the access, at or below it; of several such arguments (one buffer
//! passed twice, or at offsets), the nearest below the access names it. Shared-memory races
//! name no argument.

use crate::exec::Machine;
use crate::ir::ParamDecl;

use super::report::RaceReport;

/// The launch argument whose buffer holds an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferArg {
    /// The argument's index (0-based, the kernel's parameter order).
    pub index: u32,
    /// The kernel parameter's name in the PTX (`_Z19reduce_missing_syncPKfPf_param_1` as nvcc
    /// writes it; empty when the PTX gives none).
    pub name: String,
    /// The address's offset in bytes from the argument's value.
    pub offset: u64,
}

impl BufferArg {
    /// Whether the parameter's name says more than its index: compilers name parameters
    /// `KERNEL_param_N`, hand-written PTX often names them (`in`, `out`).
    pub fn has_own_name(&self) -> bool {
        !self.name.is_empty() && !self.name.ends_with(&format!("_param_{}", self.index))
    }
}

impl std::fmt::Display for BufferArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "arg {}", self.index)?;
        if self.has_own_name() {
            write!(f, " `{}`", self.name)?;
        }
        write!(f, ", byte {}", self.offset)
    }
}

/// The argument among `args` (parameter values, in order) whose buffer holds global address
/// `addr`, given the allocations of `machine`.
pub fn argument_of(
    machine: &Machine,
    params: &[ParamDecl],
    args: &[Vec<u8>],
    addr: u64,
) -> Option<BufferArg> {
    let (base, len) = machine.allocation_of(addr)?;
    let (index, value) = args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let v = u64::from_le_bytes(<[u8; 8]>::try_from(a.as_slice()).ok()?);
            (base <= v && v <= base.saturating_add(len) && v <= addr).then_some((i, v))
        })
        .max_by_key(|&(_, v)| v)?;
    Some(BufferArg {
        index: u32::try_from(index).ok()?,
        name: params
            .get(index)
            .map(|p| p.name.clone())
            .unwrap_or_default(),
        offset: addr - value,
    })
}

impl RaceReport {
    /// Names, for every global access of every race, the launch argument whose buffer holds
    /// its address (`params`: the kernel's parameters; `args`: the launch's values).
    pub fn name_arguments(&mut self, machine: &Machine, params: &[ParamDecl], args: &[Vec<u8>]) {
        for r in &mut self.races {
            for a in [&mut r.first, &mut r.second] {
                if a.space == "global" {
                    a.argument = argument_of(machine, params, args, a.address);
                }
            }
        }
    }
}
