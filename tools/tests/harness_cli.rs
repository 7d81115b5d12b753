//! `ptxemu harness`: one CUDA program per test plus build and run scripts; refusals named.

use std::path::Path;
use std::process::Command;

#[test]
fn the_library_becomes_programs_and_scripts() {
    let out = std::env::temp_dir().join(format!("ptxemu-harness-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args([
            "harness",
            "--out",
            out.to_str().unwrap(),
            "--instances",
            "1024",
            "--iterations",
            "10",
            "litmus/tests/library",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "two multi-GPU tests and two alias tests are refused: {stderr}"
    );
    assert!(
        stderr.contains("refused") && stderr.contains("different GPUs"),
        "{stderr}"
    );
    assert!(stderr.contains("virtual alias"), "{stderr}");
    assert!(stdout.contains("37 harness(es)"), "{stdout}");
    let cu = std::fs::read_to_string(out.join("MP+rlx.cu")).unwrap();
    assert!(cu.contains("DEF_INSTANCES = 1024, DEF_ITERATIONS = 10"));
    assert!(
        out.join("MP+rlx.litmus").is_file(),
        "the test travels with its program"
    );
    let build = std::fs::read_to_string(out.join("build.sh")).unwrap();
    assert!(build.contains("'MP+rlx'") && build.contains("-arch=$ARCH"));
    let run = std::fs::read_to_string(out.join("run.sh")).unwrap();
    assert!(run.contains("./'MP+rlx' -json 'MP+rlx.json' \"$@\" > 'MP+rlx.log'"));
    let bad = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .args([
            "harness",
            "--out",
            out.to_str().unwrap(),
            "--instances",
            "100",
            "../litmus/tests/library/MP+rlx.litmus",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("power of two"));
}

/// `--arch` is written into build.sh, so only a known target name is taken: a value that would
/// run a command when the user builds is refused, and nothing is written.
#[test]
fn arch_values_that_are_not_targets_are_refused() {
    let out = std::env::temp_dir().join(format!("ptxemu-harness-arch-{}", std::process::id()));
    let run = |arch: &str| {
        let _ = std::fs::remove_dir_all(&out);
        Command::new(env!("CARGO_BIN_EXE_ptxemu"))
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .args(["harness", "--out", out.to_str().unwrap(), "--arch", arch])
            .arg("litmus/tests/library/MP+rlx.litmus")
            .output()
            .unwrap()
    };
    for bad in [
        "sm_90}; touch PWNED; : ${X",
        "sm_90 -Xptxas -O0",
        "sm_90$(id)",
        "sm_91",
        "sm_80a",
        "compute_",
        "",
    ] {
        let o = run(bad);
        assert_eq!(o.status.code(), Some(2), "--arch {bad:?} was taken");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("expected a known target"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !out.join("build.sh").exists(),
            "--arch {bad:?} wrote build.sh"
        );
    }
    for good in ["sm_90a", "compute_80", "sm_100f", "native"] {
        let o = run(good);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let build = std::fs::read_to_string(out.join("build.sh")).unwrap();
        assert!(
            build.contains(&format!("ARCH=${{ARCH:-'{good}'}}")),
            "{build}"
        );
    }
    std::fs::remove_dir_all(&out).ok();
}
