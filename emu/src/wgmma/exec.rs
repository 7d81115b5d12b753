//! The warpgroup-level matrix instructions in the interpreter (PTX ISA "Asynchronous Warpgroup
//! Level Matrix Multiply-Accumulate Instructions"): `wgmma.mma_async`, `wgmma.fence`,
//! `wgmma.commit_group` and `wgmma.wait_group`.
//!
//! A warpgroup is four consecutive warps (warps `4g..4g+3` of the CTA). Each warp of it holds
//! sixteen rows of the 64-row D (warp `4g+i` rows `16i..16i+15`) and, with A from registers,
//! the same sixteen rows of A; B is shared. So each warp's part of the product depends only on
//! its own registers and on shared memory, and ptxemu computes it when that warp issues the
//! instruction, with all 32 lanes converged (the `.sync.aligned` rule, checked as for the
//! tcgen05 instructions). The four warps are tied together by checks: the CTA must hold the
//! whole warpgroup, and the i-th `wgmma.mma_async` of every warp of a warpgroup must be the
//! same instruction with the same descriptors; a fault names the warps and lanes that differ.
//!
//! Asynchrony: a product is not written to D when issued. It is kept with its warp, in the open
//! group until `wgmma.commit_group` closes the group, and written to the registers when
//! `wgmma.wait_group N` retires its group (all but the `N` most recent). A later
//! `wgmma.mma_async` that accumulates into the same registers reads the pending value, as the
//! hardware chains them. Reading D between issue and retirement therefore sees the old value
//! (the ISA: the registers are undefined then); reading D in that window, by any instruction
//! but a `wgmma.mma_async` chaining into it, is a fault at the read ([`crate::wgmma::accumulators`]);
//! writing D in that window is a fault when the group retires, naming the wgmma's line.
//!
//! Numerics are those of `mma.sync` (`semantics::tile::multiply`, [`crate::semantics::mma`]);
//! shared-memory operands are located by [`crate::semantics::wgmma_desc`].
//!
//! Deliberate deviations and choices:
//! 1. Only D is guarded: reads and writes of A's registers before `wgmma.wait_group` are not
//!    detected.
//! 2. With scale-d false, C is +0.0: a D whose products are all −0 reads +0.
//! 3. `imm-scale-a/b = −1` negates every element of A or B by flipping its sign bit (integer
//!    forms have no scale immediates).
//! 4. Pending products of a warp that exits are dropped.
//! 5. Of the ISA's `wgmma.fence` rules only "before the first `wgmma.mma_async`" is checked;
//!    a register written between a fence and a later `wgmma.mma_async` is not detected.

use crate::exec::converge::{converge, lane_ranges};
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::operand_columns::{self, OperandPart};
use crate::exec::program::{AddrSpace, DInstr, Extra, Flow, Src};
use crate::ir::{Mma, MmaElem, MmaLayout, MmaShape, Wgmma, WgmmaMma};
use crate::mma::layout::a_elem;
use crate::semantics::tile::{elem_bits, multiply, Packing, Tiles};
use crate::semantics::wgmma_desc::{decode, element_addr, Major, MatrixDesc};
use crate::wgmma::decoded::WgmmaInstr;
use crate::wgmma::state::{Issue, Pending};

type R = Result<Flow, LaneFault>;

fn decoded(i: &DInstr) -> Result<&WgmmaInstr, LaneFault> {
    match &i.extra {
        Extra::Wgmma(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a wgmma instruction without its decoded operands".into(),
        })),
    }
}

fn collective(c: &Ctx<'_>, what: &str) -> Result<Option<Flow>, LaneFault> {
    converge(c, what)
}

