//! The `--timeout S` option shared by `run`, `difftest`, `litmus` and `explain`: a finite
//! number of seconds, at least 0, after which a run stops without a verdict (exit status 3).

use std::time::Duration;

/// Reads `--timeout S` (for clap): refuses a negative, NaN or infinite value, or one too
/// large for a duration.
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && Duration::try_from_secs_f64(v).is_ok() => Ok(v),
        _ => Err(format!(
            "`{s}` is not a finite number of seconds at least 0"
        )),
    }
}

/// The duration of a `--timeout` value already checked by [`seconds`].
pub fn duration(s: Option<f64>) -> Option<Duration> {
    s.and_then(|v| Duration::try_from_secs_f64(v).ok())
}

/// Whether `--timeout` stopped the launch.
pub fn stopped(report: &emu::exec::LaunchReport) -> bool {
    report
        .fault
        .as_ref()
        .is_some_and(|f| matches!(f.kind, emu::exec::FaultKind::TimedOut { .. }))
}

/// Reports a launch `--timeout` stopped: the message on stderr and, with `--json`, the launch
/// object with `stopped_by_timeout` and no buffers; the printed text of the CTAs that ran is
/// shown, but no buffer is dumped. Exit status 3.
pub fn report_stop(
    cfg: &emu::exec::LaunchConfig,
    report: &emu::exec::LaunchReport,
    machine: &emu::exec::Machine,
    json: bool,
) -> std::process::ExitCode {
    if json {
        let mut o = crate::launch::launch_json(cfg, report, Vec::new(), machine, false);
        o.insert("stopped_by_timeout".into(), serde_json::Value::Bool(true));
        outln!("{}", serde_json::Value::Object(o));
    } else {
        crate::out::write_program_output(&report.stdout);
    }
    if let Some(f) = &report.fault {
        errln!("ptxemu: {f}");
    }
    std::process::ExitCode::from(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_duration() {
        for bad in ["-1", "NaN", "inf", "-inf", "1e300", "x", ""] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds("0.5"), Ok(0.5));
        assert_eq!(seconds("0"), Ok(0.0));
        assert_eq!(duration(Some(0.5)), Some(Duration::from_millis(500)));
    }
}
