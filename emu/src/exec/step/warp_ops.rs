//! Warp-level collectives: `shfl`, `vote`, `match`, `redux`, `activemask`, `elect`
//! (PTX ISA "Parallel Synchronization and Communication Instructions").
//!
//! A `.sync` collective names the lanes that take part (`membermask`). If some of them are
//! not executing it right now (the warp diverged), the executing lanes wait
//! ([`Flow::WaitCollective`]) until the others arrive at the same instruction; the scheduler
//! merges them and the instruction runs again with all members.
//!
//! Deliberate deviations:
//! 1. A shuffle that reads an inactive or non-member lane returns that lane's register value
//!    (the PTX ISA leaves the result undefined).

use crate::exec::ctx::{for_lanes, Ctx};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::program::{DInstr, Extra, Flow, Src};
use crate::ir::{ReduxOp, ShflMode, VoteMode};

type R = Result<Flow, LaneFault>;

/// Each lane's member mask (`Src::None`: the lanes executing, as for legacy forms). The lanes
/// of one warp may name different, disjoint groups in the same instruction (cooperative groups'
/// labeled and tiled partitions do): each group is then a collective of its own.
fn members(c: &Ctx<'_>, s: &Src) -> [u32; 32] {
    match s {
        Src::None => [c.mask; 32],
        s => {
            let v = c.fetch(s);
            std::array::from_fn(|l| v[l] as u32)
        }
    }
}

/// Whether the executing lanes must wait for other members: some executing lane names a lane
/// that is not executing. Members that do not exist are not waited for: a full mask in the
/// partial last warp of a CTA of 120 threads, as cooperative groups' `tiled_partition<32>`
/// writes it, names lanes 24-31, which never run (the hardware runs it). Members that exited
/// are still waited for, so naming them is reported as a divergent collective.
fn must_wait(c: &Ctx<'_>, m: &[u32; 32]) -> bool {
    let mut named = 0u32;
    for_lanes(c.mask, |l| named |= m[l]);
    named & c.valid & !c.mask != 0
}

/// The fault of the first executing lane that its own member mask leaves out (the PTX ISA
/// leaves the result undefined; the hardware may hang or return garbage).
fn outside_own_mask(c: &Ctx<'_>, m: &[u32; 32], what: &str) -> Option<LaneFault> {
    let mut first = None;
    for_lanes(c.mask, |l| {
        if first.is_none() && m[l] & (1 << l) == 0 {
            first = Some(l);
        }
    });
    first.map(|l| LaneFault {
        kind: FaultKind::Undefined {
            detail: format!(
                "{what} executed by lane {l}, which its member mask 0x{:08x} leaves out",
                m[l]
            ),
        },
        lane: Some(l as u32),
        address: None,
    })
}

fn shfl_mode(i: &DInstr) -> ShflMode {
    match i.extra {
        Extra::Param(0) => ShflMode::Up,
        Extra::Param(1) => ShflMode::Down,
        Extra::Param(2) => ShflMode::Bfly,
        _ => ShflMode::Idx,
    }
}

/// The `Extra::Param` code of a shuffle mode.
pub fn shfl_code(m: ShflMode) -> u64 {
    match m {
        ShflMode::Up => 0,
        ShflMode::Down => 1,
        ShflMode::Bfly => 2,
        ShflMode::Idx => 3,
    }
}

/// `shfl{.sync}.mode.b32 d[|p], a, b, c{, membermask}`: `s = [a, b, c, membermask]`,
/// `d = [d, p]`.
pub fn shfl(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = members(c, &i.s[3]);
    if let Some(f) = outside_own_mask(c, &m, "shfl.sync") {
        return Err(f);
    }
    if must_wait(c, &m) {
        return Ok(Flow::WaitCollective);
    }
    let mode = shfl_mode(i);
    let a = c.fetch(&i.s[0]);
    let b = c.fetch(&i.s[1]);
    let cc = c.fetch(&i.s[2]);
    let mut out = [0u64; 32];
    let mut pmask = 0u32;
    for_lanes(c.mask, |l| {
        let lane = l as i64;
        let bv = (b[l] & 0x1f) as i64;
        let clamp = (cc[l] & 0x1f) as i64;
        let seg = ((cc[l] >> 8) & 0x1f) as i64;
        let max_lane = (lane & seg) | (clamp & !seg);
        let min_lane = lane & seg;
        let (j, ok) = match mode {
            ShflMode::Up => {
                let j = lane - bv;
                (j, j >= max_lane)
            }
            ShflMode::Down => {
                let j = lane + bv;
                (j, j <= max_lane)
            }
            ShflMode::Bfly => {
                let j = lane ^ bv;
                (j, j <= max_lane)
            }
            ShflMode::Idx => {
                let j = min_lane | (bv & !seg);
                (j, j <= max_lane)
            }
        };
        let src = if ok { j as usize & 31 } else { l };
        out[l] = a[src] & 0xffff_ffff;
        if ok {
            pmask |= 1 << l;
        }
    });
    c.write(&i.d[0], &out);
    c.write_mask(&i.d[1], pmask);
    Ok(Flow::Next)
}

