//! Hostile input to `ptxemu run` (issue 23): failed dumps, step and call-depth limits,
//! argument checks, lazily allocated buffers and the memory limit. Each ends with a clear
//! message and the right exit status, never a crash, a silent wrong answer, or unbounded
//! memory or time.

mod fixture_common;

use fixture_common::{assert_exit, assert_stderr_has, ptxemu, stderr, write_file as write};

use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("hostile", name)
}

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

#[test]
fn a_dump_that_cannot_be_written_does_not_hide_the_fault() {
    let d = scratch("dump");
    let f = write(
        &d,
        "f.ptx",
        &format!("{HEADER}.visible .entry k(.param .u64 p)\n{{\n.reg .u64 %rd<2>;\nld.param.u64 %rd1, [p];\nst.global.u32 [%rd1+64], 7;\nret;\n}}\n"),
    );
    let bad = d.join("no/such/folder/x.bin");
    let bad = format!("0={}", bad.display());
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "k",
        "--arg",
        "u32[4]:zero",
        "--dump",
        &bad,
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the fault's status: {}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("out-of-bounds") && stderr(&o).contains("cannot write"),
        "{}",
        stderr(&o)
    );
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "k",
        "--arg",
        "u32[32]:zero",
        "--dump",
        &bad,
    ]);
    assert_exit(&o, 2);
}

#[test]
fn max_steps_bounds_the_whole_launch() {
    let d = scratch("steps");
    let f = write(
        &d,
        "k.ptx",
        &format!("{HEADER}.visible .entry k()\n{{\nret;\n}}\n"),
    );
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "k",
        "--grid",
        "100000",
        "--max-steps",
        "10",
    ]);
    assert_exit(&o, 1);
    assert_stderr_has(&o, "raise --max-steps");
}

#[test]
fn scalar_arguments_are_checked_against_the_parameter_type() {
    let d = scratch("argtype");
    let f = write(
        &d,
        "k.ptx",
        &format!("{HEADER}.visible .entry k(.param .u32 n, .param .f32 x, .param .b32 b)\n{{\nret;\n}}\n"),
    );
    let run = |n: &str, x: &str, b: &str| {
        ptxemu(&[
            "run", &f, "--kernel", "k", "--arg", n, "--arg", x, "--arg", b,
        ])
    };
    let o = run("f32:1.5", "f32:1", "u32:0");
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(
        &o,
        "argument 0: an f32 is given for parameter 0 `n` of `k`, which is .u32",
    );
    let o = run("u32:1", "u32:1", "u32:0");
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "parameter 1 `x` of `k`, which is .f32");
    let o = run("u32:1", "f32:1e99999", "u32:0");
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "out of the f32 range");
    for ok in [
        ("s32:-1", "f32:inf", "f32:2"),
        ("u32:1", "0f3F800000", "b32:1"),
    ] {
        let x = if ok.1.starts_with("0f") {
            format!("f32:{}", ok.1)
        } else {
            ok.1.to_string()
        };
        let o = run(ok.0, &x, ok.2);
        assert_eq!(o.status.code(), Some(0), "{ok:?}: {}", stderr(&o));
    }
}

#[test]
fn sixteen_bit_float_arguments_are_checked_and_stored() {
    let d = scratch("argtype16");
    let f = write(
        &d,
        "k.ptx",
        &format!(
            "{HEADER}.visible .entry k(.param .u64 out, .param .f16 h, .param .bf16 g)\n{{\n\
             .reg .b64 %rd<3>; .reg .b16 %h<3>;\nld.param.u64 %rd1, [out];\n\
             ld.param.b16 %h1, [h];\nld.param.b16 %h2, [g];\ncvta.to.global.u64 %rd2, %rd1;\n\
             st.global.v2.b16 [%rd2], {{%h1, %h2}};\nret;\n}}\n"
        ),
    );
    let out = d.join("out.bin");
    let run = |h: &str, g: &str| {
        let dump = format!("0={}", out.display());
        ptxemu(&[
            "run",
            &f,
            "--kernel",
            "k",
            "--arg",
            "u16[2]:zero",
            "--arg",
            h,
            "--arg",
            g,
            "--dump",
            &dump,
        ])
    };
    // 0.1 rounds to 0x2E66 as f16 and 0x3DCD as bf16 (numpy; tools/tests/data/f16_args).
    let o = run("f16:0.1", "bf16:0.1");
    assert_exit(&o, 0);
    assert_eq!(std::fs::read(&out).unwrap(), [0x66, 0x2E, 0xCD, 0x3D]);
    let o = run("f16:0x3C00", "bf16:-inf");
    assert_exit(&o, 0);
    assert_eq!(std::fs::read(&out).unwrap(), [0x00, 0x3C, 0x80, 0xFF]);
    for (h, g, why) in [
        (
            "bf16:1",
            "bf16:1",
            "a bf16 is given for parameter 1 `h` of `k`, which is .f16",
        ),
        (
            "f16:1",
            "u16:1",
            "a u16 is given for parameter 2 `g` of `k`, which is .bf16",
        ),
        ("f16:65520", "bf16:1", "out of the f16 range"),
        ("f16:1", "f32:1", "an f32 is 4 byte(s)"),
    ] {
        let o = run(h, g);
        assert_eq!(o.status.code(), Some(2), "{h} {g}");
        assert!(stderr(&o).contains(why), "{h} {g}: {}", stderr(&o));
    }
}

