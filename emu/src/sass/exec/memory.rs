//! The memory side of SASS execution: effective addresses, alignment, the windows of the
//! generic thread address space, and the loads and stores themselves.

use super::{Ctx, SassFault, Thread};
use crate::sass::ir::*;

/// Where an access lands.
pub(super) enum Space {
    Global(usize, usize),
    Shared(usize),
    Local(usize),
}

impl Ctx<'_> {
    /// The effective generic address of an access, as the seed defines it.
    fn effective(&self, a: &MemAccess, th: &Thread) -> u64 {
        let base = a.addr.base;
        if base.is_rz() || u32::from(base.0) >= self.cfg.registers {
            return u64::from(a.addr.offset);
        }
        let off = i64::from(a.addr.offset as i32);
        if a.extended {
            let v = (u64::from(th.get(Reg(base.0 + 1))) << 32) | u64::from(th.get(base));
            v.wrapping_add(off as u64)
        } else {
            u64::from(th.get(base).wrapping_add(off as u32))
        }
    }

    /// Checks alignment and the window; the space and offset, or `None` after reporting.
    fn resolve(
        &mut self,
        i: &Instr,
        a: &MemAccess,
        th: &Thread,
    ) -> Result<Option<Space>, SassFault> {
        let size = u64::from(a.size.bytes());
        let raw = self.effective(a, th);
        let addr = raw & !(size - 1);
        if addr != raw && self.cfg.strict_align {
            self.error(
                i,
                format!("misaligned {size}-byte access (forced down to 0x{addr:x})"),
                raw,
                self.cfg.strict,
            )?;
        }
        if a.size == Size::U128 && self.cfg.check_uniform {
            let pc = i.pos.line as usize;
            let n = self.counts.entry(pc).or_default();
            *n += 1;
            let key = (self.warp, pc, *n);
            match self.uniform.get(&key) {
                Some(&first) if first != addr => {
                    self.error(
                        i,
                        format!("LD.U.128 address differs across the warp (the warp's first lane used 0x{first:x})"),
                        addr,
                        self.cfg.strict,
                    )?;
                }
                Some(_) => {}
                None => {
                    self.uniform.insert(key, addr);
                }
            }
        }
        let w = self.cfg.windows;
        let in_window = |b: u64, s: u64| addr >= b && addr + size <= b + s;
        let touches = |b: u64, s: u64| addr < b + s && addr + size > b;
        let fatal = self.cfg.strict;
        if !th.pred(a.plg) {
            if in_window(w.shared_base, w.shared_size) {
                return Ok(Some(Space::Shared((addr - w.shared_base) as usize)));
            }
            self.error(
                i,
                format!(
                    "address outside the shared window [0x{:x}, 0x{:x}) (Plg selects shared)",
                    w.shared_base,
                    w.shared_base + w.shared_size
                ),
                addr,
                fatal,
            )?;
            return Ok(None);
        }
        if in_window(w.local_base, w.local_size) {
            return Ok(Some(Space::Local((addr - w.local_base) as usize)));
        }
        if touches(w.local_base, w.local_size) || touches(w.shared_base, w.shared_size) {
            let what = if touches(w.shared_base, w.shared_size) {
                "address in the shared window, but Plg selects local/global"
            } else {
                "access crosses the edge of the local window"
            };
            self.error(i, what.to_string(), addr, fatal)?;
            return Ok(None);
        }
        match self.m.find(addr, size) {
            Some((k, off)) => Ok(Some(Space::Global(k, off))),
            None => {
                self.error(
                    i,
                    format!("{size}-byte access outside every global allocation"),
                    addr,
                    fatal,
                )?;
                Ok(None)
            }
        }
    }

    fn bytes_mut<'b>(&'b mut self, s: &Space, th: &'b mut Thread, n: usize) -> &'b mut [u8] {
        match *s {
            Space::Global(k, off) => &mut self.m.regions[k].bytes[off..off + n],
            Space::Shared(off) => &mut self.shared[off..off + n],
            Space::Local(off) => &mut th.local[off..off + n],
        }
    }

    pub(super) fn load(
        &mut self,
        i: &Instr,
        a: &MemAccess,
        th: &mut Thread,
    ) -> Result<(), SassFault> {
        let n = a.size.bytes() as usize;
        let space = self.resolve(i, a, th)?;
        let mut words = [0u32; 4];
        if let Some(s) = space {
            let b = self.bytes_mut(&s, th, n).to_vec();
            match a.size {
                Size::U8 => words[0] = u32::from(b[0]),
                Size::S8 => words[0] = b[0] as i8 as i32 as u32,
                Size::U16 => words[0] = u32::from(u16::from_le_bytes([b[0], b[1]])),
                Size::S16 => words[0] = i16::from_le_bytes([b[0], b[1]]) as i32 as u32,
                _ => {
                    for (k, w) in words.iter_mut().enumerate().take(n / 4) {
                        *w = u32::from_le_bytes([
                            b[4 * k],
                            b[4 * k + 1],
                            b[4 * k + 2],
                            b[4 * k + 3],
                        ]);
                    }
                }
            }
        }
        if !a.data.is_rz() {
            for k in 0..a.size.regs() {
                th.set(Reg(a.data.0 + k), words[k as usize]);
            }
        }
        Ok(())
    }

    pub(super) fn store(
        &mut self,
        i: &Instr,
        a: &MemAccess,
        th: &mut Thread,
    ) -> Result<(), SassFault> {
        let n = a.size.bytes() as usize;
        let mut data = Vec::with_capacity(16);
        for k in 0..a.size.regs() {
            let r = if a.data.is_rz() {
                Reg::RZ
            } else {
                Reg(a.data.0 + k)
            };
            data.extend_from_slice(&th.get(r).to_le_bytes());
        }
        data.truncate(n);
        if let Some(s) = self.resolve(i, a, th)? {
            self.bytes_mut(&s, th, n).copy_from_slice(&data);
        }
        Ok(())
    }
}
