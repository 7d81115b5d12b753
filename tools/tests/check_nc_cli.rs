//! `ptxemu run --check-nc`: writes during a launch to bytes an `ld.global.nc` of the launch
//! reads are reported, in either order, with both sites; disjoint bytes and runs without the
//! flag report nothing. Independent CTAs run on several host threads, so the tests also check
//! that the report is the same from run to run.

mod fixture_common;

use fixture_common::ptxemu_in_workspace as ptxemu;

use std::process::Output;

fn run_grid(grid: &str, mode: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "tests/fixtures/nc/nc_race.ptx",
        "--kernel",
        "nc_race",
        "--block",
        "128",
        "--grid",
        grid,
        "--arg",
        "u32[4]:zero",
        "--arg",
        mode,
    ];
    args.extend_from_slice(extra);
    ptxemu(&args)
}

fn run(mode: &str, extra: &[&str]) -> Output {
    run_grid("2", mode, extra)
}

#[test]
fn a_write_after_an_nc_read_and_an_nc_read_after_a_write_are_both_reported() {
    let o = run("u32:0", &["--check-nc"]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        e.matches("--check-nc:").count(),
        2,
        "one report per pair of instructions: {e}"
    );
    assert!(
        e.contains("written after being read by an ld.global.nc"),
        "{e}"
    );
    assert!(e.contains("nc read: CTA (0,0,0), warp 0, lane 0 (thread (0,0,0)) at tests/fixtures/nc/nc_race.ptx:20"), "{e}");
    assert!(e.contains("write: CTA (0,0,0), warp 1, lane 0 (thread (32,0,0)) at tests/fixtures/nc/nc_race.ptx:27"), "{e}");
    assert!(
        e.contains("written before being read by") && e.contains(":31: atom.global.add.u32"),
        "{e}"
    );
}

#[test]
fn disjoint_bytes_and_runs_without_the_flag_report_nothing_about_them() {
    let o = run("u32:1", &["--check-nc", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = j["nc_conflicts"].as_array().unwrap();
    assert_eq!(c.len(), 1, "only the atomic's byte: {c:?}");
    assert!(c[0].as_str().unwrap().contains("atom.global.add.u32"));
    let o = run("u32:0", &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn every_run_reports_the_same_pairs_from_the_first_cta() {
    // Sixteen CTAs race identically; whichever host thread gets there first, the report names
    // CTA 0 and never changes.
    let first = run_grid("16", "u32:0", &["--check-nc"]);
    assert_eq!(first.status.code(), Some(1));
    let e = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(e.contains("nc read: CTA (0,0,0), warp 0, lane 0"), "{e}");
    for _ in 0..8 {
        let again = run_grid("16", "u32:0", &["--check-nc"]);
        assert_eq!(String::from_utf8_lossy(&again.stderr), e);
    }
}

#[test]
fn a_write_in_another_cta_is_reported_without_an_order() {
    let o = ptxemu(&[
        "run",
        "tests/fixtures/nc/nc_cross_cta.ptx",
        "--kernel",
        "nc_cross_cta",
        "--block",
        "32",
        "--grid",
        "2",
        "--arg",
        "u32[2]:zero",
        "--check-nc",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.matches("--check-nc:").count(), 1, "{e}");
    assert!(
        e.contains("byte 0x200000000 is written by one CTA and read by an ld.global.nc in another"),
        "{e}"
    );
    assert!(e.contains("nc read: CTA (0,0,0), warp 0, lane 0 (thread (0,0,0)) at tests/fixtures/nc/nc_cross_cta.ptx:20"), "{e}");
    assert!(e.contains("write: CTA (1,0,0), warp 0, lane 0 (thread (0,0,0)) at tests/fixtures/nc/nc_cross_cta.ptx:24"), "{e}");
}
