//! Executing `tensormap.replace`, `tensormap.cp_fenceproxy` and the proxy fences
//! (`fence.proxy.async`, `fence.proxy.tensormap::generic.acquire`) the proxy checker follows.

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Extra, Flow};
use crate::ir::tma::{Tma, TmapField};
use crate::semantics::tma::{TensorMap, TMAP_BYTES};
use crate::tma::copy::{fault, lanes, place, read_bytes, tma_of, write_global, Place};

type R = Result<Flow, LaneFault>;

fn set_field(m: &mut TensorMap, f: TmapField, ord: usize, v: u64) -> Result<(), String> {
    let small = |v: u64, max: u64, what: &str| {
        if v <= max {
            Ok(v as u32)
        } else {
            Err(format!("{what} {v} is more than {max}"))
        }
    };
    match f {
        TmapField::GlobalAddress => {
            if !v.is_multiple_of(16) {
                return Err(format!("the global address 0x{v:x} is not 16-byte aligned"));
            }
            m.addr = v;
        }
        TmapField::Rank => m.rank = small(v, 4, "the rank value (rank - 1)")? + 1,
        TmapField::BoxDim => m.boxes[ord] = small(v.max(1), 256, "the box dimension")?,
        TmapField::GlobalDim => {
            m.dims[ord] = small(v, u64::from(u32::MAX), "the global dimension")?
        }
        TmapField::GlobalStride => {
            if ord >= 4 || !v.is_multiple_of(16) {
                return Err(format!(
                    "global stride {ord} = {v}: the ordinal is 0-3 and the stride a multiple of 16"
                ));
            }
            m.strides[ord + 1] = v;
        }
        TmapField::ElementStride => m.estrides[ord] = small(v.max(1), 8, "the element stride")?,
        TmapField::Elemtype => m.dtype = small(v, 15, "the element type")?,
        TmapField::InterleaveLayout => m.interleave = small(v, 2, "the interleave layout")?,
        TmapField::SwizzleMode => m.swizzle = small(v, 4, "the swizzle mode")?,
        TmapField::SwizzleAtomicity => m.atomicity = small(v, 3, "the swizzle atomicity")?,
        TmapField::FillMode => m.fill = small(v, 1, "the fill mode")?,
    }
    Ok(())
}

/// `tensormap.replace.tile.field{.space}.b1024.type [addr]{, ord}, value`.
pub fn replace(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = tma_of(i)?.clone();
    let Tma::Replace { field, .. } = x.op else {
        return Ok(Flow::Next);
    };
    let Some(a) = x.tmap else {
        return Ok(Flow::Next);
    };
    let vals = c.fetch(&x.value);
    for l in lanes(c) {
        let (addr, p) = place(c, &a, l)?;
        if !addr.is_multiple_of(64) {
            return Err(LaneFault {
                kind: FaultKind::Misaligned { align: 64 },
                lane: Some(l as u32),
                address: Some(addr),
            });
        }
        let b = read_bytes(c, l, addr, p, TMAP_BYTES as u64)?;
        let mut arr = [0u8; TMAP_BYTES];
        arr.copy_from_slice(&b);
        let mut m = TensorMap::decode(&arr);
        set_field(&mut m, field, x.ordinal as usize, vals[l])
            .map_err(|e| fault(l, addr, format!("tensormap.replace .{}: {e}", field.name())))?;
        let out = m.encode();
        match p {
            Place::Shared(o) => {
                c.shared.data[o as usize..o as usize + TMAP_BYTES].copy_from_slice(&out)
            }
            Place::Global(g) => {
                write_global(c, l, g, &out)?;
                c.after_tensormap_write(g);
            }
            Place::Param(_) | Place::Const(_) => {
                return Err(fault(
                    l,
                    addr,
                    "tensormap.replace of read-only memory".into(),
                ))
            }
        }
    }
    Ok(Flow::Next)
}

/// `tensormap.cp_fenceproxy...`: copies the 128-byte map from shared to global memory with a
/// release proxy fence (the user still acquires with `fence.proxy.tensormap::generic`).
pub fn cp_fenceproxy(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = tma_of(i)?.clone();
    let (Some(d), Some(s)) = (x.dst, x.src) else {
        return Ok(Flow::Next);
    };
    for l in lanes(c) {
        let (sa, sp) = place(c, &s, l)?;
        let (da, dp) = place(c, &d, l)?;
        let Place::Global(g) = dp else {
            return Err(fault(
                l,
                da,
                "tensormap.cp_fenceproxy writes global memory".into(),
            ));
        };
        if !g.is_multiple_of(128) {
            return Err(LaneFault {
                kind: FaultKind::Misaligned { align: 128 },
                lane: Some(l as u32),
                address: Some(da),
            });
        }
        let b = read_bytes(c, l, sa, sp, TMAP_BYTES as u64)?;
        write_global(c, l, g, &b)?;
        c.after_tensormap_write(g);
    }
    Ok(Flow::Next)
}

/// `fence.proxy.async{.space}`: ends the generic-proxy marks of shared memory.
pub fn fence_proxy_async(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let covers_shared = tma_of(i)?.ordinal & 1 != 0;
    if covers_shared {
        c.after_proxy_fence();
    }
    crate::exec::step::fence::fence(c, i)
}

/// `fence.proxy.tensormap::generic.acquire.scope {[addr], size}`.
pub fn fence_proxy_tensormap(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let x = tma_of(i)?.clone();
    match x.tmap {
        Some(a) => {
            for l in lanes(c) {
                let (_, p) = place(c, &a, l)?;
                if let Place::Global(g) = p {
                    c.after_tensormap_acquire(Some(g));
                }
            }
        }
        None => c.after_tensormap_acquire(None),
    }
    crate::exec::step::fence::fence(c, i)
}

/// Whether a program has instructions that access memory through the async or tensormap
/// proxies (then the proxy checker watches shared-memory accesses).
pub fn uses_async_proxy(p: &crate::exec::program::Program) -> bool {
    p.code.iter().any(|d| match &d.extra {
        // Proxy fences carry `CommitGroup` as their placeholder operation.
        Extra::Tma(t) => !matches!(
            t.op,
            Tma::CommitGroup | Tma::WaitGroup { .. } | Tma::Prefetch { .. }
        ),
        // wgmma reads its shared-memory operands through the async proxy.
        Extra::Wgmma(_) => true,
        // So does tcgen05.mma.
        Extra::Tc5Mma(m) => matches!(m.op, crate::ir::Tcgen05::Mma(_)),
        // So does tcgen05.cp its source.
        Extra::Tmem(m) => matches!(m.op, crate::ir::Tcgen05::Cp(_)),
        _ => false,
    })
}
