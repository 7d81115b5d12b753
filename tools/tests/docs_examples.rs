//! Every example in `README.md` and `docs/**.md` runs, as written, from the repository root
//! (issue 40). One test per block, named by file and line, so a failure says which example
//! broke and a reader of the test list sees every example, the skipped ones with their reason.
//!
//! The conventions (docs/development.md, "The guide's examples are tests"):
//! - a ```` ```sh ```` block runs with `bash -e -o pipefail`, from the repository root, with the
//!   release `ptxemu` first on `PATH` and `TMPDIR` set to a fresh folder of its own (so an
//!   example's `mktemp -d` never meets another run's files); it must exit 0, or with the status
//!   its first line names (`# exit status N`);
//! - a ```` ```python ```` block runs in the Python package's pytest suite
//!   (`python/tests/test_docs_examples.py`), not here;
//! - a block preceded by `<!-- example: not run (reason) -->` is not run: it is listed here as
//!   an ignored test whose name carries the reason;
//! - `docs_conventions` fails on fences that would escape the rules (```` ```bash ````,
//!   ```` ```console ````, ```` ```py ````, a bare fence that starts with a command, a marker
//!   without a reason or without a block after it), and `docs_links` on a relative link or
//!   `#anchor` that leads nowhere.
//!
//! Harness: `libtest-mimic` (the standard harness cannot make one test per block found at run
//! time); it takes the usual arguments (filters, `--include-ignored`, `--skip`, `--list`).

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Failed, Trial};

/// How long one example may run before it is stopped and reported.
const EXAMPLE_TIMEOUT: Duration = Duration::from_secs(180);

/// The marker that keeps the next block from running: `<!-- example: not run (reason) -->`.
const NOT_RUN: &str = "<!-- example: not run";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the repository root")
}

/// One fenced code block of a Markdown file.
#[derive(Debug, Clone)]
struct Block {
    /// Path relative to the repository root, with `/` separators.
    file: String,
    /// 1-based line of the opening fence.
    line: usize,
    /// The info string's first word (`sh`, `python`, `text`, or empty).
    lang: String,
    body: String,
    /// The reason given by a `not run` marker before the block, if any.
    not_run: Option<String>,
}

/// The Markdown files whose examples are tests: the README and every page under docs/.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let p = e.expect("a readable docs folder").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The opening fence of a line (up to three spaces of indentation, three or more backticks):
/// its indentation, fence length and info string.
fn fence(line: &str) -> Option<(usize, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ticks = rest.len() - rest.trim_start_matches('`').len();
    let info = rest[ticks..].trim();
    // CommonMark: a backtick fence's info string has no backticks (```` ```sh ```` is inline
    // code at the start of a line, not a fence).
    (ticks >= 3 && !info.contains('`')).then_some((indent, ticks, info))
}

/// The blocks of one file, and the convention problems found on the way.
fn blocks_of(root: &Path, path: &Path, problems: &mut Vec<String>) -> Vec<Block> {
    let file = relative(root, path);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut pending_marker: Option<(usize, String)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(tail) = line.trim_start().strip_prefix(NOT_RUN) {
            let reason = tail
                .trim()
                .strip_suffix("-->")
                .map(str::trim)
                .and_then(|r| r.strip_prefix('('))
                .and_then(|r| r.strip_suffix(')'))
                .map(str::trim)
                .filter(|r| !r.is_empty());
            match reason {
                Some(r) => pending_marker = Some((i + 1, r.to_string())),
                None => problems.push(format!(
                    "{file}:{}: a `not run` marker needs its reason: `{NOT_RUN} (why) -->`",
                    i + 1
                )),
            }
            i += 1;
            continue;
        }
        let Some((indent, ticks, info)) = fence(line) else {
            if !line.trim().is_empty() {
                if let Some((at, _)) = pending_marker.take() {
                    problems.push(format!(
                        "{file}:{at}: a `not run` marker must come right before a code block"
                    ));
                }
            }
            i += 1;
            continue;
        };
        // Find the closing fence: the same character run, at least as long, nothing after it.
        let close = (i + 1..lines.len()).find(|&j| {
            fence(lines[j]).is_some_and(|(ind, t, inf)| ind <= 3 && t >= ticks && inf.is_empty())
        });
        let Some(close) = close else {
            problems.push(format!(
                "{file}:{}: a code block that is never closed",
                i + 1
            ));
            break;
        };
        let body: String = lines[i + 1..close]
            .iter()
            .map(|l| {
                let strip = l.len() - l.trim_start_matches(' ').len();
                format!("{}\n", &l[strip.min(indent)..])
            })
            .collect();
        let lang = info.split_whitespace().next().unwrap_or("").to_string();
        blocks.push(Block {
            file: file.clone(),
            line: i + 1,
            lang,
            body,
            not_run: pending_marker.take().map(|(_, r)| r),
        });
        i = close + 1;
    }
    if let Some((at, _)) = pending_marker {
        problems.push(format!(
            "{file}:{at}: a `not run` marker must come right before a code block"
        ));
    }
    blocks
}

