//! Register moves and address conversions: `mov` (plain, pack, unpack), `cvta` to and from
//! generic addresses, and `isspacep`.

use crate::exec::ctx::{for_lanes, Ctx};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{
    window_of, Window, CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE,
};
use crate::exec::program::{DInstr, Extra, Flow};

type R = Result<Flow, LaneFault>;

/// `mov d, a` of a scalar.
pub fn mov(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = c.fetch(&i.s[0]);
    c.write(&i.d[0], &a);
    Ok(Flow::Next)
}

/// `mov` packing: `d = {a, b, …}`; the element width in bits is the immediate `s[1]`.
pub fn mov_pack(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Elems(srcs, _) = &i.extra else {
        return Ok(Flow::Next);
    };
    let width = elem_width(i);
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut out = [0u64; 32];
    for (k, s) in srcs.iter().enumerate() {
        let v = c.fetch(s);
        for (l, o) in out.iter_mut().enumerate() {
            *o |= (v[l] & mask).checked_shl(width * k as u32).unwrap_or(0);
        }
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `mov` unpacking: `{a, b, …} = s`; the element width in bits is the immediate `s[1]`.
pub fn mov_unpack(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Elems(_, dsts) = &i.extra else {
        return Ok(Flow::Next);
    };
    let width = elem_width(i);
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let v = c.fetch(&i.s[0]);
    for (k, d) in dsts.iter().enumerate() {
        let out: [u64; 32] =
            std::array::from_fn(|l| v[l].checked_shr(width * k as u32).unwrap_or(0) & mask);
        c.write(d, &out);
    }
    Ok(Flow::Next)
}

pub(crate) fn elem_width(i: &DInstr) -> u32 {
    match i.s[1] {
        crate::exec::program::Src::Imm(bits) => bits as u32,
        _ => 32,
    }
}

/// `cvta.space` (space → generic): `Param` holds the window base.
pub fn cvta_to_generic(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(base) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    let out: [u64; 32] = std::array::from_fn(|l| if base == 0 { a[l] } else { base + a[l] });
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// The bits of an address's top half in which the param, const, local and shared windows
/// differ: the four are the four values of these bits above `PARAM_WINDOW`.
const OTHER_WINDOWS_DIFFER: u64 = 3 << 8;
const _: () = assert!(
    CONST_WINDOW == PARAM_WINDOW | 1 << 40
        && LOCAL_WINDOW == PARAM_WINDOW | 2 << 40
        && SHARED_WINDOW == PARAM_WINDOW | 3 << 40
        && WINDOW_SIZE == 1 << 32
);

/// `cvta.to.space` (generic → space): `Param` holds the window base (0 for global). An
/// address outside the window faults.
pub fn cvta_from_generic(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(base) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    // Every lane is converted and checked (branch-free, so the loop vectorises); only the
    // executing lanes' results are written and only their bad addresses fault.
    let mut bad = 0u32;
    let out: [u64; 32] = if base == 0 {
        // Not global: in one of the four other windows (`window_of` in one comparison).
        for (l, v) in a.iter().enumerate() {
            let outside = (v >> 32) & !OTHER_WINDOWS_DIFFER == PARAM_WINDOW >> 32;
            bad |= u32::from(outside) << l;
        }
        a
    } else {
        for (l, v) in a.iter().enumerate() {
            bad |= u32::from(v.wrapping_sub(base) >= WINDOW_SIZE) << l;
        }
        a.map(|v| v.wrapping_sub(base))
    };
    bad &= c.mask;
    if bad != 0 {
        let l = bad.trailing_zeros() as usize;
        let name = match base {
            SHARED_WINDOW => "shared",
            LOCAL_WINDOW => "local",
            CONST_WINDOW => "const",
            PARAM_WINDOW => "param",
            _ => "global",
        };
        return Err(LaneFault {
            kind: FaultKind::Undefined {
                detail: format!(
                    "cvta.to.{name} of a generic address that is not in the {name} window"
                ),
            },
            lane: Some(l as u32),
            address: Some(a[l]),
        });
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `isspacep.space p, a`: `Param` holds the window base (0 for global).
pub fn isspacep(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(base) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    let mut m = 0u32;
    for_lanes(c.mask, |l| {
        let w = window_of(a[l]);
        let yes = match base {
            0 => matches!(w, Window::Global(_)),
            SHARED_WINDOW => matches!(w, Window::Shared(_)),
            LOCAL_WINDOW => matches!(w, Window::Local(_)),
            CONST_WINDOW => matches!(w, Window::Const(_)),
            PARAM_WINDOW => matches!(w, Window::Param(_)),
            _ => false,
        };
        if yes {
            m |= 1 << l;
        }
    });
    c.write_mask(&i.d[0], m);
    Ok(Flow::Next)
}
