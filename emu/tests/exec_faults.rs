//! Faults of the emulated program are values with a full site (kernel, CTA, warp, lane,
//! line, instruction, address), never panics; and memory built-ins behave as CUDA's.

mod exec_common;
use emu::exec::FaultKind;
use exec_common::*;

fn ptx(body: &str) -> String {
    format!("{HEADER}{body}")
}

const OOB: &str = r#"
.visible .entry k(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 32, %r1;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#;

#[test]
fn an_out_of_bounds_store_names_the_lane_and_address() {
    // 40 elements, 64 threads: thread 40 is the first to run off the end (CTA 1, lane 8).
    let src = ptx(OOB);
    let o = launch_with(
        &src,
        "k",
        [2, 1, 1],
        [32, 1, 1],
        vec![zeros(40), val32(40)],
        |c| c.threads = 1,
    );
    let f = o.fault();
    let FaultKind::OutOfBounds {
        space,
        size,
        detail,
    } = &f.kind
    else {
        panic!("expected out of bounds, got {f}");
    };
    assert_eq!(space, "global");
    assert_eq!(*size, 4);
    assert!(detail.contains("past the end of argument 0"), "{detail}");
    assert_eq!(f.site.cta, [1, 0, 0]);
    assert_eq!(f.site.lane, Some(8));
    assert_eq!(f.site.tid, Some([8, 0, 0]));
    assert_eq!(f.site.instr, "st.global.u32 [%rd3], %r3;");
    let a = f.site.address.unwrap();
    assert_eq!(
        a % 256,
        160,
        "address of element 40 of a 256-aligned buffer"
    );
    let text = f.to_string();
    assert!(
        text.contains("kernel `k`") && text.contains("lane 8") && text.contains("test.ptx:"),
        "{text}"
    );
}

#[test]
fn a_misaligned_load_is_a_fault() {
    let src = ptx(r#"
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    add.s64 %rd2, %rd1, 2;
    ld.global.u32 %r1, [%rd2];
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(4)]);
    assert_eq!(o.fault().kind, FaultKind::Misaligned { align: 4 });
}

#[test]
fn a_vector_access_must_be_aligned_to_the_whole_vector() {
    let src = ptx(r#"
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    add.s64 %rd2, %rd1, 8;
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(8)]);
    assert_eq!(o.fault().kind, FaultKind::Misaligned { align: 16 });
}

#[test]
fn trap_and_step_budget() {
    let src = ptx(r#"
.visible .entry t()
{
    trap;
}
.visible .entry spin()
{
LOOP:
    bra.uni LOOP;
}
"#);
    let o = launch(&src, "t", [1, 1, 1], [1, 1, 1], vec![]);
    assert_eq!(o.fault().kind, FaultKind::Trap);
    let o = launch_with(&src, "spin", [1, 1, 1], [32, 1, 1], vec![], |c| {
        c.max_steps = 5000
    });
    assert_eq!(
        o.fault().kind,
        FaultKind::StepBudgetExhausted { budget: 5000 }
    );
}

#[test]
fn the_step_budget_bounds_the_launch_total_not_only_each_cta() {
    // Issue 23: 100,000 CTAs of one instruction each under --max-steps 10 ran to the end and
    // reported success; the budget was checked only when a CTA paused.
    let src = ptx(r#"
.visible .entry k()
{
    ret;
}
"#);
    let o = launch_with(&src, "k", [1000, 1, 1], [1, 1, 1], vec![], |c| {
        c.max_steps = 10
    });
    assert_eq!(
        o.fault().kind,
        FaultKind::StepBudgetExhausted { budget: 10 }
    );
    let o = launch_with(&src, "k", [10, 1, 1], [1, 1, 1], vec![], |c| {
        c.max_steps = 10
    });
    o.ok();
}

#[test]
fn cvta_converts_both_ways_and_rejects_foreign_windows() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b8 s[16];
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd2, s;
    cvta.shared.u64 %rd3, %rd2;
    st.u32 [%rd3+4], 99;
    cvta.to.shared.u64 %rd4, %rd3;
    ld.shared.u32 %r1, [%rd4+4];
    isspacep.shared %p1, %rd3;
    isspacep.global %p2, %rd3;
    selp.u32 %r2, 1, 0, %p1;
    selp.u32 %r3, 1, 0, %p2;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, 0};
    cvta.to.shared.u64 %rd5, %rd1;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(4)]);
    assert_eq!(o.u32s(0), vec![99, 1, 0, 0]);
    let FaultKind::Undefined { detail } = &o.fault().kind else {
        panic!("{}", o.fault());
    };
    assert!(detail.contains("not in the shared window"), "{detail}");
}

