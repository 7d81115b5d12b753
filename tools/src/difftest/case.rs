//! The kernels of a difftest run, of either family, behind one interface: generation from a
//! seed, the module text, the input frames, shrinking and the comparison of outputs.

use super::gen::{self, Kernel, FRAME, THREADS};
use super::judge::{judge, Verdict};
use super::mma::{self, Arch, MmaKernel};

/// Which kernels a run generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Family {
    /// Random scalar integer, float, conversion and shared-memory code, compared bit for bit.
    Scalar,
    /// Warp-level matrix and async-copy instructions (`mma.sync`, `ldmatrix`, `stmatrix`,
    /// `movmatrix`, `cp.async`); floating-point results compared within a bound.
    Mma,
}

impl Family {
    /// The name `--family` takes.
    pub fn name(self) -> &'static str {
        match self {
            Family::Scalar => "scalar",
            Family::Mma => "mma",
        }
    }
}

/// One kernel of a run.
#[derive(Clone, Debug)]
pub enum Case {
    /// A scalar kernel.
    Scalar(Kernel),
    /// A tensor-core kernel.
    Mma(MmaKernel),
}

impl Case {
    /// The kernel a seed names in a family (`arch` matters to the mma family only).
    pub fn generate(family: Family, arch: Arch, seed: u64) -> Case {
        match family {
            Family::Scalar => Case::Scalar(Kernel::generate(seed)),
            Family::Mma => Case::Mma(mma::generate(seed, arch)),
        }
    }

    /// Items in the kernel (a tensor-core kernel is one item).
    pub fn size(&self) -> usize {
        match self {
            Case::Scalar(k) => k.size(),
            Case::Mma(_) => 1,
        }
    }

    /// The candidates of one shrinking step (none for a tensor-core kernel: it is one
    /// instruction already).
    pub fn shrink_candidates(&self) -> Vec<Case> {
        match self {
            Case::Scalar(k) => k
                .shrink_candidates()
                .into_iter()
                .map(Case::Scalar)
                .collect(),
            Case::Mma(_) => Vec::new(),
        }
    }

    /// Compares the GPU's output frames with ptxemu's.
    pub fn compare(&self, gpu: &[u8], emu: &[u8]) -> Verdict {
        match self {
            Case::Scalar(_) if gpu == emu => Verdict::Same,
            Case::Scalar(_) => Verdict::Differ(describe_diff(gpu, emu)),
            Case::Mma(k) => judge(&k.slots, gpu, emu),
        }
    }
}

/// A module of `cases` (all of one family) as `k0`, `k1`, ….
pub fn module(cases: &[Case], arch: Arch) -> String {
    match cases.first() {
        Some(Case::Mma(_)) => {
            let ks: Vec<MmaKernel> = cases
                .iter()
                .filter_map(|c| match c {
                    Case::Mma(k) => Some(k.clone()),
                    Case::Scalar(_) => None,
                })
                .collect();
            mma::module(&ks, arch)
        }
        _ => {
            let ks: Vec<Kernel> = cases
                .iter()
                .filter_map(|c| match c {
                    Case::Scalar(k) => Some(k.clone()),
                    Case::Mma(_) => None,
                })
                .collect();
            gen::module(&ks)
        }
    }
}

/// The input frames of a module of a family.
pub fn inputs(family: Family, seed: u64) -> Vec<u8> {
    match family {
        Family::Scalar => super::inputs::inputs(seed),
        Family::Mma => mma::inputs(seed),
    }
}

/// Which register slots of a scalar kernel differ, thread by thread (at most 8 lines).
pub fn describe_diff(gpu: &[u8], emu: &[u8]) -> String {
    let slots = gen::frame();
    let mut lines = Vec::new();
    for t in 0..THREADS {
        for slot in &slots {
            let (at, size) = (t * FRAME + slot.offset, slot.class.size());
            let (g, e) = (&gpu[at..at + size], &emu[at..at + size]);
            if g != e {
                let hex = |b: &[u8]| {
                    b.iter()
                        .rev()
                        .map(|x| format!("{x:02x}"))
                        .collect::<String>()
                };
                lines.push(format!(
                    "thread {t} {}: gpu 0x{} ptxemu 0x{}",
                    slot.reg,
                    hex(g),
                    hex(e)
                ));
            }
        }
    }
    let n = lines.len();
    lines.truncate(8);
    if n > 8 {
        lines.push(format!("… {} more differing slots", n - 8));
    }
    lines.join("\n")
}
