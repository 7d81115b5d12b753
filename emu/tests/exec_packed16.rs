//! `min`/`max` on packed 16-bit integers (`.u16x2`, `.s16x2`, PTX ISA 8.0, sm_90), as
//! Triton's sm_90a `dot_scaled` upcast emits them: parsed, printed back, validated and run,
//! each lane against values worked by hand.

mod exec_common;
use exec_common::*;

const KERNEL: &str = r#"
.visible .entry k(.param .u64 out, .param .u32 a, .param .u32 b)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [a];
    ld.param.u32 %r2, [b];
    max.u16x2 %r3, %r1, %r2;
    min.u16x2 %r4, %r1, %r2;
    max.s16x2 %r5, %r1, %r2;
    min.relu.s16x2 %r6, %r1, %r2;
    st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
    ret;
}
"#;

#[test]
fn packed_16_bit_min_max_compare_each_half() {
    let src = format!("{HEADER}{KERNEL}");
    let printed = emu::front::print_module(&emu::front::parse_module(&src, "k.ptx").unwrap());
    for op in ["max.u16x2", "min.u16x2", "max.s16x2", "min.relu.s16x2"] {
        assert!(printed.contains(op), "{op} printed back:\n{printed}");
    }
    // lanes (high, low): a = (0xffff, 0x0001), b = (0x0002, 0x8000)
    let o = launch(
        &src,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![zeros(4), val32(0xffff_0001), val32(0x0002_8000)],
    );
    o.ok();
    assert_eq!(
        o.u32s(0),
        vec![
            0xffff_8000, // unsigned max: 0xffff > 2, 0x8000 > 1
            0x0002_0001, // unsigned min
            0x0002_0001, // signed max: 2 > -1, 1 > -32768
            0x0000_0000, // signed min with relu: -1 -> 0, -32768 -> 0
        ]
    );
}
