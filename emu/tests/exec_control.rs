//! Control flow in the interpreter: divergence and reconvergence for if/else, loops with
//! divergent exits, early exits, calls (divergent, indirect, recursive) and inter-CTA waiting.

mod exec_common;
use exec_common::*;

fn ptx(body: &str) -> String {
    format!("{HEADER}{body}")
}

#[test]
fn if_else_reconverges_at_the_join_point() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    mul.lo.u32 %r3, %r1, 3;
    bra.uni JOIN;
EVEN:
    add.u32 %r3, %r1, 100;
JOIN:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32)]);
    o.ok();
    let expect: Vec<u32> = (0..32)
        .map(|t| if t % 2 == 0 { t + 100 } else { t * 3 })
        .collect();
    assert_eq!(o.u32s(0), expect);
    // 5 shared instructions, 2 in the odd arm, 1 in the even arm, 4 after the join: the
    // join part runs once for the whole warp, not once per arm.
    assert_eq!(o.report.counts.warp_instructions, 12);
    assert_eq!(
        o.report.counts.thread_instructions,
        5 * 32 + 2 * 16 + 16 + 4 * 32
    );
}

#[test]
fn loops_with_divergent_exits_reconverge_after_the_loop() {
    // out[t] = sum of i for i < t, stopping early once the sum exceeds 100.
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    add.u32 %r2, %r2, %r3;
    setp.gt.u32 %p2, %r2, 100;
    @%p2 bra DONE;
    add.u32 %r3, %r3, 1;
    bra.uni LOOP;
DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [64, 1, 1], vec![zeros(64)]);
    o.ok();
    let expect: Vec<u32> = (0..64u32)
        .map(|t| {
            let mut s = 0;
            for i in 0..t {
                s += i;
                if s > 100 {
                    break;
                }
            }
            s
        })
        .collect();
    assert_eq!(o.u32s(0), expect);
    // The three instructions after DONE run once per warp (2 warps), each for all lanes.
    let after = 3 * 2;
    assert!(o.report.counts.warp_instructions > after);
}

#[test]
fn early_exit_lanes_stop_and_the_rest_continue() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 exit;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], 7;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [40, 1, 1], vec![zeros(40)]);
    o.ok();
    let expect: Vec<u32> = (0..40).map(|t| if t % 3 == 0 { 0 } else { 7 }).collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn divergent_calls_pass_params_and_return_values() {
    let src = ptx(r#"
.func (.param .b32 ret) twice_plus(.param .b32 a, .param .b32 b)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [a];
    ld.param.b32 %r2, [b];
    shl.b32 %r3, %r1, 1;
    add.s32 %r3, %r3, %r2;
    st.param.b32 [ret], %r3;
    ret;
}

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r5, 1;
    setp.lt.u32 %p1, %r1, 10;
    @!%p1 bra SKIP;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 param1;
    st.param.b32 [param1], 5;
    .param .b32 retval0;
    call.uni (retval0), twice_plus, (param0, param1);
    ld.param.b32 %r5, [retval0];
    }
