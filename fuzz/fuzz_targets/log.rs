//! Fuzzes the readers of hardware results: any text is a litmus7-format log and a harness JSON
//! histogram, read or refused with an error; every state read prints. Panics are not fine.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
