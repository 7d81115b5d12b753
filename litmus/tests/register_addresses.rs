//! herd's registers holding addresses in the plain PTX dialect (issue 35, item 5): `0:r2=x;`
//! (also `P0:r2=x;` and `P0:r2=&x;`) in the initial state, used as `[r2]` in dialect and
//! real-PTX cells. Each fixture of `tests/herd_ptx` gets the verdict worked out by hand in its
//! `expected.csv`, the reference enumerator's under every model, and the same states as the
//! test with the locations written out.

use std::path::{Path, PathBuf};

use litmus::run::{run, Engine, RunOptions};
use models::ptx::Model;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/herd_ptx")
}

fn expected() -> Vec<(String, bool)> {
    std::fs::read_to_string(dir().join("expected.csv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .map(|l| {
            let (p, v) = l.rsplit_once(',').unwrap();
            let name = Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, v.trim() == "1")
        })
        .collect()
}

fn opts(model: Model, engine: Engine) -> RunOptions {
    RunOptions {
        model,
        engine,
        ..RunOptions::default()
    }
}

#[test]
fn register_held_addresses_read_and_get_the_references_verdicts() {
    let want = expected();
    assert_eq!(want.len(), 3);
    for (file, holds) in want {
        let src = std::fs::read_to_string(dir().join(&file)).unwrap();
        let t = litmus::parse(&src).unwrap_or_else(|e| panic!("{file}: {e}"));
        let r = run(&t, &opts(Model::PtxV75, Engine::Explore)).unwrap();
        assert_eq!(r.holds, holds, "{file}: hand-worked verdict");
        // The test with the locations written out (as --print-dialect shows it) is the same
        // test.
        let plain = litmus::parse(&litmus::print::dialect(&t)).unwrap();
        for m in [Model::PtxV75, Model::PtxV60, Model::Sc] {
            let got = run(&t, &opts(m, Engine::Explore)).unwrap();
            let reference = run(&t, &opts(m, Engine::Enumerate)).unwrap();
            assert_eq!(got.holds, reference.holds, "{file} under {}", m.name());
            assert_eq!(
                got.states.keys().collect::<Vec<_>>(),
                reference.states.keys().collect::<Vec<_>>()
            );
            let named = run(&plain, &opts(m, Engine::Explore)).unwrap();
            assert_eq!(
                named.states.keys().collect::<Vec<_>>(),
                got.states.keys().collect::<Vec<_>>()
            );
        }
        // The addresses declare their locations.
        let names: Vec<&str> = t.locations.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["x", "y"], "{file}");
    }
}

#[test]
fn an_address_register_used_as_a_value_is_refused_at_its_cell() {
    let src = "PTX T\n{\n0:r2=x;\n}\n P0@cta 0,gpu 0 ;\n st.weak [r2], r2 ;\nexists (x == 1)\n";
    let e = litmus::parse(src).unwrap_err();
    assert_eq!((e.line, e.col), (6, 2), "{e}");
    assert!(e.message.contains("holds the address of `x`"), "{e}");
    // Given twice, or as something that is neither a number nor a location.
    let twice =
        "PTX T\n{\n0:r2=x; 0:r2=y;\n}\n P0@cta 0,gpu 0 ;\n st.weak [r2], 1 ;\nexists (x == 1)\n";
    assert!(litmus::parse(twice)
        .unwrap_err()
        .message
        .contains("two addresses"));
    let odd = "PTX T\n{\n0:r2=x+1;\n}\n P0@cta 0,gpu 0 ;\n st.weak [r2], 1 ;\nexists (x == 1)\n";
    let e = litmus::parse(odd).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
}
