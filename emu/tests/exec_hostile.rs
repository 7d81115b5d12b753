//! Hostile kernels (issue 23): behaviour the PTX ISA leaves undefined is reported as a fault,
//! not given a quiet answer.

mod exec_common;
use emu::exec::FaultKind;
use exec_common::*;

#[test]
fn shfl_sync_by_a_lane_outside_its_member_mask_is_a_fault() {
    // Lanes 0-15 name only lanes 16-31 (and the reverse): every executing lane is left out of
    // its own mask.
    let src = format!(
        r#"{HEADER}
.visible .entry k(.param .u64 out)
{{
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p, %r1, 16;
    selp.b32 %r4, 0xffff0000, 0x0000ffff, %p;
    shfl.sync.idx.b32 %r2, %r1, 0, 31, %r4;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}}
"#
    );
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(128)]);
    let f = o.fault();
    match &f.kind {
        FaultKind::Undefined { detail } => assert!(
            detail.contains(
                "shfl.sync executed by lane 0, which its member mask 0xffff0000 leaves out"
            ),
            "{detail}"
        ),
        k => panic!("{k:?}"),
    }
    // Each lane in its own half's mask is fine.
    let ok = src.replace("0xffff0000, 0x0000ffff", "0x0000ffff, 0xffff0000");
    launch(&ok, "k", [1, 1, 1], [32, 1, 1], vec![zeros(128)]).ok();
}
