//! Thread-block clusters (PTX ISA "Cluster of Cooperative Thread Arrays", "Distributed shared
//! memory", "mapa", "getctarank", "barrier.cluster"): the instructions' syntax, lowering and
//! execution, a CTA's place in its cluster, the `.shared::cluster` window onto the shared
//! memory of the cluster's CTAs, and the cluster barrier (README.md in this folder).

pub mod barrier;
pub mod dsmem;
pub mod exec;
pub mod lower;
pub mod peers;
pub mod shape;
pub mod syntax;
