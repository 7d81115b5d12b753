//! `ptxemu diy`: PTX litmus tests generated from cycles of relations, after herdtools7's diy7.
//!
//! A cycle such as `PodWW Rfe PodRR Fre` (message passing) lists the relations an execution
//! would need for an outcome the model might forbid; the generator writes the test whose
//! condition asks for that outcome. Beside diy7's edges (`syntax`), each access may carry its
//! PTX semantics, scope and proxy (`PodWW[rlx.gpu,rel.gpu]`), each fence its semantics and
//! scope (`Fence.sc.gpudWR`), and each external edge where its two threads sit (`Rfe@cta`: one
//! CTA; `@cluster`, `@gpu`, `@sys`). Templates leave choices open with `*`, and an
//! enumeration fills them, or builds every critical cycle over an alphabet of edges
//! (`enumerate`). `docs/diy.md` is the user's guide.
//!
//! Parts: `edge` (the vocabulary), `pattern` (templates), `syntax` (reading cycles, errors
//! with columns), `cycle` (checking and laying out a cycle: threads, locations, placements,
//! values, the canonical rotation), `name` (diy7-style names), `family` (the classic
//! shapes), `build` (the litmus test), `enumerate`, and `verdict` (each test under the three
//! models, with the reason).

pub mod build;
pub mod cycle;
pub mod edge;
pub mod enumerate;
pub mod family;
pub mod name;
pub mod output;
pub mod pattern;
pub mod syntax;
pub mod verdict;

pub use cycle::Cycle;
pub use syntax::CycleError;

use crate::ast::Test;

/// A generated test: its name, cycle, test and text.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The name (see [`name`]).
    pub name: String,
    /// The canonical cycle.
    pub cycle: Cycle,
    /// The test.
    pub test: Test,
    /// The test in the dialect.
    pub text: String,
}

/// The test of a cycle, named after it.
pub fn generate(cycle: &Cycle) -> Generated {
    let name = name::test_name(cycle);
    let test = build::test_of(cycle, &name);
    let text = crate::print::dialect(&test);
    Generated {
        name,
        cycle: cycle.clone(),
        test,
        text,
    }
}
