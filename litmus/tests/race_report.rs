//! Reading and explaining race reports (`litmus::explain::race`): the report's shape, errors
//! that name the bad value, each condition of the data-race definition as the PTX memory
//! model states it, and the pictures. The expected verdicts come from the definition in the
//! PTX ISA's memory consistency model chapter, worked out by hand per case.

use litmus::explain::race::{draw, parse_report, Race, RaceReport, ReportError};

/// An access in JSON, with the fields that vary.
fn acc(
    kind: &str,
    sem: &str,
    scope: Option<&str>,
    cta: u64,
    tid: u64,
    addr: u64,
    bytes: u64,
) -> String {
    let scope = scope.map_or("null".to_string(), |s| format!("\"{s}\""));
    format!(
        r#"{{"line": 7, "instruction": "{kind} insn", "kind": "{kind}", "sem": "{sem}", "scope": {scope}, "space": "global", "cta": [{cta},0,0], "thread": [{tid},0,0], "warp": {w}, "lane": {l}, "address": "{addr:#x}", "bytes": {bytes}}}"#,
        w = tid / 32,
        l = tid % 32
    )
}

fn one(a: &str, b: &str) -> Race {
    let text =
        format!(r#"[{{"first": {a}, "second": {b}, "reason": "unordered", "seen": "every"}}]"#);
    let mut r = parse_report(&text).expect("a valid report");
    r.races.remove(0)
}

/// The verdict of each condition: overlap, a write, different threads, not morally strong,
/// unordered.
fn verdicts(r: &Race) -> Vec<Option<bool>> {
    r.conditions().iter().map(|c| c.holds).collect()
}

fn why(r: &Race, k: usize) -> String {
    r.conditions()[k].why.clone()
}

const SAMPLE: &str = include_str!("../../tools/tests/data/race_reports/spinlock_cta_races.json");

#[test]
fn whole_run_json_and_races_array_read_the_same() {
    let array = parse_report(SAMPLE).unwrap();
    let whole = parse_report(&format!(
        r#"{{"kernel": "spinlock_cta", "exit": 1, "races": {SAMPLE}}}"#
    ))
    .unwrap();
    assert_eq!(array.races, whole.races);
    assert_eq!(array.kernel, None);
    assert_eq!(whole.kernel.as_deref(), Some("spinlock_cta"));
    assert_eq!(array.races.len(), 2);
    // A numeric address and its hex string are the same address.
    assert_eq!(array.races[0].first.address, 0x2_0000_0100);
    assert_eq!(array.races[1].first.address, 0x2_0000_0100);
}

#[test]
fn errors_name_the_bad_value() {
    let err = |t: &str| parse_report(t).unwrap_err();
    assert!(matches!(
        err("{\"races\": [\n 1,,]}"),
        ReportError::Syntax { line: 2, .. }
    ));
    let shape = |t: &str| match err(t) {
        ReportError::Shape { path, message } => format!("{path}: {message}"),
        e => panic!("a shape error, got {e}"),
    };
    assert!(shape("42").starts_with("(top level): expected"));
    assert!(shape(r#"{"kernel": "k"}"#).starts_with("races: missing"));
    assert!(shape(r#"{"races": {}}"#).starts_with("races: expected an array, found an object"));
    let good = acc("write", "weak", None, 0, 0, 0, 4);
    let with =
        |second: &str| format!(r#"[{{"first": {good}, "second": {second}, "reason": "r"}}]"#);
    assert_eq!(
        shape(&with("[]")),
        "races[0].second: expected an object, found an array"
    );
    let no_line = good.replace(r#""line": 7, "#, "");
    assert_eq!(shape(&with(&no_line)), "races[0].second.line: missing");
    let bad_cta = good.replace("[0,0,0]", "[0,0]");
    assert!(shape(&with(&bad_cta)).starts_with("races[0].second.cta: expected [x, y, z]"));
    let bad_kind = good.replace(r#""kind": "write""#, r#""kind": "store""#);
    assert!(shape(&with(&bad_kind)).starts_with("races[0].second.kind: expected \"read\""));
    let bad_scope = good.replace(r#""scope": null"#, r#""scope": "warp""#);
    assert!(shape(&with(&bad_scope)).contains("`warp` is not a scope"));
    let bad_addr = good.replace("\"0x0\"", "\"0xzz\"");
    assert_eq!(
        shape(&with(&bad_addr)),
        "races[0].second.address: `0xzz` is not an address"
    );
    let bad_seen = with(&good).replace(r#""reason": "r""#, r#""reason": "r", "seen": "often""#);
    assert!(shape(&bad_seen).starts_with("races[0].seen: expected \"every\""));
}

#[test]
fn no_prefix_of_a_report_panics() {
    // Every truncation and every one-character deletion of a real report is read or refused,
    // never a panic.
    for cut in 0..SAMPLE.len() {
        if SAMPLE.is_char_boundary(cut) {
            let _ = parse_report(&SAMPLE[..cut]);
            let mut s = SAMPLE.to_string();
            s.remove(cut);
            let _ = parse_report(&s);
        }
    }
}

#[test]
fn weak_accesses_of_one_cta_race_and_want_a_barrier() {
    let r = one(
        &acc("write", "weak", None, 0, 33, 0x100, 4),
        &acc("read", "weak", None, 0, 32, 0x100, 4),
    );
    assert_eq!(verdicts(&r), vec![Some(true); 5]);
    assert!(
        why(&r, 3).contains("a's `write insn` is weak"),
        "{}",
        why(&r, 3)
    );
    assert!(r.hint().contains("bar.sync"));
    assert!(r.hint().contains("__syncwarp"), "one warp: {}", r.hint());
    assert!(r.text().contains("[yes] they are not morally strong"));
}

#[test]
fn cta_scope_between_ctas_is_not_morally_strong() {
    let r = one(
        &acc("write", "release", Some("cta"), 0, 0, 0x100, 4),
        &acc("read", "acquire", Some("cta"), 1, 0, 0x100, 4),
    );
    assert_eq!(verdicts(&r), vec![Some(true); 5]);
    assert!(
        why(&r, 3).contains("the .cta scope of a's"),
        "{}",
        why(&r, 3)
    );
    assert!(why(&r, 3).contains("CTA (1,0,0)"));
    assert!(r.hint().contains("widen the .cta scope to .gpu"));
}

#[test]
fn strong_accesses_at_covering_scopes_are_no_data_race() {
    // .cta scope within one CTA, both strong, same bytes: morally strong.
    let r = one(
        &acc("write", "relaxed", Some("cta"), 0, 0, 0x100, 4),
        &acc("read", "relaxed", Some("cta"), 0, 5, 0x100, 4),
    );
    assert_eq!(verdicts(&r)[3], Some(false));
    assert!(r.hint().contains("the report itself is suspect"));
    assert!(r.text().contains("[NO ] they are not morally strong"));
    // Volatile is .sys: morally strong even between CTAs.
    let v = one(
        &acc("write", "volatile", None, 0, 0, 0x100, 4),
        &acc("read", "volatile", None, 3, 0, 0x100, 4),
    );
    assert_eq!(verdicts(&v)[3], Some(false));
    // An atomic without a scope is .gpu.
    let a = one(
        &acc("atomic", "relaxed", None, 0, 0, 0x100, 4),
        &acc("atomic", "relaxed", None, 2, 0, 0x100, 4),
    );
    assert_eq!(
        verdicts(&a),
        vec![Some(true), Some(true), Some(true), Some(false), Some(true)]
    );
    assert!(why(&a, 1).contains("an atomic"));
}

#[test]
fn partial_overlap_is_not_morally_strong() {
    let r = one(
        &acc("write", "relaxed", Some("gpu"), 0, 0, 0x100, 8),
        &acc("read", "relaxed", Some("gpu"), 1, 0, 0x104, 4),
    );
    assert_eq!(verdicts(&r), vec![Some(true); 5]);
    assert!(why(&r, 0).starts_with("4 byte(s) in common, from 0x104"));
    assert!(why(&r, 3).contains("only partly"));
}

#[test]
fn facts_that_contradict_a_race_are_flagged() {
    // Disjoint bytes.
    let d = one(
        &acc("write", "weak", None, 0, 0, 0x100, 4),
        &acc("read", "weak", None, 0, 1, 0x104, 4),
    );
    assert_eq!(verdicts(&d)[0], Some(false));
    // Two reads.
    let rr = one(
        &acc("read", "weak", None, 0, 0, 0x100, 4),
        &acc("read", "weak", None, 0, 1, 0x100, 4),
    );
    assert_eq!(verdicts(&rr)[1], Some(false));
    // The same thread.
    let st = one(
        &acc("write", "weak", None, 0, 1, 0x100, 4),
        &acc("read", "weak", None, 0, 1, 0x100, 4),
    );
    assert_eq!(verdicts(&st)[2], Some(false));
    // Shared memory of two CTAs is not the same memory.
    let sh = one(
        &acc("write", "weak", None, 0, 0, 0x10, 4).replace("global", "shared"),
        &acc("read", "weak", None, 1, 0, 0x10, 4).replace("global", "shared"),
    );
    assert_eq!(verdicts(&sh)[0], Some(false));
    assert!(why(&sh, 0).contains("different CTAs"));
}

#[test]
fn cluster_scope_follows_the_clusters() {
    let with_cluster = |s: String, c: u64| {
        s.replacen(
            "\"space\"",
            &format!("\"cluster\": [{c},0,0], \"space\""),
            1,
        )
    };
    let same = one(
        &with_cluster(acc("write", "release", Some("cluster"), 0, 0, 0x100, 4), 0),
        &with_cluster(acc("read", "acquire", Some("cluster"), 1, 0, 0x100, 4), 0),
    );
    assert_eq!(
        verdicts(&same)[3],
        Some(false),
        "one cluster: morally strong"
    );
    let apart = one(
        &with_cluster(acc("write", "release", Some("cluster"), 0, 0, 0x100, 4), 0),
        &with_cluster(acc("read", "acquire", Some("cluster"), 1, 0, 0x100, 4), 1),
    );
    assert_eq!(verdicts(&apart)[3], Some(true));
    // Without clusters each CTA is its own cluster.
    let none = one(
        &acc("write", "release", Some("cluster"), 0, 0, 0x100, 4),
        &acc("read", "acquire", Some("cluster"), 1, 0, 0x100, 4),
    );
    assert_eq!(verdicts(&none)[3], Some(true));
}

#[test]
fn missing_facts_are_unknown_not_guessed() {
    let text = r#"[{"first": {"line": 1, "instruction": "st.global.u32 [%rd1], %r1;", "cta": [0,0,0], "thread": [0,0,0], "address": 16},
                   "second": {"line": 2, "instruction": "ld.global.u32 %r2, [%rd1];", "cta": [0,0,0], "thread": [1,0,0], "address": 16},
                   "reason": "r"}]"#;
    let r = &parse_report(text).unwrap().races[0];
    assert_eq!(
        verdicts(r),
        vec![Some(true), None, Some(true), None, Some(true)]
    );
    assert!(r.text().contains("[ ? ] at least one of them writes"));
}

#[test]
fn pictures_show_both_accesses_and_the_missing_edge() {
    let mut report = parse_report(SAMPLE).unwrap();
    report.races[0].first.instruction = "st.global.u32 [a<b&c], %r4;".into();
    let svg = draw::svg(&report, "t").unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<g class=\"event\">").count(),
        4,
        "two boxes per race"
    );
    assert_eq!(svg.matches("class=\"edge cause cycle\"").count(), 2);
    assert!(svg.contains("cause? missing"));
    assert!(svg.contains("[a&lt;b&amp;c]"), "instructions are escaped");
    assert!(svg.contains("Race 2, seen on some explored schedules"));
    let dot = draw::dot(&report, "t").unwrap();
    assert!(dot.contains("r0a -> r0b") && dot.contains("r1a -> r1b"));
    let page = draw::page(&report, "t");
    assert_eq!(page.matches("<figure><svg").count(), 2);
    assert!(page.contains("<pre id=\"explanation\">2 data race(s)."));
    let empty = RaceReport {
        kernel: Some("k".into()),
        races: vec![],
    };
    assert!(draw::svg(&empty, "t").is_none() && draw::dot(&empty, "t").is_none());
    assert_eq!(empty.text(), "No data race in kernel k in the report.\n");
}
