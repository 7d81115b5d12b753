//! The wall clock a run reads: when it started, how long it took, and the deadline a
//! `--timeout` sets.
//!
//! Deviation: on `wasm32-unknown-unknown` (the browser playground) the standard library has no
//! clock (`Instant::now()` panics there), so a run reports a time of zero and takes no
//! deadline; the page stops a run that takes too long by ending the worker it runs in. Native
//! builds read `std::time::Instant` as before.

use std::time::{Duration, Instant};

/// Whether this build has a clock.
const HAS_CLOCK: bool = !cfg!(all(target_arch = "wasm32", target_os = "unknown"));

/// When a run started (nothing where there is no clock).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Started(Option<Instant>);

impl Started {
    /// Now.
    pub(crate) fn now() -> Started {
        Started(HAS_CLOCK.then(Instant::now))
    }

    /// The time since the start (zero where there is no clock).
    pub(crate) fn elapsed(&self) -> Duration {
        self.0.map_or(Duration::ZERO, |s| s.elapsed())
    }

    /// The deadline `after` the start, if any (none where there is no clock).
    pub(crate) fn deadline(&self, after: Option<Duration>) -> Option<Instant> {
        self.0.zip(after).and_then(|(s, d)| s.checked_add(d))
    }
}
