//! `tcgen05.mma` and `tcgen05.commit` in the interpreter (PTX ISA "tcgen05.mma",
//! "tcgen05.commit", "Matrix Descriptors", "Data path layout organization", and the tcgen05
//! memory-consistency rules).
//!
//! `tcgen05.mma` is issued by a single thread: each active lane that executes it issues one
//! MMA (kernels elect one thread). ptxemu computes the MMA when it is issued — from shared
//! memory and Tensor Memory as they are then — and writes D at once; this is one completion
//! order the ISA allows, since the MMA is asynchronous and completes no earlier than its issue.
//! An MMA accumulating into D after an earlier one reads the earlier result, as the hardware
//! pipelines them. The results count as *pending* until the issuing thread's
//! `tcgen05.commit` has tracked them and the phase of the mbarrier the commit arrived on has
//! completed; in checked mode a `tcgen05.ld` of a pending cell is a fault (rule
//! `tcgen05-mma-visibility`). `tcgen05.commit` makes its arrival at once (all MMAs and
//! `tcgen05.cp` copies it tracks are complete; the copies' record is
//! [`crate::tcgen05::async_writes`]); its implicit `tcgen05.fence::before_thread_sync` is a no-op here.
//!
//! Layouts (cta_group::1): element `(i, j)` of D (M×N) is the 32-bit cell at column
//! `col(taddr) + j` of lane `i` for M = 128 (taddr's lane must be 0), and of lane
//! `lane(taddr) + 32·(i / 16) + i % 16` for M = 64 (taddr's lane 0 or 16). A from Tensor
//! Memory uses the same lanes, with its K elements packed from the low bits of consecutive
//! 32-bit columns. A and B in shared memory are located by
//! [`crate::semantics::tcgen05_desc::element_addr`]. Numerics are those of `mma.sync`
//! ([`super::mma::multiply`]).
//!
//! Deliberate choices and limits:
//! 1. `.cta_group::2` (a CTA pair, M = 256) runs in [`super::tcgen05_pair`].
//! 2. `.ws` runs for M = 128 only (the `.ws` layouts of M = 32 and 64 are refused by name).
//! 3. A D of f16 occupies the low 16 bits of its 32-bit cell (upper bits 0); not compared with
//!    hardware.
//! 4. e2m3 and e3m2 of `.kind::f8f6f4` sit in bits 5–0 of their 8-bit containers, e2m1 in
//!    bits 5–2 (the placement `tcgen05.cp`'s decompression writes; CUTLASS documents it for
//!    sm_120); each is converted exactly to e4m3 for the shared multiply. Not compared with
//!    hardware.
//! 5. The block-scaled kinds run in [`super::tcgen05_mma_bs`].
//! 6. `scale-input-d` scales a floating-point D by `2^-s` before accumulation; for an s32 D
//!    (which ptxas accepts) it is refused.
//! 7. The visibility rule checks the mbarrier phase, not that the reading thread observed it
//!    or executed `tcgen05.fence::after_thread_sync`.

use super::mma::{multiply, Tiles};
use super::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{AddrSpace, DAddr, DInstr, Extra, Flow, Src};
use crate::ir::{CtaGroup, Mma, MmaElem, MmaLayout, MmaShape, Tcgen05, Tcgen05Mma};
use crate::semantics::convert::{f64_to_narrow, Narrow};
use crate::semantics::narrow_float::{e2m1_to_f64, e2m3_to_f64, e3m2_to_f64};
use crate::semantics::tcgen05_desc::{decode_smem, element_addr, Major, SmemDesc};
use crate::semantics::tcgen05_idesc::{decode_idesc, DType, ElemType, InstrDesc};
use crate::tcgen05::trace::TmemAction;
use rustc_apfloat::Round;

type R = Result<Flow, LaneFault>;

/// A Tensor Memory address operand: its register (or constant) and offset.
#[derive(Clone, Debug)]
pub struct TmemRef {
    /// The register or constant.
    pub src: Src,
    /// The constant offset written in brackets.
    pub offset: i64,
}

