//! `ptxemu run` beside a Triton `NAME.json`: a kernel compiled with `num_ctas = 2` launches as
//! Triton's launcher launches it (the grid's x doubled, clusters of 2), and a `NAME.json` that
//! is not Triton's metadata is ignored with a note when `--kernel` and `--block` are given.
//! Expected values follow from the kernel's source (`tests/fixtures/triton/clusters/gen.py`:
//! out = 3 × x).

mod fixture_common;

use fixture_common::ptxemu_in_workspace as ptxemu;
use serde_json::Value as Json;

const PTX: &str = "tests/fixtures/triton/clusters/scaled_copy.ptx";

fn run(extra: &[&str]) -> std::process::Output {
    let mut v = vec![
        "run",
        PTX,
        "--grid",
        "2",
        "--arg",
        "f32[512]:fill=2",
        "--arg",
        "f32[512]:zero",
        "--arg",
        "s32:512",
    ];
    v.extend(extra);
    ptxemu(&v)
}

#[test]
fn num_ctas_launches_clusters_as_tritons_launcher_does() {
    let o = run(&["--json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["grid"], serde_json::json!([4, 1, 1]));
    assert_eq!(j["cluster"], serde_json::json!([2, 1, 1]));
    assert_eq!(j["block"], serde_json::json!([128, 1, 1]));
    assert_eq!(j["triton_metadata"]["num_ctas"], 2);
    let out = j["buffers"][1]["values"].as_array().unwrap();
    assert_eq!(out.len(), 512);
    assert!(out.iter().all(|v| v.as_f64() == Some(6.0)), "{out:?}");
}

#[test]
fn a_cluster_that_contradicts_num_ctas_is_refused() {
    let o = run(&["--cluster", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("num_ctas = 2"), "{err}");
}

#[test]
fn a_json_that_is_not_tritons_is_ignored_when_the_launch_is_explicit() {
    let dir = std::env::temp_dir().join(format!("ptxemu-notriton-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = fixture_common::workspace().join("tests/fixtures/lineinfo/lineinfo.ptx");
    std::fs::copy(&src, dir.join("k.ptx")).unwrap();
    std::fs::write(
        dir.join("k.json"),
        r#"{"compiler": "nvcc", "flags": ["-lineinfo"]}"#,
    )
    .unwrap();
    let ptx = dir.join("k.ptx");
    let ptx = ptx.to_str().unwrap();
    let args = [
        "run",
        ptx,
        "--kernel",
        "racy_sum",
        "--block",
        "1",
        "--arg",
        "f32[1]:fill=1",
        "--arg",
        "f32[1]:zero",
    ];
    let o = ptxemu(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not Triton's kernel metadata"), "{err}");
    // Without --block the file would have to supply it: still an error.
    let o = ptxemu(
        &args[..4]
            .iter()
            .chain(&args[6..])
            .copied()
            .collect::<Vec<_>>(),
    );
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}
