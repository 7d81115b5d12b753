//! Generated harnesses through NVIDIA's compiler: every library test and a spread of corpus
//! tests compile with nvcc, and `cuobjdump -ptx` of the object shows each test instruction
//! exactly as the harness wrote it, in order, inside one inline-asm block (all 621 generated
//! library and corpus harnesses passed this check when it was written; CI compiles a spread).
//!
//! Needs nvcc and cuobjdump (env `NVCC` / `CUOBJDUMP`, or on PATH; the PyPI packages
//! `nvidia-cuda-nvcc` and `nvidia-cuda-cuobjdump` provide both), so the compiling test is
//! `#[ignore]`d: a plain `cargo test` lists it as ignored, and `-- --include-ignored` (as CI runs
//! it) runs it and fails when the tools are missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use litmus::harness::{generate, HarnessOptions};

/// A CUDA tool from env `var` or PATH; panics when it does not run.
fn cuda_tool(var: &str, name: &str) -> PathBuf {
    let p = std::env::var_os(var).map_or_else(|| PathBuf::from(name), PathBuf::from);
    let runs = Command::new(&p)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(runs, "this test needs {name}: set {var} or put it on PATH");
    p
}

/// The test instructions of each role of a generated source, in order: the string literals the
/// harness marks `// line N`, with C escapes undone.
fn roles_in_source(cu: &str) -> Vec<Vec<String>> {
    let mut roles = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in cu.lines() {
        let t = line.trim();
        if t.starts_with("asm volatile(") {
            current = Some(Vec::new());
        } else if t.starts_with(": ") || t == ":" {
            if let Some(r) = current.take() {
                if !r.is_empty() {
                    roles.push(r);
                }
            }
        } else if let (Some(r), Some((lit, _))) = (current.as_mut(), t.split_once(" // line ")) {
            let body = lit
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix("\\n\\t\""))
                .unwrap_or_else(|| panic!("unexpected asm line `{t}`"));
            r.push(
                body.replace("%%", "%")
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\"),
            );
        }
    }
    roles
}

/// The inline-asm blocks of a PTX listing, each as its trimmed non-empty lines: the brace
/// blocks directly inside a function body. (The PTX that nvcc embeds has its comments, and so
/// its `// begin inline asm` markers, stripped; every harness block opens with `{`.)
fn asm_blocks(ptx: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    let mut depth = 0usize;
    for line in ptx.lines().map(str::trim) {
        match line {
            "{" => {
                depth += 1;
                if depth == 2 {
                    current = Some(Vec::new());
                }
            }
            "}" => {
                if depth == 2 {
                    blocks.extend(current.take());
                }
                depth = depth.saturating_sub(1);
            }
            "" => {}
            l => {
                if let Some(b) = current.as_mut() {
                    b.push(l);
                }
            }
        }
    }
    blocks
}

/// Whether `wanted` occurs in `block` in order (other lines may sit between).
fn in_order(block: &[&str], wanted: &[String]) -> bool {
    let mut it = block.iter();
    wanted.iter().all(|w| it.any(|l| l == w))
}

/// What is wrong with one harness once compiled, if anything.
fn check_one(nvcc: &Path, cuobjdump: &Path, dir: &Path, stem: &str, cu: &str) -> Option<String> {
    let src = dir.join(format!("{stem}.cu"));
    let obj = dir.join(format!("{stem}.o"));
    std::fs::write(&src, cu).unwrap();
    let built = Command::new(nvcc)
        .args(["-O3", "-arch=sm_90", "-c", "-o"])
        .arg(&obj)
        .arg(&src)
        .output()
        .unwrap();
    if !built.status.success() {
        return Some(format!(
            "{stem}: nvcc failed: {}",
            String::from_utf8_lossy(&built.stderr)
        ));
    }
    let dump = Command::new(cuobjdump)
        .arg("-ptx")
        .arg(&obj)
        .output()
        .unwrap();
    let ptx = String::from_utf8_lossy(&dump.stdout);
    let blocks = asm_blocks(&ptx);
    let roles = roles_in_source(cu);
    if roles.is_empty() {
        return Some(format!("{stem}: no test instructions found in the source"));
    }
    for role in &roles {
        if !blocks.iter().any(|b| in_order(b, role)) {
            return Some(format!(
                "{stem}: no inline-asm block of `cuobjdump -ptx` holds, in order:\n  {}",
                role.join("\n  ")
            ));
        }
    }
    None
}