/// A decoded `tcgen05.mma` or `tcgen05.commit`.
#[derive(Clone, Debug)]
pub struct MmaDInstr {
    /// The instruction.
    pub op: Tcgen05,
    /// D's Tensor Memory address.
    pub d: Option<TmemRef>,
    /// A's Tensor Memory address (A from Tensor Memory).
    pub a_tmem: Option<TmemRef>,
    /// A's descriptor (A from shared memory).
    pub a_desc: Src,
    /// B's descriptor.
    pub b_desc: Src,
    /// The instruction descriptor.
    pub idesc: Src,
    /// `disable-output-lane` (empty when not written).
    pub disable: Vec<Src>,
    /// `enable-input-d`.
    pub enable: Src,
    /// `scale-input-d` (0 when not written).
    pub scale_input_d: u32,
    /// Scale factors of A (block-scaled kinds).
    pub sfa: Option<TmemRef>,
    /// Scale factors of B (block-scaled kinds).
    pub sfb: Option<TmemRef>,
    /// The commit's mbarrier.
    pub mbar: Option<DAddr>,
    /// The commit's `ctaMask`.
    pub mask: Src,
    /// The module's target SM (it selects the accumulation model).
    pub sm: u32,
}

fn decoded(i: &DInstr) -> Result<&MmaDInstr, LaneFault> {
    match &i.extra {
        Extra::Tc5Mma(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a tcgen05.mma/commit without its decoded operands".into(),
        })),
    }
}

fn at_lane(kind: FaultKind, lane: usize, address: Option<u64>) -> LaneFault {
    LaneFault {
        kind,
        lane: Some(lane as u32),
        address,
    }
}

fn undefined(lane: usize, detail: String) -> LaneFault {
    at_lane(FaultKind::Undefined { detail }, lane, None)
}

fn unsupported(lane: usize, what: String) -> LaneFault {
    at_lane(FaultKind::Unsupported { what }, lane, None)
}

fn line(c: &Ctx<'_>, pc: u32) -> u32 {
    c.prog.info.get(pc as usize).map_or(0, |i| i.span.line)
}

/// The operands of one issue, as the issuing lane gives them.
pub(super) struct Issue {
    pub(super) lane: usize,
    pub(super) taddr_d: u32,
    pub(super) a_tmem: Option<u32>,
    pub(super) a_desc: u64,
    pub(super) b_desc: u64,
    pub(super) idesc: u32,
    pub(super) disable: [u32; 8],
    pub(super) enable: bool,
    /// The scale-factor addresses of A and B (block-scaled kinds).
    pub(super) sf: Option<(u32, u32)>,
    /// With `--race`: the shared bytes its descriptors read (offset, bytes).
    pub(super) runs: Option<std::cell::RefCell<Vec<(u64, u64)>>>,
}

/// The Tensor Memory lane of row `r` of D (and of A from Tensor Memory).
fn row_lane(id: &InstrDesc, base: u32, r: u32) -> u32 {
    if id.m == 64 {
        base + 32 * (r / 16) + r % 16
    } else {
        base + r
    }
}

