//! Executing the bulk copies, tensor copies and tensor-map instructions (PTX ISA
//! "cp.async.bulk", "cp.reduce.async.bulk", "cp.async.bulk.tensor", "tensormap.replace",
//! "tensormap.cp_fenceproxy").
//!
//! A copy performs all its reads and writes when it is issued (a legal completion order)
//! and then completes its bytes on the mbarrier (`complete_tx`), or joins the thread's bulk
//! async-group. Missing waits are not hidden by this: the proxy checker, through the hooks of
//! asynchronous operations ([`crate::exec::hooks::asyncs`]), reports generic accesses of bytes whose async completion no thread
//! has observed, generic writes of a store's source before `wait_group.read`, and async reads
//! of generic writes with no `fence.proxy.async` between.
//!
//! Tensor maps are read from global, parameter or constant memory in ptxemu's encoding
//! (`crate::semantics::tma`, docs/tensor-map.md); interleaved maps place each box row in one
//! 16/32-byte slice (`crate::semantics::tma_rules`). Deliberate deviations: the 128B swizzle
//! with 8-byte flip and the packed 4/6-bit element types are refused; prefetches have no
//! effect. `.cta_group::2` loads complete on the mbarrier of the destination CTA's pair that
//! the mbarrier address names ([`crate::tma::pair`]).

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Window};
use crate::exec::program::{AddrSpace, DAddr, DInstr, Extra, Flow, Src};
use crate::ir::tma::{BulkReduce, TensorDir, Tma};
use crate::ir::CtaGroup;
use crate::ir::Type;
use crate::semantics::tma::{
    im2col_elements, red_kind, reduce, swizzle, RedKind, Swizzle, TensorMap, TMAP_BYTES,
};
use crate::tma::accesses;
use crate::tma::decoded::TmaInstr;

type R = Result<Flow, LaneFault>;

pub(crate) fn tma_of(i: &DInstr) -> Result<&TmaInstr, LaneFault> {
    match &i.extra {
        Extra::Tma(t) => Ok(t),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "a bulk-copy instruction without its operands".into(),
        })),
    }
}

pub(crate) fn fault(lane: usize, addr: u64, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

pub(crate) fn lanes(c: &Ctx<'_>) -> Vec<usize> {
    let mut v = Vec::new();
    crate::exec::ctx::for_lanes(c.mask, |l| v.push(l));
    v
}

fn thread(c: &Ctx<'_>, lane: usize) -> u32 {
    c.ids.warp * 32 + lane as u32
}

/// Where an address points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Global(u64),
    Shared(u64),
    Param(u64),
    Const(u64),
}

pub(crate) fn place(c: &Ctx<'_>, a: &DAddr, lane: usize) -> Result<(u64, Place), LaneFault> {
    let addr = crate::exec::address::lane_addr(c, a, lane);
    let p = match a.space {
        AddrSpace::Global => Place::Global(addr),
        AddrSpace::Shared => Place::Shared(c.own_shared(crate::exec::address::shared_wrap(addr))),
        AddrSpace::KernelParam => Place::Param(addr),
        AddrSpace::Const => Place::Const(addr),
        AddrSpace::Generic => match window_of(addr) {
            Window::Global(g) => Place::Global(g),
            Window::Shared(o) => Place::Shared(c.own_shared(o)),
            Window::Param(o) => Place::Param(o),
            Window::Const(o) => Place::Const(o),
            Window::Local(_) => {
                return Err(fault(lane, addr, format!("0x{addr:x} is a local address")))
            }
        },
        AddrSpace::Local => return Err(fault(lane, addr, "a local address".into())),
    };
    Ok((addr, p))
}

fn check_shared(c: &Ctx<'_>, lane: usize, addr: u64, off: u64, len: u64) -> Result<(), LaneFault> {
    if c.shared.contains(off, len) {
        Ok(())
    } else {
        Err(LaneFault {
            kind: FaultKind::OutOfBounds {
                space: "shared".into(),
                size: len as u32,
                detail: format!(
                    "offset {off} + {len} bytes is outside the CTA's {} bytes of shared memory",
                    c.shared.data.len()
                ),
            },
            lane: Some(lane as u32),
            address: Some(addr),
        })
    }
}

