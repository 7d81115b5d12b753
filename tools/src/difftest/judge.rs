//! How a GPU's output frames and ptxemu's are compared for the tensor-core family: integer
//! results, moved bits and every byte a kernel does not write must be identical;
//! floating-point results may differ by at most the kernel's stated bound (both finite), and
//! the number of results equal only within that bound is reported, because the aim remains
//! bit-for-bit agreement.

use super::gen::FRAME;

/// How one output word (two for `F64`) is compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// Bit for bit.
    Exact,
    /// A binary32 value within `tol` (absolute).
    F32 {
        /// The bound.
        tol: f64,
    },
    /// Two binary16 values, each within `tol`.
    F16x2 {
        /// The bound.
        tol: f64,
    },
    /// A binary64 value (this word and the next) within `tol`.
    F64 {
        /// The bound.
        tol: f64,
    },
}

/// An output word of every thread and its comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutSlot {
    /// The word's index in the thread's output frame.
    pub word: usize,
    /// How it is compared.
    pub kind: Num,
}

/// The comparison of one kernel's outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every byte equal.
    Same,
    /// Some floating-point results differ, all within their bounds (how many, and the first).
    Close(usize, String),
    /// Some result differs beyond its bound, or an exact one differs (the first few).
    Differ(String),
}

/// Decodes an IEEE binary16 value.
pub fn f16_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Compares two values of a float slot: `None` when within `tol` (or equal), else why not.
fn close(g: f64, e: f64, tol: f64) -> Option<String> {
    if !g.is_finite() || !e.is_finite() {
        return Some(format!("gpu {g:e} ptxemu {e:e} (not both finite)"));
    }
    let diff = (g - e).abs();
    (diff > tol).then(|| format!("gpu {g:e} ptxemu {e:e}, |difference| {diff:e} > bound {tol:e}"))
}

fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Compares a kernel's output frames (`gpu` against `emu`, `FRAME * THREADS` bytes each).
pub fn judge(slots: &[OutSlot], gpu: &[u8], emu: &[u8]) -> Verdict {
    if gpu.len() != emu.len() {
        return Verdict::Differ(format!("{} bytes against {}", gpu.len(), emu.len()));
    }
    let words = FRAME / 4;
    let mut kind = vec![Num::Exact; words];
    let mut second_half = vec![false; words];
    for s in slots {
        if s.word < words {
            kind[s.word] = s.kind;
            if matches!(s.kind, Num::F64 { .. }) && s.word + 1 < words {
                second_half[s.word + 1] = true;
            }
        }
    }
    let (mut differ, mut near, mut first_near) = (Vec::new(), 0usize, String::new());
    for t in 0..gpu.len() / FRAME {
        for w in 0..words {
            let at = t * FRAME + 4 * w;
            if second_half[w] {
                continue;
            }
            let (g, e) = (word(gpu, at), word(emu, at));
            let wide = matches!(kind[w], Num::F64 { .. }) && w + 1 < words;
            let (g64, e64) = if wide {
                (
                    u64::from(g) | u64::from(word(gpu, at + 4)) << 32,
                    u64::from(e) | u64::from(word(emu, at + 4)) << 32,
                )
            } else {
                (u64::from(g), u64::from(e))
            };
            if g64 == e64 {
                continue;
            }
            let problem = match kind[w] {
                Num::Exact => Some(String::new()),
                Num::F32 { tol } => close(
                    f64::from(f32::from_bits(g)),
                    f64::from(f32::from_bits(e)),
                    tol,
                ),
                Num::F64 { tol } => close(f64::from_bits(g64), f64::from_bits(e64), tol),
                Num::F16x2 { tol } => [0, 16].iter().find_map(|&sh| {
                    close(
                        f16_value((g >> sh) as u16),
                        f16_value((e >> sh) as u16),
                        tol,
                    )
                }),
            };
            let width = if wide { 16 } else { 8 };
            let line = format!("thread {t} word {w}: gpu 0x{g64:0width$x} ptxemu 0x{e64:0width$x}");
            match problem {
                Some(why) if why.is_empty() => differ.push(line),
                Some(why) => differ.push(format!("{line}: {why}")),
                None => {
                    near += 1;
                    if first_near.is_empty() {
                        first_near = line;
                    }
                }
            }
        }
    }
    if !differ.is_empty() {
        let n = differ.len();
        differ.truncate(8);
        if n > 8 {
            differ.push(format!("… {} more differing words", n - 8));
        }
        Verdict::Differ(differ.join("\n"))
    } else if near > 0 {
        Verdict::Close(near, first_near)
    } else {
        Verdict::Same
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::difftest::gen::THREADS;

    fn frames(f: impl Fn(usize, usize) -> u32) -> Vec<u8> {
        let mut v = Vec::new();
        for t in 0..THREADS {
            for w in 0..FRAME / 4 {
                v.extend_from_slice(&f(t, w).to_le_bytes());
            }
        }
        v
    }

    fn f32_slots(tol: f64) -> Vec<OutSlot> {
        (0..4)
            .map(|word| OutSlot {
                word,
                kind: Num::F32 { tol },
            })
            .collect()
    }

    #[test]
    fn binary16_decoding_matches_known_values() {
        assert_eq!(f16_value(0x3c00), 1.0);
        assert_eq!(f16_value(0xc000), -2.0);
        assert_eq!(f16_value(0x0001), 2f64.powi(-24));
        assert_eq!(f16_value(0x7bff), 65504.0);
        assert!(f16_value(0x7e00).is_nan());
        assert_eq!(f16_value(0xfc00), f64::NEG_INFINITY);
    }

    #[test]
    fn identical_outputs_are_the_same() {
        let a = frames(|t, w| (t * 31 + w) as u32);
        assert_eq!(judge(&f32_slots(1e-3), &a, &a), Verdict::Same);
    }

    #[test]
    fn a_float_within_its_bound_is_close_and_beyond_it_differs() {
        let one = 1.0f32.to_bits();
        let gpu = frames(|_, _| one);
        // One unit in the last place at thread 3 word 1.
        let emu = frames(|t, w| if (t, w) == (3, 1) { one + 1 } else { one });
        match judge(&f32_slots(1e-6), &gpu, &emu) {
            Verdict::Close(1, first) => assert!(first.contains("thread 3 word 1"), "{first}"),
            v => panic!("{v:?}"),
        }
        let far = frames(|t, w| {
            if (t, w) == (3, 1) {
                1.01f32.to_bits()
            } else {
                one
            }
        });
        match judge(&f32_slots(1e-6), &gpu, &far) {
            Verdict::Differ(s) => assert!(s.contains("thread 3 word 1") && s.contains("> bound")),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn integers_and_unwritten_words_must_be_exact() {
        let gpu = frames(|_, _| 7);
        let emu = frames(|t, w| if (t, w) == (0, 9) { 8 } else { 7 });
        // Word 9 is not a float slot: an off-by-one there is a mismatch.
        match judge(&f32_slots(1.0), &gpu, &emu) {
            Verdict::Differ(s) => assert!(s.starts_with("thread 0 word 9: gpu 0x00000007")),
            v => panic!("{v:?}"),
        }
        let slots = [OutSlot {
            word: 9,
            kind: Num::Exact,
        }];
        assert!(matches!(judge(&slots, &gpu, &emu), Verdict::Differ(_)));
    }

    #[test]
    fn nan_or_infinity_on_one_side_differs_whatever_the_bound() {
        let gpu = frames(|_, _| 1.0f32.to_bits());
        let emu = frames(|t, w| {
            if (t, w) == (5, 0) {
                0x7fc0_0000
            } else {
                1.0f32.to_bits()
            }
        });
        assert!(matches!(
            judge(&f32_slots(1e30), &gpu, &emu),
            Verdict::Differ(s) if s.contains("not both finite")
        ));
    }

    #[test]
    fn half_pairs_are_judged_per_half_and_doubles_as_one_value() {
        let slots = [OutSlot {
            word: 0,
            kind: Num::F16x2 { tol: 1e-3 },
        }];
        let gpu = frames(|_, _| 0x3c00_3c00);
        // The low half one unit (2^-10) above 1.0 in thread 1.
        let near = frames(|t, w| 0x3c00_3c00 + u32::from((t, w) == (1, 0)));
        assert!(matches!(judge(&slots, &gpu, &near), Verdict::Close(1, _)));
        let far = frames(|t, w| {
            if (t, w) == (1, 0) {
                0x4000_3c00
            } else {
                0x3c00_3c00
            }
        });
        assert!(matches!(judge(&slots, &gpu, &far), Verdict::Differ(_)));

        let slots = [OutSlot {
            word: 2,
            kind: Num::F64 { tol: 1e-12 },
        }];
        let bits = 1.5f64.to_bits();
        let pair = |b: u64| {
            move |_: usize, w: usize| match w {
                2 => b as u32,
                3 => (b >> 32) as u32,
                _ => 0,
            }
        };
        let (gpu, emu) = (frames(pair(bits)), frames(pair(bits + 1)));
        assert!(matches!(judge(&slots, &gpu, &emu), Verdict::Close(32, _)));
        let emu = frames(pair(2.5f64.to_bits()));
        assert!(matches!(judge(&slots, &gpu, &emu), Verdict::Differ(_)));
    }
}
