//! `ptxemu explain`: words, pictures, pages, the tutorial's freshness, and a real browser
//! rendering a page.

mod fixture_common;

use fixture_common::{ptxemu_in_workspace as ptxemu, workspace as root};

use std::path::PathBuf;
use std::process::{Command, Output};

fn out(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("explain", name)
}

#[test]
fn forbidden_outcome_names_axiom_cycle_lines_and_moral_strength() {
    let t = out(&ptxemu(&[
        "explain",
        "litmus/tests/library/MP+rel+acq-gpu.litmus",
    ]));
    assert!(t.contains("FORBIDDEN"), "{t}");
    assert!(
        t.contains("violates causality: cycle (4) -fr-> (1) -cause-> (4)"),
        "{t}"
    );
    assert!(t.contains("(1) P0 line 7: st.weak x, 1"), "{t}");
    assert!(t.contains("(2) -sw-> (3): synchronizes-with"), "{t}");
    assert!(t.contains("are not morally strong"), "{t}");
    assert!(t.contains("include each other's threads"), "{t}");
    // Across GPUs the same shape is allowed, and the explanation shows the execution.
    let t = out(&ptxemu(&[
        "explain",
        "litmus/tests/library/MP+rel+acq-gpu-diff-gpu.litmus",
    ]));
    assert!(
        t.contains("ALLOWED") && t.contains("An allowed execution"),
        "{t}"
    );
    assert!(t.contains("reads-from: (x0)→(4), (2)→(3)"), "{t}");
}

#[test]
fn other_outcomes_and_models() {
    let t = out(&ptxemu(&[
        "explain",
        "litmus/tests/library/SB+rlx.litmus",
        "--model",
        "sc",
        "--outcome",
        "P0:r0=0 /\\ P1:r1=0",
    ]));
    assert!(
        t.contains("model sc") && t.contains("FORBIDDEN") && t.contains("sequential-consistency"),
        "{t}"
    );
    let t = out(&ptxemu(&[
        "explain",
        "litmus/tests/library/SB+rlx.litmus",
        "--outcome",
        "P0:r0=1 /\\ P1:r1=1",
    ]));
    assert!(t.contains("ALLOWED"), "{t}");
    let o = ptxemu(&[
        "explain",
        "litmus/tests/library/SB+rlx.litmus",
        "--outcome",
        "P0:r0 = = 1",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn svg_and_dot_pictures() {
    let s = out(&ptxemu(&[
        "explain",
        "litmus/tests/library/LB+acq+rel.litmus",
        "--format",
        "svg",
    ]));
    assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(
        s.matches("class=\"event\"").count(),
        6,
        "two initial writes and four accesses"
    );
    assert!(
        s.contains("class=\"edge cause cycle\""),
        "the causality cycle is highlighted"
    );
    assert!(
        s.contains("class=\"edge sw\""),
        "release/acquire synchronisation is drawn"
    );
    assert!(
        s.contains("violating cycle") && s.contains("po program order"),
        "a legend"
    );
    assert_eq!(s.matches("<svg").count(), s.matches("</svg>").count());
    let d = out(&ptxemu(&[
        "explain",
        "litmus/tests/library/LB+acq+rel.litmus",
        "--format",
        "dot",
    ]));
    assert!(
        d.starts_with("digraph execution {")
            && d.contains("subgraph cluster_p1")
            && d.contains("penwidth=3"),
        "{d}"
    );
}

#[test]
fn html_pages_for_a_folder() {
    let dir = scratch("html");
    out(&ptxemu(&[
        "explain",
        "--format",
        "html",
        "-o",
        dir.to_str().unwrap(),
        "litmus/tests/library",
    ]));
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(index.contains("href=\"MP+weak.html\""));
    let page = std::fs::read_to_string(dir.join("IRIW+fence.sc.html")).unwrap();
    assert!(
        page.contains("<table id=\"outcomes\">")
            && page.contains("<svg")
            && page.contains("does not hold")
    );
    assert!(!page.contains("src=\"http"), "self-contained");
}

#[test]
fn tutorial_is_up_to_date() {
    // Every file the generator writes (the index, a page per step, the pictures) matches the
    // committed one, and docs/tutorial holds nothing the generator no longer writes.
    let dir = scratch("tutorial");
    out(&ptxemu(&[
        "explain",
        "--format",
        "md",
        "-o",
        dir.to_str().unwrap(),
        "litmus/tests/library",
    ]));
    let committed = root().join("docs/tutorial");
    let regenerate = "run `cargo run --release -p ptxemu -- explain --format md -o docs/tutorial litmus/tests/library`";
    let files = |d: &std::path::Path| -> std::collections::BTreeSet<String> {
        let mut v = std::collections::BTreeSet::new();
        for sub in ["", "img"] {
            for e in std::fs::read_dir(d.join(sub))
                .into_iter()
                .flatten()
                .flatten()
            {
                if e.path().is_file() {
                    v.insert(format!("{sub}/{}", e.file_name().to_string_lossy()));
                }
            }
        }
        v
    };
    let (fresh, old) = (files(&dir), files(&committed));
    assert!(fresh.len() > 10, "{fresh:?}");
    assert_eq!(
        fresh, old,
        "docs/tutorial's files differ from the generator's: {regenerate}"
    );
    for f in &fresh {
        let a = std::fs::read_to_string(dir.join(f.trim_start_matches('/'))).unwrap();
        let b = std::fs::read_to_string(committed.join(f.trim_start_matches('/'))).unwrap();
        assert!(a == b, "docs/tutorial{f} is out of date: {regenerate}");
    }
    // The path: ordered steps, MP first, the model's introduction linked.
    let index = std::fs::read_to_string(committed.join("README.md")).unwrap();
    assert!(index.contains("1. [What a litmus test is](01-litmus-tests.md): MP+weak"));
    assert!(index.contains("../spec/memory-model.md#0-summary-15-lines"));
    let mp = std::fs::read_to_string(committed.join("02-message-passing.md")).unwrap();
    assert!(
        mp.contains("](img/MP+rel+acq-gpu.svg)")
            && mp.contains("#model=ptx-v7.5&test=PTX%20MP%2Brel%2Bacq-gpu")
    );
    assert!(mp.contains("| ptx-v7.5 |") && mp.contains("| sc |"));
}

/// Renders a page in headless Chromium (Debian's `chromium`): the DOM after rendering holds
/// the picture's events and edges, and the screenshot is a real image. CI installs Chromium and
/// runs it with --include-ignored; without a browser it fails.
#[test]
#[ignore = "needs Chromium; CI runs it with --include-ignored"]
fn a_real_browser_renders_the_page() {
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    let browser =
        browser.expect("this test needs Chromium (chromium, chromium-browser or google-chrome)");
    let dir = scratch("browser");
    let page = dir.join("mp.html");
    out(&ptxemu(&[
        "explain",
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
        "litmus/tests/library/MP+rel+acq-gpu.litmus",
    ]));
    let url = format!("file://{}", page.display());
    let common = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
    ];
    let dom = Command::new(browser)
        .args(common)
        .args(["--dump-dom", &url])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("<svg") && dom.matches("class=\"event\"").count() == 6,
        "{dom}"
    );
    assert!(dom.contains("forbidden by causality"));
    let png = dir.join("shot.png");
    let shot = Command::new(browser)
        .args(common)
        .args([
            &format!("--screenshot={}", png.display()),
            "--window-size=1200,1600",
            &url,
        ])
        .output()
        .unwrap();
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
        "a screenshot with content ({} bytes)",
        bytes.len()
    );
}