fn global<'g>(
    c: &Ctx<'g>,
    lane: usize,
    g: u64,
    len: u64,
) -> Result<&'g crate::exec::memory::Region, LaneFault> {
    c.global.find(g, len).ok_or_else(|| LaneFault {
        kind: FaultKind::OutOfBounds {
            space: "global".into(),
            size: len.min(u64::from(u32::MAX)) as u32,
            detail: c.global.explain_miss(g, len),
        },
        lane: Some(lane as u32),
        address: Some(g),
    })
}

/// The parts of a run of `len` bytes from the unswizzled shared offset `start` that the
/// swizzle `sw` keeps contiguous (its 16-byte units; the whole run without a swizzle), as
/// `(swizzled shared offset, offset in the run, bytes)`.
fn swizzled_pieces(start: u64, len: u64, sw: Swizzle) -> impl Iterator<Item = (u64, u64, u64)> {
    let mut k = 0;
    std::iter::from_fn(move || {
        if k >= len {
            return None;
        }
        let at = start + k;
        let n = match sw {
            Swizzle::None => len - k,
            _ => (16 - at % 16).min(len - k),
        };
        let piece = (swizzle(at, sw), k, n);
        k += n;
        Some(piece)
    })
}

/// Bytes of a tensor load bound for shared offset `shared`: `len` bytes from `at` of the
/// load's byte buffer.
struct LoadPiece {
    shared: usize,
    at: usize,
    len: usize,
}

/// The bytes a tensor load of `runs` (`e`-byte elements, `fill` for those outside the tensor)
/// writes to the box at shared offset `base` with swizzle `sw`: the pieces the swizzle keeps
/// contiguous ([`swizzled_pieces`]) and their bytes, read from global memory a piece at a
/// time.
///
/// # Errors
/// The first element, in box order, outside global memory.
fn load_pieces(
    c: &Ctx<'_>,
    lane: usize,
    runs: &[crate::semantics::tma::BoxRun],
    (base, sw): (u64, Swizzle),
    (e, fill): (usize, u64),
) -> Result<(Vec<LoadPiece>, Vec<u8>), LaneFault> {
    let total: u64 = runs.iter().map(|r| r.count * e as u64).sum();
    let mut bytes = vec![0u8; total as usize];
    let mut pieces = Vec::new();
    // Consecutive pieces are nearly always in one allocation: look it up again only when a
    // piece is not in the last one found.
    let mut last: Option<&crate::exec::memory::Region> = None;
    let fill = &fill.to_le_bytes()[..e];
    let mut at = 0;
    for run in runs {
        for (shared, k, n) in swizzled_pieces(base + run.smem, run.count * e as u64, sw) {
            let len = n as usize;
            let out = &mut bytes[at..at + len];
            pieces.push(LoadPiece {
                shared: shared as usize,
                at,
                len,
            });
            at += len;
            let Some(g) = run.global.map(|g| g + k) else {
                out.chunks_exact_mut(e)
                    .for_each(|b| b.copy_from_slice(fill));
                continue;
            };
            let r = match last {
                Some(r) if r.contains(g, n) => r,
                _ => match c.global.find(g, n) {
                    Some(r) => r,
                    // Not in one allocation: element by element, which finds the first one
                    // outside.
                    None => {
                        for (j, b) in out.chunks_exact_mut(e).enumerate() {
                            let g = g + (j * e) as u64;
                            let r = global(c, lane, g, e as u64)?;
                            r.read_bytes_into(g - r.base, b);
                        }
                        continue;
                    }
                },
            };
            last = Some(r);
            r.read_bytes_into(g - r.base, out);
        }
    }
    Ok((pieces, bytes))
}

