//! Reading input files in bounded memory, for the command line and the Python package alike:
//! a file's size is checked before it is read (from its metadata, or, for what is not a
//! regular file such as `/dev/zero` or a pipe, by reading at most one byte past the bound), so
//! a huge or endless input is refused with the figures instead of filling the host's memory.

use std::io::Read;
use std::path::Path;

/// The most bytes a text input (PTX, SASS, litmus test, log, plan) may have: far beyond any
/// real one.
pub const MAX_TEXT_BYTES: u64 = 128 << 20;

/// Reads at most `max` bytes of `path`.
///
/// # Errors
/// The file cannot be read, or has (or, not being a regular file, yields) more than `max`
/// bytes: `has 8589934592 bytes; at most 134217728 are read`.
pub fn read_at_most(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    if meta.is_file() && meta.len() > max {
        return Err(too_big(format!(
            "has {} bytes; at most {max} are read",
            meta.len()
        )));
    }
    let mut out = Vec::new();
    f.take(max.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > max {
        return Err(too_big(format!(
            "yields more than {max} bytes (it is not a regular file); at most {max} are read"
        )));
    }
    Ok(out)
}

/// Reads `path` as UTF-8 text of at most [`MAX_TEXT_BYTES`].
///
/// # Errors
/// As [`read_at_most`], or the bytes are not UTF-8.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let bytes = read_at_most(path, MAX_TEXT_BYTES)?;
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Reads exactly `want` bytes from `path`, checking the size before reading.
///
/// # Errors
/// The file cannot be read or has another size: `has 8589934592 bytes but 16 are expected`.
pub fn read_exactly(path: &Path, want: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let meta = f
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if meta.is_file() && meta.len() != want {
        return Err(format!(
            "{shown} has {} bytes but {want} are expected",
            meta.len()
        ));
    }
    let mut out = Vec::new();
    f.take(want.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    match (out.len() as u64).cmp(&want) {
        std::cmp::Ordering::Equal => Ok(out),
        std::cmp::Ordering::Less => Err(format!(
            "{shown} yields {} bytes but {want} are expected",
            out.len()
        )),
        std::cmp::Ordering::Greater => Err(format!(
            "{shown} yields more than {want} bytes (it is not a regular file) but {want} are expected"
        )),
    }
}

fn too_big(m: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_oversized_inputs_are_refused_with_their_size() {
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            let e = read_at_most(zero, 1024).unwrap_err().to_string();
            assert!(e.contains("yields more than 1024 bytes"), "{e}");
            let e = read_exactly(zero, 16).unwrap_err();
            assert!(e.contains("more than 16 bytes"), "{e}");
            assert!(read_exactly(zero, 0).unwrap_err().contains("more than 0"));
        }
        let p = std::env::temp_dir().join(format!("ptxemu-read-{}", std::process::id()));
        std::fs::write(&p, [1u8; 40]).unwrap();
        let e = read_at_most(&p, 16).unwrap_err().to_string();
        assert_eq!(e, "has 40 bytes; at most 16 are read");
        let e = read_exactly(&p, 16).unwrap_err();
        assert!(e.ends_with("has 40 bytes but 16 are expected"), "{e}");
        assert_eq!(read_exactly(&p, 40).unwrap().len(), 40);
        assert_eq!(read_at_most(&p, 40).unwrap().len(), 40);
        let _ = std::fs::remove_file(&p);
    }
}
