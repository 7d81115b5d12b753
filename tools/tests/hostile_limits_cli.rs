//! Hostile input, second pass (issue 38): sizes, time and recursion. Every allocation a run
//! makes is refused past the run's limit or the host's, naming the size (never an abort);
//! every budget bounds the loop that builds work; every reader checks the size first; every
//! recursive reader is bounded in depth. Each test failed on the code before its fix (run once
//! with `PTXEMU_UNDER_TEST` set to that build).

mod hostile_common;

use hostile_common::{clean, refused, run_in, scratch, write, STORE7};

const SUITE: &str = "hostile-limits";

/// 4 GiB of address space: what a shared machine's `ulimit -v` might allow.
const CAP: u64 = 4 << 20;

#[test]
fn a_buffer_past_the_hosts_cap_is_refused_naming_its_size() {
    let d = scratch(SUITE, "cap-buffer");
    write(&d, "k.ptx", STORE7);
    let r = run_in(
        &d,
        &[
            "run",
            "k.ptx",
            "--kernel",
            "k",
            "--arg",
            "u8[17179869184]:zero",
        ],
        Some(CAP),
        60,
    );
    refused(&r, "argument 0");
    assert!(r.out.contains("17179869184 bytes"), "{}", r.all());
    // The same buffer in a plan, and a 16 GiB filled one (not materialised in host memory).
    for init in ["zero", "fill=1"] {
        write(
            &d,
            "p.json",
            &format!(
                r#"{{"version": 1, "module": "k.ptx", "buffers": {{"b": "u8[17179869184]:{init}"}},
                "steps": [{{"launch": {{"kernel": "k", "grid": 1, "block": 1, "args": ["@b"]}}}}]}}"#
            ),
        );
        let r = run_in(&d, &["run", "--plan", "p.json"], Some(CAP), 60);
        refused(&r, "buffer `b`");
    }
}

#[test]
fn local_memory_times_threads_past_the_cap_is_refused() {
    let d = scratch(SUITE, "cap-local");
    write(
        &d,
        "l.ptx",
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
         .local .u8 big[16000000];\nret;\n}\n",
    );
    let r = run_in(
        &d,
        &["run", "l.ptx", "--kernel", "k", "--block", "1024"],
        Some(CAP),
        60,
    );
    refused(&r, "local memory");
}

#[test]
fn module_variables_are_placed_through_the_memory_limit() {
    let d = scratch(SUITE, "globals");
    write(
        &d,
        "g.ptx",
        ".version 8.0\n.target sm_90\n.address_size 64\n.global .u8 g[8000000000];\n\
         .visible .entry k()\n{\nret;\n}\n",
    );
    let r = run_in(
        &d,
        &["run", "g.ptx", "--kernel", "k", "--memory-limit", "1M"],
        Some(CAP),
        60,
    );
    refused(&r, "the module's .global variables");
    assert!(
        r.out.contains("8000000000") && r.out.contains("1048576"),
        "{}",
        r.all()
    );
}

/// A kernel calling `vprintf` with `format` and no arguments.
fn printf_kernel(format: &str) -> String {
    let mut bytes: Vec<String> = format.bytes().map(|b| b.to_string()).collect();
    bytes.push("0".into());
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);\n\
         .global .align 1 .b8 fmt[{}] = {{{}}};\n\
         .visible .entry k()\n{{\n.reg .b64 %rd<4>;\n.local .align 8 .b8 buf[8];\n\
         mov.u64 %rd1, fmt;\ncvta.global.u64 %rd1, %rd1;\nmov.u64 %rd2, buf;\ncvta.local.u64 %rd2, %rd2;\n\
         {{ .param .b64 p0; st.param.b64 [p0], %rd1; .param .b64 p1; st.param.b64 [p1], %rd2;\n\
         .param .b32 rv; call.uni (rv), vprintf, (p0, p1); }}\nret;\n}}\n",
        bytes.len(),
        bytes.join(", ")
    )
}

