//! The playground in a real browser: builds the page with `bash web/build.sh DIR` (the
//! wasm32-unknown-unknown target and its own cargo target folder, so that it does not wait on
//! this test run's), then runs `web/tests/browser.py DIR`, which drives headless Chromium
//! (Debian's `chromium`) through the DevTools protocol and checks the page's contract on
//! library tests, a malformed test, the budget's message and the MP → MP+rel+acq story.
//! CI installs Chromium and the target and runs it with --include-ignored; without them it
//! fails, saying what is missing.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
#[ignore = "needs Chromium and the wasm32-unknown-unknown target; CI runs it with --include-ignored"]
fn the_playground_keeps_its_contract_in_chromium() {
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .any(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    assert!(
        browser,
        "this test needs Chromium (apt-get install chromium)"
    );
    let root = root();
    let site = root.join("target/playground-test/site");
    let _ = std::fs::remove_dir_all(&site);
    let build = Command::new("bash")
        .arg(root.join("web/build.sh"))
        .arg(&site)
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", root.join("target/playground-test"))
        .output()
        .expect("bash");
    assert!(
        build.status.success(),
        "web/build.sh failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let run = Command::new("python3")
        .arg(root.join("web/tests/browser.py"))
        .arg(&site)
        .output()
        .expect("python3");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out.contains(" passed, 0 failed"), "{out}");
}
