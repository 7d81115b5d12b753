//! One path for every host allocation a run makes on behalf of the emulated device: global
//! buffers (arguments, plan buffers, Python arrays, Triton scratch), the module's `.global`
//! variables, the device heap, each running CTA's shared and local memory, and the race
//! detector's shadow memory.
//!
//! Device memory is host memory here. A [`Budget`] holds the run's limit (`--memory-limit`;
//! none by default in the library) and what the run holds now. Every allocation first takes
//! its bytes from the budget, then asks the host allocator *fallibly*: a request past the
//! limit, or one the host refuses (an address-space cap such as `ulimit -v`, memory
//! exhausted), becomes a [`ReserveError`] naming what it was for, the size, what is held and
//! the limit, instead of aborting the process.
//!
//! Zeroed memory comes from the allocator's zeroed pages (`alloc_zeroed`): a large buffer
//! costs host memory only where it is written, as on the first pass.
//!
//! Deliberate deviations:
//! 1. Bytes are counted as requested, not as the pages the host commits: a 16 GiB zero buffer
//!    counts 16 GiB against the limit even if the kernel touches one page of it.
//! 2. Small bookkeeping (register blocks, per-warp stacks, fault and output records) is not
//!    counted; what is counted grows with sizes the input names.

use std::alloc::Layout;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an allocation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct ReserveError {
    /// What the memory was for (`argument 2`, `local memory of CTA (3,0,0)`, …).
    pub what: String,
    /// The bytes asked for.
    pub bytes: u64,
    /// The bytes the run held before the request.
    pub held: u64,
    /// The run's limit, if it has one.
    pub limit: Option<u64>,
    /// The limit allowed it but the host allocator refused (an address-space or memory cap).
    pub host_refused: bool,
}

impl ReserveError {
    fn message(&self) -> String {
        let limit = match self.limit {
            Some(l) => format!("its limit is {l}"),
            None => "it has no limit of its own".to_string(),
        };
        if self.host_refused {
            format!(
                "cannot hold {}: the host refused {} bytes (the run holds {} bytes and {limit}; the process's address-space cap, such as `ulimit -v`, or the machine's memory is the bound)",
                self.what, self.bytes, self.held
            )
        } else {
            format!(
                "cannot hold {}: {} more bytes of device memory would take the run past its limit of {} bytes (it holds {}; --memory-limit raises the limit)",
                self.what,
                self.bytes,
                self.limit.unwrap_or(u64::MAX),
                self.held
            )
        }
    }
}

/// A run's memory limit and what it holds now (shared by the host threads of a launch).
#[derive(Debug)]
pub struct Budget {
    limit: Option<u64>,
    held: AtomicU64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(None)
    }
}

impl Budget {
    /// A budget of at most `limit` bytes (`None`: only the host's own limits).
    pub fn new(limit: Option<u64>) -> Budget {
        Budget {
            limit,
            held: AtomicU64::new(0),
        }
    }

