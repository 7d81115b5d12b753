//! `vprintf`'s formatting: C's conversion specifications applied to arguments read from the
//! device's argument buffer.

use super::{read_cstr, read_generic};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::GlobalMemory;
use crate::exec::warp::Warp;

/// Reads successive `vprintf` arguments from the argument buffer.
pub(super) struct ArgReader<'a> {
    pub(super) global: &'a GlobalMemory,
    pub(super) warp: &'a Warp,
    pub(super) lane: usize,
    pub(super) addr: u64,
    pub(super) pos: u64,
}

impl ArgReader<'_> {
    fn next(&mut self, size: u64) -> Result<u64, LaneFault> {
        self.pos = self.pos.div_ceil(size) * size;
        let bytes = read_generic(
            self.global,
            self.warp,
            self.lane,
            self.addr + self.pos,
            size as usize,
        )?;
        self.pos += size;
        let mut b = [0u8; 8];
        b[..bytes.len()].copy_from_slice(&bytes);
        Ok(u64::from_le_bytes(b))
    }

    fn string(&mut self) -> Result<String, LaneFault> {
        let p = self.next(8)?;
        if p == 0 {
            return Ok("(null)".into());
        }
        read_cstr(self.global, self.warp, self.lane, p)
    }
}

/// The widest field (width or precision) `printf` formats: Rust's formatter takes precisions
/// up to 65,535, and CUDA's device printf buffer (1 MiB by default) holds little more.
const MAX_FIELD: usize = 65_535;

/// One parsed conversion specification.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
    long: bool,
    short: u8,
}

impl Spec {
    /// Parses the flags, width, precision and length of the specification at `chars[*i..]`
    /// (after its `%`), taking a `*` width or precision from `args`; leaves `*i` at the
    /// conversion character.
    fn parse(chars: &[char], i: &mut usize, args: &mut ArgReader<'_>) -> Result<Spec, LaneFault> {
        let mut s = Spec::default();
        while *i < chars.len() {
            match chars[*i] {
                '-' => s.left = true,
                '+' => s.plus = true,
                ' ' => s.space = true,
                '#' => s.alt = true,
                '0' => s.zero = true,
                _ => break,
            }
            *i += 1;
        }
        if *i < chars.len() && chars[*i] == '*' {
            let w = args.next(4)? as u32 as i32;
            if w < 0 {
                s.left = true;
            }
            s.width = Some(w.unsigned_abs() as usize);
            *i += 1;
        } else {
            let mut w = String::new();
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                w.push(chars[*i]);
                *i += 1;
            }
            // A run of digits too long for a number is a width past any bound.
            s.width = (!w.is_empty()).then(|| w.parse().unwrap_or(usize::MAX));
        }
        if *i < chars.len() && chars[*i] == '.' {
            *i += 1;
            if *i < chars.len() && chars[*i] == '*' {
                let p = args.next(4)? as u32 as i32;
                s.prec = (p >= 0).then_some(p as usize);
                *i += 1;
            } else {
                let mut p = String::new();
                while *i < chars.len() && chars[*i].is_ascii_digit() {
                    p.push(chars[*i]);
                    *i += 1;
                }
                s.prec = Some(if p.is_empty() {
                    0
                } else {
                    p.parse().unwrap_or(usize::MAX)
                });
            }
        }
        for (what, v) in [("width", s.width), ("precision", s.prec)] {
            if v.is_some_and(|v| v > MAX_FIELD) {
                return Err(LaneFault::new(FaultKind::Unsupported {
                    what: format!(
                        "a printf field {what} of {} (ptxemu formats fields of at most {MAX_FIELD} characters)",
                        v.unwrap_or(0)
                    ),
                }));
            }
        }
        while *i < chars.len() && matches!(chars[*i], 'h' | 'l' | 'L' | 'z' | 'j' | 't' | 'q') {
            match chars[*i] {
                'h' => s.short += 1,
                'l' | 'L' | 'z' | 'j' | 't' | 'q' => s.long = true,
                _ => {}
            }
            *i += 1;
        }
        Ok(s)
    }
}

/// Formats `fmt` as C's `printf` does, taking the arguments from `args`.
pub(super) fn format_printf(fmt: &str, args: &mut ArgReader<'_>) -> Result<String, LaneFault> {
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        let s = Spec::parse(&chars, &mut i, args)?;
        let Some(&conv) = chars.get(i) else {
            out.push('%');
            break;
        };
        i += 1;
        let body = match conv {
            '%' => {
                out.push('%');
                continue;
            }
            'd' | 'i' => signed(&s, args)?,
            'u' | 'x' | 'X' | 'o' => unsigned(conv, &s, args)?,
            'c' => {
                let v = args.next(4)? as u8;
                pad_text(&(v as char).to_string(), &s)
            }
            's' => {
                let mut text = args.string()?;
                if let Some(p) = s.prec {
                    text = text.chars().take(p).collect();
                }
                pad_text(&text, &s)
            }
            'p' => {
                let v = args.next(8)?;
                let digits = int_digits(v, 16, false, None);
                pad_number("", "0x", &digits, &s, true)
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
                let v = f64::from_bits(args.next(8)?);
                format_float(v, conv, &s)
            }
            'n' => continue,
            other => {
                out.push('%');
                out.push(other);
                continue;
            }
        };
        out.push_str(&body);
    }
    Ok(out)
}

