//! `ptxemu run ... --emit-launch DIR`: the launch plan `tools/gpu/launch_host.cu` replays on a
//! GPU. The expected records are written from the fixtures' manifests and the CUDA driver's
//! enums (cuda.h: `CUtensorMapDataType` FLOAT16 = 6, BFLOAT16 = 9, `CUtensorMapSwizzle` 64B =
//! 2, 128B_ATOM_64B = 6, `CUtensorMapInterleave` 16B = 1, ...), not from ptxemu. Also: the
//! replay list `tools/gpu/fixtures.tsv` names every fixture folder, and every case of
//! `tools/gpu/tmap_cases.txt` is one ptxemu accepts.

mod fixture_common;

use std::path::{Path, PathBuf};

use fixture_common::{ptxemu, scratch, stderr};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture(p: &str) -> String {
    repo().join("tests/fixtures").join(p).display().to_string()
}

fn emit(args: &[&str], dir: &Path) -> std::process::Output {
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    let d = dir.display().to_string();
    a.extend_from_slice(&["--emit-launch", &d]);
    ptxemu(&a)
}

#[test]
fn im2col_fixture_plan_has_the_drivers_parameters() {
    let d = scratch("emit", "im2col");
    let x = fixture("tma/il16_im2col4d/x.bin");
    let data = format!("tmap:im2col,dtype=f16,dims=5x6x5x2,strides=16x96x480,lower=-1x-1,upper=-1x-1,channels=5,pixels=12,swizzle=64B,interleave=16B,data=u16[480]:file={x}");
    let o = emit(
        &[
            &fixture("tma/tma.sm90a.ptx"),
            "--kernel",
            "tma_im2col4d",
            "--grid",
            "1",
            "--block",
            "128",
            "--arg",
            &data,
            "--arg",
            "u8[192]:zero",
            "--arg",
            "s32:0",
            "--arg",
            "s32:-1",
            "--arg",
            "s32:-1",
            "--arg",
            "s32:0",
            "--arg",
            "s32:2",
            "--arg",
            "s32:1",
            "--arg",
            "s32:192",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = std::fs::read_to_string(d.join("launch.txt")).unwrap();
    let want =
        "ptxemu-launch 1\nmodule module.ptx\nkernel tma_im2col4d\ngrid 1 1 1\nblock 128 1 1\n\
cluster 0 0 0\nshared 0\nparams 9\ndata 0 960 arg0.bin\n\
param 0 tmap im2col 6 4 5 6 5 2 16 96 480 1 1 1 1 1 2 0 0 -1 -1 -1 -1 5 12 0 0\n\
param 1 buffer 192 arg1.bin\nparam 2 scalar 4 00000000\nparam 3 scalar 4 ffffffff\n\
param 4 scalar 4 ffffffff\nparam 5 scalar 4 00000000\nparam 6 scalar 4 02000000\n\
param 7 scalar 4 01000000\nparam 8 scalar 4 c0000000\nend\n";
    assert_eq!(plan, want);
    assert_eq!(
        std::fs::read(d.join("arg0.bin")).unwrap(),
        std::fs::read(&x).unwrap()
    );
    assert_eq!(std::fs::read(d.join("arg1.bin")).unwrap(), vec![0u8; 192]);
    assert_eq!(
        std::fs::read(d.join("module.ptx")).unwrap(),
        std::fs::read(fixture("tma/tma.sm90a.ptx")).unwrap()
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn tiled_map_on_a_buffer_argument_cluster_and_shared() {
    let d = scratch("emit", "tiled");
    let ptx = fixture_common::write_file(
        &d,
        "k.ptx",
        ".version 8.0\n.target sm_90a\n.address_size 64\n\
.visible .entry k(.param .u64 p, .param .align 64 .b8 m[128], .param .f32 s)\n{\nret;\n}\n",
    );
    let o = emit(
        &[
            &ptx,
            "--kernel",
            "k",
            "--grid",
            "4,2",
            "--block",
            "64",
            "--cluster",
            "2",
            "--shared-bytes",
            "1024",
            "--arg",
            "f16[4096]:fill=1",
            "--arg",
            "tmap:tiled,dtype=bf16,buf=0,dims=64x64,strides=128,box=64x8,swizzle=128B_atom_64B,l2=256B,oob=nan,estrides=1x2,offset=256",
            "--arg",
            "f32:1.5",
        ],
        &d.join("plan"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = std::fs::read_to_string(d.join("plan/launch.txt")).unwrap();
    assert!(plan.contains("\ngrid 4 2 1\nblock 64 1 1\ncluster 2 1 1\nshared 1024\nparams 3\n"));
    assert!(plan.contains("\nparam 0 buffer 8192 arg0.bin\n"), "{plan}");
    // dtype 9 (BFLOAT16), rank 2, dims, stride, box, estrides, interleave 0, swizzle 6
    // (128B_ATOM_64B), L2 3 (256B), fill 1 (NAN_REQUEST_ZERO_FMA), buffer 0, offset 256.
    assert!(
        plan.contains("\nparam 1 tmap tiled 9 2 64 64 128 64 8 1 2 0 6 3 1 0 256\n"),
        "{plan}"
    );
    assert!(plan.contains("\nparam 2 scalar 4 0000c03f\n"), "{plan}");
    assert!(!plan.contains("\ndata "));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn what_the_host_cannot_replay_is_refused() {
    let d = scratch("emit", "refused");
    let ptx = fixture("tma/tma.sm90a.ptx");
    let base = [ptx.as_str(), "--kernel", "tma_load3d", "--grid", "1"];
    for (extra, says) in [
        (vec!["--dump", "1=/tmp/x"], "--dump"),
        (vec!["--set", "x=u32:1"], "--set"),
        (vec!["--dump-var", "x=/tmp/x"], "--dump-var"),
        (vec!["--arg", "u32:1"], "takes 6 parameter(s)"),
    ] {
        let mut a = base.to_vec();
        a.extend(extra.iter().copied());
        let o = emit(&a, &d.join("p"));
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{a:?}: {}", stderr(&o));
        assert!(!d.join("p/launch.txt").exists(), "{a:?} wrote a plan");
    }
    // A tensor map must point into a buffer argument, not a scalar.
    let k = fixture_common::write_file(
        &d,
        "k.ptx",
        ".version 8.0\n.target sm_90a\n.address_size 64\n\
.visible .entry k(.param .u32 p, .param .align 64 .b8 m[128])\n{\nret;\n}\n",
    );
    let o = emit(
        &[
            &k,
            "--kernel",
            "k",
            "--arg",
            "u32:1",
            "--arg",
            "tmap:tiled,dtype=u8,buf=0,dims=64,box=16",
        ],
        &d.join("q"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("buf=0 is not a buffer"),
        "{}",
        stderr(&o)
    );
    // A launch shape CUDA refuses.
    let o = emit(
        &[
            &k,
            "--kernel",
            "k",
            "--block",
            "2048",
            "--arg",
            "u32:1",
            "--arg",
            "tmap:tiled,dtype=u8,dims=64,box=16,data=u8[64]:zero",
        ],
        &d.join("r"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("1024"), "{}", stderr(&o));
    let o = ptxemu(&[
        "run",
        "--plan",
        "/nonexistent.json",
        "--emit-launch",
        "/tmp/p",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--plan"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).ok();
}

/// Every fixture folder with a manifest is in the replay list (run or skipped with a
/// reason); `tools/gpu/list_fixtures.py` regenerates the list.
#[test]
fn replay_list_names_every_fixture() {
    let list = std::fs::read_to_string(repo().join("tools/gpu/fixtures.tsv")).unwrap();
    let listed: std::collections::BTreeSet<&str> =
        list.lines().filter_map(|l| l.split('\t').nth(1)).collect();
    let root = repo().join("tests/fixtures");
    let mut stack = vec![root.clone()];
    let mut missing = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
        if d != root && d.join("manifest.json").exists() {
            let name = d.strip_prefix(&root).unwrap().display().to_string();
            if !listed.contains(name.as_str()) {
                missing.push(name);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in tools/gpu/fixtures.tsv (run tools/gpu/list_fixtures.py . > tools/gpu/fixtures.tsv): {missing:?}"
    );
}

/// ptxemu accepts every tensor-map case whose driver encoding the replay records.
#[test]
fn tmap_cases_are_accepted() {
    let cases = std::fs::read_to_string(repo().join("tools/gpu/tmap_cases.txt")).unwrap();
    let probe = repo()
        .join("tools/gpu/tmap_probe.ptx")
        .display()
        .to_string();
    let d = scratch("emit", "cases");
    let mut n = 0;
    for c in cases
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let o = emit(&[&probe, "--kernel", "probe", "--arg", c], &d);
        assert!(o.status.success(), "{c}: {}", stderr(&o));
        n += 1;
    }
    assert!(n >= 40, "{n} cases");
    std::fs::remove_dir_all(&d).ok();
}

/// The replay script end to end on a machine without a GPU: `launch_host.cu` built by NVCC
/// (env `NVCC`, or on PATH) against `tools/gpu/fake/fake_libcuda.c` (device memory in host
/// memory, launches that change nothing), every runnable fixture emitted and replayed, every
/// tensor-map case encoded, and the record packed.
#[test]
#[ignore = "needs nvcc (NVCC); CI runs it with --include-ignored"]
fn replay_script_runs_end_to_end_on_the_fake_driver() {
    use std::process::Command;
    let d = scratch("emit", "replay");
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let lib = d.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let build = |args: &[&str]| {
        let o = Command::new(&nvcc)
            .current_dir(repo())
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("this test needs nvcc ({nvcc:?}): {e}"));
        assert!(o.status.success(), "{}", stderr(&o));
    };
    let so = lib.join("libcuda.so").display().to_string();
    build(&[
        "-shared",
        "-Xcompiler",
        "-fPIC",
        "-o",
        &so,
        "tools/gpu/fake/fake_libcuda.c",
    ]);
    let host = d.join("launch_host").display().to_string();
    build(&[
        "-O2",
        "-o",
        &host,
        "tools/gpu/launch_host.cu",
        "-L",
        &lib.display().to_string(),
        "-lcuda",
    ]);
    let out = d.join("out");
    let o = Command::new("bash")
        .current_dir(repo())
        .arg("tools/gpu/replay-fixtures.sh")
        .arg(env!("CARGO_BIN_EXE_ptxemu"))
        .arg(&out)
        .env("LAUNCH_HOST", &host)
        .env("LD_LIBRARY_PATH", &lib)
        .env("WORK", d.join("work"))
        .env("NVCC", &nvcc)
        .output()
        .unwrap();
    let log = stderr(&o);
    assert!(o.status.success(), "{log}");
    assert!(log.contains("tensor-map cases: 40 of 40 encoded"), "{log}");
    let summary = std::fs::read_to_string(out.join("summary.tsv")).unwrap();
    let rows: Vec<&str> = summary.lines().skip(1).collect();
    assert!(rows.len() > 200, "{} rows", rows.len());
    assert!(rows.iter().all(|r| r.ends_with("\tok")), "{summary}");
    let skipped = std::fs::read_to_string(out.join("skipped.tsv")).unwrap();
    assert!(skipped.contains("PTX target sm_100a does not run on sm_90"));
    assert!(skipped.contains("expects exit 1"));
    assert!(out.join("replay.tar.gz").exists() && out.join("env.txt").exists());
    std::fs::remove_dir_all(&d).ok();
}
