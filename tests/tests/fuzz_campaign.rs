//! A stable-Rust driver for the fuzz targets (`fuzz/fuzz_targets/bodies.rs`): no nightly
//! toolchain or cargo-fuzz needed. It mutates seeds taken from the repository (fixture
//! kernels, SASS listings, litmus tests, hardware logs, shapes' three-byte inputs) and runs
//! every target's body on each, catching panics and watching for hangs.
//!
//! `smoke` runs a few hundred inputs per target in CI. The nightly-sized campaign is ignored:
//!
//! ```sh
//! PTXEMU_FUZZ_SECONDS=300 cargo test --release -p ptxemu-tests --test fuzz_campaign \
//!     -- --ignored --nocapture
//! ```
//!
//! (`PTXEMU_FUZZ_TARGETS=parse,run` picks targets, `PTXEMU_FUZZ_SEED` the random seed.) A
//! panicking input is written to `target/fuzz-findings/TARGET-N.bin`; the input being run is
//! kept in `target/fuzz-findings/TARGET-current.bin`, so one that aborts the process (a stack
//! overflow) or hangs (over 60 s; the watchdog then exits) is there to replay.

#[path = "../../fuzz/fuzz_targets/bodies.rs"]
mod bodies;

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Body = fn(&[u8]);

const TARGETS: [(&str, Body); 8] = [
    ("parse", bodies::parse),
    ("run", bodies::run),
    ("sass", bodies::sass),
    ("litmus", bodies::litmus),
    ("log", bodies::log),
    ("shapes", bodies::shapes),
    ("plan", bodies::plan),
    ("race_report", bodies::race_report),
];

/// Launch plans over `bodies::PLAN_MODULE` (its kernel `k`, variables `g` and `c`, the input
/// `in.bin` of 16 bytes beside the plan): every step kind, named and inline buffers.
const PLAN_SEEDS: &[&str] = &[
    r#"{"version": 1, "module": "k.ptx", "buffers": {"b": "u32[4]:zero", "f": "u8[1]:[1]"},
  "steps": [
    {"set": "g=u32[4]:[1,2,3,4]"},
    {"launch": {"kernel": "k", "grid": 1, "block": "4", "args": ["@b"]}},
    {"repeat": {"times": 3, "steps": [
      {"launch": {"kernel": "k", "grid": "1", "block": 4, "args": ["@b"], "shared_bytes": 0}}]}},
    {"repeat": {"while_nonzero": "f", "max": 4, "steps": [{"write": "f=u8[1]:[0]"}]}},
    {"dump": "b=out.bin"},
    {"dump_var": "g=g.bin"}]}"#,
    r#"{"version": 1, "module": "k.ptx", "buffers": {"in": "u32[4]:file=in.bin"},
  "steps": [{"launch": {"kernel": "k", "grid": "2,1,1", "block": "4,1,1", "args": ["@in+0"]}},
            {"launch": {"kernel": "k", "grid": 1, "block": 4, "args": ["u32[8]:fill=7"]}}]}"#,
    r#"{"version": 1, "steps": []}"#,
];

/// Tokens spliced into launch plans: keys, step kinds, paths that try to leave, huge counts.
const PLAN_DICT: &[&str] = &[
    r#""dump": "b=../x.bin""#,
    r#""dump_var": "g=/tmp/x.bin""#,
    r#""module": "../k.ptx""#,
    r#"{"repeat": {"times": 18446744073709551615, "steps": []}}"#,
    r#"{"set": "c=u32:5"}"#,
    r#""u8[17179869184]:zero""#,
    r#""file=/dev/zero""#,
    r#""tmap:driver,file=/dev/zero,buf=0""#,
    r#""cluster": "2""#,
    r#""steps": []"#,
    "\"@b+4\"",
    "\"\\u001b[2J\"",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
];

/// Tokens spliced into inputs: PTX and SASS syntax, litmus syntax, and numbers at the edges.
const DICT: &[&str] = &[
    ".reg .b32 %r<4>;",
    ".local .b8 l[16];",
    ".shared .u32 s[4];",
    ".global .u32 g[4294967295];",
    "call f, (%r1);",
    "bra L;",
    "L:",
    "ret;",
    "exit;",
    "bar.sync 0;",
    "ld.global.u32 %r1, [%rd1];",
    "st.global.u32 [%rd1], %r1;",
    "atom.global.add.u32 %r1, [%rd1], 1;",
    "@%p1 ",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    "::",
    ".func",
    ".entry",
    ".param .u64 p",
    "%tid.x",
    "%r1",
    "%rd1",
    "0",
    "-1",
    "0x7fffffff",
    "0xffffffffffffffff",
    "4294967296",
    "1e99999",
    "nan",
    "18446744073709551615",
    "/\\",
    "\\/",
    "~",
    "exists",
    "forall",
    "P0@cta 0,gpu 0",
    "|",
    "x=0;",
    "1:r1=0;",
    "st.relaxed.gpu x, 1",
    "ld.acquire.gpu r0, x",
    "fence.sc.gpu",
    "Histogram",
    "Observation",
    "Positive:",
    "Negative:",
    "LDG.E R0, [R2.64] ;",
    "STG.E [R2.64], R0 ;",
    "BRA 0x0 ;",
    "EXIT ;",
    "c[0x0][0x140]",
    "R255",
    "\u{0}",
    "\u{1b}",
    "é",
    "\n",
    "\t",
];

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

