//! Hardware harnesses: a litmus test as a self-contained CUDA program that runs it many times
//! on a real GPU, in the parallel-testing style, and prints what it observed as a litmus7 log
//! plus a JSON histogram (which `ptxemu compare` reads back).
//!
//! Layout of one launch with `n` instances (`n` a power of two, at least 32):
//! * the test's threads are grouped by CTA id; each group gets `n / 32` CTAs, interleaved, and
//!   in a CTA of the group each of its threads gets its own warp (threads of one CTA id run in
//!   the same CTA, in different warps; threads of different CTA ids run in different CTAs);
//! * every lane of such a warp plays that thread for one instance, and which instance a lane
//!   serves is an affine permutation of its slot, drawn afresh per group and per iteration, so
//!   an instance's partner threads sit in unrelated CTAs and lanes;
//! * location `l` of instance `i` is the 64-bit word `(l * n + perm(i)) * stride` of one
//!   buffer (`perm` again redrawn each iteration), so locations of neighbouring instances are
//!   spread apart by the stride;
//! * before running its code a thread bumps its instance's counter and spins, for a bounded
//!   number of rounds, until every thread of the instance has arrived;
//! * optional stressing CTAs hammer a scratch buffer with loads and stores meanwhile.
//!
//! The test's instructions are pasted into inline PTX exactly as written (dialect
//! instructions as the PTX instructions they stand for, as [`crate::lower`] reads them).

mod cuda;
mod role;

use std::fmt::Write as _;

use crate::ast::{Expr, Inst, LocDecl, Term, Test};
use crate::run::{prepare, RunError};

/// How the generated program runs a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarnessOptions {
    /// Instances per launch (a power of two, at least 32).
    pub instances: u32,
    /// Launches.
    pub iterations: u32,
    /// Stressing CTAs launched beside the testing ones (0: none).
    pub stress: u32,
    /// Loads/stores each stressing thread performs per launch.
    pub stress_rounds: u32,
    /// Distance between neighbouring instances' copies of a location, in 64-bit words.
    pub stride: u32,
    /// Rounds a thread spins at most in the pre-test synchronisation.
    pub spin: u32,
    /// Seed of the permutations.
    pub seed: u64,
    /// The `-arch` of the nvcc build line.
    pub arch: String,
}

impl Default for HarnessOptions {
    fn default() -> HarnessOptions {
        HarnessOptions {
            instances: 4096,
            iterations: 1000,
            stress: 0,
            stress_rounds: 256,
            stride: 8,
            spin: 4096,
            seed: 1,
            arch: "sm_90".into(),
        }
    }
}

/// Why a test cannot become a harness.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HarnessError {
    /// The test could not be prepared.
    #[error(transparent)]
    Prepare(#[from] RunError),
    /// Its threads are placed on different GPUs.
    #[error("threads on different GPUs ({0}) cannot run in one CUDA launch; the harness runs single-GPU tests only")]
    DifferentGpus(String),
    /// Two threads share a warp (a GPU_PTX scope tree can say so); every role fills a warp.
    #[error(
        "P{0} and P{1} share a warp; the harness runs each litmus thread in a warp of its own"
    )]
    SameWarp(u32, u32),
    /// It declares aliases.
    #[error("location `{0}` is a virtual alias; the harness cannot map one physical location at two addresses")]
    Alias(String),
    /// Two of its threads sit in different CTAs of one cluster (`,cluster N`).
    #[error("P{0} and P{1} are in different CTAs of one cluster; the harness launches no clusters (each CTA is a cluster of its own)")]
    Cluster(u32, u32),
    /// An instruction cannot run as the test means it on hardware.
    #[error("line {line}: thread P{thread}: {why}")]
    Unsupported {
        /// Thread.
        thread: u32,
        /// Source line.
        line: u32,
        /// Why.
        why: String,
    },
    /// Bad options.
    #[error("{0}")]
    Options(String),
}

/// A generated harness.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The test's name.
    pub name: String,
    /// The CUDA source.
    pub source: String,
    /// The nvcc command line that builds it (source `NAME.cu`, program `NAME`).
    pub build_line: String,
}

