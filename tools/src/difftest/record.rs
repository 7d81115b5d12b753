//! Recording a GPU's results for later replay (`ptxemu difftest --record FILE`) and replaying
//! them against ptxemu (`ptxemu difftest --replay FILE`).
//!
//! A record is JSON lines. The first line describes the run:
//! `{"ptxemu_difftest_record":1,"family":"mma","arch":"sm_90a","seed":7,"per_module":250,
//! "inputs":"uniform","threads":32,"frame_bytes":128}`. Every further line is one kernel the GPU
//! ran: `{"i":I,"seed":S,"what":"mma.m16n8k16.row.col.f32.f16.f16.f32","words":[0,1,2,3],
//! "gpu":"…"}`, where `gpu` holds, thread after thread, each listed output word as eight hex
//! digits (the word's value, most significant digit first). Kernel `i` is
//! `Case::generate(family, arch, seed)` with `seed = kernel_seed(run seed, i)`, and its input
//! frames are those of module `i / per_module` ([`inputs`]), so the record holds no kernel text
//! and no inputs: both are regenerated. Only kernels with a floating-point result are recorded
//! (for the mma family: `mma` with float or f64 D); the others are compared bit for bit by the
//! run itself already.
//!
//! `--mma-inputs narrow` is a probe of the accumulation: the high byte of every 16-bit half of
//! the input is `s01111xx` (sign and two low bits random; the low byte stays random), so every
//! f16 and e5m2 element in such a byte lies in ±[1, 2), e4m3 in ±[1.5, 2), and bf16, tf32 and
//! f32 in ±[2^-7, 2): sums of many similar products, with cancellation, where alignment and
//! normalisation show, instead of the few dominant terms of uniformly random bits (whose
//! exponents spread over the whole masked range).

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde_json::{json, Value};

use super::case::{self, Case, Family};
use super::gen::{Rng, FRAME, THREADS};
use super::judge::{Num, Verdict};
use super::mma::Arch;

/// The record and replay options of `ptxemu difftest`.
#[derive(Args, Debug, Default)]
pub struct RecordArgs {
    /// Append every compared kernel with a floating-point result (its index, seed, form and
    /// the GPU's output words) to FILE, as JSON lines (see `--replay`).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Regenerate the kernels of a `--record` file, run them on ptxemu and compare them with
    /// the recorded GPU words, bit for bit; writes DIR/replay.json (counts per form) and
    /// DIR/replay.emu.jsonl (ptxemu's words, in the record's format); no GPU needed.
    #[arg(long, value_name = "FILE", conflicts_with = "record")]
    pub replay: Option<PathBuf>,
    /// The input frames of the mma family: uniformly random bits, or `narrow` (every element
    /// near 1 in magnitude: a probe of the accumulation).
    #[arg(long, value_enum, default_value_t = Inputs::Uniform)]
    pub mma_inputs: Inputs,
    /// The GPU whose numerics ptxemu emulates, in a run against a GPU and with `--replay`
    /// (default: the one the `.target` names, sm_80 → a100, sm_90a → h100, sm_100a → b200).
    /// The GPU, not the target, decides: sm_80 code run on an H100 gives H100 results.
    #[arg(long, value_enum)]
    pub gpu: Option<Gpu>,
}

/// A GPU whose numerics ptxemu can emulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Gpu {
    /// A100 (sm_80).
    A100,
    /// H100 (sm_90).
    H100,
    /// B200 (sm_100).
    B200,
}

impl Gpu {
    /// The SM number the emulator runs the module as.
    pub fn sm(self) -> u32 {
        match self {
            Gpu::A100 => 80,
            Gpu::H100 => 90,
            Gpu::B200 => 100,
        }
    }

    /// Its SMs (`cudaDevAttrMultiProcessorCount`: A100 SXM 108, H100 SXM 132, B200 148).
    pub fn sms(self) -> u32 {
        match self {
            Gpu::A100 => 108,
            Gpu::H100 => 132,
            Gpu::B200 => 148,
        }
    }

    /// The most shared memory one CTA may have (`cudaDevAttrMaxSharedMemoryPerBlockOptin`:
    /// 163 KiB on the A100, 227 KiB on the H100 and B200).
    pub fn max_shared_per_cta(self) -> u64 {
        match self {
            Gpu::A100 => 163 * 1024,
            Gpu::H100 | Gpu::B200 => 227 * 1024,
        }
    }
}