/// Checks a wgmma operand read of `bytes` bytes of shared memory at `addr`, made through the
/// async proxy, against generic writes not yet fenced with `fence.proxy.async`
/// (`--proxy-check`).
fn async_proxy_operand_read(c: &Ctx<'_>, addr: u64, bytes: u64) -> Result<(), LaneFault> {
    match c.before_async_read(0, addr, bytes, "a wgmma.mma_async operand") {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// The value every lane gives for `s`; a fault naming the lanes that differ.
fn uniform(c: &Ctx<'_>, s: &Src, name: &str) -> Result<u64, LaneFault> {
    let v = c.fetch(s);
    let differ = (1..32)
        .filter(|&l| v[l] != v[0])
        .fold(0u32, |m, l| m | (1 << l));
    if differ != 0 {
        let l = differ.trailing_zeros() as usize;
        return Err(LaneFault {
            kind: FaultKind::DivergentCollective {
                detail: format!(
                    "{name} of wgmma.mma_async must be the same in every lane of the warp; lanes {} give 0x{:x}, lane 0 gives 0x{:x}",
                    lane_ranges(differ),
                    v[l],
                    v[0]
                ),
            },
            lane: Some(l as u32),
            address: None,
        });
    }
    Ok(v[0])
}

/// The warpgroup of the executing warp, checked to be whole in the CTA.
fn warpgroup(c: &Ctx<'_>) -> Result<u32, LaneFault> {
    let w = c.ids.warp;
    let g = w / 4;
    let n = c.launch.nwarpid;
    if 4 * g + 4 > n {
        return Err(LaneFault::new(FaultKind::DivergentCollective {
            detail: format!(
                "wgmma.mma_async is executed by a warpgroup of four warps, but warpgroup {g} (warps {}..{}) has only warps {}..{} in this CTA of {n} warps",
                4 * g,
                4 * g + 3,
                4 * g,
                n - 1
            ),
        }));
    }
    Ok(g)
}

/// Records the executing warp's next issue and checks it against the warpgroup's.
fn check_issue(c: &mut Ctx<'_>, g: u32, a_desc: Option<u64>, b_desc: u64) -> Result<(), LaneFault> {
    let w = c.ids.warp;
    let (pc, line) = (c.pc, line_of(c, c.pc));
    let seq = {
        let wg = c.wgmma.warps.entry(w).or_default();
        wg.issued += 1;
        wg.issued - 1
    };
    let counts: Vec<u64> = (4 * g..4 * g + 4)
        .map(|x| c.wgmma.warps.get(&x).map_or(0, |s| s.issued))
        .collect();
    let prog = c.prog;
    let line_at = |pc: u32| prog.info.get(pc as usize).map_or(0, |i| i.span.line);
    let (base, list) = c.wgmma.issues.entry(g).or_default();
    let idx = (seq - *base) as usize;
    if let Some(first) = list.get(idx) {
        let what = if first.pc != pc {
            Some(format!(
                "warp {} issued wgmma.mma_async number {seq} of its warpgroup at line {}, warp {w} at line {line}",
                first.warp,
                line_at(first.pc)
            ))
        } else if first.b_desc != b_desc || first.a_desc != a_desc {
            Some(format!(
                "warp {} issued it with descriptors (A {:?}, B 0x{:x}), warp {w} with (A {:?}, B 0x{b_desc:x}); the four warps of a warpgroup share A's and B's descriptors",
                first.warp, first.a_desc, first.b_desc, a_desc
            ))
        } else {
            None
        };
        if let Some(detail) = what {
            return Err(LaneFault::new(FaultKind::DivergentCollective {
                detail: format!(
                    "the warpgroup of warps {}..{} diverged: {detail}",
                    4 * g,
                    4 * g + 3
                ),
            }));
        }
    } else {
        list.push_back(Issue {
            pc,
            warp: w,
            a_desc,
            b_desc,
        });
    }
    // Issues every warp of the warpgroup has passed are no longer needed.
    let min = counts.iter().copied().min().unwrap_or(0);
    while *base < min && !list.is_empty() {
        list.pop_front();
        *base += 1;
    }
    Ok(())
}

/// The source line of the instruction at `pc`.
pub fn line_of(c: &Ctx<'_>, pc: u32) -> u32 {
    c.prog.info.get(pc as usize).map_or(0, |i| i.span.line)
}

/// The `mma.sync` shape whose A fragment has the layout of a wgmma A fragment of type `a`.
fn fragment_shape(a: MmaElem) -> MmaShape {
    match a {
        MmaElem::Tf32 => MmaShape::M16n8k8,
        MmaElem::F16 | MmaElem::Bf16 => MmaShape::M16n8k16,
        MmaElem::B1 => MmaShape::M16n8k256,
        _ => MmaShape::M16n8k32,
    }
}

/// The `mma` whose arithmetic is the wgmma's.
fn as_mma(m: &WgmmaMma) -> Mma {
    Mma {
        shape: fragment_shape(m.a),
        alayout: MmaLayout::Row,
        blayout: MmaLayout::Col,
        satfinite: m.satfinite,
        d: m.d,
        a: m.a,
        b: m.b,
        c: m.d,
        bitop: m.bitop,
        rn: false,
    }
}

/// `(row, column)` of element `i` of a lane's D fragment within its warp's 16 rows.
pub fn d_elem(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * ((i / 2) % 2), 2 * t + (i % 2) + 8 * (i / 4))
}

/// [`d_elem`] as positions in a row-major tile of `n` columns, split into a part of the
/// lane and a part of the element: element `i` of lane `l` is at `lanes[l] + elem(i)`.
struct DPositions {
    n: usize,
    lanes: [usize; 32],
}

impl DPositions {
    fn new(n: u32) -> DPositions {
        let n = n as usize;
        DPositions {
            n,
            lanes: std::array::from_fn(|l| (l / 4) * n + 2 * (l % 4)),
        }
    }

    #[inline]
    fn elem(&self, i: u32) -> usize {
        let i = i as usize;
        8 * ((i / 2) % 2) * self.n + (i % 2) + 8 * (i / 4)
    }
}

/// Reads element `(mn, k)` of a shared-memory operand; with `--race`, adds its bytes to
/// `runs` (shared offset, bytes; contiguous elements merged).
fn smem_elem(
    c: &Ctx<'_>,
    (d, major, e): Operand<'_>,
    mn: u32,
    k: u32,
    runs: &mut Option<Vec<(u64, u64)>>,
) -> Result<u64, LaneFault> {
    let bits = e.bits();
    let (addr, bit) = element_addr(d, major, bits, mn, k);
    let bytes = u32::max(bits / 8, 1);
    async_proxy_operand_read(c, addr, u64::from(bytes))?;
    if let Some(runs) = runs {
        crate::exec::hooks::asyncs::add_run(
            runs,
            crate::exec::address::shared_wrap(addr),
            u64::from(bytes),
        );
    }
    let v = crate::exec::address::load_shared(c, AddrSpace::Shared, addr, bytes, bytes, 0)?;
    Ok(if bits == 1 { (v >> bit) & 1 } else { v })
}

/// One shared-memory operand of a `wgmma.mma_async`: its descriptor, which dimension is
/// contiguous, and its element type.
type Operand<'d> = (&'d MatrixDesc, Major, MmaElem);

