//! tcgen05 in the interpreter: the warp-synchronous rules and every fault of checked mode
//! (quarters, allocation, overtaking accesses, divergence, CTA pairs), each triggered by a
//! small kernel.

mod exec_common;
mod tcgen05_common;

use exec_common::{launch, launch_with, zeros};
use tcgen05_common::{fault_of, kernel, HEADER};

#[test]
fn a_lane_outside_the_warps_quarter_faults() {
    // Warp 1 may reach lanes 32..63 only; lane 0 is warp 0's.
    let (o, e) = fault_of(
        64,
        32,
        "  setp.eq.u32 %p1, %r6, 1;\n  @!%p1 bra SKIP;\n  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2];\nSKIP:",
    );
    assert!(e.contains("lane 0 is outside the warp's quarter"), "{e}");
    assert!(e.contains("warp 1 may access lanes 32-63"), "{e}");
    assert_eq!((o.fault().site.warp, o.fault().site.lane), (1, Some(0)));
}

#[test]
fn columns_outside_the_memory_or_the_allocation_fault() {
    let (_, e) = fault_of(
        32,
        512,
        "  tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r10, %r11, %r12, %r13}, [%r2+510];",
    );
    assert!(e.contains("column 512 (lane 0) is outside [0, 512)"), "{e}");
    let (_, e) = fault_of(
        32,
        32,
        "  tcgen05.st.sync.aligned.16x256b.x1.b32 [%r2+30], {%r10, %r11, %r12, %r13};",
    );
    assert!(
        e.contains("column 32") && e.contains("is not allocated"),
        "{e}"
    );
    assert!(e.contains("allocated: 32 columns from column 0"), "{e}");
}

#[test]
fn unchecked_mode_allows_unallocated_columns_and_foreign_quarters() {
    let src = kernel(
        32,
        "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2+100], {%r5};\n  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2+100];\n  st.global.u32 [%rd1], %r10;",
    );
    let o = launch_with(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(1)], |c| {
        c.tmem.checked = false
    });
    o.ok();
    let checked = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(1)]);
    assert!(checked.fault().to_string().contains("not allocated"));
}

#[test]
fn bad_ncols_and_deallocs_that_match_no_allocation_fault() {
    let src = format!(
        "{HEADER}.visible .entry k(.param .u32 n)
{{
  .reg .b32 %r<8>;
  .shared .align 4 .b32 slot;
  ld.param.u32 %r3, [n];
  mov.u32 %r1, slot;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], %r3;
  ld.shared.u32 %r2, [slot];
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
  ret;
}}
"
    );
    let run = |n: u32| {
        launch(
            &src,
            "k",
            [1, 1, 1],
            [32, 1, 1],
            vec![exec_common::val32(n)],
        )
        .fault()
        .to_string()
    };
    for bad in [0, 16, 48, 1024] {
        let e = run(bad);
        assert!(
            e.contains(&format!(
                "nCols = {bad} is not a power of two from 32 to 512"
            )),
            "{e}"
        );
    }
    let e = run(64);
    assert!(
        e.contains("tcgen05.dealloc of 32 columns from column 0 matches no allocation (allocated: 64 columns from column 0)"),
        "{e}"
    );
    assert!(e.contains("test.ptx:12"), "{e}");
}

#[test]
fn alloc_after_relinquish_and_leaks_fault() {
    let (_, e) = fault_of(
        32,
        32,
        "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;",
    );
    assert!(e.contains("after tcgen05.relinquish_alloc_permit"), "{e}");
    // Relinquishing right after alloc and deallocating at the end is fine (CUTLASS).
    let src = kernel(
        32,
        "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
    );
    launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(1)]).ok();
    let leaky = src.replace("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;", "");
    let o = launch(&leaky, "k", [1, 1, 1], [32, 1, 1], vec![zeros(1)]);
    let e = o.fault().to_string();
    assert!(
        e.contains("still allocated when the CTA exits: 32 columns from column 0"),
        "{e}"
    );
    assert!(e.contains("tcgen05.alloc"), "the site is the alloc: {e}");
}

#[test]
fn a_store_before_wait_ld_and_a_load_before_wait_st_fault() {
    let (o, e) = fault_of(
        32,
        32,
        "  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2];\n  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r5};",
    );
    assert!(e.contains("without tcgen05.wait::ld"), "{e}");
    assert!(e.contains("which warp 0 loaded at line 22"), "{e}");
    assert_eq!(o.fault().site.line, 23);
    let (_, e) = fault_of(
        32,
        32,
        "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r5};\n  tcgen05.wait::ld.sync.aligned;\n  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2];",
    );
    assert!(
        e.contains("without tcgen05.wait::st"),
        "wait::ld does not complete a store: {e}"
    );
    // With the right waits, the same accesses are fine.
    let src = kernel(
        32,
        "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r5};\n  tcgen05.wait::st.sync.aligned;\n  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2];\n  tcgen05.wait::ld.sync.aligned;\n  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r10};",
    );
    launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(1)]).ok();
}

