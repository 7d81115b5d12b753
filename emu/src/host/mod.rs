//! What a host program does around launches, shared by the `ptxemu` command line and the
//! Python bindings: reading a module as `ptxemu run` does ([`parse_checked`]) and Triton's
//! launch metadata ([`triton`]), the JSON reader every input file goes through ([`json`]), the
//! size-checked file reader ([`read`]), and tensor maps made from the driver's parameters
//! ([`tensor_map`]).

pub mod json;
pub mod read;
pub mod tensor_map;
pub mod triton;

use crate::validate::Validated;

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
pub fn parse_checked(src: &str, name: &str) -> Result<Validated, LoadError> {
    let module = crate::front::parse_module(src, name).map_err(|e| LoadError {
        kind: "parse",
        message: e.render(src),
    })?;
    Validated::new(module).map_err(|diags| LoadError {
        kind: "validation",
        message: diags
            .iter()
            .map(|d| d.render(src, name))
            .collect::<Vec<_>>()
            .join("\n"),
    })
}