/// Reads elements `(mn0 + i, k)`, `i < mn_n`, `k < k_n`, of a shared-memory operand into
/// `set(i, k, bits)`, a 16-byte column at a time where it can
/// ([`crate::exec::operand_columns`]), else element by element; with `--race`, adds their
/// bytes to `runs` in the order [`smem_elem`] would.
fn smem_operand(
    c: &Ctx<'_>,
    operand: Operand<'_>,
    (mn0, mn_n, k_n): (u32, u32, u32),
    runs: &mut Option<Vec<(u64, u64)>>,
    set: &mut impl FnMut(u32, u32, u64),
) -> Result<(), LaneFault> {
    let (d, major, e) = operand;
    let bits = e.bits();
    let part = OperandPart {
        major,
        bits,
        mn0,
        mn_n,
        k_n,
    };
    let addr_of = |mn, k| Some(element_addr(d, major, bits, mn, k).0);
    let by_columns = operand_columns::read(
        c,
        0,
        part,
        addr_of,
        |addr, bytes| async_proxy_operand_read(c, addr, bytes).is_ok(),
        set,
    );
    if by_columns {
        if let Some(runs) = runs {
            operand_columns::add_element_runs(part, addr_of, runs);
        }
        return Ok(());
    }
    for mn in 0..mn_n {
        for k in 0..k_n {
            set(mn, k, smem_elem(c, operand, mn0 + mn, k, runs)?);
        }
    }
    Ok(())
}

