//! A fast hasher for maps keyed by addresses or word indices: the race detector's shadow
//! pages and the proxy check's marks of generically written bytes. std's SipHash resists
//! chosen keys, which these maps, keyed by the kernel's own addresses, do not need, and costs
//! more than the lookup itself.

use std::hash::Hasher;

/// A multiplicative hasher for word indices (std's SipHash costs more than the lookup).
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}
