//! No false positives: every runnable, race-free fixture kernel that the other fixture tests
//! run (`tests/fixtures/{kernels,public,triton/runs,async,mma,tma,wgmma,tcgen05}`,
//! `tcgen05_kernels/cuda`) is run again with
//! `--race`, launched exactly as its own test launches it, and must report no data race (exit
//! status 0, a `RACE SUMMARY` of 0 pairs on standard error), except the few of `KNOWN_RACY`, which
//! race by the model's definition and must be reported. These kernels are correct programs from
//! nvcc, clang, Triton and public suites whose outputs match independent references; each
//! synchronises its shared and global accesses with `bar.sync`, `__syncwarp`, mbarriers,
//! `cp.async` waits or atomics, so any race reported here is a detector bug. Fixtures whose
//! manifests expect a fault (exit status ≠ 0) are skipped: their launch stops early.

mod fixture_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Fixtures that race by the PTX memory model's definition (docs/race.md), though their
/// outputs are right on hardware, with why; each must be *reported* (a path fragment of the
/// PTX file or fixture folder).
const KNOWN_RACY: &[(&str, &str)] = &[
    // `old = *p; do { … } while (atomicCAS(p, …) != old)`: the first, plain load of the CAS
    // loop is a weak read unordered with other threads' atom.cas writes of the same word (not
    // morally strong: one is weak). The loop tolerates any value it reads.
    (
        "kernels/atomic_cas_loop/",
        "weak initial read of a CAS loop",
    ),
    // Thread 0 of every CTA stores out[phase * blockDim.x + threadIdx.x]: the index does not
    // depend on blockIdx, so the two CTAs write the same words, unordered (weak writes of
    // different CTAs; only bar.sync and the CTA's own mbarrier order anything).
    (
        "async/mbarrier_phases/",
        "both CTAs write the same output words",
    ),
    // Triton's reductions store each warp's redux/shuffle result with every lane of the warp
    // to one shared word (`st.shared.b32 [smem + warp*4]`, unpredicated): 32 weak writes of
    // the same value by different threads with no barrier between them, a data race by the
    // definition (benign on hardware: the values are equal).
    (
        "layer_norm.",
        "all lanes store the warp's sum to one shared word",
    ),
    (
        "row_argmin.",
        "all lanes store the warp's result to one shared word",
    ),
    (
        "row_max.",
        "all lanes store the warp's max to one shared word",
    ),
    (
        "row_sum.",
        "all lanes store the warp's sum to one shared word",
    ),
    (
        "softmax.",
        "all lanes store the warp's max/sum to one shared word",
    ),
    // Launched with 32×8 threads per CTA, but the kernels index by threadIdx.x only: the 8
    // threads of each column write the same tmp[i] / y[j], unordered.
    (
        "polybench_atax/",
        "threads differing in threadIdx.y write the same element",
    ),
    // Rodinia's BFS: threads expanding different frontier nodes write the same neighbour's
    // mask and cost (`g_updating_graph_mask[id] = true`, `g_cost[id] = …`) and read the
    // visited flags other threads write, all plain accesses with no synchronisation: the
    // well-known benign races of that benchmark.
    (
        "rodinia_bfs/",
        "frontier threads write the same neighbour's flags",
    ),
    // cooperative groups' multi-warp tiles (`multi_warp_cg_reduce`): after `redux.sync`, every
    // lane of a warp stores the warp's sum to the tile's scratch word with an unpredicated
    // `st.u32` (32 weak writes of one word by different threads, nothing between them), as
    // the Triton reductions do; see `cg_multi_warp_tile_scratch_race`.
    (
        "cuda_samples_reduction/",
        "all lanes store the warp's sum to the cg tile's scratch word",
    ),
];

/// Fixtures not judged yet, with why.
const NOT_JUDGED: &[(&str, &str)] = &[];

fn known_racy(what: &str) -> bool {
    KNOWN_RACY.iter().any(|(k, _)| what.contains(k))
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn manifest(dir: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join("manifest.json")).ok()?;
    Some(serde_json::from_str(&text).expect("manifest.json is JSON"))
}

fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Runs `cmd` with `--race` and returns a line describing the problem, if any: a race
/// reported on a race-free fixture, or none on a known racy one. A launch the emulator
/// refuses (exit status 2, e.g. an sm_100 Triton kernel) has no verdict and is skipped.
fn race_free(mut cmd: Command) -> Option<String> {
    cmd.arg("--race");
    let line = format!("{cmd:?}");
    let out = cmd.output().expect("ptxemu runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let raced = stderr.contains("RACE SUMMARY:") && !stderr.contains("RACE SUMMARY: 0 racing");
    if out.status.code() == Some(2) && !raced {
        return None;
    }
    let racy = known_racy(&line);
    if racy && raced && out.status.code() == Some(1) {
        return None;
    }
    if !racy && out.status.success() && !raced {
        return None;
    }
    Some(format!(
        "{line}\nexit {:?}\n{}",
        out.status.code(),
        stderr.lines().take(12).collect::<Vec<_>>().join("\n")
    ))
}

/// The command of a `manifest.json` fixture, launched as its own test launches it, or `None`
/// when the manifest expects a fault.
fn manifest_command(dir: &Path, ptx: &Path, m: &Value) -> Option<Command> {
    if m["exit"].as_i64().unwrap_or(0) != 0 {
        return None;
    }
    Some(fixture_common::launch_command(dir, ptx, m))
}

/// Checks every folder of `family` with the PTX files `ptx_of` names for it.
fn sweep(family: &str, ptx_of: impl Fn(&Path, &Value) -> Vec<PathBuf>) -> usize {
    let mut bad = Vec::new();
    let mut ran = 0;
    for dir in folders(&fixtures().join(family)) {
        let Some(m) = manifest(&dir) else { continue };
        for ptx in ptx_of(&dir, &m) {
            let text = std::fs::read_to_string(&ptx).unwrap_or_default();
            let kernel = m["kernel"].as_str().unwrap_or_default();
            if !text.contains(&format!("{kernel}(")) {
                continue;
            }
            if let Some(cmd) = manifest_command(&dir, &ptx, &m) {
                ran += 1;
                bad.extend(race_free(cmd));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} race-free fixture run(s) of {family} reported races:\n{}",
        bad.len(),
        bad.join("\n\n")
    );
    ran
}

fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn kernels_are_race_free() {
    assert!(sweep("kernels", |d, _| ptx_files(d)) >= 60);
}

#[test]
fn async_kernels_are_race_free() {
    let ran = sweep("async", |d, _| {
        ["sm80", "sm90"]
            .iter()
            .map(|sm| d.join(format!("../cp_async.{sm}.ptx")))
            .collect()
    });
    assert!(ran >= 3);
}

#[test]
fn mma_kernels_are_race_free() {
    let ran = sweep("mma", |d, m| {
        m["variants"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(|v| d.join(format!("{v}.ptx"))))
            .collect()
    });
    assert!(ran >= 15);
}

#[test]
fn tma_kernels_are_race_free() {
    assert!(sweep("tma", |d, _| vec![d.join("../tma.sm90a.ptx")]) >= 8);
}

#[test]
fn wgmma_kernels_are_race_free() {
    assert!(sweep("wgmma", |d, _| vec![d.join("sm90a.ptx")]) >= 10);
}

#[test]
fn tcgen05_kernels_are_race_free() {
    // tcgen05_kernels/cuda (the .cta_group::2 pair kernels among them): `ptx` is relative to
    // tcgen05_kernels/.
    let cuda = sweep("tcgen05_kernels/cuda", |d, m| {
        m["ptx"]
            .as_str()
            .map(|p| vec![d.join("../..").join(p)])
            .unwrap_or_default()
    });
    assert!(cuda >= 9, "{cuda}");
    // tcgen05/: one kernel.ptx per folder (the fault fixtures are skipped).
    let hand = sweep("tcgen05", |d, _| vec![d.join("kernel.ptx")]);
    assert!(hand >= 20, "{hand}");
}

#[test]
fn triton_kernels_are_race_free() {
    let root = fixtures().join("triton");
    let mut bad = Vec::new();
    let mut ran = 0;
    for dir in folders(&root.join("runs")) {
        let Some(m) = manifest(&dir) else { continue };
        for sm in ["sm80", "sm90", "sm100"] {
            let ptx = root.join(m["ptx"].as_str().expect("ptx").replace("sm80", sm));
            if !ptx.exists() {
                continue;
            }
            ran += 1;
            bad.extend(race_free(fixture_common::launch_command(&dir, &ptx, &m)));
        }
    }
    assert!(
        bad.is_empty(),
        "{} Triton run(s) reported races:\n{}",
        bad.len(),
        bad.join("\n\n")
    );
    assert!(ran >= 30);
}

#[test]
#[ignore = "slow: 60 public plans under --race take several minutes; run with --ignored"]
fn public_kernels_are_race_free() {
    let mut bad = Vec::new();
    let mut ran = 0;
    for dir in folders(&fixtures().join("public")) {
        let plan = dir.join("plan.json");
        let expect = std::fs::read_to_string(dir.join("expect.json")).unwrap_or_default();
        let expect: Value = serde_json::from_str(&expect).unwrap_or(Value::Null);
        let at = dir.display().to_string() + "/";
        let skipped = NOT_JUDGED.iter().any(|(k, _)| at.contains(k));
        if !plan.exists() || expect["exit"].as_i64().unwrap_or(0) != 0 || skipped {
            continue;
        }
        let cwd = std::env::temp_dir().join(format!(
            "ptxemu-race-public-{}-{}",
            dir.file_name().unwrap_or_default().to_string_lossy(),
            std::process::id()
        ));
        std::fs::create_dir_all(cwd.join("out")).expect("temp dir");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
        cmd.current_dir(&cwd).arg("run").arg("--plan").arg(&plan);
        ran += 1;
        bad.extend(race_free(cmd));
        std::fs::remove_dir_all(&cwd).ok();
    }
    assert!(
        bad.is_empty(),
        "{} public kernel plan(s) reported races:\n{}",
        bad.len(),
        bad.join("\n\n")
    );
    assert!(ran >= 20);
}

/// `cuda_samples_reduction`'s `multi_warp_cg_reduce` with tiles of two warps: cooperative
/// groups reduces each warp with `redux.sync.add`, then *every* lane stores the warp's sum to
/// the scratch word of its warp (`st.u32 [%rd18+32]`, unpredicated), then `bar.warp.sync` and
/// an `atom.or.acq_rel.cta` handshake between the tile's warps. The 32 stores are weak writes
/// of the same 4 bytes by different threads, and no barrier, `bar.warp.sync` or
/// release/acquire pattern lies between them (the `bar.warp.sync` comes after): by the PTX
/// memory model a data race (benign on hardware, the values are equal). The race must be
/// reported, and it must be the only one: every race names that store against itself, by two
/// lanes of one warp. Tiles of one warp (64 threads, tiles of 32) take the single-warp path
/// and must be race-free.
#[test]
fn cg_multi_warp_tile_scratch_race() {
    let dir = fixtures().join("public/cuda_samples_reduction");
    let run = |kernel: &str, block: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
            .current_dir(&dir)
            .args([
                "run",
                "kernel.ptx",
                "--kernel",
                kernel,
                "--grid",
                "64",
                "--block",
                block,
            ])
            .args([
                "--arg",
                "s32[65536]:file=inputs/data.bin",
                "--arg",
                "s32[64]:zero",
            ])
            .args([
                "--arg",
                "u32:65536",
                "--shared-bytes",
                "8",
                "--race",
                "--json",
            ])
            .output()
            .expect("ptxemu runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("--json output");
        (
            out.status.code(),
            v["races"].as_array().cloned().unwrap_or_default(),
        )
    };
    let (code, races) = run("_Z20multi_warp_cg_reduceIiLm128ELm64EEvPT_S1_j", "128");
    assert_eq!(code, Some(1), "{races:?}");
    assert!(!races.is_empty());
    for r in &races {
        let (a, b) = (&r["first"], &r["second"]);
        assert!(
            a["instruction"]
                .as_str()
                .unwrap_or("")
                .starts_with("st.u32"),
            "{r}"
        );
        assert_eq!(a["line"], b["line"], "{r}");
        assert_eq!(a["warp"], b["warp"], "{r}");
        assert_eq!(a["cta"], b["cta"], "{r}");
        assert_ne!(a["lane"], b["lane"], "{r}");
        assert_eq!(
            (a["kind"].as_str(), b["kind"].as_str()),
            (Some("write"), Some("write"))
        );
    }
    let (code, races) = run("_Z20multi_warp_cg_reduceIiLm64ELm32EEvPT_S1_j", "64");
    assert_eq!((code, races.len()), (Some(0), 0), "{races:?}");
}
