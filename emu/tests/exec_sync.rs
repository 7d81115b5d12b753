//! Synchronisation in the interpreter: CTA barriers (sync, arrive, red, counts, deadlocks),
//! warp collectives (shfl, vote, match, redux, activemask) and atomics.

mod exec_common;
use emu::exec::FaultKind;
use exec_common::*;

fn ptx(body: &str) -> String {
    format!("{HEADER}{body}")
}

#[test]
fn bar_sync_orders_shared_memory_between_warps() {
    // Each thread writes its tid to shared memory, syncs, then reads its mirror partner.
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b8 buf[512];
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    sub.u32 %r5, 127, %r1;
    shl.b32 %r5, %r5, 2;
    add.u32 %r6, %r3, %r5;
    ld.shared.u32 %r7, [%r6];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}
"#);
    let o = launch(&src, "k", [2, 1, 1], [128, 1, 1], vec![zeros(128)]);
    o.ok();
    let expect: Vec<u32> = (0..128).map(|t| 127 - t).collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn bar_red_popc_and_or_reduce_predicates_over_the_cta() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p1;
    setp.eq.u32 %p2, %r1, 77;
    bar.red.or.pred %p3, 1, %p2;
    selp.u32 %r4, 1, 0, %p3;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r3, %r4};
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [96, 1, 1], vec![zeros(192)]);
    o.ok();
    let v = o.u32s(0);
    for t in 0..96 {
        assert_eq!(v[2 * t], 32, "popc of tid%3==0 over 96 threads");
        assert_eq!(v[2 * t + 1], 1, "some thread had tid 77");
    }
}

#[test]
fn named_barrier_with_a_thread_count_and_arrive() {
    // Warp 0 produces into shared memory and arrives at barrier 1 (64 threads); warp 1
    // waits at barrier 1 and then consumes.
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b8 buf[128];
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, buf;
    add.u32 %r4, %r4, %r3;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra CONSUMER;
    mul.lo.u32 %r5, %r2, %r2;
    st.shared.u32 [%r4], %r5;
    bar.arrive 1, 64;
    ret;
CONSUMER:
    bar.sync 1, 64;
    ld.shared.u32 %r6, [%r4];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [64, 1, 1], vec![zeros(32)]);
    o.ok();
    let expect: Vec<u32> = (0..32).map(|t| t * t).collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn threads_that_exited_do_not_block_a_barrier() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 40;
    @%p1 exit;
    bar.sync 0;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], 1;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [96, 1, 1], vec![zeros(96)]);
    o.ok();
    let expect: Vec<u32> = (0..96).map(|t| u32::from(t < 40)).collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn a_barrier_deadlock_is_reported_with_barriers_and_warps() {
    // Warp 0 waits at barrier 0, warp 1 at barrier 1: neither can complete.
    let src = ptx(r#"
.visible .entry k()
{
    .reg .b32 %r<2>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra OTHER;
    bar.sync 0;
    ret;
OTHER:
    bar.sync 1;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [64, 1, 1], vec![]);
    let f = o.fault();
    let FaultKind::BarrierDeadlock { detail } = &f.kind else {
        panic!("expected a deadlock, got {f}");
    };
    assert!(detail.contains("barrier 0: 32 of 64"), "{detail}");
    assert!(detail.contains("barrier 1: 32 of 64"), "{detail}");
    assert!(detail.contains("waiting warps [0]"), "{detail}");
    assert!(detail.contains("waiting warps [1]"), "{detail}");
    assert_eq!(f.site.kernel, "k");
    assert!(f.site.line > 0);
}

#[test]
fn shuffles_votes_match_and_redux() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    // tree sum with shfl.down: lane 0 gets the warp sum of tid
    mov.u32 %r2, %r1;
    shfl.sync.down.b32 %r3|%p1, %r2, 16, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3|%p1, %r2, 8, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3|%p1, %r2, 4, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3|%p1, %r2, 2, 31, -1;
    add.u32 %r2, %r2, %r3;
    shfl.sync.down.b32 %r3|%p1, %r2, 1, 31, -1;
    add.u32 %r2, %r2, %r3;
    // broadcast lane 0's sum
    shfl.sync.idx.b32 %r4|%p2, %r2, 0, 31, -1;
    // ballot of odd lanes
    and.b32 %r5, %r1, 1;
    setp.ne.u32 %p3, %r5, 0;
    vote.sync.ballot.b32 %r6, %p3, -1;
    // match.any on tid/8
    shr.u32 %r7, %r1, 3;
    match.any.sync.b32 %r8, %r7, -1;
    // redux max
    redux.sync.max.u32 %r9, %r1, -1;
    // up-shuffle out of range keeps own value and clears the predicate
    shfl.sync.up.b32 %r10|%p1, %r1, 3, 0, -1;
    selp.u32 %r11, 1, 0, %p1;
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r4, %r6, %r8, %r9};
    st.global.v2.u32 [%rd3+16], {%r10, %r11};
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32 * 8)]);
    o.ok();
    let v = o.u32s(0);
    for t in 0..32u32 {
        let r = &v[(t * 8) as usize..(t * 8 + 6) as usize];
        assert_eq!(r[0], 496, "warp sum of 0..31");
        assert_eq!(r[1], 0xaaaa_aaaa, "odd lanes");
        assert_eq!(r[2], 0xffu32 << (8 * (t / 8)), "lanes sharing tid/8");
        assert_eq!(r[3], 31);
        let (val, valid) = if t >= 3 { (t - 3, 1) } else { (t, 0) };
        assert_eq!((r[4], r[5]), (val, valid), "shfl.up lane {t}");
    }
}