/// How a run draws its input frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Inputs {
    /// The family's usual inputs.
    #[default]
    Uniform,
    /// mma family: the high byte of every 16-bit half `s01111xx` (elements near 1).
    Narrow,
}

impl Inputs {
    fn name(self) -> &'static str {
        match self {
            Inputs::Uniform => "uniform",
            Inputs::Narrow => "narrow",
        }
    }
}

/// The seed of module `m`'s input frames in a run seeded `seed`.
fn input_seed(seed: u64, m: u64) -> u64 {
    super::kernel_seed(seed ^ 0xA11CE, m)
}

/// The input frames of module `m` of a run.
pub fn inputs(family: Family, kind: Inputs, seed: u64, m: u64) -> Vec<u8> {
    let mut v = case::inputs(family, input_seed(seed, m));
    if kind == Inputs::Narrow && family == Family::Mma {
        let mut g = Rng::new(input_seed(seed, m) ^ 0x0A88_0E55);
        for b in v.iter_mut().skip(1).step_by(2) {
            let sign = if g.below(2) == 0 { 0 } else { 0x80 };
            *b = sign | 0x3C | (*b & 0x03);
        }
    }
    v
}

/// The words of a kernel's output frame that hold floating-point results (both words of an
/// f64), in order; empty for a kernel without any.
fn float_words(c: &Case) -> Vec<usize> {
    let Case::Mma(k) = c else {
        return Vec::new();
    };
    let mut w = Vec::new();
    for s in &k.slots {
        match s.kind {
            Num::Exact => {}
            Num::F32 { .. } | Num::F16x2 { .. } => w.push(s.word),
            Num::F64 { .. } => w.extend([s.word, s.word + 1]),
        }
    }
    w
}

fn word(frame: &[u8], t: usize, w: usize) -> u32 {
    let at = t * FRAME + 4 * w;
    u32::from_le_bytes([frame[at], frame[at + 1], frame[at + 2], frame[at + 3]])
}

/// An open record file.
pub struct Recorder(Mutex<BufWriter<std::fs::File>>);

impl Recorder {
    /// Creates `path` with the run's description.
    pub fn create(
        path: &Path,
        family: Family,
        arch: Arch,
        seed: u64,
        per_module: u64,
        kind: Inputs,
    ) -> Result<Recorder> {
        let f = std::fs::File::create(path).with_context(|| path.display().to_string())?;
        let mut w = BufWriter::new(f);
        let head = json!({
            "ptxemu_difftest_record": 1,
            "family": family.name(),
            "arch": arch.name(),
            "seed": seed,
            "per_module": per_module,
            "inputs": kind.name(),
            "threads": THREADS,
            "frame_bytes": FRAME,
        });
        writeln!(w, "{head}")?;
        Ok(Recorder(Mutex::new(w)))
    }

    /// Records kernel `i` (seed `seed`) and the GPU's output frames `gpu`, when it has a
    /// floating-point result.
    pub fn push(&self, i: u64, seed: u64, c: &Case, gpu: &[u8]) {
        let words = float_words(c);
        if words.is_empty() || gpu.len() < FRAME * THREADS {
            return;
        }
        let mut hex = String::with_capacity(8 * words.len() * THREADS);
        for t in 0..THREADS {
            for &w in &words {
                hex.push_str(&format!("{:08x}", word(gpu, t, w)));
            }
        }
        let what = match c {
            Case::Mma(k) => k.what.as_str(),
            Case::Scalar(_) => "",
        };
        let line = json!({"i": i, "seed": seed, "what": what, "words": words, "gpu": hex});
        let mut f = self.0.lock().expect("lock");
        let _ = writeln!(f, "{line}");
    }

    /// Flushes the file.
    pub fn finish(self) -> Result<()> {
        self.0.into_inner().expect("lock").flush()?;
        Ok(())
    }
}

/// Per-form counts of a replay.
#[derive(Default)]
struct Tally {
    kernels: usize,
    kernels_exact: usize,
    kernels_within_bound: usize,
    kernels_beyond_bound: usize,
    words: usize,
    words_exact: usize,
    first_differences: Vec<String>,
}

/// The description line of a record.
struct Head {
    family: Family,
    arch: Arch,
    seed: u64,
    per_module: u64,
    inputs: Inputs,
}

