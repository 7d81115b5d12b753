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

mod instr;

use instr::{exchange, instruction, r};

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