/// The element type `mma.sync`'s numerics use for `t`, and the bits of an element as read.
fn mma_elem(t: ElemType) -> MmaElem {
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
pub(super) fn smem_elem(
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
        let off = super::mem::shared_wrap(addr);
        super::wgmma_race::add_run(&mut r.borrow_mut(), off, u64::from(bytes));
    }
    if let Some(f) =
        super::tma_proxy::async_read(c, s.lane, addr, u64::from(bytes), "a tcgen05.mma operand")
    {
        return Err(f);
    }
    let v = super::mem::load_shared(c, AddrSpace::Shared, addr, bytes, bytes, s.lane).map_err(
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

/// Element `(row, k)` of A in Tensor Memory.
pub(super) fn tmem_a_elem(
    c: &mut Ctx<'_>,
    s: &Issue,
    id: &InstrDesc,
    taddr: u32,
    bits: u32,
    (r, k): (u32, u32),
) -> Result<u64, LaneFault> {
    let lane = row_lane(id, taddr >> 16, r);
    let col = (taddr & 0xFFFF) + k * bits / 32;
    let tm = super::tcgen05::tmem(c);
    let at = tm.check_cell(lane, col).map_err(|e| {
        undefined(
            s.lane,
            format!(
                "tcgen05.mma reads A from Tensor Memory cell (lane {lane}, column {col}): {e:?}"
            ),
        )
    })?;
    let cell = u64::from(tm.read(at));
    Ok((cell >> (k * bits % 32)) & storage_mask(bits))
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
pub(super) fn operand_a(
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
            for r in 0..id.m {
                for kk in 0..k {
                    let v = tmem_a_elem(c, s, id, taddr, abits, (r, kk))?;
                    t.a.set(r, kk, to_mma_bits(id.a, v, id.negate_a));
                }
            }
        }
        None => {
            let d = decode(s.a_desc, "A")?;
            let major = if id.transpose_a { Major::Mn } else { Major::K };
            for r in 0..id.m {
                for kk in 0..k {
                    let v = smem_elem(c, s, &d, "A", (major, abits), (r, kk))?;
                    t.a.set(r, kk, to_mma_bits(id.a, v, id.negate_a));
                }
            }
        }
    }
    Ok(())
}

/// Fills columns `at..at + id.n` of B (K×N) of `t` from the B descriptor's `id.n` columns.
pub(super) fn operand_b(
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
    for col in 0..id.n {
        for kk in 0..k {
            let v = smem_elem(c, s, &d, "B", (major, bbits), (col, kk))?;
            t.b.set(kk, at + col, to_mma_bits(id.b, v, id.negate_b));
        }
    }
    Ok(())
}

/// The checks of an issue before any operand is read: the idesc, the kind and shape ptxemu
/// runs, D's lane.
pub(super) fn prepare(
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
    if m.ws && id.m != 128 {
        return Err(unsupported(
            s.lane,
            format!(
                "the Tensor Memory layout of tcgen05.mma.ws with M = {}",
                id.m
            ),
        ));
    }
    let base = s.taddr_d >> 16;
    let ok = if id.m == 64 {
        base == 0 || base == 16
    } else {
        base == 0
    };
    let ok = ok || (group == 2 && base == 0);
    if !ok {
        return Err(undefined(
            s.lane,
            format!("tcgen05.mma with M = {} needs D's Tensor Memory address at lane {}, but taddr 0x{:08x} names lane {base} (line {})", id.m, if id.m == 64 { "0 or 16" } else { "0" }, s.taddr_d, line(c, c.pc)),
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
    accumulate(c, x, m, s, &id, t)
}

/// Reads C from D's cells (when `enable-input-d`), multiplies `t` and writes D: `id.m` rows
/// into the context's Tensor Memory.
pub(super) fn accumulate(
    c: &mut Ctx<'_>,
    x: &MmaDInstr,
    m: &Tcgen05Mma,
    s: &Issue,
    id: &InstrDesc,
    mut t: Tiles,
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
    let tm = super::tcgen05::tmem(c);
    let mut cells = Vec::with_capacity((rows * cols) as usize);
    for r in 0..rows {
        let lane = row_lane(&id, base, r);
        for j in 0..cols {
            let at = tm.check_cell(lane, col0 + j).map_err(|e| {
                undefined(
                    s.lane,
                    format!(
                        "tcgen05.mma writes D cell (lane {lane}, column {}): {e:?}",
                        col0 + j
                    ),
                )
            })?;
            cells.push(at);
            if s.enable {
                let v = u64::from(tm.read(at));
                let v = match delem {
                    MmaElem::F16 => v & 0xFFFF,
                    MmaElem::F32 if x.scale_input_d != 0 => {
                        let f = f32::from_bits(v as u32) * (-(x.scale_input_d as f32)).exp2();
                        u64::from(f.to_bits())
                    }
                    _ => v,
                };
                t.c.set(r, j, v);
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
    let d: Vec<u32> = match s.sf {
        Some(sf) => {
            let lane_of = |r| row_lane(&id, base, r);
            let ctx = ((sf), x.sm);
            super::tcgen05_mma_bs::compute(c, s, &id, m.scale_vec, ctx, &t, &lane_of)?
        }
        None => {
            let d = multiply(&mma, &t, x.sm);
            (0..rows * cols)
                .map(|i| d.get(i / cols, i % cols) as u32)
                .collect()
        }
    };
    let tm = super::tcgen05::tmem(c);
    let mut written = Vec::with_capacity(cells.len());
    for r in 0..rows {
        let lane = row_lane(&id, base, r);
        if s.disable[(lane / 32) as usize] & (1 << (lane % 32)) != 0 {
            continue;
        }
        for j in 0..cols {
            let at = cells[(r * cols + j) as usize];
            tm.write(at, d[(r * cols + j) as usize]);
            written.push(at);
        }
    }
    if checked {
        tm.mma.issue(warp * 32 + s.lane as u32, pc, written);
    }
    let lanes = if id.m == 64 {
        (base, base + 112)
    } else {
        (base, base + rows)
    };
    let action = TmemAction::Mma {
        thread: s.lane as u32,
        shape: (rows, cols, k, id.kind.name()),
        lanes,
        columns: (col0, col0 + cols),
        accumulate: s.enable,
    };
    super::tcgen05::record(c, Some(s.taddr_d), action, Vec::new());
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
            runs: (c.race.is_some() && m.group != CtaGroup::Two).then(Default::default),
        };
        if m.group == CtaGroup::Two {
            super::tcgen05_pair::issue(c, x, &m, &s)?;
        } else {
            issue(c, x, &m, &s)?;
        }
        if let Some(r) = s.runs {
            super::wgmma_race::tcgen05_issued(c, lane, &r.into_inner());
        }
    }
    Ok(Flow::Next)
}

/// `tcgen05.commit`: each active lane's MMAs are tracked by one arrival on its mbarrier.
pub fn commit(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let Tcgen05::Commit(m) = x.op else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "tcgen05.commit decoded as another instruction".into(),
        }));
    };
    let pair = m.group == CtaGroup::Two;
    if pair {
        super::tcgen05_pair::pair(c, "tcgen05.commit.cta_group::2")?;
    }
    let mask = c.fetch(&x.mask);
    let Some(mbar) = x.mbar else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "tcgen05.commit without its mbarrier".into(),
        }));
    };
    for (lane, &ctamask) in mask.iter().enumerate() {
        if c.mask & (1 << lane) == 0 {
            continue;
        }
        let own = c.cluster.rank();
        let ranks = if m.multicast {
            let off = super::mem::lane_addr(c, &mbar, lane);
            super::cluster::targets(c, Some(ctamask), off, lane)?.0
        } else {
            vec![own]
        };
        let thread = c.ids.warp * 32 + lane as u32;
        for r in ranks {
            // A peer's Tensor Memory holds this thread's MMAs only for a CTA pair.
            let track = r == own || pair;
            super::tcgen05_pair::with_cta(c, r, lane, |c| {
                commit_one(c, &mbar, lane, thread, track)
            })?;
        }
    }
    Ok(Flow::Next)
}

