//! A parsed module: its header (version, target, address size) and items.

use super::*;

/// One PTX module: a `.version`, a `.target`, an `.address_size` and its declarations.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `.version major.minor`.
    pub version: Version,
    /// `.target sm_XX[a|f] [, options]`.
    pub target: Target,
    /// `.address_size 32|64` (64 when absent).
    pub address_size: AddressSize,
    /// Module-scope variables, in declaration order.
    pub globals: Vec<Variable>,
    /// Functions and kernels (declarations and definitions), in declaration order.
    pub functions: Vec<Function>,
    /// The order in which module-scope items appeared, for printing.
    pub items: Vec<ModuleItem>,
    /// The `.file` directives, in order.
    pub files: Vec<FileDecl>,
}

/// A PTX ISA version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl Version {
    /// Builds a version.
    pub const fn new(major: u32, minor: u32) -> Version {
        Version { major, minor }
    }
}

/// The `.target` directive: an architecture and options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The SM version number (`sm_90` → 90).
    pub sm: u32,
    /// `a` (architecture-specific) or `f` (family) suffix.
    pub suffix: ArchSuffix,
    /// Further options (`texmode_unified`, `debug`, `map_f64_to_f32`, …).
    pub options: Vec<TargetOption>,
}

/// The suffix of an architecture name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArchSuffix {
    /// `sm_90`
    None,
    /// `sm_90a`: architecture-specific features.
    Arch,
    /// `sm_100f`: family-specific features.
    Family,
}

/// An option of the `.target` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetOption {
    /// `texmode_unified`
    TexmodeUnified,
    /// `texmode_independent`
    TexmodeIndependent,
    /// `debug`
    Debug,
    /// `map_f64_to_f32`
    MapF64ToF32,
}

/// `.address_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressSize {
    /// 32-bit addresses.
    Bits32,
    /// 64-bit addresses (the default).
    Bits64,
}

/// A module-scope item, in source order.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleItem {
    /// A variable declaration.
    Global(GlobalId),
    /// A function or kernel: its definition, or its only declaration.
    Function(FuncId),
    /// A declaration (prototype only) of a function that is defined later in the module.
    Declaration(FuncId),
    /// A `.file` directive (an index into [`Module::files`]).
    File(u32),
}

/// How a module-scope symbol is visible to other modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// No linking directive: private to the module.
    Internal,
    /// `.visible`
    Visible,
    /// `.extern`: declared here, defined elsewhere.
    Extern,
    /// `.weak`
    Weak,
    /// `.common`
    Common,
}

impl Module {
    /// The name a `.file` directive gives file `index`, if one does.
    pub fn file_name(&self, index: u32) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.index == index)
            .map(|f| f.name.as_str())
    }

    /// Finds a function by name.
    pub fn function(&self, name: &str) -> Option<(FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    /// The mangled name of the kernel that `name` names: its mangled name, demangled C++
    /// signature or unique base name ([`kernel_name::resolve`](super::kernel_name::resolve)).
    ///
    /// # Errors
    /// No kernel has the name, or several do.
    pub fn resolve_kernel(
        &self,
        name: &str,
    ) -> Result<&str, super::kernel_name::KernelLookupError> {
        super::kernel_name::resolve(self.kernels().map(|(_, f)| f.name.as_str()), name)
    }

    /// The kernels (`.entry` functions with bodies) of the module.
    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FunctionKind::Entry && f.body.is_some())
            .map(|(i, f)| (FuncId(i as u32), f))
    }
}
