//! Label scopes: a label is visible in the block that defines it and in the blocks nested in
//! it, as ptxas scopes them. Triton's sm_90/sm_100 output repeats an inline-asm block with its
//! own `waitLoop:` many times in one function; each branch goes to its own block's label.

mod exec_common;

use exec_common::{launch, zeros, HEADER};

#[test]
fn each_block_branches_to_its_own_label_and_outer_labels_are_visible_inside() {
    // Two blocks define `again:`; each counts its own register down to zero. The second block
    // jumps to `done:`, defined after it in the enclosing block.
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 out)
{{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 3;
    mov.u32 %r2, 0;
    {{
    again:
        add.u32 %r2, %r2, 1;
        sub.u32 %r1, %r1, 1;
        setp.ne.u32 %p1, %r1, 0;
        @%p1 bra again;
    }}
    mov.u32 %r1, 5;
    {{
    again:
        add.u32 %r2, %r2, 10;
        sub.u32 %r1, %r1, 1;
        setp.eq.u32 %p2, %r1, 0;
        @%p2 bra done;
        bra again;
    }}
    add.u32 %r2, %r2, 1000;
done:
    st.global.u32 [%rd1], %r2;
    ret;
}}
"
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(1)]);
    o.ok();
    // 3 rounds of +1, then 5 rounds of +10; the +1000 is jumped over.
    assert_eq!(o.u32s(0), vec![53]);
}

#[test]
fn a_label_defined_twice_in_one_block_or_used_outside_its_block_is_an_error() {
    let twice = format!("{HEADER}.visible .entry k()\n{{\nL:\n  bra L;\nL:\n  ret;\n}}\n");
    let e = emu::front::parse_module(&twice, "t.ptx").expect_err("a second L");
    assert!(e.to_string().contains("`L` is already declared"), "{e}");
    let outside = format!(
        "{HEADER}.visible .entry k()\n{{\n  bra inner;\n  {{\n  inner:\n    ret;\n  }}\n}}\n"
    );
    let e = emu::front::parse_module(&outside, "t.ptx").expect_err("inner is not visible");
    assert!(e.to_string().contains("inner"), "{e}");
}
