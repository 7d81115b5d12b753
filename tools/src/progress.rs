//! A progress line on stderr for long litmus explorations: executions explored and allowed,
//! and the rate, drawn with `indicatif` once a run has lasted [`DELAY`], never for JSON output
//! or when stderr is not a terminal (so logs and pipes stay clean).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
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
    let start = Instant::now();
    while start.elapsed() < DELAY {
        if done.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(TICK);
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    while !done.load(Ordering::Relaxed) {
        let executions = p.executions.load(Ordering::Relaxed);
        let allowed = p.allowed.load(Ordering::Relaxed);
        let explored = p.explored.load(Ordering::Relaxed);
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        // Counts far below 2^53 convert exactly enough for a rate.
        let rate = executions as f64 / secs;
        bar.set_message(format!(
            "{executions} executions explored, {allowed} allowed ({explored} partial); {rate:.0} executions/s"
        ));
        bar.tick();
        std::thread::sleep(TICK);
    }
    bar.finish_and_clear();
}
