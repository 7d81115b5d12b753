//! Running a SASS program: a grid of CTAs of 32-thread warps over a generic thread address
//! space with a shared and a local window, global allocations, and constant bank 0.
//!
//! The instruction set has no barrier, so threads are independent: each runs to `EXIT` in
//! turn (warp by warp, lane by lane), which is one legal schedule.
//!
//! Constant bank 0 (as on Maxwell): `ntid.x/y/z` at 0x0/0x4/0x8, `nctaid.x/y/z` at
//! 0xc/0x10/0x14, kernel parameters from 0x140 (a 64-bit value as two words, low first).
//!
//! Memory faults as the seed states: a misaligned address is forced down to the access size
//! (an error with `strict_align`); an address outside its window, or outside every
//! allocation, reads as 0 into every destination register (a store is dropped) and is an
//! error. Errors are collected and the run continues, unless `strict`, where the first one
//! stops the launch.

use std::collections::HashMap;

use super::ir::*;

mod memory;

/// Where the shared and local windows sit in the generic thread address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Windows {
    /// First byte of the shared window.
    pub shared_base: u64,
    /// Bytes of shared memory per CTA (the window's size).
    pub shared_size: u64,
    /// First byte of the local window.
    pub local_base: u64,
    /// Bytes of local memory per thread (the window's size).
    pub local_size: u64,
}

impl Default for Windows {
    fn default() -> Windows {
        Windows {
            shared_base: 0x0100_0000,
            shared_size: 48 << 10,
            local_base: 0x0200_0000,
            local_size: 16 << 10,
        }
    }
}

/// First address of global allocations (below 4 GiB, so 32-bit addresses reach them).
pub const GLOBAL_BASE: u64 = 0x1000_0000;
/// Byte offset of the first kernel parameter in constant bank 0.
pub const PARAM_BASE: usize = 0x140;

/// How to launch.
#[derive(Clone, Debug)]
pub struct SassConfig {
    /// Grid shape.
    pub grid: [u32; 3],
    /// CTA shape.
    pub block: [u32; 3],
    /// The windows.
    pub windows: Windows,
    /// Stop at the first memory error.
    pub strict: bool,
    /// Misaligned addresses are errors (they are always forced down).
    pub strict_align: bool,
    /// `.U.128` loads whose address differs across the warp are errors.
    pub check_uniform: bool,
    /// Registers the shader supports: a base register at or beyond this count reads as absent.
    pub registers: u32,
    /// `--max-steps`: the most thread instructions the whole launch may execute, all CTAs and
    /// threads together (so a grid of many short threads is bounded as surely as one long one).
    pub max_steps: u64,
    /// `--timeout`: stop the launch ([`SassFault::TimedOut`]) once it has run this long.
    pub timeout: Option<std::time::Duration>,
}

impl SassConfig {
    /// A launch with default windows, non-strict, 255 registers.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> SassConfig {
        SassConfig {
            grid,
            block,
            windows: Windows::default(),
            strict: false,
            strict_align: false,
            check_uniform: false,
            registers: 255,
            max_steps: 10_000_000,
            timeout: None,
        }
    }
}

/// Which thread, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// CTA index.
    pub cta: [u32; 3],
    /// Thread index.
    pub tid: [u32; 3],
    /// Warp within the CTA.
    pub warp: u32,
    /// Lane.
    pub lane: u32,
    /// Source line.
    pub line: u32,
    /// The instruction as written.
    pub text: String,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CTA ({},{},{}), warp {}, lane {} (thread ({},{},{})), line {}: {}",
            self.cta[0],
            self.cta[1],
            self.cta[2],
            self.warp,
            self.lane,
            self.tid[0],
            self.tid[1],
            self.tid[2],
            self.line,
            self.text
        )
    }
}

/// A memory error (or, with `strict`, the fault that stopped the launch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemError {
    /// What went wrong.
    pub what: String,
    /// The effective address.
    pub address: u64,
    /// Where.
    pub place: Place,
}

impl std::fmt::Display for MemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\n  at {}\n  address 0x{:x}",
            self.what, self.place, self.address
        )
    }
}