#[test]
fn collectives_of_disjoint_groups_in_one_instruction() {
    // cooperative groups' labeled_partition: match.any gives each lane the mask of the lanes
    // with its label (tid % 4), and the whole converged warp then runs each collective once
    // with four different member masks. Each lane must see only its own group (regression:
    // the first lane's mask was used for all, so warpAggregatedAtomicsCG's per-bucket
    // redux.sync.max returned one group's maximum to every lane).
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    .reg .pred %p<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    match.any.sync.b32 %r3, %r2, -1;
    redux.sync.max.u32 %r4, %r1, %r3;
    redux.sync.add.u32 %r5, %r1, %r3;
    setp.lt.u32 %p1, %r1, 16;
    vote.sync.ballot.b32 %r6, %p1, %r3;
    setp.eq.u32 %p2, %r1, 5;
    vote.sync.any.pred %p3, %p2, %r3;
    selp.u32 %r7, 1, 0, %p3;
    shr.u32 %r8, %r1, 4;
    match.any.sync.b32 %r9, %r8, %r3;
    elect.sync %r10|%p4, %r3;
    selp.u32 %r11, 1, 0, %p4;
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
    st.global.v4.u32 [%rd3+16], {%r7, %r9, %r10, %r11};
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32 * 8)]);
    o.ok();
    let v = o.u32s(0);
    for t in 0..32u32 {
        let key = t % 4;
        let group = 0x1111_1111u32 << key;
        let half = 0xffffu32 << (16 * (t / 16));
        let want = [
            group,
            28 + key,
            112 + 8 * key,
            group & 0xffff,
            u32::from(key == 1),
            group & half,
            key,
            u32::from(t < 4),
        ];
        assert_eq!(
            &v[(t * 8) as usize..(t * 8 + 8) as usize],
            &want,
            "lane {t}"
        );
    }
}

#[test]
fn activemask_reports_the_lanes_executing_together() {
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 12;
    @%p1 bra LOW;
    activemask.b32 %r2;
    bra.uni DONE;
LOW:
    activemask.b32 %r2;
DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32)]);
    o.ok();
    let expect: Vec<u32> = (0..32)
        .map(|t| if t < 12 { 0xfff } else { !0xfffu32 })
        .collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn a_sync_collective_waits_for_diverged_members() {
    // The two halves reach the same shfl.sync through different paths; it must run once
    // with all 32 lanes (the result reads across halves).
    let src = ptx(r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    add.u32 %r2, %r1, 1000;
    bra.uni X;
LOW:
    add.u32 %r2, %r1, 2000;
X:
    shfl.sync.bfly.b32 %r3|%p2, %r2, 16, 31, -1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32)]);
    o.ok();
    let expect: Vec<u32> = (0..32)
        .map(|t| {
            let partner = t ^ 16;
            if partner < 16 {
                partner + 2000
            } else {
                partner + 1000
            }
        })
        .collect();
    assert_eq!(o.u32s(0), expect);
}

