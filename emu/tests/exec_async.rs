//! `cp.async` and `mbarrier` in the interpreter, on hand-written kernels whose expected values
//! follow from the PTX ISA's definitions: src-size zero fill and ignore-src, group waits,
//! phases with arrival and transaction counts (`arrive`, `arrive_drop`, `expect_tx`,
//! `complete_tx`, `pending_count`, `test_wait` with and without `.parity`),
//! `cp.async.mbarrier.arrive.noinc`, and the checked faults.

mod exec_common;
use emu::exec::FaultKind;
use exec_common::*;

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

#[test]
fn src_size_zero_fills_and_ignore_src_copies_nothing() {
    // Shared words 0..4 and 4..8 start as 0xFFFFFFFF; copy 16 bytes with src-size 6 into the
    // first, and with ignore-src into the second; then read all 8 words back.
    let src = format!(
        r#"{HEAD}
.visible .entry k(.param .u64 in, .param .u64 out)
{{
    .shared .align 16 .b8 buf[32];
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, buf;
    st.shared.v4.u32 [%r1], {{-1, -1, -1, -1}};
    st.shared.v4.u32 [%r1+16], {{-1, -1, -1, -1}};
    mov.u32 %r2, 6;
    setp.eq.u32 %p1, %r2, 6;
    cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;
    cp.async.commit_group;
    cp.async.ca.shared.global [%r1+16], [%rd1], 16, %p1;
    cp.async.commit_group;
    cp.async.wait_group 0;
    ld.shared.v4.u32 {{%r4, %r5, %r6, %r7}}, [%r1];
    st.global.v4.u32 [%rd2], {{%r4, %r5, %r6, %r7}};
    ld.shared.v4.u32 {{%r4, %r5, %r6, %r7}}, [%r1+16];
    st.global.v4.u32 [%rd2+16], {{%r4, %r5, %r6, %r7}};
    ret;
}}
"#
    );
    let input = [0x0403_0201, 0x0807_0605, 0x0c0b_0a09, 0x100f_0e0d];
    let o = launch(
        &src,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![u32s(&input), zeros(8)],
    );
    o.ok();
    // Bytes 0..6 copied (01..06), 6..16 zero; ignore-src: all 16 zero.
    assert_eq!(o.u32s(1), vec![0x0403_0201, 0x0000_0605, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn wait_group_leaves_the_newest_groups_pending() {
    // Two groups; wait_group 1 delivers the older only, so a read of the newer's bytes faults.
    // (On sm_90 ptxas reserves the first 1 KiB of shared memory, so `buf` is at 0x400.)
    let src = format!(
        r#"{HEAD}
.visible .entry k(.param .u64 in, .param .u64 out)
{{
    .shared .align 16 .b8 buf[32];
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, buf;
    cp.async.ca.shared.global [%r1], [%rd1], 4;
    cp.async.commit_group;
    cp.async.ca.shared.global [%r1+16], [%rd1], 4;
    cp.async.commit_group;
    cp.async.wait_group 1;
    ld.shared.u32 %r2, [%r1];
    st.global.u32 [%rd2], %r2;
    ld.shared.u32 %r3, [%r1+16];
    st.global.u32 [%rd2+4], %r3;
    ret;
}}
"#
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![u32s(&[77]), zeros(2)]);
    assert_eq!(o.u32s(1)[0], 77, "the older group was delivered");
    let f = o.fault();
    let msg = f.to_string();
    assert!(matches!(f.kind, FaultKind::Undefined { .. }), "{msg}");
    assert!(
        msg.contains("read of offset 1040")
            && msg.contains("cp.async at line 15")
            && msg.contains("test.ptx:20"),
        "{msg}"
    );
}

#[test]
fn phases_arrivals_and_transaction_counts() {
    // One thread: init 2; arrive (state s0); pending_count(s0) = 1; test_wait(s0) = 0;
    // arrive_drop completes phase 0 (expected count becomes 1); test_wait(s0) = 1;
    // arrive.expect_tx 64: no pending arrival but 64 bytes outstanding, so phase 1 is not
    // complete (test_wait.parity 1 = 0); complete_tx 64 completes it: test_wait.parity 1 = 1,
    // test_wait.parity 0 = 0 (phase 2 is running).
    let src = format!(
        r#"{HEAD}
.visible .entry k(.param .u64 out)
{{
    .shared .align 8 .b64 bar;
    .reg .pred %p<2>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, bar;
    mbarrier.init.shared::cta.b64 [%r1], 2;
    mbarrier.arrive.shared::cta.b64 %rd2, [%r1];
    mbarrier.pending_count.b64 %r2, %rd2;
    mbarrier.test_wait.shared::cta.b64 %p1, [%r1], %rd2;
    selp.u32 %r3, 1, 0, %p1;
    mbarrier.arrive_drop.shared::cta.b64 _, [%r1];
    mbarrier.test_wait.shared::cta.b64 %p1, [%r1], %rd2;
    selp.u32 %r4, 1, 0, %p1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 64;
    mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r1], 1;
    selp.u32 %r5, 1, 0, %p1;
    mbarrier.complete_tx.shared::cta.b64 [%r1], 64;
    mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r1], 1;
    selp.u32 %r6, 1, 0, %p1;
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
    selp.u32 %r7, 1, 0, %p1;
    st.global.v4.u32 [%rd1], {{%r2, %r3, %r4, %r5}};
    st.global.v2.u32 [%rd1+16], {{%r6, %r7}};
    ret;
}}
"#
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(6)]);
    o.ok();
    assert_eq!(o.u32s(0), vec![1, 0, 1, 0, 1, 0]);
}

