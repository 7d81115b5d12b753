//! `LaunchConfig::timeout` and `LaunchConfig::progress` (issue 23): a launch that runs past its
//! timeout stops with a `TimedOut` fault giving the CTAs done of total and the steps run, and
//! the progress counter counts every CTA that finished.

mod exec_common;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use emu::exec::FaultKind;
use exec_common::*;

/// CTA 0 spins forever; the other CTAs end at once.
fn spin_in_cta0() -> String {
    format!(
        r#"{HEADER}
.visible .entry k()
{{
    .reg .b32 %r<2>;
    .reg .pred %p;
    mov.u32 %r1, %ctaid.x;
    setp.ne.u32 %p, %r1, 0;
    @%p ret;
$L:
    bra $L;
}}
"#
    )
}

#[test]
fn a_launch_past_its_timeout_stops_with_the_counts() {
    let src = spin_in_cta0();
    let counter = Arc::new(AtomicU64::new(0));
    let c = Arc::clone(&counter);
    let o = launch_with(&src, "k", [5, 1, 1], [32, 1, 1], vec![], |cfg| {
        cfg.max_steps = u64::MAX;
        cfg.threads = 1;
        cfg.timeout = Some(Duration::from_millis(300));
        cfg.progress = Some(c);
    });
    match &o.fault().kind {
        FaultKind::TimedOut {
            timeout,
            ctas_done,
            ctas,
            steps,
        } => {
            assert_eq!(*timeout, Duration::from_millis(300));
            assert_eq!(*ctas, 5);
            // One host thread: CTA 0 runs its slices while CTAs 1-4 end in between.
            assert!(*ctas_done <= 4, "{ctas_done}");
            assert!(*steps > 0);
        }
        k => panic!("expected a timeout, got {k}"),
    }
    assert!(o
        .fault()
        .to_string()
        .contains("stopped by --timeout 0.3 after"));
    assert!(counter.load(Ordering::Relaxed) <= 4);
}

#[test]
fn the_progress_counter_counts_every_finished_cta() {
    let src = format!(
        r#"{HEADER}
.visible .entry k()
{{
    ret;
}}
"#
    );
    let counter = Arc::new(AtomicU64::new(0));
    let c = Arc::clone(&counter);
    launch_with(&src, "k", [7, 3, 2], [64, 1, 1], vec![], |cfg| {
        cfg.timeout = Some(Duration::from_secs(600));
        cfg.progress = Some(c);
    })
    .ok();
    assert_eq!(counter.load(Ordering::Relaxed), 42);
}