/// Reads `n` bytes at a place (global, shared, parameter or constant memory).
pub(crate) fn read_bytes(
    c: &Ctx<'_>,
    lane: usize,
    addr: u64,
    p: Place,
    n: u64,
) -> Result<Vec<u8>, LaneFault> {
    match p {
        Place::Global(g) => {
            let r = global(c, lane, g, n)?;
            Ok((0..n).map(|k| r.load(g + k, 1) as u8).collect())
        }
        Place::Shared(o) => {
            check_shared(c, lane, addr, o, n)?;
            Ok(c.shared.data[o as usize..(o + n) as usize].to_vec())
        }
        Place::Param(o) | Place::Const(o) => {
            let b = if matches!(p, Place::Param(_)) {
                c.params
            } else {
                c.consts
            };
            if !b.contains(o, n) {
                return Err(fault(
                    lane,
                    addr,
                    format!("{n} bytes at 0x{addr:x} are outside the parameter/constant bank"),
                ));
            }
            Ok(b.data[o as usize..(o + n) as usize].to_vec())
        }
    }
}

pub(crate) fn write_global(
    c: &Ctx<'_>,
    lane: usize,
    g: u64,
    bytes: &[u8],
) -> Result<(), LaneFault> {
    let r = global(c, lane, g, bytes.len() as u64)?;
    for (k, b) in bytes.iter().enumerate() {
        r.store(g + k as u64, 1, u64::from(*b));
    }
    Ok(())
}

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |v, x| (v << 8) | u64::from(*x))
}

fn red_kind_of(ty: Type) -> RedKind {
    match ty {
        Type::S32 => RedKind::S(4),
        Type::S64 => RedKind::S(8),
        Type::U64 | Type::B64 => RedKind::U(8),
        Type::F16 => RedKind::F16,
        Type::BF16 => RedKind::Bf16,
        Type::F32 => RedKind::F32,
        Type::F64 => RedKind::F64,
        _ => RedKind::U(4),
    }
}

fn kind_bytes(k: RedKind) -> usize {
    match k {
        RedKind::U(b) | RedKind::S(b) => b as usize,
        RedKind::F16 | RedKind::Bf16 => 2,
        RedKind::F32 => 4,
        RedKind::F64 => 8,
    }
}

/// Completes `bytes` transactions on the mbarrier `mbar`; returns its shared offset and the
/// phase the bytes counted in.
fn complete(
    c: &mut Ctx<'_>,
    lane: usize,
    mbar: &DAddr,
    bytes: u64,
) -> Result<(u64, u32), LaneFault> {
    crate::async_copy::cp_async::complete_tx(c, mbar, lane, bytes)
}

