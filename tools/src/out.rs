//! Standard output that ends quietly when its reader goes away.
//!
//! `ptxemu run … --json | head -c 100` closes the pipe early. Rust's `println!` panics when a
//! write fails; here a closed pipe (`EPIPE`) instead marks standard output closed, later
//! output is dropped, and the command finishes its work and exits with its usual status. Any
//! other write error is reported once on standard error, since output was lost.

use std::io::{ErrorKind, Write};
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
            eprintln!("ptxemu: cannot write standard output: {e}");
        }
    }
}

/// Writes formatted text to standard output, unless it was closed.
pub fn write_fmt(args: std::fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    write_bytes(args.to_string().as_bytes());
}

/// Flushes standard output, ending quietly if the reader is gone.
pub fn flush() {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().flush() {
        CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != ErrorKind::BrokenPipe {
            eprintln!("ptxemu: cannot write standard output: {e}");
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

/// `print!` that ends quietly on a closed pipe (see the module documentation).
macro_rules! out {
    ($($t:tt)*) => {
        $crate::out::write_fmt(format_args!($($t)*))
    };
}
