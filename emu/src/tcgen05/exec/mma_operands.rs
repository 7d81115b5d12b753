//! The operands of `tcgen05.mma`: A and B elements from shared memory through their matrix
//! descriptors, A from Tensor Memory, and the conversion of each element type to the one
//! `mma.sync`'s numerics multiply (see [`crate::tcgen05::exec::mma`] for the layouts and choices).

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::operand_columns::{self, OperandPart};
use crate::exec::program::AddrSpace;
use crate::ir::MmaElem;
use crate::semantics::convert::{f64_to_narrow, Narrow};
use crate::semantics::narrow_float::{e2m1_to_f64, e2m3_to_f64, e3m2_to_f64};
use crate::semantics::tcgen05_desc::{decode_smem, element_addr, Major, SmemDesc};
use crate::semantics::tcgen05_idesc::{ElemType, InstrDesc};
use crate::semantics::tile::Tiles;
use crate::tcgen05::exec::mma::{at_lane, undefined, unsupported, Issue};
use rustc_apfloat::Round;

/// The Tensor Memory lane of row `r` of D (and of A from Tensor Memory).
pub(crate) fn row_lane(id: &InstrDesc, base: u32, r: u32) -> u32 {
    if id.m == 64 {
        base + 32 * (r / 16) + r % 16
    } else {
        base + r
    }
}

/// The element type `mma.sync`'s numerics use for `t`, and the bits of an element as read.
pub(crate) fn mma_elem(t: ElemType) -> MmaElem {
    match t {
        ElemType::F16 => MmaElem::F16,
        ElemType::Bf16 => MmaElem::Bf16,
        ElemType::Tf32 => MmaElem::Tf32,
        ElemType::E5m2 => MmaElem::E5m2,
        ElemType::U8 => MmaElem::U8,
        ElemType::S8 => MmaElem::S8,
        ElemType::E4m3 | ElemType::E2m3 | ElemType::E3m2 | ElemType::E2m1 => MmaElem::E4m3,
    }
}

/// Raw element bits of type `t` to the raw bits of [`mma_elem`]`(t)`, negated if asked.
fn to_mma_bits(t: ElemType, raw: u64, negate: bool) -> u64 {
    let exact = |v: f64| f64_to_narrow(v, Narrow::E4M3, Round::NearestTiesToEven, false);
    let v = match t {
        ElemType::E2m3 => exact(e2m3_to_f64(raw as u8)),
        ElemType::E3m2 => exact(e3m2_to_f64(raw as u8)),
        // The container's bits 5-2 (as tcgen05.cp's .b4x16_p64 decompression writes them).
        ElemType::E2m1 => exact(e2m1_to_f64((raw >> 2) as u8)),
        _ => raw,
    };
    if !negate {
        return v;
    }
    v ^ match mma_elem(t) {
        MmaElem::F16 | MmaElem::Bf16 => 1 << 15,
        MmaElem::Tf32 => 1 << 31,
        MmaElem::E4m3 | MmaElem::E5m2 => 1 << 7,
        _ => 0,
    }
}

