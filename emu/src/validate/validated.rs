//! A module the validator accepted ([`Validated`]), as naga's validator hands its back ends
//! the module information they require: the interpreter loads nothing else, so the lowering
//! does not check again what the rules of this crate guarantee.

use super::diagnostic::{Diagnostic, UNSUPPORTED};
use super::validate_module;
use crate::ir::Module;

/// A module that breaks no rule of the validator, but possibly uses instructions ptxemu does
/// not implement (the [`UNSUPPORTED`] rule): those refuse only the kernels that reach them,
/// at their launch.
#[derive(Clone, Debug)]
pub struct Validated {
    module: Module,
    unsupported: Vec<Diagnostic>,
}

impl Validated {
    /// Validates `module`.
    ///
    /// # Errors
    /// Every diagnostic of a rule other than [`UNSUPPORTED`], in source order.
    pub fn new(module: Module) -> Result<Validated, Vec<Diagnostic>> {
        let (unsupported, broken): (Vec<Diagnostic>, Vec<Diagnostic>) = validate_module(&module)
            .into_iter()
            .partition(|d| d.rule == UNSUPPORTED);
        if broken.is_empty() {
            Ok(Validated {
                module,
                unsupported,
            })
        } else {
            Err(broken)
        }
    }

    /// The module.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The module, given back.
    pub fn into_module(self) -> Module {
        self.module
    }

    /// The instructions ptxemu does not implement (their kernels are refused at launch).
    pub fn unsupported(&self) -> &[Diagnostic] {
        &self.unsupported
    }

    /// Runs the module as the GPU `sm` (whose numerics to emulate), after it was validated
    /// against its own `.target` (as `ptxemu run --gpu` does).
    pub fn run_as_sm(&mut self, sm: u32) {
        self.module.target.sm = sm;
    }
}
