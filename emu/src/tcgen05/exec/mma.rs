//! `tcgen05.mma` and `tcgen05.commit` in the interpreter (PTX ISA "tcgen05.mma",
//! "tcgen05.commit", "Matrix Descriptors", "Data path layout organization", and the tcgen05
//! memory-consistency rules).
//!
//! `tcgen05.mma` is issued by a single thread: each active lane that executes it issues one
//! MMA (kernels elect one thread). ptxemu computes the MMA when it is issued — from shared
//! memory and Tensor Memory as they are then — and writes D at once; this is one completion
//! order the ISA allows, since the MMA is asynchronous and completes no earlier than its issue.
//! An MMA accumulating into D after an earlier one reads the earlier result, as the hardware
//! pipelines them. In checked mode a thread's `tcgen05.ld` of a D cell is a fault (rule
//! `tcgen05-mma-visibility`) unless a `tcgen05.commit` of the issuing thread tracked the MMA,
//! its mbarrier phase completed, and the reading thread observed that (choice 7). `tcgen05.commit` makes its arrival at once (all MMAs and
//! `tcgen05.cp` copies it tracks are complete; the copies' record is
//! [`crate::tcgen05::async_writes`]); its implicit `tcgen05.fence::before_thread_sync` is a no-op here.
//!
//! Layouts (cta_group::1): element `(i, j)` of D (M×N) is the 32-bit cell at column
//! `col(taddr) + j` of lane `i` for M = 128 (taddr's lane must be 0), and of lane
//! `lane(taddr) + 32·(i / 16) + i % 16` for M = 64 (taddr's lane 0 or 16); `.ws` with M = 64
//! or 32 folds D's column halves or quarters into the four lane sub-partitions (taddr's lane
//! 0; [`crate::semantics::tcgen05_dlayout`], which names its sources). A from Tensor
//! Memory uses the same lanes, with its K elements packed from the low bits of consecutive
//! 32-bit columns. A and B in shared memory are located by
//! [`crate::semantics::tcgen05_desc::element_addr`]. Numerics are those of `mma.sync`
//! (`semantics::tile::multiply`).
//!
//! Deliberate choices and limits:
//! 1. `.cta_group::2` (a CTA pair, M = 256 and 128, every kind) runs in [`crate::tcgen05::exec::pair`].
//! 2. `.ws` runs for M = 128, 64 and 32 (layouts D, E and G); A from Tensor Memory with
//!    `.ws` M = 64 or 32, whose lanes are not documented, is refused by name.
//!    `zero-column-mask-desc` is refused by name when written (its format is not modelled).
//! 3. A D of f16 occupies the low 16 bits of its 32-bit cell (upper bits 0); not compared with
//!    hardware.
//! 4. e2m3 and e3m2 of `.kind::f8f6f4` sit in bits 5–0 of their 8-bit containers, e2m1 in
//!    bits 5–2 (the placement `tcgen05.cp`'s decompression writes; CUTLASS documents it for
//!    sm_120); each is converted exactly to e4m3 for the shared multiply. Not compared with
//!    hardware.
//! 5. The block-scaled kinds run in [`crate::tcgen05::exec::block_scale`].
//! 6. `scale-input-d` scales a floating-point D by `2^-s` before accumulation; for an s32 D
//!    (which ptxas accepts) it is refused.
//! 7. The visibility rule is per reading thread ([`crate::tcgen05::observe`]): it must have
//!    observed the phase of a commit that tracks the MMA (every commit tracks all of its
//!    thread's earlier MMAs) by its own mbarrier wait, or by a `bar.sync`/mbarrier phase after
//!    a thread that did. Its `tcgen05.fence::after_thread_sync` after that observation, which
//!    the ISA's canonical pattern has and Triton 3.9's output omits, is required only with
//!    `--tmem-check strict` ([`crate::tcgen05::memory::TmemOptions::fence`]).

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Extra, Flow};
use crate::ir::{CtaGroup, Mma, MmaElem, MmaLayout, MmaShape, Tcgen05, Tcgen05Mma};
use crate::semantics::tcgen05_dlayout::{d_columns, d_lanes, d_position};
use crate::semantics::tcgen05_idesc::{decode_idesc, DType, InstrDesc};
use crate::semantics::tile::{multiply, Tiles};
use crate::tcgen05::decoded::{MmaDInstr, TmemRef};
use crate::tcgen05::exec::mma_operands::{mma_elem, row_lane};
use crate::tcgen05::trace::TmemAction;

