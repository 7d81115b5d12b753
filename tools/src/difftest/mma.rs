//! The tensor-core family of `ptxemu difftest` (`--family mma`): random warp-level matrix
//! kernels (`mma.sync` of every sm_80/sm_90 shape and type, `ldmatrix`, `stmatrix`,
//! `movmatrix`, `cp.async`) in the frame protocol of [`super::host`].
//!
//! Thread `t` loads the 32 words of its input frame, masks the words an operand of type T
//! takes so that every element is a finite value of T below 2 in magnitude (any bits in, no
//! NaN or infinity out: the exponent's top bit is cleared; tf32 keeps only its 19 bits),
//! runs one instruction and stores its results from word 0 of its output frame. Each kernel
//! carries the numeric kind of every word it writes, so [`super::judge`] compares integers
//! and moved bits exactly and floating-point results within a bound derived from those input
//! ranges.

use std::fmt::Write as _;

use super::gen::{Rng, FRAME, THREADS};
use super::judge::{Num, OutSlot};

/// The target a module is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Arch {
    /// `.target sm_80` (A100): no FP8 mma, no `stmatrix`, no f64 m16n8k*.
    #[value(name = "sm_80")]
    Sm80,
    /// `.target sm_90a` (H100): every sm_80 kernel plus FP8 mma, `stmatrix`, f64 m16n8k*.
    #[value(name = "sm_90a")]
    Sm90a,
    /// `.target sm_100a` (B200): everything this family generates, including the byte and
    /// packed-source matrix moves of [`super::mma_sm100`].
    #[value(name = "sm_100a")]
    Sm100a,
}

impl Arch {
    /// The `.target` name.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm_80",
            Arch::Sm90a => "sm_90a",
            Arch::Sm100a => "sm_100a",
        }
    }

    /// The `.version` its modules declare (sm_100a needs PTX ISA 8.6).
    fn version(self) -> &'static str {
        match self {
            Arch::Sm80 | Arch::Sm90a => "8.4",
            Arch::Sm100a => "8.6",
        }
    }
}

/// One generated tensor-core kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct MmaKernel {
    /// What it tests, e.g. `mma.m16n8k16.f32.f16.f16.f32`.
    pub what: String,
    /// The body lines (after the frame is loaded).
    pub body: Vec<String>,
    /// The output words it writes and how to compare them.
    pub slots: Vec<OutSlot>,
}

/// The element type of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
    S32,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::Tf32 => "tf32",
            Ty::E4m3 => "e4m3",
            Ty::E5m2 => "e5m2",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::S8 => "s8",
            Ty::U8 => "u8",
            Ty::S4 => "s4",
            Ty::U4 => "u4",
            Ty::B1 => "b1",
            Ty::S32 => "s32",
        }
    }

    /// The mask that keeps every element of a 32-bit word finite and below 2 in magnitude
    /// (None: all bit patterns are fine).
    fn mask32(self) -> Option<u32> {
        match self {
            Ty::F16 | Ty::Bf16 => Some(0xBFFF_BFFF),
            Ty::Tf32 => Some(0xBFFF_E000),
            Ty::E4m3 | Ty::E5m2 => Some(0xBFBF_BFBF),
            Ty::F32 => Some(0xBFFF_FFFF),
            _ => None,
        }
    }
}

/// The `.reg` declarations of every kernel of the family.
pub const DECLS: &str = "  .reg .b32 %w<32>, %a<8>, %b<4>, %c<8>, %d<8>, %t, %rt, %sb;\n  .reg .b64 %xa<8>, %xb<4>, %xc<4>, %xd<4>, %in, %out, %off;\n  .reg .pred %p<2>;\n";

/// The module-level declarations (the shared buffer of the moves and copies).
pub const SHARED: &str = ".shared .align 16 .b8 sm[1024];\n";

/// The kernel a seed names for a target.
pub fn generate(seed: u64, arch: Arch) -> MmaKernel {
    let mut g = Rng::new(seed ^ 0x7E45_0C0E_u64);
    let n = match arch {
        Arch::Sm80 => 10,
        Arch::Sm90a => 12,
        Arch::Sm100a => 14,
    };
    match g.below(n) {
        0..=1 => mma_float(&mut g, arch),
        2 => mma_int(&mut g),
        3 => mma_b1(&mut g),
        4 => mma_f64(&mut g, arch),
        5 => mma_quad(&mut g),
        6 => ldmatrix(&mut g),
        7 => movmatrix(&mut g),
        8..=9 => cp_async(&mut g),
        10 => stmatrix(&mut g),
        12 => super::mma_sm100::ldmatrix_bytes(&mut g),
        13 => super::mma_sm100::stmatrix_bytes(&mut g),
        _ => mma_float(&mut g, arch),
    }
}

