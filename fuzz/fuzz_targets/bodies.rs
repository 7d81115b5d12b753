//! The body of every fuzz target, as plain functions: the cargo-fuzz targets call them, and so
//! does the stable-Rust campaign driver `tests/tests/fuzz_campaign.rs` (no nightly toolchain
//! needed). Each takes any bytes; errors and faults are fine, panics are not.
#![allow(dead_code)]

#[path = "shapes_gen.rs"]
pub mod shapes_gen;

/// `parse`: any input parses or fails with an error; a parsed module validates and prints
/// without panicking, and the printed form parses again.
pub fn parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    if let Ok(m) = emu::front::parse_module(&src, "fuzz.ptx") {
        let _ = emu::validate::validate_module(&m);
        let printed = emu::front::print_module(&m);
        assert!(
            emu::front::parse_module(&printed, "printed.ptx").is_ok(),
            "printed form does not parse:\n{printed}"
        );
    }
}

/// `run`: a module that parses and validates runs every kernel once (two CTAs of 33 threads,
/// 4 KiB zeroed buffers for pointer parameters, a step budget).
pub fn run(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let Ok(m) = emu::front::parse_module(&src, "fuzz.ptx") else {
        return;
    };
    if !emu::validate::validate_module(&m).is_empty() {
        return;
    }
    let Ok(valid) = emu::validate::Validated::new(m) else {
        return;
    };
    let Ok(mut mach) = emu::exec::Machine::load(&valid, "fuzz.ptx") else {
        return;
    };
    let m = valid.module();
    let kernels: Vec<(String, Vec<u64>)> = m
        .kernels()
        .map(|(_, f)| {
            let sizes = f
                .params
                .iter()
                .map(|p| p.var.size_bytes().unwrap_or(0))
                .collect();
            (f.name.clone(), sizes)
        })
        .collect();
    for (name, sizes) in kernels {
        let args: Vec<Vec<u8>> = sizes
            .iter()
            .map(|&s| {
                if s == 8 {
                    mach.alloc(4096, "fuzz buffer")
                        .unwrap_or(0)
                        .to_le_bytes()
                        .to_vec()
                } else {
                    vec![0; s.min(1 << 16) as usize]
                }
            })
            .collect();
        let mut cfg = emu::exec::LaunchConfig::new(&name, [2, 1, 1], [33, 1, 1]);
        cfg.max_steps = 20_000;
        cfg.threads = 1;
        let _ = mach.launch(&cfg, &args);
    }
}

/// `sass`: a SASS listing (after a flags byte) parses or fails; one that parses runs a small
/// launch under the checks the flags select.
pub fn sass(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let src = String::from_utf8_lossy(rest);
    let Ok(prog) = emu::sass::parse_program(&src) else {
        return;
    };
    let mut cfg = emu::sass::SassConfig::new([2, 1, 1], [33, 1, 1]);
    cfg.strict = flags & 1 != 0;
    cfg.strict_align = flags & 2 != 0;
    cfg.check_uniform = flags & 4 != 0;
    cfg.registers = if flags & 8 != 0 { 16 } else { 255 };
    cfg.max_steps = 20_000;
    let mut m = emu::sass::SassMachine::default();
    let params: Vec<Vec<u8>> = (0..2)
        .map(|_| m.alloc(4096).unwrap_or(0).to_le_bytes().to_vec())
        .collect();
    let _ = m.launch(&prog, &cfg, &params);
}

/// `litmus`: a litmus test (after a flags byte) parses or fails; one that parses runs under
/// the model the flags select (small candidate budget) and becomes a hardware harness.
pub fn litmus(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let src = String::from_utf8_lossy(rest);
    let Ok(test) = litmus::parse(&src) else {
        return;
    };
    let ro = litmus::run::RunOptions {
        model: match flags % 3 {
            0 => models::ptx::Model::PtxV75,
            1 => models::ptx::Model::PtxV60,
            _ => models::ptx::Model::Sc,
        },
        liveness: flags & 4 != 0,
        max_candidates: 20_000,
        ..Default::default()
    };
    let _ = litmus::run::run(&test, &ro);
    if flags & 8 != 0 {
        let _ = litmus::explain::explain(&test, &ro, None);
    }
    let _ = litmus::harness::generate(
        &test,
        "fuzz.litmus",
        &litmus::harness::HarnessOptions::default(),
    );
}

/// `log`: any text is read as a litmus7 log and as a harness JSON histogram.
pub fn log(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(logs) = litmus::compare::parse_log(&text) {
        for o in &logs {
            let _ = o.instances();
            for (state, _) in &o.states {
                let _ = litmus::compare::state_text(state);
            }
        }
    }
    if let Ok(o) = litmus::compare::parse_histogram_json(&text) {
        let _ = o.instances();
    }
}

