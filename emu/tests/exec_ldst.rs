//! The semantics of ld, ld.global.nc and st (PTX ISA §9.7.9.8–9.7.9.11): extension into wider
//! registers, narrow stores from wide registers, vectors and sinks, `.b128`, every addressing
//! mode, generic addresses into global, shared and local memory, and cache hints and policies
//! that never change a value.

mod exec_common;

use exec_common::{launch, u32s, zeros, Arg};

const HEAD: &str = ".version 8.8\n.target sm_100a\n.address_size 64\n";

fn bytes(v: &[u8]) -> Arg {
    Arg::Buf(v.to_vec())
}

fn u64s(o: &[u8]) -> Vec<u64> {
    o.chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn loads_extend_by_type_and_stores_keep_the_low_bits() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 in, .param .u64 out)
{{
.reg .b16 %h<4>;
.reg .b32 %r<8>;
.reg .b64 %rd<12>;
ld.param.u64 %rd1, [in];
ld.param.u64 %rd2, [out];
ld.global.s8 %r1, [%rd1];
ld.global.u8 %r2, [%rd1];
ld.global.s16 %rd3, [%rd1+2];
ld.global.u16 %rd4, [%rd1+2];
ld.global.b8 %h1, [%rd1];
st.global.u32 [%rd2], %r1;
st.global.u32 [%rd2+4], %r2;
st.global.u64 [%rd2+8], %rd3;
st.global.u64 [%rd2+16], %rd4;
cvt.u32.u16 %r3, %h1;
st.global.u32 [%rd2+24], %r3;
mov.b32 %r4, 0x12345678;
st.global.u8 [%rd2+28], %r4;
mov.b64 %rd5, 0x1122334455667788;
st.global.u16 [%rd2+30], %rd5;
ret;
}}
"
    );
    let o = launch(
        &src,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![bytes(&[0x80, 0, 0x34, 0xf2]), zeros(8)],
    );
    o.ok();
    let w = o.u32s(1);
    assert_eq!(w[0], 0xffff_ff80, "ld.s8 sign-extends");
    assert_eq!(w[1], 0x80, "ld.u8 zero-extends");
    let d = u64s(&o.buffers[1][8..24]);
    assert_eq!(d[0], 0xffff_ffff_ffff_f234, "ld.s16 into a 64-bit register");
    assert_eq!(d[1], 0xf234, "ld.u16 into a 64-bit register");
    assert_eq!(w[6], 0x80, "ld.b8 zero-extends into .b16");
    assert_eq!(o.buffers[1][28], 0x78, "st.u8 stores the low byte");
    assert_eq!(o.buffers[1][29], 0, "and nothing more");
    assert_eq!(
        &o.buffers[1][30..32],
        &[0x88, 0x77],
        "st.u16 from a 64-bit register"
    );
}

#[test]
fn vectors_sinks_and_b128() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 in, .param .u64 out)
{{
.reg .b32 %r<20>;
.reg .f32 %f<10>;
.reg .b64 %rd<10>;
.reg .b128 %q<3>;
ld.param.u64 %rd1, [in];
ld.param.u64 %rd2, [out];
ld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd1];
st.global.v2.u32 [%rd2], {{%r4, %r3}};
ld.global.L2::evict_last.v8.f32 {{%f1, _, %f2, %f3, %f4, %f5, %f6, %f7}}, [%rd1];
st.global.v8.f32 [%rd2+32], {{%f7, _, %f6, %f5, %f4, %f3, %f2, %f1}};
ld.global.b128 %q1, [%rd1+16];
st.global.b128 [%rd2+16], %q1;
ld.global.nc.v4.u32 {{%r5, %r6, %r7, %r8}}, [%rd1];
add.u32 %r9, %r5, %r8;
st.global.u32 [%rd2+8], %r9;
ret;
}}
"
    );
    let input: Vec<u32> = (1..=8).collect();
    let mut out0 = vec![0u32; 16];
    out0[9] = 0xdead_beef; // the sink's slot in the v8 store
    let o = launch(
        &src,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![u32s(&input), u32s(&out0)],
    );
    o.ok();
    let w = o.u32s(1);
    assert_eq!(&w[0..2], &[4, 3], "v4 load, v2 store");
    assert_eq!(w[2], 1 + 4, "ld.global.nc reads the same values");
    assert_eq!(&w[4..8], &[5, 6, 7, 8], "b128 moves 16 bytes whole");
    // f-values are the integers' bit patterns; the v8 store skips the sink's element.
    assert_eq!(w[8], 8);
    assert_eq!(w[9], 0xdead_beef, "a sink in st writes nothing");
    assert_eq!(&w[10..16], &[7, 6, 5, 4, 3, 1]);
}

