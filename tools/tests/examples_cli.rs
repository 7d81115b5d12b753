//! `ptxemu examples`: the README's first command. It runs every bundled kernel and litmus
//! example; a variant it does not know, or a folder with nothing to run, is an error rather
//! than a success that checked nothing.

use std::path::Path;
use std::process::{Command, Output};

fn examples(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .arg("examples")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn one_variant_runs_each_kernel_once_and_passes() {
    let o = examples(&["--variant", "nvcc-O3"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    let kernels = std::fs::read_dir("../tests/fixtures/kernels")
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("nvcc-O3.ptx").exists())
        .count();
    let ran = stdout.lines().filter(|l| l.contains(" nvcc-O3 ")).count();
    assert_eq!(ran, kernels, "{stdout}");
    assert!(stdout.contains(" 0 failed"), "{stdout}");
}

#[test]
fn an_unknown_variant_or_an_empty_folder_is_an_error() {
    let o = examples(&["--variant", "bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--variant `bogus`"));
    let empty = std::env::temp_dir().join(format!("ptxemu-examples-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let o = examples(&[empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no example kernel ran"));
    std::fs::remove_dir_all(&empty).ok();
}
