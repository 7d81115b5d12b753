//! Fuzzes the front end: any input must parse or fail with an error, never panic; a module
//! that parses must validate and print without panicking, and its printed form must parse.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    if let Ok(m) = emu::front::parse_module(&src, "fuzz.ptx") {
        let _ = emu::validate::validate_module(&m);
        let printed = emu::front::print_module(&m);
        assert!(emu::front::parse_module(&printed, "printed.ptx").is_ok(), "printed form does not parse:\n{printed}");
    }
});
