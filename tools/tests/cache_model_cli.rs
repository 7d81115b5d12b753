//! `ptxemu run --cache-model l1`: per-SM non-coherent L1s let weak `ld.ca` read stale lines
//! (which the memory model allows for unsynchronised loads), while `.cg`, acquires and
//! same-SM stores see memory; the default stays coherent; counts come back in `--json`.

use std::path::Path;
use std::process::Command;

fn run(file: &str, kernel: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run", file, "--kernel", kernel, "--json"];
    all.extend_from_slice(args);
    if !args.contains(&"--threads") {
        all.extend(["--threads", "1"]);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(&all)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn values(j: &serde_json::Value, buf: usize) -> Vec<u64> {
    j["buffers"][buf]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

const STALE: [&str; 6] = ["--grid", "2", "--block", "32", "--arg", "u32[64]:zero"];

#[test]
fn a_default_ld_ca_reads_a_stale_line_and_cg_and_acquire_do_not() {
    let mut args = STALE.to_vec();
    args.extend(["--arg", "u32[5]:zero", "--cache-model", "l1", "--sms", "2"]);
    let j = run("tests/fixtures/l1/stale.ptx", "stale", &args);
    assert_eq!(
        values(&j, 1),
        [0, 0, 1, 1, 1],
        "first read, stale .ca, .cg, flag, after acquire"
    );
    let c = &j["cache"];
    assert_eq!(c["model"], "l1");
    assert_eq!(c["loads"]["ca"]["hits"], 1);
    assert_eq!(c["loads"]["ca"]["misses"], 2);
    assert_eq!(c["loads"]["cg"]["misses"], 1);
    assert_eq!(c["invalidations"], 1);
    // One SM: the writer's store updates the line the reader cached.
    let mut one = STALE.to_vec();
    one.extend(["--arg", "u32[5]:zero", "--cache-model", "l1", "--sms", "1"]);
    assert_eq!(
        values(&run("tests/fixtures/l1/stale.ptx", "stale", &one), 1),
        [0, 1, 1, 1, 1]
    );
    // The default is coherent.
    let mut coh = STALE.to_vec();
    coh.extend(["--arg", "u32[5]:zero"]);
    let j = run("tests/fixtures/l1/stale.ptx", "stale", &coh);
    assert_eq!(values(&j, 1), [0, 1, 1, 1, 1]);
    assert!(j["cache"].is_null());
}

#[test]
fn release_acquire_message_passing_holds_under_the_l1_model() {
    for threads in ["1", "0"] {
        for sms in ["1", "3", "4", "16"] {
            let j = run(
                "tests/fixtures/l1/mp.ptx",
                "mp",
                &[
                    "--grid",
                    "16",
                    "--block",
                    "32",
                    "--arg",
                    "u32[16]:zero",
                    "--arg",
                    "u32[16]:zero",
                    "--arg",
                    "u32[16]:zero",
                    "--arg",
                    "u32:1",
                    "--cache-model",
                    "l1",
                    "--sms",
                    sms,
                    "--threads",
                    threads,
                ],
            );
            let want: Vec<u64> = (0..16).map(|k| (k + 1) % 16 + 100).collect();
            assert_eq!(values(&j, 2), want, "sms {sms}, threads {threads}");
        }
    }
    // Relaxed waiting gives no such guarantee: each value is the message or the stale 0.
    let j = run(
        "tests/fixtures/l1/mp.ptx",
        "mp",
        &[
            "--grid",
            "16",
            "--block",
            "32",
            "--arg",
            "u32[16]:zero",
            "--arg",
            "u32[16]:zero",
            "--arg",
            "u32[16]:zero",
            "--arg",
            "u32:0",
            "--cache-model",
            "l1",
            "--sms",
            "4",
        ],
    );
    let got = values(&j, 2);
    assert!(
        got.iter()
            .enumerate()
            .all(|(k, &v)| v == 0 || v == (k as u64 + 1) % 16 + 100),
        "{got:?}"
    );
    assert!(got.contains(&0), "stale lines do show: {got:?}");
}
