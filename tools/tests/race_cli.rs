//! `ptxemu run --race`: data races judged by the PTX memory model on small kernels whose
//! verdicts follow from their known semantics (each fixture's header says why), not from
//! ptxemu. Racy kernels are reported with both accesses and a reason, exit status 1;
//! race-free kernels are silent with exit status 0, on the default schedule and on random
//! ones.

mod fixture_common;

use fixture_common::ptxemu_in_workspace as ptxemu;

use std::path::Path;

use serde_json::Value as Json;

const DIR: &str = "tests/fixtures/race_kernels";

/// A fixture launch: file, kernel, grid, block and arguments.
fn launch(file: &str, kernel: &str) -> Vec<String> {
    let (grid, block, args): (&str, &str, &[&str]) = match file {
        "reductions.ptx" => ("2", "128", &["f32[256]:fill=1", "f32[2]:zero"]),
        "sync_scopes.ptx" => ("8", "32", &["u32[8]:zero", "u32[1]:zero", "u32[1]:zero"]),
        "async_mbarrier.ptx" => ("1", "64", &["u32[64]:fill=7", "u32[64]:zero"]),
        "cluster.ptx" => ("2", "32", &["u32[32]:zero"]),
        "tcgen05_pair.ptx" => (
            "2",
            "128",
            &["u16[16384]:zero", "u16[4096]:zero", "f32[16384]:zero"],
        ),
        _ => ("2", "32", &["u32[1]:zero", "u32[1]:zero"]),
    };
    let mut v: Vec<String> = vec![
        "run".into(),
        format!("{DIR}/{file}"),
        "--kernel".into(),
        kernel.into(),
        "--grid".into(),
        grid.into(),
        "--block".into(),
        block.into(),
    ];
    for a in args {
        v.push("--arg".into());
        v.push((*a).into());
    }
    v
}

fn race_json(file: &str, kernel: &str, extra: &[&str]) -> (Option<i32>, Json) {
    let mut args = launch(file, kernel);
    args.extend(["--race", "--json"].iter().map(|s| s.to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptxemu(&refs);
    let j: Json = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{kernel}: {e}: {}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), j)
}

const RACE_FREE: &[(&str, &str)] = &[
    ("reductions.ptx", "_Z9reduce_okPKfPf"),
    ("reductions.ptx", "_Z20reduce_tail_volatilePKfPf"),
    ("reductions.ptx", "_Z20reduce_tail_syncwarpPKfPf"),
    ("sync_scopes.ptx", "_Z17last_block_fencedPjS_S_"),
    ("sync_scopes.ptx", "_Z8lock_gpuPjS_S_"),
    ("message_passing.ptx", "mp_fence_gpu"),
    ("message_passing.ptx", "mp_rel_acq_gpu"),
    ("async_mbarrier.ptx", "mbar_rel_acq"),
    ("async_mbarrier.ptx", "cp_mbar_arrive"),
    ("cluster.ptx", "peer_mbar_release"),
    ("cluster.ptx", "mp_fence_cluster"),
    ("tcgen05_pair.ptx", "pair_b_after_commit"),
];

const RACY: &[(&str, &str)] = &[
    ("reductions.ptx", "_Z19reduce_missing_syncPKfPf"),
    ("reductions.ptx", "_Z17reduce_tail_plainPKfPf"),
    ("sync_scopes.ptx", "_Z18last_block_nofencePjS_S_"),
    ("sync_scopes.ptx", "_Z8lock_ctaPjS_S_"),
    ("message_passing.ptx", "mp_fence_cta"),
    ("message_passing.ptx", "mp_rel_cta"),
    ("async_mbarrier.ptx", "mbar_relaxed"),
    ("async_mbarrier.ptx", "cp_plain_arrive"),
    ("async_mbarrier.ptx", "cp_src_overwrite"),
    ("cluster.ptx", "peer_mbar_relaxed"),
    ("cluster.ptx", "mp_fence_cta"),
    ("tcgen05_pair.ptx", "pair_b_overwrite"),
];

