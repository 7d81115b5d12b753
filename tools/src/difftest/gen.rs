//! Random well-typed PTX kernels for differential testing.
//!
//! Every kernel has the same frame: thread `t` of a 32-thread CTA loads its registers (8
//! `.b32`, 4 `.b64`, 6 `.f32`, 4 `.f64`) from `in + t * FRAME`, runs a random body, and stores
//! them all to `out + t * FRAME`. The body mixes integer, bit, float (every rounding mode,
//! `.ftz`, `.sat`), conversion and memory instructions (a shared-memory exchange across the
//! CTA behind `bar.sync`), straight-line or inside lane-dependent forward branches. Operations
//! whose result PTX leaves unspecified (integer division by zero, approximate transcendentals)
//! are not generated, so any difference from hardware is a bug on one side.
//!
//! [`Kernel`] is a quickcheck generator ([`Arbitrary`]: `arbitrary` draws a seed, `shrink` is
//! one step of [`Kernel::shrink_candidates`]), so properties can quantify over kernels. A run
//! names its kernels by seed instead of drawing them from a `Gen`, because quickcheck's `Gen`
//! cannot be seeded and a mismatch found on a GPU must be reproducible from its seed alone.

use std::fmt::Write as _;

use quickcheck::{Arbitrary, Gen};

/// Bytes of one thread's register frame (input and output).
pub const FRAME: usize = 128;
/// Threads per launch.
pub const THREADS: usize = 32;

const NR: u32 = 8;
const ND: u32 = 4;
const NF: u32 = 6;
const NFD: u32 = 4;

/// A small deterministic random source (SplitMix64), so a seed names a kernel.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A source from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n.max(1))) as u32
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u32) as usize]
    }
}

/// One item of a kernel body: an instruction line, or a lane-dependent forward branch around
/// a block of items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// Instruction lines that belong together (e.g. a guard computation and its use).
    Lines(Vec<String>),
    /// `@p bra L; items; L:` with `p` computed from the thread id or a register.
    Branch {
        /// The lines computing the predicate `%p7`.
        cond: Vec<String>,
        /// The skipped block.
        body: Vec<Item>,
    },
}

/// A generated kernel body (the frame is added when printed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The items.
    pub items: Vec<Item>,
}

fn r(g: &mut Rng) -> String {
    format!("%r{}", g.below(NR))
}
fn d(g: &mut Rng) -> String {
    format!("%rd{}", g.below(ND))
}
fn f(g: &mut Rng) -> String {
    format!("%f{}", g.below(NF))
}
fn fd(g: &mut Rng) -> String {
    format!("%fd{}", g.below(NFD))
}
fn p(g: &mut Rng) -> String {
    format!("%p{}", g.below(4))
}

fn int_imm(g: &mut Rng) -> String {
    match g.below(6) {
        0 => "0".into(),
        1 => "1".into(),
        2 => "-1".into(),
        3 => "31".into(),
        4 => "0x80000000".into(),
        _ => (g.next() as u32).to_string(),
    }
}

fn r_or_imm(g: &mut Rng) -> String {
    if g.below(4) == 0 {
        int_imm(g)
    } else {
        r(g)
    }
}

/// A register or an immediate in [0, 255] (bit positions and lengths).
fn r_or_small(g: &mut Rng) -> String {
    if g.below(3) == 0 {
        g.below(256).to_string()
    } else {
        r(g)
    }
}

