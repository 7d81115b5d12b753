//! Front-end errors: what went wrong, where (file, line, column), and a rendering with the
//! source line and a caret under the offending text.

use std::fmt;

use crate::ir::Span;

/// What kind of problem the front end found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A character or literal the lexer cannot read.
    Lex(String),
    /// Tokens that do not form valid PTX here.
    Syntax(String),
    /// An instruction name PTX does not have.
    UnknownInstruction(String),
    /// A qualifier an instruction does not take.
    UnknownQualifier {
        /// The qualifier, with its dot.
        qualifier: String,
        /// The instruction.
        instruction: String,
    },
    /// A name that was never declared.
    Undeclared(String),
    /// A name declared twice in one scope.
    Redeclared(String),
    /// A construct ptxemu does not support (a limit of the tool, not an error in the PTX).
    Unsupported(String),
}

/// A front-end error with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What.
    pub kind: ErrorKind,
    /// Where.
    pub span: Span,
    /// The file's name, once known.
    pub file: String,
}

impl Error {
    /// An error at a span.
    pub fn new(kind: ErrorKind, span: Span) -> Error {
        Error {
            kind,
            span,
            file: String::new(),
        }
    }

    /// Renders `file:line:col: error: message`, the source line and a caret.
    pub fn render(&self, src: &str) -> String {
        let file = if self.file.is_empty() {
            "<input>"
        } else {
            &self.file
        };
        render_at(src, file, self.span, &format!("error: {}", self.kind))
    }
}

/// Renders a message at a span: `file:line:col: message`, the line, and a caret run.
pub fn render_at(src: &str, file: &str, span: Span, message: &str) -> String {
    let line_text = src
        .lines()
        .nth((span.line as usize).saturating_sub(1))
        .unwrap_or("");
    let col = span.col.max(1) as usize;
    let width = (span.len as usize).clamp(1, line_text.len().saturating_sub(col - 1).max(1));
    let pad: String = line_text
        .chars()
        .take(col - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!(
        "{file}:{}:{}: {message}\n  {line_text}\n  {pad}{}",
        span.line,
        span.col,
        "^".repeat(width)
    )
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Lex(m) | ErrorKind::Syntax(m) => f.write_str(m),
            ErrorKind::UnknownInstruction(i) => write!(f, "unknown instruction `{i}`"),
            ErrorKind::UnknownQualifier {
                qualifier,
                instruction,
            } => write!(f, "unknown qualifier `{qualifier}` on `{instruction}`"),
            ErrorKind::Undeclared(n) => write!(f, "`{n}` is not declared"),
            ErrorKind::Redeclared(n) => write!(f, "`{n}` is already declared in this scope"),
            ErrorKind::Unsupported(m) => write!(f, "not supported by ptxemu: {m}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = if self.file.is_empty() {
            "<input>"
        } else {
            &self.file
        };
        write!(
            f,
            "{file}:{}:{}: {}",
            self.span.line, self.span.col, self.kind
        )
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::FileId;

    #[test]
    fn renders_with_a_caret() {
        let src = "ld.u32 %r1, [a];\n    foo.bar %r2;\n";
        let e = Error {
            kind: ErrorKind::UnknownInstruction("foo".into()),
            span: Span {
                file: FileId(0),
                offset: 21,
                len: 3,
                line: 2,
                col: 5,
            },
            file: "k.ptx".into(),
        };
        assert_eq!(
            e.render(src),
            "k.ptx:2:5: error: unknown instruction `foo`\n      foo.bar %r2;\n      ^^^"
        );
        assert_eq!(e.to_string(), "k.ptx:2:5: unknown instruction `foo`");
    }
}