fn storage_mask(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

/// Element `(mn, k)` of a shared-memory operand (`which` is "A" or "B").
pub(crate) fn smem_elem(
    c: &Ctx<'_>,
    s: &Issue,
    d: &SmemDesc,
    which: &str,
    (major, bits): (Major, u32),
    (mn, k): (u32, u32),
) -> Result<u64, LaneFault> {
    let (addr, bit) = element_addr(d, major, bits, mn, k).map_err(|_| {
        unsupported(
            s.lane,
            format!("the {which} descriptor's LBO mode 1 (absolute leading-dimension address)"),
        )
    })?;
    let bytes = (bits / 8).max(1);
    if let Some(r) = &s.runs {
        let off = crate::exec::address::shared_wrap(addr);
        crate::exec::hooks::asyncs::add_run(&mut r.borrow_mut(), off, u64::from(bytes));
    }
    if let Some(f) = c.before_async_read(s.lane, addr, u64::from(bytes), "a tcgen05.mma operand") {
        return Err(f);
    }
    let v = crate::exec::address::load_shared(c, AddrSpace::Shared, addr, bytes, bytes, s.lane).map_err(
        |_| {
            at_lane(
                FaultKind::Undefined {
                    detail: format!(
                        "rule tcgen05-mma-descriptor: the {which} shared-memory descriptor (start 0x{:x}, LBO {}, SBO {}, swizzle {}) addresses shared offset 0x{addr:x} for element ({mn}, {k}), outside the CTA's shared memory",
                        d.start, d.lbo, d.sbo, d.swizzle.name()
                    ),
                },
                s.lane,
                Some(addr),
            )
        },
    )?;
    Ok(if bits < 8 {
        (v >> bit) & storage_mask(bits)
    } else {
        v
    })
}

/// Reads a shared-memory operand: elements `(mn, k)`, `mn < mn_n`, `k < k_n`, into
/// `set(mn, k, bits)`, a 16-byte column at a time where it can
/// ([`crate::exec::operand_columns`]), else element by element through [`smem_elem`], which
/// reports any fault. The race detector's runs are added element by element in either case,
/// in [`smem_elem`]'s order.
fn smem_operand(
    c: &Ctx<'_>,
    s: &Issue,
    (d, which): (&SmemDesc, &str),
    (major, bits): (Major, u32),
    (mn_n, k_n): (u32, u32),
    set: &mut impl FnMut(u32, u32, u64),
) -> Result<(), LaneFault> {
    let part = OperandPart {
        major,
        bits,
        mn0: 0,
        mn_n,
        k_n,
    };
    let addr_of = |mn, k| element_addr(d, major, bits, mn, k).ok().map(|(a, _)| a);
    let by_columns = operand_columns::read(
        c,
        s.lane,
        part,
        addr_of,
        |addr, bytes| {
            c.before_async_read(s.lane, addr, bytes, "a tcgen05.mma operand")
                .is_none()
        },
        set,
    );
    if !by_columns {
        for mn in 0..mn_n {
            for k in 0..k_n {
                set(mn, k, smem_elem(c, s, d, which, (major, bits), (mn, k))?);
            }
        }
        return Ok(());
    }
    if let Some(r) = &s.runs {
        operand_columns::add_element_runs(part, addr_of, &mut r.borrow_mut());
    }
    Ok(())
}

/// Element `(row, k)` of A in Tensor Memory.
pub(crate) fn tmem_a_elem(
    c: &mut Ctx<'_>,
    s: &Issue,
    id: &InstrDesc,
    taddr: u32,
    bits: u32,
    (r, k): (u32, u32),
) -> Result<u64, LaneFault> {
    let lane = row_lane(id, taddr >> 16, r);
    let col = (taddr & 0xFFFF) + k * bits / 32;
    let at = crate::tcgen05::exec::tmem(c)
        .check_cell(lane, col)
        .map_err(|e| {
            undefined(
                s.lane,
                format!(
                "tcgen05.mma reads A from Tensor Memory cell (lane {lane}, column {col}): {e:?}"
            ),
            )
        })?;
    crate::tcgen05::exec::commit::check_mma_read(c, s.lane, &[at], "A")?;
    Ok(cell_elem(crate::tcgen05::exec::tmem(c).read(at), bits, k))
}

/// Element `k` of a row of `bits`-bit elements of A packed into Tensor Memory cells, from the
/// cell that holds it (the `k · bits / 32`-th of the row).
fn cell_elem(cell: u32, bits: u32, k: u32) -> u64 {
    (u64::from(cell) >> (k * bits % 32)) & storage_mask(bits)
}

fn decode_desc(s: &Issue, v: u64, which: &str) -> Result<SmemDesc, LaneFault> {
    decode_smem(v).map_err(|e| {
        undefined(
            s.lane,
            format!("rule tcgen05-mma-descriptor: the {which} descriptor 0x{v:016x}: {e}"),
        )
    })
}

/// Fills A (M×K, `id.m` rows) of `t`.
pub(crate) fn operand_a(
    c: &mut Ctx<'_>,
    s: &Issue,
    id: &InstrDesc,
    t: &mut Tiles,
) -> Result<(), LaneFault> {
    let k = id.kind.k();
    let abits = id.a.storage_bits(id.kind);
    let decode = |v: u64, which: &str| decode_desc(s, v, which);
    match s.a_tmem {
        Some(taddr) => {
            // A row of A is one lane's consecutive cells: checked and read as a run. A row
            // with a cell outside the allocation goes element by element, which names it.
            let columns = crate::tcgen05::exec::tmem(c).columns();
            let (col0, len) = (taddr & 0xFFFF, (k * abits).div_ceil(32));
            for r in 0..id.m {
                let lane = row_lane(id, taddr >> 16, r);
                if !columns.accepts_run(lane, col0, len) {
                    for kk in 0..k {
                        let v = tmem_a_elem(c, s, id, taddr, abits, (r, kk))?;
                        t.a.set(r, kk, to_mma_bits(id.a, v, id.negate_a));
                    }
                    continue;
                }
                let first = lane * crate::tcgen05::memory::COLUMNS + col0;
                let run: Vec<u32> = (first..first + len).collect();
                crate::tcgen05::exec::commit::check_mma_read(c, s.lane, &run, "A")?;
                let cells = crate::tcgen05::exec::tmem(c).run(first, len);
                for kk in 0..k {
                    let v = cell_elem(cells[(kk * abits / 32) as usize], abits, kk);
                    t.a.set(r, kk, to_mma_bits(id.a, v, id.negate_a));
                }
            }
        }
        None => {
            let d = decode(s.a_desc, "A")?;
            let major = if id.transpose_a { Major::Mn } else { Major::K };
            smem_operand(
                c,
                s,
                (&d, "A"),
                (major, abits),
                (id.m, k),
                &mut |r, kk, v| {
                    t.a.set(r, kk, to_mma_bits(id.a, v, id.negate_a));
                },
            )?;
        }
    }
    Ok(())
}

/// Fills columns `at..at + id.n` of B (K×N) of `t` from the B descriptor's `id.n` columns.
pub(crate) fn operand_b(
    c: &mut Ctx<'_>,
    s: &Issue,
    id: &InstrDesc,
    t: &mut Tiles,
    at: u32,
) -> Result<(), LaneFault> {
    let k = id.kind.k();
    let bbits = id.b.storage_bits(id.kind);
    let d = decode_desc(s, s.b_desc, "B")?;
    let major = if id.transpose_b { Major::Mn } else { Major::K };
    smem_operand(
        c,
        s,
        (&d, "B"),
        (major, bbits),
        (id.n, k),
        &mut |col, kk, v| {
            t.b.set(kk, at + col, to_mma_bits(id.b, v, id.negate_b));
        },
    )?;
    Ok(())
}