#[test]
fn cp_async_mbarrier_arrive_noinc_completes_the_phase_after_the_copies() {
    let src = format!(
        r#"{HEAD}
.visible .entry k(.param .u64 in, .param .u64 out)
{{
    .shared .align 8 .b64 bar;
    .shared .align 16 .b8 buf[16];
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, bar;
    mov.u32 %r2, buf;
    mbarrier.init.shared.b64 [%r1], 1;
    cp.async.ca.shared.global [%r2], [%rd1], 8;
    cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];
    mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 0;
    selp.u32 %r3, 1, 0, %p1;
    ld.shared.v2.u32 {{%r4, %r5}}, [%r2];
    st.global.v4.u32 [%rd2], {{%r3, %r4, %r5, 0}};
    ret;
}}
"#
    );
    let o = launch(
        &src,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![u32s(&[5, 6]), zeros(4)],
    );
    o.ok();
    assert_eq!(o.u32s(1), vec![1, 5, 6, 0]);
}

#[test]
fn mbarrier_after_inval_and_pending_write_are_faults() {
    let inval = format!(
        r#"{HEAD}
.visible .entry k()
{{
    .shared .align 8 .b64 bar;
    .reg .b32 %r<2>;
    mov.u32 %r1, bar;
    mbarrier.init.shared.b64 [%r1], 1;
    mbarrier.inval.shared.b64 [%r1];
    mbarrier.arrive.shared.b64 _, [%r1];
    ret;
}}
"#
    );
    let o = launch(&inval, "k", [1, 1, 1], [1, 1, 1], vec![]);
    let msg = o.fault().to_string();
    assert!(msg.contains("after mbarrier.inval"), "{msg}");

    let write = format!(
        r#"{HEAD}
.visible .entry k(.param .u64 in)
{{
    .shared .align 16 .b8 buf[16];
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [in];
    mov.u32 %r1, buf;
    cp.async.ca.shared.global [%r1], [%rd1], 16;
    st.shared.u32 [%r1+12], 3;
    cp.async.wait_all;
    ret;
}}
"#
    );
    let o = launch(&write, "k", [1, 1, 1], [1, 1, 1], vec![u32s(&[1, 2, 3, 4])]);
    let msg = o.fault().to_string();
    assert!(
        msg.contains("write of offset 1036")
            && msg.contains("cp.async at line 12")
            && msg.contains("test.ptx:13"),
        "{msg}"
    );
}