#[test]
fn local_arrays_with_dynamic_indexing_are_private_per_thread() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .local .align 4 .b8 arr[64];
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, arr;
    mov.u32 %r2, 0;
FILL:
    mul.lo.u32 %r3, %r2, %r1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.local.u32 [%rd4], %r3;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 16;
    @%p1 bra FILL;
    and.b32 %r4, %r1, 15;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd2, %rd5;
    ld.local.u32 %r5, [%rd6];
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd7, %rd1, %rd7;
    st.global.u32 [%rd7], %r5;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [64, 1, 1], vec![zeros(64)]);
    o.ok();
    let expect: Vec<u32> = (0..64).map(|t| (t & 15) * t).collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn printf_malloc_free_and_assert() {
    let src = ptx(r#"
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.extern .func __assertfail(.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3, .param .b64 p4);
.global .align 1 .b8 fmt[22] = {116, 105, 100, 32, 37, 100, 32, 118, 97, 108, 32, 37, 46, 50, 102, 32, 37, 115, 10, 0, 0, 0};
.global .align 1 .b8 word[3] = {111, 107, 0};
.global .align 1 .b8 msg[4] = {120, 62, 48, 0};
.global .align 1 .b8 file[5] = {107, 46, 99, 117, 0};

.visible .entry k(.param .u32 fail)
{
    .local .align 8 .b8 depot[24];
    .reg .b32 %r<6>;
    .reg .b64 %rd<12>;
    .reg .f64 %fd<2>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, depot;
    cvta.local.u64 %rd2, %rd1;
    st.local.u32 [%rd1], %r1;
    mov.f64 %fd1, 0d3FF8000000000000;
    st.local.f64 [%rd1+8], %fd1;
    mov.u64 %rd3, word;
    cvta.global.u64 %rd4, %rd3;
    st.local.u64 [%rd1+16], %rd4;
    mov.u64 %rd5, fmt;
    cvta.global.u64 %rd6, %rd5;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd6;
    .param .b64 param1;
    st.param.b64 [param1], %rd2;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    }
    {
    .param .b64 param0;
    st.param.b64 [param0], 64;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd7, [retval0];
    }
    st.u32 [%rd7], 5;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd7;
    call.uni free, (param0);
    }
    ld.param.u32 %r2, [fail];
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra DONE;
    mov.u64 %rd8, msg;
    cvta.global.u64 %rd8, %rd8;
    mov.u64 %rd9, file;
    cvta.global.u64 %rd9, %rd9;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd8;
    .param .b64 a1;
    st.param.b64 [a1], %rd9;
    .param .b32 a2;
    st.param.b32 [a2], 17;
    .param .b64 a3;
    st.param.b64 [a3], %rd9;
    .param .b64 a4;
    st.param.b64 [a4], 1;
    call.uni __assertfail, (a0, a1, a2, a3, a4);
    }
DONE:
    ret;
}
"#);
    let o = launch(&src, "k", [2, 1, 1], [2, 1, 1], vec![val32(0)]);
    o.ok();
    assert_eq!(
        String::from_utf8_lossy(&o.report.stdout),
        "tid 0 val 1.50 ok\ntid 1 val 1.50 ok\ntid 0 val 1.50 ok\ntid 1 val 1.50 ok\n"
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![val32(1)]);
    let FaultKind::AssertFailed { message } = &o.fault().kind else {
        panic!("{}", o.fault());
    };
    assert!(
        message.contains("k.cu:17") && message.contains("Assertion `x>0` failed"),
        "{message}"
    );
}