/// Copies `n` input words starting at `from` into registers `%{prefix}0…`, masked for `ty`.
fn operand32(body: &mut Vec<String>, prefix: &str, n: usize, from: usize, ty: Ty) {
    for i in 0..n {
        body.push(match ty.mask32() {
            Some(m) => format!("and.b32 %{prefix}{i}, %w{}, {m:#010x}", from + i),
            None => format!("mov.b32 %{prefix}{i}, %w{}", from + i),
        });
    }
}

/// Builds `n` 64-bit registers `%{prefix}0…` from input word pairs at `from`, masked to f64
/// values below 2 in magnitude.
fn operand64(body: &mut Vec<String>, prefix: &str, n: usize, from: usize) {
    for i in 0..n {
        let w = from + 2 * i;
        body.push(format!("mov.b64 %{prefix}{i}, {{%w{w}, %w{}}}", w + 1));
        body.push(format!(
            "and.b64 %{prefix}{i}, %{prefix}{i}, 0xBFFFFFFFFFFFFFFF"
        ));
    }
}

pub(super) fn regs(prefix: &str, n: usize) -> String {
    let v: Vec<String> = (0..n).map(|i| format!("%{prefix}{i}")).collect();
    format!("{{{}}}", v.join(", "))
}

/// Stores `%d0…` (32-bit) to the output frame from word 0.
pub(super) fn store32(body: &mut Vec<String>, n: usize) {
    for i in 0..n {
        body.push(format!("st.global.b32 [%out+{}], %d{i}", 4 * i));
    }
}

/// The bound on a floating-point result of a K-deep dot product of inputs below 2 in
/// magnitude plus an accumulator below 2: `S = 4K + 2` bounds the sum of magnitudes; the
/// accumulation may lose up to (K + 2) units of `2^-22 S` (binary32 alignment and rounding,
/// truncation included), and a result rounded to a narrower format one unit of its own.
fn float_tol(k: u32, out: Ty) -> f64 {
    let s = 4.0 * f64::from(k) + 2.0;
    let acc = (f64::from(k) + 2.0) * s * 2f64.powi(-22);
    match out {
        Ty::F16 => acc + s * 2f64.powi(-10),
        Ty::F64 => (f64::from(k) + 2.0) * s * 2f64.powi(-51),
        _ => acc,
    }
}

/// An `mma.sync` of the generic shape: A, B, C from the frame, D to the output.
#[allow(clippy::too_many_arguments)]
fn mma_generic(
    shape: &str,
    k: u32,
    (at, bt, ct, dt): (Ty, Ty, Ty, Ty),
    (na, nb, nc, nd): (usize, usize, usize, usize),
    layout: &str,
    extra: &str,
    suffix: &str,
) -> MmaKernel {
    let mut body = Vec::new();
    operand32(&mut body, "a", na, 0, at);
    operand32(&mut body, "b", nb, na, bt);
    operand32(&mut body, "c", nc, na + nb, ct);
    let instr = format!(
        "mma.sync.aligned.{shape}.{layout}{extra}.{}.{}.{}.{}{suffix}",
        dt.name(),
        at.name(),
        bt.name(),
        ct.name()
    );
    body.push(format!(
        "{instr} {}, {}, {}, {}",
        regs("d", nd),
        regs("a", na),
        regs("b", nb),
        regs("c", nc)
    ));
    store32(&mut body, nd);
    let kind = match dt {
        Ty::F32 => Num::F32 {
            tol: float_tol(k, Ty::F32),
        },
        Ty::F16 => Num::F16x2 {
            tol: float_tol(k, Ty::F16),
        },
        _ => Num::Exact,
    };
    MmaKernel {
        what: instr.replace("sync.aligned.", ""),
        body,
        slots: (0..nd).map(|i| OutSlot { word: i, kind }).collect(),
    }
}