/// The nvcc command line that builds `stem.cu` into `stem`.
pub fn build_line(stem: &str, arch: &str) -> String {
    format!("nvcc -O3 -arch={arch} -o '{stem}' '{stem}.cu'")
}

/// A term as litmus7 prints it (`1:r0`, `x`).
pub fn litmus7_term(t: &Term) -> String {
    match t {
        Term::Reg(th, r) => format!("{th}:{}", r.trim_start_matches('%')),
        Term::Loc(l) => l.clone(),
        Term::Const(c) => c.to_string(),
    }
}

/// A condition as litmus7 prints it (`1:r0=1 /\ 1:r1=0`).
pub fn litmus7_expr(e: &Expr) -> String {
    match e {
        Expr::True => "true".into(),
        Expr::Not(a) => format!("not ({})", litmus7_expr(a)),
        Expr::And(a, b) => format!("({} /\\ {})", litmus7_expr(a), litmus7_expr(b)),
        Expr::Or(a, b) => format!("({} \\/ {})", litmus7_expr(a), litmus7_expr(b)),
        Expr::Cmp(a, op, b) => {
            let sym = match op.symbol() {
                "==" => "=",
                s => s,
            };
            format!("{}{sym}{}", litmus7_term(a), litmus7_term(b))
        }
    }
}

/// Writes the test's harness.
///
/// # Errors
/// Tests the hardware cannot run as written: threads on several GPUs, aliases, proxy accesses,
/// barrier ids, quorums, arrives and patterns that would hang, `red` with acquire semantics,
/// non-global state spaces; and options out of range. Loops run under a budget.
pub fn generate(test: &Test, file: &str, o: &HarnessOptions) -> Result<Harness, HarnessError> {
    if o.instances < 32 || !o.instances.is_power_of_two() {
        return Err(HarnessError::Options(format!(
            "--instances must be a power of two of at least 32 (got {})",
            o.instances
        )));
    }
    if o.iterations == 0 || o.stride == 0 {
        return Err(HarnessError::Options(
            "--iterations and --stride must be positive".into(),
        ));
    }
    let gpus: std::collections::BTreeSet<u32> = test.threads.iter().map(|t| t.gpu).collect();
    if gpus.len() > 1 {
        let list: Vec<String> = test
            .threads
            .iter()
            .map(|t| format!("P{}@gpu {}", t.id, t.gpu))
            .collect();
        return Err(HarnessError::DifferentGpus(list.join(", ")));
    }
    for (k, a) in test.threads.iter().enumerate() {
        if let Some(b) = test.threads[k + 1..]
            .iter()
            .find(|b| a.warp.is_some() && (a.gpu, a.cta, a.warp) == (b.gpu, b.cta, b.warp))
        {
            return Err(HarnessError::SameWarp(a.id, b.id));
        }
    }
    if let Some((name, _)) = test
        .locations
        .iter()
        .find(|(_, d)| matches!(d, LocDecl::Alias { .. }))
    {
        return Err(HarnessError::Alias(name.clone()));
    }
    let p = prepare(test)?;
    for (k, a) in test.threads.iter().enumerate() {
        if let Some((_, b)) = test
            .threads
            .iter()
            .enumerate()
            .skip(k + 1)
            .find(|(j, b)| p.clusters[k] == p.clusters[*j] && (a.gpu, a.cta) != (b.gpu, b.cta))
        {
            return Err(HarnessError::Cluster(a.id, b.id));
        }
    }
    let locations = p.locs.names.clone();

    // Groups of threads by CTA id, in order of first appearance.
    let mut groups: Vec<u32> = Vec::new();
    for th in &test.threads {
        if !groups.contains(&th.cta) {
            groups.push(th.cta);
        }
    }
    let mut placement = Vec::new();
    let mut warps = 1;
    for (t, th) in test.threads.iter().enumerate() {
        let g = groups.iter().position(|&c| c == th.cta).unwrap_or(0);
        let w = test.threads[..t].iter().filter(|o| o.cta == th.cta).count();
        warps = warps.max(w + 1);
        placement.push((g, w));
    }

    // Observed registers per thread, in the order of the shown terms.
    let mut observed: Vec<Vec<String>> = vec![Vec::new(); test.threads.len()];
    let mut term_source = Vec::new();
    let mut slots = 0usize;
    let mut slot_of: Vec<Vec<usize>> = vec![Vec::new(); test.threads.len()];
    for term in &p.terms {
        match term {
            Term::Reg(th, r) => {
                let t = *th as usize;
                observed[t].push(r.clone());
                slot_of[t].push(slots);
                term_source.push(cuda::TermSource::Slot(slots));
                slots += 1;
            }
            Term::Loc(l) => {
                let k = p.locs.get(l).unwrap_or(0) as usize;
                term_source.push(cuda::TermSource::Location(k));
            }
            Term::Const(c) => term_source.push(cuda::TermSource::Const(*c)),
        }
    }
    check_barriers(test)?;
    let mut roles = Vec::new();
    for t in 0..test.threads.len() {
        let asm = role::role_asm(test, t, &locations, &observed[t])?;
        roles.push(cuda::Role {
            group: placement[t].0,
            warp: placement[t].1,
            asm,
            slots: slot_of[t].clone(),
        });
    }
    let stem = stem_of(file);
    let mut header = String::new();
    let _ = writeln!(
        header,
        "// Hardware harness for litmus test {} ({file}).",
        test.name
    );
    let _ = writeln!(
        header,
        "// Generated by ptxemu harness; build: {}",
        build_line(&stem, &o.arch)
    );
    let spec = cuda::Spec {
        name: &test.name,
        header,
        quantifier: test.quantifier,
        condition: &test.condition,
        terms: &p.terms,
        term_source,
        locations: &locations,
        init: &p.init,
        groups: groups.len(),
        warps,
        roles,
        slots,
        options: o,
    };
    Ok(Harness {
        name: test.name.clone(),
        source: cuda::program(&spec),
        build_line: build_line(&stem, &o.arch),
    })
}

