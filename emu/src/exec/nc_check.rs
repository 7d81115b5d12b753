//! `ptxemu run --check-nc`: `ld.global.nc` reads through a non-coherent path, so the memory
//! model gives no guarantee to a program that writes, during the same launch, bytes that such
//! a load reads. With the check on, every global byte an `ld.global.nc` reads and every global
//! byte a store or atomic writes is remembered, and each pair of instructions (an nc read and
//! a write of one byte, in either order) is reported once.
//!
//! Independent CTAs run on several host threads, so the order in which accesses reach the
//! tracker varies from run to run. The report must not: for each byte it keeps, per
//! instruction, the access that comes first in a fixed order (CTA, then the position in that
//! CTA's schedule, then lane), and each reported pair is the first such pair in that order.
//! Whether the write came before or after the read is only said of accesses of one CTA, whose
//! schedule is deterministic; between CTAs there is no order to speak of.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use smallvec::SmallVec;

use super::fault::FaultSite;
use super::program::info::InstrInfo;

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
    /// The number of warp instructions the CTA had issued: the access's place in the CTA's
    /// schedule.
    pub step: u64,
    /// The thread's index in its CTA.
    pub tid: [u32; 3],
    /// The first byte accessed.
    pub address: u64,
}

impl NcAccess {
    /// The fixed order in which accesses are preferred: CTA (z, y, x as in a linear index),
    /// place in the CTA's schedule, lane.
    fn rank(&self) -> (u32, u32, u32, u64, u32) {
        (self.cta[2], self.cta[1], self.cta[0], self.step, self.lane)
    }

    fn first(&self, other: &NcAccess) -> bool {
        self.rank().cmp(&other.rank()) == Ordering::Less
    }
}

/// How the two accesses of a conflict are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcOrder {
    /// Same CTA; the nc read came first in the interpreter's schedule.
    ReadFirst,
    /// Same CTA; the write came first in the interpreter's schedule.
    WriteFirst,
    /// Different CTAs, which run independently: no order between them.
    OtherCta,
}

/// An nc read and a write of the same byte in one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NcConflict {
    /// The `ld.global.nc`.
    pub read: NcAccess,
    /// The store or atomic.
    pub write: NcAccess,
    /// How the two are ordered.
    pub order: NcOrder,
    /// The byte both touched.
    pub byte: u64,
}

impl NcConflict {
    fn between(read: NcAccess, write: NcAccess, byte: u64) -> NcConflict {
        let order = if read.cta != write.cta {
            NcOrder::OtherCta
        } else if write.step < read.step {
            NcOrder::WriteFirst
        } else {
            NcOrder::ReadFirst
        };
        NcConflict {
            read,
            write,
            order,
            byte,
        }
    }
}

/// Per byte, the first access of each instruction that touched it (few instructions touch
/// one byte, so a short list).
type Firsts = SmallVec<[NcAccess; 1]>;

fn keep_first(list: &mut Firsts, a: NcAccess) {
    match list.iter_mut().find(|k| k.pc == a.pc) {
        Some(k) if a.first(k) => *k = a,
        Some(_) => {}
        None => list.push(a),
    }
}

#[derive(Default)]
struct State {
    reads: HashMap<u64, Firsts>,
    writes: HashMap<u64, Firsts>,
}

/// The launch-wide record of nc reads and writes.
#[derive(Default)]
pub struct NcTracker {
    state: Mutex<State>,
}

impl NcTracker {
    fn record(&self, a: NcAccess, size: u32, nc_read: bool) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let map = if nc_read { &mut s.reads } else { &mut s.writes };
        for b in a.address..a.address + u64::from(size) {
            keep_first(map.entry(b).or_default(), a);
        }
    }

    /// An `ld.global.nc` of `size` bytes.
    pub fn nc_read(&self, a: NcAccess, size: u32) {
        self.record(a, size, true);
    }

    /// A store or atomic of `size` global bytes.
    pub fn write(&self, a: NcAccess, size: u32) {
        self.record(a, size, false);
    }

    /// One conflict per pair of instructions (the first in the fixed order), ordered by byte
    /// and then by the instructions' places in the program.
    pub fn conflicts(self) -> Vec<NcConflict> {
        let s = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut per_pair: HashMap<(u32, u32), NcConflict> = HashMap::new();
        for (&byte, reads) in &s.reads {
            let Some(writes) = s.writes.get(&byte) else {
                continue;
            };
            for r in reads {
                for w in writes {
                    let c = NcConflict::between(*r, *w, byte);
                    let key = |c: &NcConflict| (c.read.rank(), c.write.rank(), c.byte);
                    per_pair
                        .entry((r.pc, w.pc))
                        .and_modify(|k| {
                            if key(&c) < key(k) {
                                *k = c;
                            }
                        })
                        .or_insert(c);
                }
            }
        }
        let mut out: Vec<NcConflict> = per_pair.into_values().collect();
        out.sort_by_key(|c| (c.byte, c.read.pc, c.write.pc));
        out
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
    /// How the two are ordered.
    pub order: NcOrder,
    /// The byte both touched.
    pub byte: u64,
}

