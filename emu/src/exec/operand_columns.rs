//! Reading a tensor-core operand from shared memory a 16-byte column at a time, for
//! `wgmma.mma_async` and `tcgen05.mma`.
//!
//! The canonical layouts of both descriptors (PTX ISA "Matrix Descriptor Format" and the
//! tcgen05 "Shared Memory Descriptor") keep each 16-byte column of a core matrix contiguous:
//! the start address, LBO and SBO are multiples of 16, and every swizzle mode permutes whole
//! 16-byte (or 32-byte) units. So `128 / bits` consecutive elements along the contiguous
//! dimension sit in one aligned 16-byte column, which one address computation, one bounds
//! check and one proxy check cover.
//!
//! The checks here cover exactly the bytes of the column's elements, so a column passes them
//! when every element in it would. A screen taken once per instruction
//! ([`Ctx::async_read_screen`]) clears most columns with a bounds test and a pending-copy
//! count; only the others go through the proxy check and the address resolution. When one fails, the reader says so and the instruction
//! reads its operand again element by element, which reports the fault (with the element's
//! address and size) exactly as before.

use crate::exec::address::{resolve, shared_offset, shared_wrap, Loc};
use crate::exec::ctx::Ctx;
use crate::exec::program::AddrSpace;
use crate::semantics::wgmma_desc::Major;

/// Which part of an operand to read: elements `(mn0 + i, k)` for `i < mn_n`, `k < k_n`, of
/// `bits`-bit elements, `major` saying which dimension is contiguous.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OperandPart {
    /// Which dimension is contiguous in memory.
    pub major: Major,
    /// Bits per element.
    pub bits: u32,
    /// The first row (of A) or column (of B) read.
    pub mn0: u32,
    /// How many rows or columns.
    pub mn_n: u32,
    /// The K extent.
    pub k_n: u32,
}

impl OperandPart {
    /// Whether the part is made of whole 16-byte columns of elements of at least 8 bits.
    pub(crate) fn whole_columns(&self) -> bool {
        let per_column = 128 / self.bits.max(1);
        self.bits >= 8
            && self.bits <= 64
            && match self.major {
                Major::K => self.k_n.is_multiple_of(per_column),
                Major::Mn => {
                    self.mn0.is_multiple_of(per_column) && self.mn_n.is_multiple_of(per_column)
                }
            }
    }
}

/// Reads `part` for `lane` one 16-byte column at a time into `set(i, k, bits)` (`i` counted
/// from `part.mn0`). `addr_of(mn, k)` is the shared-memory address of element `(mn, k)`, `None`
/// where the caller cannot say; `proxy_ok(addr, bytes)` is the async-proxy check of a read.
///
/// Returns whether every element was read. `false` (a part that is not whole columns, or a
/// column whose address, bounds or proxy check fails) means the caller must read the part
/// element by element, which reports the fault; `set` may have been called for some
/// elements by then.
pub(crate) fn read(
    c: &Ctx<'_>,
    lane: usize,
    part: OperandPart,
    addr_of: impl Fn(u32, u32) -> Option<u64>,
    proxy_ok: impl Fn(u64, u64) -> bool,
    set: &mut impl FnMut(u32, u32, u64),
) -> bool {
    if !part.whole_columns() {
        return false;
    }
    let OperandPart {
        major,
        bits,
        mn0,
        mn_n,
        k_n,
    } = part;
    let per_column = 128 / bits;
    let per_word = 64 / bits;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let screen = c.async_read_screen();
    let (outer, inner) = match major {
        Major::K => (mn_n, k_n / per_column),
        Major::Mn => (k_n, mn_n / per_column),
    };
    for o in 0..outer {
        for j in 0..inner {
            // The column's first element; its others follow along the contiguous dimension.
            let (mn, k) = match major {
                Major::K => (mn0 + o, j * per_column),
                Major::Mn => (mn0 + j * per_column, o),
            };
            let Some(addr) = addr_of(mn, k) else {
                return false;
            };
            let at = if addr.is_multiple_of(16) && screen.clear(addr, 16) {
                addr
            } else {
                if !proxy_ok(addr, 16) {
                    return false;
                }
                let Ok(off) = shared_offset(AddrSpace::Shared, addr, lane) else {
                    return false;
                };
                let Ok(Loc::Shared(at)) = resolve(c, AddrSpace::Shared, off, 16, 16, lane, false)
                else {
                    return false;
                };
                at
            };
            let words = [c.shared.load(at, 8), c.shared.load(at + 8, 8)];
            for i in 0..per_column {
                let v = (words[(i / per_word) as usize] >> ((i % per_word) * bits)) & mask;
                match major {
                    Major::K => set(mn - mn0, k + i, v),
                    Major::Mn => set(mn - mn0 + i, k, v),
                }
            }
        }
    }
    true
}

/// Adds the bytes of every element of `part` to the race detector's `runs`, element by
/// element in the order an element-by-element read adds them (`mn` outer, `k` inner), so
/// that the detector sees the same runs whichever way the operand was read. `addr_of` is as
/// for [`read`]; an element it cannot place adds nothing.
pub(crate) fn add_element_runs(
    part: OperandPart,
    addr_of: impl Fn(u32, u32) -> Option<u64>,
    runs: &mut Vec<(u64, u64)>,
) {
    let bytes = u64::from(part.bits / 8).max(1);
    for mn in part.mn0..part.mn0 + part.mn_n {
        for k in 0..part.k_n {
            if let Some(addr) = addr_of(mn, k) {
                crate::exec::hooks::asyncs::add_run(runs, shared_wrap(addr), bytes);
            }
        }
    }
}
