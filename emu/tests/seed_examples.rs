//! Every line of the `Examples` blocks of the seeds for ld.global.nc and st
//! (vendored in tests/seeds/: 000_…, 004_…) is parsed and validated in a kernel that declares its names;
//! the lines that touch only global memory are also run on a buffer and their effect checked.
//! Three seed lines carry typos (`ld.gloal`, `cache-policy` as a name, `.` for `,`), and one,
//! `cvt.f16.f32 %r,%r;`, omits the rounding modifier that a conversion to a narrower float
//! needs (ptxas 13.5: "Rounding modifier required for instruction 'cvt'"); ptxemu rejects
//! those with a located error, as ptxas does.

mod exec_common;

use exec_common::{launch, Arg};

/// (example line, declarations it needs, whether it is valid PTX, whether it can run on a global
/// buffer whose address every address register holds).
const CASES: &[(&str, &str, bool, bool)] = &[
    // ld.global.nc
    ("ld.global.nc.f32           d, [a];", ".reg .f32 d; .reg .b64 a;", true, true),
    ("ld.gloal.nc.L1::evict_last.u32 d, [a];", ".reg .u32 d; .reg .b64 a;", false, false),
    ("createpolicy.fractional.L2::evict_last.b64 cache-policy, 0.5;", ".reg .b64 cache;", false, false),
    ("ld.global.nc.L2::cache_hint.f32  d, [a], cache-policy;", ".reg .f32 d; .reg .b64 a, cache;", false, false),
    ("ld.global.nc.L2::64B.b32      d,  [a];", ".reg .b32 d; .reg .b64 a;", true, true),
    ("ld.global.nc.L2::256B.f64     d,  [a];", ".reg .f64 d; .reg .b64 a;", true, true),
    ("ld.global.nc.b128             d,  [a];", ".reg .b128 d; .reg .b64 a;", true, true),
    ("ld.global.nc.L2::evict_first.v4.f64 {%reg0, %reg1. %reg2, %reg3}. [a];", ".reg .f64 %reg<4>; .reg .b64 a;", false, false),
    // st
    ("st.global.f32    [a],b;", ".reg .b64 a; .reg .f32 b;", true, true),
    ("st.local.b32     [q+4],a;", ".reg .b64 q; .reg .b32 a;", true, false),
    ("st.global.v4.s32 [p],Q;", ".reg .b64 p; .reg .v4 .s32 Q;", true, true),
    ("st.local.b32     [q+-8],a;", ".reg .b64 q; .reg .b32 a;", true, false),
    ("st.local.s32     [100],r7;", ".reg .s32 r7;", true, false),
    ("cvt.f16.f32      %r,%r;", ".reg .b32 %r;", false, false),
    ("st.b16           [fs],%r;", ".reg .b64 fs; .reg .b32 %r;", true, true),
    ("st.global.relaxed.sys.u32 [gbl], %r0;", ".reg .b64 gbl; .reg .u32 %r0;", true, true),
    ("st.shared.release.cta.u32 [sh], %r1;", ".reg .b64 sh; .reg .u32 %r1;", true, false),
    ("st.global.relaxed.cluster.u32 [gbl], %r2;", ".reg .b64 gbl; .reg .u32 %r2;", true, true),
    ("st.shared::cta.release.cta.u32 [sh + 4], %r1;", ".reg .b64 sh; .reg .u32 %r1;", true, false),
    ("st.shared::cluster.u32 [sh + 8], %r1;", ".reg .b64 sh; .reg .u32 %r1;", true, false),
    ("st.global.mmio.relaxed.sys.u32 [gbl], %r1;", ".reg .b64 gbl; .reg .u32 %r1;", true, true),
    ("st.local.volatile.u32 [lcl], %r2;", ".reg .b64 lcl; .reg .u32 %r2;", true, false),
    ("st.global.L1::no_allocate.f32 [p], a;", ".reg .b64 p; .reg .f32 a;", true, true),
    ("createpolicy.fractional.L2::evict_last.b64 cache-policy, 0.25;", ".reg .b64 cache;", false, false),
    ("st.global.L2::cache_hint.b32  [a], b, cache-policy;", ".reg .b64 a, cache; .reg .b32 b;", false, false),
    ("st.param::func.b64 [param1], %rp1;", ".reg .b64 param1, %rp1;", false, false),
    ("st.global.b128  [a], b;", ".reg .b64 a; .reg .b128 b;", true, true),
    ("st.global.L2::evict_last.v8.f32 [addr], { %reg0, _, %reg2, %reg3, %reg4, %reg5, %reg6, %reg7};", ".reg .b64 addr; .reg .f32 %reg<8>;", true, true),
];

