//! `ptxemu run --check-nc`: `ld.global.nc` reads through a non-coherent path, so the memory
//! model gives no guarantee to a program that writes, during the same launch, bytes that such
//! a load reads. With the check on, every global byte an `ld.global.nc` reads and every global
//! byte a store or atomic writes is remembered, and each pair of accesses to one byte (an nc
//! read and a write, in either order) is reported once per pair of instructions.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Mutex;

use super::fault::FaultSite;
use super::program::Program;

/// One access: which instruction, which thread, which address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NcAccess {
    /// The instruction's index in the decoded program.
    pub pc: u32,
    /// The CTA.
    pub cta: [u32; 3],
    /// The warp in its CTA.
    pub warp: u32,
    /// The lane.
    pub lane: u32,
    /// The thread's index in its CTA.
    pub tid: [u32; 3],
    /// The first byte accessed.
    pub address: u64,
}

/// An nc read and a write of the same byte in one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NcConflict {
    /// The `ld.global.nc`.
    pub read: NcAccess,
    /// The store or atomic.
    pub write: NcAccess,
    /// Whether the write came first (in the interpreter's order).
    pub write_first: bool,
    /// The byte both touched.
    pub byte: u64,
}

#[derive(Default)]
struct State {
    reads: HashMap<u64, NcAccess>,
    writes: HashMap<u64, NcAccess>,
    conflicts: Vec<NcConflict>,
    pairs: HashSet<(u32, u32)>,
}

/// The launch-wide record of nc reads and writes.
#[derive(Default)]
pub struct NcTracker {
    state: Mutex<State>,
}

impl NcTracker {
    fn note(s: &mut State, read: NcAccess, write: NcAccess, write_first: bool, byte: u64) {
        if s.pairs.insert((read.pc, write.pc)) {
            s.conflicts.push(NcConflict {
                read,
                write,
                write_first,
                byte,
            });
        }
    }

    /// An `ld.global.nc` of `size` bytes.
    pub fn nc_read(&self, a: NcAccess, size: u32) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        for b in a.address..a.address + u64::from(size) {
            if let Some(w) = s.writes.get(&b).copied() {
                Self::note(&mut s, a, w, true, b);
            }
            s.reads.entry(b).or_insert(a);
        }
    }

    /// A store or atomic of `size` global bytes.
    pub fn write(&self, a: NcAccess, size: u32) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        for b in a.address..a.address + u64::from(size) {
            if let Some(r) = s.reads.get(&b).copied() {
                Self::note(&mut s, r, a, false, b);
            }
            s.writes.entry(b).or_insert(a);
        }
    }

    /// The conflicts found, in the order found.
    pub fn conflicts(self) -> Vec<NcConflict> {
        self.state
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .conflicts
    }
}

/// A conflict with both sites named (kernel, CTA, warp, lane, thread, line, instruction,
/// address), as `ptxemu run --check-nc` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NcReport {
    /// The `ld.global.nc`.
    pub read: FaultSite,
    /// The store or atomic.
    pub write: FaultSite,
    /// Whether the write came first.
    pub write_first: bool,
    /// The byte both touched.
    pub byte: u64,
}

fn site(a: &NcAccess, prog: &Program, kernel: &str) -> FaultSite {
    let (line, instr) = prog
        .info
        .get(a.pc as usize)
        .map(|i| (i.span.line, i.text.clone()))
        .unwrap_or_default();
    FaultSite {
        kernel: kernel.to_string(),
        cta: a.cta,
        warp: a.warp,
        lane: Some(a.lane),
        tid: Some(a.tid),
        file: prog.file_name.clone(),
        line,
        instr,
        address: Some(a.address),
    }
}

impl NcReport {
    /// Names both sites of a conflict.
    pub fn of(c: &NcConflict, prog: &Program, kernel: &str) -> NcReport {
        NcReport {
            read: site(&c.read, prog, kernel),
            write: site(&c.write, prog, kernel),
            write_first: c.write_first,
            byte: c.byte,
        }
    }
}

fn describe(f: &mut fmt::Formatter<'_>, what: &str, s: &FaultSite) -> fmt::Result {
    let t = s.tid.unwrap_or_default();
    write!(
        f,
        "\n  {what}: CTA ({},{},{}), warp {}, lane {} (thread ({},{},{})) at {}:{}: {} (address 0x{:x})",
        s.cta[0],
        s.cta[1],
        s.cta[2],
        s.warp,
        s.lane.unwrap_or(0),
        t[0],
        t[1],
        t[2],
        s.file,
        s.line,
        s.instr,
        s.address.unwrap_or(0)
    )
}

impl fmt::Display for NcReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "in kernel `{}`, byte 0x{:x} is {} an ld.global.nc of the same launch (the memory model gives such programs no guarantee)",
            self.read.kernel,
            self.byte,
            if self.write_first {
                "written before being read by"
            } else {
                "written after being read by"
            }
        )?;
        if self.write_first {
            describe(f, "write", &self.write)?;
            describe(f, "nc read", &self.read)
        } else {
            describe(f, "nc read", &self.read)?;
            describe(f, "write", &self.write)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(pc: u32, address: u64) -> NcAccess {
        NcAccess {
            pc,
            cta: [0; 3],
            warp: 0,
            lane: 0,
            tid: [0; 3],
            address,
        }
    }

    #[test]
    fn overlapping_bytes_conflict_once_per_instruction_pair() {
        let t = NcTracker::default();
        t.nc_read(at(1, 100), 4);
        t.write(at(2, 104), 4); // disjoint
        t.write(at(3, 102), 2); // overlaps bytes 102, 103
        t.write(at(3, 100), 4); // same pair again
        t.write(at(5, 200), 8);
        t.nc_read(at(6, 207), 1); // after the write
        let c = t.conflicts();
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].read.pc, c[0].write.pc, c[0].byte, c[0].write_first),
            (1, 3, 102, false)
        );
        assert_eq!(
            (c[1].read.pc, c[1].write.pc, c[1].byte, c[1].write_first),
            (6, 5, 207, true)
        );
    }
}