#[test]
fn an_access_wider_than_its_whole_allocation_or_parameter_block_is_out_of_bounds() {
    // Found by fuzzing: an access larger than the whole region passed the bounds check at the
    // region's first byte (a 64-bit load of a 4-byte buffer or of 4 bytes of parameters).
    let src = ptx(r#"
.visible .entry wide_global(.param .u64 buf)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [buf];
    ld.global.u64 %rd2, [%rd1];
    ret;
}

.visible .entry wide_param(.param .u32 n)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [n];
    ret;
}
"#);
    let g = launch(&src, "wide_global", [1, 1, 1], [1, 1, 1], vec![zeros(1)]);
    let f = g.fault();
    let FaultKind::OutOfBounds { space, size, .. } = &f.kind else {
        panic!("expected out of bounds, got {f}");
    };
    assert_eq!((space.as_str(), *size), ("global", 8));
    assert_eq!(f.site.instr, "ld.global.u64 %rd2, [%rd1];");
    let p = launch(&src, "wide_param", [1, 1, 1], [1, 1, 1], vec![val32(5)]);
    let f = p.fault();
    let FaultKind::OutOfBounds { space, size, .. } = &f.kind else {
        panic!("expected out of bounds, got {f}");
    };
    assert_eq!((space.as_str(), *size), ("param", 8));
    assert_eq!(f.site.address, Some(0));
}

#[test]
fn memory_beyond_the_limits_is_refused_with_the_limit_named() {
    use emu::exec::memory::{MAX_ALLOCATION, MAX_SHARED_PER_CTA};
    use emu::exec::{LaunchConfig, LaunchError, Machine};
    // .global variables beyond one allocation: a decode error, not an exhausted host.
    let big = ptx(".global .u32 big[5000000000];\n.visible .entry k()\n{\n    ret;\n}\n");
    let m = emu::front::parse_module(&big, "big.ptx").unwrap();
    assert!(emu::validate::validate_module(&m).is_empty());
    let e = Machine::load(
        &emu::validate::Validated::new(m.clone()).expect("the module validates"),
        "big.ptx",
    )
    .err()
    .expect("refused")
    .to_string();
    assert!(e.contains(&format!("at most {MAX_ALLOCATION}")), "{e}");
    // Shared memory beyond a CTA's maximum, static or dynamic: a launch error.
    let shared = ptx(".visible .entry k()\n{\n    .shared .u32 s[60000];\n    ret;\n}\n");
    let m = emu::front::parse_module(&shared, "s.ptx").unwrap();
    let mut mach = Machine::load(
        &emu::validate::Validated::new(m.clone()).expect("the module validates"),
        "s.ptx",
    )
    .unwrap();
    let e = mach
        .launch(&LaunchConfig::new("k", [1, 1, 1], [32, 1, 1]), &[])
        .unwrap_err();
    assert!(matches!(e, LaunchError::BadShape(_)), "{e}");
    assert!(e.to_string().contains("240000 static"), "{e}");
    // A kernel frame beyond a thread's local memory: a launch error, not an exhausted host.
    let local = ptx(".visible .entry k()\n{\n    .local .u32 l[1000000000];\n    ret;\n}\n");
    let m = emu::front::parse_module(&local, "l.ptx").unwrap();
    let mut mach = Machine::load(
        &emu::validate::Validated::new(m.clone()).expect("the module validates"),
        "l.ptx",
    )
    .unwrap();
    let e = mach
        .launch(&LaunchConfig::new("k", [1, 1, 1], [32, 1, 1]), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("4000000000 bytes of local memory per thread"),
        "{e}"
    );
    let empty = ptx(".visible .entry k()\n{\n    ret;\n}\n");
    let m = emu::front::parse_module(&empty, "e.ptx").unwrap();
    let mut mach = Machine::load(
        &emu::validate::Validated::new(m.clone()).expect("the module validates"),
        "e.ptx",
    )
    .unwrap();
    let mut cfg = LaunchConfig::new("k", [1, 1, 1], [32, 1, 1]);
    cfg.dynamic_shared = MAX_SHARED_PER_CTA as u32;
    mach.launch(&cfg, &[])
        .expect("exactly the maximum is allowed");
    cfg.dynamic_shared += 1;
    let e = mach.launch(&cfg, &[]).unwrap_err().to_string();
    assert!(
        e.contains(&format!("the most a CTA can have is {MAX_SHARED_PER_CTA}")),
        "{e}"
    );
}