#[test]
fn another_warp_reading_a_store_its_writer_never_waited_for_faults() {
    // Warp 0 stores lanes 0..31 and reaches the barrier without wait::st; warp 4 (the same
    // quarter, the next warpgroup) loads them after the barrier.
    let body = "  setp.eq.u32 %p1, %r6, 0;
  setp.eq.u32 %p2, %r6, 4;
  @!%p1 bra B;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r5};
  WAIT
B:
  tcgen05.fence::before_thread_sync;
  bar.sync 1;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra E;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2];
  tcgen05.wait::ld.sync.aligned;
  sub.u32 %r7, %r5, 128;
  mul.wide.u32 %rd2, %r7, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
E:";
    let (o, e) = fault_of(160, 32, &body.replace("WAIT", ""));
    assert!(
        e.contains("which warp 0 stored") && e.contains("without tcgen05.wait::st"),
        "{e}"
    );
    assert_eq!(o.fault().site.warp, 4);
    let ok = kernel(32, &body.replace("WAIT", "tcgen05.wait::st.sync.aligned;"));
    let o = launch(&ok, "k", [1, 1, 1], [160, 1, 1], vec![zeros(32)]);
    o.ok();
    let want: Vec<u32> = (0..32).collect();
    assert_eq!(
        o.u32s(0),
        want,
        "warp 4's lane l reads what thread l stored"
    );
}

#[test]
fn divergence_exited_lanes_partial_warps_and_non_uniform_operands_fault() {
    let (_, e) = fault_of(
        32,
        32,
        "  setp.lt.u32 %p1, %r5, 8;\n  @%p1 tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2];",
    );
    assert!(e.contains("the warp diverged at tcgen05.ld"), "{e}");
    assert!(
        e.contains("guard is false on lanes 8-31 and true on lanes 0-7"),
        "{e}"
    );
    let (_, e) = fault_of(
        32,
        32,
        "  setp.lt.u32 %p1, %r5, 8;\n  @%p1 bra L;\n  tcgen05.wait::ld.sync.aligned;\n  bra M;\nL:\n  tcgen05.wait::st.sync.aligned;\nM:",
    );
    assert!(
        e.contains("the warp diverged"),
        "lanes wait at different collectives: {e}"
    );
    let (_, e) = fault_of(
        32,
        32,
        "  setp.ge.u32 %p1, %r5, 30;\n  @%p1 bra DONE;\n  tcgen05.wait::ld.sync.aligned;",
    );
    assert!(
        e.contains("the warp diverged") && e.contains("lanes 30,31 exited"),
        "{e}"
    );
    let src = format!(
        "{HEADER}.visible .entry k()
{{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r5, %tid.x;
  setp.ge.u32 %p1, %r5, 20;
  @%p1 exit;
  tcgen05.wait::st.sync.aligned;
  ret;
}}
"
    );
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![]);
    let e = o.fault().to_string();
    assert!(e.contains("lanes 20-31 have exited"), "{e}");
    let o = launch(&src.replace("20", "64"), "k", [1, 1, 1], [40, 1, 1], vec![]);
    let e = o.fault().to_string();
    assert!(e.contains("lanes 8-31 of warp 1 do not exist"), "{e}");
    let (o, e) = fault_of(
        32,
        32,
        "  and.b32 %r7, %r5, 1;\n  add.u32 %r8, %r2, %r7;\n  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r8];",
    );
    assert!(
        e.contains(
            "taddr of tcgen05.ld is not uniform across the warp: lane 0 has 0x0, lane 1 has 0x1"
        ),
        "{e}"
    );
    assert_eq!(o.fault().site.lane, Some(1));
}

#[test]
fn cta_group_2_outside_a_cluster_pair_is_a_fault_naming_the_cluster_shape() {
    let src = format!(
        "{HEADER}.visible .entry k()
{{
  .reg .b32 %r<4>;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, slot;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 32;
  ret;
}}
"
    );
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![]);
    let e = o.fault().to_string();
    assert!(
        e.contains("tcgen05.alloc.cta_group::2")
            && e.contains("needs a CTA pair")
            && e.contains("clusters of (1,1,1)"),
        "{e}"
    );
}
