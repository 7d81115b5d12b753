//! TMA kernels with host-side tensor maps (`tests/fixtures/tma/tma.cu`, compiled by nvcc 13.5
//! for sm_90a), run through `ptxemu run` and compared with numpy references built on an
//! independent Python model of the driver's box placement and swizzles (`ref.py`, `model.py`):
//! every swizzle mode, element strides, 1-5 ranks, im2col, out-of-bound zero and NaN fill,
//! tile stores and reductions, interleaved (16B/32B) loads, stores and reductions, non-tensor
//! bulk copies and a device-made tensor map; and the
//! proxy checker's reports.

mod fixture_common;

use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/tma")
        .join(name)
}

fn run(name: &str) {
    fixture_common::run_fixture_at(&dir(name), "../tma.sm90a.ptx");
}

#[test]
fn load_2d_swizzle_128b_zero_fill() {
    run("load2d_sw128");
}

#[test]
fn load_2d_swizzle_64b_nan_fill() {
    run("load2d_sw64_nan");
}

#[test]
fn load_3d_swizzle_32b_element_strides() {
    run("load3d_sw32_estrides");
}

#[test]
fn load_5d() {
    run("load5d");
}

#[test]
fn im2col_4d() {
    run("im2col4d");
}

#[test]
fn store_2d() {
    run("store2d");
}

#[test]
fn reduce_2d_add() {
    run("reduce2d_add");
}

#[test]
fn bulk_copy_and_reduce() {
    run("bulk_copy");
}

#[test]
fn device_made_tensor_map() {
    run("tmap_device");
}

#[test]
fn missing_fence_proxy_async_is_reported() {
    run("store_nofence");
}

#[test]
fn reading_a_tma_destination_before_the_wait_is_reported() {
    run("read_before_wait");
}

#[test]
fn a_device_map_used_without_acquire_is_reported() {
    run("tmap_device_noacquire");
}

#[test]
fn proxy_check_off_lets_the_unfenced_store_run() {
    run("store_nofence_unchecked");
}

// Interleaved maps (16B / 32B channel slices; docs/tensor-map.md "Interleaved maps"),
// expected bytes from `model.tile_interleaved`.

#[test]
fn interleave_16b_load_5d_nan_fill() {
    run("il16_load5d_nan");
}

#[test]
fn interleave_16b_load_3d_strided_channels() {
    run("il16_load3d_estride");
}

#[test]
fn interleave_32b_load_3d() {
    run("il32_load3d");
}

#[test]
fn interleave_32b_store_3d() {
    run("il32_store3d");
}

#[test]
fn interleave_16b_reduce_3d_add() {
    run("il16_reduce3d_add");
}

#[test]
fn swizzle_128b_atomicity_32b() {
    run("load2d_sw128_atom32");
}

#[test]
fn swizzle_128b_atomicity_64b() {
    run("load3d_sw128_atom64");
}

#[test]
fn interleave_16b_im2col_4d() {
    run("il16_im2col4d");
}

/// The fixture run again with its tensor map given as the bytes the CUDA driver made from the
/// same parameters on an H100 (litmus/hardware/nvidia-h100/tensor-maps/fixtures/NAME/tmap0.bin,
/// `tmap:driver,file=...`): the dumps must equal the same expected files.
fn run_with_driver_bytes(name: &str) {
    let src = dir(name);
    let rec = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../litmus/hardware/nvidia-h100/tensor-maps/fixtures")
        .join(name)
        .join("tmap0.bin");
    let tmp = std::env::temp_dir().join(format!("ptxemu-tma-driver-{}", std::process::id()));
    let work = tmp.join(name);
    std::fs::create_dir_all(&work).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), work.join(e.file_name())).unwrap();
    }
    std::fs::copy(&rec, work.join("tmap0.bin")).unwrap();
    let mut m = fixture_common::manifest(&src);
    let arg0 = m["args"][0].as_str().unwrap().to_string();
    let data = arg0.split_once(",data=").unwrap().1;
    m["args"][0] = format!("tmap:driver,file=tmap0.bin,data={data}").into();
    std::fs::write(work.join("manifest.json"), m.to_string()).unwrap();
    let ptx = src.join("../tma.sm90a.ptx").canonicalize().unwrap();
    fixture_common::run_fixture_at(&work, ptx.to_str().unwrap());
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn driver_made_maps_run_like_their_parameters() {
    for name in [
        "load2d_sw128",
        "load2d_sw64_nan",
        "load5d",
        "im2col4d",
        "store2d",
        "reduce2d_add",
    ] {
        run_with_driver_bytes(name);
    }
}
