//! The Blackwell (sm_100a) fixtures of `tests/fixtures/tcgen05_kernels/`, each run through
//! `ptxemu run` and compared with numpy references computed from the same inputs:
//!
//! * `triton_runs/`: Triton 3.9's sm_100a builds of the tensor-core kernels of
//!   `tests/fixtures/triton/tc/kernels.py` (fp16, bf16, tf32, int8 and e4m3 matmuls with
//!   device- and host-made tensor descriptors, persistent, warp-specialized, batched,
//!   epilogue, mxfp8/mxfp4 `dot_scaled` (kind::mxf8f6f4 and kind::mxf4 block scaling),
//!   attention):
//!   tcgen05.mma from shared-memory descriptors, tcgen05.commit to an mbarrier, tcgen05.ld;
//! * `cuda/`: hand-written nvcc `-arch=sm_100a` kernels (`tc.cu`, `tc_pair.cu`): kind::f16 and
//!   kind::i8 from descriptors, A from Tensor Memory (written by tcgen05.st, and copied by
//!   tcgen05.cp), block-scaled kind::mxf8f6f4 with ue8m0 scales in Tensor Memory, NVFP4
//!   (kind::mxf4nvf4.scale_vec::4X: packed e2m1, ue4m3 scales per 16 elements of K), and
//!   .cta_group::2 across a cluster of two CTAs.
//!
//! Every fixture runs; the expected outputs come from numpy on the same inputs.

mod fixture_common;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tcgen05_kernels")
}

fn triton(name: &str) {
    let report = fixture_common::run(&root(), &root().join("triton_runs").join(name));
    let meta = &report["triton_metadata"];
    assert_eq!(meta["block"], true, "block from the metadata: {meta}");
    assert_eq!(report["shared_bytes"], meta["shared"]);
}

fn cuda(name: &str) {
    fixture_common::run(&root(), &root().join("cuda").join(name));
}

fn cuda_pair(name: &str) {
    cuda(name);
}

macro_rules! fixtures {
    ($list:ident, $run:ident: $($name:ident),* $(,)?) => {
        const $list: &[&str] = &[$(stringify!($name)),*];
        mod $run {
            $(
                #[test]
                fn $name() {
                    super::$run(stringify!($name));
                }
            )*
        }
    };
}

fixtures!(TRITON, triton:
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

fixtures!(CUDA, cuda:
    cp_f16,
    f16_ss,
    f16_tmem_a,
    i8_ss,
    mxf8_block_scale,
    nvf4_block_scale,
);

// CTA pairs (`.cta_group::2`, clusters of two): M = 256 and M = 128 (layout B), A from
// shared memory or Tensor Memory, block scaling with the factors copied by
// `tcgen05.cp.cta_group::2`.
fixtures!(CUDA_PAIR, cuda_pair:
    cta2_f16,
    cta2_m128_f16,
    cta2_m128_mxf8,
    cta2_m128_tmem_a,
    cta2_mxf8,
);

/// Every fixture folder has its test.
#[test]
fn every_fixture_is_listed() {
    let sorted = |l: &[&str]| {
        let mut v: Vec<String> = l.iter().map(ToString::to_string).collect();
        v.sort();
        v
    };
    assert_eq!(
        fixture_common::listed_on_disk(&root().join("triton_runs")),
        sorted(TRITON)
    );
    let mut cuda: Vec<&str> = CUDA.to_vec();
    cuda.extend_from_slice(CUDA_PAIR);
    assert_eq!(
        fixture_common::listed_on_disk(&root().join("cuda")),
        sorted(&cuda)
    );
}

/// The Triton builds use the pipeline the fixtures are about: tcgen05.mma into Tensor
/// Memory, tcgen05.commit on an mbarrier and tcgen05.ld of the accumulator; the
/// hand-written ones cover the forms issue 17 names.
#[test]
fn builds_hold_the_tcgen05_pipeline() {
    for name in TRITON {
        let dir = root().join("triton").join(format!("{name}.sm100"));
        let ptx: String = std::fs::read_dir(&dir)
            .expect("triton build folder")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        for needle in ["tcgen05.mma.cta_group::1", "tcgen05.commit", "tcgen05.ld"] {
            assert!(ptx.contains(needle), "{name}: no {needle}");
        }
    }
    let one = std::fs::read_to_string(root().join("cuda/tc.sm100a.ptx")).unwrap();
    let pair = std::fs::read_to_string(root().join("cuda/tc_pair.sm100a.ptx")).unwrap();
    for needle in [
        "tcgen05.mma.cta_group::1.kind::f16 [%r",
        "], [%r",
        "tcgen05.mma.cta_group::1.kind::i8",
        "tcgen05.cp.cta_group::1.128x256b",
        "kind::mxf8f6f4.block_scale.scale_vec::1X",
        "kind::mxf4nvf4.block_scale.scale_vec::4X",
    ] {
        assert!(one.contains(needle), "tc.sm100a.ptx: no {needle}");
    }
    for needle in [
        "tcgen05.mma.cta_group::2.kind::f16",
        "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale",
        "tcgen05.cp.cta_group::2.32x128b.warpx4",
        "tcgen05.cp.cta_group::2.64x128b.warpx2::01_23",
    ] {
        assert!(pair.contains(needle), "tc_pair.sm100a.ptx: no {needle}");
    }
    assert!(pair.contains(".reqnctapercluster 2, 1, 1"));
}
