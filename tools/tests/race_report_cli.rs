//! `ptxemu run --race` reports a CUDA programmer can act on (issue 39): races that depend on
//! Fence-SC order found on the default run, every racing pair of instructions with its count,
//! the report piped live into `ptxemu explain --race-report -`, the printed-report limit and
//! the summary line. Expected verdicts come from the fixtures' headers, argued from the PTX
//! memory model (tests/fixtures/race_kernels/README.md), not from ptxemu.

mod fixture_common;

use std::io::Write;
use std::process::{Command, Stdio};

use fixture_common::ptxemu_in_workspace as ptxemu;
use serde_json::Value as Json;

const DIR: &str = "tests/fixtures/race_kernels";

/// The launch of the last-block fixture (array, n, result, count).
const LAST_BLOCK: &[&str] = &[
    "--grid",
    "4",
    "--block",
    "64",
    "--arg",
    "f32[256]:fill=1",
    "--arg",
    "u32:256",
    "--arg",
    "f32[4]:zero",
    "--arg",
    "u32[1]:zero",
];

fn run_args(file: &str, kernel: &str, launch: &[&str], extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "run".into(),
        format!("{DIR}/{file}"),
        "--kernel".into(),
        kernel.into(),
    ];
    v.extend(launch.iter().chain(extra).map(|s| s.to_string()));
    v
}

fn race_json(file: &str, kernel: &str, launch: &[&str], extra: &[&str]) -> (Option<i32>, Json) {
    let mut args = run_args(file, kernel, launch, extra);
    args.extend(["--race".into(), "--json".into()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptxemu(&refs);
    let j = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{kernel}: {e}: {}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), j)
}

/// (first line, second line, count, fence_sc_dependent) of each race.
fn pairs(j: &Json) -> Vec<(u64, u64, u64, bool)> {
    j["races"]
        .as_array()
        .expect("races")
        .iter()
        .map(|r| {
            (
                r["first"]["line"].as_u64().unwrap(),
                r["second"]["line"].as_u64().unwrap(),
                r["count"].as_u64().unwrap(),
                r["fence_sc_dependent"].as_bool().unwrap(),
            )
        })
        .collect()
}

const PAIRS_LAUNCH: &[&str] = &["--grid", "1", "--block", "96", "--arg", "u32[1]:zero"];

#[test]
fn every_racing_pair_of_instructions_is_reported_once_with_its_count() {
    // (kernel, expected pairs of PTX lines) from pairs.ptx's header.
    let cases: &[(&str, &[(u64, u64)])] = &[
        ("two_stores_one_load", &[(27, 31), (27, 35), (31, 35)]),
        ("one_thread_two_stores", &[(49, 54), (50, 54)]),
        ("two_reads_one_store", &[(68, 73), (69, 73)]),
    ];
    for (kernel, want) in cases {
        let (code, j) = race_json("pairs.ptx", kernel, PAIRS_LAUNCH, &[]);
        assert_eq!(code, Some(1), "{kernel}: {j}");
        let got: Vec<(u64, u64)> = pairs(&j).iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(&got, want, "{kernel}");
        assert!(pairs(&j).iter().all(|p| p.2 == 1 && !p.3), "{kernel}: {j}");
        assert_eq!(j["race_summary"]["instruction_pairs"], want.len());
        assert_eq!(j["race_summary"]["access_pairs"], want.len());
    }
}

#[test]
fn the_count_is_the_number_of_racing_access_pairs() {
    // reduce_missing_sync, 2 CTAs of 128 threads: the first step reads sdata[tid + 32] for
    // tid < 32 (warp 0) before warp 1 stores it: 32 pairs per CTA. The step for 16 reads
    // sdata[tid + 16], stored twice by thread tid + 16 (its load of the input, then the step
    // for 32), with no barrier: 16 pairs per store per CTA.
    let launch = &[
        "--grid",
        "2",
        "--block",
        "128",
        "--arg",
        "f32[256]:fill=1",
        "--arg",
        "f32[2]:zero",
    ];
    let (_, j) = race_json(
        "reductions.ptx",
        "_Z19reduce_missing_syncPKfPf",
        launch,
        &[],
    );
    let p = pairs(&j);
    let count = |a: u64, b: u64| p.iter().find(|x| x.0 == a && x.1 == b).map(|x| x.2);
    assert_eq!(count(170, 163), Some(64), "{p:?}");
    assert_eq!(count(163, 179), Some(32), "{p:?}");
    assert_eq!(count(172, 179), Some(32), "{p:?}");
    let total: u64 = p.iter().map(|x| x.2).sum();
    assert_eq!(j["race_summary"]["access_pairs"], total);
}