SKIP:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32)]);
    o.ok();
    let expect: Vec<u32> = (0..32)
        .map(|t| if t < 10 { 2 * t + 5 } else { 1 })
        .collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn recursion_gets_a_frame_per_activation() {
    // fact(n) computed recursively; each lane uses its own n = tid % 8.
    let src = ptx(r#"
.func (.param .b32 ret) fact(.param .b32 n)
{
    .reg .b32 %r<5>;
    .reg .pred %p<2>;
    ld.param.b32 %r1, [n];
    setp.le.u32 %p1, %r1, 1;
    @%p1 bra BASE;
    sub.u32 %r2, %r1, 1;
    {
    .param .b32 a0;
    st.param.b32 [a0], %r2;
    .param .b32 r0;
    call (r0), fact, (a0);
    ld.param.b32 %r3, [r0];
    }
    mul.lo.u32 %r4, %r3, %r1;
    st.param.b32 [ret], %r4;
    ret;
BASE:
    st.param.b32 [ret], 1;
    ret;
}

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 7;
    {
    .param .b32 a0;
    st.param.b32 [a0], %r2;
    .param .b32 r0;
    call (r0), fact, (a0);
    ld.param.b32 %r3, [r0];
    }
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32)]);
    o.ok();
    let fact = |n: u32| (1..=n.max(1)).product::<u32>();
    let expect: Vec<u32> = (0..32).map(|t| fact(t & 7)).collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn indirect_calls_through_a_function_table() {
    let src = ptx(r#"
.func (.param .b32 ret) f0(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.u32 %r2, %r1, 1000;
    st.param.b32 [ret], %r2;
    ret;
}
.func (.param .b32 ret) f1(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    mul.lo.u32 %r2, %r1, 2;
    st.param.b32 [ret], %r2;
    ret;
}
.global .align 8 .u64 table[2] = {f0, f1};

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    mul.wide.u32 %rd4, %r2, 8;
    mov.u64 %rd5, table;
    add.s64 %rd6, %rd5, %rd4;
    ld.global.u64 %rd7, [%rd6];
    {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 r0;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r0), %rd7, (a0), proto;
    ld.param.b32 %r3, [r0];
    }
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32)]);
    o.ok();
    let expect: Vec<u32> = (0..32)
        .map(|t| if t % 2 == 0 { t + 1000 } else { 2 * t })
        .collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn a_cta_waiting_for_a_later_cta_makes_progress_on_one_host_thread() {
    // CTA 0 spins until CTA 1 sets a flag, then records what it saw.
    let src = ptx(r#"
.visible .entry k(.param .u64 flag, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [flag];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %ctaid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra PRODUCER;
SPIN:
    ld.volatile.global.u32 %r2, [%rd1];
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra SPIN;
    st.global.u32 [%rd2], %r2;
    ret;
PRODUCER:
    st.volatile.global.u32 [%rd1], 42;
    ret;
}
"#);
    let o = launch_with(
        &src,
        "k",
        [2, 1, 1],
        [1, 1, 1],
        vec![zeros(1), zeros(1)],
        |c| c.threads = 1,
    );
    o.ok();
    assert_eq!(o.u32s(1), vec![42]);
}

#[test]
fn grids_and_blocks_in_three_dimensions() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %tid.z;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %ntid.y;
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ctaid.y;
    mov.u32 %r8, %ctaid.z;
    mov.u32 %r9, %nctaid.x;
    mov.u32 %r10, %nctaid.y;
    mad.lo.u32 %r11, %r8, %r10, %r7;
    mad.lo.u32 %r11, %r11, %r9, %r6;
    mov.u32 %r12, %ntid.z;
    mul.lo.u32 %r13, %r4, %r5;
    mul.lo.u32 %r13, %r13, %r12;
    mad.lo.u32 %r14, %r3, %r5, %r2;
    mad.lo.u32 %r14, %r14, %r4, %r1;
    mad.lo.u32 %r15, %r11, %r13, %r14;
    shl.b32 %r16, %r1, 16;
    shl.b32 %r17, %r2, 8;
    or.b32 %r16, %r16, %r17;
    or.b32 %r16, %r16, %r3;
    shl.b32 %r18, %r11, 24;
    or.b32 %r16, %r16, %r18;
    mul.wide.u32 %rd2, %r15, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r16;
    ret;
}
"#);
    let (g, b) = ([2, 3, 2], [4, 3, 2]);
    let n = (2 * 3 * 2 * 4 * 3 * 2) as usize;
    let o = launch(&src, "k", g, b, vec![zeros(n)]);
    o.ok();
    let mut expect = vec![0u32; n];
    for cz in 0..2 {
        for cy in 0..3 {
            for cx in 0..2 {
                let cta = (cz * 3 + cy) * 2 + cx;
                for tz in 0..2 {
                    for ty in 0..3 {
                        for tx in 0..4 {
                            let t = (tz * 3 + ty) * 4 + tx;
                            expect[(cta * 24 + t) as usize] =
                                (tx << 16) | (ty << 8) | tz | (cta << 24);
                        }
                    }
                }
            }
        }
    }
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn a_body_without_ret_returns_at_its_closing_brace() {
    // ptxas accepts bodies that end without `ret`/`exit` and closes them with EXIT (kernels)
    // or RET (functions): the empty kernel, the kernel that falls off its end, the function
    // that falls off its end (back to the caller, not into the next function's code), and a
    // branch to a label just before the closing brace all return there.
    let src = ptx(r#"
.visible .entry empty()
{
}

.func (.reg .b32 r) twice(.reg .b32 a)
{
    add.u32 r, a, a;
}

.func never()
{
    .reg .b64 %rd<2>;
    mov.u64 %rd1, 0;
    st.global.u32 [%rd1], 1;
    ret;
}

.visible .entry falls_off(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    call (%r2), twice, (%r1);
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    setp.lt.u32 %p1, %r1, 4;
    @%p1 bra END;
    add.u32 %r2, %r2, 1000;
    st.global.u32 [%rd3], %r2;
END:
}
"#);
    let e = launch(&src, "empty", [2, 1, 1], [64, 1, 1], vec![]);
    e.ok();
    assert_eq!(
        e.report.counts.warp_instructions, 4,
        "one implicit ret per warp"
    );
    let o = launch(&src, "falls_off", [1, 1, 1], [8, 1, 1], vec![zeros(8)]);
    o.ok();
    let expect: Vec<u32> = (0..8)
        .map(|t| if t < 4 { 2 * t } else { 2 * t + 1000 })
        .collect();
    assert_eq!(o.u32s(0), expect);
}

/// `brx.idx` through a `.branchtargets` list declared before the first instruction (as
/// Triton's warp-specialized sm_100a kernels emit it): validates (the label operand is the
/// target list, not a value) and jumps to the entry the uniform index names.
#[test]
fn brx_idx_jumps_through_a_branchtargets_list() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out, .param .u32 sel)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
JT:
    .branchtargets
        T0,
        T1,
        T2;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [sel];
    brx.idx %r1, JT;
