//! What the benches share: the CPU clock their paired tables read, and their settings.
//!
//! The development machine is shared (2 cores, often 8 or more jobs), so a one-thread figure
//! of wall time mostly measures the other jobs. The paired tables quote the process's CPU
//! time for one-thread launches instead (`CLOCK_PROCESS_CPUTIME_ID`: what the kernel charged
//! this process, whatever else ran), and wall time only where two host threads are compared.

#![allow(dead_code)] // each bench uses a part

use std::time::Instant;

/// Seconds of CPU time this process has used so far (all its threads).
#[cfg(target_os = "linux")]
pub fn cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid timespec (two 64-bit fields on 64-bit Linux) for the call.
    let rc = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// Elsewhere: wall time since the first call (the tables then say wall).
#[cfg(not(target_os = "linux"))]
pub fn cpu_seconds() -> f64 {
    use std::sync::OnceLock;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// (CPU seconds, wall seconds) that `f` took.
pub fn timed(f: impl FnOnce()) -> (f64, f64) {
    let (c, w) = (cpu_seconds(), Instant::now());
    f();
    (cpu_seconds() - c, w.elapsed().as_secs_f64())
}

/// Rounds of the paired table: `PTXEMU_BENCH_ROUNDS`, else `default`; 0 skips the table.
pub fn rounds(default: usize) -> usize {
    std::env::var("PTXEMU_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(default)
}

/// `PTXEMU_BENCH_TABLE_ONLY`: print the paired table and skip criterion.
pub fn table_only() -> bool {
    std::env::var_os("PTXEMU_BENCH_TABLE_ONLY").is_some()
}

/// The machine's load average over the last minute, as `/proc/loadavg` says.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}