/// A store into a peer CTA's shared memory (`mapa` + `st.shared::cluster`) is checked against
/// the owning CTA's history: the race with the owner's own load is reported, naming the owner.
#[test]
fn a_dsmem_race_names_the_cta_that_owns_the_bytes() {
    let (code, j) = race_json("cluster.ptx", "peer_mbar_relaxed", &[]);
    assert_eq!(code, Some(1), "{j}");
    let r = &j["races"][0];
    for a in [&r["first"], &r["second"]] {
        assert_eq!(a["space"], "shared", "{r}");
        assert_eq!(a["owner_rank"], 1, "{r}");
        assert_eq!(a["owner_cta"], serde_json::json!([1, 0, 0]), "{r}");
    }
    assert_eq!(r["first"]["cta"], serde_json::json!([0, 0, 0]), "{r}");
    assert_eq!(r["second"]["cta"], serde_json::json!([1, 0, 0]), "{r}");
    assert!(r["first"]["instruction"]
        .as_str()
        .unwrap_or("")
        .starts_with("st.shared::cluster"));
}

#[test]
fn a_cp_async_is_performed_by_its_copy_and_ordered_only_by_its_wait() {
    // The thread's own store to the source of its pending copy races with the copy's read.
    let (code, j) = race_json("async_mbarrier.ptx", "cp_src_overwrite", &[]);
    assert_eq!(code, Some(1), "{j}");
    let r = &j["races"][0];
    assert!(r["first"]["instruction"]
        .as_str()
        .unwrap()
        .starts_with("cp.async"));
    assert_eq!(r["first"]["space"], "global");
    assert_eq!(r["first"]["kind"], "read");
    assert_eq!(r["second"]["kind"], "write");
    assert!(r["reason"]
        .as_str()
        .unwrap()
        .contains("cp.async.wait_group"));
    // An mbarrier arrive releases the thread's own accesses, not its pending copies.
    let (_, j) = race_json("async_mbarrier.ptx", "cp_plain_arrive", &[]);
    let r = &j["races"][0];
    assert_eq!(r["first"]["space"], "shared");
    assert_eq!(r["first"]["kind"], "write");
    assert_eq!(r["second"]["thread"], serde_json::json!([32, 0, 0]));
}

#[test]
fn race_free_kernels_are_silent_on_default_and_random_schedules() {
    for (file, kernel) in RACE_FREE {
        for extra in [
            &[][..],
            &["--schedule", "random", "--seed", "3", "--runs", "8"],
        ] {
            let (code, j) = race_json(file, kernel, extra);
            assert_eq!(code, Some(0), "{kernel} {extra:?}: {j}");
            assert_eq!(
                j["races"].as_array().map(Vec::len),
                Some(0),
                "{kernel}: {j}"
            );
        }
    }
}

#[test]
fn racy_kernels_are_reported_on_every_schedule_with_both_accesses() {
    for (file, kernel) in RACY {
        let (code, j) = race_json(file, kernel, &["--schedule", "random", "--runs", "4"]);
        assert_eq!(code, Some(1), "{kernel}: {j}");
        let races = j["races"].as_array().unwrap();
        assert!(!races.is_empty(), "{kernel}");
        for r in races {
            assert_eq!(
                r["seen"], "every",
                "{kernel}: the race does not depend on the schedule: {r}"
            );
            for side in ["first", "second"] {
                let a = &r[side];
                for key in [
                    "line",
                    "instruction",
                    "cta",
                    "thread",
                    "address",
                    "kind",
                    "sem",
                    "space",
                    "warp",
                    "lane",
                    "bytes",
                ] {
                    assert!(!a[key].is_null(), "{kernel}: {side} lacks {key}: {r}");
                }
                // A weak access has no scope: `null`, the one spelling every reader takes.
                assert_eq!(
                    a["scope"].is_null(),
                    a["sem"] == "weak",
                    "{kernel}: {side}: {r}"
                );
            }
            assert!(r["reason"]
                .as_str()
                .unwrap()
                .contains("not ordered by causality order"));
        }
    }
}

#[test]
fn a_missing_syncthreads_is_a_race_between_two_warps_of_one_cta() {
    let (_, j) = race_json("reductions.ptx", "_Z19reduce_missing_syncPKfPf", &[]);
    let r = j["races"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["first"]["warp"] != r["second"]["warp"])
        .expect("a race between warps");
    assert_eq!(r["first"]["space"], "shared");
    assert_eq!(r["first"]["cta"], r["second"]["cta"]);
    assert_ne!(r["first"]["warp"], r["second"]["warp"]);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("both accesses are weak"),
        "{r}"
    );
}

