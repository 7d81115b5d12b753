//! The input frames of a difftest module: every kernel of a module reads the same registers,
//! drawn towards the values where implementations disagree.

use super::gen::{frame, Class, Rng, FRAME, THREADS};

/// The input frames of a module (every kernel of it reads the same): per thread, registers
/// drawn towards edge values (zeros, all-ones, sign bits, NaNs, infinities, subnormals).
pub fn inputs(seed: u64) -> Vec<u8> {
    let mut g = Rng::new(seed ^ 0x5EED_1234_ABCD_0001);
    let mut out = vec![0u8; FRAME * THREADS];
    for t in 0..THREADS {
        for slot in frame() {
            let v: u64 = match slot.class {
                Class::B32 => u64::from(match g.below(8) {
                    0 => 0,
                    1 => u32::MAX,
                    2 => 0x8000_0000,
                    3 => g.below(64),
                    4 => t as u32,
                    _ => g.next() as u32,
                }),
                Class::F32 => u64::from(match g.below(10) {
                    0 => 0x7fc0_0000,
                    1 => 0x7f80_0000,
                    2 => 0xff80_0000,
                    3 => 0x8000_0000,
                    4 => g.below(0x0080_0000),
                    5 => (g.below(64) as f32 - 32.0).to_bits(),
                    6 => 0x7f7f_ffff,
                    _ => {
                        let x = (g.next() as u32) & 0x807f_ffff;
                        x | ((100 + g.below(56)) << 23)
                    }
                }),
                Class::B64 => match g.below(6) {
                    0 => 0,
                    1 => u64::MAX,
                    2 => 1 << 63,
                    3 => u64::from(g.below(64)),
                    _ => g.next(),
                },
                Class::F64 => match g.below(8) {
                    0 => 0x7ff8_0000_0000_0000,
                    1 => 0x7ff0_0000_0000_0000,
                    2 => 1,
                    3 => (g.below(64) as f64 - 32.5).to_bits(),
                    4 => 0x8000_0000_0000_0000,
                    _ => {
                        let x = g.next() & 0x800f_ffff_ffff_ffff;
                        x | ((900 + g.next() % 250) << 52)
                    }
                },
            };
            let at = t * FRAME + slot.offset;
            let size = slot.class.size();
            out[at..at + size].copy_from_slice(&v.to_le_bytes()[..size]);
        }
    }
    out
}