/// Why a launch stopped early.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SassFault {
    /// A memory error under `strict`.
    #[error("{0}")]
    Memory(MemError),
    /// A thread ran past the last instruction without `EXIT`.
    #[error("ran past the last instruction without EXIT\n  at {0}")]
    RanOff(Place),
    /// The launch executed more than `max_steps` thread instructions in total.
    #[error("step budget exhausted: more than {1} thread instructions executed by the whole launch (raise --max-steps)\n  at {0}")]
    Budget(Place, u64),
    /// The launch shape is invalid.
    #[error("{0}")]
    Shape(String),
    /// `--timeout` stopped the launch after this many thread instructions.
    #[error("stopped by --timeout {}s after {instructions} thread instructions, in CTA {cta:?}; no result", timeout.as_secs_f64())]
    TimedOut {
        /// The limit.
        timeout: std::time::Duration,
        /// Thread instructions executed by then.
        instructions: u64,
        /// The CTA running when it stopped.
        cta: [u32; 3],
    },
}

/// One thread's final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadState {
    /// CTA index.
    pub cta: [u32; 3],
    /// Thread index.
    pub tid: [u32; 3],
    /// R0…R254.
    pub regs: Vec<u32>,
    /// P0…P6.
    pub preds: [bool; 7],
}

/// What a launch did.
#[derive(Clone, Debug, Default)]
pub struct SassReport {
    /// Instructions executed (per thread, summed).
    pub instructions: u64,
    /// Memory errors (non-strict runs).
    pub errors: Vec<MemError>,
    /// Every thread's final registers, for launches of at most 128 threads.
    pub threads: Vec<ThreadState>,
}

struct Region {
    base: u64,
    bytes: Vec<u8>,
}

/// Device memory and constant bank 0 for SASS programs.
pub struct SassMachine {
    regions: Vec<Region>,
    next: u64,
    budget: crate::exec::reserve::Budget,
}

impl Default for SassMachine {
    fn default() -> SassMachine {
        SassMachine::with_limit(None)
    }
}

struct Thread {
    regs: [u32; 255],
    preds: [bool; 7],
    local: Vec<u8>,
}

impl Thread {
    fn get(&self, r: Reg) -> u32 {
        if r.is_rz() {
            0
        } else {
            self.regs[r.0 as usize]
        }
    }

    fn set(&mut self, r: Reg, v: u32) {
        if !r.is_rz() {
            self.regs[r.0 as usize] = v;
        }
    }

    fn pred(&self, p: PredUse) -> bool {
        let v = p.pred == Pred::PT || self.preds[p.pred.0 as usize];
        v != p.negated
    }

    fn set_pred(&mut self, p: Pred, v: bool) {
        if p != Pred::PT {
            self.preds[p.0 as usize] = v;
        }
    }
}

impl SassMachine {
    /// A machine whose buffers may total at most `limit` bytes (`--memory-limit`).
    pub fn with_limit(limit: Option<u64>) -> SassMachine {
        SassMachine {
            regions: Vec::new(),
            next: GLOBAL_BASE,
            budget: crate::exec::reserve::Budget::new(limit),
        }
    }

    /// Allocates `len` bytes of global memory, 256-byte aligned, zeroed; returns the address.
    ///
    /// # Errors
    /// The bytes are past the limit, or the host refuses them (`exec::reserve`).
    pub fn alloc(&mut self, len: u64) -> Result<u64, crate::exec::reserve::ReserveError> {
        let base = self.next.div_ceil(256) * 256;
        let bytes = self
            .budget
            .zeroed_bytes(len, || format!("a {len}-byte buffer"))?;
        self.regions.push(Region { base, bytes });
        self.next = base + len.max(1) + 256;
        Ok(base)
    }