T0:
    mov.u32 %r2, 10;
    bra.uni DONE;
T1:
    mov.u32 %r2, 11;
    bra.uni DONE;
T2:
    mov.u32 %r2, 12;
DONE:
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#);
    for sel in 0..3u32 {
        let o = launch(
            &src,
            "k",
            [1, 1, 1],
            [32, 1, 1],
            vec![zeros(32), val32(sel)],
        );
        o.ok();
        assert_eq!(o.u32s(0), vec![10 + sel; 32], "index {sel}");
    }
}

/// A host thread reuses a finished CTA's warps for its next CTA (`Warp::reset`): every CTA
/// must still start as a fresh one. Each thread reads a register and a predicate no
/// instruction of it wrote before (zero and false at entry), calls a function on some lanes,
/// and half of the threads of the CTAs with an odd index exit early; the last warp is
/// partial (48 threads), so warps of different lane masks are reused. (Warps are reused only
/// for kernels without local memory, so the call passes no parameters.)
#[test]
fn ctas_after_others_on_one_host_thread_start_fresh() {
    let src = ptx(r#"
.func nothing()
{
    ret;
}

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 48, %r1;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    // %r9 and %p3 are never written before this point: zero and false at entry.
    selp.u32 %r8, 1000, 0, %p3;
    add.u32 %r4, %r9, %r8;
    add.u32 %r4, %r4, %r3;
    and.b32 %r5, %r2, 1;
    setp.eq.u32 %p1, %r5, 1;
    setp.ge.u32 %p2, %r1, 24;
    and.pred %p1, %p1, %p2;
    @%p1 bra EXIT;
    setp.lt.u32 %p2, %r1, 8;
    @!%p2 bra STORE;
    call nothing;
    add.u32 %r4, %r4, 7;
STORE:
    st.global.u32 [%rd3], %r4;
    // Dirty what the next CTA would see if registers or predicates were kept.
    mov.u32 %r9, 555;
    setp.eq.u32 %p3, %r9, 555;
EXIT:
    ret;
}
"#);
    let ctas = 6u32;
    let o = launch_with(
        &src,
        "k",
        [ctas, 1, 1],
        [48, 1, 1],
        vec![u32s(&vec![u32::MAX; (48 * ctas) as usize])],
        |cfg| cfg.threads = 1,
    );
    o.ok();
    let expect: Vec<u32> = (0..48 * ctas)
        .map(|g| {
            let (cta, t) = (g / 48, g % 48);
            if cta % 2 == 1 && t >= 24 {
                u32::MAX
            } else if t < 8 {
                g + 7
            } else {
                g
            }
        })
        .collect();
    assert_eq!(o.u32s(0), expect);
}
