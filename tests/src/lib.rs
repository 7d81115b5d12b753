//! Workspace-level integration tests, properties and conformance runs for ptxemu live in
//! `tests/tests/`; this library holds helpers they share.
