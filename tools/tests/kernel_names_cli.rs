//! Kernels and buffers named as a C++ programmer knows them (issue 39 item 4): `--kernel`
//! takes the mangled name, the demangled signature or a unique base name; faults, race reports
//! and `explain --race-report` show demangled names; a race's global address names the launch
//! argument whose buffer holds it. Expected names come from GNU c++filt, recorded in
//! `emu/tests/kernel_names/cxxfilt.tsv`; expected buffers and offsets from the fixtures' CUDA
//! sources (`tests/fixtures/race_kernels/*.cu`).

mod fixture_common;

use std::io::Write;
use std::process::{Command, Stdio};

use fixture_common::ptxemu_in_workspace as ptxemu;
use serde_json::Value as Json;

const REDUCTIONS: &str = "tests/fixtures/race_kernels/reductions.ptx";
const SYNC_SCOPES: &str = "tests/fixtures/race_kernels/sync_scopes.ptx";
const TEMPLATES: &str = "tests/fixtures/public/cuda_samples_reduction/kernel.ptx";

/// c++filt's demangling of `mangled`, from the recorded reference.
fn cxxfilt(mangled: &str) -> String {
    include_str!("../../emu/tests/kernel_names/cxxfilt.tsv")
        .lines()
        .find_map(|l| l.strip_prefix(mangled)?.strip_prefix('\t'))
        .unwrap_or_else(|| panic!("{mangled} is not in cxxfilt.tsv"))
        .to_string()
}

fn reduce(kernel: &str, extra: &[&str]) -> (Option<i32>, Json, String) {
    let mut args = vec![
        "run",
        REDUCTIONS,
        "--kernel",
        kernel,
        "--grid",
        "2",
        "--block",
        "128",
        "--arg",
        "f32[256]:fill=1",
        "--arg",
        "f32[2]:zero",
        "--json",
    ];
    args.extend(extra);
    let o = ptxemu(&args);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    let j: Json =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{kernel}: {e}: {stderr}"));
    (o.status.code(), j, stderr)
}

#[test]
fn the_mangled_name_the_signature_in_either_spelling_and_the_base_name_run_one_kernel() {
    let mangled = "_Z19reduce_missing_syncPKfPf";
    let sig = cxxfilt(mangled);
    assert_eq!(sig, "reduce_missing_sync(float const*, float*)");
    let (code, want, _) = reduce(mangled, &["--race"]);
    assert_eq!(code, Some(1), "{want}");
    for name in [
        sig.as_str(),
        "reduce_missing_sync(const float *, float *)",
        "  reduce_missing_sync ( const float*,float* ) ",
        "reduce_missing_sync",
    ] {
        let (code, j, _) = reduce(name, &["--race"]);
        assert_eq!(code, Some(1), "{name}: {j}");
        assert_eq!(j["kernel"], mangled, "{name}");
        assert_eq!(j["kernel_demangled"], sig.as_str(), "{name}");
        assert_eq!(j["races"], want["races"], "{name}");
    }
}

#[test]
fn an_ambiguous_base_name_is_refused_with_every_candidate() {
    let o = ptxemu(&[
        "run", TEMPLATES, "--kernel", "reduce4", "--grid", "1", "--block", "32", "--json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let j: Json = serde_json::from_slice(&o.stdout).expect("a JSON error object");
    assert_eq!(j["error"]["kind"], "no_kernel", "{j}");
    let msg = j["error"]["message"].as_str().unwrap().to_string();
    let ptx = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(TEMPLATES),
    )
    .unwrap();
    let instances: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .map(|l| l.trim_end_matches('(').to_string())
        .filter(|m| cxxfilt(m).starts_with("void reduce4<"))
        .collect();
    assert_eq!(instances.len(), 30);
    for m in &instances {
        assert!(
            msg.contains(&cxxfilt(m)) && msg.contains(m.as_str()),
            "{msg} lacks {m}"
        );
    }
    assert!(!msg.contains("reduce5<"), "{msg}");
    // One instance, by its template arguments alone or by its signature.
    let one = &instances[0];
    let sig = cxxfilt(one);
    let templ = &sig["void ".len()..sig.find('(').unwrap()];
    for name in [templ, sig.as_str()] {
        let o = ptxemu(&[
            "run",
            TEMPLATES,
            "--kernel",
            name,
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "s32[64]:fill=1",
            "--arg",
            "s32[1]:zero",
            "--arg",
            "u32:32",
            "--json",
        ]);
        let j: Json = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["kernel"], one.as_str(), "{name}: {j}");
    }
}

