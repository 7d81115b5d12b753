//! CUDA kernels with inline `cp.async` and `mbarrier` (`tests/fixtures/async/cp_async.cu`,
//! compiled by nvcc 13.5 for sm_80 and sm_90), run through `ptxemu run` and compared with
//! numpy references (`ref.py`); and the checked-mode faults: a shared-memory read of bytes a
//! pending cp.async writes, an mbarrier wait that can never complete, and an mbarrier used
//! before `mbarrier.init`.

mod fixture_common;

use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/async")
        .join(name)
}

fn run(name: &str, sm: &str) {
    fixture_common::run_fixture_at(&dir(name), &format!("../cp_async.{sm}.ptx"));
}

#[test]
fn cp_async_tiles_sm80() {
    run("cp_async_tiles", "sm80");
}

#[test]
fn cp_async_tiles_sm90() {
    run("cp_async_tiles", "sm90");
}

#[test]
fn mbarrier_phases_sm90() {
    run("mbarrier_phases", "sm90");
}

#[test]
fn cp_async_missing_wait_is_a_fault_sm80() {
    run("cp_async_missing_wait", "sm80");
}

#[test]
fn cp_async_missing_wait_is_a_fault_sm90() {
    run("cp_async_missing_wait", "sm90");
}

#[test]
fn mbarrier_deadlock_is_a_fault() {
    run("mbarrier_deadlock", "sm90");
}

#[test]
fn mbarrier_before_init_is_a_fault() {
    run("mbarrier_uninit", "sm90");
}
