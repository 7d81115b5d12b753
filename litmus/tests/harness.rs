//! Hardware harness generation: the test's instructions land in inline PTX as written, roles are
//! placed as the thread header says, and what hardware cannot run as meant is refused with the
//! reason. Compilation with nvcc is checked in harness_nvcc.rs.

use std::path::Path;

use litmus::harness::{generate, HarnessError, HarnessOptions};

fn library(name: &str) -> litmus::ast::Test {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/library/{name}.litmus"));
    litmus::parse(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn gen(src: &str) -> Result<String, HarnessError> {
    let t = litmus::parse(src).unwrap();
    generate(&t, "t.litmus", &HarnessOptions::default()).map(|h| h.source)
}

#[test]
fn dialect_instructions_become_their_ptx_and_roles_sit_in_different_ctas() {
    let h = generate(
        &library("MP+rlx"),
        "MP+rlx.litmus",
        &HarnessOptions::default(),
    )
    .unwrap();
    let s = &h.source;
    assert!(
        s.contains("\"st.relaxed.gpu.b64 [x], 1;\\n\\t\" // line 7"),
        "{s}"
    );
    assert!(s.contains("\"ld.relaxed.gpu.b64 r1, [x];\\n\\t\" // line 8"));
    assert!(s.contains("#define NROLES 2") && s.contains("#define NGROUPS 2"));
    assert!(s.contains("#define WARPS 1"));
    assert!(
        s.contains("return ((v[0] == 1LL) && (v[1] == 0LL));"),
        "condition in C"
    );
    assert!(
        s.contains("exists (1:r0=1 /\\\\ 1:r1=0)"),
        "litmus7 condition"
    );
    assert_eq!(h.build_line, "nvcc -O3 -arch=sm_90 -o 'MP+rlx' 'MP+rlx.cu'");
}

#[test]
fn real_ptx_is_kept_verbatim_with_percent_signs_escaped() {
    let s = generate(
        &library("MP+ptx-syntax-rel-acq"),
        "x.litmus",
        &HarnessOptions::default(),
    )
    .unwrap()
    .source;
    assert!(s.contains("\"st.release.gpu.global.u32 [y], 1;\\n\\t\""));
    assert!(s.contains("\"ld.acquire.gpu.global.u32 %%r0, [y];\\n\\t\""));
    assert!(
        s.contains("\".reg .b32 %%r0;\\n\\t\""),
        "u32 cells get 32-bit registers"
    );
    assert!(
        s.contains("cvt.u64.u32 %0, %%r0;"),
        "observed through a widening move"
    );
}

#[test]
fn threads_of_one_cta_get_warps_of_one_cta() {
    let s = generate(&library("MP+bar"), "x.litmus", &HarnessOptions::default())
        .unwrap()
        .source;
    assert!(s.contains("#define NGROUPS 1") && s.contains("#define WARPS 2"));
    assert!(s.contains("if (group == 0 && warp == 1) return 1;"));
    assert!(s.contains("\"bar.cta.sync 0;\\n\\t\""));
}

#[test]
fn loops_run_under_a_budget_and_abandon() {
    let s = gen("PTX loop\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.relaxed.gpu x, 1 ;\n ld.relaxed.gpu r0, x | ;\n beq r0, 0, LC00 | ;\nexists (P0:r0 == 1)\n").unwrap();
    let head = s.find("\"LC00:\\n\\t\"").expect("label kept");
    let budget = s
        .find("sub.u32 %%__budget, %%__budget, 1;")
        .expect("budget");
    assert!(budget > head, "the budget is spent at the loop head");
    assert!(s.contains("@%%__spent bra __ptxemu_abandon;"));
    assert!(s.contains("if (abandoned) atomicOr(&p.abandoned[inst], 1u);"));
}

#[test]
fn what_hardware_cannot_run_as_meant_is_refused_with_the_reason() {
    let e = generate(
        &library("MP+rel+acq-gpu-diff-gpu"),
        "x.litmus",
        &HarnessOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, HarnessError::DifferentGpus(_)), "{e}");
    let alias = "PTX a\n{ x=0; y @ texture aliases x; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 0)\n";
    assert!(matches!(gen(alias), Err(HarnessError::Alias(n)) if n == "y"));
    let cases = [
        ("red.acq_rel.gpu.add x, 1", "no acquire semantics"),
        ("bar.cta.arrive 0", "thread count"),
        ("tld.weak r1, x", "texture proxy"),
    ];
    for (inst, why) in cases {
        let src = format!("PTX r\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n {inst} ;\nexists (x == 0)\n");
        let e = gen(&src).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("line 4"), "{inst}: {e}");
    }
    let hang = "PTX h\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 0 | bar.cta.sync 1 ;\nexists (x == 0)\n";
    let e = gen(hang).unwrap_err().to_string();
    assert!(
        e.contains("would wait at barrier 0 while P1 waits at barrier 1"),
        "{e}"
    );
    let o = HarnessOptions {
        instances: 48,
        ..HarnessOptions::default()
    };
    assert!(matches!(
        generate(&library("MP+rlx"), "x", &o),
        Err(HarnessError::Options(_))
    ));
}

#[test]
fn every_library_and_corpus_test_is_generated_or_refused_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = litmus::litmus_files(&root.join("tests/library")).unwrap();
    let corpus = root.join("corpus/dat3m-ptx/litmus");
    if corpus.is_dir() {
        files.extend(litmus::litmus_files(&corpus).unwrap());
    }
    let (mut ok, mut refused) = (0, 0);
    for f in &files {
        let t = litmus::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        match generate(&t, "x.litmus", &HarnessOptions::default()) {
            Ok(h) => {
                assert!(h.source.contains("litmus_kernel<<<"));
                ok += 1;
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                refused += 1;
            }
        }
    }
    assert!(ok >= 35, "{ok} generated, {refused} refused");
}
