//! Bit manipulation: `popc`, `clz`, `bfind`, `fns`, `brev`, `bfe`, `bfi`, `bmsk`, `szext`,
//! `prmt`, `lop3`, `shf` (PTX ISA "Integer Arithmetic Instructions", "Logic and Shift
//! Instructions", "Data Movement and Conversion Instructions: prmt").
//!
//! Widths are 32 or 64 bits; operands arrive zero-extended in a `u64`.

use crate::ir::{PrmtMode, ShiftMode};

fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// `popc`: the number of set bits of the low `w` bits.
pub fn popc(a: u64, w: u32) -> u32 {
    (a & mask(w)).count_ones()
}

/// `clz`: leading zeros of the low `w` bits (`w` for zero).
pub fn clz(a: u64, w: u32) -> u32 {
    let v = a & mask(w);
    v.leading_zeros() - (64 - w)
}

/// `brev`: the low `w` bits reversed.
pub fn brev(a: u64, w: u32) -> u64 {
    (a & mask(w)).reverse_bits() >> (64 - w)
}

/// `bfind{.shiftamt}`: the position of the most significant non-sign bit (for signed types,
/// the first bit that differs from the sign), or 0xFFFFFFFF when there is none; with
/// `.shiftamt`, the left shift that would move it to the top instead.
pub fn bfind(a: u64, w: u32, signed: bool, shiftamt: bool) -> u32 {
    let mut v = a & mask(w);
    if signed && (v >> (w - 1)) & 1 == 1 {
        v = !v & mask(w);
    }
    if v == 0 {
        return u32::MAX;
    }
    let pos = 63 - v.leading_zeros();
    if shiftamt {
        w - 1 - pos
    } else {
        pos
    }
}

/// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set bit of `mask`
/// counting from `base` (upwards for positive offsets, downwards for negative ones; offset 0
/// asks whether bit `base` itself is set), or 0xFFFFFFFF.
pub fn fns(m: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        return u32::MAX;
    }
    if offset == 0 {
        return if (m >> base) & 1 == 1 { base } else { u32::MAX };
    }
    let step: i32 = if offset > 0 { 1 } else { -1 };
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = base as i32;
    while (0..32).contains(&pos) {
        if (m >> pos) & 1 == 1 {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += step;
    }
    u32::MAX
}

/// `bfe`: extracts `len` bits from `pos` (both taken from their low 8 bits); for signed types
/// the bits above the field copy the field's top bit (or the source's top bit when the field
/// runs past it).
pub fn bfe(a: u64, pos: u32, len: u32, w: u32, signed: bool) -> u64 {
    let pos = pos & 0xFF;
    let len = len & 0xFF;
    let msb = w - 1;
    let a = a & mask(w);
    let sbit = if signed && len > 0 {
        (a >> (pos + len - 1).min(msb)) & 1
    } else {
        0
    };
    let mut d = 0u64;
    for i in 0..w {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// `bfi`: `b` with `len` bits from position `pos` replaced by the low bits of `a`.
pub fn bfi(a: u64, b: u64, pos: u32, len: u32, w: u32) -> u64 {
    let pos = pos & 0xFF;
    let len = len & 0xFF;
    let mut f = b & mask(w);
    for i in 0..len {
        let p = pos + i;
        if p >= w {
            break;
        }
        f = (f & !(1 << p)) | (((a >> i) & 1) << p);
    }
    f
}

/// `bmsk.mode.b32 d, a, b`: a mask of `b` ones starting at bit `a`.
pub fn bmsk(a: u32, b: u32, mode: ShiftMode) -> u32 {
    let (a, b) = match mode {
        ShiftMode::Clamp => (a.min(32), b.min(32)),
        ShiftMode::Wrap => (a & 31, b & 31),
    };
    let ones = if b >= 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << b) - 1
    };
    ((ones << a) & 0xFFFF_FFFF) as u32
}

/// `szext.mode.{u32,s32} d, a, b`: the low `b` bits of `a`, zero- or sign-extended.
pub fn szext(a: u32, b: u32, mode: ShiftMode, signed: bool) -> u32 {
    let n = match mode {
        ShiftMode::Clamp => b.min(32),
        ShiftMode::Wrap => b & 31,
    };
    if n == 0 {
        return 0;
    }
    if n >= 32 {
        return a;
    }
    let low = a & ((1u32 << n) - 1);
    if signed && (low >> (n - 1)) & 1 == 1 {
        low | !((1u32 << n) - 1)
    } else {
        low
    }
}

