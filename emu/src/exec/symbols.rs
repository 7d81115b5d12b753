//! Module variables seen from the host: the bytes of a module-scope `.global` or `.const`
//! variable, read or written between launches, as a CUDA host program does with
//! `cudaMemcpyToSymbol` / `cudaMemcpyFromSymbol`.
//!
//! A `.global` variable lives in the module's globals region of device memory and a `.const`
//! variable in the constant bank; both keep their contents from one launch to the next (PTX ISA,
//! "State Spaces": the global and constant spaces persist across kernel launches in the same
//! context). Variables of the other state spaces have no storage the host can reach: `.shared`
//! lives per CTA and `.local` per thread, only while a launch runs.
//!
//! Deliberate deviations:
//! 1. A write shorter than the variable writes a prefix and leaves the rest as it was (as
//!    `cudaMemcpyToSymbol` with a count does); a write at an offset is not offered.

use super::decode::error::DecodeError;
use super::decode::layout::{layout, Place};
use super::Machine;
use crate::ir::{Module, StateSpace};

/// A module-scope variable and where the module's layout placed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleVar {
    /// Its name as declared.
    pub name: String,
    /// Its state space.
    pub space: StateSpace,
    /// Its size in bytes.
    pub size: u64,
    place: Option<Place>,
}

/// Why a module variable cannot be read or written from the host.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SymbolError {
    /// No module-scope variable has that name.
    #[error("no module variable named `{name}` (.global and .const variables: {available})")]
    Unknown {
        /// The requested name.
        name: String,
        /// The `.global` and `.const` variables that exist, comma-separated.
        available: String,
    },
    /// The variable is in a state space the host cannot reach.
    #[error(
        "`{name}` is a .{space} variable ({size} bytes); only .global and .const variables can be read or written from the host"
    )]
    WrongSpace {
        /// The variable.
        name: String,
        /// Its state space.
        space: StateSpace,
        /// Its size in bytes.
        size: u64,
    },
    /// More bytes were given than the variable holds.
    #[error("`{name}` is a .{space} variable of {size} bytes but {given} bytes were given")]
    TooLarge {
        /// The variable.
        name: String,
        /// Its state space.
        space: StateSpace,
        /// Its size in bytes.
        size: u64,
        /// The bytes given.
        given: u64,
    },
}

/// The module-scope variables of a loaded module, by name.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    vars: Vec<ModuleVar>,
}

impl Symbols {
    /// The variables of `module`, placed as [`Machine::load`] placed them.
    ///
    /// # Errors
    /// The errors the module's layout gives (none for a module the machine loaded).
    pub fn of(module: &Module, machine: &Machine) -> Result<Symbols, DecodeError> {
        let lay = layout(module, machine.prog.globals_base)?;
        let vars = module
            .globals
            .iter()
            .zip(lay.globals)
            .map(|(v, place)| ModuleVar {
                name: v.name.clone(),
                space: v.space,
                size: v.allocated_bytes(),
                place,
            })
            .collect();
        Ok(Symbols { vars })
    }

    /// The `.global` or `.const` variable called `name`.
    ///
    /// # Errors
    /// No such variable, or one in another state space.
    pub fn host_visible(&self, name: &str) -> Result<&ModuleVar, SymbolError> {
        let Some(v) = self.vars.iter().find(|v| v.name == name) else {
            let available: Vec<&str> = self
                .vars
                .iter()
                .filter(|v| is_host_visible(v))
                .map(|v| v.name.as_str())
                .collect();
            return Err(SymbolError::Unknown {
                name: name.to_string(),
                available: if available.is_empty() {
                    "none".to_string()
                } else {
                    available.join(", ")
                },
            });
        };
        if !is_host_visible(v) {
            return Err(SymbolError::WrongSpace {
                name: v.name.clone(),
                space: v.space,
                size: v.size,
            });
        }
        Ok(v)
    }

    /// Checks that `given` bytes fit `var` (a prefix may be shorter).
    ///
    /// # Errors
    /// More bytes than the variable holds.
    pub fn check_fits(var: &ModuleVar, given: u64) -> Result<(), SymbolError> {
        if given > var.size {
            return Err(SymbolError::TooLarge {
                name: var.name.clone(),
                space: var.space,
                size: var.size,
                given,
            });
        }
        Ok(())
    }
}

fn is_host_visible(v: &ModuleVar) -> bool {
    matches!(v.place, Some(Place::Global(_) | Place::Const(_)))
}