    /// The limit.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// The bytes held now.
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// Takes `bytes` for `what` from the budget (no host allocation).
    ///
    /// # Errors
    /// The run would hold more than its limit.
    pub fn take(&self, bytes: u64, what: impl FnOnce() -> String) -> Result<(), ReserveError> {
        let limit = self.limit.unwrap_or(u64::MAX);
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |h| {
                h.checked_add(bytes).filter(|&t| t <= limit)
            })
            .map(|_| ())
            .map_err(|held| ReserveError {
                what: what(),
                bytes,
                held,
                limit: self.limit,
                host_refused: false,
            })
    }

    /// Returns `bytes` taken earlier.
    pub fn give_back(&self, bytes: u64) {
        let _ = self
            .held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |h| {
                Some(h.saturating_sub(bytes))
            });
    }

    /// `len` zeroed bytes for `what`, taken from the budget. Nothing is taken for none: the
    /// 32 lanes of every warp reserve their local memory, most often of no bytes, and the
    /// budget is one counter shared by every host thread of the launch.
    ///
    /// # Errors
    /// Past the limit, or refused by the host.
    pub fn zeroed_bytes(
        &self,
        len: u64,
        what: impl Fn() -> String,
    ) -> Result<Vec<u8>, ReserveError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        self.take(len, &what)?;
        zeroed::<u8>(len).ok_or_else(|| self.refused(len, what()))
    }

    /// `len` bytes of zeroed 64-bit words (rounded up to whole words, at least one) for
    /// `what`, taken from the budget.
    ///
    /// # Errors
    /// Past the limit, or refused by the host.
    pub fn zeroed_words(
        &self,
        len: u64,
        what: impl Fn() -> String,
    ) -> Result<Box<[AtomicU64]>, ReserveError> {
        self.take(len, &what)?;
        let words = len.div_ceil(8).max(1);
        let v = zeroed::<u64>(words).ok_or_else(|| self.refused(len, what()))?;
        let b = v.into_boxed_slice();
        // SAFETY: `AtomicU64` has the same size, alignment and bit validity as `u64`, so a
        // boxed slice of one is a valid boxed slice of the other.
        Ok(unsafe { Box::from_raw(Box::into_raw(b) as *mut [AtomicU64]) })
    }

    /// Grows `v` with zeroes to `len` bytes, taking the growth from the budget.
    ///
    /// # Errors
    /// Past the limit, or refused by the host (`v` is left as it was).
    pub fn grow_zeroed(
        &self,
        v: &mut Vec<u8>,
        len: u64,
        what: impl Fn() -> String,
    ) -> Result<(), ReserveError> {
        let have = v.len() as u64;
        if len <= have {
            return Ok(());
        }
        let more = len - have;
        self.take(more, &what)?;
        let Ok(n) = usize::try_from(more) else {
            return Err(self.refused(more, what()));
        };
        if v.try_reserve_exact(n).is_err() {
            return Err(self.refused(more, what()));
        }
        v.resize(v.len() + n, 0);
        Ok(())
    }

    /// Gives back `bytes` just taken, for an allocation the host refused.
    fn refused(&self, bytes: u64, what: String) -> ReserveError {
        self.give_back(bytes);
        ReserveError {
            what,
            bytes,
            held: self.held(),
            limit: self.limit,
            host_refused: true,
        }
    }
}

/// `n` zeroed values of a type for which all-zero bytes are a valid value, or `None` when the
/// host refuses (or `n` values do not fit the address space).
fn zeroed<T: Copy + Default>(n: u64) -> Option<Vec<T>> {
    let n = usize::try_from(n).ok()?;
    if n == 0 || std::mem::size_of::<T>() == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<T>(n).ok()?;
    // SAFETY: `layout` has a non-zero size (n > 0 and T is not zero-sized).
    let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` was allocated by the global allocator with the layout of `n` values of `T`,
    // and all-zero bytes are a valid `T` (the callers use integers only).
    Some(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// The machine's physical memory (`MemTotal` of /proc/meminfo), if known: the default limit
/// of the command line and the Python package.
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_past_the_limit_names_the_size_and_the_limit() {
        let b = Budget::new(Some(1000));
        assert_eq!(
            b.zeroed_bytes(600, || "argument 0".into()).unwrap().len(),
            600
        );
        let e = b.zeroed_bytes(500, || "argument 1".into()).unwrap_err();
        assert_eq!((e.bytes, e.held, e.limit), (500, 600, Some(1000)));
        let m = e.to_string();
        assert!(m.contains("cannot hold argument 1: 500 more bytes"), "{m}");
        assert!(m.contains("limit of 1000 bytes (it holds 600"), "{m}");
        b.give_back(600);
        assert_eq!(b.held(), 0);
        assert!(b.zeroed_words(1000, || "x".into()).is_ok());
    }

    #[test]
    fn what_the_host_cannot_map_is_refused_not_aborted() {
        // 2^62 bytes fit no host's address space: the allocator refuses, and nothing is held.
        let b = Budget::default();
        let e = b
            .zeroed_words(1 << 62, || "a huge buffer".into())
            .unwrap_err();
        assert!(e.host_refused);
        assert_eq!(b.held(), 0);
        assert!(e.to_string().contains("host refused"), "{e}");
        let mut v = vec![1u8; 4];
        assert!(b.grow_zeroed(&mut v, 1 << 62, || "local".into()).is_err());
        assert_eq!(v, [1, 1, 1, 1]);
        b.grow_zeroed(&mut v, 8, || "local".into()).unwrap();
        assert_eq!((v.len(), b.held()), (8, 4));
    }
}