/// `prmt.b32{.mode} d, a, b, c`: picks bytes of `{b, a}` (a is bytes 0–3, b bytes 4–7).
pub fn prmt(a: u32, b: u32, c: u32, mode: Option<PrmtMode>) -> u32 {
    let tmp = (u64::from(b) << 32) | u64::from(a);
    let byte = |i: u32| ((tmp >> (8 * (i & 7))) & 0xFF) as u32;
    let Some(mode) = mode else {
        let mut d = 0u32;
        for i in 0..4 {
            let sel = (c >> (4 * i)) & 0xF;
            let v = byte(sel & 7);
            let v = if sel & 8 != 0 {
                if v & 0x80 != 0 {
                    0xFF
                } else {
                    0
                }
            } else {
                v
            };
            d |= v << (8 * i);
        }
        return d;
    };
    let s = c & 3;
    // Byte sources of d.b0, d.b1, d.b2, d.b3.
    let order: [u32; 4] = match mode {
        PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
        PrmtMode::B4e => [(8 - s) & 7, (7 - s) & 7, (6 - s) & 7, (5 - s) & 7],
        PrmtMode::Rc8 => [s; 4],
        PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
        PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
        PrmtMode::Rc16 => {
            let lo = (s & 1) * 2;
            [lo, lo + 1, lo, lo + 1]
        }
    };
    order
        .iter()
        .enumerate()
        .fold(0, |d, (i, &src)| d | (byte(src) << (8 * i)))
}

/// `lop3.b32 d, a, b, c, immLut`: the boolean function whose truth table is `lut` (bit
/// `4a + 2b + c` of `lut` is the result for input bits a, b, c).
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0u32;
    for k in 0..8u32 {
        if (lut >> k) & 1 == 1 {
            let ta = if k & 4 != 0 { a } else { !a };
            let tb = if k & 2 != 0 { b } else { !b };
            let tc = if k & 1 != 0 { c } else { !c };
            d |= ta & tb & tc;
        }
    }
    d
}

