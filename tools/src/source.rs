//! Reading a PTX or SASS source file.

use std::path::Path;

/// The file's text. Bytes that are not UTF-8 (ptxas accepts them, e.g. in comments) become
/// U+FFFD: inside a comment they are ignored as ptxas ignores them, anywhere else the lexer
/// reports them at their line and column, since every PTX and SASS token is ASCII.
///
/// # Errors
/// The file cannot be read, or is larger than [`crate::bounded::MAX_TEXT_BYTES`].
pub fn read_source(path: &Path) -> std::io::Result<String> {
    let bytes = crate::bounded::read_at_most(path, crate::bounded::MAX_TEXT_BYTES)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
