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
                    mach.alloc(4096, "fuzz buffer").to_le_bytes().to_vec()
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
        .map(|_| m.alloc(4096).to_le_bytes().to_vec())
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