#[test]
fn a_warp_synchronous_tail_without_volatile_races_inside_one_warp() {
    let (_, j) = race_json("reductions.ptx", "_Z17reduce_tail_plainPKfPf", &[]);
    let races = j["races"].as_array().unwrap();
    assert!(
        races
            .iter()
            .all(|r| r["first"]["warp"] == r["second"]["warp"]),
        "{j}"
    );
    assert!(races[0]["reason"]
        .as_str()
        .unwrap()
        .contains("lanes of one warp"));
}

#[test]
fn bar_warp_sync_orders_memory_only_with_the_switch_on() {
    let k = "_Z20reduce_tail_syncwarpPKfPf";
    let (code, _) = race_json("reductions.ptx", k, &["--race-warp-sync", "on"]);
    assert_eq!(code, Some(0));
    let (code, j) = race_json("reductions.ptx", k, &["--race-warp-sync", "off"]);
    assert_eq!(code, Some(1), "{j}");
}

#[test]
fn the_same_lock_races_at_cta_scope_and_not_at_gpu_scope() {
    let (code, _) = race_json("sync_scopes.ptx", "_Z8lock_gpuPjS_S_", &[]);
    assert_eq!(code, Some(0));
    let (_, j) = race_json("sync_scopes.ptx", "_Z8lock_ctaPjS_S_", &[]);
    let races = j["races"].as_array().unwrap();
    // The lock word's atomics are not morally strong across CTAs.
    let atoms = races
        .iter()
        .find(|r| r["first"]["kind"] == "atomic" && r["second"]["kind"] == "atomic")
        .expect("the lock's atomics race");
    assert_eq!(atoms["first"]["scope"], "cta");
    assert_ne!(atoms["first"]["cta"], atoms["second"]["cta"]);
    assert!(atoms["reason"]
        .as_str()
        .unwrap()
        .contains("does not include thread"));
    // And the counter's weak accesses are not ordered.
    assert!(races
        .iter()
        .any(|r| r["first"]["sem"] == "weak" && r["second"]["sem"] == "weak"));
}

#[test]
fn a_fence_of_cta_scope_does_not_reach_another_cta() {
    let (_, j) = race_json("message_passing.ptx", "mp_fence_cta", &[]);
    let races = j["races"].as_array().unwrap();
    assert_eq!(
        races.len(),
        1,
        "only the data, the flag accesses are morally strong: {j}"
    );
    let why = races[0]["reason"].as_str().unwrap();
    assert!(
        why.contains("the fence.acq_rel.cta at line 58 in CTA (0,0,0) does not include thread (0,0,0) of CTA (1,0,0)"),
        "{why}"
    );
    assert_eq!(races[0]["first"]["line"], 57);
    assert_eq!(races[0]["second"]["line"], 66);
    assert_eq!(races[0]["second"]["cta"], serde_json::json!([1, 0, 0]));
}

#[test]
fn a_last_block_reduction_needs_its_fences() {
    let (_, j) = race_json("sync_scopes.ptx", "_Z18last_block_nofencePjS_S_", &[]);
    let r = &j["races"][0];
    assert_eq!(r["first"]["kind"], "write");
    assert_eq!(r["second"]["kind"], "read");
    assert_eq!(
        r["second"]["cta"],
        serde_json::json!([7, 0, 0]),
        "the last block reads"
    );
}

