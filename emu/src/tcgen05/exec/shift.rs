//! `tcgen05.shift` (PTX ISA "tcgen05.shift"): each lane that executes it shifts the 32-lane
//! block at its own `taddr` down one row over 8 columns (choice 2 of [`crate::tcgen05::exec`]).

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};
use crate::ir::CtaGroup;
use crate::tcgen05::exec::fault::fault;
use crate::tcgen05::exec::{decoded, record, tmem, undefined};
use crate::tcgen05::trace::TmemAction;

type R = Result<Flow, LaneFault>;

/// `tcgen05.shift.cta_group::N.down [taddr]`, by each executing lane (deviation 2); with
/// `::2` in both CTAs of the pair.
pub fn shift(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let addrs = c.fetch(&m.taddr);
    let mut mask = c.mask;
    while mask != 0 {
        let lane = mask.trailing_zeros();
        mask &= mask - 1;
        let taddr = (addrs[lane as usize] as u32).wrapping_add(m.taddr_offset as u32);
        if m.op.group() == Some(CtaGroup::Two) {
            crate::tcgen05::exec::pair::shift(c, lane, taddr)?;
        } else {
            shift_one(c, lane, taddr)?;
        }
    }
    Ok(Flow::Next)
}

/// One lane's `tcgen05.shift.down` of the 32-lane block at `taddr` in the context's Tensor
/// Memory.
pub(crate) fn shift_one(c: &mut Ctx<'_>, lane: u32, taddr: u32) -> Result<(), LaneFault> {
    let what = "tcgen05.shift";
    let (base, column) = (taddr >> 16, taddr & 0xFFFF);
    if base % 32 != 0 {
        return Err(undefined(format!(
            "{what}: the lane of taddr 0x{taddr:x} is {base}, not a multiple of 32"
        ))
        .at_lane(lane));
    }
    let moved = {
        let t_mem = tmem(c);
        let mut r = Ok(());
        'rows: for row in (0..31).rev() {
            for k in 0..8 {
                let from = t_mem.check_cell(base + row, column + k);
                let to = t_mem.check_cell(base + row + 1, column + k);
                match (from, to) {
                    (Ok(a), Ok(b)) => {
                        let v = t_mem.read(a);
                        t_mem.write(b, v);
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        r = Err(e);
                        break 'rows;
                    }
                }
            }
        }
        r
    };
    moved.map_err(|e| fault(c, e, what, Some(lane), Some(taddr)))?;
    record(
        c,
        Some(taddr),
        TmemAction::Shift { lane: base, column },
        Vec::new(),
    );
    Ok(())
}