/// f16, bf16, tf32 and (sm_90a) FP8 `mma.sync.m16n8k*`.
fn mma_float(g: &mut Rng, arch: Arch) -> MmaKernel {
    let fp8 = arch != Arch::Sm80 && g.below(4) == 0;
    if fp8 {
        let ab = [Ty::E4m3, Ty::E5m2];
        let (at, bt) = (ab[g.below(2) as usize], ab[g.below(2) as usize]);
        // m16n8k16 FP8 needs PTX 8.7; the modules stay at 8.4 for older drivers.
        return mma_generic(
            "m16n8k32",
            32,
            (at, bt, Ty::F32, Ty::F32),
            (4, 2, 4, 4),
            "row.col",
            "",
            "",
        );
    }
    let (ty, big) = (
        [Ty::F16, Ty::Bf16, Ty::Tf32][g.below(3) as usize],
        g.below(2) == 1,
    );
    let (k, na, nb) = match (ty, big) {
        (Ty::Tf32, false) => (4, 2, 1),
        (Ty::Tf32, true) => (8, 4, 2),
        (_, false) => (8, 2, 1),
        (_, true) => (16, 4, 2),
    };
    let (ct, dt) = if ty == Ty::F16 {
        let f = [Ty::F16, Ty::F32][g.below(2) as usize];
        (f, f)
    } else {
        (Ty::F32, Ty::F32)
    };
    let count = |t: Ty| if t == Ty::F16 { 2 } else { 4 };
    mma_generic(
        &format!("m16n8k{k}"),
        k,
        (ty, ty, ct, dt),
        (na, nb, count(ct), count(dt)),
        "row.col",
        "",
        "",
    )
}

/// s8/u8 and s4/u4 `mma.sync` (m8n8k*, m16n8k*), with or without `.satfinite`.
fn mma_int(g: &mut Rng) -> MmaKernel {
    let four = g.below(2) == 0;
    let pick = |g: &mut Rng| match (four, g.below(2)) {
        (false, 0) => Ty::S8,
        (false, _) => Ty::U8,
        (true, 0) => Ty::S4,
        (true, _) => Ty::U4,
    };
    let (at, bt) = (pick(g), pick(g));
    let unit = if four { 32 } else { 16 };
    let (shape, k, na, nb, nc) = match g.below(3) {
        0 => ("m8n8", unit, 1, 1, 2),
        1 => ("m16n8", unit, 2, 1, 4),
        _ => ("m16n8", 2 * unit, 4, 2, 4),
    };
    let sat = if g.below(2) == 0 { ".satfinite" } else { "" };
    mma_generic(
        &format!("{shape}k{k}"),
        k,
        (at, bt, Ty::S32, Ty::S32),
        (na, nb, nc, nc),
        "row.col",
        sat,
        "",
    )
}

/// Single-bit `mma.sync` with `.xor.popc` or `.and.popc`.
fn mma_b1(g: &mut Rng) -> MmaKernel {
    let (shape, na, nb, nc) = match g.below(3) {
        0 => ("m8n8k128", 1, 1, 2),
        1 => ("m16n8k128", 2, 1, 4),
        _ => ("m16n8k256", 4, 2, 4),
    };
    let op = if g.below(2) == 0 {
        ".xor.popc"
    } else {
        ".and.popc"
    };
    mma_generic(
        shape,
        0,
        (Ty::B1, Ty::B1, Ty::S32, Ty::S32),
        (na, nb, nc, nc),
        "row.col",
        "",
        op,
    )
}

/// `.f64` `mma.sync`: m8n8k4 everywhere, m16n8k4/k8/k16 on sm_90a.
fn mma_f64(g: &mut Rng, arch: Arch) -> MmaKernel {
    let choice = if arch == Arch::Sm80 { 0 } else { g.below(4) };
    let (shape, k, na, nb, nc) = match choice {
        0 => ("m8n8k4", 4, 1, 1, 2),
        1 => ("m16n8k4", 4, 2, 1, 4),
        2 => ("m16n8k8", 8, 4, 2, 4),
        _ => ("m16n8k16", 16, 8, 4, 4),
    };
    let mut body = Vec::new();
    operand64(&mut body, "xa", na, 0);
    operand64(&mut body, "xb", nb, 2 * na);
    operand64(&mut body, "xc", nc, 2 * (na + nb));
    let instr = format!("mma.sync.aligned.{shape}.row.col.f64.f64.f64.f64");
    body.push(format!(
        "{instr} {}, {}, {}, {}",
        regs("xd", nc),
        regs("xa", na),
        regs("xb", nb),
        regs("xc", nc)
    ));
    let mut slots = Vec::new();
    for i in 0..nc {
        body.push(format!("st.global.b64 [%out+{}], %xd{i}", 8 * i));
        slots.push(OutSlot {
            word: 2 * i,
            kind: Num::F64 {
                tol: float_tol(k, Ty::F64),
            },
        });
    }
    MmaKernel {
        what: instr.replace("sync.aligned.", ""),
        body,
        slots,
    }
}

