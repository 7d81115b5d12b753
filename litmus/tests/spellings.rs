//! The spellings of the PTX ISA manual and the field (issue 22): `fence.S`, `fence.acquire.S`,
//! untyped `ld/st.volatile`, `atom … .inc/.dec` (with or without a bound), `bar.sync N`, and
//! herd's GPU_PTX format. Fixtures: `tests/manual/` (every litmus test of the manual's
//! chapter 8, with the verdict the manual states) and `tests/gpu_ptx/` (herd's tests and the
//! ASPLOS'15 figures, with verdicts under ptx-v6.0 and ptx-v7.5 worked out by hand).

use std::path::{Path, PathBuf};

use emu::ir::{AtomOp, BarKind, Fence, Op};
use litmus::ast::{Inst, Mo, RmwOp, Test, Val};
use litmus::harness::{generate, HarnessError, HarnessOptions};
use litmus::lower::{lower_thread, Locations};
use litmus::report::{herd_text, Expectations};
use litmus::run::{run, RunOptions};
use models::ptx::Model;
use models::vocab::{FenceSem, LoadSem, RmwSem, Scope, StoreSem};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(sub)
}

fn files(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir(sub))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    v.sort();
    v
}

fn read(path: &Path) -> Test {
    let src = std::fs::read_to_string(path).unwrap();
    litmus::parse(&src).unwrap_or_else(|e| panic!("{}:{e}", path.display()))
}

