//! The explanations' words, checked against facts written by hand from the memory-model
//! notes (spec §4-§6), not from ptxemu: why an allowed outcome passes each axiom (MP with weak
//! and relaxed accesses, with a too-narrow scope, SB, IRIW), which PTX axiom does not forbid
//! a cycle SC forbids, coherence listed per location, and the Fence-SC order shown once with
//! a sentence when candidates differ only in it.

use std::path::Path;

use litmus::explain::explain;
use litmus::run::RunOptions;
use models::ptx::Model;

fn text(name: &str, model: Model) -> String {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/library/{name}.litmus"));
    let test = litmus::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
    let ro = RunOptions {
        model,
        ..RunOptions::default()
    };
    explain(&test, &ro, None).unwrap().text()
}

fn has(t: &str, what: &[&str]) {
    for w in what {
        assert!(t.contains(w), "missing {w:?} in:\n{t}");
    }
}

#[test]
fn mp_with_weak_accesses_has_no_release_pattern() {
    // Spec §5.4: a release pattern ends at a strong write; st.weak is weak. No sw, so nothing
    // orders (1) st x before (4) ld x in causality, and Causality does not apply (§6).
    let t = text("MP+weak", Model::PtxV75);
    has(
        &t,
        &[
            "ALLOWED",
            "Why no axiom forbids it:",
            "Causality: (4) reads x = 0 from (x0), which (1) overwrites",
            "(1) is causally before (4), and it is not",
            "(2) `st.weak y, 1` is a weak write, and a release pattern ends only at a strong write",
            "Coherence:",
            "holds per location",
            "Fence-SC: there is no fence.sc",
            "Atomicity: there is no read-modify-write",
            "No-Thin-Air:",
            "SC-per-location:",
            "coherence, per location: x: (x0) → (1); y: (y0) → (2)",
        ],
    );
}

#[test]
fn mp_with_relaxed_accesses_is_strong_but_unsynchronised() {
    // Relaxed is strong but neither release nor acquire, and there is no fence (§5.4).
    let t = text("MP+rlx", Model::PtxV75);
    has(
        &t,
        &[
            "(2) `st.relaxed.gpu y, 1` is not a release, and no release fence",
            "so no release pattern ends at it",
        ],
    );
}

#[test]
fn release_and_acquire_out_of_scope_are_not_morally_strong() {
    // §3-§4: .cta scope does not include a thread of another CTA, so the rf is no observation.
    let t = text("MP+rel+acq-cta-diff-cta", Model::PtxV75);
    has(&t, &["ALLOWED", "not morally strong", ".cta scope"]);
}

#[test]
fn mp_with_release_and_acquire_breaks_causality() {
    // §5.5-§6: sw from the release to the acquire; (1) po (2) sw (3) po (4) is causality, and
    // (4) reading the value (1) overwrites closes (rf|fr);cause.
    let t = text("MP+rel+acq-gpu", Model::PtxV75);
    has(
        &t,
        &[
            "FORBIDDEN",
            "violates causality: cycle (4) -fr-> (1) -cause-> (4)",
            "(2) -sw-> (3): synchronizes-with",
        ],
    );
}

#[test]
fn sb_reads_nothing_from_the_other_thread() {
    // In SB both reads read the initial values: no rf across threads, so no sw at all.
    let t = text("SB+rlx", Model::PtxV75);
    has(
        &t,
        &[
            "ALLOWED",
            "no read takes its value from another thread's write",
        ],
    );
    let t = text("SB+rel+acq", Model::PtxV75);
    has(
        &t,
        &[
            "ALLOWED",
            "no read takes its value from another thread's write",
        ],
    );
}

#[test]
fn sc_contrasts_name_the_cycle_and_the_ptx_axiom() {
    // SC forbids SB's outcome with po;fr;po;fr. PTX does not: the cycle spans x and y, so
    // SC-per-location does not apply, and Causality needs synchronisation behind po.
    let t = text("SB+rlx", Model::Sc);
    has(
        &t,
        &[
            "FORBIDDEN",
            "violates sequential-consistency: cycle",
            "-po->",
            "-fr->",
            "Under ptx-v7.5 the outcome is ALLOWED",
            "SC-per-location does not apply",
            "Causality",
        ],
    );
    // CoRR with weak reads: one location, but weak accesses of different threads are not
    // morally strong (§4), so SC-per-location does not count them.
    let t = text("CoRR+weak", Model::Sc);
    has(
        &t,
        &[
            "Under ptx-v7.5 the outcome is ALLOWED",
            "SC-per-location, but it counts only morally strong",
        ],
    );
    // IRIW: PTX is not multi-copy atomic; the writes are relaxed, so the readers' acquires
    // observe no release (§5.4).
    let t = text("IRIW+acq", Model::Sc);
    has(
        &t,
        &["Under ptx-v7.5 the outcome is ALLOWED", "is not a release"],
    );
    // Where PTX forbids it too, the contrast says so.
    let t = text("MP+rel+acq-gpu", Model::Sc);
    has(&t, &["Under ptx-v7.5 the outcome is forbidden too"]);
}

#[test]
fn fence_sc_order_is_shown_once_per_candidate() {
    // §5.1: morally strong fence.sc are ordered one way or the other; SB+fence.sc's two
    // candidates differ only in that order, and each breaks Causality.
    let t = text("SB+fence.sc-gpu", Model::PtxV75);
    has(
        &t,
        &[
            "fence-SC order: (2) → (5)",
            "fence-SC order: (5) → (2)",
            "differs from candidate 1 only in the Fence-SC order",
        ],
    );
    assert_eq!(
        t.matches("events:").count(),
        1,
        "the events are listed once:\n{t}"
    );
}

#[test]
fn coherence_is_an_order_per_location() {
    // 2+2W: each location has two writes besides the initial one, ordered in coherence.
    let t = text("2+2W+rlx", Model::PtxV75);
    has(&t, &["coherence, per location: x: (x0) → ", "; y: (y0) → "]);
    assert!(!t.contains("coherence (beyond"), "{t}");
}