/// `cp.async.bulk` and `cp.reduce.async.bulk` (non-tensor).
pub fn bulk(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = tma_of(i)?.clone();
    let (Some(dst), Some(src)) = (x.dst, x.src) else {
        return Ok(Flow::Next);
    };
    let sizes = c.fetch(&x.value);
    for l in lanes(c) {
        let n = sizes[l] & 0xffff_ffff;
        let (da, dp) = place(c, &dst, l)?;
        let (sa, sp) = place(c, &src, l)?;
        if n == 0 || !n.is_multiple_of(16) {
            return Err(fault(
                l,
                sa,
                format!("the bulk copy size {n} is not a non-zero multiple of 16"),
            ));
        }
        for (a, p) in [(da, dp), (sa, sp)] {
            let off = match p {
                Place::Global(g) => g,
                Place::Shared(o) | Place::Param(o) | Place::Const(o) => o,
            };
            if !off.is_multiple_of(16) {
                return Err(LaneFault {
                    kind: FaultKind::Misaligned { align: 16 },
                    lane: Some(l as u32),
                    address: Some(a),
                });
            }
        }
        if let Place::Shared(o) = sp {
            check_shared(c, l, sa, o, n)?;
            if let Some(f) = c.before_async_read(l, o, n, "this bulk copy") {
                return Err(f);
            }
        }
        let data = read_bytes(c, l, sa, sp, n)?;
        let mut out = data.clone();
        if let Tma::Reduce(BulkReduce { op, ty, .. }) = x.op {
            let kind = red_kind_of(ty);
            let w = kind_bytes(kind);
            let old = read_bytes(c, l, da, dp, n)?;
            for k in (0..n as usize).step_by(w) {
                let v = reduce(op, kind, le(&old[k..k + w]), le(&data[k..k + w]));
                out[k..k + w].copy_from_slice(&v.to_le_bytes()[..w]);
            }
        }
        if c.observes_async() {
            let red = matches!(x.op, Tma::Reduce(_));
            let mut acc: Vec<_> = accesses::side(sp, n, false, false).into_iter().collect();
            match dp {
                Place::Shared(o) => {
                    let mask = (x.mask != Src::None).then(|| c.fetch(&x.mask)[l]);
                    let (ranks, o) = crate::cluster::dsmem::targets(c, mask, o, l)?;
                    acc.extend(accesses::shared_dst(&ranks, o, n, red));
                }
                _ => acc.extend(accesses::side(dp, n, true, red)),
            }
            accesses::report(c, l, &acc, x.mbar.as_ref().filter(|_| !red));
        }
        match dp {
            Place::Shared(o) => {
                let mask = (x.mask != Src::None).then(|| c.fetch(&x.mask)[l]);
                let (ranks, o) = crate::cluster::dsmem::targets(c, mask, o, l)?;
                // A multicast completes at the same CTA-relative offset in each destination.
                let mbar = match (&x.mbar, mask) {
                    (Some(m), Some(_)) => Some(crate::cluster::dsmem::cta_relative(c, m, l)),
                    (m, _) => *m,
                };
                for r in ranks {
                    crate::cluster::dsmem::at_rank(c, r, l, |c| {
                        check_shared(c, l, da, o, n)?;
                        c.shared.data[o as usize..(o + n) as usize].copy_from_slice(&out);
                        if let Some(m) = &mbar {
                            let (moff, phase) = complete(c, l, m, n)?;
                            c.after_async_write(o, o + n, moff, phase);
                        }
                        Ok(())
                    })?;
                }
            }
            Place::Global(g) => write_global(c, l, g, &out)?,
            Place::Param(_) | Place::Const(_) => {
                return Err(fault(l, da, "a bulk copy into read-only memory".into()))
            }
        }
        if let (None, Place::Shared(o)) = (x.mbar, sp) {
            let t = thread(c, l);
            c.after_async_read(o, o + n, t);
        }
    }
    Ok(Flow::Next)
}

/// Reads and decodes the tensor map `x.tmap` names for `lane`.
fn tensor_map(c: &Ctx<'_>, x: &TmaInstr, lane: usize) -> Result<(u64, TensorMap), LaneFault> {
    let Some(a) = &x.tmap else {
        return Err(LaneFault::new(FaultKind::Unsupported {
            what: "a tensor copy without its tensor map".into(),
        }));
    };
    let (addr, p) = place(c, a, lane)?;
    if let Place::Shared(_) = p {
        return Err(fault(lane, addr, "the tensor map is in shared memory; copies read it from global, parameter or constant memory".into()));
    }
    if !addr.is_multiple_of(64) {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align: 64 },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    if let Place::Global(g) = p {
        if let Some(f) = c.before_tensormap_use(lane, g) {
            return Err(f);
        }
    }
    let b = read_bytes(c, lane, addr, p, TMAP_BYTES as u64)?;
    let mut arr = [0u8; TMAP_BYTES];
    arr.copy_from_slice(&b);
    Ok((addr, TensorMap::decode(&arr)))
}

