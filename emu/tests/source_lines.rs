//! `.file` and `.loc` (PTX ISA "Debugging Directives"): parsed, printed back, and carried to
//! each instruction, so that a fault names the program's source line (and the call sites of
//! inlined code) beside the PTX line. The expected lines are read off the PTX text below.

mod exec_common;
use emu::exec::fault::{SourceFrame, SourceLine};
use exec_common::*;

/// Triton's shape of debug information: the `.file` table after the kernel, a `.loc` before
/// the instructions, and an inlined chain written outermost first (as for `tl.rand`).
const KERNEL: &str = r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .loc 1 14 0
    ld.param.u64 %rd1, [out];
    .loc 1 15 11
    mov.u32 %r1, %tid.x;
    .loc 1 17 9
    .loc 2 155 14, function_name $L__info_string0, inlined_at 1 17 9
    .loc 2 84 20, function_name $L__info_string0, inlined_at 2 155 14
    .loc 2 36 14, function_name $L__info_string0+4, inlined_at 2 84 20
    mul.wide.u32 %rd2, %r1, 4;
    .loc 1 18 5
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    .loc 2 36 14, function_name $L__info_string0, inlined_at 2 84 20
    add.s64 %rd3, %rd3, 4096;
    st.global.u32 [%rd3], %r1;
    ret;
}
.visible .entry plain(.param .u64 out)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1+4096], 1;
    ret;
}
	.file	1 "/home/me/kernels.py"
	.file	2 "/triton/language/random.py", 1700000000, 2048
"#;

fn src() -> String {
    format!("{HEADER}{KERNEL}")
}

fn frame(file: &str, line: u32, col: u32) -> SourceFrame {
    SourceFrame {
        file: file.into(),
        line,
        col,
    }
}

#[test]
fn a_fault_names_the_source_line_beside_the_ptx_line() {
    // 8 elements: lane 8 is the first to store out of bounds, at the `.loc 1 18 5` store.
    let o = launch(&src(), "k", [1, 1, 1], [32, 1, 1], vec![zeros(8)]);
    let f = o.fault();
    assert_eq!(f.site.lane, Some(8));
    assert_eq!(f.site.instr, "st.global.u32 [%rd3], %r1;");
    assert_eq!(
        f.site.source,
        Some(SourceLine {
            at: frame("/home/me/kernels.py", 18, 5),
            inlined_at: vec![],
        })
    );
    let text = f.to_string();
    assert!(
        text.contains(&format!(
            ":{}: st.global.u32 [%rd3], %r1;\n  source /home/me/kernels.py:18:5\n",
            f.site.line
        )),
        "{text}"
    );
}

#[test]
fn an_inlined_location_names_every_call_site_outward() {
    // 2000 elements: the first store is in bounds, the second (1024 words on) is not.
    let o = launch(&src(), "k", [1, 1, 1], [32, 1, 1], vec![zeros(1030)]);
    let f = o.fault();
    assert_eq!(f.site.lane, Some(6));
    let s = f.site.source.as_ref().expect("a source line");
    assert_eq!(s.at, frame("/triton/language/random.py", 36, 14));
    assert_eq!(
        s.inlined_at,
        vec![
            frame("/triton/language/random.py", 84, 20),
            frame("/triton/language/random.py", 155, 14),
            frame("/home/me/kernels.py", 17, 9),
        ]
    );
    assert!(f.to_string().contains(
        "source /triton/language/random.py:36:14, inlined at /triton/language/random.py:84:20, \
         inlined at /triton/language/random.py:155:14, inlined at /home/me/kernels.py:17:9"
    ));
}

#[test]
fn without_loc_there_is_no_source_line_and_a_function_does_not_inherit_one() {
    let o = launch(&src(), "plain", [1, 1, 1], [32, 1, 1], vec![zeros(8)]);
    assert_eq!(o.fault().site.source, None);
    assert!(!o.fault().to_string().contains("source"));
}