const ROUND: &[&str] = &[".rn", ".rz", ".rm", ".rp"];
const CMP_I: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
const CMP_F: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// One random instruction (sometimes two lines that belong together).
fn instruction(g: &mut Rng) -> Vec<String> {
    let line = match g.below(40) {
        0..=5 => {
            let op = g.pick(&["add", "sub", "mul.lo", "mul.hi", "min", "max"]);
            let ty = g.pick(&["u32", "s32"]);
            format!("{op}.{ty} {}, {}, {}", r(g), r(g), r_or_imm(g))
        }
        6 => format!("mad.lo.s32 {}, {}, {}, {}", r(g), r(g), r(g), r(g)),
        7 => {
            // Division by a value forced to be non-zero.
            let ty = g.pick(&["u32", "s32"]);
            let op = g.pick(&["div", "rem"]);
            let (dst, a, b) = (r(g), r(g), r(g));
            return vec![
                format!("or.b32 %rt, {b}, 1"),
                format!("{op}.{ty} {dst}, {a}, %rt"),
            ];
        }
        8..=10 => {
            let op = g.pick(&["and", "or", "xor"]);
            format!("{op}.b32 {}, {}, {}", r(g), r(g), r_or_imm(g))
        }
        11 => {
            let op = g.pick(&["shl.b32", "shr.u32", "shr.s32"]);
            let amount = if g.below(2) == 0 {
                r(g)
            } else {
                g.below(40).to_string()
            };
            format!("{op} {}, {}, {amount}", r(g), r(g))
        }
        12 => {
            let op = g.pick(&[
                "not.b32", "popc.b32", "clz.b32", "brev.b32", "abs.s32", "neg.s32",
            ]);
            format!("{op} {}, {}", r(g), r(g))
        }
        13 => format!(
            "bfe.{} {}, {}, {}, {}",
            g.pick(&["u32", "s32"]),
            r(g),
            r(g),
            r_or_small(g),
            r_or_small(g)
        ),
        14 => format!(
            "bfi.b32 {}, {}, {}, {}, {}",
            r(g),
            r(g),
            r(g),
            r_or_small(g),
            r_or_small(g)
        ),
        15 => format!("prmt.b32 {}, {}, {}, {}", r(g), r(g), r(g), r(g)),
        16 => format!(
            "setp.{}.{} {}, {}, {}",
            g.pick(CMP_I),
            g.pick(&["u32", "s32"]),
            p(g),
            r(g),
            r_or_imm(g)
        ),
        17 => format!("selp.b32 {}, {}, {}, {}", r(g), r(g), r(g), p(g)),
        18..=19 => {
            let op = g.pick(&["add", "sub", "mul.lo", "mul.hi", "min", "max"]);
            let ty = if op == "mul.hi" {
                "u64"
            } else {
                g.pick(&["u64", "s64"])
            };
            format!("{op}.{ty} {}, {}, {}", d(g), d(g), d(g))
        }
        20 => {
            let op = g.pick(&["and", "or", "xor"]);
            format!("{op}.b64 {}, {}, {}", d(g), d(g), d(g))
        }
        21 => format!(
            "{} {}, {}, {}",
            g.pick(&["shl.b64", "shr.u64", "shr.s64"]),
            d(g),
            d(g),
            r(g)
        ),
        22 => format!(
            "mul.wide.{} {}, {}, {}",
            g.pick(&["u32", "s32"]),
            d(g),
            r(g),
            r(g)
        ),
        23 => match g.below(3) {
            0 => format!("cvt.u64.u32 {}, {}", d(g), r(g)),
            1 => format!("cvt.s64.s32 {}, {}", d(g), r(g)),
            _ => format!("cvt.u32.u64 {}, {}", r(g), d(g)),
        },
        24..=27 => {
            let op = g.pick(&["add", "sub", "mul"]);
            let ftz = if g.below(3) == 0 { ".ftz" } else { "" };
            let sat = if g.below(5) == 0 { ".sat" } else { "" };
            format!(
                "{op}{}{ftz}{sat}.f32 {}, {}, {}",
                g.pick(ROUND),
                f(g),
                f(g),
                f(g)
            )
        }
        28 => format!(
            "fma{}{}.f32 {}, {}, {}, {}",
            g.pick(ROUND),
            if g.below(3) == 0 { ".ftz" } else { "" },
            f(g),
            f(g),
            f(g),
            f(g)
        ),
        29 => match g.below(4) {
            0 => format!("div{}.f32 {}, {}, {}", g.pick(ROUND), f(g), f(g), f(g)),
            1 => format!("sqrt{}.f32 {}, {}", g.pick(ROUND), f(g), f(g)),
            2 => format!("rcp{}.f32 {}, {}", g.pick(ROUND), f(g), f(g)),
            _ => format!(
                "{}.f32 {}, {}, {}",
                g.pick(&["min", "max"]),
                f(g),
                f(g),
                f(g)
            ),
        },
        30 => format!("{}.f32 {}, {}", g.pick(&["abs", "neg"]), f(g), f(g)),
        31 => format!("setp.{}.f32 {}, {}, {}", g.pick(CMP_F), p(g), f(g), f(g)),
        32 => format!("selp.f32 {}, {}, {}, {}", f(g), f(g), f(g), p(g)),
        33..=34 => {
            let op = g.pick(&["add", "sub", "mul"]);
            format!("{op}{}.f64 {}, {}, {}", g.pick(ROUND), fd(g), fd(g), fd(g))
        }
        35 => match g.below(3) {
            0 => format!(
                "fma{}.f64 {}, {}, {}, {}",
                g.pick(ROUND),
                fd(g),
                fd(g),
                fd(g),
                fd(g)
            ),
            1 => format!("div{}.f64 {}, {}, {}", g.pick(ROUND), fd(g), fd(g), fd(g)),
            _ => format!("sqrt{}.f64 {}, {}", g.pick(ROUND), fd(g), fd(g)),
        },
        36..=38 => conversion(g),
        _ => format!("mov.b32 {}, {}", f(g), r(g)),
    };
    vec![line]
}

