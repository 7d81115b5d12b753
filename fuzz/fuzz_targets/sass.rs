//! Fuzzes the SASS `LD` front end and interpreter: any listing parses or fails with an error;
//! one that parses runs a small launch (two CTAs of 33 threads, two 4 KiB buffers as
//! parameters, a step budget) under the checks the first byte selects; faults are fine,
//! panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let src = String::from_utf8_lossy(rest);
    let Ok(prog) = emu::sass::parse_program(&src) else { return };
    let mut cfg = emu::sass::SassConfig::new([2, 1, 1], [33, 1, 1]);
    cfg.strict = flags & 1 != 0;
    cfg.strict_align = flags & 2 != 0;
    cfg.check_uniform = flags & 4 != 0;
    cfg.registers = if flags & 8 != 0 { 16 } else { 255 };
    cfg.max_steps = 20_000;
    let mut m = emu::sass::SassMachine::default();
    let params: Vec<Vec<u8>> = (0..2).map(|_| m.alloc(4096).to_le_bytes().to_vec()).collect();
    let _ = m.launch(&prog, &cfg, &params);
});