/// Refuses barrier uses that would hang on hardware. Without a thread count, `bar.sync` waits
/// for every thread of the CTA that has not exited, so the threads of one CTA progress only
/// while all those still running stand at the same barrier; a thread whose loop budget runs
/// out exits, which releases the others.
fn check_barriers(test: &Test) -> Result<(), HarnessError> {
    let barriers_of = |t: usize| -> Vec<(String, u32)> {
        test.code[t]
            .iter()
            .filter_map(|(i, line)| match i {
                Inst::Barrier { instance, .. } => Some((instance.to_string(), *line)),
                _ => None,
            })
            .collect()
    };
    let mut ctas: Vec<u32> = test.threads.iter().map(|t| t.cta).collect();
    ctas.dedup();
    for cta in ctas {
        let members: Vec<usize> = (0..test.threads.len())
            .filter(|&t| test.threads[t].cta == cta)
            .collect();
        let seqs: Vec<Vec<(String, u32)>> = members.iter().map(|&t| barriers_of(t)).collect();
        let mut at = vec![0usize; seqs.len()];
        loop {
            let waiting: Vec<usize> = (0..seqs.len()).filter(|&k| at[k] < seqs[k].len()).collect();
            let Some(&first) = waiting.first() else { break };
            let id = &seqs[first][at[first]].0;
            if let Some(&other) = waiting.iter().find(|&&k| &seqs[k][at[k]].0 != id) {
                let (t, u) = (members[first], members[other]);
                return Err(HarnessError::Unsupported {
                    thread: t as u32,
                    line: seqs[first][at[first]].1,
                    why: format!(
                        "P{t} would wait at barrier {id} while P{u} waits at barrier {} (line {}); without a thread count each barrier waits for the whole CTA, so hardware would hang",
                        seqs[other][at[other]].0,
                        seqs[other][at[other]].1
                    ),
                });
            }
            for k in waiting {
                at[k] += 1;
            }
        }
    }
    Ok(())
}

/// The file stem of a litmus path (`dir/MP+rlx.litmus` → `MP+rlx`).
pub fn stem_of(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .map_or_else(|| "test".to_string(), |s| s.to_string_lossy().into_owned())
}