fn conversion(g: &mut Rng) -> String {
    let iround = [".rni", ".rzi", ".rmi", ".rpi"];
    let ir = iround[g.below(4) as usize];
    match g.below(10) {
        0 => format!(
            "cvt{}.f32.{} {}, {}",
            g.pick(ROUND),
            g.pick(&["s32", "u32"]),
            f(g),
            r(g)
        ),
        1 => format!("cvt{ir}.{}.f32 {}, {}", g.pick(&["s32", "u32"]), r(g), f(g)),
        2 => format!(
            "cvt{ir}.{}.f64 {}, {}",
            g.pick(&["s32", "u32"]),
            r(g),
            fd(g)
        ),
        3 => format!(
            "cvt{}.f64.{} {}, {}",
            g.pick(ROUND),
            g.pick(&["s64", "u64"]),
            fd(g),
            d(g)
        ),
        4 => format!(
            "cvt{ir}.{}.f64 {}, {}",
            g.pick(&["s64", "u64"]),
            d(g),
            fd(g)
        ),
        5 => format!("cvt.f64.f32 {}, {}", fd(g), f(g)),
        6 => format!(
            "cvt{}{}.f32.f64 {}, {}",
            g.pick(ROUND),
            if g.below(3) == 0 { ".ftz" } else { "" },
            f(g),
            fd(g)
        ),
        7 => format!(
            "cvt{ir}{}.f32.f32 {}, {}",
            if g.below(3) == 0 { ".ftz" } else { "" },
            f(g),
            f(g)
        ),
        8 => format!(
            "cvt.sat.{}.{} {}, {}",
            g.pick(&["u8", "s8", "u16", "s16"]),
            g.pick(&["s32", "u32"]),
            r(g),
            r(g)
        ),
        _ => format!("cvt.sat.f32.f32 {}, {}", f(g), f(g)),
    }
}

/// A shared-memory exchange: every thread stores a register, the CTA synchronises, and each
/// loads its neighbour's value (top level only: `bar.sync` must not be skipped).
fn exchange(g: &mut Rng) -> Vec<String> {
    let shift = 1 + g.below(31);
    let (src, dst) = (r(g), r(g));
    vec![
        format!("st.shared.u32 [%sh], {src}"),
        "bar.sync 0".into(),
        format!("add.u32 %rt, %t, {shift}"),
        "and.b32 %rt, %rt, 31".into(),
        "shl.b32 %rt, %rt, 2".into(),
        "cvt.u64.u32 %shx, %rt".into(),
        "mov.u64 %shb, xch".into(),
        "add.u64 %shx, %shx, %shb".into(),
        format!("ld.shared.u32 {dst}, [%shx]"),
        "bar.sync 0".into(),
    ]
}

fn items(g: &mut Rng, n: u32, depth: u32) -> Vec<Item> {
    let mut out = Vec::new();
    for _ in 0..n {
        let k = g.below(20);
        if k == 0 && depth < 2 {
            let cond = if g.below(2) == 0 {
                vec![format!("setp.lt.u32 %p7, %t, {}", g.below(33))]
            } else {
                vec![
                    format!("and.b32 %rt, {}, {}", r(g), 1u32 << g.below(5)),
                    "setp.ne.u32 %p7, %rt, 0".into(),
                ]
            };
            let inner = 1 + g.below(6);
            out.push(Item::Branch {
                cond,
                body: items(g, inner, depth + 1),
            });
        } else if k == 1 && depth == 0 {
            out.push(Item::Lines(exchange(g)));
        } else {
            out.push(Item::Lines(instruction(g)));
        }
    }
    out
}