/// The `Extra::Param` code of a vote mode.
pub fn vote_code(m: VoteMode) -> u64 {
    match m {
        VoteMode::All => 0,
        VoteMode::Any => 1,
        VoteMode::Uni => 2,
        VoteMode::Ballot => 3,
    }
}

/// `vote{.sync}.mode d, {!}a{, membermask}`: `s = [a, membermask]`. Each lane votes with the
/// lanes of its own member mask.
pub fn vote(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = members(c, &i.s[1]);
    if must_wait(c, &m) {
        return Ok(Flow::WaitCollective);
    }
    let p = c.fetch_mask(&i.s[0]) & c.mask;
    match i.extra {
        Extra::Param(3) => {
            let out: [u64; 32] = std::array::from_fn(|l| u64::from(p & m[l] & c.mask));
            c.write(&i.d[0], &out);
        }
        Extra::Param(code) => {
            let mut r = 0u32;
            for_lanes(c.mask, |l| {
                let part = m[l] & c.mask;
                let q = p & part;
                let yes = match code {
                    0 => q == part,
                    1 => q != 0,
                    _ => q == part || q == 0,
                };
                r |= u32::from(yes) << l;
            });
            c.write_mask(&i.d[0], r);
        }
        _ => {}
    }
    Ok(Flow::Next)
}