/// The sign bit of an element of type `e` (floating-point types only).
fn sign_bit(e: MmaElem) -> u64 {
    match e {
        MmaElem::F16 | MmaElem::Bf16 => 1 << 15,
        MmaElem::E4m3 | MmaElem::E5m2 => 1 << 7,
        MmaElem::Tf32 | MmaElem::F32 => 1 << 31,
        _ => 0,
    }
}

/// An empty table indexed by register slot, long enough for every slot of `slots`: where
/// [`accumulators`] and [`retire`] note which of their values a slot has, instead of searching
/// every pending product's registers once per slot.
fn slot_table(slots: impl Iterator<Item = u32> + Clone) -> Vec<Option<u32>> {
    let len = slots.clone().max().map_or(0, |m| m as usize + 1);
    vec![None; len]
}

/// The current values of accumulator registers `slots`: for each, the latest pending product
/// into it (the first of that product's registers that names it), else the register.
fn accumulators(c: &Ctx<'_>, slots: &[u32]) -> Vec<[u64; 32]> {
    let mut newest = slot_table(slots.iter().copied());
    let mut values: Vec<&[u64; 32]> = Vec::new();
    if let Some(wg) = c.wgmma.warps.get(&c.ids.warp) {
        let newest_first = wg
            .open
            .iter()
            .rev()
            .chain(wg.committed.iter().rev().flat_map(|g| g.iter().rev()));
        for p in newest_first {
            for r in &p.regs {
                if let Some(e @ None) = newest.get_mut(r.0 as usize) {
                    *e = Some(values.len() as u32);
                    values.push(&r.2);
                }
            }
        }
    }
    slots
        .iter()
        .map(|&s| match newest[s as usize] {
            Some(k) => *values[k as usize],
            None => c.fetch(&Src::Reg(s)),
        })
        .collect()
}

