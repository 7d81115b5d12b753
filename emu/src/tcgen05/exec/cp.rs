//! `tcgen05.cp` in the interpreter (PTX ISA "tcgen05.cp"): a copy of a shared-memory matrix,
//! located by a 64-bit shared-memory descriptor, into Tensor Memory, optionally decompressing
//! 4- and 6-bit elements into bytes. Placement and decompression are
//! [`crate::semantics::tcgen05_cp`]'s.
//!
//! The instruction is issued by a single thread and is asynchronous. ptxemu copies when it is
//! issued (so a later `tcgen05.mma` of the same thread, ordered after it by issue order — the
//! PTX ISA's pipelined pair `tcgen05.cp -> tcgen05.mma` — sees the data) and, in checked mode,
//! records the cells written:
//! * per reading thread, as for MMA results ([`crate::tcgen05::mma_track`],
//!   [`crate::tcgen05::observe`]; rule `tcgen05-cp-visibility`): a `tcgen05.ld` of them, or a
//!   `tcgen05.mma` of another thread reading them as A or as scale factors, needs a
//!   `tcgen05.commit` of the copying thread whose mbarrier phase completed and that the reader
//!   observed (its own wait, or a `bar.sync` after a thread that waited), and with
//!   `--tmem-check strict` its `tcgen05.fence::after_thread_sync` since;
//! * CTA-wide as pending ([`crate::tcgen05::async_writes::AsyncWrites`]) for `tcgen05.st`:
//!   until some thread has observed the commit's phase, a store to them is reported.
//!
//! Checked mode also reports destination cells outside Tensor Memory or not allocated, and a
//! source byte written through the generic proxy with no `fence.proxy.async` since (the copy
//! reads through the async proxy, as `wgmma` operands do). A source outside the CTA's shared
//! memory is always a fault.
//!
//! Deliberate deviations and choices:
//! 1. Every executing lane issues its own copy (as `tcgen05.shift` does); real code guards it
//!    with `elect.sync` or a lane test.
//! 2. `.cta_group::2` copies into both CTAs of the pair (`tcgen05::exec::pair::cp`).
//! 3. A shared-memory descriptor whose fixed fields are wrong, or that uses the absolute-LBO
//!    mode, is a fault naming the field.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Extra, Flow};
use crate::ir::{CtaGroup, Tcgen05, Tcgen05Cp};
use crate::semantics::tcgen05_cp::{decompress, dest_lanes};
use crate::tcgen05::decoded::TmemInstr;
use crate::tcgen05::memory::TensorMemory;
use crate::tcgen05::trace::TmemAction;

type R = Result<Flow, LaneFault>;

fn undefined(detail: String) -> LaneFault {
    LaneFault::new(FaultKind::Undefined { detail })
}

fn decoded(i: &DInstr) -> Result<(&TmemInstr, Tcgen05Cp), LaneFault> {
    match &i.extra {
        Extra::Tmem(m) => match m.op {
            Tcgen05::Cp(cp) => Ok((m, cp)),
            _ => Err(undefined(
                "tcgen05.cp decoded as another instruction".into(),
            )),
        },
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a tcgen05 instruction without its decoded operands".into(),
        })),
    }
}

/// The CTA's Tensor Memory, made on first use.
fn tmem<'c>(c: &'c mut Ctx<'_>) -> &'c mut TensorMemory {
    let (warps, checked) = (c.launch.nwarpid, c.tmem_opts.checked);
    c.tmem
        .get_or_insert_with(|| Box::new(TensorMemory::new(warps, checked)))
}

/// The shared-memory byte address of 32-bit word `word` of source row `row`, by the
/// descriptor `desc` (a K-major matrix of 32-bit elements: rows are its M/N dimension).
fn word_addr(desc: u64, row: u32, word: u32) -> Result<u64, String> {
    use crate::semantics::tcgen05_desc::{decode_smem, element_addr};
    use crate::semantics::wgmma_desc::Major;
    let d = decode_smem(desc).map_err(|e| e.to_string())?;
    element_addr(&d, Major::K, 32, row, word)
        .map(|(addr, _)| addr)
        .map_err(|_| {
            "the shared-memory descriptor uses the absolute-LBO mode (bit 52), which ptxemu does not model".to_string()
        })
}

/// Reads source row `row`'s 16-byte chunk `chunk` (words `4·chunk .. 4·chunk + 4`).
fn read_chunk(
    c: &Ctx<'_>,
    lane: usize,
    desc: u64,
    row: u32,
    chunk: u32,
) -> Result<[u8; 16], LaneFault> {
    let mut out = [0u8; 16];
    for j in 0..4 {
        let addr = word_addr(desc, row, 4 * chunk + j).map_err(|e| {
            undefined(format!("tcgen05.cp: {e} (s-desc 0x{desc:016x})")).at_lane(lane as u32)
        })?;
        if let Some(f) = c.before_async_read(lane, addr, 4, "tcgen05.cp") {
            return Err(f);
        }
        let v = crate::exec::address::load_shared(
            c,
            crate::exec::program::AddrSpace::Shared,
            addr,
            4,
            4,
            lane,
        )?;
        out[4 * j as usize..4 * j as usize + 4].copy_from_slice(&(v as u32).to_le_bytes());
    }
    Ok(out)
}