/// `mma.sync.m8n8k4` with `.f16` inputs (quad pairs), any layout of A and B.
fn mma_quad(g: &mut Rng) -> MmaKernel {
    let lay = ["row", "col"];
    let layout = format!("{}.{}", lay[g.below(2) as usize], lay[g.below(2) as usize]);
    let f = [Ty::F16, Ty::F32][g.below(2) as usize];
    let (ct, dt) = (f, f);
    let count = |t: Ty| if t == Ty::F16 { 4 } else { 8 };
    mma_generic(
        "m8n8k4",
        4,
        (Ty::F16, Ty::F16, ct, dt),
        (2, 2, count(ct), count(dt)),
        &layout,
        "",
        "",
    )
}

/// `%sb` = the shared address of row `(t * mul + add) mod 32` (16 bytes a row): a random
/// permutation of the threads' rows.
pub(super) fn permuted_row(g: &mut Rng, body: &mut Vec<String>) -> String {
    let (mul, add) = (2 * g.below(16) + 1, g.below(32));
    body.push(format!("mad.lo.u32 %rt, %t, {mul}, {add}"));
    body.push("and.b32 %rt, %rt, 31".into());
    body.push("shl.b32 %rt, %rt, 4".into());
    body.push("mov.u32 %sb, sm".into());
    body.push("add.u32 %sb, %sb, %rt".into());
    format!("rows (t*{mul}+{add}) mod 32")
}

/// The thread's own 16-byte row of `sm` in `%rt`.
pub(super) fn own_row(body: &mut Vec<String>) {
    body.push("shl.b32 %rt, %t, 4".into());
    body.push("mov.u32 %sb, sm".into());
    body.push("add.u32 %rt, %sb, %rt".into());
}

pub(super) fn exact(n: usize) -> Vec<OutSlot> {
    (0..n)
        .map(|word| OutSlot {
            word,
            kind: Num::Exact,
        })
        .collect()
}

/// `ldmatrix.x1/.x2/.x4` (`.trans` or not) from rows at permuted addresses.
fn ldmatrix(g: &mut Rng) -> MmaKernel {
    let n = [1, 2, 4][g.below(3) as usize];
    let trans = if g.below(2) == 0 { ".trans" } else { "" };
    let mut body = Vec::new();
    own_row(&mut body);
    body.push("st.shared.v4.b32 [%rt], {%w0, %w1, %w2, %w3}".into());
    body.push("bar.warp.sync -1".into());
    let rows = permuted_row(g, &mut body);
    let instr = format!("ldmatrix.sync.aligned.m8n8.x{n}{trans}.shared.b16");
    body.push(format!("{instr} {}, [%sb]", regs("d", n)));
    store32(&mut body, n);
    MmaKernel {
        what: format!("{instr} ({rows})"),
        body,
        slots: exact(n),
    }
}

/// `stmatrix.x1/.x2/.x4` (`.trans` or not) to permuted rows of a zeroed buffer, read back.
fn stmatrix(g: &mut Rng) -> MmaKernel {
    let n = [1, 2, 4][g.below(3) as usize];
    let trans = if g.below(2) == 0 { ".trans" } else { "" };
    let instr = format!("stmatrix.sync.aligned.m8n8.x{n}{trans}.shared.b16");
    store_rows(g, n, instr)
}

/// A kernel that zeroes each lane's row, stores `n` fragment registers to permuted rows with
/// `instr` (an `stmatrix` form), and writes every lane's row back out.
pub(super) fn store_rows(g: &mut Rng, n: usize, instr: String) -> MmaKernel {
    let mut body = Vec::new();
    own_row(&mut body);
    body.push("st.shared.v4.b32 [%rt], {0, 0, 0, 0}".into());
    body.push("bar.warp.sync -1".into());
    let rows = permuted_row(g, &mut body);
    for i in 0..n {
        body.push(format!("mov.b32 %a{i}, %w{i}"));
    }
    body.push(format!("{instr} [%sb], {}", regs("a", n)));
    body.push("bar.warp.sync -1".into());
    own_row(&mut body);
    body.push("ld.shared.v4.b32 {%d0, %d1, %d2, %d3}, [%rt]".into());
    store32(&mut body, 4);
    MmaKernel {
        what: format!("{instr} ({rows})"),
        body,
        slots: exact(4),
    }
}