impl Machine {
    /// Writes `bytes` at the start of a module variable (a prefix when shorter), as
    /// `cudaMemcpyToSymbol` does; returns the bytes written.
    ///
    /// # Errors
    /// A variable the host cannot reach, or more bytes than it holds.
    pub fn write_variable(&mut self, var: &ModuleVar, bytes: &[u8]) -> Result<u64, SymbolError> {
        Symbols::check_fits(var, bytes.len() as u64)?;
        let wrong_space = || SymbolError::WrongSpace {
            name: var.name.clone(),
            space: var.space,
            size: var.size,
        };
        match var.place {
            Some(Place::Global(addr)) => {
                if !bytes.is_empty() && !self.write(addr, bytes) {
                    return Err(wrong_space());
                }
            }
            Some(Place::Const(off)) => {
                let start = usize::try_from(off).map_err(|_| wrong_space())?;
                let dst = self
                    .consts
                    .data
                    .get_mut(start..start + bytes.len())
                    .ok_or_else(wrong_space)?;
                dst.copy_from_slice(bytes);
            }
            Some(Place::Shared | Place::Local(_) | Place::DynamicShared) | None => {
                return Err(wrong_space())
            }
        }
        Ok(bytes.len() as u64)
    }

    /// The current bytes of a module variable, as `cudaMemcpyFromSymbol` reads them.
    ///
    /// # Errors
    /// A variable the host cannot reach.
    pub fn read_variable(&self, var: &ModuleVar) -> Result<Vec<u8>, SymbolError> {
        let wrong_space = || SymbolError::WrongSpace {
            name: var.name.clone(),
            space: var.space,
            size: var.size,
        };
        match var.place {
            Some(Place::Global(addr)) => {
                if var.size == 0 {
                    return Ok(Vec::new());
                }
                self.read(addr, var.size).ok_or_else(wrong_space)
            }
            Some(Place::Const(off)) => {
                let start = usize::try_from(off).map_err(|_| wrong_space())?;
                let len = usize::try_from(var.size).map_err(|_| wrong_space())?;
                self.consts
                    .data
                    .get(start..start + len)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(wrong_space)
            }
            Some(Place::Shared | Place::Local(_) | Place::DynamicShared) | None => {
                Err(wrong_space())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(src: &str) -> (Machine, Symbols) {
        let m = crate::front::parse_module(src, "t.ptx").expect("parses");
        let machine = Machine::load(
            &crate::validate::Validated::new(m.clone()).expect("the module validates"),
            "t.ptx",
        )
        .expect("loads");
        let symbols = Symbols::of(&m, &machine).expect("lays out");
        (machine, symbols)
    }

    const SRC: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .const .align 4 .b32 c_pad[3];\n\
        .const .align 4 .f32 c_k[4] = {1.0, 2.0, 3.0, 4.0};\n\
        .global .align 8 .u64 g_v[2];\n\
        .shared .align 4 .b32 s_x[8];\n\
        .visible .entry k() { ret; }\n";

    #[test]
    fn const_and_global_variables_round_trip() {
        let (mut m, s) = machine(SRC);
        let k = s.host_visible("c_k").unwrap().clone();
        assert_eq!(k.size, 16);
        let init: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(m.read_variable(&k).unwrap(), init);
        assert_eq!(m.write_variable(&k, &[9, 9, 9, 9]).unwrap(), 4);
        let after = m.read_variable(&k).unwrap();
        assert_eq!(&after[..4], &[9, 9, 9, 9]);
        assert_eq!(&after[4..], &init[4..], "a short write leaves the rest");
        let pad = s.host_visible("c_pad").unwrap().clone();
        assert_eq!(m.read_variable(&pad).unwrap(), vec![0; 12]);
        let g = s.host_visible("g_v").unwrap().clone();
        m.write_variable(&g, &[7; 16]).unwrap();
        assert_eq!(m.read_variable(&g).unwrap(), vec![7; 16]);
    }

    #[test]
    fn errors_name_the_variable_and_sizes() {
        let (mut m, s) = machine(SRC);
        let e = s.host_visible("nope").unwrap_err().to_string();
        assert!(e.contains("`nope`") && e.contains("c_pad, c_k, g_v"), "{e}");
        let e = s.host_visible("s_x").unwrap_err().to_string();
        assert!(
            e.contains("`s_x` is a .shared::cta variable (32 bytes)"),
            "{e}"
        );
        let k = s.host_visible("c_k").unwrap().clone();
        let e = m.write_variable(&k, &[0; 20]).unwrap_err().to_string();
        assert!(e.contains("16 bytes but 20 bytes"), "{e}");
    }
}