/// A kernel whose `.func` calls itself with no end and no local variables: its frames are
/// only registers and a 4-byte parameter, so the local-memory limit alone never stops it.
fn runaway_recursion(dir: &Path) -> String {
    write(
        dir,
        "rec.ptx",
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .func rec(.param .u32 n)\n{\n    .reg .b32 %r<3>;\n    ld.param.u32 %r1, [n];\n    add.u32 %r2, %r1, 1;\n\
         {\n    .param .u32 a;\n    st.param.u32 [a], %r2;\n    call rec, (a);\n}\n    ret;\n}\n\
         .visible .entry k()\n{\n    .reg .b32 %r<2>;\n    mov.b32 %r1, 0;\n\
         {\n    .param .u32 a;\n    st.param.u32 [a], %r1;\n    call rec, (a);\n}\n    ret;\n}\n",
    )
}

#[test]
fn runaway_recursion_stops_at_the_call_depth_limit_with_the_flag_named() {
    // Issue 23: each level of a recursion took a fresh register block and nothing bounded
    // the depth but the local-memory limit (about 2 GiB of host memory per warp).
    let d = scratch("recursion");
    let f = runaway_recursion(&d);
    let t = std::time::Instant::now();
    let o = ptxemu(&["run", &f, "--kernel", "k", "--block", "64"]);
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(
        e.contains("call depth 1025 exceeds the limit of 1024 nested calls")
            && e.contains("--max-call-depth raises it")
            && e.contains("lane 0"),
        "{e}"
    );
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    let o = ptxemu(&["run", &f, "--kernel", "k", "--max-call-depth", "7"]);
    assert_exit(&o, 1);
    assert_stderr_has(&o, "call depth 8 exceeds the limit of 7");
    // A SASS run has no calls: the flag is refused there, not ignored.
    let o = ptxemu(&["run", &f, "--isa", "sass", "--max-call-depth", "7"]);
    assert_exit(&o, 2);
}

#[test]
fn deep_recursion_with_big_frames_is_a_stack_overflow_counting_registers() {
    let d = scratch("bigframes");
    let f = runaway_recursion(&d);
    // With the depth limit lifted, the lane's 16 MiB (frames and registers) stops it.
    let o = ptxemu(&["run", &f, "--kernel", "k", "--max-call-depth", "4000000000"]);
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(
        e.contains("stack overflow: call depth") && e.contains("of registers"),
        "{e}"
    );
}

/// A kernel that stores its thread index at the last 4 bytes of a buffer of `n` u32s.
fn store_last(dir: &Path) -> String {
    write(
        dir,
        "last.ptx",
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry last(.param .u64 p, .param .u64 n)\n{\n    .reg .b64 %rd<5>;\n\
         ld.param.u64 %rd1, [p];\n    ld.param.u64 %rd2, [n];\n    sub.u64 %rd3, %rd2, 1;\n\
         shl.b64 %rd3, %rd3, 2;\n    add.u64 %rd4, %rd1, %rd3;\n    st.global.u32 [%rd4], 7;\n    ret;\n}\n",
    )
}

#[test]
fn zero_buffers_cost_nothing_until_touched() {
    // Issue 23: `:zero` buffers were written out in full (2 GiB of zeros took 2 GiB and 5 s).
    // A 4 GiB zero buffer touched at its last word runs at once; were it written, this would
    // take seconds and 4 GiB.
    let d = scratch("lazyzero");
    let f = store_last(&d);
    let t = std::time::Instant::now();
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "last",
        "--arg",
        "u32[1073741824]:zero",
        "--arg",
        "u64:1073741824",
        "--json",
        "--memory-limit",
        "64G",
    ]);
    assert_exit(&o, 0);
    assert!(t.elapsed().as_secs_f64() < 4.0, "{:?}", t.elapsed());
}