/// One lane's copy: reads the whole source, then writes every destination cell; returns the
/// cells written.
fn copy_one(
    c: &mut Ctx<'_>,
    lane: usize,
    cp: Tcgen05Cp,
    taddr: u32,
    desc: u64,
) -> Result<Vec<u32>, LaneFault> {
    let (l0, c0) = (taddr >> 16, taddr & 0xFFFF);
    let chunks = cp.shape.words() / 4;
    let mut rows = Vec::with_capacity(cp.shape.rows() as usize);
    for r in 0..cp.shape.rows() {
        let mut words = Vec::with_capacity(cp.shape.words() as usize);
        for k in 0..chunks {
            let mut bytes = read_chunk(c, lane, desc, r, k)?;
            if let Some(d) = cp.decompress {
                bytes = decompress(d, bytes);
            }
            for w in bytes.chunks_exact(4) {
                words.push(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            }
        }
        rows.push(words);
    }
    let t_mem = tmem(c);
    let mut cells = Vec::with_capacity(rows.len() * 8);
    for (r, words) in rows.iter().enumerate() {
        for rel in dest_lanes(cp.shape, cp.multicast, r as u32) {
            for (w, &v) in words.iter().enumerate() {
                let (dl, dc) = (l0 + rel, c0 + w as u32);
                let at = t_mem.check_cell(dl, dc).map_err(|e| (e, dl, dc));
                let at = match at {
                    Ok(at) => at,
                    Err((e, dl, dc)) => {
                        let why = match e {
                            crate::tcgen05::memory::TmemError::NotAllocated { .. } => {
                                "is not allocated"
                            }
                            _ => "is outside Tensor Memory (128 lanes, 512 columns)",
                        };
                        return Err(LaneFault {
                            kind: FaultKind::Undefined {
                                detail: format!(
                                    "tcgen05.cp.{}: destination lane {dl}, column {dc} (source row {r}, word {w}) {why}",
                                    cp.shape.name()
                                ),
                            },
                            lane: Some(lane as u32),
                            address: Some(u64::from(taddr)),
                        });
                    }
                };
                t_mem.write(at, v);
                cells.push(at);
            }
        }
    }
    Ok(cells)
}

/// `tcgen05.cp.cta_group::N.shape{.multicast}{.b8x16.src_fmt} [taddr], s-desc`, by each
/// executing lane (deviation 1).
pub fn cp(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let (m, cp) = decoded(i)?;
    let addrs = c.fetch(&m.taddr);
    let descs = c.fetch(&m.srcs[0]);
    let offset = m.taddr_offset as u32;
    let mut mask = c.mask;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let taddr = (addrs[lane] as u32).wrapping_add(offset);
        if cp.group == CtaGroup::Two {
            crate::tcgen05::exec::pair::cp(c, lane, cp, taddr, descs[lane])?;
        } else {
            copy_tracked(c, lane, cp, taddr, descs[lane])?;
        }
    }
    Ok(Flow::Next)
}

/// One lane's copy into the context's Tensor Memory, its cells recorded as pending (checked
/// mode) until the issuing thread's `tcgen05.commit` completes.
pub(crate) fn copy_tracked(
    c: &mut Ctx<'_>,
    lane: usize,
    cp: Tcgen05Cp,
    taddr: u32,
    desc: u64,
) -> Result<(), LaneFault> {
    let cells = copy_one(c, lane, cp, taddr, desc)?;
    if c.tmem_opts.trace {
        trace_copy(c, &cp, lane, taddr, desc, &cells);
    }
    let thread = linear_tid(c, lane);
    let pc = c.pc;
    let t_mem = tmem(c);
    if t_mem.checked() {
        // Loads and MMAs of other threads check visibility per thread (`mma_track`); stores
        // the CTA-wide pending record.
        t_mem
            .mma
            .issue("tcgen05.cp", thread, pc, cells.iter().copied());
        t_mem.async_writes.issue("tcgen05.cp", thread, pc, cells);
    }
    Ok(())
}

/// `--trace-tmem`: the cells (indices `lane * 512 + column`) one lane's copy wrote.
fn trace_copy(c: &mut Ctx<'_>, cp: &Tcgen05Cp, lane: usize, taddr: u32, desc: u64, cells: &[u32]) {
    let (mut lanes, mut columns) = ((u32::MAX, 0), (u32::MAX, 0));
    for &at in cells {
        let (l, col) = (at / 512, at % 512);
        lanes = (lanes.0.min(l), lanes.1.max(l + 1));
        columns = (columns.0.min(col), columns.1.max(col + 1));
    }
    if cells.is_empty() {
        (lanes, columns) = ((0, 0), (0, 0));
    }
    let action = TmemAction::Copy {
        thread: lane as u32,
        shape: cp.shape.name(),
        src: crate::semantics::tcgen05_desc::decode_smem(desc)
            .map_or((desc & 0x3FFF) << 4, |d| d.start),
        lanes,
        columns,
        cells: cells.len() as u32,
    };
    crate::tcgen05::exec::record(c, Some(taddr), action, Vec::new());
}

/// The linear thread index of `lane` in its CTA.
pub fn linear_tid(c: &Ctx<'_>, lane: usize) -> u32 {
    let [nx, ny, _] = c.launch.ntid;
    let t = &c.ids.tid;
    t[0][lane] + nx * (t[1][lane] + ny * t[2][lane])
}