pub use crate::tcgen05::exec::commit::{check_ld, commit};
pub(crate) use crate::tcgen05::exec::mma_operands::{operand_a, operand_b, smem_elem, tmem_a_elem};

type R = Result<Flow, LaneFault>;

pub(crate) fn decoded(i: &DInstr) -> Result<&MmaDInstr, LaneFault> {
    match &i.extra {
        Extra::Tc5Mma(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a tcgen05.mma/commit without its decoded operands".into(),
        })),
    }
}

pub(crate) fn at_lane(kind: FaultKind, lane: usize, address: Option<u64>) -> LaneFault {
    LaneFault {
        kind,
        lane: Some(lane as u32),
        address,
    }
}

pub(crate) fn undefined(lane: usize, detail: String) -> LaneFault {
    at_lane(FaultKind::Undefined { detail }, lane, None)
}

pub(crate) fn unsupported(lane: usize, what: String) -> LaneFault {
    at_lane(FaultKind::Unsupported { what }, lane, None)
}

pub(crate) fn line(c: &Ctx<'_>, pc: u32) -> u32 {
    c.prog.info.get(pc as usize).map_or(0, |i| i.span.line)
}

/// The operands of one issue, as the issuing lane gives them.
#[derive(Clone, Debug)]
pub(crate) struct Issue {
    pub(crate) lane: usize,
    pub(crate) taddr_d: u32,
    pub(crate) a_tmem: Option<u32>,
    pub(crate) a_desc: u64,
    pub(crate) b_desc: u64,
    pub(crate) idesc: u32,
    pub(crate) disable: [u32; 8],
    pub(crate) enable: bool,
    /// The scale-factor addresses of A and B (block-scaled kinds).
    pub(crate) sf: Option<(u32, u32)>,
    /// With `--race`: the shared bytes its descriptors read (offset, bytes).
    pub(crate) runs: Option<std::cell::RefCell<Vec<(u64, u64)>>>,
}

/// The checks of an issue before any operand is read: the idesc, the kind and shape ptxemu
/// runs, D's lane.
pub(crate) fn prepare(
    c: &Ctx<'_>,
    m: &Tcgen05Mma,
    s: &Issue,
    group: u8,
) -> Result<InstrDesc, LaneFault> {
    let id = decode_idesc(m.kind, s.idesc, group, m.ws).map_err(|e| {
        undefined(
            s.lane,
            format!("rule tcgen05-mma-idesc: {e} (idesc 0x{:08x})", s.idesc),
        )
    })?;
    if id.sparse {
        return Err(unsupported(
            s.lane,
            "a sparse instruction descriptor (bit 2) with the dense tcgen05.mma".into(),
        ));
    }
    let folded = m.ws && id.m != 128;
    if folded && s.a_tmem.is_some() {
        return Err(unsupported(
            s.lane,
            format!(
                "A in Tensor Memory for tcgen05.mma.ws with M = {} (its Tensor Memory layout is not modelled)",
                id.m
            ),
        ));
    }
    let base = s.taddr_d >> 16;
    let ok = if id.m == 64 && !folded {
        base == 0 || base == 16
    } else {
        base == 0
    };
    let ok = ok || (group == 2 && base == 0);
    if !ok {
        return Err(undefined(
            s.lane,
            format!("tcgen05.mma{} with M = {} needs D's Tensor Memory address at lane {}, but taddr 0x{:08x} names lane {base} (line {})", if m.ws { ".ws" } else { "" }, id.m, if id.m == 64 && !folded { "0 or 16" } else { "0" }, s.taddr_d, line(c, c.pc)),
        ));
    }
    if s.a_tmem.is_some_and(|a| a >> 16 != base) {
        return Err(undefined(
            s.lane,
            "tcgen05.mma with A in Tensor Memory needs A at the same lane as D".into(),
        ));
    }
    Ok(id)
}

fn d_elem(id: &InstrDesc) -> MmaElem {
    match id.d {
        DType::F16 => MmaElem::F16,
        DType::F32 => MmaElem::F32,
        DType::S32 => MmaElem::S32,
    }
}

