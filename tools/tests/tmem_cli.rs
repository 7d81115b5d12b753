//! `ptxemu run --trace-tmem` and `--tmem-check`: the trace names, for each tcgen05
//! instruction, every thread's registers with the Tensor Memory cells they came from or went
//! to, as text and in `--json`; checked mode can be turned off.

use std::path::Path;
use std::process::{Command, Output};

fn run(extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "tests/fixtures/tmem/trace.ptx",
        "--kernel",
        "trace",
        "--block",
        "32",
        "--arg",
        "u32[64]:zero",
    ];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(&args)
        .output()
        .unwrap()
}

#[test]
fn the_text_trace_shows_each_threads_cells() {
    let o = run(&["--arg", "u32:0", "--trace-tmem"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(
        t.contains("tcgen05 trace: CTA (0,0,0), warp 0, line 19: tcgen05.alloc"),
        "{t}"
    );
    assert!(t.contains("allocated 32 columns from column 0"), "{t}");
    assert!(
        t.contains("line 22: tcgen05.st.sync.aligned.16x64b.x1.unpack::16b.b32"),
        "{t}"
    );
    // .16x64b, thread 5: lane (5>>2) + 8·(5&1) = 9, unpacked column ((5>>1)&1) = 0, so the two
    // halves go to the low 16 bits of columns 0 and 1.
    assert!(
        t.contains("  thread 5: %r10 -> (9,0)+(9,1) 0x00010005\n"),
        "{t}"
    );
    // .32x32b.x2, thread 9 reads lane 9, columns 0 and 1: thread 5's two halves.
    assert!(
        t.contains("  thread 9: %r11 <- (9,0) 0x00000005, %r12 <- (9,1) 0x00000001\n"),
        "{t}"
    );
    assert!(t.contains("freed 32 columns from column 0"), "{t}");
}

#[test]
fn the_json_trace_lists_every_move() {
    let o = run(&["--arg", "u32:0", "--trace-tmem", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let trace = j["tmem_trace"].as_array().unwrap();
    let actions: Vec<&str> = trace
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["alloc", "st", "ld", "dealloc"]);
    let st = &trace[1];
    assert_eq!(st["taddr"], 0);
    let moves = st["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 32, "one register per thread");
    for m in moves {
        let t = m["thread"].as_u64().unwrap() as u32;
        let lane = (t >> 2) + 8 * (t & 1);
        let col = 2 * ((t >> 1) & 1);
        assert_eq!(m["register"], "%r10");
        assert_eq!(
            m["cells"],
            serde_json::json!([[lane, col], [lane, col + 1]])
        );
        assert_eq!(m["value"], 0x10000 + t);
    }
    let ld = &trace[2]["moves"].as_array().unwrap();
    assert_eq!(ld.len(), 64, "two registers per thread");
    let out: Vec<u64> = j["buffers"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    for (k, m) in ld.iter().enumerate() {
        let t = m["thread"].as_u64().unwrap() as usize;
        let r = if m["register"] == "%r11" { 0 } else { 1 };
        assert_eq!(out[2 * t + r], m["value"].as_u64().unwrap(), "move {k}");
    }
}

#[test]
fn checked_mode_can_be_turned_off() {
    let o = run(&["--arg", "u32:1"]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("column 200 (lane 0) is not allocated"), "{e}");
    let o = run(&["--arg", "u32:1", "--tmem-check", "off"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&["--arg", "u32:1", "--tmem-check", "maybe"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected on, strict or off"));
}