#[test]
fn addressing_modes_and_generic_windows() {
    let src = format!(
        "{HEAD}.global .u32 table[4] = {{10, 20, 30, 40}};
.visible .entry k(.param .u64 out)
{{
.reg .b32 %r<20>;
.reg .b64 %rd<20>;
.shared .align 8 .b32 sh[4];
.local .align 8 .b32 loc[4];
ld.param.u64 %rd1, [out];
ld.global.u32 %r1, [table];
ld.global.u32 %r2, [table+8];
mov.u64 %rd2, table;
ld.global.u32 %r3, [%rd2];
ld.global.u32 %r4, [%rd2+12];
st.shared.u32 [sh+4], %r4;
ld.shared.u32 %r5, [sh+4];
cvta.shared.u64 %rd3, sh;
ld.u32 %r6, [%rd3+4];
st.u32 [%rd3], %r1;
ld.shared.u32 %r7, [sh];
mov.u64 %rd4, loc;
cvta.local.u64 %rd5, %rd4;
st.u32 [%rd5+8], %r2;
ld.local.u32 %r8, [loc+8];
cvta.global.u64 %rd6, %rd2;
ld.u32 %r9, [%rd6+4];
st.shared.u32 [0], %r3;
ld.shared.u32 %r10, [0];
st.global.u32 [%rd1], %r1;
st.global.u32 [%rd1+4], %r2;
st.global.u32 [%rd1+8], %r3;
st.global.u32 [%rd1+12], %r4;
st.global.u32 [%rd1+16], %r5;
st.global.u32 [%rd1+20], %r6;
st.global.u32 [%rd1+24], %r7;
st.global.u32 [%rd1+28], %r8;
st.global.u32 [%rd1+32], %r9;
st.global.u32 [%rd1+36], %r10;
ret;
}}
"
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(10)]);
    o.ok();
    assert_eq!(
        o.u32s(0),
        vec![10, 30, 10, 40, 40, 40, 10, 30, 20, 10],
        "variable, variable+imm, register, register+imm, immediate; generic shared/local/global"
    );
}

#[test]
fn cache_operators_hints_and_policies_change_no_value() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)
{{
.reg .b32 %r<20>;
.reg .b64 %rd<10>;
ld.param.u64 %rd1, [buf];
createpolicy.fractional.L2::evict_last.b64 %rd2, 0.5;
createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd3, 1.0;
ld.global.ca.u32 %r1, [%rd1];
ld.global.cg.u32 %r2, [%rd1];
ld.global.cs.u32 %r3, [%rd1];
ld.global.lu.u32 %r4, [%rd1];
ld.global.cv.u32 %r5, [%rd1];
ld.global.L1::evict_last.L2::cache_hint.u32 %r6, [%rd1], %rd2;
ld.global.nc.L1::no_allocate.L2::256B.u32 %r7, [%rd1];
ld.relaxed.gpu.global.L2::cache_hint.u32 %r8, [%rd1], %rd3;
add.u32 %r9, %r1, %r2;
add.u32 %r9, %r9, %r3;
add.u32 %r9, %r9, %r4;
add.u32 %r9, %r9, %r5;
add.u32 %r9, %r9, %r6;
add.u32 %r9, %r9, %r7;
add.u32 %r9, %r9, %r8;
st.global.wt.u32 [%rd1+4], %r9;
st.global.cs.L2::cache_hint.u32 [%rd1+8], %r1, %rd2;
st.global.L1::no_allocate.u32 [%rd1+12], %r1;
st.release.gpu.global.u32 [%rd1+16], %r1;
mov.b64 {{%r10, %r11}}, %rd2;
or.b32 %r12, %r10, %r11;
setp.ne.u32 %p1, %r12, 0;
selp.u32 %r13, 1, 0, %p1;
st.global.u32 [%rd1+20], %r13;
ret;
}}
"
    )
    .replace(
        ".reg .b64 %rd<10>;",
        ".reg .b64 %rd<10>;\n.reg .pred %p<2>;",
    );
    let o = launch(
        &src,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![u32s(&[7, 0, 0, 0, 0, 0])],
    );
    o.ok();
    assert_eq!(o.u32s(0), vec![7, 56, 7, 7, 7, 1]);
}

#[test]
fn nested_initialisers_fill_each_dimension_and_pad_with_zeros() {
    // ptxas pads each short inner list to its dimension: {{1},{3}} for [2][2] is 1,0,3,0, and
    // an unsized outer dimension takes one entry per outer item ({{1,2},{3}} is 1,2,3,0).
    let src = format!(
        "{HEAD}{}",
        r#"
.global .u32 a[2][2] = {{1},{3}};
.global .u32 b[][2] = {{1,2},{3}};
.global .v2 .u16 c[3] = {{7,8}};
.global .u32 after = 99;

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd2, %r0, 4;
    mov.u64 %rd3, a;
    add.s64 %rd3, %rd3, %rd2;
    ld.global.u32 %r1, [%rd3];
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
"#
    );
    // a (16 bytes), b (16), c (12), then `after`: 12 words read from a's start.
    let o = launch(&src, "k", [1, 1, 1], [12, 1, 1], vec![zeros(12)]);
    o.ok();
    assert_eq!(
        o.u32s(0),
        vec![1, 0, 3, 0, 1, 2, 3, 0, 0x0008_0007, 0, 0, 99]
    );
}

#[test]
fn constant_expressions_in_operands_are_evaluated_as_ptxas_reads_them() {
    // Each form is accepted by ptxas 13.5; values follow C on 64-bit integers.
    let src = format!(
        "{HEAD}{}",
        r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r0, !2;
    mov.u32 %r1, ~2;
    mov.u32 %r2, (1+2)*3;
    mov.u32 %r3, 1<<4 | 1;
    add.u32 %r4, %r0, 0x10 - 2 * 3;
    mov.u32 %r5, 1 < 2 ? 40 + 2 : 7;
    st.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};
    st.global.v2.u32 [%rd1+16], {%r4, %r5};
    ret;
}
"#
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(6)]);
    o.ok();
    assert_eq!(o.u32s(0), vec![0, 0xFFFF_FFFD, 9, 17, 10, 42]);
}