/// The seeds of a target, read from the repository (at most 256 KiB each).
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = Vec::new();
    let flagged = |paths: &[PathBuf]| -> Vec<Vec<u8>> {
        paths
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .map(|b| [vec![0u8], b].concat())
            .collect()
    };
    let seeds: Vec<Vec<u8>> = match target {
        "parse" | "run" => {
            files_under(&root.join("tests/fixtures"), "ptx", &mut paths);
            files_under(&root.join("emu/tests"), "ptx", &mut paths);
            paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
        }
        "sass" => {
            files_under(&root.join("tests/fixtures/sass"), "sass", &mut paths);
            flagged(&paths)
        }
        "litmus" => {
            files_under(&root.join("litmus/tests/library"), "litmus", &mut paths);
            flagged(&paths)
        }
        "plan" => return PLAN_SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect(),
        "race_report" => {
            files_under(
                &root.join("tools/tests/data/race_reports"),
                "json",
                &mut paths,
            );
            paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
        }
        "log" => {
            files_under(
                &root.join("litmus/hardware/nvidia-h100/library"),
                "log",
                &mut paths,
            );
            files_under(
                &root.join("litmus/hardware/nvidia-h100/library"),
                "json",
                &mut paths,
            );
            paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
        }
        _ => (0..9u8).map(|k| vec![k, 0, 16]).collect(),
    };
    let mut seeds: Vec<Vec<u8>> = seeds.into_iter().filter(|s| s.len() <= 256 << 10).collect();
    if seeds.is_empty() {
        seeds.push(b"\0".to_vec());
    }
    seeds
}

/// One mutation of `input` (its first byte, a target's flags, is mutated like the rest).
fn mutate_once(rng: &mut Rng, input: &mut Vec<u8>, pool: &[Vec<u8>], dict: &[&str]) {
    let len = input.len();
    match rng.below(9) {
        0 if len > 0 => {
            let i = rng.below(len);
            input[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            input[i] = rng.next() as u8;
        }
        2 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(64)).min(len);
            input.drain(a..b);
        }
        3 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(256)).min(len);
            let chunk = input[a..b].to_vec();
            let at = rng.below(len + 1);
            let most = if rng.below(8) == 0 { 200 } else { 3 };
            let times = 1 + rng.below(most);
            for _ in 0..times {
                input.splice(at..at, chunk.iter().copied());
            }
        }
        4 => {
            let other = &pool[rng.below(pool.len())];
            if !other.is_empty() {
                let a = rng.below(other.len());
                let b = (a + 1 + rng.below(512)).min(other.len());
                let at = rng.below(len + 1);
                input.splice(at..at, other[a..b].iter().copied());
            }
        }
        5 if len > 0 => {
            input.truncate(rng.below(len));
        }
        6 if len > 0 => {
            // Replace a run of digits by a number at an edge.
            let i = rng.below(len);
            if let Some(s) = (i..len).find(|&k| input[k].is_ascii_digit()) {
                let e = (s..len)
                    .find(|&k| !input[k].is_ascii_digit())
                    .unwrap_or(len);
                let edge = [
                    "0",
                    "1",
                    "255",
                    "4294967295",
                    "4294967296",
                    "2147483648",
                    "65536",
                    "18446744073709551615",
                    "99999999999999999999",
                    "1024",
                ];
                input.splice(s..e, edge[rng.below(edge.len())].bytes());
            }
        }
        _ => {
            let tok = dict[rng.below(dict.len())];
            let at = rng.below(len + 1);
            input.splice(at..at, tok.bytes());
        }
    }
}

fn mutated(rng: &mut Rng, pool: &[Vec<u8>], dict: &[&str]) -> Vec<u8> {
    let mut input = pool[rng.below(pool.len())].clone();
    let n = 1 + rng.below(8);
    for _ in 0..n {
        mutate_once(rng, &mut input, pool, dict);
    }
    input.truncate(1 << 20);
    input
}

/// What a campaign over one target found.
#[derive(Debug, Default)]
struct Outcome {
    runs: u64,
    /// (panic message and place, input file) for each distinct panic.
    panics: Vec<(String, PathBuf)>,
    elapsed: Duration,
}

