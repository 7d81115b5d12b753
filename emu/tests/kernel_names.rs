//! Kernel names (issue 39 item 4): the demangler against GNU c++filt's output, recorded in
//! `kernel_names/cxxfilt.tsv` for every mangled kernel the repository's fixtures declare
//! (`kernel_names/regen.sh`), and finding kernels by signature and base name, with the
//! expected kernels taken from that reference, not from ptxemu.

use std::collections::BTreeMap;

use emu::ir::kernel_name::{demangle, display, resolve, KernelLookupError};

/// mangled → c++filt's demangling.
fn reference() -> BTreeMap<String, String> {
    let text = include_str!("kernel_names/cxxfilt.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (m, d) = l.split_once('\t').expect("mangled<TAB>demangled");
            (m.to_string(), d.to_string())
        })
        .collect()
}

#[test]
fn every_fixture_kernel_demangles_as_cxxfilt_does() {
    let r = reference();
    assert!(r.len() > 400, "{} names", r.len());
    let wrong: Vec<String> = r
        .iter()
        .filter(|(m, d)| demangle(m).as_deref() != Some(d.as_str()))
        .map(|(m, d)| format!("{m}: c++filt `{d}`, ptxemu {:?}", demangle(m)))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The kernels `.entry` declares in a PTX file.
fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .chain(
            ptx.lines()
                .filter_map(|l| l.trim_start().strip_prefix(".entry ")),
        )
        .map(|rest| {
            rest.split(|c: char| c == '(' || c.is_whitespace())
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

const REDUCTION: &str =
    include_str!("../../tests/fixtures/public/cuda_samples_reduction/kernel.ptx");
const RACES: &str = include_str!("../../tests/fixtures/race_kernels/reductions.ptx");

#[test]
fn a_signature_in_any_spacing_or_const_placement_finds_its_kernel() {
    let r = reference();
    let ks = entries(RACES);
    let names: Vec<&str> = ks.iter().map(String::as_str).collect();
    assert_eq!(names.len(), 5);
    for k in &names {
        let sig = &r[*k];
        assert_eq!(resolve(names.iter().copied(), sig), Ok(*k), "{sig}");
        // The CUDA source's spelling: `const float *` for c++filt's `float const*`.
        let cuda = sig.replace("float const*", "const float *");
        assert_eq!(resolve(names.iter().copied(), &cuda), Ok(*k), "{cuda}");
        let spaced = sig.replace('(', " ( ").replace(", ", " ,");
        assert_eq!(resolve(names.iter().copied(), &spaced), Ok(*k), "{spaced}");
        let base = &sig[..sig.find('(').unwrap()];
        assert_eq!(resolve(names.iter().copied(), base), Ok(*k), "{base}");
        assert_eq!(resolve(names.iter().copied(), k), Ok(*k));
    }
    assert_eq!(
        resolve(
            names.iter().copied(),
            "reduce_missing_sync(const float*, float*)"
        ),
        Ok("_Z19reduce_missing_syncPKfPf")
    );
}

#[test]
fn a_base_name_of_several_template_instances_is_ambiguous_and_lists_them() {
    let r = reference();
    let ks = entries(REDUCTION);
    let names: Vec<&str> = ks.iter().map(String::as_str).collect();
    assert!(names.len() > 100);
    // From c++filt: the kernels whose name is reduce4<...>.
    let expected: Vec<&str> = names
        .iter()
        .copied()
        .filter(|k| r[*k].starts_with("void reduce4<"))
        .collect();
    assert!(expected.len() > 1);
    match resolve(names.iter().copied(), "reduce4") {
        Err(KernelLookupError::Ambiguous { query, candidates }) => {
            assert_eq!(query, "reduce4");
            assert_eq!(candidates, expected);
        }
        other => panic!("{other:?}"),
    }
    let msg = resolve(names.iter().copied(), "reduce4")
        .unwrap_err()
        .to_string();
    for k in &expected {
        assert!(msg.contains(&r[*k]), "{msg} lacks {}", r[*k]);
    }
    // Each instance is found by its full signature, with or without the return type, and
    // by its name with template arguments.
    for k in &expected {
        let sig = &r[*k];
        assert_eq!(resolve(names.iter().copied(), sig), Ok(*k));
        let no_ret = sig.strip_prefix("void ").unwrap();
        assert_eq!(resolve(names.iter().copied(), no_ret), Ok(*k));
        let templ = &no_ret[..no_ret.find('(').unwrap()];
        assert_eq!(resolve(names.iter().copied(), templ), Ok(*k), "{templ}");
    }
}

#[test]
fn an_unknown_name_lists_every_kernel() {
    let r = reference();
    let ks = entries(RACES);
    let names: Vec<&str> = ks.iter().map(String::as_str).collect();
    let e = resolve(names.iter().copied(), "reduce").unwrap_err();
    assert!(matches!(&e, KernelLookupError::Unknown { .. }));
    let msg = e.to_string();
    assert!(msg.starts_with("no kernel named `reduce`"), "{msg}");
    for k in &names {
        assert!(msg.contains(k) && msg.contains(&r[*k]), "{msg} lacks {k}");
    }
}

#[test]
fn display_falls_back_to_the_raw_name() {
    assert_eq!(display("add_kernel"), "add_kernel");
    // Malformed, and left as they are by c++filt too: a length past the end, no encoding.
    assert_eq!(display("_Z19reduce_missing_syn"), "_Z19reduce_missing_syn");
    assert_eq!(display("_ZZZ"), "_ZZZ");
    assert_eq!(display("_Z3fooILi"), "_Z3fooILi");
    assert_eq!(
        display("_Z19reduce_missing_syncPKfPf"),
        "reduce_missing_sync(float const*, float*)"
    );
}
