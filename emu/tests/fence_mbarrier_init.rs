//! `fence.mbarrier_init.release.cluster`: the one form parses, prints back and validates on
//! sm_90+ with PTX 8.0+; every other form is refused. Expected verdicts are ptxas 13.5's
//! (recorded: `.cluster` without `.release` "requires modifier 'order'", `.acquire` / `.cta` /
//! `.gpu` "cannot be combined", sm_80 "requires .target sm_90", PTX 7.8 "requires PTX ISA
//! .version 8.0").

fn module(version: &str, target: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{body}\nret;\n}}\n"
    )
}

fn diagnostics(version: &str, target: &str) -> Vec<String> {
    let src = module(version, target, "fence.mbarrier_init.release.cluster;");
    let m = emu::front::parse_module(&src, "t.ptx").expect("parses");
    let printed = emu::front::print_module(&m);
    assert!(
        printed.contains("fence.mbarrier_init.release.cluster;"),
        "{printed}"
    );
    let again = emu::front::parse_module(&printed, "printed.ptx").expect("reparses");
    assert_eq!(printed, emu::front::print_module(&again), "print is stable");
    emu::validate::validate_module(&m)
        .into_iter()
        .map(|d| d.message)
        .collect()
}

#[test]
fn the_release_cluster_form_parses_prints_and_validates() {
    for (v, t) in [("8.0", "sm_90"), ("8.6", "sm_100a")] {
        let d = diagnostics(v, t);
        assert!(d.is_empty(), "{v} {t}: {d:?}");
    }
}

#[test]
fn old_targets_and_versions_are_refused() {
    let d = diagnostics("8.0", "sm_80");
    assert!(d.iter().any(|m| m.contains("fence.mbarrier_init")), "{d:?}");
    let d = diagnostics("7.8", "sm_90");
    assert!(d.iter().any(|m| m.contains("fence.mbarrier_init")), "{d:?}");
}

#[test]
fn other_semantics_and_scopes_are_refused() {
    for (form, why) in [
        ("fence.mbarrier_init.cluster;", ".release"),
        ("fence.mbarrier_init.acquire.cluster;", ".release"),
        ("fence.mbarrier_init.release.cta;", ".cluster"),
        ("fence.mbarrier_init.release.gpu;", ".cluster"),
        ("fence.mbarrier_init.release;", ".cluster"),
    ] {
        let src = module("8.6", "sm_100a", form);
        let e = emu::front::parse_module(&src, "t.ptx").expect_err(form);
        let msg = e.render(&src);
        assert!(
            msg.contains(why) && msg.contains("t.ptx:6:"),
            "{form}: {msg}"
        );
    }
}