fn parse_head(v: &Value) -> Result<Head> {
    if v["ptxemu_difftest_record"] != 1 {
        bail!("not a difftest record (first line lacks \"ptxemu_difftest_record\": 1)");
    }
    let s = |k: &str| {
        v[k].as_str()
            .ok_or_else(|| anyhow!("record header: no `{k}`"))
    };
    let n = |k: &str| {
        v[k].as_u64()
            .ok_or_else(|| anyhow!("record header: no `{k}`"))
    };
    use clap::ValueEnum;
    let family = Family::from_str(s("family")?, false).map_err(|e| anyhow!("family: {e}"))?;
    let arch = Arch::from_str(s("arch")?, false).map_err(|e| anyhow!("arch: {e}"))?;
    let inputs = Inputs::from_str(v["inputs"].as_str().unwrap_or("uniform"), false)
        .map_err(|e| anyhow!("inputs: {e}"))?;
    if n("threads")? != THREADS as u64 || n("frame_bytes")? != FRAME as u64 {
        bail!("record header: frames of another size than this ptxemu's");
    }
    Ok(Head {
        family,
        arch,
        seed: n("seed")?,
        per_module: n("per_module")?.max(1),
        inputs,
    })
}

/// One recorded kernel.
struct Entry {
    i: u64,
    seed: u64,
    words: Vec<usize>,
    gpu: Vec<u32>,
}

fn parse_entry(v: &Value, line: usize) -> Result<Entry> {
    let bad = || anyhow!("record line {line}: malformed");
    let words: Vec<usize> = v["words"]
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|w| w.as_u64().map(|x| x as usize).filter(|&x| x < FRAME / 4))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let hex = v["gpu"].as_str().ok_or_else(bad)?;
    if hex.len() != 8 * words.len() * THREADS || !hex.is_ascii() {
        bail!(
            "record line {line}: `gpu` has {} digits, expected {}",
            hex.len(),
            8 * words.len() * THREADS
        );
    }
    let gpu = (0..hex.len() / 8)
        .map(|j| u32::from_str_radix(&hex[8 * j..8 * j + 8], 16))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| bad())?;
    Ok(Entry {
        i: v["i"].as_u64().ok_or_else(bad)?,
        seed: v["seed"].as_u64().ok_or_else(bad)?,
        words,
        gpu,
    })
}

/// The form of a kernel for the tally: its `what` without the layouts.
fn form(c: &Case) -> String {
    match c {
        Case::Mma(k) => k.what.replace(".row", "").replace(".col", ""),
        Case::Scalar(_) => "scalar".into(),
    }
}

