//! `ptxemu diy`, `ptxemu harness --shard` and `ptxemu compare --campaign` end to end: a family
//! generated over scopes and placements, its verdicts checked against the rule that decides
//! message passing with release and acquire (derived here from the PTX definitions, not from
//! ptxemu), the campaign split into shards, synthetic logs merged and summarised.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ptxemu(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxemu-diy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Message passing with a release write and an acquire read of the flag is forbidden exactly
/// when the two are morally strong: each one's scope includes the other's thread. With
/// scopes cta and gpu and the threads in one CTA (`@cta`) or in two CTAs of a GPU (`@gpu`):
/// always in one CTA, and across CTAs only when both scopes are gpu.
fn mp_forbidden(cycle: &str) -> bool {
    let same_cta = cycle.contains("Rfe@cta");
    same_cta || (cycle.contains("rel.gpu") && cycle.contains("acq.gpu"))
}

/// The index's rows: (name, cycle, verdicts).
fn index(dir: &Path) -> Vec<(String, String, Vec<String>)> {
    std::fs::read_to_string(dir.join("index.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2..5].iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect()
}

const TEMPLATE: &str = "PodWW[w,rel.*] Rfe@* PodRR[acq.*,w] Fre@*";

#[test]
fn a_family_over_scopes_and_placements_gets_the_verdicts_the_rule_gives() {
    let d = scratch("family");
    let o = ptxemu(
        &[
            "diy",
            "--cycle",
            TEMPLATE,
            "--scopes",
            "cta,gpu",
            "--placements",
            "cta,gpu",
            "--out",
            "tests",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = index(&d.join("tests"));
    assert_eq!(
        rows.len(),
        8,
        "2 scopes of the release × 2 of the acquire × 2 placements"
    );
    for (name, cycle, v) in &rows {
        let want = if mp_forbidden(cycle) {
            "Forbidden"
        } else {
            "Allowed"
        };
        assert_eq!(v[0], want, "{name} {cycle} under ptx-v7.5");
        assert_eq!(v[1], want, "{name} {cycle} under ptx-v6.0");
        assert_eq!(v[2], "Forbidden", "{name}: SC forbids message passing");
        let text = std::fs::read_to_string(d.join("tests").join(format!("{name}.litmus"))).unwrap();
        assert!(text.contains(&format!("\"{cycle}\"")), "{text}");
    }
    // The same tests come back from `ptxemu litmus`, one verdict per file.
    let o = ptxemu(&["litmus", "--json", "tests"], &d);
    let lines = String::from_utf8_lossy(&o.stdout).lines().count();
    assert_eq!(lines, 8);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_malformed_cycle_is_refused_with_its_column() {
    let d = scratch("bad");
    let o = ptxemu(&["diy", "--cycle", "PodWW Rfx PodRR Fre"], &d);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("column 7") && e.contains("`Rfx`"), "{e}");
    assert!(e.contains("\n        ^"), "a caret under the token: {e}");
    let o = ptxemu(&["diy", "--cycle", "PodWW Rfe PodWR Fre"], &d);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("column 11") && e.contains("starts at a write"),
        "{e}"
    );
    let o = ptxemu(&["diy", "--family", "XYZ"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("IRIW"));
    let o = ptxemu(&["diy", "--list-families"], &d);
    let listed = String::from_utf8_lossy(&o.stdout);
    for f in [
        "MP", "SB", "LB", "S ", "R ", "2+2W", "WRC", "ISA2", "IRIW", "RWC", "WRR+2W", "WRW+2W",
    ] {
        assert!(listed.contains(f), "{f} missing from {listed}");
    }
    assert!(!d.join("diy").exists(), "nothing written after a refusal");
    let _ = std::fs::remove_dir_all(&d);
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "cu").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn shards_split_a_campaign_once_and_deterministically() {
    let d = scratch("shards");
    let o = ptxemu(
        &[
            "diy",
            "--family",
            "MP",
            "--family",
            "SB",
            "--family",
            "LB",
            "--sems",
            "rlx,acq,rel",
            "--scopes",
            "cta,gpu",
            "--placements",
            "cta,gpu",
            "--out",
            "tests",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = ptxemu(&["harness", "--out", "all", "tests"], &d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let all = names_in(&d.join("all"));
    assert!(all.len() > 500, "{}", all.len());
    let mut union = Vec::new();
    for k in 1..=4 {
        let out = format!("shard-{k}");
        let o = ptxemu(
            &[
                "harness",
                "--shard",
                &format!("{k}/4"),
                "--out",
                &out,
                "tests",
            ],
            &d,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mine = names_in(&d.join(&out));
        assert!(!mine.is_empty());
        let run = std::fs::read_to_string(d.join(&out).join("run.sh")).unwrap();
        assert_eq!(run.matches(" -json ").count(), mine.len());
        // Again: the same split.
        let again = format!("again-{k}");
        ptxemu(
            &[
                "harness",
                "--shard",
                &format!("{k}/4"),
                "--out",
                &again,
                "tests",
            ],
            &d,
        );
        assert_eq!(names_in(&d.join(&again)), mine);
        union.extend(mine);
    }
    union.sort();
    let before = union.len();
    union.dedup();
    assert_eq!(before, union.len(), "no test in two shards");
    assert_eq!(union, all, "the shards together are the whole campaign");
    for bad in ["0/4", "5/4", "1/0", "x", "1-4"] {
        let o = ptxemu(&["harness", "--shard", bad, "--out", "bad", "tests"], &d);
        assert_eq!(o.status.code(), Some(2), "--shard {bad}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A litmus7 log of an MP-shaped test: `counts` of (r0, r1) = 00, 01, 10, 11.
fn log(name: &str, device: &str, counts: [u64; 4]) -> String {
    let mut s = format!("Device {device}\nTest {name} Allowed\nHistogram (4 states)\n");
    for (k, (a, b)) in [(0, 0), (0, 1), (1, 0), (1, 1)].iter().enumerate() {
        let star = if (*a, *b) == (1, 0) { '*' } else { ':' };
        s += &format!("{} {star}>1:r0={a}; 1:r1={b};\n", counts[k]);
    }
    s + "Ok\n"
}

#[test]
fn a_campaign_merges_shard_logs_and_finds_the_forbidden_outcomes() {
    let d = scratch("campaign");
    let o = ptxemu(
        &[
            "diy",
            "--cycle",
            TEMPLATE,
            "--scopes",
            "cta,gpu",
            "--placements",
            "cta,gpu",
            "--out",
            "tests",
        ],
        &d,
    );
    assert!(o.status.success());
    let rows = index(&d.join("tests"));
    for k in 1..=2 {
        let o = ptxemu(
            &[
                "harness",
                "--shard",
                &format!("{k}/2"),
                "--out",
                &format!("shard-{k}"),
                "tests",
            ],
            &d,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // Every test shows the cycle's outcome 7 times in 297 on GPU-A; one allowed test runs
    // again in a second log (its counts add up), and one forbidden test also on GPU-B.
    let (allowed, forbidden): (Vec<_>, Vec<_>) = rows.iter().partition(|r| !mp_forbidden(&r.1));
    let again = &allowed[0].0;
    let other = &forbidden[0].0;
    let mut logs = Vec::new();
    for k in 1..=2 {
        for name in names_in(&d.join(format!("shard-{k}"))) {
            let p = d.join(format!("shard-{k}")).join(format!("{name}.log"));
            std::fs::write(&p, log(&name, "GPU-A", [100, 150, 7, 40])).unwrap();
            logs.push(p);
        }
    }
    let p = d.join("rerun.log");
    std::fs::write(&p, log(again, "GPU-A", [10, 10, 3, 10])).unwrap();
    logs.push(p);
    let p = d.join("gpu-b.log");
    std::fs::write(&p, log(other, "GPU-B", [60, 60, 0, 60])).unwrap();
    logs.push(p);
    let mut args = vec!["compare", "--campaign", "summary", "--tests", "tests"];
    let paths: Vec<String> = logs.iter().map(|p| p.display().to_string()).collect();
    args.extend(paths.iter().map(String::as_str));
    let o = ptxemu(&args, &d);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "forbidden outcomes were observed:\n{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("summary/campaign.json")).unwrap())
            .unwrap();
    assert_eq!(v["devices"], serde_json::json!(["GPU-A", "GPU-B"]));
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 8);
    for t in tests {
        let name = t["test"].as_str().unwrap();
        let cycle = t["cycle"].as_str().unwrap();
        assert_eq!(
            t["forbidden_observed"].as_bool(),
            Some(mp_forbidden(cycle)),
            "{name} ({cycle})"
        );
        let a = t["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["device"] == "GPU-A")
            .unwrap();
        let (inst, weak) = if name == again {
            (297 + 33, 7 + 3)
        } else {
            (297, 7)
        };
        assert_eq!(a["instances"], inst, "{name}");
        assert_eq!(a["weak"], weak, "{name}");
        if mp_forbidden(cycle) {
            let f = &a["forbidden_observed"][0];
            assert_eq!(f["outcome"], "P1:r0=1; P1:r1=0;");
            assert_eq!(f["count"], 7);
            assert_eq!(a["allowed_never_observed"], serde_json::json!([]));
            assert!(stdout.contains(&format!("FORBIDDEN observed in {name} ")));
            assert!(stdout.contains(cycle), "the cycle is named");
        }
        if name == other {
            let b = t["devices"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["device"] == "GPU-B")
                .unwrap();
            assert_eq!(b["weak"], 0);
            assert_eq!(b["forbidden_observed"], serde_json::json!([]));
        }
    }
    // Per relaxation: the release at gpu scope is in 4 tests (acquire cta or gpu, placements
    // cta or gpu); the weak outcome showed in each.
    let r = v["relaxations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["edge"] == "PodWW[,rel.gpu]")
        .unwrap();
    assert_eq!(r["tests"], 4);
    assert_eq!(r["seen"], 4);
    let rel_gpu_rows: Vec<&String> = rows
        .iter()
        .filter(|x| x.1.contains("rel.gpu"))
        .map(|x| &x.0)
        .collect();
    let extra_inst = if rel_gpu_rows.contains(&again) { 33 } else { 0 };
    let extra_weak = if rel_gpu_rows.contains(&again) { 3 } else { 0 };
    let extra_b = if rel_gpu_rows.contains(&other) {
        180
    } else {
        0
    };
    assert_eq!(r["instances"], 4 * 297 + extra_inst + extra_b);
    assert_eq!(r["weak"], 4 * 7 + extra_weak);
    assert_eq!(
        r["allowed"],
        rows.iter()
            .filter(|x| x.1.contains("rel.gpu") && !mp_forbidden(&x.1))
            .count()
    );
    let html = std::fs::read_to_string(d.join("summary/campaign.html")).unwrap();
    assert!(html.contains("<table id=\"tests\">") && html.contains("<table id=\"relaxations\">"));
    let red = html.matches("class=\"forbidden\"").count();
    assert_eq!(red, rows.iter().filter(|r| mp_forbidden(&r.1)).count());
    // Logs of one test and device that disagree on the terms are refused.
    let p = d.join("odd.log");
    std::fs::write(
        &p,
        format!("Device GPU-A\nTest {again} Allowed\nHistogram (1 states)\n5 :>1:r0=1;\n"),
    )
    .unwrap();
    let rerun = d.join("rerun.log").display().to_string();
    let odd = p.display().to_string();
    let mine: Vec<&str> = vec![
        "compare",
        "--campaign",
        "s2",
        "--tests",
        "tests",
        &rerun,
        &odd,
    ];
    let o = ptxemu(&mine, &d);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("odd.log") && e.contains("rerun.log"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
