//! Axiomatic memory models for PTX: the shared vocabulary (scopes, state spaces, semantics,
//! proxies), events and their relations, candidate executions, the PTX v6.0 and v7.5 models
//! and a sequentially consistent reference model.
//!
//! This crate knows nothing of PTX syntax; the `emu` crate maps instructions onto its
//! vocabulary and events.

pub mod vocab;