/// The CUDA sample's last-block reduction fences only before each block's ticket: whether the
/// last block's reads are ordered after the other blocks' partials depends on Fence-SC order,
/// which the model leaves open. The default schedule runs the fences in an order that orders
/// them; the detector finds the order that does not, on that one run.
#[test]
fn a_race_behind_fence_sc_order_is_found_on_the_default_schedule() {
    let k = "_Z17last_block_samplePjS_S_";
    let (code, j) = race_json("sync_scopes.ptx", k, &[]);
    assert_eq!(code, Some(1), "{j}");
    let races = j["races"].as_array().unwrap();
    // Seven blocks' partials against the last block's reads (one instruction pair).
    let partials = races
        .iter()
        .find(|r| r["first"]["kind"] == "write" && r["second"]["kind"] == "read")
        .expect("the partials race");
    assert_eq!(partials["fence_sc_dependent"], true, "{partials}");
    assert_eq!(partials["second"]["cta"], serde_json::json!([7, 0, 0]));
    // The last block's loop reads each of the seven other partials once.
    let reads: u64 = races
        .iter()
        .filter(|r| r["second"]["kind"] == "read")
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    assert_eq!(reads, 7, "{j}");
    let why = partials["reason"].as_str().unwrap();
    assert!(why.contains("under every Fence-SC order"), "{why}");
    // Random schedules find it too (under this run's order, or another).
    let (code, j) = race_json(
        "sync_scopes.ptx",
        k,
        &["--schedule", "random", "--seed", "1", "--runs", "6"],
    );
    assert_eq!(code, Some(1), "{j}");
    assert_eq!(j["race_schedules"]["runs"], 6);
    assert_eq!(j["race_schedules"]["seeds"][0], 1);
    assert!(j["races"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["second"]["kind"] == "read" && r["seen"] == "every"));
    // The same seed replays the same report.
    let (_, again) = race_json(
        "sync_scopes.ptx",
        k,
        &["--schedule", "random", "--seed", "1", "--runs", "6"],
    );
    assert_eq!(j["races"], again["races"]);
}

#[test]
fn the_text_report_names_both_accesses_and_the_reason() {
    let mut args = launch("message_passing.ptx", "mp_rel_cta");
    args.push("--race".into());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptxemu(&refs);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("ptxemu: RACE SUMMARY: 2 racing instruction pairs (2 racing access pairs) in 1 run (schedule default)"),
        "{e}"
    );
    assert!(
        e.contains("first:  write release.cta of 4 bytes at global"),
        "{e}"
    );
    assert!(
        e.contains("(warp 0, lane 0), line 110: st.release.cta.global.u32 [%rd2], 1;"),
        "{e}"
    );
    assert!(
        e.contains("the st.release.cta at line 110 does not include thread (0,0,0) of CTA (1,0,0)"),
        "{e}"
    );
    assert!(e.contains("seen:   on every explored schedule"), "{e}");
}

#[test]
fn schedule_options_need_race_and_no_race_run_is_unchanged() {
    let mut args = launch("message_passing.ptx", "mp_rel_cta");
    args.extend(["--schedule".to_string(), "random".to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(ptxemu(&refs).status.code(), Some(2));
    let args = launch("message_passing.ptx", "mp_rel_cta");
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptxemu(&refs);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty());
}

/// `--race --plan`: each launch of the plan is judged by itself; the racy launch (message
/// passing with a `.cta` fence across CTAs) has its `races`, the race-free one (`.gpu`
/// fences) none, and the exit status is 1. `--runs` above 1 is refused with a plan.
#[test]
fn race_with_a_plan_reports_each_launch() {
    let dir = std::env::temp_dir().join(format!("ptxemu-race-plan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // A plan's files stay inside its folder: the module is copied beside it.
    let module = dir.join("message_passing.ptx");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(DIR)
            .join("message_passing.ptx"),
        &module,
    )
    .expect("module copied");
    let launch = |k: &str| serde_json::json!({"launch": {"kernel": k, "grid": 2, "block": 32, "args": ["@data", "@flag"]}});
    let plan = serde_json::json!({
        "version": 1,
        "module": "message_passing.ptx",
        "buffers": {"data": "u32[1]:zero", "flag": "u32[1]:zero"},
        "steps": [launch("mp_fence_gpu"), launch("mp_fence_cta")],
    });
    let path = dir.join("plan.json");
    std::fs::write(&path, plan.to_string()).expect("plan written");
    let p = path.display().to_string();
    let o = ptxemu(&["run", "--plan", &p, "--race", "--json"]);
    let j: Json = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let launches = j["launches"].as_array().expect("launches");
    assert_eq!(launches.len(), 2);
    assert_eq!(launches[0]["races"].as_array().map(Vec::len), Some(0));
    assert!(launches[1]["races"]
        .as_array()
        .is_some_and(|r| !r.is_empty()));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("plan step 1, launch 1: --race: data race 1 of "),
        "{stderr}"
    );
    let o = ptxemu(&["run", "--plan", &p, "--race", "--runs", "2"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}
