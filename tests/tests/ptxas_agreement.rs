//! `ptxemu check` agrees with NVIDIA's ptxas on every generated case at every recorded target:
//! ld / ld.global.nc / st (tests/ptxas: gen.py, kernel.ptx, the verdicts in ldst.tsv) and the
//! tcgen05 instructions (gen_tcgen05.py, tcgen05_kernel.ptx, tcgen05.tsv), the syntax Triton
//! emits (gen_triton.py, triton_kernel.ptx, triton.tsv), and the warp-level matrix instructions
//! mma, ldmatrix, stmatrix and movmatrix (gen_mma.py, mma_kernel.ptx, mma.tsv), the
//! warpgroup-level wgmma instructions (gen_wgmma.py, wgmma_kernel.ptx, wgmma.tsv), and
//! tcgen05.mma/commit (gen_tcgen05_mma.py, tcgen05_mma_kernel.ptx, tcgen05_mma.tsv), and the
//! instructions CUTLASS 4.x kernels needed (every prefetch form, clusterlaunchcontrol,
//! `.cta_group` tensor copies: gen_cutlass.py, cutlass_kernel.ptx, cutlass.tsv).
//!
//! The one deliberate difference (tests/ptxas/README.md): where ptxas crashes (`C`: plain
//! `st.param` through a register in a kernel, from PTX ISA 8.7 on), ptxemu accepts, as ptxas
//! itself does at the older targets.

use std::path::Path;

fn dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/ptxas"))
}

/// The module text of one case, as gen.py builds it.
fn module(template: &str, target: &str, version: &str, case: &str) -> String {
    let (major, minor) = version.split_once('.').unwrap();
    let v = (major.parse::<u32>().unwrap(), minor.parse::<u32>().unwrap());
    let b128 = if v >= (8, 3) {
        ".reg .b128 %q<30>;"
    } else {
        ""
    };
    let b128init = if v >= (8, 3) {
        "ld.shared.b128 %q1, [%r2];"
    } else {
        ""
    };
    template
        .replace("{version}", version)
        .replace("{target}", target)
        .replace("{b128regs}", b128)
        .replace("{b128init}", b128init)
        .replace("{body}", case)
}

/// Whether ptxemu accepts the module: it parses and validates without a diagnostic.
fn accepts(src: &str) -> Result<(), String> {
    let m = emu::front::parse_module(src, "case.ptx").map_err(|e| format!("{e}"))?;
    let d = emu::validate::validate_module(&m);
    match d.first() {
        None => Ok(()),
        Some(d) => Err(format!("[{}] {}", d.rule, d.message)),
    }
}

/// Verdicts compared: how many, how many agree, how many ptxas crashed on, the differences.
struct Agreement {
    total: usize,
    agree: usize,
    crashes: usize,
    bad: Vec<String>,
}

/// Compares ptxemu with every recorded verdict of `data` (cases placed in `template`).
fn agreement(template: &str, data: &str) -> Agreement {
    let template = std::fs::read_to_string(dir().join(template)).unwrap();
    let data = std::fs::read_to_string(dir().join(data)).unwrap();
    let mut targets: Vec<(String, String)> = Vec::new();
    let mut a = Agreement {
        total: 0,
        agree: 0,
        crashes: 0,
        bad: Vec::new(),
    };
    for line in data.lines() {
        if let Some(t) = line.strip_prefix("# targets\t") {
            targets = t
                .split('\t')
                .map(|x| {
                    let (a, b) = x.split_once('/').unwrap();
                    (a.to_string(), b.to_string())
                })
                .collect();
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (case, verdicts) = line.rsplit_once('\t').unwrap();
        for ((target, version), v) in targets.iter().zip(verdicts.chars()) {
            a.total += 1;
            let ours = accepts(&module(&template, target, version, case));
            if v == 'C' {
                a.crashes += 1;
                if let Err(e) = ours {
                    a.bad.push(format!(
                        "{target}/{version}\t{case}\tptxas crashes; ptxemu should accept, rejects: {e}"
                    ));
                }
                continue;
            }
            let theirs_ok = v == 'A';
            if ours.is_ok() == theirs_ok {
                a.agree += 1;
            } else {
                a.bad.push(format!(
                    "{target}/{version}\t{case}\tptxas {}, ptxemu {}",
                    if theirs_ok { "accepts" } else { "rejects" },
                    match &ours {
                        Ok(()) => "accepts".to_string(),
                        Err(e) => format!("rejects: {e}"),
                    }
                ));
            }
        }
    }
    a
}

fn assert_agreement(what: &str, a: &Agreement, at_least: usize) {
    assert!(a.total > at_least, "only {} recorded verdicts", a.total);
    eprintln!(
        "ptxas agreement on {what}: {} of {} verdicts ({:.2}%); ptxas crashed on {} more",
        a.agree,
        a.total - a.crashes,
        100.0 * a.agree as f64 / (a.total - a.crashes) as f64,
        a.crashes
    );
    if let Ok(path) = std::env::var("PTXAS_MISMATCHES") {
        std::fs::write(format!("{path}.{what}"), a.bad.join("\n")).unwrap();
    }
    assert!(
        a.bad.is_empty(),
        "{} disagreements with ptxas on {what} (first 40):\n{}",
        a.bad.len(),
        a.bad
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn check_agrees_with_ptxas_on_prefetch_clusterlaunchcontrol_and_cta_group_copies() {
    let a = agreement("cutlass_kernel.ptx", "cutlass.tsv");
    assert_agreement("cutlass", &a, 5_000);
}

#[test]
fn check_agrees_with_ptxas_on_ld_and_st() {
    let a = agreement("kernel.ptx", "ldst.tsv");
    assert_agreement("ld-st", &a, 50_000);
}

#[test]
fn check_agrees_with_ptxas_on_tcgen05() {
    let a = agreement("tcgen05_kernel.ptx", "tcgen05.tsv");
    assert_agreement("tcgen05", &a, 20_000);
}

#[test]
fn check_agrees_with_ptxas_on_tcgen05_mma_and_commit() {
    let a = agreement("tcgen05_mma_kernel.ptx", "tcgen05_mma.tsv");
    assert_agreement("tcgen05-mma", &a, 400);
}

#[test]
fn check_agrees_with_ptxas_on_tcgen05_cp() {
    let a = agreement("tcgen05_kernel.ptx", "tcgen05_cp.tsv");
    assert_agreement("tcgen05.cp", &a, 11_000);
}

#[test]
fn check_agrees_with_ptxas_on_triton_syntax() {
    let a = agreement("triton_kernel.ptx", "triton.tsv");
    assert_agreement("triton", &a, 2_000);
}

#[test]
fn check_agrees_with_ptxas_on_warp_matrix_instructions() {
    let a = agreement("mma_kernel.ptx", "mma.tsv");
    assert_agreement("mma", &a, 15_000);
}

#[test]
fn check_agrees_with_ptxas_on_wgmma() {
    let a = agreement("wgmma_kernel.ptx", "wgmma.tsv");
    assert_agreement("wgmma", &a, 4_000);
}
