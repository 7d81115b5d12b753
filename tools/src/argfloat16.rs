//! `--arg` values of the 16-bit float types `f16` (IEEE binary16) and `bf16` (bfloat16).
//!
//! A decimal is rounded once, straight from its text, to the nearest value (ties to even), so
//! no double rounding through f64 can move it; a finite decimal beyond the type's range is
//! refused rather than turned into infinity. `inf`, `-inf` and `nan` (the canonical quiet NaN,
//! `0x7E00` or `0x7FC0`) are spelled as for `f32`, and raw bits as PTX writes a 16-bit float
//! operand, `0x3C00` (at most four hex digits).

use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::{Float, Round, Status};

use crate::argspec::{article, ElemType};

/// The bits of `text` as a value of `ty` (`F16` or `BF16`).
///
/// # Errors
/// Text that is not a number, a bit pattern wider than 16 bits, or a finite number too large
/// for the type.
pub(crate) fn encode(ty: ElemType, text: &str) -> Result<u16, String> {
    let name = ty.name();
    let not_a_value = || format!("`{text}` is not {} {name} value", article(name));
    if let Some(h) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if h.is_empty() || h.len() > 4 {
            return Err(format!(
                "bad {name} bit pattern `{text}` (0x and 1 to 4 hex digits)"
            ));
        }
        return u16::from_str_radix(h, 16).map_err(|_| format!("bad {name} bit pattern `{text}`"));
    }
    let bf = ty == ElemType::BF16;
    let (inf, nan) = if bf {
        (0x7F80, 0x7FC0)
    } else {
        (0x7C00, 0x7E00)
    };
    match text.to_ascii_lowercase().as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => return Ok(inf),
        "-inf" | "-infinity" => return Ok(0x8000 | inf),
        "nan" => return Ok(nan),
        _ => {}
    }
    // Rust's own grammar of decimals decides what is a number (apfloat also takes hex floats
    // and NaN payloads, which are not decimals).
    if text.parse::<f64>().is_err() || text.to_ascii_lowercase().contains(['i', 'n']) {
        return Err(not_a_value());
    }
    let (bits, status) = if bf {
        let r = BFloat::from_str_r(text, Round::NearestTiesToEven).map_err(|_| not_a_value())?;
        (r.value.to_bits() as u16, r.status)
    } else {
        let r = Half::from_str_r(text, Round::NearestTiesToEven).map_err(|_| not_a_value())?;
        (r.value.to_bits() as u16, r.status)
    };
    if status.contains(Status::OVERFLOW) || bits & 0x7FFF == inf {
        return Err(format!(
            "`{text}` is out of the {name} range (write inf for infinity)"
        ));
    }
    Ok(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of the table `gen.py` computed with an exact rounder (cross-checked by numpy).
    #[test]
    fn decimals_match_the_reference_table() {
        let table = include_str!("../tests/data/f16_args/table.tsv");
        let mut rows = 0;
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            for (ty, want) in [(ElemType::F16, cols[1]), (ElemType::BF16, cols[2])] {
                let got = encode(ty, cols[0]);
                if want == "refused" {
                    let e = got.expect_err(line);
                    assert!(e.contains("out of the"), "{line}: {e}");
                } else {
                    let w = u16::from_str_radix(&want[2..], 16).unwrap();
                    assert_eq!(got, Ok(w), "{} of `{}`", ty.name(), cols[0]);
                }
            }
            rows += 1;
        }
        assert!(rows >= 35, "{rows} rows");
    }

    #[test]
    fn specials_and_raw_bits() {
        assert_eq!(encode(ElemType::F16, "inf"), Ok(0x7C00));
        assert_eq!(encode(ElemType::F16, "-inf"), Ok(0xFC00));
        assert_eq!(encode(ElemType::F16, "nan"), Ok(0x7E00));
        assert_eq!(encode(ElemType::BF16, "-inf"), Ok(0xFF80));
        assert_eq!(encode(ElemType::BF16, "nan"), Ok(0x7FC0));
        assert_eq!(encode(ElemType::F16, "0x3C00"), Ok(0x3C00));
        assert_eq!(encode(ElemType::BF16, "0X7f80"), Ok(0x7F80));
        for bad in [
            "0x12345", "0x", "0xZZ", "abc", "1.5.2", "0x1p3", "nan(5)", "", "1e99999",
        ] {
            assert!(encode(ElemType::F16, bad).is_err(), "{bad}");
        }
    }
}