#[test]
fn launch_shapes_follow_cudas_per_dimension_limits() {
    use emu::exec::{LaunchConfig, LaunchError, Machine};
    let src = ptx(".visible .entry k()\n{\n    ret;\n}\n");
    let m = emu::front::parse_module(&src, "k.ptx").unwrap();
    let mut mach = Machine::load(
        &emu::validate::Validated::new(m.clone()).expect("the module validates"),
        "k.ptx",
    )
    .unwrap();
    for (grid, block, ok) in [
        ([1, 1, 1], [1, 1, 64], true),
        ([1, 1, 1], [1, 1, 65], false),
        ([1, 1, 1], [1, 1024, 1], true),
        ([1, 65535, 2], [1, 1, 1], true),
        ([1, 65536, 1], [1, 1, 1], false),
        ([1, 1, 65536], [1, 1, 1], false),
        ([2_147_483_648, 1, 1], [1, 1, 1], false),
    ] {
        let r = mach.launch(&LaunchConfig::new("k", grid, block), &[]);
        match r {
            Ok(_) => assert!(ok, "{grid:?} {block:?} should be refused"),
            Err(e) => {
                assert!(!ok, "{grid:?} {block:?}: {e}");
                assert!(matches!(e, LaunchError::BadShape(_)), "{e}");
            }
        }
    }
}

/// CTA 0 counts to `%r5` before it stores out of bounds; every other CTA stores out of bounds
/// at once. Or, with `%r5` = 0xffffffff and a flag, CTA 0 waits for a flag nobody sets.
const SLOW_FIRST: &str = r#"
.visible .entry k(.param .u64 out, .param .u32 spins)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r5, [spins];
    mov.u32 %r2, %ctaid.x;
    setp.ne.u32 %p1, %r2, 0;
    mov.u32 %r6, 0;
    @%p1 bra FAULT;
SPIN:
    add.u32 %r6, %r6, 1;
    setp.lt.u32 %p2, %r6, %r5;
    @%p2 bra SPIN;
FAULT:
    mad.lo.u32 %r3, %r2, 4096, 64;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

#[test]
fn the_fault_reported_is_the_lowest_ctas_whatever_the_host_threads() {
    // CTA 0 faults only after several time slices; CTAs 1..15 fault at once on other host
    // threads. The report must not depend on which host thread got there first.
    let src = ptx(SLOW_FIRST);
    for threads in [1, 2, 4, 8] {
        let o = launch_with(
            &src,
            "k",
            [16, 1, 1],
            [32, 1, 1],
            vec![zeros(16), val32(100_000)],
            |c| c.threads = threads,
        );
        let f = o.fault();
        assert!(
            matches!(f.kind, FaultKind::OutOfBounds { .. }),
            "{threads} threads: {f}"
        );
        assert_eq!(f.site.cta, [0, 0, 0], "{threads} threads: {f}");
        assert_eq!(f.site.lane, Some(0), "{threads} threads: {f}");
    }
}

#[test]
fn ctas_before_a_fault_that_never_end_are_stopped() {
    // CTA 0 would count to 2^32 - 1 (billions of instructions); CTA 1 faults at once. CTA 0
    // runs on only for the bounded budget after the fault, and the report is CTA 1's.
    let src = ptx(SLOW_FIRST);
    let start = std::time::Instant::now();
    let o = launch_with(
        &src,
        "k",
        [2, 1, 1],
        [32, 1, 1],
        vec![zeros(16), val32(u32::MAX)],
        |c| c.threads = 2,
    );
    let f = o.fault();
    assert_eq!(f.site.cta, [1, 0, 0], "{f}");
    // The budget, plus the slices before the fault and the one that crosses the budget.
    let warp_instructions = o.report.counts.warp_instructions;
    assert!(
        warp_instructions <= emu::exec::grid::AFTER_FAULT_BUDGET + 3 * (1 << 16),
        "{warp_instructions} warp instructions"
    );
    assert!(start.elapsed().as_secs() < 30);
}