/// `wgmma.mma_async`: this warp's sixteen rows of `D = A·B + (scale-d ? D : 0)`, kept pending.
pub fn mma_async(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    let Wgmma::MmaAsync(m) = x.op else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "wgmma.mma_async decoded as another instruction".into(),
        }));
    };
    if let Some(flow) = collective(c, "wgmma.mma_async.sync.aligned")? {
        return Ok(flow);
    }
    let g = warpgroup(c)?;
    let fenced = c.wgmma.warps.get(&c.ids.warp).is_some_and(|w| w.fenced);
    if !fenced {
        return Err(LaneFault::new(FaultKind::Undefined {
            detail: "the warp's first wgmma.mma_async is not preceded by wgmma.fence (the ISA requires one before the first wgmma.mma_async of a warpgroup)".into(),
        }));
    }
    let warp_in_group = c.ids.warp % 4;
    let a_desc = match x.a_desc {
        Src::None => None,
        s => Some(uniform(c, &s, "a-desc")?),
    };
    let b_desc = uniform(c, &x.b_desc, "b-desc")?;
    let scale_d = uniform(c, &x.scale_d, "scale-d")? != 0;
    check_issue(c, g, a_desc, b_desc)?;
    let (n, k) = (m.n, m.k_of_type());
    let mut t = Tiles::new(16, n, k);
    let mma = as_mma(&m);
    let mut runs = c.observes_async().then(Vec::new);
    match a_desc {
        Some(ad) => {
            let d = decode(ad);
            let major = if x.trans_a { Major::Mn } else { Major::K };
            smem_operand(
                c,
                (&d, major, m.a),
                (16 * warp_in_group, 16, k),
                &mut runs,
                &mut |r, kk, v| t.a.set(r, kk, v),
            )?;
        }
        None => {
            let ra: Vec<[u64; 32]> = x.a.iter().map(|s| c.fetch(s)).collect();
            for l in 0..32 {
                for e in 0..(16 * k / 32) {
                    let (r, kk) = a_elem(&mma, l, e);
                    t.a.set(r, kk, elem_bits(&ra, m.a, l, e));
                }
            }
        }
    }
    let bd = decode(b_desc);
    let major = if x.trans_b { Major::Mn } else { Major::K };
    smem_operand(
        c,
        (&bd, major, m.b),
        (0, n, k),
        &mut runs,
        &mut |col, kk, v| t.b.set(kk, col, v),
    )?;
    if let Some(runs) = runs {
        c.after_wgmma_issued(&runs);
    }
    if x.neg_a {
        t.a.map_in_place(|v| v ^ sign_bit(m.a));
    }
    if x.neg_b {
        t.b.map_in_place(|v| v ^ sign_bit(m.b));
    }
    let slots: Vec<u32> =
        x.c.iter()
            .map(|s| match s {
                Src::Reg(slot) => Ok(*slot),
                _ => Err(LaneFault::new(FaultKind::Unsupported {
                    what: "a wgmma accumulator that is not a register".into(),
                })),
            })
            .collect::<Result<_, _>>()?;
    let rc = accumulators(c, &slots);
    let per_lane = n / 2;
    // Element by element, lanes innermost: a register's 32 lanes are contiguous.
    let packing = Packing::of(m.d);
    let at = DPositions::new(n);
    if scale_d {
        let c_tile = t.c.elements_mut();
        for e in 0..per_lane {
            let at_e = at.elem(e);
            for (l, lane_at) in (0..32).zip(at.lanes) {
                c_tile[lane_at + at_e] = packing.get(&rc, l, e);
            }
        }
    }
    let d = multiply(&mma, &t, x.sm);
    let d_tile = d.elements();
    let mut out = vec![[0u64; 32]; x.d.len()];
    for e in 0..per_lane {
        let at_e = at.elem(e);
        for (l, lane_at) in (0..32).zip(at.lanes) {
            packing.put(&mut out, l, e, d_tile[lane_at + at_e]);
        }
    }
    let regs = slots
        .iter()
        .zip(&x.d)
        .zip(out)
        .map(|((slot, dst), v)| (*slot, *dst, v, c.fetch(&Src::Reg(*slot))))
        .collect();
    let pc = c.pc;
    c.wgmma.push_open(c.ids.warp, Pending { pc, regs });
    Ok(Flow::Next)
}

/// `wgmma.fence`: orders register accesses before later `wgmma.mma_async`s. Products read
/// their registers when issued, so it only records that the warp has fenced: a warp's first
/// `wgmma.mma_async` without a fence before it is a fault.
pub fn fence(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    if let Some(flow) = collective(c, "wgmma.fence.sync.aligned")? {
        return Ok(flow);
    }
    c.wgmma.warps.entry(c.ids.warp).or_default().fenced = true;
    Ok(Flow::Next)
}

/// `wgmma.commit_group`: closes the warp's open group (possibly empty).
pub fn commit_group(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    if let Some(flow) = collective(c, "wgmma.commit_group.sync.aligned")? {
        return Ok(flow);
    }
    let wg = c.wgmma.warps.entry(c.ids.warp).or_default();
    let open = std::mem::take(&mut wg.open);
    wg.committed.push_back(open);
    c.after_wgmma_commit();
    Ok(Flow::Next)
}