fn findings_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-findings");
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Runs `body` on mutated inputs for `budget` (or `max_runs` inputs, whichever comes first).
fn campaign(name: &str, body: Body, budget: Duration, max_runs: u64, seed: u64) -> Outcome {
    let dir = findings_dir();
    let current = dir.join(format!("{name}-current.bin"));
    let pool = seeds(name);
    let mut rng = Rng(seed | 1);
    let mut out = Outcome::default();
    let last_msg: Arc<Mutex<String>> = Arc::default();
    let hook_msg = last_msg.clone();
    let start = Instant::now();
    let started = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let watchdog = {
        let (started, done, name, current) = (
            started.clone(),
            done.clone(),
            name.to_string(),
            current.clone(),
        );
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_secs(1));
            let s = started.load(Ordering::SeqCst);
            if s == u64::MAX {
                return;
            }
            if s != 0 && done.load(Ordering::SeqCst) < s {
                let since = Duration::from_millis(s & 0xffff_ffff_ffff);
                if start.elapsed().saturating_sub(since) > Duration::from_secs(60) {
                    eprintln!(
                        "fuzz {name}: an input ran over 60 s; it is in {}",
                        current.display()
                    );
                    std::process::exit(101);
                }
            }
        })
    };
    panic::set_hook(Box::new(move |info| {
        *hook_msg.lock().unwrap() = info.to_string();
    }));
    while start.elapsed() < budget && out.runs < max_runs {
        let input = if out.runs < pool.len() as u64 {
            pool[out.runs as usize].clone()
        } else {
            mutated(
                &mut rng,
                &pool,
                if name == "plan" { PLAN_DICT } else { DICT },
            )
        };
        let _ = std::fs::write(&current, &input);
        let t = (start.elapsed().as_millis() as u64).max(1);
        started.store(t, Ordering::SeqCst);
        let r = panic::catch_unwind(AssertUnwindSafe(|| body(&input)));
        done.store(t, Ordering::SeqCst);
        out.runs += 1;
        if r.is_err() {
            let msg = last_msg.lock().unwrap().clone();
            let place = msg.lines().next().unwrap_or("").to_string();
            if !out.panics.iter().any(|(m, _)| *m == place) {
                let file = dir.join(format!("{name}-{}.bin", out.panics.len()));
                let _ = std::fs::write(&file, &input);
                eprintln!("fuzz {name}: panic `{msg}`; input in {}", file.display());
                out.panics.push((place, file));
            }
        }
    }
    out.elapsed = start.elapsed();
    started.store(u64::MAX, Ordering::SeqCst);
    let _ = panic::take_hook();
    let _ = watchdog.join();
    out
}

fn line(name: &str, o: &Outcome) -> String {
    format!(
        "{name:>7}: {:>8} inputs in {:>6.1} s ({:>7.0}/s), {} distinct panic(s)\n",
        o.runs,
        o.elapsed.as_secs_f64(),
        o.runs as f64 / o.elapsed.as_secs_f64().max(1e-9),
        o.panics.len()
    )
}

fn report(results: &[(&str, Outcome)]) -> String {
    results.iter().map(|(n, o)| line(n, o)).collect()
}

fn assert_clean(results: &[(&str, Outcome)]) {
    let found: Vec<String> = results
        .iter()
        .flat_map(|(n, o)| {
            o.panics
                .iter()
                .map(move |(m, f)| format!("{n}: {m} ({})", f.display()))
        })
        .collect();
    assert!(found.is_empty(), "panics found:\n{}", found.join("\n"));
}

/// A few hundred inputs per target: the driver works, and the seeds and their first
/// mutations raise no panic.
#[test]
fn smoke() {
    let mut results = Vec::new();
    for (name, body) in TARGETS {
        let max = match name {
            "run" => 60,
            "shapes" => 30,
            // Each input is a run of the command line (a few milliseconds).
            "plan" => 150,
            _ => 200,
        };
        results.push((
            name,
            campaign(name, body, Duration::from_secs(60), max, 0x5eed),
        ));
    }
    eprint!("{}", report(&results));
    assert_clean(&results);
}

/// The nightly-sized campaign: `PTXEMU_FUZZ_SECONDS` (default 300) per target.
#[test]
#[ignore = "nightly-sized: run with --ignored (PTXEMU_FUZZ_SECONDS per target)"]
fn nightly_campaign() {
    let secs: u64 = std::env::var("PTXEMU_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let seed: u64 = std::env::var("PTXEMU_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    let wanted = std::env::var("PTXEMU_FUZZ_TARGETS").unwrap_or_default();
    eprintln!("fuzz seed {seed}, {secs} s per target");
    let mut results = Vec::new();
    for (name, body) in TARGETS {
        if !wanted.is_empty() && !wanted.split(',').any(|w| w == name) {
            continue;
        }
        let o = campaign(name, body, Duration::from_secs(secs), u64::MAX, seed);
        eprint!("{}", line(name, &o));
        results.push((name, o));
    }
    eprint!("{}", report(&results));
    assert_clean(&results);
}