impl Kernel {
    /// The kernel a seed names (5 to 40 items).
    pub fn generate(seed: u64) -> Kernel {
        let mut g = Rng::new(seed);
        let n = 5 + g.below(36);
        Kernel {
            items: items(&mut g, n, 0),
        }
    }

    /// Items in total, nested ones included.
    pub fn size(&self) -> usize {
        fn count(v: &[Item]) -> usize {
            v.iter()
                .map(|i| match i {
                    Item::Lines(_) => 1,
                    Item::Branch { body, .. } => 1 + count(body),
                })
                .sum()
        }
        count(&self.items)
    }

    /// Kernels with one item removed (or a branch replaced by its body), smallest first: the
    /// candidates of one shrinking step.
    pub fn shrink_candidates(&self) -> Vec<Kernel> {
        fn variants(v: &[Item]) -> Vec<Vec<Item>> {
            let mut out = Vec::new();
            for k in 0..v.len() {
                let mut without = v.to_vec();
                without.remove(k);
                out.push(without);
                if let Item::Branch { cond, body } = &v[k] {
                    let mut flat = v[..k].to_vec();
                    flat.extend(body.iter().cloned());
                    flat.extend(v[k + 1..].iter().cloned());
                    out.push(flat);
                    for b in variants(body) {
                        let mut w = v.to_vec();
                        w[k] = Item::Branch {
                            cond: cond.clone(),
                            body: b,
                        };
                        out.push(w);
                    }
                }
            }
            out
        }
        variants(&self.items)
            .into_iter()
            .map(|items| Kernel { items })
            .collect()
    }

    /// The `.entry` text named `name`.
    pub fn entry(&self, name: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            ".visible .entry {name}(.param .u64 pin, .param .u64 pout)\n{{"
        );
        let _ = writeln!(
            s,
            "  .reg .b32 %r<{NR}>;\n  .reg .b64 %rd<{ND}>;\n  .reg .f32 %f<{NF}>;\n  .reg .f64 %fd<{NFD}>;\n  .reg .pred %p<8>;\n  .reg .b32 %t, %rt;\n  .reg .b64 %in, %out, %shx, %shb, %sh;"
        );
        s.push_str("  ld.param.u64 %in, [pin];\n  ld.param.u64 %out, [pout];\n");
        s.push_str("  cvta.to.global.u64 %in, %in;\n  cvta.to.global.u64 %out, %out;\n");
        s.push_str("  mov.u32 %t, %tid.x;\n");
        let _ = writeln!(s, "  mul.wide.u32 %shx, %t, {FRAME};");
        s.push_str("  add.u64 %in, %in, %shx;\n  add.u64 %out, %out, %shx;\n");
        s.push_str("  mul.wide.u32 %shx, %t, 4;\n  mov.u64 %sh, xch;\n  add.u64 %sh, %sh, %shx;\n");
        for f in frame() {
            let _ = writeln!(
                s,
                "  ld.global.{} {}, [%in+{}];",
                f.class.ty(),
                f.reg,
                f.offset
            );
        }
        s.push_str("  setp.ne.u32 %p0, %r0, 0;\n  setp.lt.u32 %p1, %r1, %r2;\n  setp.eq.u32 %p2, %t, 5;\n  setp.gt.s32 %p3, %r3, 0;\n");
        let mut label = 0;
        print_items(&mut s, &self.items, &mut label, name);
        for f in frame() {
            let _ = writeln!(
                s,
                "  st.global.{} [%out+{}], {};",
                f.class.ty(),
                f.offset,
                f.reg
            );
        }
        s.push_str("  ret;\n}\n");
        s
    }
}
impl Arbitrary for Kernel {
    fn arbitrary(g: &mut Gen) -> Kernel {
        Kernel::generate(u64::arbitrary(g))
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Kernel>> {
        Box::new(self.shrink_candidates().into_iter())
    }
}

/// The register classes of a thread's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `.b32` (`%r`)
    B32,
    /// `.f32` (`%f`)
    F32,
    /// `.b64` (`%rd`)
    B64,
    /// `.f64` (`%fd`)
    F64,
}

