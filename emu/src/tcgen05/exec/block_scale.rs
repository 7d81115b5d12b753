//! The block-scaled kinds of `tcgen05.mma` (`.kind::mxf8f6f4`, `::mxf4`, `::mxf4nvf4` with
//! `.block_scale`, PTX ISA "tcgen05.mma" and "Block Scaling"): D = C + Σ_k (a·sa)(b·sb).
//!
//! A and B are read as by the other kinds ([`crate::tcgen05::exec::mma`]): the mxf8f6f4 elements in
//! 8-bit containers (e2m3/e3m2 in bits 5–0, e2m1 in bits 5–2), the mxf4/mxf4nvf4 e2m1
//! elements packed two to a byte (element `2i` in the low nibble), K = 64. The scale factors
//! of row `m` of A and column `n` of B are read from Tensor Memory at `[scale-A-tmem]` and
//! `[scale-B-tmem]` by [`crate::semantics::block_scale::sf_cell`], from the copy in the
//! sub-partition of the D row being computed, in the format the instruction descriptor's bit
//! 23 names (ue8m0, or ue4m3 for mxf4nvf4). Accumulation: blocks of 32 products (the fp8
//! model of [`AccModel::for_target`]) but with f32's 23 fraction bits, not the 13 measured for
//! Hopper's fp8 `wgmma`: scaled products span a far wider range, and no Blackwell measurement
//! says otherwise (not compared with hardware; the Triton `dot_scaled` fixtures' exact
//! references pass only with it).
//!
//! Not modelled: K = 96 (sm_103's `.block16`/`.block32` variant).

use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::ir::ScaleVec as IrVec;
use crate::semantics::block_scale::{factors, scaled_dot, ScaleVec};
use crate::semantics::mma::{AccModel, MmaInput};
use crate::semantics::narrow_float::{ElemFormat, ScaleFormat};
use crate::semantics::tcgen05_desc::{decode_smem, Major};
use crate::semantics::tcgen05_idesc::{ElemType, InstrDesc, ScaleType};
use crate::semantics::tile::Tiles;
use crate::tcgen05::exec::mma::{smem_elem, tmem_a_elem, Issue};

fn undefined(lane: usize, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address: None,
    }
}

/// The exact value of an element of type `t` as stored (`bits` wide), negated if asked.
fn value(t: ElemType, bits: u32, raw: u64, negate: bool) -> f64 {
    let v = match t {
        ElemType::E4m3 => ElemFormat::E4M3.decode(raw as u32),
        ElemType::E5m2 => ElemFormat::E5M2.decode(raw as u32),
        ElemType::E2m3 => ElemFormat::E2M3.decode(raw as u32),
        ElemType::E3m2 => ElemFormat::E3M2.decode(raw as u32),
        // Packed (4 bits) or in bits 5-2 of an 8-bit container.
        ElemType::E2m1 if bits == 4 => ElemFormat::E2M1.decode(raw as u32),
        ElemType::E2m1 => ElemFormat::E2M1.decode((raw >> 2) as u32),
        _ => f64::NAN,
    };
    if negate {
        -v
    } else {
        v
    }
}

/// A and B of one issue, decoded: `a[r][k]`, `b[n][k]`.
pub(crate) type Operands = (Vec<Vec<f64>>, Vec<Vec<f64>>);

fn decode(
    s: &Issue,
    v: u64,
    which: &str,
) -> Result<crate::semantics::tcgen05_desc::SmemDesc, LaneFault> {
    decode_smem(v).map_err(|e| {
        undefined(
            s.lane,
            format!("rule tcgen05-mma-descriptor: the {which} descriptor 0x{v:016x}: {e}"),
        )
    })
}

/// A (`id.m` rows) of one issue, decoded, from the context's CTA.
pub(crate) fn operand_a_f64(
    c: &mut Ctx<'_>,
    s: &Issue,
    id: &InstrDesc,
) -> Result<Vec<Vec<f64>>, LaneFault> {
    let k = id.kind.k();
    let abits = id.a.storage_bits(id.kind);
    let mut a = vec![vec![0.0; k as usize]; id.m as usize];
    match s.a_tmem {
        Some(taddr) => {
            for (r, row) in a.iter_mut().enumerate() {
                for (kk, x) in row.iter_mut().enumerate() {
                    let v = tmem_a_elem(c, s, id, taddr, abits, (r as u32, kk as u32))?;
                    *x = value(id.a, abits, v, id.negate_a);
                }
            }
        }
        None => {
            let d = decode(s, s.a_desc, "A")?;
            let major = if id.transpose_a { Major::Mn } else { Major::K };
            for (r, row) in a.iter_mut().enumerate() {
                for (kk, x) in row.iter_mut().enumerate() {
                    let at = (r as u32, kk as u32);
                    let v = smem_elem(c, s, &d, "A", (major, abits), at)?;
                    *x = value(id.a, abits, v, id.negate_a);
                }
            }
        }
    }
    Ok(a)
}