#[test]
fn outcomes_only_a_steered_enumeration_builds_are_drawn() {
    let d = scratch("steered");
    let coww = d.join("coww.litmus");
    std::fs::write(
        &coww,
        "PTX CoWW-mine\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu x, 1 ;\n st.relaxed.gpu x, 2 ;\nexists (x == 1)\n",
    )
    .unwrap();
    let t = out(&ptxemu(&["explain", coww.to_str().unwrap()]));
    assert!(t.contains("FORBIDDEN"), "{t}");
    assert!(
        t.contains("violates coherence: cycle (1) -cause-> (2) -co-> (1)"),
        "{t}"
    );
    let svg = out(&ptxemu(&[
        "explain",
        "--format",
        "svg",
        coww.to_str().unwrap(),
    ]));
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{svg}");
    assert!(svg.contains("coherence"), "{svg}");
    let hang = d.join("hang.litmus");
    std::fs::write(
        &hang,
        "PTX hang-mine\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | bar.cta.sync 1, 1, 3 ;\n bar.cta.sync 1, 1, 3 | ld.weak r0, x ;\nexists (P1:r0 == 1)\n",
    )
    .unwrap();
    let t = out(&ptxemu(&["explain", hang.to_str().unwrap()]));
    assert!(
        t.contains("No execution of this test runs to completion"),
        "{t}"
    );
    assert!(
        t.contains("P1 waits forever at a barrier (line 4: bar.cta.sync 1, 1, 3)"),
        "{t}"
    );
    let dot = out(&ptxemu(&[
        "explain",
        "--format",
        "dot",
        hang.to_str().unwrap(),
    ]));
    assert!(dot.starts_with("digraph"), "{dot}");
}