#[test]
#[ignore = "needs nvcc and cuobjdump (NVCC, CUOBJDUMP); CI runs it with --include-ignored"]
fn compiled_harnesses_keep_every_test_instruction_as_written() {
    let nvcc = cuda_tool("NVCC", "nvcc");
    let cuobjdump = cuda_tool("CUOBJDUMP", "cuobjdump");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = litmus::litmus_files(&root.join("tests/library")).unwrap();
    // The PTX manual's tests and the GPU_PTX tests (their spellings reach the harness too).
    for extra in ["tests/manual", "tests/gpu_ptx"] {
        files.extend(litmus::litmus_files(&root.join(extra)).unwrap());
    }
    // Every 20th corpus file: each folder of the corpus is represented.
    let all = litmus::litmus_files(&root.join("corpus/dat3m-ptx/litmus")).unwrap();
    files.extend(all.into_iter().step_by(20));
    let mut work = Vec::new();
    for f in &files {
        let t = litmus::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        // Refusals are covered by harness.rs.
        if let Ok(h) = generate(&t, "x.litmus", &HarnessOptions::default()) {
            let stem: String = format!("{}-{}", work.len(), h.name)
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '+' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            work.push((stem, h.source));
        }
    }
    assert!(work.len() >= 50, "only {} harnesses generated", work.len());
    let dir = std::env::temp_dir().join(format!("ptxemu-harness-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let queue = Mutex::new(work.iter());
    let problems = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some((stem, cu)) = queue.lock().unwrap().next() else {
                    break;
                };
                if let Some(p) = check_one(&nvcc, &cuobjdump, &dir, stem, cu) {
                    problems.lock().unwrap().push(p);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let problems = problems.into_inner().unwrap();
    assert!(
        problems.is_empty(),
        "{} of {} harnesses:\n{}",
        problems.len(),
        work.len(),
        problems.join("\n")
    );
}

/// Compiles `work` (stem, source) with nvcc in parallel and checks each with [`check_one`].
fn check_all(work: &[(String, String)], tag: &str) {
    let nvcc = cuda_tool("NVCC", "nvcc");
    let cuobjdump = cuda_tool("CUOBJDUMP", "cuobjdump");
    let dir = std::env::temp_dir().join(format!("ptxemu-harness-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let queue = Mutex::new(work.iter());
    let problems = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some((stem, cu)) = queue.lock().unwrap().next() else {
                    break;
                };
                if let Some(p) = check_one(&nvcc, &cuobjdump, &dir, stem, cu) {
                    problems.lock().unwrap().push(p);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let problems = problems.into_inner().unwrap();
    assert!(
        problems.is_empty(),
        "{} of {} harnesses:\n{}",
        problems.len(),
        work.len(),
        problems.join("\n")
    );
}

/// Generated tests (`ptxemu diy`) of every kind of edge the harness can run — fences of each
/// semantics, data and control dependencies, atoms, internal communication, volatile and
/// release/acquire accesses, threads in one CTA or in two — compile, and keep their
/// instructions as written.
#[test]
#[ignore = "needs nvcc and cuobjdump (NVCC, CUOBJDUMP); CI runs it with --include-ignored"]
fn generated_diy_tests_compile_with_every_instruction_as_written() {
    use litmus::diy::enumerate::{enumerate, Choices};
    use litmus::diy::pattern::SemKind;
    use models::vocab::Scope;
    let alphabet: Vec<_> = litmus::diy::syntax::parse_patterns(
        "Rfe Fre Coe Rfi Fri PodWW PodWR PodRW PodRR DpDatadW DpCtrldR DpCtrldW \
         Fence.scdWR Fence.acq_reldWW Fence.acquiredRR Fence.releasedWW Rmw",
    )
    .unwrap()
    .into_iter()
    .map(|w| w.edge)
    .collect();
    let choices = Choices {
        sems: vec![
            SemKind::Weak,
            SemKind::Volatile,
            SemKind::Relaxed,
            SemKind::Acquire,
            SemKind::Release,
        ],
        scopes: vec![Scope::Cta, Scope::Gpu, Scope::Sys],
        placements: vec![Scope::Cta, Scope::Gpu],
    };
    let e = enumerate(&alphabet, 5, 3, &choices, false, true, 1_000_000).unwrap();
    // About 30 programs, spread over the whole enumeration (each takes nvcc seconds; 60 all
    // passed when this was written).
    let step = (e.cycles.len() / 30).max(1);
    let mut work = Vec::new();
    for (k, c) in e.cycles.iter().enumerate().step_by(step) {
        let g = litmus::diy::generate(c);
        let h = generate(&g.test, "x.litmus", &HarnessOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", g.name));
        work.push((format!("diy{k}"), h.source));
    }
    assert!(work.len() >= 25, "{}", work.len());
    check_all(&work, "diy");
}

#[test]
fn the_checker_notices_a_dropped_or_reordered_instruction() {
    let cu = "asm volatile(\n\"{\\n\\t\"\n\"ld.global.u32 %%r0, [y];\\n\\t\" // line 7\n\
              \"ld.global.u32 %%r1, [x];\\n\\t\" // line 8\n: \"=r\"(a)\n";
    let roles = roles_in_source(cu);
    assert_eq!(
        roles,
        vec![vec![
            "ld.global.u32 %r0, [y];".to_string(),
            "ld.global.u32 %r1, [x];".to_string()
        ]]
    );
    let ptx = ".entry k(\n)\n{\nmov.u32 %r1, 0;\n{\n.reg .b64 x;\nmov.b64 x, %rd1;\n\
               ld.global.u32 %r0, [y];\nld.global.u32 %r1, [x];\n}\nret;\n}\n";
    let blocks = asm_blocks(ptx);
    assert_eq!(blocks.len(), 1, "only the nested block is an asm block");
    assert!(in_order(&blocks[0], &roles[0]));
    let swapped = ptx.replace(
        "ld.global.u32 %r0, [y];\nld.global.u32 %r1, [x];",
        "ld.global.u32 %r1, [x];\nld.global.u32 %r0, [y];",
    );
    assert_ne!(swapped, ptx);
    assert!(!in_order(&asm_blocks(&swapped)[0], &roles[0]));
    let dropped = ptx.replace("ld.global.u32 %r1, [x];\n", "");
    assert_ne!(dropped, ptx);
    assert!(!in_order(&asm_blocks(&dropped)[0], &roles[0]));
    let outside = ptx.replace(
        "ld.global.u32 %r1, [x];\n}\n",
        "}\nld.global.u32 %r1, [x];\n",
    );
    assert_ne!(outside, ptx);
    assert!(
        !in_order(&asm_blocks(&outside)[0], &roles[0]),
        "an instruction outside the block does not count"
    );
}
