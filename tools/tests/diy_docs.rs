//! `docs/diy.md`'s generated table is the output of the command shown above it, so the two
//! cannot drift apart: this runs the command (its output folder moved to a scratch folder) and
//! compares its Markdown with the table between the page's markers.

use std::path::Path;
use std::process::Command;

const BEGIN: &str = "<!-- generated table: begin -->";
const END: &str = "<!-- generated table: end -->";

/// The words of a command line, with double-quoted words kept whole.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn the_generated_family_table_is_the_output_of_its_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/diy.md")).unwrap();
    let (before, rest) = doc.split_once(BEGIN).expect("the table's begin marker");
    let (table, _) = rest.split_once(END).expect("the table's end marker");
    let command = before
        .rsplit("```sh")
        .next()
        .and_then(|b| b.split("```").next())
        .map(str::trim)
        .expect("a sh block before the table");
    // The example writes into a fresh folder of its own; so does this test.
    let mut args = words(&command.replace("$(mktemp -d)", "SCRATCH"));
    assert_eq!(args.remove(0), "ptxemu", "{command}");
    assert!(args.contains(&"--markdown".to_string()), "{command}");
    let scratch = std::env::temp_dir().join(format!("ptxemu-diy-docs-{}", std::process::id()));
    let at = args.iter().position(|a| a == "--out").expect("--out") + 1;
    args[at] = scratch.display().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(&root)
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        table.trim(),
        got.trim(),
        "docs/diy.md's table differs from `{command}`: paste the command's output between the markers"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
