//! Each instruction's source line, from the `.loc` directives before it (PTX ISA "Debugging
//! Directives"): the `.loc` in effect when a body is flattened, with file indices resolved
//! through the module's `.file` table and inlined call sites followed to the outermost.
//!
//! An inlined `.loc` names only its immediate call site (`inlined_at f l c`). LLVM writes the
//! chain outermost first, so the call site's own `.loc` came earlier: the chain is completed
//! from the most recent `.loc` at that position in the same function. A call site no earlier
//! `.loc` describes ends the chain.
//!
//! Deliberate deviation: LLVM's PTX printer numbers the lines of an inline-asm statement from
//! the statement's own line, writing a `.loc` with line + k before its k-th asm line (Triton's
//! loads and stores are inline asm, so a 4-line masked load gets lines L … L+4, most of them
//! past the end of the kernel). Inside a `// begin inline asm` … `// end inline asm` block,
//! the first `.loc` therefore stands for the whole block: the source line is the statement's.

use std::collections::HashMap;
use std::sync::Arc;

use crate::exec::fault::{SourceFrame, SourceLine};
use crate::ir::{Loc, Module, SourcePos};

/// Resolves the `.loc` directives of one function body, in order.
pub(super) struct SourceLines<'m> {
    module: &'m Module,
    /// The first and last source line of each inline-asm block, in order.
    asm_blocks: Vec<(u32, u32)>,
    /// The inline-asm block whose first `.loc` is in effect.
    in_block: Option<usize>,
    names: HashMap<u32, Arc<str>>,
    /// The `.loc` in effect.
    current: Option<Arc<SourceLine>>,
    /// The last resolved line at each position (to complete inlined chains).
    seen: HashMap<SourcePos, Arc<SourceLine>>,
}

impl<'m> SourceLines<'m> {
    pub(super) fn new(module: &'m Module, source: &str) -> SourceLines<'m> {
        SourceLines {
            module,
            asm_blocks: asm_blocks(source),
            in_block: None,
            names: HashMap::new(),
            current: None,
            seen: HashMap::new(),
        }
    }

    /// Forgets the previous function's directives.
    pub(super) fn start_function(&mut self) {
        self.current = None;
        self.in_block = None;
        self.seen.clear();
    }

    /// The source line of the instructions that follow now.
    pub(super) fn current(&self) -> Option<Arc<SourceLine>> {
        self.current.clone()
    }

    fn frame(&mut self, p: SourcePos) -> SourceFrame {
        let module = self.module;
        let file = self
            .names
            .entry(p.file)
            .or_insert_with(|| match module.file_name(p.file) {
                Some(n) => Arc::from(n),
                // A `.loc` naming a file no `.file` declares: say so rather than guess.
                None => Arc::from(format!("<.file {} not declared>", p.file)),
            })
            .clone();
        SourceFrame {
            file,
            line: p.line,
            col: p.col,
        }
    }

    /// A `.loc` directive: it applies from here on.
    pub(super) fn directive(&mut self, loc: &Loc) {
        let line = loc.span.line;
        let block = self.asm_blocks.partition_point(|&(_, last)| last < line);
        let inside = self
            .asm_blocks
            .get(block)
            .is_some_and(|&(first, _)| first <= line);
        if inside && self.in_block == Some(block) {
            return;
        }
        self.in_block = inside.then_some(block);
        let at = self.frame(loc.pos);
        let inlined_at = match &loc.inlined {
            None => Vec::new(),
            Some(i) => match self.seen.get(&i.at).cloned() {
                Some(site) => std::iter::once(site.at.clone())
                    .chain(site.inlined_at.iter().cloned())
                    .collect(),
                None => vec![self.frame(i.at)],
            },
        };
        let line = Arc::new(SourceLine { at, inlined_at });
        self.seen.insert(loc.pos, line.clone());
        self.current = Some(line);
    }
}

/// The line spans of LLVM's `// begin inline asm` … `// end inline asm` blocks in `source`.
fn asm_blocks(source: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut open = None;
    for (i, l) in source.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let t = l.trim();
        if t == "// begin inline asm" {
            open = Some(n);
        } else if t == "// end inline asm" {
            if let Some(first) = open.take() {
                out.push((first, n));
            }
        }
    }
    out
}