/// One MMA issued by lane `s.lane`.
fn issue(c: &mut Ctx<'_>, x: &MmaDInstr, m: &Tcgen05Mma, s: &Issue) -> Result<(), LaneFault> {
    let id = prepare(c, m, s, 1)?;
    let mut t = Tiles::new(id.m, id.n, id.kind.k());
    if s.sf.is_none() {
        operand_a(c, s, &id, &mut t)?;
        operand_b(c, s, &id, &mut t, 0)?;
    }
    accumulate(c, x, m, s, &id, (t, None))
}

/// Reads C from D's cells (when `enable-input-d`), multiplies `t` (or, block-scaled,
/// `scaled`, else the context's operands) and writes D: `id.m` rows into the context's Tensor
/// Memory.
pub(crate) fn accumulate(
    c: &mut Ctx<'_>,
    x: &MmaDInstr,
    m: &Tcgen05Mma,
    s: &Issue,
    id: &InstrDesc,
    (mut t, scaled): (Tiles, Option<crate::tcgen05::exec::block_scale::Operands>),
) -> Result<(), LaneFault> {
    let id = *id;
    let (rows, cols, k) = (id.m, id.n, id.kind.k());
    let delem = d_elem(&id);
    if x.scale_input_d != 0 && id.d == DType::S32 {
        return Err(unsupported(s.lane, "scale-input-d with an s32 D".into()));
    }
    let base = s.taddr_d >> 16;
    let col0 = s.taddr_d & 0xFFFF;
    let (warp, pc, checked) = (c.ids.warp, c.pc, c.tmem_opts.checked);
    let tm = crate::tcgen05::exec::tmem(c);
    let columns = tm.columns();
    // D's data path layout (`.ws` with M = 32 or 64 folds column blocks into lanes).
    let ws = m.ws;
    let place = |r: u32, j: u32| {
        let (l, col) = d_position(rows, cols, ws, r, j);
        (base + l, col0 + col)
    };
    // C's element from a cell's bits.
    let c_elem = |v: u32| {
        let v = u64::from(v);
        match delem {
            MmaElem::F16 => v & 0xFFFF,
            MmaElem::F32 if x.scale_input_d != 0 => {
                let f = f32::from_bits(v as u32) * (-(x.scale_input_d as f32)).exp2();
                u64::from(f.to_bits())
            }
            _ => v,
        }
    };
    // Without `.ws`, each row of D is one lane's consecutive columns: checked and moved a row
    // at a time. A row that fails its check sends D cell by cell, which names the cell.
    let row_runs: Option<Vec<u32>> = if ws {
        None
    } else {
        (0..rows)
            .map(|r| {
                let (lane, col) = place(r, 0);
                columns
                    .accepts_run(lane, col, cols)
                    .then(|| lane * crate::tcgen05::memory::COLUMNS + col)
            })
            .collect()
    };
    let mut cells = Vec::new();
    match &row_runs {
        Some(firsts) => {
            if s.enable {
                for (r, &first) in (0..rows).zip(firsts) {
                    for (j, &v) in (0..cols).zip(tm.run(first, cols)) {
                        t.c.set(r, j, c_elem(v));
                    }
                }
            }
        }
        None => {
            cells.reserve((rows * cols) as usize);
            for r in 0..rows {
                for j in 0..cols {
                    let (lane, col) = place(r, j);
                    let at = columns.check_cell(lane, col).map_err(|e| {
                        undefined(
                            s.lane,
                            format!("tcgen05.mma writes D cell (lane {lane}, column {col}): {e:?}"),
                        )
                    })?;
                    cells.push(at);
                    if s.enable {
                        t.c.set(r, j, c_elem(tm.read(at)));
                    }
                }
            }
        }
    }
    let mma = Mma {
        shape: MmaShape::M16n8k16,
        alayout: MmaLayout::Row,
        blayout: MmaLayout::Col,
        satfinite: id.saturate,
        d: delem,
        a: mma_elem(id.a),
        b: mma_elem(id.b),
        c: delem,
        bitop: None,
        rn: false,
    };
    let d = match s.sf {
        Some(sf) => {
            let lane_of = |r| row_lane(&id, base, r);
            let ctx = ((sf), x.sm);
            crate::tcgen05::exec::block_scale::compute(
                c,
                s,
                &id,
                m.scale_vec,
                ctx,
                &t,
                &lane_of,
                scaled,
            )?
        }
        None => multiply(&mma, &t, x.sm).into_low_words(),
    };
    let tm = crate::tcgen05::exec::tmem(c);
    // A cell's index is lane · COLUMNS + column; lanes whose quarter is disabled keep C.
    let enabled = |at: u32| {
        let lane = at / crate::tcgen05::memory::COLUMNS;
        s.disable[(lane / 32) as usize] & (1 << (lane % 32)) == 0
    };
    let thread = warp * 32 + s.lane as u32;
    match &row_runs {
        Some(firsts) => {
            let enabled_rows = || {
                firsts
                    .iter()
                    .zip(d.chunks_exact(cols as usize))
                    .filter(|(first, _)| enabled(**first))
            };
            for (&first, row) in enabled_rows() {
                tm.run_mut(first, cols).copy_from_slice(row);
            }
            if checked {
                let written = enabled_rows().map(|(&first, _)| first..first + cols);
                tm.mma.issue_runs("tcgen05.mma", thread, pc, written);
            }
        }
        None => {
            for (&at, &v) in cells.iter().zip(&d) {
                if enabled(at) {
                    tm.write(at, v);
                }
            }
            if checked {
                let written = cells.iter().copied().filter(|at| enabled(*at));
                tm.mma.issue("tcgen05.mma", thread, pc, written);
            }
        }
    }
    let (l0, l1) = d_lanes(rows, ws);
    let action = TmemAction::Mma {
        thread: s.lane as u32,
        shape: (rows, cols, k, id.kind.name()),
        lanes: (base + l0, base + l1),
        columns: (col0, col0 + d_columns(rows, cols, ws)),
        accumulate: s.enable,
    };
    crate::tcgen05::exec::record(c, Some(s.taddr_d), action, Vec::new());
    Ok(())
}

