//! The value domains a thread's reads draw from (`litmus::run::thread_paths`): a value written
//! before an await that fails under the first domains still joins them, and a ticket lock's
//! `atom.add` chains stop at the tickets its threads can draw. Expected counts are derived by
//! hand in each test's comment.

mod support;

use litmus::run::{prepare, thread_paths, RunOptions};
use support::{engines, run_as, ticket};

/// Each thread writes, then awaits the other's write (backward jumps: await semantics).
const PING_PONG: &str = r#"PTX ping-pong
"Write, then await the other thread's write."
{
 x=0; y=0;
}
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1  | st.relaxed.gpu y, 1  ;
 LC00:                | LC10:                ;
 ld.relaxed.gpu r2, y | ld.relaxed.gpu r1, x ;
 bne r2, 1, LC00      | bne r1, 1, LC10      ;
exists (P0:r2 == 1 /\ P1:r1 == 1)
"#;

/// Under sequential consistency, `st x; st y; ld y (1); ld x (1)` interleaves both awaits to
/// success, and every complete execution must read 1 twice (a read of 0 loops): one allowed
/// execution under every model. Domains grown only from complete paths never held 1.
#[test]
fn a_write_before_a_failing_await_joins_the_domain() {
    let test = litmus::parse(PING_PONG).unwrap();
    for (model, engine) in engines() {
        let r = run_as(&test, model, engine);
        assert_eq!(r.allowed, 1, "{model:?} {engine:?}");
        let states: Vec<&Vec<i64>> = r.states.keys().collect();
        assert_eq!(states, vec![&vec![1, 1]], "{model:?} {engine:?}");
    }
}

/// A ticket lock of `n` threads: `n` writes to `in` (one `atom.add` each), so a ticket value
/// `k` needs a chain of `k` of them and only 0..=n are kept; a path drawing ticket `n` would
/// write `n + 1` and is dropped, as is one whose `out` add would. Each thread's kept paths:
/// ticket `k` in 0..n, `out` read `k` (the await), `x` read any of the `n + 1` values of `x`
/// (0 and each thread's store, all one write deep), `out` add reading 0..n: `n * (n+1) * n`.
/// The allowed executions are the `n!` orders the lock can be taken in, each reading `x`
/// from the previous holder.
#[test]
fn ticket_lock_tickets_stop_at_the_thread_count() {
    for n in 2..=3usize {
        let test = litmus::parse(&ticket(n)).unwrap();
        let p = prepare(&test).unwrap();
        let paths = thread_paths(&p, false, RunOptions::default().limits).unwrap();
        for ts in &paths {
            assert_eq!(ts.len(), n * (n + 1) * n, "ticket{n}");
        }
        let fact: u64 = (1..=n as u64).product();
        for (model, engine) in engines() {
            let r = run_as(&test, model, engine);
            assert_eq!(r.allowed, fact, "ticket{n} {model:?} {engine:?}");
        }
    }
}
