//! The instructions CUTLASS 4.x kernels needed, run from the command line on small hand-written
//! kernels whose expected results follow from the PTX ISA alone:
//!
//! * `clusterlaunchcontrol.try_cancel` / `query_cancel` in a work-stealing loop (the pattern of
//!   the ISA's example and of CUTLASS's dynamic tile scheduler): every tile is processed
//!   exactly once whether requests succeed (`--try-cancel succeed`, the default), fail, or
//!   succeed by a seeded draw; with `.multicast::cluster::all` in clusters of two;
//! * the undefined behaviours the ISA names, reported as faults;
//! * `cp.async.bulk.tensor.cta_group::2`: both CTAs of a pair load their halves and complete
//!   on the even CTA's mbarrier (CUTLASS's two-SM loads);
//! * `prefetch.tensormap` and the other prefetch forms run as the hints they are.

mod fixture_common;

use fixture_common::{ptxemu, scratch, stderr, stdout};
use serde_json::Value;

const STEAL: &str = r#"
.version 8.6
.target sm_100a
.address_size 64

// One thread per CTA: process tile %ctaid.x, then keep asking to cancel a cluster that has
// not started and process its tile instead, until a request fails.
.visible .entry steal(.param .u64 counts)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .b128 %q1;
  .shared .align 16 .b8 resp[16];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [counts];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, bar;
  mov.u32 %r3, resp;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mov.u32 %r9, 0;
LOOP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  atom.global.add.u32 %r4, [%rd3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r2], 16;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r3], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], %r9;
  @!%p1 bra WAIT;
  xor.b32 %r9, %r9, 1;
  ld.shared.b128 %q1, [%r3];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;
  @!%p2 bra DONE;
  clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r1, %q1;
  fence.proxy.async.shared::cta;
  bra LOOP;
DONE:
  ret;
}

// Clusters of two, one thread per CTA: rank 0 asks for both CTAs with a multicast request;
// each CTA processes its own CTA of the canceled cluster.
.visible .entry steal_pair(.param .u64 counts)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .b128 %q1;
  .shared .align 16 .b8 resp[16];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [counts];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r5, %cluster_ctarank;
  mov.u32 %r2, bar;
  mov.u32 %r3, resp;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %r9, 0;
LOOP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  atom.global.add.u32 %r4, [%rd3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r2], 16;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.eq.u32 %p3, %r5, 0;
  @%p3 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%r3], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], %r9;
  @!%p1 bra WAIT;
  xor.b32 %r9, %r9, 1;
  ld.shared.b128 %q1, [%r3];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;
  @!%p2 bra DONE;
  clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r6, %r7, %r8, _}, %q1;
  add.u32 %r1, %r6, %r5;
  fence.proxy.async.shared::cta;
  barrier.cluster.arrive.relaxed;
  barrier.cluster.wait;
  bra LOOP;
DONE:
  ret;
}

// Undefined behaviour, by `mode`: 0 reads the first ctaid of a (failed) response without
// asking whether it succeeded; 1 asks again after observing a failure; 2 queries bytes no
// try_cancel wrote.
.visible .entry misuse(.param .u32 mode)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .b128 %q1;
  .shared .align 16 .b8 resp[16];
  .shared .align 8 .b64 bar;
  ld.param.u32 %r8, [mode];
  mov.u32 %r2, bar;
  mov.u32 %r3, resp;
  setp.eq.u32 %p3, %r8, 2;
  @%p3 bra GARBAGE;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mov.u32 %r9, 0;
AGAIN:
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r2], 16;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r3], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], %r9;
  @!%p1 bra WAIT;
  xor.b32 %r9, %r9, 1;
  ld.shared.b128 %q1, [%r3];
  setp.eq.u32 %p3, %r8, 0;
  @%p3 bra FIRST;
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;
  fence.proxy.async.shared::cta;
  bra AGAIN;
FIRST:
  clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r1, %q1;
  ret;
GARBAGE:
  ld.shared.b128 %q1, [%r3];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;
  ret;
}
"#;