fn holds(test: &Test, model: Model) -> bool {
    run(
        test,
        &RunOptions {
            model,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", test.name))
    .holds
}

/// A one-thread test of `cells` (one instruction per row).
fn one_thread(cells: &[&str]) -> Result<Test, litmus::ParseError> {
    let rows: String = cells.iter().map(|c| format!(" {c} ;\n")).collect();
    litmus::parse(&format!(
        "PTX T\n{{ x = 0; }}\n P0@cta 0,gpu 0 ;\n{rows}exists (x == 0)"
    ))
}

fn insts(cells: &[&str]) -> Vec<Inst> {
    one_thread(cells).unwrap().code[0]
        .iter()
        .map(|(i, _)| i.clone())
        .collect()
}

fn ops(cells: &[&str]) -> Vec<Op> {
    let code = insts(cells);
    let l = lower_thread(&code, &[], &mut Locations::default()).unwrap();
    l.code.instrs.into_iter().map(|i| i.op).collect()
}

#[test]
fn manual_tests_have_the_manuals_verdicts() {
    let csv = std::fs::read_to_string(dir("manual").join("expected.csv")).unwrap();
    let exp = Expectations::parse(&csv).unwrap();
    let files = files("manual");
    assert_eq!(files.len(), 11, "the chapter's litmus tests");
    assert_eq!(exp.rows.len(), files.len());
    for f in &files {
        let rel = Path::new("litmus/tests/manual").join(f.file_name().unwrap());
        let want = exp
            .get(&rel)
            .unwrap_or_else(|| panic!("{} unlisted", rel.display()));
        assert_eq!(holds(&read(f), Model::PtxV75), want, "{}", f.display());
    }
}

/// Rows `file,v6.0,v7.5,reason` of `gpu_ptx/expected.csv`.
fn gpu_ptx_expectations() -> Vec<(String, bool, bool)> {
    let csv = std::fs::read_to_string(dir("gpu_ptx").join("expected.csv")).unwrap();
    csv.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("//"))
        .map(|l| {
            let f: Vec<&str> = l.splitn(4, ',').collect();
            assert!(
                f.len() == 4 && !f[3].trim().is_empty(),
                "row `{l}` needs a reason"
            );
            (f[0].to_string(), f[1] == "1", f[2] == "1")
        })
        .collect()
}

#[test]
fn gpu_ptx_tests_have_the_hand_worked_verdicts() {
    let rows = gpu_ptx_expectations();
    let files = files("gpu_ptx");
    assert!(files.len() >= 20, "at least 20 GPU_PTX tests");
    assert_eq!(rows.len(), files.len(), "every GPU_PTX test has a verdict");
    let mut bad = Vec::new();
    for (name, v60, v75) in rows {
        let path = dir("gpu_ptx").join(&name);
        let src = std::fs::read_to_string(&path).unwrap();
        assert!(src.starts_with("GPU_PTX"), "{name} is in herd's format");
        let t = read(&path);
        for (model, want) in [(Model::PtxV60, v60), (Model::PtxV75, v75)] {
            let got = holds(&t, model);
            if got != want {
                bad.push(format!(
                    "{name} under {}: expected {want}, got {got}",
                    model.name()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// herd's text under both models, without the timing line.
fn outcomes(t: &Test) -> String {
    let mut out = String::new();
    for model in [Model::PtxV75, Model::PtxV60] {
        let r = run(
            t,
            &RunOptions {
                model,
                ..RunOptions::default()
            },
        )
        .unwrap();
        for line in herd_text(&r).lines().filter(|l| !l.starts_with("Time ")) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The test without source lines (printing cannot keep them).
fn without_lines(t: &Test) -> Test {
    let mut t = t.clone();
    for c in &mut t.code {
        for (_, line) in c.iter_mut() {
            *line = 0;
        }
    }
    t
}

#[test]
fn printed_dialect_reads_back_to_the_same_test_and_verdicts() {
    let mut all = files("manual");
    all.extend(files("gpu_ptx"));
    all.extend(files("library"));
    for f in &all {
        let t = read(f);
        let printed = litmus::print::dialect(&t);
        assert!(printed.starts_with("PTX "), "{}", f.display());
        let back =
            litmus::parse(&printed).unwrap_or_else(|e| panic!("{}: {e}\n{printed}", f.display()));
        assert_eq!(
            without_lines(&back),
            without_lines(&t),
            "{}\n{printed}",
            f.display()
        );
        assert_eq!(outcomes(&back), outcomes(&t), "{}", f.display());
        assert_eq!(litmus::print::dialect(&back), printed, "printing is stable");
    }
}

#[test]
fn gpu_ptx_translation_keeps_placement_spaces_and_addresses() {
    let t = read(&dir("gpu_ptx").join("sb-shared-global.litmus"));
    let pos: Vec<(u32, u32, Option<u32>)> =
        t.threads.iter().map(|p| (p.gpu, p.cta, p.warp)).collect();
    assert_eq!(pos, vec![(0, 0, Some(0)), (0, 0, Some(1))]);
    let cells: Vec<String> = t.code[0].iter().map(|(i, _)| i.to_string()).collect();
    assert_eq!(
        cells,
        [
            "mov.s32 r0,1",
            "st.shared.cg.s32 [x],r0",
            "ld.global.cg.s32 r2,[y]"
        ]
    );
    let t = read(&dir("gpu_ptx").join("mp+membar.syss-two-devices.litmus"));
    assert_eq!((t.threads[1].gpu, t.threads[1].cta), (1, 1));
    let t = read(&dir("gpu_ptx").join("dlb-mp+membar.gls.litmus"));
    assert!(
        t.code[1]
            .iter()
            .any(|(i, _)| i.to_string() == "@!%p4 ld.global.cg.s32 r1,[d]"),
        "predicates become %-registers and [r8] becomes [d]"
    );
    let t = read(&dir("gpu_ptx").join("cas-sl.litmus"));
    assert!(t
        .locations
        .iter()
        .any(|(n, d)| n == "m" && *d == litmus::ast::LocDecl::Value(1)));
}

#[test]
fn fence_spellings_mean_what_the_isa_says() {
    let i = insts(&[
        "fence.sys",
        "fence.gpu",
        "fence.acquire.cta",
        "fence.release.gpu",
    ]);
    let want = [
        (FenceSem::AcqRel, Scope::Sys),
        (FenceSem::AcqRel, Scope::Gpu),
        (FenceSem::Acquire, Scope::Cta),
        (FenceSem::Release, Scope::Gpu),
    ];
    for (got, (sem, scope)) in i.iter().zip(want) {
        assert_eq!(*got, Inst::Fence { sem, scope });
    }
    let o = ops(&["fence.sys", "fence.acquire.cta", "fence.release.gpu"]);
    assert!(matches!(
        o[..],
        [
            Op::Fence(Fence::Memory {
                sem: Some(FenceSem::AcqRel),
                scope: Scope::Sys
            }),
            Op::Fence(Fence::Memory {
                sem: Some(FenceSem::Acquire),
                scope: Scope::Cta
            }),
            Op::Fence(Fence::Memory {
                sem: Some(FenceSem::Release),
                scope: Scope::Gpu
            })
        ]
    ));
}

#[test]
fn untyped_volatile_is_relaxed_at_system_scope() {
    let i = insts(&[
        "ld.volatile r0, x",
        "st.volatile [x], 2",
        "ld.volatile r1, [x]",
    ]);
    assert!(matches!(&i[0], Inst::Load { mo: Mo::Volatile, scope: None, loc, .. } if loc == "x"));
    assert!(matches!(
        &i[1],
        Inst::Store { mo: Mo::Volatile, scope: None, loc, val: Val::Const(2), .. } if loc == "x"
    ));
    assert!(matches!(
        &i[2],
        Inst::Load {
            mo: Mo::Volatile,
            ..
        }
    ));
    let o = ops(&["ld.volatile r0, x", "st.volatile [x], 2"]);
    let (Op::Ld(ld), Op::St(st)) = (&o[0], &o[1]) else {
        panic!("{o:?}")
    };
    assert_eq!(ld.sem(), Some(LoadSem::Volatile));
    assert_eq!(st.sem(), Some(StoreSem::Volatile));
    let sem = LoadSem::effective(ld.sem());
    assert!(sem.is_strong());
    assert_eq!(sem.scope(), Some(Scope::Sys));
}

#[test]
fn inc_and_dec_take_a_bound_that_defaults_to_the_largest_u32() {
    let i = insts(&[
        "atom.relaxed.gpu.inc r0, x, 5",
        "atom.sys.inc r1, x",
        "red.acq_rel.cta.dec x",
        "atom.dec r2, [x], 3",
    ]);
    let op_val = |k: usize| match &i[k] {
        Inst::Rmw {
            mo, scope, op, val, ..
        } => (*mo, *scope, *op, val.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        op_val(0),
        (Mo::Relaxed, Scope::Gpu, RmwOp::Inc, Val::Const(5))
    );
    assert_eq!(
        op_val(1),
        (
            Mo::Relaxed,
            Scope::Sys,
            RmwOp::Inc,
            Val::Const(4_294_967_295)
        )
    );
    assert_eq!(
        op_val(2),
        (
            Mo::AcqRel,
            Scope::Cta,
            RmwOp::Dec,
            Val::Const(4_294_967_295)
        )
    );
    assert_eq!(
        op_val(3),
        (Mo::Relaxed, Scope::Gpu, RmwOp::Dec, Val::Const(3))
    );
    let manual = insts(&["atom.sys.inc.u32 %r0, [x]"]);
    assert_eq!(
        manual,
        [Inst::Ptx("atom.sys.inc.u32 %r0, [x], 4294967295".into())]
    );
    let o = ops(&["atom.sys.inc.u32 %r0, [x]", "atom.acquire.gpu.dec r1, x, 7"]);
    let (Op::Atom(a), Op::Atom(b)) = (&o[0], &o[1]) else {
        panic!("{o:?}")
    };
    assert_eq!(
        (a.op, a.sem, a.scope),
        (AtomOp::Inc, None, Some(Scope::Sys))
    );
    assert_eq!(
        (b.op, b.sem, b.scope),
        (AtomOp::Dec, Some(RmwSem::Acquire), Some(Scope::Gpu))
    );
}

#[test]
fn inc_and_dec_compute_what_the_isa_says() {
    // inc wraps to 0 at its bound; dec from 0 goes to the bound (PTX ISA `atom`).
    let src = "PTX Inc\n{ x = 2; y = 0; z = 9; }\n P0@cta 0,gpu 0 ;\n atom.relaxed.gpu.inc r0, x, 2 ;\n atom.relaxed.gpu.dec r1, y, 6 ;\n atom.relaxed.gpu.dec r2, z, 4 ;\n atom.sys.inc r3, y ;\nforall (x == 0 /\\ y == 7 /\\ z == 4 /\\ P0:r1 == 0 /\\ P0:r3 == 6)";
    let t = litmus::parse(src).unwrap();
    assert!(holds(&t, Model::PtxV75));
}

#[test]
fn plain_bar_sync_is_a_cta_barrier() {
    let i = insts(&[
        "bar.sync 0",
        "bar.sync.aligned 1",
        "bar.arrive 2",
        "bar.cta.sync 3",
    ]);
    let bar = |k: usize| match &i[k] {
        Inst::Barrier {
            arrive,
            instance,
            id: None,
            quorum: None,
        } => (*arrive, instance.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(bar(0), (false, Val::Const(0)));
    assert_eq!(bar(1), (false, Val::Const(1)));
    assert_eq!(bar(2), (true, Val::Const(2)));
    assert_eq!(bar(3), (false, Val::Const(3)));
    let o = ops(&["bar.sync 0"]);
    assert!(matches!(&o[0], Op::Bar(b) if b.kind == BarKind::Sync));
    // A barrier between the two threads of one CTA orders the store before the load.
    let sb = "PTX SB+bar\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak y, 1 ;\n bar.sync 0 | bar.sync 0 ;\n ld.weak r0, y | ld.weak r1, x ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)";
    assert!(!holds(&litmus::parse(sb).unwrap(), Model::PtxV75));
}

/// The message of a parse error and its line.
fn parse_err(src: &str) -> (u32, u32, String) {
    let e = litmus::parse(src).unwrap_err();
    (e.line, e.col, e.message)
}

#[test]
fn unknown_spellings_are_located_errors() {
    for (cell, needle) in [
        ("fence.bogus.gpu", "unknown fence `fence.bogus.gpu`"),
        ("fence.acquire", "`fence.acquire` needs a scope"),
        ("fence.proxy.bogus", "unknown proxy `bogus`"),
        ("bar.red 0", "unknown barrier `bar.red`"),
        ("bar.sync 0, 64", "thread count"),
        ("ld.volatile.gpu r0, x", "loads are .weak, .volatile"),
        ("st.acquire.gpu x, 1", "stores are .weak, .volatile"),
        ("atom.weak.gpu.add r0, x, 1", "unknown order `.weak`"),
        ("atom.sys.min r0, x, 1", "operation `.min` is not supported"),
        ("atom.sys.bogus.add r0, x, 1", "unknown qualifier `.bogus`"),
        (
            "ld.volatile r0, [x+4]",
            "an address in the dialect is a location name",
        ),
    ] {
        let src = format!(
            "PTX E\n{{ x = 0; }}\n P0@cta 0,gpu 0 ;\n ld.weak r9, x ;\n  {cell} ;\nexists (x == 0)"
        );
        let (line, col, msg) = parse_err(&src);
        assert_eq!((line, col), (5, 3), "{cell}: {msg}");
        assert!(msg.contains(needle), "{cell}: {msg}");
    }
    // A real-PTX cell the PTX front end rejects is reported with its line when it is lowered.
    let t = one_thread(&["ld.weak r0, x", "ld.bogus.u32 %r1, [x]"]).unwrap();
    let e = run(&t, &RunOptions::default()).unwrap_err().to_string();
    assert!(e.contains("line 5") && e.contains("ld.bogus.u32"), "{e}");
}

#[test]
fn bad_gpu_ptx_files_are_located_errors() {
    let good = std::fs::read_to_string(dir("gpu_ptx").join("herd-mp.litmus")).unwrap();
    let cases = [
        (
            "(device (kernel (cta (warp P0)) (cta (warp P1))))",
            "(device (team P0 P1))",
            "unknown level `team`",
        ),
        (
            "(device (kernel (cta (warp P0)) (cta (warp P1))))",
            "(device (cta P0))",
            "does not place P1",
        ),
        (
            "y: global, x: global",
            "y: global, x: texture",
            "`texture`: a memory map",
        ),
        (
            "y: global, x: global",
            "y: global",
            "`x` is not in the memory map",
        ),
        (
            "1:.reg .b64 r3 = x;",
            "",
            "register r3 of P1 holds no address",
        ),
        (
            "mov.s32 r2,1      |",
            "mov.s32 r2,r1     |",
            "holds an address and is used as a value",
        ),
        (
            "y: global, x: global",
            "y: global, x: shared",
            "each CTA has its own shared memory",
        ),
    ];
    for (from, to, needle) in cases {
        assert!(good.contains(from), "{from}");
        let src = good.replacen(from, to, 1);
        let e = litmus::parse(&src).unwrap_err();
        assert!(e.message.contains(needle), "{to}: {e}");
        assert!(e.line > 1, "{to}: {e}");
    }
    // herd's own testsuite MP.litmus stores to global `y` with st.shared.
    let bad = std::fs::read_to_string(dir("gpu_ptx_bad").join("herd-testsuite-MP.txt")).unwrap();
    let (line, _, msg) = parse_err(&bad);
    assert_eq!(line, 19);
    assert!(
        msg.contains(
            "`st.shared.s32` accesses `y` as .shared, but the memory map puts it in global"
        ),
        "{msg}"
    );
}

#[test]
fn the_harness_accepts_the_new_spellings() {
    let o = HarnessOptions::default();
    let mp = read(&dir("manual").join("MP.litmus"));
    let h = generate(&mp, "MP.litmus", &o).unwrap();
    assert!(
        h.source.contains("fence.acq_rel.sys"),
        "fence.sys as the PTX it means"
    );
    let red = read(&dir("manual").join("MP+red.litmus"));
    let h = generate(&red, "MP+red.litmus", &o).unwrap();
    assert!(h.source.contains("fence.acquire.gpu"));
    let inc = read(&dir("manual").join("Atomicity-1.litmus"));
    let h = generate(&inc, "Atomicity-1.litmus", &o).unwrap();
    assert!(h.source.contains("atom.sys.inc.u32"));
    let t = one_thread(&[
        "ld.volatile r0, x",
        "st.volatile [x], 2",
        "bar.sync 0",
        "atom.gpu.inc r1, x",
    ])
    .unwrap();
    let h = generate(&t, "T.litmus", &o).unwrap();
    for s in [
        "ld.volatile.b64",
        "st.volatile.b64",
        "bar.cta.sync 0",
        "atom.relaxed.gpu.inc.u32",
    ] {
        assert!(h.source.contains(s), "{s}");
    }
    let herd = read(&dir("gpu_ptx").join("herd-mp+membar.gls.litmus"));
    let h = generate(&herd, "herd-mp+membar.gls.litmus", &o).unwrap();
    assert!(h.source.contains("membar.gl") && h.source.contains("ld.global.cg.s32"));
    let warp = read(&dir("gpu_ptx").join("mp+membar.ctas-same-warp.litmus"));
    assert_eq!(
        generate(&warp, "w.litmus", &o).unwrap_err(),
        HarnessError::SameWarp(0, 1)
    );
}

#[test]
fn gpu_ptx_sections_come_in_any_order() {
    // herd's logs print the condition first, the tree without its keyword, and `;` in the map.
    let src = "GPU_PTX CoRR\n{\n0:.reg .s32 r0;\n0:.reg .b64 r1 = x;\n1:.reg .s32 r0;\n1:.reg .s32 r2;\n1:.reg .b64 r1 = x;\n}\n P0                | P1                ;\n mov.s32 r0,1      | ld.cg.s32 r0,[r1] ;\n st.cg.s32 [r1],r0 | ld.cg.s32 r2,[r1] ;\nexists\n(x=1 /\\ 1:r0=1 /\\ 1:r2=0)\n(device (kernel (cta (warp P0) (warp P1))))\nx:global; \n";
    let t = litmus::parse(src).unwrap();
    assert_eq!(
        t.condition.to_string(),
        "((x == 1 /\\ P1:r0 == 1) /\\ P1:r2 == 0)"
    );
    assert_eq!((t.threads[1].cta, t.threads[1].warp), (0, Some(1)));
    assert!(holds(&t, Model::PtxV75), "weak coRR in one CTA is allowed");
}