/// One arrival of `tcgen05.commit` on the mbarrier at `mbar` of the context's CTA; with
/// `track`, the thread's MMAs and copies in the CTA's Tensor Memory complete with it.
fn commit_one(
    c: &mut Ctx<'_>,
    mbar: &DAddr,
    lane: usize,
    thread: u32,
    track: bool,
) -> Result<(), LaneFault> {
    let (off, phase) = super::async_copy::arrive_async(c, mbar, lane)?;
    // The thread's MMAs (tracked here) and tcgen05.cp copies (tracked by async_writes).
    let n = match c.tmem.as_mut() {
        Some(t) if track => {
            t.mma.commit(thread, off, phase) + t.async_writes.commit(thread, off, phase)
        }
        _ => 0,
    };
    let action = TmemAction::Commit {
        thread: lane as u32,
        mbar: off,
        mmas: n as u32,
    };
    super::tcgen05::record(c, None, action, Vec::new());
    Ok(())
}

/// The visibility rule for a `tcgen05.ld` (checked mode): none of the cells `cells(t, j)`
/// (thread `t`, register `j < regs`) may hold a pending MMA result.
pub fn check_ld(
    c: &mut Ctx<'_>,
    regs: u32,
    cells: &dyn Fn(u32, u32) -> smallvec::SmallVec<[(u32, u32); 2]>,
    what: &str,
) -> Result<(), LaneFault> {
    let Some(tm) = c.tmem.as_mut() else {
        return Ok(());
    };
    if !tm.checked() || tm.mma.is_empty() {
        return Ok(());
    }
    let st = &*c.asyncs;
    let done = |off, phase| super::async_copy::phase_done(st, off, phase);
    tm.mma.retire(done);
    let tm = c.tmem.as_ref().map(|t| &t.mma);
    let Some(track) = tm else { return Ok(()) };
    for t in 0..32 {
        for j in 0..regs {
            for (lane, col) in cells(t, j) {
                if lane >= 128 || col >= 512 {
                    continue;
                }
                let Some(rec) = track.pending(lane * 512 + col, done) else {
                    continue;
                };
                let why = match rec.commit {
                    None => format!("before any tcgen05.commit of thread {} tracked it", rec.thread),
                    Some((off, phase)) => format!(
                        "and the mbarrier (shared offset {off}) its tcgen05.commit arrived on has not completed phase {phase}"
                    ),
                };
                return Err(undefined(
                    t as usize,
                    format!(
                        "rule tcgen05-mma-visibility: {what} at line {} reads Tensor Memory cell (lane {lane}, column {col}) that tcgen05.mma at line {} wrote, {why}: the MMA's results may be read only after its commit's mbarrier phase completes (mbarrier wait, then tcgen05.fence::after_thread_sync)",
                        line(c, c.pc),
                        line(c, rec.pc)
                    ),
                ));
            }
        }
    }
    Ok(())
}