/// Runs `kernel` of STEAL with a `u32[n]` counter buffer, returning (exit status, JSON, the
/// counters).
fn steal(kernel: &str, grid: u32, extra: &[&str], name: &str) -> (i32, Value, Vec<u32>) {
    let d = scratch("cluster-launch", name);
    let ptx = d.join("steal.ptx");
    std::fs::write(&ptx, STEAL).unwrap();
    let out = d.join("counts.bin");
    let (ptx_s, out_s, grid_s) = (
        ptx.display().to_string(),
        out.display().to_string(),
        grid.to_string(),
    );
    let counts = format!("u32[{grid}]:zero");
    let dump = format!("0={out_s}");
    let mut args = vec![
        "run", &ptx_s, "--kernel", kernel, "--grid", &grid_s, "--block", "1", "--arg", &counts,
        "--dump", &dump, "--json",
    ];
    args.extend_from_slice(extra);
    let o = ptxemu(&args);
    let json: Value = serde_json::from_str(stdout(&o).trim()).unwrap_or(Value::Null);
    let bytes = std::fs::read(&out).unwrap_or_default();
    let counts = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (o.status.code().unwrap_or(-1), json, counts)
}

#[test]
fn every_tile_runs_once_whether_cancels_succeed_or_fail() {
    for (policy, threads) in [
        ("succeed", "1"),
        ("succeed", "2"),
        ("fail", "2"),
        ("random:1", "1"),
        ("random:2", "2"),
        ("random:77", "2"),
    ] {
        let name = format!("{}-{threads}", policy.replace(':', "_"));
        let (code, json, counts) = steal(
            "steal",
            24,
            &["--try-cancel", policy, "--threads", threads],
            &name,
        );
        assert_eq!(code, 0, "{policy}: {json}");
        assert_eq!(counts, vec![1; 24], "{policy}/{threads}: each tile once");
        let canceled = json["clusters_canceled"].as_u64().unwrap();
        match policy {
            // On one host thread CTA 0 runs first and takes every other cluster.
            "succeed" if threads == "1" => assert_eq!(canceled, 23),
            "succeed" => assert!(canceled > 0),
            "fail" => assert_eq!(canceled, 0),
            _ => assert!(canceled < 24),
        }
        assert_eq!(json["try_cancel"], policy);
    }
}

#[test]
fn random_cancels_replay_from_their_seed() {
    let a = steal(
        "steal",
        16,
        &["--try-cancel", "random:5", "--threads", "1"],
        "r5a",
    );
    let b = steal(
        "steal",
        16,
        &["--try-cancel", "random:5", "--threads", "1"],
        "r5b",
    );
    assert_eq!(a.1["clusters_canceled"], b.1["clusters_canceled"]);
    assert_eq!(a.1["warp_instructions"], b.1["warp_instructions"]);
}

#[test]
fn multicast_requests_cancel_whole_clusters() {
    for policy in ["succeed", "fail", "random:3"] {
        let (code, json, counts) = steal(
            "steal_pair",
            16,
            &["--cluster", "2", "--try-cancel", policy],
            &format!("pair-{}", policy.replace(':', "_")),
        );
        assert_eq!(code, 0, "{policy}: {json}");
        assert_eq!(counts, vec![1; 16], "{policy}: each CTA's tile once");
        if policy == "fail" {
            assert_eq!(json["clusters_canceled"], 0);
        }
    }
}

