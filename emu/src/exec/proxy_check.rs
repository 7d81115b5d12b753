//! The proxy checker (`--proxy-check on`, the default): accesses to the same bytes through
//! different proxies that the PTX memory model leaves unordered (ptx-v7.5, "proxy-preserved
//! base causality": a generic-proxy access and an async- or tensormap-proxy access of one
//! location are ordered only through a proxy fence cause-ordered between them).
//!
//! Shadow state, per CTA and only for bytes such accesses touch:
//! - shared bytes written through the generic proxy since the last `fence.proxy.async`
//!   (an async-proxy read of them - the source of a TMA store, a `wgmma` operand - is reported);
//! - shared ranges an async-proxy copy wrote whose completion no thread has observed yet
//!   (an mbarrier wait that saw the phase complete; a generic access of them is reported);
//! - shared ranges an async-proxy copy still reads (until `cp.async.bulk.wait_group(.read)`;
//!   a generic write of them is reported);
//! - global tensor maps written through the generic proxy (`tensormap.replace`,
//!   `tensormap.cp_fenceproxy`) and not yet acquired with `fence.proxy.tensormap::generic`
//!   (a copy that uses one is reported).
//!
//! Deliberate simplifications: a proxy fence of any thread clears the generic marks of the
//! whole CTA (ptxemu does not check that the fencing thread is ordered after the writer), an
//! async-proxy copy into shared memory clears the generic marks of the bytes it writes (a
//! generic write followed by an async-proxy write of the same bytes is not reported), an
//! mbarrier wait of any thread counts as the CTA's observation, and plain `st.global` stores
//! of tensor-map bytes are not tracked.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::generic_marks::GenericMarks;
use crate::exec::program::info::InstrInfo;

/// An async-proxy write to shared memory whose completion has not been observed.
#[derive(Clone, Debug)]
struct AsyncWrite {
    lo: u64,
    hi: u64,
    pc: u32,
    mbar: u64,
    phase: u32,
}

/// An async-proxy read of shared memory still in progress (until a bulk wait_group).
#[derive(Clone, Debug)]
struct AsyncRead {
    lo: u64,
    hi: u64,
    pc: u32,
    thread: u32,
    group: Option<u64>,
}

/// The proxy shadow state and bulk async-groups of one CTA.
#[derive(Clone, Debug, Default)]
pub struct ProxyState {
    /// `--proxy-check on`.
    pub check: bool,
    /// Check on and the program has async-proxy instructions: shared accesses are watched.
    pub watch: bool,
    /// Shared bytes written through the generic proxy since the last proxy fence.
    generic: RefCell<GenericMarks>,
    writes: Vec<AsyncWrite>,
    reads: Vec<AsyncRead>,
    tmaps: HashMap<u64, u32>,
    groups: HashMap<u32, Vec<u64>>,
    next_group: u64,
}

fn line(info: &[InstrInfo], pc: u32) -> u32 {
    info.get(pc as usize).map_or(0, |i| i.span.line)
}