/// `%d` / `%i`: a signed integer of the specification's length.
fn signed(s: &Spec, args: &mut ArgReader<'_>) -> Result<String, LaneFault> {
    let raw = if s.long { args.next(8)? } else { args.next(4)? };
    let v: i64 = if s.long {
        raw as i64
    } else {
        match s.short {
            1 => i64::from(raw as u16 as i16),
            2.. => i64::from(raw as u8 as i8),
            0 => i64::from(raw as u32 as i32),
        }
    };
    let digits = int_digits(v.unsigned_abs(), 10, false, s.prec);
    let sign = if v < 0 {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    };
    Ok(pad_number(sign, "", &digits, s, s.prec.is_none()))
}

/// `%u`, `%x`, `%X`, `%o`: an unsigned integer of the specification's length.
fn unsigned(conv: char, s: &Spec, args: &mut ArgReader<'_>) -> Result<String, LaneFault> {
    let raw = if s.long { args.next(8)? } else { args.next(4)? };
    let v = if s.long {
        raw
    } else {
        match s.short {
            1 => u64::from(raw as u16),
            2.. => u64::from(raw as u8),
            0 => u64::from(raw as u32),
        }
    };
    let (radix, upper) = match conv {
        'x' => (16, false),
        'X' => (16, true),
        'o' => (8, false),
        _ => (10, false),
    };
    let mut digits = int_digits(v, radix, upper, s.prec);
    let prefix = match conv {
        'x' if s.alt && v != 0 => "0x",
        'X' if s.alt && v != 0 => "0X",
        _ => "",
    };
    if conv == 'o' && s.alt && !digits.starts_with('0') {
        digits.insert(0, '0');
    }
    Ok(pad_number("", prefix, &digits, s, s.prec.is_none()))
}

fn int_digits(v: u64, radix: u32, upper: bool, prec: Option<usize>) -> String {
    let d = if v == 0 && prec == Some(0) {
        String::new()
    } else {
        match radix {
            16 if upper => format!("{v:X}"),
            16 => format!("{v:x}"),
            8 => format!("{v:o}"),
            _ => v.to_string(),
        }
    };
    match prec {
        Some(p) if d.len() < p => format!("{}{d}", "0".repeat(p - d.len())),
        _ => d,
    }
}

fn pad_text(text: &str, s: &Spec) -> String {
    let w = s.width.unwrap_or(0);
    let n = text.chars().count();
    if n >= w {
        return text.to_string();
    }
    let pad = " ".repeat(w - n);
    if s.left {
        format!("{text}{pad}")
    } else {
        format!("{pad}{text}")
    }
}

fn pad_number(sign: &str, prefix: &str, digits: &str, s: &Spec, zero_ok: bool) -> String {
    let w = s.width.unwrap_or(0);
    let len = sign.len() + prefix.len() + digits.len();
    if len >= w {
        return format!("{sign}{prefix}{digits}");
    }
    if s.left {
        format!("{sign}{prefix}{digits}{}", " ".repeat(w - len))
    } else if s.zero && zero_ok {
        format!("{sign}{prefix}{}{digits}", "0".repeat(w - len))
    } else {
        format!("{}{sign}{prefix}{digits}", " ".repeat(w - len))
    }
}

