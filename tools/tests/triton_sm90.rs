//! The Hopper tensor-core Triton fixtures of `tests/fixtures/triton/tc/runs/`: Triton 3.9's
//! sm_90a builds (`tc/gen.py 90`) of fp16, bf16, tf32, int8 and e4m3 matmuls through device-
//! made tensor descriptors (tensor maps built in global scratch by `tensormap.replace`),
//! through host-made ones (`--arg tmap:`), persistent, batched (rank-3 maps) and with an
//! epilogue, and attention forward (TMA + wgmma, and pointer loads + wgmma), each compared
//! with numpy (`tc/runs.py 90`). Block size, shared memory and the global scratch the device
//! descriptors live in come from the `.json` beside each `.ptx`.

mod manifest_run;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/triton/tc")
}

fn run(name: &str) {
    let report = manifest_run::run(&root(), &root().join("runs").join(name));
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
    mm_ws,
);

/// Microscaled matmuls (`tl.dot_scaled`): Triton's sm_90a build upcasts the e4m3/e2m1
/// operands to bf16 for wgmma and takes a packed maximum of scale exponents with `max.u16x2`,
/// which the front end does not parse yet.
mod scaled {
    #[test]
    #[ignore = "needs max.u16x2 (packed 16-bit min/max, PTX ISA 8.0, sm_90): corpus/mm_scaled_e4m3.sm90/mm_scaled.ptx:3867:2: error: `max` needs a type qualifier"]
    fn mm_scaled_e4m3() {
        super::run("mm_scaled_e4m3");
    }
    #[test]
    #[ignore = "needs max.u16x2 (packed 16-bit min/max, PTX ISA 8.0, sm_90): corpus/mm_scaled_e2m1.sm90/mm_scaled_e2m1.ptx:2582:2: error: `max` needs a type qualifier"]
    fn mm_scaled_e2m1() {
        super::run("mm_scaled_e2m1");
    }
}

const IGNORED: &[&str] = &["mm_scaled_e2m1", "mm_scaled_e4m3"];

/// Every folder under runs/ has its test.
#[test]
fn every_fixture_is_listed() {
    let mut listed: Vec<String> = LISTED
        .iter()
        .chain(IGNORED)
        .map(ToString::to_string)
        .collect();
    listed.sort();
    assert_eq!(manifest_run::listed_on_disk(&root().join("runs")), listed);
}

/// Each build really uses what the fixture is about: wgmma everywhere, TMA for descriptor
/// kernels, device-built maps where the descriptor is made in the kernel.
#[test]
fn builds_use_wgmma_and_tma() {
    for name in LISTED.iter().chain(IGNORED) {
        let dir = root().join("corpus").join(format!("{name}.sm90"));
        let ptx: String = std::fs::read_dir(&dir)
            .expect("corpus folder")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert!(ptx.contains("wgmma.mma_async"), "{name}: no wgmma");
        let tma = ptx.contains("cp.async.bulk.tensor");
        let pointers = name.ends_with("_ptr") || *name == "attn_causal" || IGNORED.contains(name);
        assert_eq!(tma, !pointers, "{name}: TMA");
        let device_maps = ptx.contains("tensormap.replace");
        assert_eq!(
            device_maps,
            tma && *name != "mm_host_desc",
            "{name}: device maps"
        );
    }
}
