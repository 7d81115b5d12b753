//! Standard output that ends quietly when its reader goes away, and the terminal kept safe
//! from the text ptxemu echoes.
//!
//! `ptxemu run … --json | head -c 100` closes the pipe early. Rust's `println!` panics when a
//! write fails; here a closed pipe (`EPIPE`) instead marks standard output closed, later
//! output is dropped, and the command finishes its work and exits with its usual status. Any
//! other write error is reported once on standard error, since output was lost.
//!
//! Every message and report (`out!`, `outln!`, `errln!`) echoes names and text from input
//! files, so control characters in it are escaped with the one escaping function
//! (`emu::front::error::printable_lines`: `\u{1b}` instead of ESC, line breaks kept). A
//! kernel's own `printf` output ([`write_program_output`]) is passed through unchanged when
//! standard output is a file or a pipe (it is the program's output, as on a GPU) and escaped
//! the same way when it is a terminal.

use std::io::{ErrorKind, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes bytes to standard output, unless it was closed.
pub fn write_bytes(bytes: &[u8]) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes) {
        CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != ErrorKind::BrokenPipe {
            write_err(format_args!("ptxemu: cannot write standard output: {e}"));
        }
    }
}

/// Writes formatted text to standard output, control characters escaped, unless it was
/// closed.
pub fn write_fmt(args: std::fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    write_bytes(emu::front::error::printable_lines(&args.to_string()).as_bytes());
}

/// Writes a kernel's `printf` output: as it is to a file or pipe, escaped to a terminal.
pub fn write_program_output(bytes: &[u8]) {
    if std::io::stdout().is_terminal() {
        let text = String::from_utf8_lossy(bytes);
        write_bytes(emu::front::error::printable_lines(&text).as_bytes());
    } else {
        write_bytes(bytes);
    }
}

/// Writes a line to standard error with its control characters escaped.
pub fn write_err(args: std::fmt::Arguments<'_>) {
    let text = emu::front::error::printable_lines(&args.to_string());
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Flushes standard output, ending quietly if the reader is gone.
pub fn flush() {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().flush() {
        CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != ErrorKind::BrokenPipe {
            write_err(format_args!("ptxemu: cannot write standard output: {e}"));
        }
    }
}

/// `println!` that ends quietly on a closed pipe (see the module documentation).
macro_rules! outln {
    () => {
        $crate::out::write_bytes(b"\n")
    };
    ($($t:tt)*) => {
        $crate::out::write_fmt(format_args!("{}\n", format_args!($($t)*)))
    };
}

/// `eprintln!` with control characters escaped (see the module documentation).
macro_rules! errln {
    ($($t:tt)*) => {
        $crate::out::write_err(format_args!($($t)*))
    };
}

/// `print!` that ends quietly on a closed pipe (see the module documentation).
macro_rules! out {
    ($($t:tt)*) => {
        $crate::out::write_fmt(format_args!($($t)*))
    };
}
