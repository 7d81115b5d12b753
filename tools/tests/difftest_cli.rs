//! `ptxemu difftest` without a GPU: the generated kernels run on ptxemu; with the
//! emulator-backed host standing in for the GPU the comparison agrees, and when that host is
//! made to corrupt kernels containing one instruction, the mismatches are found and shrunk to
//! that instruction.

mod fixture_common;

use fixture_common::{assert_exit, ptxemu};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("difftest", name)
}

/// `ptxemu difftest ARGS --out DIR`.
fn difftest(out: &Path, args: &[&str]) -> Output {
    let mut all = vec!["difftest"];
    all.extend_from_slice(args);
    all.extend(["--out", out.to_str().expect("UTF-8 path")]);
    ptxemu(&all)
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn emu_only_runs_every_kernel() {
    let d = scratch("emu");
    let o = difftest(&d, &["--emu-only", "--count", "500", "--per-module", "64"]);
    assert_exit(&o, 0);
    let s = summary(&d);
    assert_eq!(s["kernels"], 500);
    assert_eq!(s["mismatches"], 0);
}

#[test]
fn an_agreeing_host_gives_no_mismatch_and_a_corrupting_one_is_caught_and_shrunk() {
    let exe = env!("CARGO_BIN_EXE_ptxemu");
    let d = scratch("agree");
    let host = format!("{exe} difftest-host");
    let o = difftest(
        &d,
        &["--count", "120", "--per-module", "40", "--host", &host],
    );
    assert_exit(&o, 0);
    assert_eq!(summary(&d)["kernels"], 120);

    let d = scratch("corrupt");
    let host = format!("{exe} difftest-host --perturb popc.b32");
    let o = difftest(
        &d,
        &[
            "--count",
            "120",
            "--per-module",
            "40",
            "--max-shrink",
            "2",
            "--host",
            &host,
        ],
    );
    assert_exit(&o, 1);
    let s = summary(&d);
    assert!(s["mismatches"].as_u64().unwrap() > 0);
    let saved = s["saved"].as_array().unwrap();
    assert_eq!(saved.len(), 2);
    for base in saved {
        let base = base.as_str().unwrap();
        let ptx = std::fs::read_to_string(format!("{base}.ptx")).unwrap();
        let body: Vec<&str> = ptx
            .split("setp.gt.s32 %p3, %r3, 0;")
            .nth(1)
            .unwrap()
            .split("st.global.b32 [%out+0]")
            .next()
            .unwrap()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(body.len(), 1, "shrunk to one instruction: {body:?}");
        assert!(body[0].starts_with("popc.b32"), "{body:?}");
        let txt = std::fs::read_to_string(format!("{base}.txt")).unwrap();
        assert!(
            txt.contains("shrunk to 1 item(s)") && txt.contains("thread 0 %r0"),
            "{txt}"
        );
        assert!(std::path::Path::new(&format!("{base}.gpu.bin")).is_file());
    }
}

#[test]
fn gen_only_writes_the_host_program() {
    let d = scratch("gen");
    let o = difftest(&d, &["--gen-only", "--count", "10"]);
    assert_exit(&o, 0);
    let host = std::fs::read_to_string(d.join("difftest_host.cu")).unwrap();
    assert!(host.contains("cuModuleLoadDataEx") && host.contains("#define FRAME 128"));
    let ptx = std::fs::read_to_string(d.join("module0.ptx")).unwrap();
    assert_eq!(ptx.matches(".entry k").count(), 10);
}

/// The generated host program compiles with NVCC (env `NVCC`, or on PATH).
#[test]
#[ignore = "needs nvcc (NVCC); CI runs it with --include-ignored"]
fn the_host_program_compiles_with_nvcc() {
    let d = scratch("nvcc");
    let o = difftest(&d, &["--gen-only", "--count", "10"]);
    assert_exit(&o, 0);
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let out = Command::new(&nvcc)
        .args(["-c", "-o"])
        .arg(d.join("host.o"))
        .arg(d.join("difftest_host.cu"))
        .output()
        .unwrap_or_else(|e| panic!("this test needs nvcc ({nvcc:?}): {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_gpu_batch_script_records_environment_summary_and_mismatches() {
    let d = scratch("script");
    let fake = d.join("bin");
    std::fs::create_dir_all(&fake).unwrap();
    let exe = env!("CARGO_BIN_EXE_ptxemu");
    // Stand-ins for the GPU machine's tools: nvcc "builds" the host program as the
    // emulator-backed host, made to corrupt every kernel with an `add` in it.
    let write = |name: &str, body: String| {
        let p = fake.join(name);
        std::fs::write(&p, body).unwrap();
        Command::new("chmod").arg("+x").arg(&p).status().unwrap();
    };
    write(
        "nvidia-smi",
        "#!/bin/sh\necho 'Stand-in GPU, 0.0, 9.0'\n".into(),
    );
    write(
        "nvcc",
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'stand-in'; echo 'nvcc 0.0'; exit 0; fi\n\
             printf '#!/bin/sh\\nexec {} difftest-host --perturb add \"$@\"\\n' > \"$3\"\nchmod +x \"$3\"\n",
            exe
        ),
    );
    let result = d.join("result");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/hardware/difftest-on-gpu.sh");
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
    let o = Command::new("bash")
        .arg(&script)
        .args([exe, "7", "1", "1"])
        .arg(&result)
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("difftest exit status 1"), "{stdout}");
    let env = std::fs::read_to_string(result.join("env.txt")).unwrap();
    assert!(
        env.contains("Stand-in GPU, 0.0, 9.0") && env.contains("nvcc 0.0"),
        "{env}"
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(result.join("summary-seed-7.json")).unwrap())
            .unwrap();
    assert_eq!(s["seed"], 7);
    assert_eq!(s["stopped_by_time_limit"], true);
    let kernels = s["kernels"].as_u64().unwrap();
    assert!(kernels >= 250 && kernels.is_multiple_of(250), "{s}");
    assert!(s["mismatches"].as_u64().unwrap() > 0, "{s}");
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(result.join("mismatches-seed-7.tar.gz"))
        .output()
        .unwrap();
    let names = String::from_utf8_lossy(&listing.stdout);
    assert!(
        names.contains("mismatches/seed-") && names.contains(".gpu.bin"),
        "{names}"
    );
}

/// `--jobs 0` means every core, as elsewhere, and runs the kernels; a time limit that is not a
/// positive finite number of seconds, or no kernels at all, is refused before anything runs.
#[test]
fn zero_jobs_means_all_cores_and_bad_limits_are_refused() {
    let d = scratch("jobs0");
    let o = difftest(&d, &["--emu-only", "--count", "20", "--jobs", "0"]);
    assert_exit(&o, 0);
    assert_eq!(summary(&d)["kernels"], 20);
    for bad in [
        ["--time-limit", "-1"],
        ["--time-limit", "NaN"],
        ["--time-limit", "inf"],
        ["--time-limit", "0"],
        ["--count", "0"],
    ] {
        let o = difftest(&d, &["--emu-only", bad[0], bad[1]]);
        assert_eq!(o.status.code(), Some(2), "{bad:?} was accepted");
    }
}

/// The tensor-core family runs on ptxemu for both targets, every kernel without fault.
#[test]
fn the_mma_family_runs_on_ptxemu_for_sm80_and_sm90a() {
    for arch in ["sm_80", "sm_90a"] {
        let d = scratch(&format!("mma-{arch}"));
        let o = difftest(
            &d,
            &[
                "--family",
                "mma",
                "--arch",
                arch,
                "--emu-only",
                "--count",
                "300",
                "--per-module",
                "100",
            ],
        );
        assert_exit(&o, 0);
        let s = summary(&d);
        assert_eq!(
            (s["kernels"].as_u64(), s["mismatches"].as_u64()),
            (Some(300), Some(0))
        );
        assert_eq!(
            (s["family"].as_str(), s["arch"].as_str()),
            (Some("mma"), Some(arch))
        );
    }
}

/// `--arch sm_100a` adds the byte and packed-source matrix moves; they run on ptxemu too.
#[test]
fn the_mma_family_runs_on_ptxemu_for_sm100a() {
    let d = scratch("mma-sm_100a");
    let o = difftest(
        &d,
        &[
            "--family",
            "mma",
            "--arch",
            "sm_100a",
            "--emu-only",
            "--count",
            "200",
            "--per-module",
            "100",
        ],
    );
    assert_exit(&o, 0);
    let s = summary(&d);
    assert_eq!(
        (s["kernels"].as_u64(), s["mismatches"].as_u64()),
        (Some(200), Some(0))
    );
    assert_eq!(s["arch"].as_str(), Some("sm_100a"));
}

/// A host that flips the lowest bit of a float result is within the bound (counted, exit 0);
/// one that flips a bit that `ldmatrix` moved is a mismatch, saved with its kernel.
#[test]
fn mma_outputs_are_judged_exactly_for_moves_and_within_a_bound_for_floats() {
    let exe = env!("CARGO_BIN_EXE_ptxemu");
    let run = |name: &str, perturb: &str| {
        let d = scratch(name);
        let host = format!("{exe} difftest-host --perturb {perturb}");
        let o = difftest(
            &d,
            &[
                "--family",
                "mma",
                "--arch",
                "sm_90a",
                "--count",
                "200",
                "--per-module",
                "100",
                "--host",
                &host,
            ],
        );
        (o, d)
    };
    let (o, d) = run("mma-float", ".row.col.f32.f16.f16.f32");
    assert_exit(&o, 0);
    let s = summary(&d);
    assert_eq!(s["mismatches"], 0);
    assert!(s["within_bound"].as_u64().unwrap() > 0, "{s}");
    let first = s["within_bound_first_100"][0].as_str().unwrap();
    assert!(first.contains("thread 0 word 0"), "{first}");

    let (o, d) = run("mma-move", "ldmatrix");
    assert_exit(&o, 1);
    let s = summary(&d);
    assert!(s["mismatches"].as_u64().unwrap() > 0, "{s}");
    let base = s["saved"][0].as_str().unwrap();
    let ptx = std::fs::read_to_string(format!("{base}.ptx")).unwrap();
    assert!(ptx.contains("ldmatrix.sync.aligned.m8n8"), "{ptx}");
    let txt = std::fs::read_to_string(format!("{base}.txt")).unwrap();
    assert!(txt.contains("thread 0 word 0"), "{txt}");
}

fn cuda_tool(name: &str) -> std::ffi::OsString {
    std::env::var_os(name.to_uppercase()).unwrap_or_else(|| name.into())
}

/// The generated tensor-core modules assemble with ptxas (env `PTXAS`, or on PATH) for sm_80
/// and sm_90a, and the host program that runs them compiles with nvcc (env `NVCC`) for both.
#[test]
#[ignore = "needs ptxas and nvcc (PTXAS, NVCC); CI runs it with --include-ignored"]
fn mma_modules_assemble_with_ptxas_and_the_host_compiles_for_sm80_and_sm90a() {
    for arch in ["sm_80", "sm_90a"] {
        let d = scratch(&format!("mma-ptxas-{arch}"));
        let o = difftest(
            &d,
            &[
                "--family",
                "mma",
                "--arch",
                arch,
                "--gen-only",
                "--count",
                "400",
                "--per-module",
                "400",
            ],
        );
        assert_exit(&o, 0);
        let ptx = std::fs::read_to_string(d.join("module0.ptx")).unwrap();
        for needle in [
            "mma.sync",
            "ldmatrix",
            "movmatrix",
            "cp.async.c",
            ".s4.",
            ".b1.",
        ] {
            assert!(ptx.contains(needle), "{arch}: no {needle}");
        }
        if arch == "sm_90a" {
            assert!(ptx.contains("stmatrix") && ptx.contains("e4m3"), "{arch}");
        }
        let out = Command::new(cuda_tool("ptxas"))
            .arg(format!("-arch={arch}"))
            .arg(d.join("module0.ptx"))
            .arg("-o")
            .arg(d.join("module0.cubin"))
            .output()
            .expect("this test needs ptxas");
        assert!(
            out.status.success(),
            "{arch}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(cuda_tool("nvcc"))
            .arg(format!("-arch={arch}"))
            .args(["-c", "-o"])
            .arg(d.join("host.o"))
            .arg(d.join("difftest_host.cu"))
            .output()
            .expect("this test needs nvcc");
        assert!(
            out.status.success(),
            "{arch}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
