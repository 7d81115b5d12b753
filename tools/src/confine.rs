//! The one path policy for files that input names: a launch plan's `module`, its `file=`
//! inputs, and its `dump` and `dump_var` outputs (docs/threat-model.md). The person typing the
//! command line is trusted; a plan is not. So every input a plan names is taken relative to
//! the plan's folder and must stay inside a *root*: the plan's folder, unless `--plan-root
//! DIR` names another (a folder above it, for plans that share inputs with their neighbours).
//! Every output is taken relative to the current folder, where the person ran the command
//! (as docs/plan-format.md has always said), and must stay inside it.
//!
//! A path leaves the root when, once `.` and `..` are resolved and symbolic links followed,
//! it is not below the root: `../x`, `/etc/passwd`, `out/../../x`, or a link inside the folder
//! that points out of it. A file written must not be a symbolic link itself (a link left in
//! the folder cannot redirect a dump), and its folder must exist.
//!
//! Not defended: a folder swapped for a link between the check and the write (the files
//! are opened right after the check; an attacker who can write into the root while ptxemu
//! runs is not in the threat model).

use std::path::{Component, Path, PathBuf};

use anyhow::Result;

use crate::launch::refuse;

/// Where the files a plan names may be.
#[derive(Clone, Debug)]
pub(crate) struct Confined {
    /// Relative paths start here (the plan's folder).
    base: PathBuf,
    /// Every path must resolve below this (canonical).
    root: PathBuf,
    /// How messages name the root.
    shown: String,
    /// Every output must resolve below this: the current folder (canonical).
    out_root: PathBuf,
}

/// Whether the refused path is read or written (for the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// An input (`module`, `file=`).
    Read,
    /// An output (`dump`, `dump_var`).
    Write,
}

impl Confined {
    /// The policy for a plan in folder `base`, confined to `root` (default `base`).
    ///
    /// # Errors
    /// The root cannot be resolved (kind `io`), or the plan's folder is outside a given
    /// `--plan-root` (kind `options`).
    pub fn new(base: &Path, root: Option<&Path>) -> Result<Confined> {
        let base_dir = if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        };
        let given = root.unwrap_or(base_dir);
        let canonical = given.canonicalize().map_err(|e| {
            refuse(
                "io",
                format!("cannot resolve the plan's folder {}: {e}", given.display()),
            )
        })?;
        let shown = match root {
            Some(_) => format!("the --plan-root folder {}", canonical.display()),
            None => format!("the plan's folder {}", canonical.display()),
        };
        let out_root = Path::new(".")
            .canonicalize()
            .map_err(|e| refuse("io", format!("cannot resolve the current folder: {e}")))?;
        let c = Confined {
            base: base_dir.to_path_buf(),
            root: canonical,
            shown,
            out_root,
        };
        if root.is_some() && !c.inside(&c.base) {
            return Err(refuse(
                "options",
                format!(
                    "the plan's folder {} is not inside --plan-root {}",
                    base_dir.display(),
                    given.display()
                ),
            ));
        }
        Ok(c)
    }

    /// The plan's folder, where relative paths start.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// `path` checked against the policy: an input relative to the plan's folder (or absolute)
    /// inside the root, an output relative to the current folder inside it.
    ///
    /// # Errors
    /// The path leaves its root, or (for an output) is a symbolic link (kind `plan`, naming
    /// the path as written and the root).
    pub fn resolve(&self, path: &Path, usage: Use) -> Result<PathBuf> {
        if usage == Use::Write {
            return self.output(path);
        }
        let joined = self.base.join(path);
        let outside = || {
            refuse(
                "plan",
                format!(
                    "`{}` {} outside {} (a plan's files stay inside it; --plan-root names another folder)",
                    path.display(),
                    match usage {
                        Use::Read => "is read from",
                        Use::Write => "would be written",
                    },
                    self.shown
                ),
            )
        };
        if !self.inside(&joined) {
            return Err(outside());
        }
        Ok(joined)
    }

    /// An output `path`, relative to the current folder, checked to stay inside it.
    fn output(&self, path: &Path) -> Result<PathBuf> {
        if !resolved(path).is_ok_and(|r| r.starts_with(&self.out_root)) {
            return Err(refuse(
                "plan",
                format!(
                    "`{}` would be written outside the current folder {} (a plan writes only below the folder ptxemu runs in)",
                    path.display(),
                    self.out_root.display()
                ),
            ));
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(refuse(
                "plan",
                format!(
                    "`{}` is a symbolic link; a plan's output is written only to a plain file",
                    path.display()
                ),
            ));
        }
        Ok(path.to_path_buf())
    }

    /// Whether `p` resolves below the root (see [`resolved`]).
    fn inside(&self, p: &Path) -> bool {
        resolved(p).is_ok_and(|r| r.starts_with(&self.root))
    }
}

