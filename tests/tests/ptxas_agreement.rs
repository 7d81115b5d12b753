//! `ptxemu check` agrees with NVIDIA's ptxas on every generated ld / ld.global.nc / st case at
//! every recorded target (tests/ptxas: gen.py, kernel.ptx, the recorded verdicts in ldst.tsv).
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
    template
        .replace("{version}", version)
        .replace("{target}", target)
        .replace("{b128regs}", b128)
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

#[test]
fn check_agrees_with_ptxas_on_ld_and_st() {
    let template = std::fs::read_to_string(dir().join("kernel.ptx")).unwrap();
    let data = std::fs::read_to_string(dir().join("ldst.tsv")).unwrap();
    let mut targets: Vec<(String, String)> = Vec::new();
    let (mut total, mut agree) = (0usize, 0usize);
    let mut bad = Vec::new();
    let mut crashes = 0usize;
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
            total += 1;
            let ours = accepts(&module(&template, target, version, case));
            if v == 'C' {
                crashes += 1;
                if let Err(e) = ours {
                    bad.push(format!(
                        "{target}/{version}\t{case}\tptxas crashes; ptxemu should accept, rejects: {e}"
                    ));
                }
                continue;
            }
            let theirs_ok = v == 'A';
            if ours.is_ok() == theirs_ok {
                agree += 1;
            } else {
                bad.push(format!(
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
    assert!(total > 50_000, "only {total} recorded verdicts");
    eprintln!(
        "ptxas agreement: {agree} of {} verdicts ({:.2}%); ptxas crashed on {crashes} more",
        total - crashes,
        100.0 * agree as f64 / (total - crashes) as f64
    );
    if let Ok(path) = std::env::var("PTXAS_MISMATCHES") {
        std::fs::write(path, bad.join("\n")).unwrap();
    }
    assert!(
        bad.is_empty(),
        "{} disagreements with ptxas (first 40):\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
