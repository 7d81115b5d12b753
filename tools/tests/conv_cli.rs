//! The motivating case of `--set` and `--plan`: a separable convolution whose 17-tap filter
//! lives in constant memory (`c_Kernel`), written by the host before the row and column
//! passes, as cuda-samples' convolutionSeparable does. `data/conv/conv.ptx` is nvcc 13.5's
//! output for `conv.cu`; the expected images come from numpy (`reference.py`, rounding like
//! the kernel), and must match bit for bit. `make.sh` regenerates them.

mod fixture_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/conv")
}

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("conv", name)
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("ptxemu runs")
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_plan_sets_the_filter_then_runs_both_passes() {
    // The committed plan as a user runs it: module and inputs relative to the plan's folder,
    // dumps relative to the current folder.
    let out = scratch("plan");
    let plan = data().join("plan.json");
    let o = run_in(&out, &["run", "--plan", plan.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        read(&out.join("rows.bin")),
        read(&data().join("rows.expected.bin"))
    );
    assert_eq!(
        read(&out.join("out.bin")),
        read(&data().join("out.expected.bin"))
    );
    assert_eq!(
        read(&out.join("c_Kernel.bin")),
        read(&data().join("kernel.bin"))
    );
}

fn row_pass(out: &Path, set: bool) -> Vec<u8> {
    let d = data();
    let image = format!("f32[960]:file={}", d.join("image.bin").display());
    let filter = format!("c_Kernel=f32[17]:file={}", d.join("kernel.bin").display());
    let ptx = d.join("conv.ptx");
    let mut args = vec![
        "run",
        ptx.to_str().unwrap(),
        "--kernel",
        "conv_rows",
        "--grid",
        "3,24",
        "--block",
        "16",
        "--arg",
        "f32[960]:zero",
        "--arg",
        &image,
        "--arg",
        "s32:40",
        "--arg",
        "s32:24",
        "--dump",
        "0=rows.bin",
    ];
    if set {
        args.extend(["--set", &filter]);
    }
    let o = run_in(out, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    read(&out.join("rows.bin"))
}

#[test]
fn a_single_launch_with_set_matches_numpy() {
    let out = scratch("single");
    assert_eq!(
        row_pass(&out, true),
        read(&data().join("rows.expected.bin"))
    );
    // Without --set the filter keeps its (absent) initialiser: all zero, so every sum is 0.
    assert_eq!(row_pass(&out, false), vec![0u8; 960 * 4]);
}