/// `shf.{l,r}.mode.b32 d, a, b, c`: a funnel shift of the 64-bit `{b, a}` by `c` (clamped to
/// 32 or taken modulo 32); `.l` returns the high word, `.r` the low word.
pub fn shf(a: u32, b: u32, c: u32, left: bool, mode: ShiftMode) -> u32 {
    let n = match mode {
        ShiftMode::Clamp => c.min(32),
        ShiftMode::Wrap => c & 31,
    };
    let v = (u64::from(b) << 32) | u64::from(a);
    if left {
        ((v << n) >> 32) as u32
    } else {
        (v >> n) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(popc(0xF0F0, 32), 8);
        assert_eq!(popc(u64::MAX, 32), 32);
        assert_eq!(clz(0, 32), 32);
        assert_eq!(clz(1, 32), 31);
        assert_eq!(clz(1 << 40, 64), 23);
        assert_eq!(brev(1, 32), 0x8000_0000);
        assert_eq!(brev(0x3, 64), 0xC000_0000_0000_0000);
    }

    #[test]
    fn bfind_forms() {
        assert_eq!(bfind(0, 32, false, false), u32::MAX);
        assert_eq!(bfind(1, 32, false, false), 0);
        assert_eq!(bfind(0x8000_0000, 32, false, false), 31);
        assert_eq!(bfind(0x8000_0000, 32, false, true), 0);
        assert_eq!(
            bfind(0xFFFF_FFFF, 32, true, false),
            u32::MAX,
            "-1 has no non-sign bit"
        );
        assert_eq!(
            bfind(0xFFFF_FFFE, 32, true, false),
            0,
            "-2: bit 0 differs from the sign"
        );
        assert_eq!(bfind(0x10, 32, true, true), 27);
    }

    #[test]
    fn find_nth_set() {
        let m = 0b1011_0100;
        assert_eq!(fns(m, 0, 1), 2);
        assert_eq!(fns(m, 0, 2), 4);
        assert_eq!(fns(m, 0, 4), 7);
        assert_eq!(fns(m, 0, 5), u32::MAX);
        assert_eq!(fns(m, 7, -2), 5);
        assert_eq!(fns(m, 4, 0), 4);
        assert_eq!(fns(m, 3, 0), u32::MAX);
    }

    #[test]
    fn bit_fields() {
        assert_eq!(bfe(0xABCD, 4, 8, 32, false), 0xBC);
        assert_eq!(bfe(0x0000_F000, 12, 4, 32, true), 0xFFFF_FFFF);
        assert_eq!(bfe(0x0000_7000, 12, 4, 32, true), 0x7);
        assert_eq!(
            bfe(0x8000_0000, 28, 8, 32, true),
            0xFFFF_FFF8,
            "field past the top sign-extends the top bit"
        );
        assert_eq!(bfe(0xFF, 0, 0, 32, true), 0);
        assert_eq!(bfi(0xF, 0, 4, 4, 32), 0xF0);
        assert_eq!(bfi(0xFF, 0xFFFF_FFFF, 28, 8, 32), 0xFFFF_FFFF);
        assert_eq!(bfi(0x0, 0xFFFF_FFFF, 28, 8, 32), 0x0FFF_FFFF);
        assert_eq!(bmsk(4, 8, ShiftMode::Clamp), 0xFF0);
        assert_eq!(bmsk(0, 40, ShiftMode::Clamp), 0xFFFF_FFFF);
        assert_eq!(bmsk(33, 1, ShiftMode::Wrap), 0x2);
        assert_eq!(szext(0x80, 8, ShiftMode::Clamp, true), 0xFFFF_FF80);
        assert_eq!(szext(0x80, 8, ShiftMode::Clamp, false), 0x80);
        assert_eq!(szext(0x1234, 0, ShiftMode::Wrap, true), 0);
    }

    #[test]
    fn permutes() {
        let (a, b) = (0x3322_1100, 0x7766_5544);
        assert_eq!(prmt(a, b, 0x3210, None), a);
        assert_eq!(prmt(a, b, 0x7654, None), b);
        assert_eq!(prmt(a, b, 0x0123, None), 0x0011_2233);
        assert_eq!(
            prmt(0x0000_0080, 0, 0x8888, None),
            0xFFFF_FFFF,
            "sign replication of byte 0"
        );
        assert_eq!(prmt(a, b, 1, Some(PrmtMode::F4e)), 0x4433_2211);
        assert_eq!(prmt(a, b, 0, Some(PrmtMode::B4e)), 0x5566_7700);
        assert_eq!(prmt(a, b, 2, Some(PrmtMode::Rc8)), 0x2222_2222);
        assert_eq!(prmt(a, b, 1, Some(PrmtMode::Ecl)), 0x3322_1111);
        assert_eq!(prmt(a, b, 2, Some(PrmtMode::Ecr)), 0x2222_1100);
        assert_eq!(prmt(a, b, 1, Some(PrmtMode::Rc16)), 0x3322_3322);
    }

    #[test]
    fn lop3_and_funnel_shift() {
        let (a, b, c) = (0xF0F0_F0F0, 0xCCCC_CCCC, 0xAAAA_AAAA);
        assert_eq!(lop3(a, b, c, 0xF0), a);
        assert_eq!(lop3(a, b, c, 0x80), a & b & c);
        assert_eq!(lop3(a, b, c, 0x96), a ^ b ^ c);
        assert_eq!(lop3(a, b, c, 0xFE), a | b | c);
        assert_eq!(shf(0x8000_0000, 0x1, 1, true, ShiftMode::Wrap), 0x3);
        assert_eq!(shf(0x1, 0x1, 1, false, ShiftMode::Wrap), 0x8000_0000);
        assert_eq!(shf(0xAAAA, 0x5555, 32, true, ShiftMode::Clamp), 0xAAAA);
        assert_eq!(
            shf(0xAAAA, 0x5555, 32, true, ShiftMode::Wrap),
            0x5555,
            "32 wraps to 0"
        );
        assert_eq!(
            shf(0x1234_5678, 0x1234_5678, 8, true, ShiftMode::Wrap),
            0x3456_7812,
            "rotate"
        );
    }
}
