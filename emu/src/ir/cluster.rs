//! Thread-block cluster instructions (PTX ISA "mapa", "getctarank", "barrier.cluster").

use super::Type;

/// A cluster instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterOp {
    /// `mapa{.shared::cluster}.type d, a, b` — the address in CTA `b` of the variable at `a`.
    Mapa {
        /// `.shared::cluster` (else a generic address).
        shared: bool,
        /// `.u32` or `.u64`.
        ty: Type,
    },
    /// `getctarank{.shared::cluster}.type d, a` — the rank of the CTA whose shared memory holds `a`.
    Getctarank {
        /// `.shared::cluster` (else a generic address).
        shared: bool,
        /// `.u32` or `.u64`.
        ty: Type,
    },
    /// `barrier.cluster.arrive{.release,.relaxed}{.aligned}`.
    Arrive {
        /// `.relaxed` (else the default `.release`).
        relaxed: bool,
        /// `.release` written explicitly.
        release: bool,
        /// `.aligned`.
        aligned: bool,
    },
    /// `barrier.cluster.wait{.acquire}{.aligned}`.
    Wait {
        /// `.acquire` written explicitly.
        acquire: bool,
        /// `.aligned`.
        aligned: bool,
    },
}

impl ClusterOp {
    /// The mnemonic with its qualifiers, in canonical order.
    pub fn mnemonic(&self) -> String {
        let space = |s: bool| if s { ".shared::cluster" } else { "" };
        match *self {
            ClusterOp::Mapa { shared, ty } => format!("mapa{}.{}", space(shared), ty.name()),
            ClusterOp::Getctarank { shared, ty } => {
                format!("getctarank{}.{}", space(shared), ty.name())
            }
            ClusterOp::Arrive {
                relaxed,
                release,
                aligned,
            } => {
                let mut s = String::from("barrier.cluster.arrive");
                if relaxed {
                    s.push_str(".relaxed");
                } else if release {
                    s.push_str(".release");
                }
                if aligned {
                    s.push_str(".aligned");
                }
                s
            }
            ClusterOp::Wait { acquire, aligned } => {
                let mut s = String::from("barrier.cluster.wait");
                if acquire {
                    s.push_str(".acquire");
                }
                if aligned {
                    s.push_str(".aligned");
                }
                s
            }
        }
    }
}
