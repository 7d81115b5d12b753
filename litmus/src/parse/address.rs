//! Registers that hold a location's address, as herd writes them in the initial state of a
//! test (`0:r2=x;`, also `P0:r2=x;` and `P0:r2=&x;`) and uses them in the code (`[r2]`).
//!
//! Litmus locations have no numeric address, so each bracketed use `[r2]` of such a register
//! in its own thread's cells becomes the location itself, `[x]`, before the cell is read (in
//! the dialect and in real-PTX cells alike), and the register disappears from the test. Any
//! other use of the register (as a value, a destination, or in another thread, where it does
//! not hold the address) is left as the register it is, except that a use as a value in its
//! own thread is refused: the value of an address cannot be written down.

use super::{err, RawError};

/// One register holding an address: its thread, its name (without `%`) and the location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AddressReg {
    /// The thread number.
    pub thread: u32,
    /// The register name, `r2`.
    pub reg: String,
    /// The location whose address it holds.
    pub loc: String,
}

/// Whether `s` is an identifier that can name a location (`x`, `_flag`, `Mem0`).
pub(super) fn is_location_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The cell `text` of thread `thread`, with each `[rK]` naming an address register of that
/// thread replaced by `[x]`.
///
/// # Errors
/// An address register of the thread used other than in brackets (at `at`, the cell).
pub(super) fn resolve(
    text: &str,
    thread: u32,
    regs: &[AddressReg],
    at: usize,
) -> Result<String, RawError> {
    let mine: Vec<&AddressReg> = regs.iter().filter(|r| r.thread == thread).collect();
    if mine.is_empty() {
        return Ok(text.to_string());
    }
    let held = |name: &str| {
        let name = name.trim().trim_start_matches('%');
        mine.iter().find(|r| r.reg == name).map(|r| r.loc.as_str())
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(len) = rest[open..].find(']') else {
            break;
        };
        let inner = &rest[open + 1..open + len];
        out.push_str(&refuse_values(&rest[..open], thread, &mine, at)?);
        match held(inner) {
            Some(loc) => {
                out.push('[');
                out.push_str(loc);
                out.push(']');
            }
            None => out.push_str(&rest[open..=open + len]),
        }
        rest = &rest[open + len + 1..];
    }
    out.push_str(&refuse_values(rest, thread, &mine, at)?);
    Ok(out)
}

/// `text` unchanged, or an error if it names one of the address registers outside brackets.
fn refuse_values(
    text: &str,
    thread: u32,
    mine: &[&AddressReg],
    at: usize,
) -> Result<String, RawError> {
    let words = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '%'))
        .map(|w| w.trim_start_matches('%'));
    for name in words {
        if let Some(r) = mine.iter().find(|r| r.reg == name) {
            return Err(err(
                at,
                format!(
                    "register {} of P{thread} holds the address of `{}` (initial state) and is \
                     used here as a value; litmus locations have no numeric address, so it may \
                     only be used as `[{}]`",
                    r.reg, r.loc, r.reg
                ),
            ));
        }
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs() -> Vec<AddressReg> {
        vec![
            AddressReg {
                thread: 0,
                reg: "r2".into(),
                loc: "x".into(),
            },
            AddressReg {
                thread: 1,
                reg: "r4".into(),
                loc: "y".into(),
            },
        ]
    }

    #[test]
    fn bracketed_uses_become_the_location() {
        assert_eq!(
            resolve("st.release.gpu [r2], 1", 0, &regs(), 0).unwrap(),
            "st.release.gpu [x], 1"
        );
        assert_eq!(
            resolve("ld.relaxed.gpu.global.u32 %r1, [ %r2 ]", 0, &regs(), 0).unwrap(),
            "ld.relaxed.gpu.global.u32 %r1, [x]"
        );
        // Another thread's address register is an ordinary register here.
        assert_eq!(
            resolve("ld.weak r4, x", 0, &regs(), 0).unwrap(),
            "ld.weak r4, x"
        );
    }

    #[test]
    fn an_address_used_as_a_value_is_refused() {
        let e = resolve("st.weak y, r4", 1, &regs(), 7).unwrap_err();
        assert_eq!(e.pos, 7);
        assert!(
            e.message.contains("holds the address of `y`"),
            "{}",
            e.message
        );
        assert!(resolve("add r1, r2, 1", 0, &regs(), 0).is_err());
    }
}
