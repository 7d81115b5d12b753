//! Finding litmus files in folders: symbolic-link loops end, and a file reached by several
//! paths is listed once.

use std::os::unix::fs::symlink;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxemu-files-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("sub")).unwrap();
    d
}

#[test]
fn link_loops_end_and_each_file_is_listed_once() {
    let d = scratch("loops");
    std::fs::write(d.join("a.litmus"), "x").unwrap();
    std::fs::write(d.join("sub/b.litmus"), "x").unwrap();
    // Two loops back up the tree, and a second name for a.litmus.
    symlink(&d, d.join("sub/up")).unwrap();
    symlink(d.join("sub"), d.join("sub/self")).unwrap();
    symlink(d.join("a.litmus"), d.join("sub/again.litmus")).unwrap();
    let files = litmus::litmus_files(&d).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(&d).unwrap().display().to_string())
        .collect();
    assert_eq!(names, ["a.litmus", "sub/b.litmus"]);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_linked_folder_outside_the_walk_is_followed() {
    let d = scratch("linked");
    let other = scratch("linked-target");
    std::fs::write(other.join("c.litmus"), "x").unwrap();
    symlink(&other, d.join("sub/other")).unwrap();
    let files = litmus::litmus_files(&d).unwrap();
    assert_eq!(files, [d.join("sub/other/c.litmus")]);
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&other).ok();
}