#[test]
fn undefined_uses_are_faults() {
    let d = scratch("cluster-launch", "misuse");
    let ptx = d.join("steal.ptx");
    std::fs::write(&ptx, STEAL).unwrap();
    let ptx = ptx.display().to_string();
    for (mode, policy, want) in [
        ("0", "fail", "get_first_ctaid of a failed request"),
        ("1", "fail", "already observed a failed request"),
        (
            "2",
            "succeed",
            "is not a response clusterlaunchcontrol.try_cancel wrote",
        ),
    ] {
        let m = format!("u32:{mode}");
        let o = ptxemu(&[
            "run",
            &ptx,
            "--kernel",
            "misuse",
            "--arg",
            &m,
            "--try-cancel",
            policy,
        ]);
        assert_eq!(o.status.code(), Some(1), "mode {mode}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "mode {mode}: {}", stderr(&o));
    }
    let o = ptxemu(&[
        "run",
        &ptx,
        "--kernel",
        "misuse",
        "--arg",
        "u32:0",
        "--try-cancel",
        "maybe",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("succeed, fail or random:SEED"),
        "{}",
        stderr(&o)
    );
}

const PAIR_LOAD: &str = r#"
.version 8.6
.target sm_100a
.address_size 64

// Clusters of two CTAs (a CTA pair) of 32 threads. Each CTA loads rows 4r..4r+3 of a 32x8 u32
// tensor into its own shared memory with .cta_group::2, naming its mbarrier with bit 24
// cleared as CUTLASS does: both loads complete on the even CTA's barrier, which expects both.
// After the even CTA has seen its barrier complete, a cluster barrier lets both copy their
// tile out. flags[r] = whether CTA r's own barrier completed its first phase.
.visible .entry pair_load(.param .align 64 .b8 tm[128], .param .u64 out, .param .u64 flags)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .shared .align 1024 .b8 tile[512];
  .shared .align 8 .b64 bar;
  mov.u64 %rd1, tm;
  cvta.param.u64 %rd1, %rd1;
  prefetch.tensormap [%rd1];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u64 %rd3, [flags];
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  mov.u32 %r4, tile;
  and.b32 %r5, %r3, 0xFEFFFFFF;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r3], 1024;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  shl.b32 %r6, %r2, 2;
  mov.u32 %r7, 0;
  @%p1 cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1, {%r7, %r6}], [%r5];
  @!%p2 bra SYNC;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r3], 0;
  @!%p1 bra WAIT;
SYNC:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  // Copy the 128 words of the tile out: 4 per thread.
  mov.u32 %r8, 0;
COPY:
  shl.b32 %r9, %r8, 5;
  add.u32 %r9, %r9, %r1;
  shl.b32 %r10, %r9, 2;
  add.u32 %r11, %r4, %r10;
  ld.shared.u32 %r12, [%r11];
  shl.b32 %r13, %r2, 7;
  add.u32 %r13, %r13, %r9;
  mul.wide.u32 %rd5, %r13, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r12;
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p1, %r8, 4;
  @%p1 bra COPY;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  selp.u32 %r14, 1, 0, %p2;
  mul.wide.u32 %rd7, %r2, 4;
  add.s64 %rd8, %rd3, %rd7;
  st.global.u32 [%rd8], %r14;
END:
  ret;
}
"#;

