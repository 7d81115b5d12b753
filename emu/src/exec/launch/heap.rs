//! The device heap that `malloc` and `free` manage (CUDA's device-side allocator), inside one
//! global allocation the launcher makes and keeps across launches.

use std::sync::Mutex;

/// The device heap that `malloc` and `free` manage, inside one global allocation.
#[derive(Debug)]
pub struct Heap {
    base: u64,
    len: u64,
    blocks: Mutex<Vec<(u64, u64, bool)>>,
}

impl Heap {
    /// A heap over `[base, base+len)` (a global allocation made by the launcher).
    pub fn new(base: u64, len: u64) -> Heap {
        Heap {
            base,
            len,
            blocks: Mutex::new(vec![(base, len, false)]),
        }
    }

    /// Allocates `size` bytes aligned to 16; 0 when the heap is full.
    pub fn malloc(&self, size: u64) -> u64 {
        let size = size.max(1).div_ceil(16) * 16;
        let Ok(mut blocks) = self.blocks.lock() else {
            return 0;
        };
        for i in 0..blocks.len() {
            let (start, len, used) = blocks[i];
            if !used && len >= size {
                blocks[i] = (start, size, true);
                if len > size {
                    blocks.insert(i + 1, (start + size, len - size, false));
                }
                return start;
            }
        }
        0
    }

    /// Frees a block returned by `malloc`; returns false for any other non-null pointer.
    pub fn free(&self, ptr: u64) -> bool {
        if ptr == 0 {
            return true;
        }
        let Ok(mut blocks) = self.blocks.lock() else {
            return false;
        };
        let Some(i) = blocks.iter().position(|b| b.0 == ptr && b.2) else {
            return false;
        };
        blocks[i].2 = false;
        if i + 1 < blocks.len() && !blocks[i + 1].2 {
            blocks[i].1 += blocks[i + 1].1;
            blocks.remove(i + 1);
        }
        if i > 0 && !blocks[i - 1].2 {
            blocks[i - 1].1 += blocks[i].1;
            blocks.remove(i);
        }
        true
    }

    /// The heap's first address and size.
    pub fn bounds(&self) -> (u64, u64) {
        (self.base, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_allocates_frees_and_coalesces() {
        let h = Heap::new(0x1000, 256);
        let a = h.malloc(10);
        let b = h.malloc(100);
        assert_eq!(a, 0x1000);
        assert_eq!(b, 0x1010);
        assert_eq!(h.malloc(1000), 0, "too big");
        assert!(h.free(a));
        assert!(!h.free(a), "double free");
        assert!(h.free(b));
        assert_eq!(h.malloc(256), 0x1000, "coalesced back into one block");
        assert!(h.free(0));
    }
}