#[test]
fn a_declaration_as_written_in_the_source_finds_its_kernel() {
    // threadFenceReduction's `template <unsigned int blockSize, bool nIsPow2> __global__ void
    // reduceSinglePass(const float *g_idata, float *g_odata, unsigned int n)`, written as a
    // CUDA programmer might: parameter names, `unsigned` for `unsigned int`, template
    // arguments without c++filt's `u`.
    let ptx = "tests/fixtures/public/cuda_samples_thread_fence_reduction/kernel.ptx";
    let mangled = "_Z16reduceSinglePassILj128ELb1EEvPKfPfj";
    assert_eq!(
        cxxfilt(mangled),
        "void reduceSinglePass<128u, true>(float const*, float*, unsigned int)"
    );
    for name in [
        "reduceSinglePass<128, true>(const float *g_idata, float *g_odata, unsigned n)",
        "void reduceSinglePass<128u, true>(const float g_idata[], float* g_odata, unsigned int n)",
        "reduceSinglePass<128, true>",
    ] {
        let o = ptxemu(&[
            "run",
            ptx,
            "--kernel",
            name,
            "--grid",
            "1",
            "--block",
            "128",
            "--arg",
            "f32[128]:fill=1",
            "--arg",
            "f32[1]:zero",
            "--arg",
            "u32:128",
            "--json",
        ]);
        let j: Json = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&o.stderr)));
        assert_eq!(j["kernel"], mangled, "{name}: {j}");
    }
    // A signature that differs in a type (a non-const input) names no kernel.
    let o = ptxemu(&[
        "run",
        ptx,
        "--kernel",
        "reduceSinglePass<128, false>(float*, float*, unsigned)",
        "--grid",
        "1",
        "--block",
        "128",
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a non-const input is another signature"
    );
}

#[test]
fn an_unknown_name_lists_every_kernel_with_its_signature() {
    let (code, j, stderr) = reduce("reduce", &[]);
    assert_eq!(code, Some(2));
    assert_eq!(j["error"]["kind"], "no_kernel");
    assert!(stderr.contains("no kernel named `reduce`"), "{stderr}");
    for m in [
        "_Z9reduce_okPKfPf",
        "_Z19reduce_missing_syncPKfPf",
        "_Z17reduce_tail_plainPKfPf",
        "_Z20reduce_tail_volatilePKfPf",
        "_Z20reduce_tail_syncwarpPKfPf",
    ] {
        assert!(
            stderr.contains(m) && stderr.contains(&cxxfilt(m)),
            "{stderr} lacks {m}"
        );
    }
}