fn site(a: &NcAccess, info: &[InstrInfo], file: &str, kernel: &str) -> FaultSite {
    let (line, instr, source) = info
        .get(a.pc as usize)
        .map(|i| (i.span.line, i.text.clone(), i.source.as_deref().cloned()))
        .unwrap_or_default();
    FaultSite {
        kernel: kernel.to_string(),
        cta: a.cta,
        warp: a.warp,
        lane: Some(a.lane),
        tid: Some(a.tid),
        file: file.to_string(),
        line,
        instr,
        source,
        address: Some(a.address),
    }
}

impl NcReport {
    /// Names both sites of a conflict.
    pub fn of(c: &NcConflict, info: &[InstrInfo], file: &str, kernel: &str) -> NcReport {
        NcReport {
            read: site(&c.read, info, file, kernel),
            write: site(&c.write, info, file, kernel),
            order: c.order,
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
    )?;
    if let Some(src) = &s.source {
        write!(f, "\n    source {src}")?;
    }
    Ok(())
}

impl fmt::Display for NcReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.order {
            NcOrder::WriteFirst => "written before being read by an ld.global.nc",
            NcOrder::ReadFirst => "written after being read by an ld.global.nc",
            NcOrder::OtherCta => "written by one CTA and read by an ld.global.nc in another",
        };
        write!(
            f,
            "in kernel `{}`, byte 0x{:x} is {how} of the same launch (the memory model gives such programs no guarantee)",
            self.read.kernel, self.byte,
        )?;
        if self.order == NcOrder::WriteFirst {
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

    fn at(pc: u32, cta: u32, step: u64, address: u64) -> NcAccess {
        NcAccess {
            pc,
            cta: [cta, 0, 0],
            warp: 0,
            lane: 0,
            step,
            tid: [0; 3],
            address,
        }
    }

    fn summary(c: &[NcConflict]) -> Vec<(u32, u32, u64, NcOrder, u32, u32)> {
        c.iter()
            .map(|c| {
                (
                    c.read.pc,
                    c.write.pc,
                    c.byte,
                    c.order,
                    c.read.cta[0],
                    c.write.cta[0],
                )
            })
            .collect()
    }

    #[test]
    fn overlapping_bytes_conflict_once_per_instruction_pair() {
        let t = NcTracker::default();
        t.nc_read(at(1, 0, 10, 100), 4);
        t.write(at(2, 0, 11, 104), 4); // disjoint
        t.write(at(3, 0, 12, 102), 2); // overlaps bytes 102, 103
        t.write(at(3, 0, 13, 100), 4); // same pair again
        t.write(at(5, 0, 14, 200), 8);
        t.nc_read(at(6, 0, 15, 207), 1); // after the write
        assert_eq!(
            summary(&t.conflicts()),
            [
                (1, 3, 102, NcOrder::ReadFirst, 0, 0),
                (6, 5, 207, NcOrder::WriteFirst, 0, 0)
            ]
        );
    }

    #[test]
    fn the_report_does_not_depend_on_the_order_ctas_ran_in() {
        // Two CTAs race the same way; a third CTA only writes. Every arrival order must give
        // the same report, naming CTA 0's pair.
        let accesses = [
            (true, at(1, 0, 3, 64)),
            (false, at(2, 0, 7, 64)),
            (true, at(1, 1, 3, 64)),
            (false, at(2, 1, 7, 64)),
            (false, at(4, 2, 1, 66)),
        ];
        let mut reports = Vec::new();
        let mut order: Vec<usize> = (0..accesses.len()).collect();
        // Every permutation (Heap's algorithm, iteratively).
        let mut c = vec![0; order.len()];
        let mut i = 0;
        let feed = |order: &[usize]| {
            let t = NcTracker::default();
            for &k in order {
                let (read, a) = accesses[k];
                if read {
                    t.nc_read(a, 4);
                } else {
                    t.write(a, 2);
                }
            }
            summary(&t.conflicts())
        };
        reports.push(feed(&order));
        while i < order.len() {
            if c[i] < i {
                order.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
                reports.push(feed(&order));
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
        assert_eq!(reports.len(), 120);
        let expected = vec![
            (1, 2, 64, NcOrder::ReadFirst, 0, 0),
            (1, 4, 66, NcOrder::OtherCta, 0, 2),
        ];
        assert!(reports.iter().all(|r| *r == expected), "{reports:?}");
    }
}
