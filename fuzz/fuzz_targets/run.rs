//! Fuzzes the interpreter: a module that parses and validates is run (every kernel, one small
//! launch, zero-filled buffer arguments); faults are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let Ok(m) = emu::front::parse_module(&src, "fuzz.ptx") else { return };
    if !emu::validate::validate_module(&m).is_empty() {
        return;
    }
    let Ok(mut mach) = emu::exec::Machine::load(&m, "fuzz.ptx") else { return };
    let kernels: Vec<(String, Vec<u64>)> = m
        .kernels()
        .map(|(_, f)| (f.name.clone(), f.params.iter().map(|p| p.var.size_bytes().unwrap_or(0)).collect()))
        .collect();
    for (name, sizes) in kernels {
        let args: Vec<Vec<u8>> = sizes
            .iter()
            .map(|&s| {
                if s == 8 {
                    mach.alloc(4096, "fuzz buffer").to_le_bytes().to_vec()
                } else {
                    vec![0; s as usize]
                }
            })
            .collect();
        let mut cfg = emu::exec::LaunchConfig::new(&name, [2, 1, 1], [33, 1, 1]);
        cfg.max_steps = 20_000;
        cfg.threads = 1;
        let _ = mach.launch(&cfg, &args);
    }
});