#[test]
fn a_loc_naming_an_undeclared_file_says_so() {
    let text = src().replace(
        ".file\t2 \"/triton/language/random.py\", 1700000000, 2048",
        "",
    );
    let o = launch(&text, "k", [1, 1, 1], [32, 1, 1], vec![zeros(1030)]);
    let s = o.fault().site.source.clone().expect("a source line");
    assert_eq!(&*s.at.file, "<.file 2 not declared>");
}

#[test]
fn file_and_loc_print_back() {
    let m = emu::front::parse_module(&src(), "k.ptx").unwrap();
    assert_eq!(m.files.len(), 2);
    assert_eq!(m.files[1].stamp, Some((1_700_000_000, 2048)));
    assert_eq!(m.file_name(1), Some("/home/me/kernels.py"));
    let printed = emu::front::print_module(&m);
    assert!(printed.contains(".loc 1 15 11\n"), "{printed}");
    assert!(
        printed.contains(".loc 2 36 14, function_name $L__info_string0+4, inlined_at 2 84 20\n")
    );
    assert!(printed.contains(".file 2 \"/triton/language/random.py\", 1700000000, 2048\n"));
    let again = emu::front::parse_module(&printed, "printed.ptx").unwrap();
    assert_eq!(emu::front::print_module(&again), printed);
}

#[test]
fn malformed_debug_directives_are_parse_errors_at_their_position() {
    for (bad, col, what) in [
        (
            ".loc 1 14",
            5,
            "the `.loc` directive ends before its column",
        ),
        (
            ".loc 1 14 0 extra",
            17,
            "expected the end of the `.loc` directive",
        ),
        (
            ".loc 1 14 0, inlined_at 1 2 3",
            18,
            "expected `function_name`",
        ),
        (
            ".loc 1 14 0, function_name $L, 1 2 3",
            36,
            "expected `inlined_at`",
        ),
        (".loc 1 99999999999 0", 12, "line 99999999999 is too large"),
    ] {
        let text = src().replace(".loc 1 15 11", bad);
        let e = emu::front::parse_module(&text, "k.ptx").unwrap_err();
        let shown = e.render(&text);
        let line = text.lines().position(|l| l.trim() == bad).unwrap() + 1;
        assert!(
            shown.contains(&format!("k.ptx:{line}:{col}")) && shown.contains(what),
            "{bad}: {shown}"
        );
    }
    let text = src().replace(".file\t1 \"/home/me/kernels.py\"", ".file 1 kernels");
    let e = emu::front::parse_module(&text, "k.ptx").unwrap_err();
    assert!(e.render(&text).contains("the file's name as a string"));
}

/// LLVM's shape of an inline-asm load (Triton's masked loads): inside the block each asm line
/// gets a `.loc` one line further than the last, from the statement's own line.
const INLINE_ASM: &str = r#"
.visible .entry k(.param .u64 x)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [x];
    .loc 1 16 13
    // begin inline asm
    .loc 1 16 13
    mov.u32 %r1, 0x0;
    .loc 1 17 13
    mov.u32 %r2, 0x0;
    .loc 1 18 13
    ld.global.v2.b32 { %r1, %r2 }, [ %rd1 + 4096 ];
    // end inline asm
    .loc 1 17 9
    st.global.u32 [%rd1+8192], %r1;
    ret;
}
	.file	1 "/home/me/kernel.py"
"#;

#[test]
fn an_inline_asm_block_has_the_source_line_of_its_statement() {
    let src = format!("{HEADER}{INLINE_ASM}");
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(4)]);
    let f = o.fault();
    assert!(f.site.instr.starts_with("ld.global.v2.b32"), "{f}");
    assert_eq!(
        f.site.source.as_ref().map(|s| s.at.clone()),
        Some(frame("/home/me/kernel.py", 16, 13))
    );
    // After the block, `.loc` directives apply again.
    let src = src.replace("4096", "0");
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(4)]);
    let s = o.fault().site.source.clone().expect("a source line");
    assert_eq!(s.at, frame("/home/me/kernel.py", 17, 9));
}