/// What the conventions forbid in a block.
fn convention_problem(b: &Block) -> Option<String> {
    let here = format!("{}:{}", b.file, b.line);
    match b.lang.as_str() {
        "bash" | "shell" | "console" | "zsh" | "shell-session" => Some(format!(
            "{here}: ```{} is not run by the docs test: write ```sh for a command (it runs) \
             or ```text for output",
            b.lang
        )),
        "py" | "python3" | "pycon" => Some(format!(
            "{here}: ```{} is not run by the docs test: write ```python",
            b.lang
        )),
        "" => {
            let first = b.body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let first = first.trim_start();
            ["$ ", "ptxemu ", "cargo ", "pip ", "python ", "python3 "]
                .iter()
                .any(|p| first.starts_with(p))
                .then(|| {
                    format!(
                        "{here}: a bare ``` block that starts with a command: mark it ```sh \
                         (it runs) or ```text (output, synopsis)"
                    )
                })
        }
        _ => None,
    }
}

/// The status a `sh` block must exit with: 0 unless its first line says `# exit status N`.
fn expected_status(b: &Block) -> Result<i32, String> {
    let first = b.body.lines().next().unwrap_or("").trim();
    match first.strip_prefix("# exit status") {
        None => Ok(0),
        Some(n) => n.trim().parse().map_err(|_| {
            format!(
                "{}:{}: `{first}`: the status must be a number",
                b.file, b.line
            )
        }),
    }
}

/// The folder holding the `ptxemu` these tests built (release under `cargo test --release`).
fn ptxemu_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_ptxemu"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf()
}

fn tail(bytes: &[u8], n: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    let cut = s.len().saturating_sub(n);
    let cut = (cut..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    s[cut..].to_string()
}

fn run_sh(b: &Block) -> Result<(), Failed> {
    let want = expected_status(b)?;
    let root = root();
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("docs-examples")
        .join(format!("{}-{}", b.file.replace(['/', '.'], "_"), b.line));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![ptxemu_dir()];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).map_err(|e| e.to_string())?;

    let mut cmd = Command::new("bash");
    cmd.args(["-e", "-o", "pipefail", "-c", &b.body])
        .current_dir(&root)
        .env("PATH", path)
        .env("TMPDIR", &scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot start bash: {e}"))?;
    // Read both pipes on threads so a chatty example cannot fill one and block.
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(s);
        }
        if started.elapsed() > EXAMPLE_TIMEOUT {
            // The whole process group: bash and whatever the example started.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let report = |what: String| -> Failed {
        format!(
            "{}:{}: {what}\n--- the example ---\n{}--- stdout (end) ---\n{}\n--- stderr (end) ---\n{}",
            b.file,
            b.line,
            b.body,
            tail(&stdout, 3000),
            tail(&stderr, 3000)
        )
        .into()
    };
    let Some(status) = status else {
        return Err(report(format!(
            "stopped after {} s (the examples' limit)",
            EXAMPLE_TIMEOUT.as_secs()
        )));
    };
    match status.code() {
        Some(code) if code == want => {
            let _ = std::fs::remove_dir_all(&scratch);
            Ok(())
        }
        Some(code) => Err(report(format!(
            "exited with status {code}, expected {want}{}",
            if want == 0 {
                " (a block that should fail says `# exit status N` on its first line)"
            } else {
                ""
            }
        ))),
        None => Err(report("killed by a signal".to_string())),
    }
}