#[test]
fn a_fault_names_the_kernel_demangled_and_json_keeps_the_mangled_name() {
    // 16 inputs for 256 threads: thread 16 reads past the end of argument 0.
    let o = ptxemu(&[
        "run",
        REDUCTIONS,
        "--kernel",
        "reduce_ok",
        "--grid",
        "2",
        "--block",
        "128",
        "--arg",
        "f32[16]:fill=1",
        "--arg",
        "f32[2]:zero",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    let sig = cxxfilt("_Z9reduce_okPKfPf");
    assert!(e.contains(&format!("in kernel `{sig}`")), "{e}");
    assert!(e.contains("past the end of argument 0"), "{e}");
    let (code, j, _) = {
        let o = ptxemu(&[
            "run",
            REDUCTIONS,
            "--kernel",
            "reduce_ok",
            "--grid",
            "2",
            "--block",
            "128",
            "--arg",
            "f32[16]:fill=1",
            "--arg",
            "f32[2]:zero",
            "--json",
        ]);
        (
            o.status.code(),
            serde_json::from_slice::<Json>(&o.stdout).unwrap(),
            (),
        )
    };
    assert_eq!(code, Some(1));
    let f = &j["faults"][0];
    assert_eq!(f["kernel"], "_Z9reduce_okPKfPf", "{f}");
    assert_eq!(f["kernel_demangled"], sig.as_str(), "{f}");
}

fn last_block_nofence(json: bool) -> std::process::Output {
    let mut args = vec![
        "run",
        SYNC_SCOPES,
        "--kernel",
        "last_block_nofence",
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
        "--race",
    ];
    if json {
        args.push("--json");
    }
    ptxemu(&args)
}

#[test]
fn a_race_names_the_argument_whose_buffer_it_touches() {
    // sync_scopes.cu: CTA c writes partial[c] (argument 0); the last CTA reads every
    // partial[i] without a fence. Each race is on argument 0, at byte 4 * (the writer's CTA).
    let o = last_block_nofence(true);
    assert_eq!(o.status.code(), Some(1));
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    let races = j["races"].as_array().unwrap();
    assert!(!races.is_empty());
    let partial = &j["buffers"][0];
    assert_eq!(partial["arg"], 0);
    let base = u64::from_str_radix(
        partial["address"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
        16,
    )
    .unwrap();
    for r in races {
        let (w, rd) = (&r["first"], &r["second"]);
        assert_eq!(w["kind"], "write", "{r}");
        let writer = w["cta"][0].as_u64().unwrap();
        for a in [w, rd] {
            let arg = &a["argument"];
            assert_eq!(arg["index"], 0, "{r}");
            assert_eq!(arg["name"], "_Z18last_block_nofencePjS_S__param_0", "{r}");
            assert_eq!(arg["offset"], 4 * writer, "{r}");
            let addr =
                u64::from_str_radix(a["address"].as_str().unwrap().trim_start_matches("0x"), 16)
                    .unwrap();
            assert_eq!(addr, base + 4 * writer, "{r}");
        }
    }
    let text = String::from_utf8_lossy(&last_block_nofence(false).stderr).to_string();
    let sig = cxxfilt("_Z18last_block_nofencePjS_S_");
    assert!(
        text.contains(&format!(
            "--race: kernel {sig} (_Z18last_block_nofencePjS_S_)"
        )),
        "{text}"
    );
    assert!(
        text.contains("at global 0x200000000 (arg 0, byte 0) by"),
        "{text}"
    );
}

#[test]
fn a_parameter_with_its_own_name_is_named_in_the_text() {
    // pairs.ptx (hand-written) names its parameter `x`.
    let o = ptxemu(&[
        "run",
        "tests/fixtures/race_kernels/pairs.ptx",
        "--kernel",
        "two_stores_one_load",
        "--grid",
        "1",
        "--block",
        "96",
        "--arg",
        "u32[1]:zero",
        "--race",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("(arg 0 `x`, byte 0)"), "{e}");
    assert!(e.contains("--race: kernel two_stores_one_load\n"), "{e}");
}

#[test]
fn explain_shows_the_demangled_kernel_and_the_argument() {
    let report = last_block_nofence(true).stdout;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(["explain", "--race-report", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&report).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let t = String::from_utf8_lossy(&o.stdout);
    let sig = cxxfilt("_Z18last_block_nofencePjS_S_");
    assert!(t.contains(&format!("in kernel {sig}.")), "{t}");
    assert!(t.contains("(arg 0, byte 4)"), "{t}");
}

#[test]
fn a_plan_step_names_its_kernel_by_signature() {
    let dir = std::env::temp_dir().join(format!("ptxemu-kernel-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plan = dir.join("plan.json");
    // A dump's path is relative to the folder ptxemu runs in, and a plan writes only below
    // it: the run happens in the test's folder.
    let out_bin = dir.join("out.bin");
    let text = r#"{"version": 1,
            "buffers": {"x": "f32[256]:fill=1", "out": "f32[2]:zero"},
            "steps": [
              {"launch": {"kernel": "reduce_ok(const float *, float *)", "grid": "2",
                          "block": "128", "args": ["@x", "@out"]}},
              {"dump": "out=out.bin"}]}"#;
    std::fs::write(&plan, text).unwrap();
    let reductions = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(REDUCTIONS);
    let o = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(&dir)
        .args(["run", reductions.to_str().unwrap(), "--plan", "plan.json"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Each CTA of 128 threads sums 128 ones.
    let out = std::fs::read(&out_bin).unwrap();
    let sums: Vec<f32> = out
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(sums, [128.0, 128.0]);
    std::fs::remove_dir_all(&dir).ok();
}