#[test]
fn a_collective_naming_exited_lanes_is_a_fault() {
    let src = ptx(r#"
.visible .entry k()
{
    .reg .b32 %r<4>;
    .reg .pred %p<3>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 exit;
    shfl.sync.idx.b32 %r2|%p2, %r1, 0, 31, -1;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![]);
    assert!(
        matches!(o.fault().kind, FaultKind::DivergentCollective { .. }),
        "{}",
        o.fault()
    );
}

#[test]
fn global_and_shared_atomics_count_exactly() {
    let src = ptx(r#"
.visible .entry k(.param .u64 counter, .param .u64 hist)
{
    .shared .align 4 .b8 bins[16];
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [counter];
    ld.param.u64 %rd2, [hist];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 4;
    @%p1 bra NOINIT;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, bins;
    add.u32 %r3, %r3, %r2;
    st.shared.u32 [%r3], 0;
NOINIT:
    bar.sync 0;
    atom.global.add.u32 %r4, [%rd1], 1;
    and.b32 %r5, %r1, 3;
    shl.b32 %r5, %r5, 2;
    mov.u32 %r6, bins;
    add.u32 %r6, %r6, %r5;
    atom.shared.add.u32 %r7, [%r6], 1;
    bar.sync 0;
    @%p1 bra DONE;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, bins;
    add.u32 %r3, %r3, %r2;
    ld.shared.u32 %r8, [%r3];
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    red.global.add.u32 [%rd4], %r8;
DONE:
    ret;
}
"#);
    let o = launch(&src, "k", [8, 1, 1], [100, 1, 1], vec![zeros(1), zeros(4)]);
    o.ok();
    assert_eq!(o.u32s(0), vec![800]);
    assert_eq!(o.u32s(1), vec![8 * 25; 4]);
}

#[test]
fn atom_cas_loop_implements_an_atomic_max_on_floats() {
    // Each thread raises a global maximum by CAS on the bit pattern (values are positive).
    let src = ptx(r#"
.visible .entry k(.param .u64 m)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [m];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 37, %r1;
    rem.u32 %r3, %r3, 101;
    ld.global.u32 %r4, [%rd1];
RETRY:
    setp.ge.u32 %p1, %r4, %r3;
    @%p1 bra DONE;
    atom.global.cas.b32 %r5, [%rd1], %r4, %r3;
    setp.ne.u32 %p2, %r5, %r4;
    mov.u32 %r4, %r5;
    @%p2 bra RETRY;
DONE:
    ret;
}
"#);
    let o = launch(&src, "k", [4, 1, 1], [64, 1, 1], vec![zeros(1)]);
    o.ok();
    let expect = (0..4u32)
        .flat_map(|c| (0..64u32).map(move |t| (c * 37 + t) % 101))
        .max()
        .unwrap();
    assert_eq!(o.u32s(0), vec![expect]);
}

#[test]
fn a_warp_split_across_two_aligned_barriers_is_a_fault() {
    // Both halves of warp 0 reach barrier 0, but through different bar.sync instructions.
    let src = ptx(r#"
.visible .entry k()
{
    .reg .b32 %r<2>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    bar.sync 0;
    ret;
LOW:
    bar.sync 0;
    ret;
}
"#);
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![]);
    let FaultKind::DivergentCollective { detail } = &o.fault().kind else {
        panic!("expected a divergent-collective fault, got {}", o.fault());
    };
    assert!(detail.contains("aligned barrier"), "{detail}");
    // The non-aligned form allows it: the two halves are counted separately.
    let ok = src.replace("bar.sync 0;", "barrier.sync 0;");
    launch(&ok, "k", [1, 1, 1], [32, 1, 1], vec![]).ok();
}

#[test]
fn float_redux_of_disjoint_groups_in_one_instruction() {
    // As above for redux.sync.max.f32 (sm_100a): lanes labelled tid % 4 reduce -tid as a
    // float within their own group, so each group's maximum is minus its smallest member.
    let src = r#".version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    match.any.sync.b32 %r3, %r2, -1;
    cvt.rn.f32.u32 %f1, %r1;
    neg.f32 %f1, %f1;
    redux.sync.max.f32 %f2, %f1, %r3;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.f32 [%rd3], %f2;
    ret;
}
"#;
    let o = launch(src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(32)]);
    o.ok();
    let v = o.u32s(0);
    for t in 0..32u32 {
        let want = -((t % 4) as f32);
        assert_eq!(f32::from_bits(v[t as usize]), want, "lane {t}");
    }
}