/// Replays a record on ptxemu; writes `out/replay.json` (the counts) and
/// `out/replay.emu.jsonl` (ptxemu's words, in the record's format) and prints a table.
pub fn replay(path: &Path, out: &Path, gpu: Option<Gpu>) -> Result<std::process::ExitCode> {
    // Read whole, size checked first: a record is text, and `/dev/zero` or a huge file is
    // refused with its size instead of filling memory one endless line at a time.
    let text = crate::bounded::read_text(path).with_context(|| path.display().to_string())?;
    let mut lines = text.lines();
    let head_line = lines
        .next()
        .ok_or_else(|| anyhow!("{}: empty", path.display()))?;
    let head = parse_head(
        &emu::host::json::parse(head_line).with_context(|| format!("{} line 1", path.display()))?,
    )?;
    let mut by_module: BTreeMap<u64, Vec<Entry>> = BTreeMap::new();
    for (n, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let e = parse_entry(
            &emu::host::json::parse(l)
                .with_context(|| format!("{} line {}", path.display(), n + 2))?,
            n + 2,
        )?;
        if super::kernel_seed(head.seed, e.i) != e.seed {
            bail!(
                "record line {}: kernel {} of run seed {} is not seed {}",
                n + 2,
                e.i,
                head.seed,
                e.seed
            );
        }
        by_module.entry(e.i / head.per_module).or_default().push(e);
    }
    if by_module.is_empty() {
        bail!(
            "{}: the record has no kernels: nothing to replay",
            path.display()
        );
    }
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    std::fs::create_dir_all(out).with_context(|| out.display().to_string())?;
    let emu_path = out.join("replay.emu.jsonl");
    let mut emu_out = BufWriter::new(
        std::fs::File::create(&emu_path).with_context(|| emu_path.display().to_string())?,
    );
    writeln!(emu_out, "{head_line}")?;
    for (m, entries) in &by_module {
        let input = inputs(head.family, head.inputs, head.seed, *m);
        let cases: Vec<Case> = entries
            .iter()
            .map(|e| Case::generate(head.family, head.arch, e.seed))
            .collect();
        let ptx = case::module(&cases, head.arch);
        let emu = super::run_emu_on(&ptx, cases.len(), &input, gpu.map(Gpu::sm));
        for ((e, c), r) in entries.iter().zip(&cases).zip(emu) {
            let t = tally.entry(form(c)).or_default();
            t.kernels += 1;
            let emu = match r {
                Ok(o) => o,
                Err(msg) => {
                    t.kernels_beyond_bound += 1;
                    t.first_differences
                        .push(format!("seed {}: ptxemu could not run it: {msg}", e.seed));
                    continue;
                }
            };
            if float_words(c) != e.words {
                bail!(
                    "kernel {} (seed {}): recorded words {:?} are not the kernel's",
                    e.i,
                    e.seed,
                    e.words
                );
            }
            let emu_hex: String = (0..THREADS)
                .flat_map(|tr| e.words.iter().map(move |&w| (tr, w)))
                .map(|(tr, w)| format!("{:08x}", word(&emu, tr, w)))
                .collect();
            let line = json!({"i": e.i, "seed": e.seed, "what": form(c), "words": e.words, "gpu": emu_hex});
            writeln!(emu_out, "{line}")?;
            // The GPU's frames: ptxemu's, with the recorded words in place.
            let mut gpu = emu.clone();
            let mut first = None;
            for tr in 0..THREADS {
                for (j, &w) in e.words.iter().enumerate() {
                    let g = e.gpu[tr * e.words.len() + j];
                    let at = tr * FRAME + 4 * w;
                    gpu[at..at + 4].copy_from_slice(&g.to_le_bytes());
                    t.words += 1;
                    if g == word(&emu, tr, w) {
                        t.words_exact += 1;
                    } else if first.is_none() {
                        first = Some(format!(
                            "seed {}: thread {tr} word {w}: gpu 0x{g:08x} ptxemu 0x{:08x}",
                            e.seed,
                            word(&emu, tr, w)
                        ));
                    }
                }
            }
            match c.compare(&gpu, &emu) {
                Verdict::Same => t.kernels_exact += 1,
                Verdict::Close(..) => t.kernels_within_bound += 1,
                Verdict::Differ(_) => t.kernels_beyond_bound += 1,
            }
            if let Some(d) = first {
                if t.first_differences.len() < 5 {
                    t.first_differences.push(d);
                }
            }
        }
    }
    let forms: serde_json::Map<String, Value> = tally
        .iter()
        .map(|(k, t)| {
            (
                k.clone(),
                json!({
                    "kernels": t.kernels,
                    "kernels_exact": t.kernels_exact,
                    "kernels_within_bound": t.kernels_within_bound,
                    "kernels_beyond_bound": t.kernels_beyond_bound,
                    "words": t.words,
                    "words_exact": t.words_exact,
                    "first_differences": t.first_differences,
                }),
            )
        })
        .collect();
    let total = |f: fn(&Tally) -> usize| tally.values().map(f).sum::<usize>();
    let summary = json!({
        "record": path.display().to_string(),
        "arch": head.arch.name(),
        "inputs": head.inputs.name(),
        "gpu": gpu.map_or_else(|| format!("by target ({})", head.arch.name()), |g| format!("{g:?}").to_lowercase()),
        "kernels": total(|t| t.kernels),
        "kernels_exact": total(|t| t.kernels_exact),
        "kernels_within_bound": total(|t| t.kernels_within_bound),
        "kernels_beyond_bound": total(|t| t.kernels_beyond_bound),
        "forms": forms,
    });
    emu_out.flush()?;
    std::fs::write(
        out.join("replay.json"),
        serde_json::to_string_pretty(&summary)?,
    )?;
    for (k, t) in &tally {
        outln!(
            "{k:<48} {:>6} kernel(s): {:>6} exact, {:>5} within bound, {:>5} beyond; words {}/{} exact",
            t.kernels,
            t.kernels_exact,
            t.kernels_within_bound,
            t.kernels_beyond_bound,
            t.words_exact,
            t.words
        );
    }
    Ok(if total(|t| t.kernels_exact) == total(|t| t.kernels) {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