#[test]
fn printf_fields_past_the_bound_are_refused_without_a_panic() {
    let d = scratch(SUITE, "printf");
    for (format, what) in [
        ("%.70000f", "precision of 70000"),
        ("%999999999d", "width of 999999999"),
        ("%99999999999999999999999d", "width of"),
    ] {
        write(&d, "p.ptx", &printf_kernel(format));
        let r = run_in(&d, &["run", "p.ptx", "--kernel", "k"], Some(CAP), 60);
        assert_eq!(r.code, Some(1), "{format}: {}", r.all());
        assert!(r.out.contains(what), "{format}: {}", r.all());
        assert!(r.took.as_secs() < 20, "{format}: {:?}", r.took);
        clean(&r);
    }
    // A large field inside the bound still prints, exactly.
    write(&d, "p.ptx", &printf_kernel("%.3000d|%5000s|"));
    let r = run_in(&d, &["run", "p.ptx", "--kernel", "k"], None, 60);
    assert_eq!(r.code, Some(0), "{}", r.all());
}

/// A GPU_PTX test whose scope tree nests `n` `(device …)` levels.
fn deep_scope_tree(n: usize) -> String {
    format!(
        "GPU_PTX Deep\n{{\n0:.reg .s32 r1;\n0:.reg .b64 r2 = x;\n1:.reg .s32 r1;\n1:.reg .b64 r2 = x;\n}}\n\
         P0 | P1 ;\n mov.s32 r1,1 | ld.volatile.s32 r1,[r2] ;\n st.volatile.s32 [r2],r1 | ;\n\n\
         scopeTree\n{}(kernel (cta (warp P0)) (cta (warp P1))){}\n\nx: global\n\nexists (1:r1=1)\n",
        "(device ".repeat(n),
        ")".repeat(n)
    )
}

#[test]
fn a_deep_scope_tree_is_refused_with_its_place() {
    let d = scratch(SUITE, "scope-tree");
    let f = write(&d, "deep.litmus", &deep_scope_tree(20_000));
    let out = d.join("h");
    for args in [
        vec!["litmus", &f],
        vec!["litmus", "--print-dialect", &f],
        vec!["explain", &f],
        vec!["harness", "--out", out.to_str().unwrap(), &f],
    ] {
        let r = run_in(&d, &args, None, 60);
        refused(&r, "the scope tree nests more than");
        assert!(r.out.contains("deep.litmus:"), "{args:?}: {}", r.all());
    }
    // A tree of real depth is read as before.
    let f = write(&d, "ok.litmus", &deep_scope_tree(1));
    let r = run_in(&d, &["litmus", &f], None, 60);
    assert_eq!(r.code, Some(0), "{}", r.all());
}

#[test]
fn a_plan_repeat_of_empty_rounds_stops_at_the_timeout() {
    let d = scratch(SUITE, "repeat");
    write(&d, "k.ptx", STORE7);
    write(
        &d,
        "p.json",
        r#"{"version": 1, "module": "k.ptx",
            "steps": [{"repeat": {"times": 18446744073709551615, "steps": []}}]}"#,
    );
    let r = run_in(&d, &["run", "--plan", "p.json", "--timeout", "1"], None, 30);
    assert_eq!(r.code, Some(3), "{}", r.all());
    assert!(r.out.contains("--timeout"), "{}", r.all());
    assert!(r.took.as_secs() < 10, "{:?}", r.took);
}

#[test]
fn a_set_in_a_long_loop_keeps_no_record_per_round() {
    let d = scratch(SUITE, "sets");
    write(
        &d,
        "v.ptx",
        ".version 8.0\n.target sm_90\n.address_size 64\n.global .u32 g;\n\
         .visible .entry k()\n{\nret;\n}\n",
    );
    write(
        &d,
        "p.json",
        r#"{"version": 1, "module": "v.ptx", "buffers": {"flag": "u8[1]:[1]"},
            "steps": [{"repeat": {"while_nonzero": "flag", "max": 1000000000000,
                                  "steps": [{"set": "g=u32:1"}]}}]}"#,
    );
    // 256 MiB of address space: a record kept per round (a million rounds a second) would
    // exhaust it within the time; the plan itself needs a few MiB.
    for json in [false, true] {
        let mut args = vec!["run", "--plan", "p.json", "--timeout", "8"];
        if json {
            args.push("--json");
        }
        let r = run_in(&d, &args, Some(256 << 10), 60);
        assert_eq!(r.code, Some(3), "--json {json}: {}", r.all());
        clean(&r);
    }
}