/// `wgmma.wait_group N`: retires all but the `N` most recent committed groups, writing their
/// products to D.
pub fn wait_group(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = decoded(i)?;
    if let Some(flow) = collective(c, "wgmma.wait_group.sync.aligned")? {
        return Ok(flow);
    }
    retire_all_but(c, x.wait as usize)?;
    c.after_wgmma_wait(x.wait as usize);
    Ok(Flow::Next)
}

/// Retires the executing warp's committed groups but the `keep` most recent.
pub(crate) fn retire_all_but(c: &mut Ctx<'_>, keep: usize) -> Result<(), LaneFault> {
    while let Some(mut group) = c.wgmma.take_oldest_beyond(c.ids.warp, keep) {
        for k in 0..group.len() {
            let (done, rest) = group.split_at_mut(k + 1);
            retire(c, &done[k], rest)?;
        }
    }
    c.wgmma.refresh_busy();
    Ok(())
}

/// Writes one product to its registers, after checking that nothing else wrote them since it
/// was issued.
fn retire(c: &mut Ctx<'_>, p: &Pending, same_group: &mut [Pending]) -> Result<(), LaneFault> {
    for (slot, dst, val, seen) in &p.regs {
        let now = c.fetch(&Src::Reg(*slot));
        if now != *seen {
            let changed = (0..32)
                .filter(|&l| now[l] != seen[l])
                .fold(0u32, |m, l| m | (1 << l));
            return Err(LaneFault {
                kind: FaultKind::Undefined {
                    detail: format!(
                        "an accumulator register of the wgmma.mma_async at line {} was written (lanes {}) before wgmma.wait_group retired it; its value is undefined until then",
                        line_of(c, p.pc),
                        lane_ranges(changed)
                    ),
                },
                lane: Some(changed.trailing_zeros()),
                address: None,
            });
        }
        c.write(dst, val);
    }
    // The next product into each of these registers saw the old value; it now sees this
    // one. Products retire in issue order, so a later one is brought up to date when the
    // product before it into the same register retires.
    let mut written = slot_table(p.regs.iter().map(|r| r.0));
    let mut values = Vec::with_capacity(p.regs.len());
    for r in &p.regs {
        written[r.0 as usize] = Some(values.len() as u32);
        values.push(c.fetch(&Src::Reg(r.0)));
    }
    let mut unclaimed = values.len();
    let mut seen_here = Vec::new();
    if let Some(wg) = c.wgmma.warps.get_mut(&c.ids.warp) {
        let later = same_group
            .iter_mut()
            .chain(wg.committed.iter_mut().flat_map(|g| g.iter_mut()))
            .chain(wg.open.iter_mut());
        for q in later {
            if unclaimed == 0 {
                break;
            }
            for r in &mut q.regs {
                if let Some(Some(k)) = written.get(r.0 as usize) {
                    r.3 = values[*k as usize];
                    seen_here.push(r.0);
                }
            }
            // A register this product writes is no longer the next product's to update
            // (after the whole product: it may name a register twice).
            for slot in seen_here.drain(..) {
                if written[slot as usize].take().is_some() {
                    unclaimed -= 1;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{d_elem, DPositions};

    #[test]
    fn d_positions_are_d_elem_in_a_row_major_tile() {
        for n in (8..=256).step_by(8) {
            let at = DPositions::new(n);
            for lane in 0..32 {
                for i in 0..n / 2 {
                    let (row, col) = d_elem(lane, i);
                    assert_eq!(
                        at.lanes[lane as usize] + at.elem(i),
                        (row * n + col) as usize,
                        "n {n}, lane {lane}, element {i}"
                    );
                }
            }
        }
    }
}