#[test]
fn memory_limit_refuses_a_run_past_it_with_the_total_and_the_biggest_part() {
    let d = scratch("memlimit");
    let f = store_last(&d);
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "last",
        "--arg",
        "u32[1048576]:zero",
        "--arg",
        "u64:1048576",
        "--memory-limit",
        "4M",
    ]);
    assert_exit(&o, 2);
    let e = stderr(&o);
    // 4 MiB of buffer and the 8 MiB heap (plus its 4 KiB workspace) and the frames.
    assert!(
        e.contains("more than the limit of 4194304 (--memory-limit raises it)"),
        "{e}"
    );
    assert!(
        e.contains("the biggest part is the device heap: 8392704 bytes"),
        "{e}"
    );
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "last",
        "--arg",
        "u32[16777216]:zero",
        "--arg",
        "u64:16777216",
        "--memory-limit",
        "32M",
    ]);
    assert_exit(&o, 2);
    assert_stderr_has(&o, "the biggest part is argument 0: 67108864 bytes");
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "last",
        "--arg",
        "u32[16]:zero",
        "--arg",
        "u64:16",
        "--memory-limit",
        "1G",
    ]);
    assert_exit(&o, 0);
    for bad in ["1X", "-5", "G", "1.5G"] {
        let l = format!("--memory-limit={bad}");
        let o = ptxemu(&[
            "run",
            &f,
            "--kernel",
            "last",
            "--arg",
            "u32[16]:zero",
            "--arg",
            "u64:16",
            &l,
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert_stderr_has(&o, "--memory-limit");
    }
    // SASS runs and plans are held to it too.
    let s = write(&d, "x.sass", "EXIT;\n");
    let o = ptxemu(&[
        "run",
        &s,
        "--isa",
        "sass",
        "--arg",
        "u8[2147483648]:zero",
        "--memory-limit",
        "1G",
    ]);
    assert_exit(&o, 2);
    let plan = write(
        &d,
        "plan.json",
        &format!(
            r#"{{"version": 1, "module": "{f}", "buffers": {{"big": "u32[268435456]:zero"}}, "steps": [
                {{"launch": {{"kernel": "last", "grid": 1, "block": 1, "args": ["@big", "u64:268435456"]}}}}]}}"#
        ),
    );
    let o = ptxemu(&["run", "--plan", &plan, "--memory-limit", "512M"]);
    assert_exit(&o, 2);
    assert_stderr_has(&o, "1073741824 bytes");
}

#[test]
fn a_large_global_array_costs_nothing_until_touched() {
    // A 1 GiB `.global` array with an initialised neighbour: only the initialised page is
    // written at load (the image is still scanned for initialisers: time grows with the
    // size, host memory does not); the kernel reads the initialiser back.
    let d = scratch("lazyglobal");
    let f = write(
        &d,
        "g.ptx",
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .global .align 4 .b8 big[1073741824];\n.global .align 4 .u32 init = 41;\n\
         .visible .entry k(.param .u64 out)\n{\n    .reg .b64 %rd<4>;\n    .reg .b32 %r<3>;\n\
         ld.param.u64 %rd1, [out];\n    ld.global.u32 %r1, [init];\n    mov.u64 %rd2, big;\n\
         add.u64 %rd3, %rd2, 1073741820;\n    st.global.u32 [%rd3], %r1;\n    ld.global.u32 %r2, [%rd3];\n\
         add.u32 %r2, %r2, 1;\n    st.global.u32 [%rd1], %r2;\n    ret;\n}\n",
    );
    let out = d.join("out.bin");
    let dump = format!("0={}", out.display());
    let t = std::time::Instant::now();
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "k",
        "--arg",
        "u32[1]:zero",
        "--dump",
        &dump,
    ]);
    assert_exit(&o, 0);
    assert_eq!(std::fs::read(&out).unwrap(), 42u32.to_le_bytes());
    assert!(t.elapsed().as_secs_f64() < 10.0, "{:?}", t.elapsed());
}

#[test]
fn a_parse_error_is_reported_before_a_missing_kernel() {
    // `run FILE` without `--kernel` said only "--kernel NAME is required" when FILE did not
    // parse; the parse error (file:line:col) comes first, with the parse error's status.
    let d = scratch("parse-no-kernel");
    let f = write(
        &d,
        "bad.ptx",
        &format!("{HEADER}.visible .entry k()\n{{\n  ret;\n  mov.u32 %r1, ;\n}}\n"),
    );
    let with_kernel = ptxemu(&["run", &f, "--kernel", "k"]);
    let without = ptxemu(&["run", &f]);
    let e = stderr(&without);
    assert!(e.contains("bad.ptx:7:11: error"), "{e}");
    assert!(!e.contains("--kernel NAME is required"), "{e}");
    assert_eq!(without.status.code(), Some(2), "{e}");
    assert_eq!(without.status.code(), with_kernel.status.code());
    // A module that parses needs --kernel when it has several kernels (with one, that one
    // runs: issue 41, CUTLASS's mangled names).
    let f = write(
        &d,
        "good.ptx",
        &format!(
            "{HEADER}.visible .entry k()\n{{\n  ret;\n}}\n.visible .entry j()\n{{\n  ret;\n}}\n"
        ),
    );
    let o = ptxemu(&["run", &f]);
    assert_exit(&o, 2);
    assert_stderr_has(&o, "--kernel NAME is required");
}