impl Class {
    /// The PTX type of the frame's loads and stores.
    pub fn ty(self) -> &'static str {
        match self {
            Class::B32 => "b32",
            Class::F32 => "f32",
            Class::B64 => "b64",
            Class::F64 => "f64",
        }
    }

    /// Bytes per register.
    pub fn size(self) -> usize {
        match self {
            Class::B32 | Class::F32 => 4,
            Class::B64 | Class::F64 => 8,
        }
    }
}

/// One register of a thread's frame and its byte offset in the frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The register (`%r0`).
    pub reg: String,
    /// Its class.
    pub class: Class,
    /// Its offset.
    pub offset: usize,
}

/// The frame, in order: `%r0…`, `%f0…`, `%rd0…`, `%fd0…`, packed. The kernels load and store
/// it, the inputs fill it, and mismatch reports name its slots.
pub fn frame() -> Vec<Slot> {
    let classes = [
        ("%r", NR, Class::B32),
        ("%f", NF, Class::F32),
        ("%rd", ND, Class::B64),
        ("%fd", NFD, Class::F64),
    ];
    let mut offset = 0;
    let mut out = Vec::new();
    for (prefix, n, class) in classes {
        for k in 0..n {
            out.push(Slot {
                reg: format!("{prefix}{k}"),
                class,
                offset,
            });
            offset += class.size();
        }
    }
    out
}

fn print_items(s: &mut String, items: &[Item], label: &mut u32, name: &str) {
    for it in items {
        match it {
            Item::Lines(lines) => {
                for l in lines {
                    let _ = writeln!(s, "  {l};");
                }
            }
            Item::Branch { cond, body } => {
                *label += 1;
                let l = *label;
                for c in cond {
                    let _ = writeln!(s, "  {c};");
                }
                let _ = writeln!(s, "  @%p7 bra {name}_L{l};");
                print_items(s, body, label, name);
                let _ = writeln!(s, "{name}_L{l}:");
            }
        }
    }
}

/// A module holding `kernels` as `k0`, `k1`, ….
pub fn module(kernels: &[Kernel]) -> String {
    let mut s = String::from(".version 8.0\n.target sm_90\n.address_size 64\n\n");
    let _ = writeln!(s, ".shared .align 4 .b8 xch[{}];\n", THREADS * 4);
    for (k, kern) in kernels.iter().enumerate() {
        s.push_str(&kern.entry(&format!("k{k}")));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::difftest::inputs::inputs;
    use quickcheck::{QuickCheck, TestResult};

    /// Every generated kernel is well-typed PTX that ptxemu validates and runs without fault,
    /// and every shrinking step makes it strictly smaller.
    #[test]
    fn generated_kernels_validate_run_and_shrink() {
        fn prop(k: Kernel) -> bool {
            let ptx = module(std::slice::from_ref(&k));
            let ok = crate::difftest::run_emu(&ptx, 1, &inputs(k.size() as u64))
                .into_iter()
                .all(|r| r.is_ok_and(|o| o.len() == FRAME * THREADS));
            ok && k.shrink().all(|c| c.size() < k.size())
        }
        QuickCheck::new()
            .tests(300)
            .quickcheck(prop as fn(Kernel) -> bool);
    }

    /// quickcheck's own shrinking, driven by the kernel's `shrink`, reaches a minimal kernel:
    /// a property failing on every kernel with a `div` is reported on one `div` item alone.
    #[test]
    fn quickcheck_shrinks_a_failing_kernel_to_the_offending_item() {
        fn no_div(k: Kernel) -> TestResult {
            TestResult::from_bool(!module(std::slice::from_ref(&k)).contains("  div."))
        }
        let found = std::panic::catch_unwind(|| {
            QuickCheck::new()
                .tests(2000)
                .max_tests(20_000)
                .quickcheck(no_div as fn(Kernel) -> TestResult)
        });
        let msg = found
            .expect_err("some kernel has a div")
            .downcast::<String>()
            .expect("quickcheck reports with a String");
        let divs = msg.matches("div.").count();
        assert!(msg.contains("Kernel {") && divs == 1, "{msg}");
    }

    #[test]
    fn a_seed_names_one_kernel() {
        assert_eq!(Kernel::generate(7), Kernel::generate(7));
        assert_ne!(
            module(&[Kernel::generate(7)]),
            module(&[Kernel::generate(8)])
        );
        assert_eq!(inputs(3), inputs(3));
    }
}