/// B (`id.n` columns) of one issue, decoded, from the context's CTA's shared memory.
pub(crate) fn operand_b_f64(
    c: &mut Ctx<'_>,
    s: &Issue,
    id: &InstrDesc,
) -> Result<Vec<Vec<f64>>, LaneFault> {
    let k = id.kind.k();
    let bbits = id.b.storage_bits(id.kind);
    let d = decode(s, s.b_desc, "B")?;
    let major = if id.transpose_b { Major::Mn } else { Major::K };
    let mut b = vec![vec![0.0; k as usize]; id.n as usize];
    for (n, col) in b.iter_mut().enumerate() {
        for (kk, x) in col.iter_mut().enumerate() {
            let v = smem_elem(c, s, &d, "B", (major, bbits), (n as u32, kk as u32))?;
            *x = value(id.b, bbits, v, id.negate_b);
        }
    }
    Ok(b)
}

/// The factors of row (column) `mn` read from the copy in sub-partition `part` at `taddr`.
fn read_factors(
    c: &mut Ctx<'_>,
    s: &Issue,
    taddr: u32,
    which: &str,
    (mn, vec, fmt, sf_id, part): (u32, ScaleVec, ScaleFormat, u32, u32),
) -> Result<Vec<f64>, LaneFault> {
    let tm = crate::tcgen05::exec::tmem(c);
    let mut err = None;
    let mut read = Vec::new();
    let f = factors(
        |lane, col| {
            let (l, cc) = ((taddr >> 16) + lane, (taddr & 0xFFFF) + col);
            match tm.check_cell(l, cc) {
                Ok(at) => {
                    read.push(at);
                    tm.read(at)
                }
                Err(e) => {
                    err.get_or_insert(format!(
                        "tcgen05.mma reads the scale factors of {which} from Tensor Memory cell (lane {l}, column {cc}): {e:?}"
                    ));
                    0
                }
            }
        },
        mn,
        vec,
        fmt,
        sf_id,
        part,
    );
    match err {
        Some(e) => Err(undefined(s.lane, e)),
        None => {
            let operand = format!("the scale factors of {which}");
            crate::tcgen05::exec::commit::check_mma_read(c, s.lane, &read, &operand)?;
            Ok(f)
        }
    }
}

/// D of a block-scaled issue (`rows × cols` f32 bits, row-major), given C in `t.c`, the scale
/// factor addresses `sf = (A, B)`, the lane of each D row, and the decoded operands (`None`:
/// A and B of the context's CTA, as the issue's descriptors give them).
#[allow(clippy::too_many_arguments)]
pub(crate) fn compute(
    c: &mut Ctx<'_>,
    s: &Issue,
    id: &InstrDesc,
    vec: Option<IrVec>,
    (sf, sm): ((u32, u32), u32),
    t: &Tiles,
    row_lane: &dyn Fn(u32) -> u32,
    ops: Option<Operands>,
) -> Result<Vec<u32>, LaneFault> {
    let Some(bf) = id.block else {
        return Err(undefined(s.lane, "a block-scaled tcgen05.mma without the block-scaling fields of its instruction descriptor".into()));
    };
    let vec = match vec {
        Some(IrVec::X1) => ScaleVec::X1,
        Some(IrVec::X2) => ScaleVec::X2,
        Some(IrVec::X4) => ScaleVec::X4,
        None => return Err(undefined(s.lane, "tcgen05.mma without .block_scale".into())),
    };
    let fmt = match bf.scale {
        ScaleType::Ue8m0 => ScaleFormat::UE8M0,
        ScaleType::Ue4m3 => ScaleFormat::UE4M3,
    };
    let (ida, idb) = (u32::from(bf.a_sf_id), u32::from(bf.b_sf_id));
    for (name, v) in [("SFA", ida), ("SFB", idb)] {
        if !vec.sf_id_ok(v) {
            return Err(undefined(
                s.lane,
                format!("rule tcgen05-mma-idesc: the {name} id {v} is not allowed with .{} (1X: 0-3, 2X: 0 or 2, 4X: 0)", match vec { ScaleVec::X1 => "scale_vec::1X", ScaleVec::X2 => "scale_vec::2X", ScaleVec::X4 => "scale_vec::4X" }),
            ));
        }
    }
    let (a, b) = match ops {
        Some(o) => o,
        None => (operand_a_f64(c, s, id)?, operand_b_f64(c, s, id)?),
    };
    let model = AccModel {
        frac_bits: 23,
        ..AccModel::for_target(sm, MmaInput::Fp8)
    };
    let block = vec.block() as usize;
    // Factors of B per sub-partition, read lazily.
    let mut sfb: [Option<Vec<Vec<f64>>>; 4] = Default::default();
    let mut out = Vec::with_capacity((id.m * id.n) as usize);
    for (r, arow) in a.iter().enumerate() {
        let part = (row_lane(r as u32) / 32) % 4;
        let sa = read_factors(c, s, sf.0, "A", (r as u32, vec, fmt, ida, part))?;
        if sfb[part as usize].is_none() {
            let mut all = Vec::with_capacity(b.len());
            for n in 0..b.len() as u32 {
                all.push(read_factors(c, s, sf.1, "B", (n, vec, fmt, idb, part))?);
            }
            sfb[part as usize] = Some(all);
        }
        let sbs = sfb[part as usize].as_ref().map_or(&[][..], |v| &v[..]);
        for (n, bcol) in b.iter().enumerate() {
            let cv = f32::from_bits(t.c.get(r as u32, n as u32) as u32);
            let d = scaled_dot(&model, arow, bcol, &sa, &sbs[n], block, cv);
            out.push(d.to_bits());
        }
    }
    Ok(out)
}
