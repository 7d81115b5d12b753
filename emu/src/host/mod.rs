//! What a host program does around launches, shared by the `ptxemu` command line and the
//! Python bindings: reading a module as `ptxemu run` does ([`parse_checked`]), Triton's
//! launch metadata ([`triton`]), and tensor maps made from the driver's parameters
//! ([`tensor_map`]).

pub mod tensor_map;
pub mod triton;

use crate::ir::Module;

/// Why a module was refused before it could be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// `parse` or `validation`.
    pub kind: &'static str,
    /// The rendered diagnostics (file:line:col, the line, a caret).
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// Parses and validates PTX text named `name`. An instruction ptxemu does not implement is
/// not an error here: it refuses only the kernels that reach it, at their launch.
///
/// # Errors
/// Parse errors, or validation diagnostics (all of them, rendered).
pub fn parse_checked(src: &str, name: &str) -> Result<Module, LoadError> {
    let module = crate::front::parse_module(src, name).map_err(|e| LoadError {
        kind: "parse",
        message: e.render(src),
    })?;
    let diags: Vec<String> = crate::validate::validate_module(&module)
        .into_iter()
        .filter(|d| d.rule != crate::validate::UNSUPPORTED)
        .map(|d| d.render(src, name))
        .collect();
    if !diags.is_empty() {
        return Err(LoadError {
            kind: "validation",
            message: diags.join("\n"),
        });
    }
    Ok(module)
}
