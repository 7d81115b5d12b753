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
///
/// Control characters of the input are shown escaped (`\u{1b}`), never sent to the terminal,
/// and a line longer than [`SHOWN_CHARS`] is cut around the column, with `…` where it is cut.
pub fn render_at(src: &str, file: &str, span: Span, message: &str) -> String {
    let line_text = src
        .lines()
        .nth((span.line as usize).saturating_sub(1))
        .unwrap_or("");
    let chars: Vec<(usize, char)> = line_text.char_indices().collect();
    let col0 = (span.col.max(1) as usize - 1).min(chars.len());
    // The span's width in characters (its length is in bytes), at least one.
    let start_byte = chars.get(col0).map_or(line_text.len(), |c| c.0);
    let end_byte = (start_byte + span.len as usize).min(line_text.len());
    let width = line_text
        .get(start_byte..end_byte)
        .map_or(1, |t| t.chars().count())
        .max(1);
    let (from, to) = if chars.len() <= SHOWN_CHARS {
        (0, chars.len())
    } else {
        let from = col0.saturating_sub(SHOWN_CHARS / 3);
        (from, (from + SHOWN_CHARS).min(chars.len()))
    };
    let mut shown = String::new();
    let mut pad = String::new();
    if from > 0 {
        shown.push('…');
        pad.push(' ');
    }
    for (k, &(_, c)) in chars.iter().enumerate().take(to).skip(from) {
        let text = printable_char(c);
        if k < col0 {
            let blank = if c == '\t' { '\t' } else { ' ' };
            pad.extend(std::iter::repeat_n(blank, text.chars().count()));
        }
        shown.push_str(&text);
    }
    if to < chars.len() {
        shown.push('…');
    }
    let width = width.min((to.max(col0 + 1) - col0).max(1));
    format!(
        "{file}:{}:{}: {}\n  {shown}\n  {pad}{}",
        span.line,
        span.col,
        printable(message),
        "^".repeat(width)
    )
}

/// How many characters of a source line an error shows at most.
pub const SHOWN_CHARS: usize = 160;

/// `s` with every control character but tab escaped (`\u{0}`, `\u{7}`, `\u{1b}`), so text read
/// from a file cannot move the terminal's cursor, ring its bell or change its colours. This is
/// the one escaping function: the command line's standard error and output, and the Python
/// package's exception messages, pass what they show through it ([`printable_lines`]).
pub fn printable(s: &str) -> String {
    escaped(s, false)
}

/// [`printable`], keeping line breaks: for whole messages, which may span lines.
pub fn printable_lines(s: &str) -> String {
    escaped(s, true)
}

/// `s` with its control characters escaped, but tab and (when `lines`) line feed.
fn escaped(s: &str, lines: bool) -> String {
    let kept = |c: char| !c.is_control() || c == '\t' || (lines && c == '\n');
    if s.chars().all(kept) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if kept(c) {
            out.push(c);
        } else {
            out.extend(c.escape_default());
        }
    }
    out
}

/// `s` made [`printable`] and cut to `max` characters, with `…` where it is cut: for messages
/// that quote text read from a file, which may be a megabyte long.
pub fn clipped(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k == max {
            out.push('…');
            break;
        }
        out.push_str(&printable_char(c));
    }
    out
}

fn printable_char(c: char) -> String {
    if c.is_control() && c != '\t' {
        c.escape_default().to_string()
    } else {
        c.to_string()
    }
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

    fn at(line: u32, col: u32, offset: u32, len: u32) -> Span {
        Span {
            file: FileId(0),
            offset,
            len,
            line,
            col,
        }
    }

    #[test]
    fn control_characters_are_escaped_not_echoed() {
        // Issue 23: ESC, BEL and NUL from the input reached the terminal raw.
        let src = "mov \u{1b}[31m\u{7}\0 x;";
        let r = render_at(
            src,
            "k.ptx",
            at(1, 5, 4, 1),
            "error: unexpected character `\u{1b}`",
        );
        assert!(!r.chars().any(|c| c.is_control() && c != '\n'), "{r:?}");
        assert_eq!(
            r,
            "k.ptx:1:5: error: unexpected character `\\u{1b}`\n  mov \\u{1b}[31m\\u{7}\\u{0} x;\n      ^"
        );
    }

    #[test]
    fn a_non_ascii_character_gets_one_caret_under_it() {
        let src = "{ é ret; }";
        let r = render_at(
            src,
            "k.ptx",
            at(1, 3, 2, 2),
            "error: unexpected character `é`",
        );
        assert_eq!(
            r,
            "k.ptx:1:3: error: unexpected character `é`\n  { é ret; }\n    ^"
        );
    }

    #[test]
    fn a_long_line_is_cut_around_the_column() {
        // Issue 23: a 1 MB line was echoed whole.
        let src = format!("{}BAD{}", "a".repeat(500_000), "b".repeat(500_000));
        let r = render_at(&src, "k.ptx", at(1, 500_001, 500_000, 3), "error: here");
        let lines: Vec<&str> = r.lines().collect();
        assert!(
            lines[1].chars().count() < SHOWN_CHARS + 8,
            "{}",
            lines[1].len()
        );
        assert!(lines[1].starts_with("  …a") && lines[1].ends_with("b…"));
        let caret = lines[2].find('^').unwrap();
        assert_eq!(&lines[1][caret + 2..caret + 5], "BAD", "{r}");
        assert_eq!(lines[2].trim_start(), "^^^");
    }
}