/// The guide's last-block sum: every racing pair is found on the default run, whether this
/// run's Fence-SC order hides it or not; the race-free variant stays silent.
#[test]
fn the_last_block_sums_get_their_verdicts_on_the_default_run() {
    // (kernel, races: (first line, second line, fence_sc_dependent)), from last_block.cu.
    type Expected = &'static [(u64, u64, bool)];
    let cases: &[(&str, Expected)] = &[
        (
            "_Z19sum_no_reader_fencePKfjPfPj",
            &[(91, 118, true), (91, 151, true)],
        ),
        (
            "_Z14sum_cta_ticketPKfjPfPj",
            &[(228, 255, true), (228, 288, true), (232, 232, false)],
        ),
        ("_Z10sum_fencedPKfjPfPj", &[]),
        ("_Z21sum_fenced_cta_ticketPKfjPfPj", &[(507, 507, true)]),
        (
            "_Z20sum_cta_reader_fencePKfjPfPj",
            &[(641, 669, true), (641, 702, true)],
        ),
    ];
    for (kernel, want) in cases {
        let (code, j) = race_json("last_block.ptx", kernel, LAST_BLOCK, &[]);
        let got: Vec<(u64, u64, bool)> = pairs(&j).iter().map(|p| (p.0, p.1, p.3)).collect();
        assert_eq!(&got, want, "{kernel}: {j}");
        assert_eq!(code, Some(u8::from(!want.is_empty()).into()), "{kernel}");
        assert_eq!(j["race_summary"]["sc_undecided"], 0);
    }
    // The partials: blocks 0, 1 and 2 against the last block's reads (one load instruction
    // reads every partial).
    let (_, j) = race_json(
        "last_block.ptx",
        "_Z19sum_no_reader_fencePKfjPfPj",
        LAST_BLOCK,
        &[],
    );
    let r = &j["races"][0];
    assert_eq!(r["count"], 3);
    assert_eq!(r["second"]["cta"], serde_json::json!([3, 0, 0]));
    let why = r["reason"].as_str().unwrap();
    assert!(why.contains("under every Fence-SC order"), "{why}");
    assert!(
        why.contains("the fence.sc at line 92 by thread (0,0,0) of CTA (0,0,0)"),
        "{why}"
    );
    assert!(why.contains("of CTA (3,0,0), before the second"), "{why}");
}

/// Cross-check with real interleavings: taking Fence-SC order as the fences ran
/// (`--race-sc-order run`), random schedules exhibit the race only on the few runs whose
/// interleaving puts the last block's fence early; the default finds it on every run.
#[test]
fn random_schedules_confirm_the_races_found_under_another_order() {
    let small = &[
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "f32[64]:fill=1",
        "--arg",
        "u32:64",
        "--arg",
        "f32[2]:zero",
        "--arg",
        "u32[1]:zero",
    ];
    let k = "_Z19sum_no_reader_fencePKfjPfPj";
    let (_, as_run) = race_json(
        "last_block.ptx",
        k,
        small,
        &[
            "--race-sc-order",
            "run",
            "--schedule",
            "random",
            "--runs",
            "1000",
        ],
    );
    let (_, any) = race_json("last_block.ptx", k, small, &[]);
    let lines = |j: &Json| -> Vec<(u64, u64)> { pairs(j).iter().map(|p| (p.0, p.1)).collect() };
    assert_eq!(lines(&as_run), lines(&any), "{as_run}");
    assert!(as_run["races"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["seen"] == "some" && r["fence_sc_dependent"] == false));
    // As the fences ran on the default schedule, nothing races.
    let (code, j) = race_json("last_block.ptx", k, small, &["--race-sc-order", "run"]);
    assert_eq!((code, pairs(&j).len()), (Some(0), 0), "{j}");
    // The race-free variant stays so on every random schedule too.
    let (code, j) = race_json(
        "last_block.ptx",
        "_Z10sum_fencedPKfjPfPj",
        small,
        &["--schedule", "random", "--runs", "200"],
    );
    assert_eq!((code, pairs(&j).len()), (Some(0), 0), "{j}");
}

