//! The Hopper tensor-core Triton fixtures of `tests/fixtures/triton/tc/runs/`: Triton 3.9's
//! sm_90a builds (`tc/gen.py 90`) of fp16, bf16, tf32, int8 and e4m3 matmuls through device-
//! made tensor descriptors (tensor maps built in global scratch by `tensormap.replace`),
//! through host-made ones (`--arg tmap:`), persistent, warp-specialized, batched (rank-3 maps)
//! and with an epilogue, microscaled mxfp8/mxfp4 matmuls (`tl.dot_scaled`: operands upcast to
//! bf16, scale exponents combined with `max.u16x2`), and attention forward (TMA + wgmma, and
//! pointer loads + wgmma), each compared with numpy (`tc/runs.py 90`). Block size, shared
//! memory and the global scratch the device descriptors live in come from the `.json` beside
//! each `.ptx`.

mod fixture_common;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/triton/tc")
}

fn run(name: &str) {
    let report = fixture_common::run(&root(), &root().join("runs").join(name));
    let meta = &report["triton_metadata"];
    assert_eq!(meta["block"], true, "block from the metadata: {meta}");
    assert_eq!(report["shared_bytes"], meta["shared"]);
}

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => {
        const LISTED: &[&str] = &[$(stringify!($name)),*];
        $( #[test] fn $name() { run(stringify!($name)); } )*
    };
}

fixtures!(
    attn_causal,
    attn_desc,
    mm_batched,
    mm_bias_relu,
    mm_desc_bf16,
    mm_desc_e4m3,
    mm_desc_f16,
    mm_desc_f16_f32out,
    mm_desc_i8,
    mm_desc_tf32,
    mm_host_desc,
    mm_persistent,
    mm_persistent_ptr,
    mm_scaled_e2m1,
    mm_scaled_e4m3,
    mm_ws,
);

/// Every folder under runs/ has its test.
#[test]
fn every_fixture_is_listed() {
    let mut listed: Vec<String> = LISTED.iter().map(ToString::to_string).collect();
    listed.sort();
    assert_eq!(fixture_common::listed_on_disk(&root().join("runs")), listed);
}

/// Each build really uses what the fixture is about: wgmma everywhere, TMA for descriptor
/// kernels, device-built maps where the descriptor is made in the kernel.
#[test]
fn builds_use_wgmma_and_tma() {
    for name in LISTED {
        let dir = root().join("corpus").join(format!("{name}.sm90"));
        let ptx: String = std::fs::read_dir(&dir)
            .expect("corpus folder")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert!(ptx.contains("wgmma.mma_async"), "{name}: no wgmma");
        let tma = ptx.contains("cp.async.bulk.tensor");
        let pointers =
            name.ends_with("_ptr") || *name == "attn_causal" || name.starts_with("mm_scaled");
        assert_eq!(tma, !pointers, "{name}: TMA");
        let device_maps = ptx.contains("tensormap.replace");
        assert_eq!(
            device_maps,
            tma && *name != "mm_host_desc",
            "{name}: device maps"
        );
    }
}