// ---- links -----------------------------------------------------------------------------------

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation other than `-` and
/// `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks), with GitHub's `-1`, `-2`
/// suffixes for repeats.
fn anchors(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if fence(line).is_some() {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let t = line.trim_start();
        if t.starts_with('#') {
            let h = t.trim_start_matches('#');
            if h.starts_with(' ') {
                // Inline code and emphasis marks vanish from the anchor.
                let base = slug(&h.replace(['`', '*'], ""));
                let mut a = base.clone();
                let mut n = 0;
                while seen.contains(&a) {
                    n += 1;
                    a = format!("{base}-{n}");
                }
                seen.insert(a);
            }
        }
    }
    seen
}

/// The `[text](target)` links of a Markdown text outside code blocks and inline code.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (n, line) in text.lines().enumerate() {
        if fence(line).is_some() {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Drop inline code spans before looking for links.
        let mut plain = String::new();
        let mut in_span = false;
        for c in line.chars() {
            if c == '`' {
                in_span = !in_span;
            } else if !in_span {
                plain.push(c);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    out
}

fn check_links(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut problems = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let here = relative(root, f);
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                continue;
            }
            let target = target.split_whitespace().next().unwrap_or("");
            let (path_part, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target, None),
            };
            let dest = if path_part.is_empty() {
                f.clone()
            } else {
                f.parent().expect("a folder").join(path_part)
            };
            if !dest.exists() {
                problems.push(format!("{here}:{line}: link `{target}`: no such file"));
                continue;
            }
            if let Some(a) = anchor {
                let md = if dest.is_dir() {
                    dest.join("README.md")
                } else {
                    dest.clone()
                };
                if md.extension().is_some_and(|x| x == "md") && !anchors(&md).contains(a) {
                    problems.push(format!(
                        "{here}:{line}: link `{target}`: {} has no heading with anchor `#{a}`",
                        relative(root, &md)
                    ));
                }
            }
        }
    }
    problems
}

fn main() {
    let args = Arguments::from_args();
    let root = root();
    let files = markdown_files(&root);
    let mut problems = Vec::new();
    let blocks: Vec<Block> = files
        .iter()
        .flat_map(|f| blocks_of(&root, f, &mut problems))
        .collect();
    problems.extend(blocks.iter().filter_map(convention_problem));
    problems.extend(
        blocks
            .iter()
            .filter(|b| b.lang == "sh" && b.not_run.is_none())
            .filter_map(|b| expected_status(b).err()),
    );

    let mut trials = vec![Trial::test("docs_conventions", move || {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n").into())
        }
    })];
    let link_root = root.clone();
    let link_files = files.clone();
    trials.push(Trial::test("docs_links", move || {
        let p = check_links(&link_root, &link_files);
        if p.is_empty() {
            Ok(())
        } else {
            Err(p.join("\n").into())
        }
    }));
    let sh_count = blocks.iter().filter(|b| b.lang == "sh").count();
    trials.push(Trial::test("docs_have_examples", move || {
        // The README alone has several; finding none means the parser broke.
        if sh_count >= 10 {
            Ok(())
        } else {
            Err(format!("only {sh_count} sh example(s) found in README.md and docs/").into())
        }
    }));
    for b in blocks.into_iter().filter(|b| b.lang == "sh") {
        let name = format!("{}:{} (sh)", b.file, b.line);
        match b.not_run.clone() {
            Some(reason) => trials.push(
                Trial::test(format!("{name} not run: {reason}"), || Ok(())).with_ignored_flag(true),
            ),
            None => trials.push(Trial::test(name, move || run_sh(&b))),
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