/// `activemask.b32 d`.
pub fn activemask(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let out = [u64::from(c.mask); 32];
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `match.any.sync` (`Param(0)`) / `match.all.sync` (`Param(1)`): `s = [a, membermask]`,
/// `d = [d, p]`. Each lane compares with the lanes of its own member mask.
pub fn match_sync(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = members(c, &i.s[1]);
    if must_wait(c, &m) {
        return Ok(Flow::WaitCollective);
    }
    let a = c.fetch(&i.s[0]);
    let all = matches!(i.extra, Extra::Param(1));
    let mut out = [0u64; 32];
    let mut pmask = 0u32;
    for_lanes(c.mask, |l| {
        let part = m[l] & c.mask;
        let mut same = 0u32;
        for_lanes(part, |k| {
            if a[k] == a[l] {
                same |= 1 << k;
            }
        });
        if !all {
            out[l] = u64::from(same);
        } else if same == part {
            out[l] = u64::from(part);
            pmask |= 1 << l;
        }
    });
    c.write(&i.d[0], &out);
    c.write_mask(&i.d[1], pmask);
    Ok(Flow::Next)
}

/// The `Extra::Param` code of a `redux.sync` operation and signedness.
pub fn redux_code(op: ReduxOp, signed: bool) -> u64 {
    let base = match op {
        ReduxOp::Add => 0,
        ReduxOp::Min => 1,
        ReduxOp::Max => 2,
        ReduxOp::And => 3,
        ReduxOp::Or => 4,
        ReduxOp::Xor => 5,
    };
    base | if signed { 8 } else { 0 }
}

/// `op` (a `redux_code`) applied to `x` and `v`.
fn redux_step(code: u64, x: u32, v: u32) -> u32 {
    let signed = code & 8 != 0;
    match code & 7 {
        0 => x.wrapping_add(v),
        1 if signed => (x as i32).min(v as i32) as u32,
        1 => x.min(v),
        2 if signed => (x as i32).max(v as i32) as u32,
        2 => x.max(v),
        3 => x & v,
        4 => x | v,
        _ => x ^ v,
    }
}

/// `redux.sync.op.type d, a, membermask`: `s = [a, membermask]`. Each lane gets the reduction
/// over the lanes of its own member mask.
pub fn redux(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = members(c, &i.s[1]);
    if must_wait(c, &m) {
        return Ok(Flow::WaitCollective);
    }
    let a = c.fetch(&i.s[0]);
    let Extra::Param(code) = i.extra else {
        return Ok(Flow::Next);
    };
    let out = per_group(c.mask, &m, |part| {
        let mut acc: Option<u32> = None;
        for_lanes(part, |k| {
            let v = a[k] as u32;
            acc = Some(acc.map_or(v, |x| redux_step(code, x, v)));
        });
        u64::from(acc.unwrap_or(0))
    });
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// For each executing lane (`mask`), `reduce` of its group: the executing lanes its member
/// mask names. Each distinct group is reduced once.
fn per_group(mask: u32, m: &[u32; 32], mut reduce: impl FnMut(u32) -> u64) -> [u64; 32] {
    let mut groups: Vec<(u32, u64)> = Vec::new();
    let mut out = [0u64; 32];
    for_lanes(mask, |l| {
        let part = m[l] & mask;
        out[l] = match groups.iter().find(|g| g.0 == part) {
            Some(g) => g.1,
            None => {
                let r = reduce(part);
                groups.push((part, r));
                r
            }
        };
    });
    out
}

/// `elect.sync d|p, membermask`: `s = [membermask]`, `d = [d, p]`. Each group of lanes with
/// the same member mask elects its lowest member.
pub fn elect(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = members(c, &i.s[0]);
    if must_wait(c, &m) {
        return Ok(Flow::WaitCollective);
    }
    let mut out = [0u64; 32];
    let mut leaders = 0u32;
    let mut empty = false;
    for_lanes(c.mask, |l| {
        let part = m[l] & c.mask;
        empty |= part == 0;
        let leader = part.trailing_zeros();
        out[l] = u64::from(leader);
        if leader as usize == l {
            leaders |= 1 << l;
        }
    });
    if empty {
        return Err(LaneFault::new(FaultKind::Undefined {
            detail: "elect.sync with an empty member mask".into(),
        }));
    }
    c.write(&i.d[0], &out);
    c.write_mask(&i.d[1], leaders);
    Ok(Flow::Next)
}

/// The `Param` of `redux.sync.{min,max}{.abs}{.NaN}.f32`.
pub fn redux_f32_code(max: bool, abs: bool, nan: bool) -> u64 {
    u64::from(max) | u64::from(abs) << 1 | u64::from(nan) << 2
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32 d, a, membermask` (sm_100a): `s = [a, membermask]`.
/// `.abs` reduces the magnitudes; without `.NaN` NaN inputs are ignored (all NaN gives the
/// canonical NaN), with it any NaN input gives the canonical NaN; -0.0 is below +0.0, as for
/// `min`/`max`.
pub fn redux_f32(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = members(c, &i.s[1]);
    if must_wait(c, &m) {
        return Ok(Flow::WaitCollective);
    }
    let a = c.fetch(&i.s[0]);
    let Extra::Param(code) = i.extra else {
        return Ok(Flow::Next);
    };
    let (max, abs, nan) = (code & 1 != 0, code & 2 != 0, code & 4 != 0);
    let out = per_group(c.mask, &m, |part| {
        let values = a
            .iter()
            .enumerate()
            .filter(|(k, _)| part & (1 << k) != 0)
            .map(|(_, v)| f32::from_bits(*v as u32));
        u64::from(reduce_f32(values, max, abs, nan).to_bits())
    });
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// The float reduction of `redux.sync.f32` over `values`.
pub fn reduce_f32(values: impl Iterator<Item = f32>, max: bool, abs: bool, nan: bool) -> f32 {
    let m = crate::semantics::compare::MinMaxMode {
        ftz: false,
        nan,
        xorsign_abs: false,
    };
    let mut acc: Option<f32> = None;
    for v in values {
        let v = if abs { v.abs() } else { v };
        acc = Some(match acc {
            None if v.is_nan() => f32::from_bits(0x7fff_ffff),
            None => v,
            Some(x) => crate::semantics::compare::minmax32(x, v, max, m),
        });
    }
    match acc {
        Some(r) if r.is_nan() => f32::from_bits(0x7fff_ffff),
        Some(r) => r,
        None => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::reduce_f32;

    fn red(v: &[f32], max: bool, abs: bool, nan: bool) -> f32 {
        reduce_f32(v.iter().copied(), max, abs, nan)
    }

    #[test]
    fn f32_min_max() {
        assert_eq!(red(&[1.0, -3.0, 2.5], true, false, false), 2.5);
        assert_eq!(red(&[1.0, -3.0, 2.5], false, false, false), -3.0);
        assert_eq!(red(&[1.0, -3.0, 2.5], true, true, false), 3.0);
        assert_eq!(red(&[-1.0, 3.0, -0.5], false, true, false), 0.5);
        assert!(red(&[0.0, -0.0], false, false, false).is_sign_negative());
        assert!(red(&[-0.0, 0.0], true, false, false).is_sign_positive());
    }

    #[test]
    fn f32_nan_handling() {
        let canon = f32::from_bits(0x7fff_ffff).to_bits();
        assert_eq!(red(&[f32::NAN, 2.0, 1.0], true, false, false), 2.0);
        assert_eq!(red(&[1.0, f32::NAN], false, false, false), 1.0);
        assert_eq!(red(&[1.0, f32::NAN], false, false, true).to_bits(), canon);
        assert_eq!(
            red(&[f32::NAN, f32::NAN], true, false, false).to_bits(),
            canon
        );
        assert_eq!(red(&[f32::NAN, 1.0], true, true, true).to_bits(), canon);
    }
}