/// The example lines of a seed, without comments and blank lines.
fn seed_examples(file: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/seeds")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("the vendored seed examples");
    let code = text.split("```").nth(1).expect("a code block");
    code.lines()
        .map(|l| l.split("//").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn module(line: &str, decls: &str, run: bool) -> String {
    // Every 64-bit register the line declares holds the buffer's address.
    let addr_regs: Vec<&str> = decls
        .split(';')
        .filter_map(|d| d.trim().strip_prefix(".reg .b64 "))
        .flat_map(|names| names.split(',').map(str::trim))
        .collect();
    let mut body = String::new();
    if run {
        for r in &addr_regs {
            body.push_str(&format!("ld.param.u64 {r}, [buf];\n"));
        }
    }
    format!(
        ".version 9.1\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .u64 buf)\n{{\n{}\n{body}{line}\nret;\n}}\n",
        decls.replace("; ", ";\n")
    )
}

#[test]
fn the_table_is_the_seeds_examples() {
    let mut lines = seed_examples("000_e9a27e8aed8c6e62.examples");
    lines.extend(seed_examples("004_8a186dc61d31612a.examples"));
    let ours: Vec<String> = CASES.iter().map(|c| c.0.to_string()).collect();
    assert_eq!(ours, lines);
}

#[test]
fn every_example_is_accepted_or_rejected_as_ptxas_would() {
    for &(line, decls, valid, _) in CASES {
        let src = module(line, decls, false);
        let verdict = emu::front::parse_module(&src, "example.ptx")
            .map_err(|e| e.render(&src))
            .and_then(|m| {
                let d = emu::validate::validate_module(&m);
                match d.first() {
                    None => Ok(()),
                    Some(d) => Err(d.render(&src, "example.ptx")),
                }
            });
        match (valid, verdict) {
            (true, Err(e)) => panic!("{line}: rejected:\n{e}"),
            (false, Ok(())) => panic!("{line}: accepted, but ptxas refuses the line"),
            (false, Err(e)) => assert!(
                e.contains("example.ptx:") && e.contains(line),
                "{line}: the error should point at the line: {e}"
            ),
            (true, Ok(())) => {}
        }
    }
}

#[test]
fn global_examples_run_and_store_what_they_should() {
    for &(line, decls, _, run) in CASES.iter().filter(|c| c.3) {
        let src = module(line, decls, true);
        let init: Vec<u8> = (1..=64).collect();
        let o = launch(
            &src,
            "k",
            [1, 1, 1],
            [1, 1, 1],
            vec![Arg::Buf(init.clone())],
        );
        o.ok();
        let _ = run;
        let after = &o.buffers[0];
        if line.starts_with("st.") {
            // Data registers start at zero: a store zeroes exactly its bytes.
            let width = if line.contains(".v8.f32") {
                32
            } else if line.contains(".b128") || line.contains(".v4.s32") {
                16
            } else if line.contains(".b16") {
                2
            } else {
                4
            };
            for (k, (&b, &was)) in after.iter().zip(&init).enumerate() {
                let sink = line.contains(".v8.f32") && (4..8).contains(&k);
                let want = if k < width && !sink { 0 } else { was };
                assert_eq!(b, want, "{line}: byte {k}");
            }
        } else {
            assert_eq!(after, &init, "{line}: a load changes no memory");
        }
    }
}