    /// Writes bytes at a global address; false when they are not all inside one allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        match self.find(addr, data.len() as u64) {
            Some((k, off)) => {
                self.regions[k].bytes[off..off + data.len()].copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    /// Reads bytes at a global address.
    pub fn read(&self, addr: u64, len: u64) -> Option<Vec<u8>> {
        let (k, off) = self.find(addr, len)?;
        Some(self.regions[k].bytes[off..off + len as usize].to_vec())
    }

    /// Fills `out` from the global address `addr`; false when the bytes are not all inside
    /// one allocation.
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> bool {
        match self.find(addr, out.len() as u64) {
            Some((k, off)) => {
                out.copy_from_slice(&self.regions[k].bytes[off..off + out.len()]);
                true
            }
            None => false,
        }
    }

    fn find(&self, addr: u64, len: u64) -> Option<(usize, usize)> {
        self.regions.iter().enumerate().find_map(|(k, r)| {
            let end = r.base + r.bytes.len() as u64;
            (addr >= r.base && addr.checked_add(len)? <= end).then(|| (k, (addr - r.base) as usize))
        })
    }

    /// Runs `prog` over the grid with the kernel parameters laid out in constant bank 0.
    ///
    /// # Errors
    /// A memory error under `strict`, a thread running off the end or out of budget, a bad shape.
    pub fn launch(
        &mut self,
        prog: &Program,
        cfg: &SassConfig,
        params: &[Vec<u8>],
    ) -> Result<SassReport, SassFault> {
        if let Some(why) = crate::exec::shape::launch_shape_error(cfg.grid, cfg.block) {
            return Err(SassFault::Shape(why));
        }
        let nthreads: u64 = cfg.block.iter().map(|&x| u64::from(x)).product();
        let nctas: u64 = cfg.grid.iter().map(|&x| u64::from(x)).product();
        let mut bank = vec![0u8; 64 << 10];
        for (k, v) in cfg.block.iter().chain(cfg.grid.iter()).enumerate() {
            bank[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let mut off = PARAM_BASE;
        for p in params {
            let align = p.len().clamp(1, 8);
            off = off.div_ceil(align) * align;
            if off + p.len() > bank.len() {
                return Err(SassFault::Shape(
                    "kernel parameters overflow constant bank 0".into(),
                ));
            }
            bank[off..off + p.len()].copy_from_slice(p);
            off += p.len();
        }
        let mut report = SassReport::default();
        let keep = nctas * nthreads <= 128;
        let deadline = cfg
            .timeout
            .and_then(|t| std::time::Instant::now().checked_add(t));
        for c in 0..nctas {
            let cta = [
                (c % u64::from(cfg.grid[0])) as u32,
                ((c / u64::from(cfg.grid[0])) % u64::from(cfg.grid[1])) as u32,
                (c / (u64::from(cfg.grid[0]) * u64::from(cfg.grid[1]))) as u32,
            ];
            let mut shared = vec![0u8; cfg.windows.shared_size as usize];
            let mut uniform: HashMap<(u32, usize, u64), u64> = HashMap::new();
            for t in 0..nthreads {
                let b = cfg.block;
                let tid = [
                    (t % u64::from(b[0])) as u32,
                    ((t / u64::from(b[0])) % u64::from(b[1])) as u32,
                    (t / (u64::from(b[0]) * u64::from(b[1]))) as u32,
                ];
                let mut th = Thread {
                    regs: [0; 255],
                    preds: [false; 7],
                    local: vec![0; cfg.windows.local_size as usize],
                };
                let (warp, lane) = ((t / 32) as u32, (t % 32) as u32);
                let mut ctx = Ctx {
                    m: self,
                    cfg,
                    bank: &bank,
                    shared: &mut shared,
                    uniform: &mut uniform,
                    report: &mut report,
                    cta,
                    tid,
                    warp,
                    lane,
                    counts: HashMap::new(),
                    deadline,
                };
                ctx.run(prog, &mut th)?;
                if keep {
                    report.threads.push(ThreadState {
                        cta,
                        tid,
                        regs: th.regs.to_vec(),
                        preds: th.preds,
                    });
                }
            }
        }
        Ok(report)
    }
}

struct Ctx<'a> {
    m: &'a mut SassMachine,
    cfg: &'a SassConfig,
    bank: &'a [u8],
    shared: &'a mut Vec<u8>,
    uniform: &'a mut HashMap<(u32, usize, u64), u64>,
    report: &'a mut SassReport,
    cta: [u32; 3],
    tid: [u32; 3],
    warp: u32,
    lane: u32,
    counts: HashMap<usize, u64>,
    deadline: Option<std::time::Instant>,
}

impl Ctx<'_> {
    /// Whether `--timeout` has passed (looked at every 4096 instructions of a thread, and
    /// when a thread starts).
    fn timed_out(&self, steps: u64) -> Result<(), SassFault> {
        match (self.cfg.timeout, self.deadline) {
            (Some(timeout), Some(d))
                if steps.is_multiple_of(4096) && std::time::Instant::now() >= d =>
            {
                Err(SassFault::TimedOut {
                    timeout,
                    instructions: self.report.instructions,
                    cta: self.cta,
                })
            }
            _ => Ok(()),
        }
    }

    fn place(&self, i: &Instr) -> Place {
        Place {
            cta: self.cta,
            tid: self.tid,
            warp: self.warp,
            lane: self.lane,
            line: i.pos.line,
            text: i.text.clone(),
        }
    }

    fn error(
        &mut self,
        i: &Instr,
        what: String,
        address: u64,
        fatal: bool,
    ) -> Result<(), SassFault> {
        let e = MemError {
            what,
            address,
            place: self.place(i),
        };
        if fatal {
            return Err(SassFault::Memory(e));
        }
        self.report.errors.push(e);
        Ok(())
    }

    fn src(&self, th: &Thread, s: Src) -> u32 {
        match s {
            Src::Reg(r) => th.get(r),
            Src::Imm(v) => v,
            Src::Const { bank, offset } => {
                if bank != 0 {
                    return 0;
                }
                let o = offset as usize;
                self.bank
                    .get(o..o + 4)
                    .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
        }
    }

    fn run(&mut self, prog: &Program, th: &mut Thread) -> Result<(), SassFault> {
        let mut pc = 0usize;
        let mut steps = 0u64;
        loop {
            self.timed_out(steps)?;
            let Some(i) = prog.instrs.get(pc) else {
                let last = prog.instrs.last().cloned().unwrap_or(Instr {
                    guard: PredUse {
                        pred: Pred::PT,
                        negated: false,
                    },
                    op: Op::Nop,
                    annotations: Vec::new(),
                    text: "(empty program)".into(),
                    pos: Pos::default(),
                });
                return Err(SassFault::RanOff(self.place(&last)));
            };
            steps += 1;
            if self.report.instructions >= self.cfg.max_steps {
                return Err(SassFault::Budget(self.place(i), self.cfg.max_steps));
            }
            self.report.instructions += 1;
            pc += 1;
            if !th.pred(i.guard) {
                continue;
            }
            match &i.op {
                Op::Ld(a) => self.load(i, a, th)?,
                Op::St(a) => self.store(i, a, th)?,
                Op::Mov(d, s) => th.set(*d, self.src(th, *s)),
                Op::Mov32i(d, v) => th.set(*d, *v),
                Op::Iadd(d, a, b) => th.set(*d, th.get(*a).wrapping_add(self.src(th, *b))),
                Op::Iscadd(d, a, b, sh) => {
                    th.set(*d, (th.get(*a) << sh).wrapping_add(self.src(th, *b)));
                }
                Op::Shl(d, a, b) => {
                    let n = self.src(th, *b);
                    th.set(*d, if n >= 32 { 0 } else { th.get(*a) << n });
                }
                Op::Shr { d, a, b, unsigned } => {
                    let n = self.src(th, *b).min(32);
                    let v = th.get(*a);
                    let r = if *unsigned {
                        if n >= 32 {
                            0
                        } else {
                            v >> n
                        }
                    } else {
                        ((v as i32) >> n.min(31)) as u32
                    };
                    th.set(*d, r);
                }
                Op::Lop(op, d, a, b) => {
                    let (x, y) = (th.get(*a), self.src(th, *b));
                    th.set(
                        *d,
                        match op {
                            LogicOp::And => x & y,
                            LogicOp::Or => x | y,
                            LogicOp::Xor => x ^ y,
                        },
                    );
                }
                Op::Isetp {
                    cmp,
                    unsigned,
                    bop,
                    p,
                    q,
                    a,
                    b,
                    c,
                } => {
                    let (x, y) = (th.get(*a), self.src(th, *b));
                    let ord = if *unsigned {
                        x.cmp(&y)
                    } else {
                        (x as i32).cmp(&(y as i32))
                    };
                    use std::cmp::Ordering::*;
                    let r = match cmp {
                        Cmp::Lt => ord == Less,
                        Cmp::Eq => ord == Equal,
                        Cmp::Le => ord != Greater,
                        Cmp::Gt => ord == Greater,
                        Cmp::Ne => ord != Equal,
                        Cmp::Ge => ord != Less,
                    };
                    let cv = th.pred(*c);
                    let combine = |v: bool| match bop {
                        BoolOp::And => v && cv,
                        BoolOp::Or => v || cv,
                        BoolOp::Xor => v != cv,
                    };
                    th.set_pred(*p, combine(r));
                    th.set_pred(*q, combine(!r));
                }
                Op::S2r(d, sr) => {
                    let v = match sr {
                        SpecialReg::Tid(k) => self.tid[*k as usize],
                        SpecialReg::CtaId(k) => self.cta[*k as usize],
                        SpecialReg::LaneId => self.lane,
                    };
                    th.set(*d, v);
                }
                Op::Bra(t) => pc = *t,
                Op::Exit => return Ok(()),
                Op::Nop => {}
            }
        }
    }
}