/// `shapes`: wide and deep inputs from three bytes (see `shapes_gen.rs`) parse or are refused;
/// what parses runs under a small budget, is explained and becomes a harness.
pub fn shapes(data: &[u8]) {
    match shapes_gen::from_bytes(data) {
        Some(shapes_gen::Shape::Litmus(src)) => {
            if let Ok(test) = litmus::parse(&src) {
                let ro = litmus::run::RunOptions {
                    max_candidates: 20_000,
                    ..Default::default()
                };
                let _ = litmus::run::run(&test, &ro);
                let _ = litmus::explain::explain(&test, &ro, None);
                let _ = litmus::harness::generate(
                    &test,
                    "s.litmus",
                    &litmus::harness::HarnessOptions::default(),
                );
            }
        }
        Some(shapes_gen::Shape::Ptx(src)) => {
            if let Ok(m) = emu::front::parse_module(&src, "s.ptx") {
                let _ = emu::validate::validate_module(&m);
            }
        }
        None => {}
    }
}

/// `race_report`: any text is read as a `--race --json` report (`explain --race-report`);
/// one that reads is explained as text, DOT, SVG and a page. No output holds a raw control
/// character (the report's text is input).
pub fn race_report(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(report) = litmus::explain::race::parse_report(&text) else {
        return;
    };
    let _ = report.text();
    let _ = litmus::explain::race::draw::svg(&report, "fuzz");
    let _ = litmus::explain::race::draw::dot(&report, "fuzz");
    let page = litmus::explain::race::draw::page(&report, "fuzz");
    assert!(
        !page.chars().any(|c| c == '\u{1b}' || c == '\u{7}'),
        "a raw control character in the page"
    );
}

/// The module every fuzzed plan runs against: a kernel `k(.param .u64 p)` that adds one to
/// `p[tid]` for 4 threads, a `.global` variable `g` and a `.const` one `c`.
pub const PLAN_MODULE: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.global .u32 g[4];\n.const .u32 c[4];\n\
.visible .entry k(.param .u64 p)\n{\n.reg .u64 %rd<4>;\n.reg .u32 %r<4>;\n\
ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\n\
add.u64 %rd3, %rd1, %rd2;\nld.global.u32 %r2, [%rd3];\nadd.u32 %r2, %r2, 1;\n\
st.global.u32 [%rd3], %r2;\nret;\n}\n";

/// `plan`: any text is a launch plan (`ptxemu run --plan`) over [`PLAN_MODULE`], run by the
/// command line itself, as a user runs it (so that an abort or a stack overflow is caught,
/// not only a panic), under small budgets (`--timeout 2 --max-steps 100000 --memory-limit
/// 64M`). It exits 0-3 without a panic, and writes nothing outside the plan's folder: the
/// plan sits in `case/plan/`, and `case/` must hold nothing else afterwards.
///
/// The binary is `$PTXEMU_BIN`, else the workspace's `target/release/ptxemu`.
pub fn plan(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CASE: AtomicU64 = AtomicU64::new(0);
    let bin = std::env::var_os("PTXEMU_BIN").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/ptxemu"),
        std::path::PathBuf::from,
    );
    assert!(
        bin.exists(),
        "{}: build ptxemu first (cargo build --release), or set PTXEMU_BIN",
        bin.display()
    );
    let case = std::env::temp_dir().join(format!(
        "ptxemu-fuzz-plan-{}-{}",
        std::process::id(),
        CASE.fetch_add(1, Ordering::Relaxed)
    ));
    let dir = case.join("plan");
    let _ = std::fs::remove_dir_all(&case);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    std::fs::write(dir.join("k.ptx"), PLAN_MODULE).expect("module");
    std::fs::write(dir.join("in.bin"), [1u8; 16]).expect("input");
    std::fs::write(dir.join("p.json"), data).expect("plan");
    let out = std::process::Command::new(&bin)
        .args([
            "run",
            "--plan",
            "p.json",
            "--timeout",
            "2",
            "--max-steps",
            "100000",
            "--memory-limit",
            "64M",
            "--threads",
            "1",
        ])
        .current_dir(&dir)
        .env("RUST_BACKTRACE", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("ptxemu runs");
    let err = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    let outside: Vec<_> = std::fs::read_dir(&case)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name())
                .filter(|n| n != "plan")
                .collect()
        })
        .unwrap_or_default();
    let _ = std::fs::remove_dir_all(&case);
    assert!(
        matches!(code, Some(0..=3)),
        "exit {code:?} (a signal: an abort or a crash):\n{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        outside.is_empty(),
        "written outside the plan's folder: {outside:?}"
    );
}
