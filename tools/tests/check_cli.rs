//! `ptxemu check`: exit 0 when every module is valid, 1 with located diagnostics otherwise, and
//! never a crash, whatever the input.

mod fixture_common;

use fixture_common::ptxemu_in_workspace as ptxemu;

use std::path::PathBuf;

fn scratch(name: &str, body: &[u8]) -> PathBuf {
    fixture_common::scratch_file("check", name, body)
}

const HEAD: &str = ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [p];\n";

#[test]
fn valid_modules_pass() {
    let good = scratch(
        "good.ptx",
        format!("{HEAD}ld.global.relaxed.gpu.u32 %r1, [%rd1];\nst.global.cs.u32 [%rd1], %r1;\nret;\n}}\n").as_bytes(),
    );
    let o = ptxemu(&["check", good.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("good.ptx: ok"));
}

#[test]
fn each_broken_rule_is_named_with_its_line() {
    let bad = scratch(
        "bad.ptx",
        format!("{HEAD}ret;\nst.const.u32 [%rd1], %r1;\nld.shared.L2::cache_hint.u32 %r1, [%rd1], %rd2;\nld.global.v8.f32 {{%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}}, [%rd1];\nret;\n}}\n").as_bytes(),
    );
    let o = ptxemu(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    for (line, rule) in [
        (10, "st-const"),
        (11, "cache-hint-state-space"),
        (12, "requires-ptx-version"),
    ] {
        assert!(
            e.contains(&format!("bad.ptx:{line}:1: error[{rule}]")),
            "line {line} {rule}:\n{e}"
        );
    }
}

#[test]
fn combinations_the_ir_cannot_hold_are_refused_where_written() {
    for (inst, what) in [
        (
            "ld.global.relaxed.gpu.ca.u32 %r1, [%rd1];",
            "cannot be combined with relaxed",
        ),
        (
            "st.global.release.sys.wt.u32 [%rd1], %r1;",
            "cannot be combined with release",
        ),
        (
            "ld.global.nc.acquire.gpu.u32 %r1, [%rd1];",
            "takes no semantics qualifier",
        ),
        ("ld.global.wb.u32 %r1, [%rd1];", "store cache operator"),
        ("st.global.lu.u32 [%rd1], %r1;", "load cache operator"),
    ] {
        let f = scratch("combo.ptx", format!("{HEAD}{inst}\nret;\n}}\n").as_bytes());
        let o = ptxemu(&["check", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("combo.ptx:9:1: error: ") && e.contains(what),
            "{inst}: {e}"
        );
    }
}

#[test]
fn garbage_missing_files_and_mixed_lists_never_crash() {
    let good = scratch("ok.ptx", format!("{HEAD}ret;\n}}\n").as_bytes());
    let binary = scratch("bin.ptx", &[0xff, 0xfe, 0x00, 0x13, 0x80]);
    let junk = scratch(
        "junk.ptx",
        b".version 8.7\n.target sm_90\n{{{ ld.global.u32 ]]] ;;; @@\n",
    );
    let cut = scratch("cut.ptx", HEAD.as_bytes());
    for f in [&binary, &junk, &cut] {
        let o = ptxemu(&["check", good.to_str().unwrap(), f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{}", f.display());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("1 of 2 file(s) invalid"), "{e}");
        assert!(!e.contains("panicked"), "{e}");
    }
    let o = ptxemu(&["check", "/nonexistent/x.ptx"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error[unreadable]"));
}

#[test]
fn module_header_and_declaration_rules_follow_ptxas() {
    // Each refused by ptxas 13.5; found by running `ptxemu check` and ptxas side by side over
    // the parse fuzz corpus.
    let body = ".visible .entry k()\n{\nret;\n}\n";
    for (name, text, want) in [
        (
            "target.ptx",
            format!(".version 8.0\n.target sm_91\n.address_size 64\n{body}"),
            "error[unknown-target]: sm_91 is not a PTX target",
        ),
        (
            "family.ptx",
            format!(".version 8.0\n.target sm_90f\n.address_size 64\n{body}"),
            "error[unknown-target]",
        ),
        (
            "late-version.ptx",
            format!(".target sm_90\n.version 8.0\n.address_size 64\n{body}"),
            "late-version.ptx:2:1: error: `.version` must be the module's first directive",
        ),
        (
            "two-versions.ptx",
            format!(".version 8.0\n.target sm_90\n.address_size 64\n{body}.version 8.0\n"),
            "two-versions.ptx:8:1: error: a second `.version` directive",
        ),
        (
            "two-targets.ptx",
            format!(".version 8.0\n.target sm_90\n.address_size 64\n.target sm_90\n{body}"),
            "two-targets.ptx:4:1: error: a second `.target` directive",
        ),
        (
            "align.ptx",
            format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.global .align 0 .b8 s[4];\n{body}"
            ),
            "align.ptx:4:",
        ),
        (
            "old-version.ptx",
            format!(".version 6.0\n.target sm_90\n.address_size 64\n{body}"),
            "error[target-needs-version]: .target sm_90 needs PTX ISA 7.8 or later; the module is .version 6.0",
        ),
        (
            "sm88.ptx",
            format!(".version 8.8\n.target sm_88\n.address_size 64\n{body}"),
            "needs PTX ISA 9.0",
        ),
        (
            "types.ptx",
            format!("{HEAD}add.b32 %r1, %r2, %r3;\nmov.u64 %rd2, %r1;\nret;\n}}\n"),
            "error[operation-type]",
        ),
    ] {
        let p = scratch(name, text.as_bytes());
        let o = ptxemu(&["check", p.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(e.contains(want), "{name}: want `{want}` in:\n{e}");
    }
    for target in [
        "sm_52",
        "sm_88",
        "sm_90a",
        "sm_100f",
        "sm_121a",
        "compute_90",
    ] {
        let p = scratch(
            "known.ptx",
            format!(".version 9.0\n.target {target}\n.address_size 64\n{body}").as_bytes(),
        );
        let o = ptxemu(&["check", p.to_str().unwrap()]);
        assert!(
            o.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn bytes_that_are_not_utf8_are_ignored_in_comments_and_located_elsewhere() {
    // ptxas accepts a Latin-1 byte in a comment; outside one it is no PTX token.
    let head = b".version 8.0\n.target sm_90\n.address_size 64\n";
    let mut in_comment = head.to_vec();
    in_comment.extend_from_slice(b"// caf\xe9\n.visible .entry k()\n{\nret;\n}\n");
    let p = scratch("latin1-comment.ptx", &in_comment);
    let o = ptxemu(&["check", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut in_name = head.to_vec();
    in_name.extend_from_slice(b".visible .entry k\xe9()\n{\nret;\n}\n");
    let p = scratch("latin1-name.ptx", &in_name);
    let o = ptxemu(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("latin1-name.ptx:4:18: error: unexpected character"),
        "{e}"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // 300,000 levels overflowed the stack before nesting was limited.
    let head = ".version 8.0\n.target sm_90\n.address_size 64\n";
    let n = 300_000;
    for (name, text, want) in [
        (
            "blocks.ptx",
            format!(
                "{head}.visible .entry k()\n{}{}",
                "{".repeat(n),
                "}".repeat(n)
            ),
            "blocks nested more than 200 deep",
        ),
        (
            "init.ptx",
            format!(
                "{head}.global .u32 a[1] = {}1{};\n",
                "{".repeat(n),
                "}".repeat(n)
            ),
            "initialiser lists nested more than 200 deep",
        ),
        (
            "expr.ptx",
            format!(
                "{head}.visible .entry k()\n{{\n.reg .b32 %r;\nmov.u32 %r, {}1{};\nret;\n}}\n",
                "(".repeat(n),
                ")".repeat(n)
            ),
            "nested more than 200 deep",
        ),
    ] {
        let p = scratch(name, text.as_bytes());
        let o = ptxemu(&["check", p.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(e.contains(want), "{name}: {e}");
    }
}