fn tref(c: &Ctx<'_>, r: &Option<TmemRef>) -> Option<[u32; 32]> {
    r.as_ref().map(|t| {
        let v = c.fetch(&t.src);
        std::array::from_fn(|l| (v[l] as u32).wrapping_add(t.offset as u32))
    })
}

/// `tcgen05.mma{.ws}`: one MMA per active lane.
pub fn mma(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let Tcgen05::Mma(m) = x.op else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "tcgen05.mma decoded as another instruction".into(),
        }));
    };
    if x.zero_mask {
        return Err(unsupported(
            c.mask.trailing_zeros().min(31) as usize,
            "tcgen05.mma.ws with a zero-column-mask-desc (its descriptor format is not modelled)"
                .into(),
        ));
    }
    let d = tref(c, &x.d).unwrap_or([0; 32]);
    let a_tmem = tref(c, &x.a_tmem);
    let (sfa, sfb) = (tref(c, &x.sfa), tref(c, &x.sfb));
    let (a_desc, b_desc) = (c.fetch(&x.a_desc), c.fetch(&x.b_desc));
    let (idesc, enable) = (c.fetch(&x.idesc), c.fetch(&x.enable));
    let disable: Vec<[u64; 32]> = x.disable.iter().map(|s| c.fetch(s)).collect();
    for lane in 0..32usize {
        if c.mask & (1 << lane) == 0 {
            continue;
        }
        let s = Issue {
            lane,
            taddr_d: d[lane],
            a_tmem: a_tmem.map(|a| a[lane]),
            a_desc: a_desc[lane],
            b_desc: b_desc[lane],
            idesc: idesc[lane] as u32,
            disable: std::array::from_fn(|k| disable.get(k).map_or(0, |r| r[lane] as u32)),
            enable: enable[lane] != 0,
            sf: sfa.zip(sfb).map(|(a, b)| (a[lane], b[lane])),
            runs: c.observes_async().then(Default::default),
        };
        if m.group == CtaGroup::Two {
            // hands its reads to the detector CTA by CTA (`pair::reading`)
            crate::tcgen05::exec::pair::issue(c, x, &m, &s)?;
        } else {
            issue(c, x, &m, &s)?;
            if let Some(r) = s.runs {
                c.after_tcgen05_mma_issued(lane, &r.into_inner());
            }
        }
    }
    Ok(Flow::Next)
}