/// `movmatrix.sync.aligned.m8n8.trans.b16`.
fn movmatrix(g: &mut Rng) -> MmaKernel {
    let w = g.below(32);
    let instr = "movmatrix.sync.aligned.m8n8.trans.b16";
    MmaKernel {
        what: instr.into(),
        body: vec![
            format!("{instr} %d0, %w{w}"),
            "st.global.b32 [%out+0], %d0".into(),
        ],
        slots: exact(1),
    }
}

/// `cp.async.ca/.cg` of 4, 8 or 16 bytes from the thread's input frame to a permuted shared
/// row (pre-filled from the frame), with a source size (zero fill) or an ignore-src
/// predicate, then commit, wait and read back.
fn cp_async(g: &mut Rng) -> MmaKernel {
    let size = [4u32, 8, 16][g.below(3) as usize];
    let level = if size == 16 && g.below(2) == 0 {
        "cg"
    } else {
        "ca"
    };
    let src = 16 * g.below(6) + size * g.below(16 / size);
    let mut body = Vec::new();
    own_row(&mut body);
    body.push("st.shared.v4.b32 [%rt], {%w28, %w29, %w30, %w31}".into());
    body.push("bar.sync 0".into());
    let rows = permuted_row(g, &mut body);
    let dst = size * g.below(16 / size);
    let tail = match g.below(3) {
        0 => String::new(),
        1 => format!(", {}", g.below(size + 1)),
        _ => {
            body.push("and.b32 %rt, %t, 1".into());
            body.push("setp.ne.u32 %p0, %rt, 0".into());
            ", %p0".into()
        }
    };
    let instr = format!("cp.async.{level}.shared.global");
    body.push(format!("{instr} [%sb+{dst}], [%in+{src}], {size}{tail}"));
    body.push("cp.async.commit_group".into());
    body.push("cp.async.wait_group 0".into());
    body.push("bar.sync 0".into());
    own_row(&mut body);
    body.push("ld.shared.v4.b32 {%d0, %d1, %d2, %d3}, [%rt]".into());
    store32(&mut body, 4);
    MmaKernel {
        what: format!("{instr} {size}{tail} ({rows})"),
        body,
        slots: exact(4),
    }
}

impl MmaKernel {
    /// The `.entry` text named `name`.
    pub fn entry(&self, name: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            ".visible .entry {name}(.param .u64 pin, .param .u64 pout)\n{{\n  // {}",
            self.what
        );
        s.push_str(DECLS);
        s.push_str("  ld.param.u64 %in, [pin];\n  ld.param.u64 %out, [pout];\n");
        s.push_str("  cvta.to.global.u64 %in, %in;\n  cvta.to.global.u64 %out, %out;\n");
        s.push_str("  mov.u32 %t, %tid.x;\n");
        let _ = writeln!(s, "  mul.wide.u32 %off, %t, {FRAME};");
        s.push_str("  add.u64 %in, %in, %off;\n  add.u64 %out, %out, %off;\n");
        for q in 0..FRAME / 16 {
            let w = 4 * q;
            let _ = writeln!(
                s,
                "  ld.global.v4.b32 {{%w{w}, %w{}, %w{}, %w{}}}, [%in+{}];",
                w + 1,
                w + 2,
                w + 3,
                16 * q
            );
        }
        for l in &self.body {
            let _ = writeln!(s, "  {l};");
        }
        s.push_str("  ret;\n}\n");
        s
    }
}

/// A module holding `kernels` as `k0`, `k1`, … for `arch`.
pub fn module(kernels: &[MmaKernel], arch: Arch) -> String {
    let mut s = format!(
        ".version {}\n.target {}\n.address_size 64\n\n{SHARED}\n",
        arch.version(),
        arch.name()
    );
    for (k, kern) in kernels.iter().enumerate() {
        s.push_str(&kern.entry(&format!("k{k}")));
        s.push('\n');
    }
    s
}

/// The input frames of a module of this family: uniformly random bits (the kernels mask them
/// per operand type).
pub fn inputs(seed: u64) -> Vec<u8> {
    let mut g = Rng::new(seed ^ 0x3A7C_0FFE_E000_0001);
    let mut out = Vec::with_capacity(FRAME * THREADS);
    while out.len() < FRAME * THREADS {
        out.extend_from_slice(&g.next().to_le_bytes());
    }
    out
}