/// `ptxemu run … --race --json | ptxemu explain --race-report -`, live, as docs/race.md shows
/// it: every report the detector writes is read, and each race meets every condition of the
/// definition that explain checks on its own.
#[test]
fn a_live_report_pipes_into_explain() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "message_passing.ptx",
            "mp_fence_cta",
            &[
                "--grid",
                "2",
                "--block",
                "32",
                "--arg",
                "u32[1]:zero",
                "--arg",
                "u32[1]:zero",
            ],
        ),
        (
            "sync_scopes.ptx",
            "_Z8lock_ctaPjS_S_",
            &[
                "--grid",
                "8",
                "--block",
                "32",
                "--arg",
                "u32[8]:zero",
                "--arg",
                "u32[1]:zero",
                "--arg",
                "u32[1]:zero",
            ],
        ),
        ("last_block.ptx", "_Z14sum_cta_ticketPKfjPfPj", LAST_BLOCK),
        ("pairs.ptx", "two_stores_one_load", PAIRS_LAUNCH),
    ];
    let bin = env!("CARGO_BIN_EXE_ptxemu");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    for (file, kernel, launch) in cases {
        let mut args = run_args(file, kernel, launch, &[]);
        args.extend(["--race".into(), "--json".into()]);
        let mut run = Command::new(bin)
            .args(&args)
            .current_dir(root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run starts");
        let explain = Command::new(bin)
            .args(["explain", "--race-report", "-"])
            .current_dir(root)
            .stdin(run.stdout.take().expect("a pipe"))
            .output()
            .expect("explain runs");
        assert_eq!(run.wait().expect("run ends").code(), Some(1), "{kernel}");
        let text = String::from_utf8_lossy(&explain.stdout);
        assert_eq!(
            explain.status.code(),
            Some(0),
            "{kernel}: {text}{}",
            String::from_utf8_lossy(&explain.stderr)
        );
        // The kernel as GNU c++filt demangles it (emu/tests/kernel_names/cxxfilt.tsv).
        let shown = include_str!("../../emu/tests/kernel_names/cxxfilt.tsv")
            .lines()
            .find_map(|l| l.strip_prefix(kernel)?.strip_prefix('\t'))
            .unwrap_or(kernel);
        assert!(
            text.contains(&format!("data race(s) in kernel {shown}.")),
            "{text}"
        );
        assert!(!text.contains("[NO ]") && !text.contains("[ ? ]"), "{text}");
        if *kernel == "_Z14sum_cta_ticketPKfjPfPj" {
            assert!(text.contains("under another Fence-SC order"), "{text}");
            assert!(
                text.contains("Fix: do not rely on the order fence.sc"),
                "{text}"
            );
        }
    }
}

/// The same pipe through a file written by hand from a report with `.loc` positions: the
/// source line is shown beside the PTX line.
#[test]
fn explain_shows_the_source_line_of_each_access() {
    let (_, j) = race_json("pairs.ptx", "two_stores_one_load", PAIRS_LAUNCH, &[]);
    let mut j = j;
    j["races"][0]["first"]["source"] =
        serde_json::json!({"file": "k.cu", "line": 12, "column": 5, "inlined_at": []});
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .args(["explain", "--race-report", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("explain starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(j.to_string().as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("explain runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a: line 27 (k.cu:12:5): st.global.u32"),
        "{text}"
    );
    assert!(text.contains("(seen on every explored schedule; 1 racing access pair)"));
}

fn stderr_of(file: &str, kernel: &str, launch: &[&str], extra: &[&str]) -> (Option<i32>, String) {
    let mut args = run_args(file, kernel, launch, extra);
    args.push("--race".into());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptxemu(&refs);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn printed_reports_stop_at_the_limit_and_end_with_one_summary_line() {
    let (code, e) = stderr_of("pairs.ptx", "two_stores_one_load", PAIRS_LAUNCH, &[]);
    assert_eq!(code, Some(1));
    let last = e.lines().last().unwrap_or("");
    assert_eq!(
        last,
        "ptxemu: RACE SUMMARY: 3 racing instruction pairs (3 racing access pairs) in 1 run (schedule default)"
    );
    assert_eq!(e.matches("--race: data race ").count(), 3, "{e}");
    assert!(e.contains("ptxemu: --race: data race 1 of 3, 1 racing access pair:"));

    let (code, e) = stderr_of(
        "pairs.ptx",
        "two_stores_one_load",
        PAIRS_LAUNCH,
        &["--race-limit", "1"],
    );
    assert_eq!(
        code,
        Some(1),
        "the limit changes what is printed, not the verdict"
    );
    assert_eq!(e.matches("--race: data race ").count(), 1, "{e}");
    assert!(
        e.lines()
            .last()
            .unwrap_or("")
            .ends_with("(schedule default); 1 printed (--race-limit 1; --json lists all)"),
        "{e}"
    );
    let (_, e) = stderr_of(
        "pairs.ptx",
        "two_stores_one_load",
        PAIRS_LAUNCH,
        &["--race-limit", "0"],
    );
    assert_eq!(e.matches("--race: data race ").count(), 3, "{e}");

    // A race-free run says so in the same line; the limit needs --race.
    let (code, e) = stderr_of(
        "message_passing.ptx",
        "mp_fence_gpu",
        &[
            "--grid",
            "2",
            "--block",
            "32",
            "--arg",
            "u32[1]:zero",
            "--arg",
            "u32[1]:zero",
        ],
        &[],
    );
    assert_eq!(code, Some(0));
    assert!(e.ends_with(
        "ptxemu: RACE SUMMARY: 0 racing instruction pairs (0 racing access pairs) in 1 run (schedule default)\n"
    ), "{e}");
    let o = ptxemu(&[
        "run",
        "tests/fixtures/race_kernels/pairs.ptx",
        "--kernel",
        "two_stores_one_load",
        "--block",
        "96",
        "--arg",
        "u32[1]:zero",
        "--race-limit",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
}
