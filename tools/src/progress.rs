//! A progress line on stderr for long litmus explorations (executions explored and allowed,
//! and the rate) and long kernel launches (CTAs done of total, and the rate), drawn with
//! `indicatif` once a run has lasted [`DELAY`], never for JSON output or when stderr is not a
//! terminal (so logs and pipes stay clean).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use models::explore::Progress;

/// How long a run goes before the progress line appears.
pub const DELAY: Duration = Duration::from_secs(2);

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(200);

/// Whether a progress line may be drawn: not for JSON output, and only on a terminal.
pub fn wanted(json: bool) -> bool {
    !json && std::io::stderr().is_terminal()
}

/// Draws the counters of `p` on stderr until `done` is set (call it on a thread of its own);
/// nothing when `done` is set within [`DELAY`].
pub fn show(p: &Progress, done: &AtomicBool) {
    draw(done, |secs| {
        let executions = p.executions.load(Ordering::Relaxed);
        let allowed = p.allowed.load(Ordering::Relaxed);
        let explored = p.explored.load(Ordering::Relaxed);
        // Counts far below 2^53 convert exactly enough for a rate.
        let rate = executions as f64 / secs;
        format!(
            "{executions} executions explored, {allowed} allowed ({explored} partial); {rate:.0} executions/s"
        )
    });
}

/// Runs the launch `f` with a CTA counter in `cfg`, drawing "CTAs done of total, rate" on
/// stderr while it runs longer than [`DELAY`] (unless `json`, or stderr is not a terminal).
pub fn with_ctas<T>(
    json: bool,
    cfg: &mut emu::exec::LaunchConfig,
    f: impl FnOnce(&emu::exec::LaunchConfig) -> T,
) -> T {
    if !wanted(json) {
        return f(cfg);
    }
    let counter = Arc::new(AtomicU64::new(0));
    cfg.progress = Some(Arc::clone(&counter));
    let total: u64 = cfg.grid.iter().map(|&n| u64::from(n)).product();
    let done = AtomicBool::new(false);
    let cfg: &emu::exec::LaunchConfig = cfg;
    std::thread::scope(|s| {
        s.spawn(|| {
            draw(&done, |secs| {
                let n = counter.load(Ordering::Relaxed);
                let rate = n as f64 / secs;
                format!("{n} of {total} CTAs done; {rate:.0} CTAs/s")
            });
        });
        let r = f(cfg);
        done.store(true, Ordering::Relaxed);
        r
    })
}

/// Draws `message(seconds since start)` on stderr until `done` is set; nothing when `done` is
/// set within [`DELAY`].
fn draw(done: &AtomicBool, message: impl Fn(f64) -> String) {
    let start = Instant::now();
    while start.elapsed() < DELAY {
        if done.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(TICK);
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        .with_elapsed(start.elapsed());
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    while !done.load(Ordering::Relaxed) {
        bar.set_message(message(start.elapsed().as_secs_f64().max(1e-9)));
        bar.tick();
        std::thread::sleep(TICK);
    }
    bar.finish_and_clear();
}