/// `p` made absolute as the system resolves it: component by component from the (canonical)
/// current folder, following every symbolic link met, and taking `..` from the folder reached
/// so far. Parts that do not exist yet are taken as written.
///
/// # Errors
/// The current folder is unknown, or a link cannot be followed (a dangling one).
fn resolved(p: &Path) -> std::io::Result<PathBuf> {
    let mut out = if p.is_absolute() {
        PathBuf::from("/")
    } else {
        std::env::current_dir()?.canonicalize()?
    };
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => {
                out.push(n);
                if std::fs::symlink_metadata(&out).is_ok_and(|m| m.file_type().is_symlink()) {
                    out = out.canonicalize()?;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptxemu-confine-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("plan/in")).unwrap();
        std::fs::write(d.join("plan/in/x.bin"), [0u8; 4]).unwrap();
        std::fs::write(d.join("secret"), [0u8; 4]).unwrap();
        d
    }

    #[test]
    fn paths_stay_inside_the_plans_folder() {
        let d = folder("inside");
        let c = Confined::new(&d.join("plan"), None).unwrap();
        for ok in [
            "in/x.bin",
            "out.bin",
            "in/../out.bin",
            "./in/new.bin",
            "in/new/../a.bin",
        ] {
            assert!(c.resolve(Path::new(ok), Use::Read).is_ok(), "{ok}");
        }
        let abs_inside = d.join("plan/in/x.bin");
        assert!(c.resolve(&abs_inside, Use::Read).is_ok());
        for bad in [
            "../secret",
            "in/../../secret",
            "../plan/../secret",
            "/etc/passwd",
            "nowhere/../../x",
            "..",
        ] {
            let e = c.resolve(Path::new(bad), Use::Read).unwrap_err();
            assert!(
                format!("{e:#}").contains("outside the plan's folder"),
                "{bad}: {e:#}"
            );
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn links_out_of_the_folder_are_followed_and_refused() {
        let d = folder("links");
        std::os::unix::fs::symlink(d.join("secret"), d.join("plan/link")).unwrap();
        std::os::unix::fs::symlink(&d, d.join("plan/up")).unwrap();
        let c = Confined::new(&d.join("plan"), None).unwrap();
        assert!(c.resolve(Path::new("link"), Use::Read).is_err());
        assert!(c.resolve(Path::new("up/secret"), Use::Read).is_err());
        assert!(c.resolve(Path::new("up/new.bin"), Use::Read).is_err());
        std::os::unix::fs::symlink(d.join("plan/in/x.bin"), d.join("plan/inner")).unwrap();
        assert!(c.resolve(Path::new("inner"), Use::Read).is_ok());
        // Outputs are relative to the current folder and stay below it.
        for bad in ["../x.bin", "/etc/x.bin"] {
            let e = c.resolve(Path::new(bad), Use::Write).unwrap_err();
            assert!(
                format!("{e:#}").contains("outside the current folder"),
                "{e:#}"
            );
        }
        assert!(c.resolve(Path::new("x.bin"), Use::Write).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_plan_root_widens_the_folder() {
        let d = folder("root");
        let c = Confined::new(&d.join("plan"), Some(&d)).unwrap();
        assert!(c.resolve(Path::new("../secret"), Use::Read).is_ok());
        assert!(c.resolve(Path::new("../../x"), Use::Read).is_err());
        assert!(Confined::new(&d, Some(&d.join("plan"))).is_err());
        let _ = std::fs::remove_dir_all(&d);
    }
}