fn proxy_fault(lane: usize, addr: u64, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

impl ProxyState {
    /// Records an async-proxy write of shared `[lo, hi)` completing on the mbarrier at
    /// `mbar` in `phase`.
    ///
    /// The copy's bytes replace what a generic write left there, so an async-proxy read
    /// after the copy's completion reads the copy's value: their generic marks are dropped.
    pub fn async_write(&mut self, lo: u64, hi: u64, pc: u32, mbar: u64, phase: u32) {
        if self.check {
            self.generic.get_mut().unmark(lo, hi);
            self.writes.retain(|w| w.hi <= lo || hi <= w.lo);
            self.writes.push(AsyncWrite {
                lo,
                hi,
                pc,
                mbar,
                phase,
            });
        }
    }

    /// Records an async-proxy read of shared `[lo, hi)` by `thread` joining its bulk group.
    pub fn async_read_pending(&mut self, lo: u64, hi: u64, pc: u32, thread: u32) {
        if self.check {
            self.reads.push(AsyncRead {
                lo,
                hi,
                pc,
                thread,
                group: None,
            });
        }
    }

    /// An mbarrier wait saw the mbarrier at `mbar` in `phase`: earlier phases completed.
    pub fn observed(&mut self, mbar: u64, phase: u32) {
        if !self.writes.is_empty() {
            self.writes
                .retain(|w| w.mbar != mbar || w.phase.wrapping_sub(phase) as i32 >= 0);
        }
    }

    /// `cp.async.bulk.commit_group` by `thread`.
    pub fn commit(&mut self, thread: u32) {
        let g = self.next_group;
        self.next_group += 1;
        for r in self.reads.iter_mut() {
            if r.thread == thread && r.group.is_none() {
                r.group = Some(g);
            }
        }
        self.groups.entry(thread).or_default().push(g);
    }

    /// `cp.async.bulk.wait_group N` by `thread`: all but its N newest groups complete.
    pub fn wait(&mut self, thread: u32, n: usize) {
        let Some(q) = self.groups.get_mut(&thread) else {
            return;
        };
        let old: Vec<u64> = if q.len() > n {
            q.drain(..q.len() - n).collect()
        } else {
            Vec::new()
        };
        self.reads
            .retain(|r| r.thread != thread || !r.group.is_some_and(|g| old.contains(&g)));
    }

    /// Whether an async-proxy read of shared memory cannot fault on a generic write: the
    /// check is off, or no generic write is unfenced.
    #[inline]
    pub fn generic_writes_fenced(&self) -> bool {
        !self.check || self.generic.borrow().is_empty()
    }

    /// Whether an access of shared `[lo, hi)` overlaps an async-proxy write whose completion
    /// no thread has observed (never, with the check off).
    #[inline]
    pub fn unobserved_write_overlaps(&self, lo: u64, hi: u64) -> bool {
        self.unobserved_write_in(lo, hi).is_some()
    }

    /// The first async-proxy write overlapping shared `[lo, hi)` whose completion no thread
    /// has observed.
    #[inline]
    fn unobserved_write_in(&self, lo: u64, hi: u64) -> Option<&AsyncWrite> {
        self.writes.iter().find(|w| lo < w.hi && w.lo < hi)
    }

    /// A `fence.proxy.async` covering shared memory.
    pub fn fence_async(&mut self) {
        self.generic.get_mut().clear();
    }

    /// A tensor map at global `addr` written through the generic proxy at `pc`.
    pub fn tmap_written(&mut self, addr: u64, pc: u32) {
        if self.check {
            self.tmaps.insert(addr, pc);
        }
    }

    /// `fence.proxy.tensormap::generic.acquire` of the map at `addr` (`None`: every map).
    pub fn tmap_acquired(&mut self, addr: Option<u64>) {
        match addr {
            Some(a) => {
                self.tmaps.retain(|k, _| *k + 128 <= a || a + 128 <= *k);
            }
            None => self.tmaps.clear(),
        }
    }
}

impl ProxyState {
    /// The fault for a generic-proxy access of shared `[off, off + size)` that an async-proxy
    /// operation still owns; records generic writes for later async reads.
    #[allow(clippy::too_many_arguments)]
    pub fn shared_access(
        &self,
        info: &[InstrInfo],
        pc: u32,
        lane: usize,
        addr: u64,
        off: u64,
        size: u64,
        write: bool,
    ) -> Option<LaneFault> {
        let p = self;
        if !p.check {
            return None;
        }
        let (lo, hi) = (off, off + size);
        let what = if write { "write" } else { "read" };
        if let Some(w) = p.unobserved_write_in(lo, hi) {
            return Some(proxy_fault(
                lane,
                addr,
                format!(
                    "proxy rule: this generic-proxy {what} of shared offset {off} and the async-proxy write of the bulk copy at line {} are not ordered: no thread has observed the copy's completion (an mbarrier wait that saw phase {} of the mbarrier at shared offset {} complete) since",
                    line(info, w.pc),
                    w.phase,
                    w.mbar
                ),
            ));
        }
        if write {
            if let Some(r) = p.reads.iter().find(|r| lo < r.hi && r.lo < hi) {
                return Some(proxy_fault(
                    lane,
                    addr,
                    format!(
                        "proxy rule: this generic-proxy write of shared offset {off} races with the async-proxy read of the bulk copy at line {} (thread {}), which may still read it: no cp.async.bulk.wait_group.read covering that copy since",
                        line(info, r.pc),
                        r.thread
                    ),
                ));
            }
            p.generic.borrow_mut().mark(lo, hi, pc);
        }
        None
    }

    /// The fault for an async-proxy read of shared `[off, off + size)` (by `what` at the current
    /// pc) of bytes written through the generic proxy with no `fence.proxy.async` since. The
    /// `wgmma` operand reads call this too.
    pub fn async_read(
        &self,
        info: &[InstrInfo],
        lane: usize,
        off: u64,
        size: u64,
        what: &str,
    ) -> Option<LaneFault> {
        let p = self;
        if !p.check {
            return None;
        }
        let (b, pc) = p.generic.borrow().first_marked(off, off + size)?;
        Some(proxy_fault(
            lane,
            b,
            format!(
                "proxy rule: the async-proxy read of shared offset {b} by {what} and the generic-proxy write at line {} are not ordered: a proxy fence (fence.proxy.async) must be cause-ordered between a generic write and an async-proxy read of the same location (ptx-v7.5 proxy-preserved causality)",
                line(info, pc)
            ),
        ))
    }

    /// The fault for a tensor copy using the global tensor map at `addr` that was written
    /// through the generic proxy and not acquired with `fence.proxy.tensormap::generic`.
    pub fn tmap_use(&self, info: &[InstrInfo], lane: usize, addr: u64) -> Option<LaneFault> {
        let p = self;
        if !p.check {
            return None;
        }
        let (k, pc) = p
            .tmaps
            .iter()
            .find(|(k, _)| **k < addr + 128 && addr < **k + 128)?;
        Some(proxy_fault(
            lane,
            addr,
            format!(
                "proxy rule: the tensormap-proxy read of the tensor map at 0x{k:x} by this copy and its generic-proxy write at line {} are not ordered: a fence.proxy.tensormap::generic (release by the writer, acquire before the use) must be cause-ordered between them",
                line(info, *pc)
            ),
        ))
    }
}