#[test]
fn cta_pair_loads_complete_on_the_even_ctas_mbarrier() {
    let d = scratch("cluster-launch", "pair");
    let ptx = d.join("pair.ptx");
    std::fs::write(&ptx, PAIR_LOAD).unwrap();
    let input: Vec<u32> = (0..256).map(|i| 1000 + i).collect();
    let inp = d.join("in.bin");
    std::fs::write(
        &inp,
        input
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let (out, flags) = (d.join("out.bin"), d.join("flags.bin"));
    let tmap = "tmap:tiled,dtype=u32,buf=3,dims=32x8,strides=128,box=32x4".to_string();
    let o = ptxemu(&[
        "run",
        &ptx.display().to_string(),
        "--grid",
        "2",
        "--block",
        "32",
        "--cluster",
        "2",
        "--arg",
        &tmap,
        "--arg",
        "u32[256]:zero",
        "--arg",
        "u32[2]:zero",
        "--arg",
        &format!("u32[256]:file={}", inp.display()),
        "--dump",
        &format!("1={}", out.display()),
        "--dump",
        &format!("2={}", flags.display()),
    ]);
    // The kernel takes three parameters: the fourth --arg is refused, which checks the count.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // The tensor lives in a --buffer instead.
    let o = ptxemu(&[
        "run",
        &ptx.display().to_string(),
        "--grid",
        "2",
        "--block",
        "32",
        "--cluster",
        "2",
        "--buffer",
        &format!("T=u32[256]:file={}", inp.display()),
        "--arg",
        "tmap:tiled,dtype=u32,buf=T,dims=32x8,strides=128,box=32x4",
        "--arg",
        "u32[256]:zero",
        "--arg",
        "u32[2]:zero",
        "--dump",
        &format!("1={}", out.display()),
        "--dump",
        &format!("2={}", flags.display()),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let words = |p: &std::path::Path| -> Vec<u32> {
        std::fs::read(p)
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    assert_eq!(words(&out), input, "each CTA holds its half");
    assert_eq!(
        words(&flags),
        vec![1, 0],
        "only the even CTA's barrier completed"
    );
}

const LANE_STORES: &str = r#"
.version 8.6
.target sm_90a
.address_size 64

// Every lane of one warp stores a 64-byte tile to the same place with a TMA store, as
// CUTLASS 4.2's epilogue does: lanes of `mode` 0 all store the same tile; with mode 1 the odd
// lanes store a second tile with other bytes.
.visible .entry lane_stores(.param .align 64 .b8 tm[128], .param .u32 mode)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 128 .b8 tile[256];
  mov.u64 %rd1, tm;
  cvta.param.u64 %rd1, %rd1;
  ld.param.u32 %r8, [mode];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  // Each lane writes its word of both tiles: tile 0 holds 7s, tile 1 holds 9s.
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], 7;
  st.shared.u32 [%r4+128], 9;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  and.b32 %r5, %r1, 1;
  mul.lo.u32 %r5, %r5, %r8;
  shl.b32 %r5, %r5, 7;
  add.u32 %r6, %r2, %r5;
  mov.u32 %r7, 0;
  cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r7}], [%r6];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
"#;

fn lane_stores(mode: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    let d = scratch("cluster-launch", &format!("lanes-{mode}-{}", extra.len()));
    let ptx = d.join("lanes.ptx");
    std::fs::write(&ptx, LANE_STORES).unwrap();
    let m = format!("u32:{mode}");
    let mut args = vec![
        "run",
        ptx.to_str().unwrap(),
        "--block",
        "32",
        "--buffer",
        "OUT=u32[16]:zero",
        "--arg",
        "tmap:tiled,dtype=u32,buf=OUT,dims=16,box=16",
        "--arg",
        &m,
        "--race",
        "--json",
    ];
    args.extend_from_slice(extra);
    let o = ptxemu(&args);
    let json: Value = serde_json::from_str(stdout(&o).trim()).unwrap_or(Value::Null);
    (o.status.code(), json, stderr(&o))
}

#[test]
fn identical_tma_stores_by_one_instructions_lanes_are_classified_apart() {
    let (code, json, err) = lane_stores("0", &[]);
    assert_eq!(code, Some(1), "a race under the memory model: {err}");
    let races = json["races"].as_array().expect("races");
    assert!(!races.is_empty(), "{json}");
    assert!(races.iter().all(|r| r["identical_lanes"] == true), "{json}");
    assert_eq!(json["race_schedules"]["identical_lanes"], races.len());
    assert!(
        err.contains("class:  identical bytes written by lanes of one instruction"),
        "{err}"
    );
    assert!(
        err.contains("of identical bytes written by the lanes of one instruction"),
        "{err}"
    );
    // Accepted explicitly: still reported, exit status 0.
    let (code, json, err) = lane_stores("0", &["--race-allow-identical"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!json["races"].as_array().unwrap().is_empty());
    assert_eq!(json["race_schedules"]["allow_identical"], true);
    assert!(err.contains("allowed by --race-allow-identical"), "{err}");
    // Other bytes at the same place: a race the flag does not accept.
    let (code, json, _) = lane_stores("1", &["--race-allow-identical"]);
    assert_eq!(code, Some(1), "{json}");
    assert!(
        json["races"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["identical_lanes"] == false),
        "{json}"
    );
    // The flag needs --race.
    let o = ptxemu(&["run", "x.ptx", "--race-allow-identical"]);
    assert_eq!(o.status.code(), Some(2));
}

const REPORTS: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry reports(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 big[4];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %nsmid;
  mov.u32 %r2, %smid;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
"#;

#[test]
fn gpu_sets_what_the_gpu_reports() {
    let d = scratch("cluster-launch", "reports");
    let ptx = d.join("reports.ptx");
    std::fs::write(&ptx, REPORTS).unwrap();
    let out = d.join("out.bin");
    let run = |extra: &[&str]| {
        let dump = format!("0={}", out.display());
        let mut a = vec![
            "run",
            ptx.to_str().unwrap(),
            "--grid",
            "200",
            "--arg",
            "u32[2]:zero",
            "--dump",
            &dump,
        ];
        a.extend_from_slice(extra);
        let o = ptxemu(&a);
        let b = std::fs::read(&out).unwrap_or_default();
        (
            o.status.code(),
            stderr(&o),
            b.chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect::<Vec<_>>(),
        )
    };
    // Without a GPU: one SM, as before.
    let (code, err, v) = run(&[]);
    assert_eq!((code, v[0]), (Some(0), 1), "{err}");
    for (gpu, sms) in [("a100", 108), ("h100", 132), ("b200", 148)] {
        let (code, err, v) = run(&["--gpu", gpu]);
        assert_eq!((code, v[0]), (Some(0), sms), "{gpu}: {err}");
    }
    let (_, _, v) = run(&["--gpu", "h100", "--sms", "7"]);
    assert_eq!(v[0], 7, "--sms overrides the GPU's count");
    let (code, err, _) = run(&["--sms", "0"]);
    assert_eq!(code, Some(2), "{err}");
    // Shared memory: 200 KiB fits an H100's CTA, not an A100's (163 KiB).
    let (code, err, _) = run(&["--gpu", "h100", "--shared-bytes", "204800"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, err, _) = run(&["--gpu", "a100", "--shared-bytes", "204800"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("166912"), "{err}");
}

#[test]
fn plans_honour_and_check_the_cluster_key() {
    let d = scratch("cluster-launch", "plan-cluster");
    std::fs::write(d.join("steal.ptx"), STEAL).unwrap();
    let plan = |cluster: &str, grid: &str| {
        format!(
            r#"{{"version": 1, "module": "steal.ptx", "buffers": {{"counts": "u32[16]:zero"}},
            "steps": [{{"launch": {{"kernel": "steal_pair", "grid": "{grid}", "block": "1",
            "cluster": "{cluster}", "args": ["@counts"]}}}},
            {{"dump": "counts=counts.bin"}}]}}"#
        )
    };
    // A plan writes only below the folder ptxemu runs in: run it in the scratch folder.
    let in_dir = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ptxemu"))
            .current_dir(&d)
            .args(args)
            .output()
            .expect("ptxemu runs")
    };
    std::fs::write(d.join("ok.json"), plan("2", "16")).unwrap();
    let o = in_dir(&["run", "--plan", "ok.json", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(json["launches"][0]["cluster"], serde_json::json!([2, 1, 1]));
    let counts: Vec<u32> = std::fs::read(d.join("counts.bin"))
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(counts, vec![1; 16]);
    // A cluster the grid does not divide is refused before anything runs.
    std::fs::write(d.join("bad.json"), plan("3", "16")).unwrap();
    let o = in_dir(&["run", "--plan", "bad.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "step 0 (launch): the grid 16x1x1 is not a whole number of clusters of 3x1x1"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn buffers_that_are_no_parameter_are_named() {
    let d = scratch("cluster-launch", "named");
    std::fs::write(d.join("reports.ptx"), REPORTS).unwrap();
    let ptx = d.join("reports.ptx").display().to_string();
    let out = d.join("out.bin");
    // `u64:@OUT` passes a --buffer's address; --dump OUT=PATH writes it.
    let o = ptxemu(&[
        "run",
        &ptx,
        "--buffer",
        "OUT=u32[2]:zero",
        "--arg",
        "u64:@OUT",
        "--dump",
        &format!("OUT={}", out.display()),
        "--gpu",
        "b200",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap()[..4], 148u32.to_le_bytes());
    for (args, want) in [
        (
            vec!["--buffer", "OUT=u32[2]:zero", "--arg", "u64:@NOPE"],
            "no buffer named `NOPE`",
        ),
        (
            vec!["--buffer", "1X=u32[2]:zero", "--arg", "u64:@1"],
            "a buffer's name",
        ),
        (
            vec![
                "--buffer",
                "A=u32[2]:zero",
                "--buffer",
                "A=u32[2]:zero",
                "--arg",
                "u64:@A",
            ],
            "given twice",
        ),
        (
            vec!["--buffer", "A=u32:3", "--arg", "u64:@A"],
            "is not a buffer",
        ),
        (
            vec!["--buffer", "A=u32[2]:zero", "--arg", "u64:@A+99"],
            "past its end",
        ),
        (vec!["--arg", "u64:@0"], "argument 0 is not a buffer"),
    ] {
        let mut a = vec!["run", ptx.as_str()];
        a.extend(args);
        let o = ptxemu(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        assert!(stderr(&o).contains(want), "{a:?}: {}", stderr(&o));
    }
}
