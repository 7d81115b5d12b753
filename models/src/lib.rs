//! Axiomatic memory models for PTX: the shared vocabulary (scopes, state spaces, semantics,
//! proxies), events and their relations, candidate executions, the PTX v6.0 and v7.5 models
//! and a sequentially consistent reference model, the enumeration of candidate executions (the
//! reference) and the incremental exploration of consistent executions ([`explore`]).
//!
//! This crate knows nothing of PTX syntax; the `emu` crate maps instructions onto its
//! vocabulary and events.

#![warn(missing_docs)]

pub mod enumerate;
pub mod event;
pub mod explain;
pub mod explore;
pub mod ptx;
pub mod rel;
pub mod vocab;

pub use enumerate::{co_maximal, enumerate, enumerate_towards, Counts, Next};
pub use event::{BarrierTag, Event, EventKind, FenceKind, ThreadPos};
pub use ptx::{Axiom, Choice, Model, Options, Skeleton, Statics, Violation};
pub use rel::{Rel, Set};