/// `%e` body for a finite non-negative value: mantissa with `prec` decimals and exponent.
fn exp_form(v: f64, prec: usize, upper: bool) -> String {
    let s = format!("{v:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    let e_char = if upper { 'E' } else { 'e' };
    format!("{mant}{e_char}{sign}{:02}", e.abs())
}

fn strip_zeros(s: &str) -> String {
    let (body, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    if !body.contains('.') {
        return s.to_string();
    }
    let t = body.trim_end_matches('0').trim_end_matches('.');
    format!("{t}{exp}")
}

fn format_float(v: f64, conv: char, s: &Spec) -> String {
    let upper = conv.is_ascii_uppercase();
    let sign = if v.is_sign_negative() && !v.is_nan() {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    };
    if !v.is_finite() {
        let t = if v.is_nan() { "nan" } else { "inf" };
        let t = if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        };
        return pad_number(sign, "", &t, s, false);
    }
    let a = v.abs();
    let body = match conv {
        'f' | 'F' => {
            let p = s.prec.unwrap_or(6);
            let mut t = format!("{a:.p$}");
            if s.alt && p == 0 {
                t.push('.');
            }
            t
        }
        'e' | 'E' => exp_form(a, s.prec.unwrap_or(6), upper),
        'g' | 'G' => {
            let p = match s.prec {
                Some(0) => 1,
                Some(p) => p,
                None => 6,
            };
            let e_form = exp_form(a, p - 1, upper);
            let x: i32 = e_form
                .rsplit_once(['e', 'E'])
                .and_then(|(_, e)| e.parse().ok())
                .unwrap_or(0);
            let t = if (p as i32) > x && x >= -4 {
                let decimals = (p as i32 - 1 - x).max(0) as usize;
                format!("{a:.decimals$}")
            } else {
                e_form
            };
            if s.alt {
                t
            } else {
                strip_zeros(&t)
            }
        }
        _ => hex_float(a, s.prec, upper),
    };
    pad_number(sign, "", &body, s, true)
}

/// `%a`: hexadecimal floating point.
fn hex_float(a: f64, prec: Option<usize>, upper: bool) -> String {
    let bits = a.to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    let (lead, exp) = if exp_bits == 0 {
        if mant == 0 {
            (0, 0)
        } else {
            (0, -1022)
        }
    } else {
        (1, exp_bits - 1023)
    };
    let mut digits = 13;
    if let Some(p) = prec {
        if p < 13 {
            let drop = (13 - p) * 4;
            let half = 1u64 << (drop - 1);
            let rem = mant & ((1u64 << drop) - 1);
            mant >>= drop;
            if rem > half || (rem == half && mant & 1 == 1) {
                mant += 1;
            }
            digits = p;
        }
    }
    let mut frac = if digits == 0 {
        String::new()
    } else {
        format!("{mant:0digits$x}")
    };
    if prec.is_none() {
        frac = frac.trim_end_matches('0').to_string();
    }
    let lead = lead
        + if digits < 13 && mant >> (digits * 4) != 0 {
            1
        } else {
            0
        };
    let s = if frac.is_empty() {
        format!("0x{lead}p{exp:+}")
    } else {
        format!("0x{lead}.{frac}p{exp:+}")
    };
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(prec: Option<usize>) -> Spec {
        Spec {
            prec,
            ..Spec::default()
        }
    }

    #[test]
    fn floats_format_like_c() {
        assert_eq!(format_float(1.5, 'f', &spec(None)), "1.500000");
        assert_eq!(format_float(-0.0, 'f', &spec(Some(2))), "-0.00");
        assert_eq!(format_float(150.0, 'e', &spec(None)), "1.500000e+02");
        assert_eq!(format_float(1e-10, 'E', &spec(Some(1))), "1.0E-10");
        assert_eq!(format_float(100000.0, 'g', &spec(None)), "100000");
        assert_eq!(format_float(1000000.0, 'g', &spec(None)), "1e+06");
        assert_eq!(format_float(0.0001, 'g', &spec(None)), "0.0001");
        assert_eq!(format_float(0.00001, 'g', &spec(None)), "1e-05");
        assert_eq!(format_float(1.23456, 'g', &spec(Some(3))), "1.23");
        assert_eq!(format_float(f64::INFINITY, 'f', &spec(None)), "inf");
        assert_eq!(format_float(f64::NAN, 'G', &spec(None)), "NAN");
        assert_eq!(format_float(1.0, 'a', &spec(None)), "0x1p+0");
        assert_eq!(format_float(0.5, 'a', &spec(None)), "0x1p-1");
        assert_eq!(format_float(3.0, 'A', &spec(None)), "0X1.8P+1");
        let w = Spec {
            width: Some(8),
            zero: true,
            ..spec(Some(2))
        };
        assert_eq!(format_float(-1.23456, 'f', &w), "-0001.23");
    }

    #[test]
    fn integers_pad_like_c() {
        let s = Spec {
            width: Some(5),
            ..Spec::default()
        };
        assert_eq!(pad_number("-", "", "42", &s, true), "  -42");
        let z = Spec {
            width: Some(5),
            zero: true,
            ..Spec::default()
        };
        assert_eq!(pad_number("-", "", "42", &z, true), "-0042");
        let l = Spec {
            width: Some(5),
            left: true,
            ..Spec::default()
        };
        assert_eq!(pad_number("", "0x", "a", &l, true), "0xa  ");
        assert_eq!(int_digits(7, 10, false, Some(3)), "007");
        assert_eq!(int_digits(0, 10, false, Some(0)), "");
        assert_eq!(int_digits(255, 16, true, None), "FF");
    }
}
