//! Identifiers (registers, labels, functions, files) and source spans.

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The index this identifier stands for.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A register of one function: an index into [`Function::regs`](super::Function::regs).
    RegId
);
id_type!(
    /// A label of one function: an index into [`Function::labels`](super::Function::labels).
    LabelId
);
id_type!(
    /// A function of the module: an index into [`Module::functions`](super::Module::functions).
    FuncId
);
id_type!(
    /// A module-scope variable: an index into [`Module::globals`](super::Module::globals).
    GlobalId
);
id_type!(
    /// A function-scope variable (`.local`, `.shared`, `.param` declared in a body, including
    /// the `.param` blocks of call sequences): an index into [`Function::locals`](super::Function::locals).
    LocalId
);
id_type!(
    /// A call prototype (`.callprototype`) of one function: an index into
    /// [`Function::prototypes`](super::Function::prototypes).
    ProtoId
);
/// A source file, numbered in the order files were loaded (0 for the first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// Where a construct came from: byte offset and length in the file, and its 1-based line and
/// column (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the span lies in.
    pub file: FileId,
    /// Byte offset of the first character.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
    /// 1-based line of the first character.
    pub line: u32,
    /// 1-based column of the first character.
    pub col: u32,
}