/// `cp.async.bulk.tensor` (load, store) and `cp.reduce.async.bulk.tensor`.
pub fn tensor(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = tma_of(i)?.clone();
    let Tma::Tensor(tc) = x.op else {
        return Ok(Flow::Next);
    };
    let coords: Vec<[u64; 32]> = x.coords.iter().map(|s| c.fetch(s)).collect();
    let offs: Vec<[u64; 32]> = x.offsets.iter().map(|s| c.fetch(s)).collect();
    for l in lanes(c) {
        let (maddr, m) = tensor_map(c, &x, l)?;
        if let Some(why) = m.unusable() {
            return Err(fault(
                l,
                maddr,
                format!("the tensor map at 0x{maddr:x} cannot be used: {why}"),
            ));
        }
        if m.rank != u32::from(tc.dim) || m.im2col != tc.im2col {
            return Err(fault(
                l,
                maddr,
                format!(
                    "a .{}d{} copy uses a rank-{} {} tensor map",
                    tc.dim,
                    if tc.im2col { " .im2col" } else { "" },
                    m.rank,
                    if m.im2col { "im2col" } else { "tiled" }
                ),
            ));
        }
        let e = m.elem().map_or(1, |d| d.size()) as usize;
        let cs: Vec<i32> = coords.iter().map(|v| v[l] as i32).collect();
        let os: Vec<i32> = offs.iter().map(|v| v[l] as u16 as i16 as i32).collect();
        let runs = if m.im2col {
            crate::semantics::tma::runs_of(&im2col_elements(&m, &cs, &os), e as u64)
        } else {
            crate::semantics::tma::tile_runs(&m, &cs)
        };
        // The global address of every element inside the tensor, in box order.
        let globals = || {
            runs.iter()
                .filter_map(|r| r.global.map(|g| (g, r.count)))
                .flat_map(|(g, n)| (0..n).map(move |k| g + k * e as u64))
        };
        let sw = m.pattern().unwrap_or(Swizzle::None);
        let box_bytes = m.box_bytes();
        let shared_addr = if tc.dir == TensorDir::Load {
            x.dst
        } else {
            x.src
        };
        let Some(sa) = shared_addr else {
            return Ok(Flow::Next);
        };
        let (saddr, sp) = place(c, &sa, l)?;
        let Place::Shared(at) = sp else {
            return Err(fault(
                l,
                saddr,
                format!("0x{saddr:x} is not a shared-memory address"),
            ));
        };
        let mask = (x.mask != Src::None).then(|| c.fetch(&x.mask)[l]);
        let (ranks, base) = crate::cluster::dsmem::targets(c, mask, at, l)?;
        if !base.is_multiple_of(128) {
            return Err(LaneFault {
                kind: FaultKind::Misaligned { align: 128 },
                lane: Some(l as u32),
                address: Some(saddr),
            });
        }
        let span = box_bytes.div_ceil(128) * 128;
        let dtype = m.elem().unwrap_or(crate::semantics::tma::Dtype::U8);
        match tc.dir {
            TensorDir::Load => {
                let fill = if m.fill == 1 && dtype.is_float() {
                    dtype.nan()
                } else {
                    0
                };
                let (pieces, bytes) = load_pieces(c, l, &runs, (base, sw), (e, fill))?;
                // `.cta_group::2`: each destination's mbarrier is in its CTA pair, chosen by
                // the mbarrier address (tma_pair).
                let pair = match (tc.cta_group, &x.mbar) {
                    (Some(CtaGroup::Two), Some(mb)) => Some(crate::tma::pair::mbarrier(c, mb, l)?),
                    _ => None,
                };
                if c.observes_async() {
                    let mut acc = accesses::global_runs(globals(), e as u64, false, false);
                    acc.extend(accesses::shared_dst(&ranks, base, box_bytes, false));
                    let same_cta = pair.is_none_or(|p| ranks.iter().all(|&r| p.rank_for(r) == r));
                    accesses::report(c, l, &acc, x.mbar.as_ref().filter(|_| same_cta));
                }
                for r in ranks {
                    if let Some(p) = pair {
                        p.check(c, r, l)?;
                    }
                    crate::cluster::dsmem::at_rank(c, r, l, |c| {
                        check_shared(c, l, saddr, base, span)?;
                        for p in &pieces {
                            c.shared.data[p.shared..p.shared + p.len]
                                .copy_from_slice(&bytes[p.at..p.at + p.len]);
                        }
                        match (&x.mbar, pair) {
                            (Some(mb), None) => {
                                let rel;
                                let mb = if x.mask == Src::None {
                                    mb
                                } else {
                                    rel = crate::cluster::dsmem::cta_relative(c, mb, l);
                                    &rel
                                };
                                let (moff, phase) = complete(c, l, mb, box_bytes)?;
                                c.after_async_write(base, base + box_bytes, moff, phase);
                            }
                            (Some(_), Some(p)) if p.rank_for(r) == r => {
                                let (moff, phase) = complete(c, l, &p.addr(), box_bytes)?;
                                c.after_async_write(base, base + box_bytes, moff, phase);
                            }
                            _ => {}
                        }
                        Ok(())
                    })?;
                    if let Some(p) = pair.filter(|p| p.rank_for(r) != r) {
                        crate::cluster::dsmem::at_rank(c, p.rank_for(r), l, |c| {
                            complete(c, l, &p.addr(), box_bytes).map(|_| ())
                        })?;
                    }
                }
            }
            TensorDir::Store | TensorDir::Reduce(_) => {
                check_shared(c, l, saddr, base, span)?;
                if let Some(f) = c.before_async_read(l, base, box_bytes, "this tensor copy") {
                    return Err(f);
                }
                for run in &runs {
                    let Some(g0) = run.global else { continue };
                    for (o, k, n) in swizzled_pieces(base + run.smem, run.count * e as u64, sw) {
                        let (o, g, n) = (o as usize, g0 + k, n as usize);
                        let from = &c.shared.data[o..o + n];
                        // A plain store of a piece in one allocation copies its bytes; a
                        // reduction, or a piece across allocations, goes element by element
                        // (which faults at the first element outside global memory).
                        if tc.dir == TensorDir::Store {
                            if let Some(r) = c.global.find(g, n as u64) {
                                r.write_bytes(g - r.base, from);
                                continue;
                            }
                        }
                        for (j, b) in from.chunks_exact(e).enumerate() {
                            let g = g + (j * e) as u64;
                            let v = le(b);
                            let r = global(c, l, g, e as u64)?;
                            let nv = match tc.dir {
                                TensorDir::Reduce(op) => {
                                    reduce(op, red_kind(dtype), r.load(g, e as u32), v)
                                }
                                _ => v,
                            };
                            r.store(g, e as u32, nv);
                        }
                    }
                }
                if c.observes_async() {
                    let red = matches!(tc.dir, TensorDir::Reduce(_));
                    let mut acc = accesses::global_runs(globals(), e as u64, true, red);
                    acc.extend(accesses::side(Place::Shared(base), box_bytes, false, false));
                    accesses::fingerprint_writes(c, &mut acc);
                    accesses::report(c, l, &acc, None);
                }
                let t = thread(c, l);
                c.after_async_read(base, base + box_bytes, t);
            }
        }
    }
    Ok(Flow::Next)
}

/// `cp.async.bulk.prefetch(.tensor)`: no effect (the tensor map is still read and checked).
pub fn prefetch(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = tma_of(i)?.clone();
    if x.tmap.is_some() {
        for l in lanes(c) {
            let (a, m) = tensor_map(c, &x, l)?;
            if let Some(why) = m.unusable() {
                return Err(fault(
                    l,
                    a,
                    format!("the tensor map at 0x{a:x} cannot be used: {why}"),
                ));
            }
        }
    }
    Ok(Flow::Next)
}

/// `cp.async.bulk.commit_group`.
pub fn commit_group(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    for l in lanes(c) {
        c.after_bulk_commit(l);
    }
    Ok(Flow::Next)
}

/// `cp.async.bulk.wait_group{.read} N`.
pub fn wait_group(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = tma_of(i)?;
    let n = c.fetch(&x.value)[0] as usize;
    for l in lanes(c) {
        c.after_bulk_wait(l, n);
    }
    Ok(Flow::Next)
}