#[test]
fn race_runs_are_not_listed_up_front_and_stop_at_the_timeout() {
    let d = scratch(SUITE, "race-runs");
    write(&d, "k.ptx", STORE7);
    for runs in ["4000000000", "1000000"] {
        let r = run_in(
            &d,
            &[
                "run",
                "k.ptx",
                "--kernel",
                "k",
                "--arg",
                "u32[4]:zero",
                "--race",
                "--runs",
                runs,
                "--timeout",
                "2",
            ],
            Some(CAP),
            60,
        );
        assert_eq!(r.code, Some(3), "--runs {runs}: {}", r.all());
        assert!(r.out.contains("--timeout stopped --runs"), "{}", r.all());
        assert!(r.took.as_secs() < 15, "--runs {runs}: {:?}", r.took);
        clean(&r);
    }
}

#[test]
fn the_litmus_budgets_bound_path_building() {
    // 150 stores against 150 loads of one location: 151^150 paths through the reader.
    let d = scratch(SUITE, "paths");
    let rows: Vec<String> = (0..150)
        .map(|i| format!(" st.relaxed.gpu x, {} | ld.relaxed.gpu r{i}, x ", i + 1))
        .collect();
    let f = write(
        &d,
        "big.litmus",
        &format!(
            "PTX Big\n{{\n x=0;\n}}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n{} ;\nexists (x == 1)\n",
            rows.join(" ;\n")
        ),
    );
    for cmd in ["litmus", "explain"] {
        let r = run_in(
            &d,
            &[cmd, &f, "--timeout", "5", "--max-executions", "10"],
            Some(2 << 20),
            120,
        );
        assert!(!r.killed, "{cmd}: {}", r.all());
        assert!(matches!(r.code, Some(2 | 3)), "{cmd}: {}", r.all());
        assert!(r.took.as_secs() < 20, "{cmd}: {:?}", r.took);
        clean(&r);
    }
}

#[test]
fn endless_inputs_are_refused_before_they_are_read() {
    let d = scratch(SUITE, "endless");
    write(&d, "k.ptx", STORE7);
    let out = d.join("out");
    let r = run_in(
        &d,
        &[
            "difftest",
            "--replay",
            "/dev/zero",
            "--out",
            out.to_str().unwrap(),
        ],
        Some(CAP),
        30,
    );
    refused(&r, "at most 134217728");
    let r = run_in(
        &d,
        &[
            "run",
            "k.ptx",
            "--kernel",
            "k",
            "--arg",
            "tmap:driver,file=/dev/zero,buf=0",
        ],
        Some(CAP),
        30,
    );
    refused(&r, "more than 128 bytes");
}

#[test]
fn a_replay_of_a_record_with_no_kernels_checks_nothing_and_says_so() {
    let d = scratch(SUITE, "replay-empty");
    write(
        &d,
        "r.jsonl",
        "{\"arch\":\"sm_80\",\"family\":\"mma\",\"frame_bytes\":128,\"inputs\":\"uniform\",\
         \"per_module\":250,\"ptxemu_difftest_record\":1,\"seed\":23,\"threads\":32}\n",
    );
    let r = run_in(
        &d,
        &["difftest", "--replay", "r.jsonl", "--out", "o"],
        None,
        60,
    );
    refused(&r, "no kernels");
}

#[test]
fn the_runs_limit_also_bounds_a_single_run_with_race_shadow_memory() {
    // Shadow memory counts against --memory-limit: a kernel that reads 64 MiB of a buffer
    // with --race under a limit that holds the buffer but not its shadow is refused.
    let d = scratch(SUITE, "shadow");
    write(
        &d,
        "r.ptx",
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
         .reg .u64 %rd<4>;\n.reg .u32 %r<4>;\n.reg .pred %p<2>;\nld.param.u64 %rd1, [p];\n\
         mov.u32 %r1, 0;\nL:\nmul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\n\
         ld.global.u32 %r2, [%rd3];\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 16777216;\n\
         @%p1 bra L;\nret;\n}\n",
    );
    let r = run_in(
        &d,
        &[
            "run",
            "r.ptx",
            "--kernel",
            "k",
            "--arg",
            "u32[16777216]:zero",
            "--race",
            "--memory-limit",
            "200M",
        ],
        None,
        300,
    );
    refused(&r, "the race detector's shadow memory");
    assert!(r.out.contains("209715200"), "{}", r.all());
}
