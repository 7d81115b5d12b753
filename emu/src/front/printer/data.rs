//! Mnemonics of the data-movement and conversion instructions.

use crate::front::quals::{l2_evict_name, space_name};
use crate::ir::*;
use models::vocab::{LoadSem, StoreSem};

use super::qual::*;
use super::space_dir;

/// Writes the mnemonic of an instruction of the data movement and conversion group; other opcodes write nothing.
pub(super) fn data(o: &mut String, op: &Op) {
    match op {
        Op::Mov(t) => {
            o.push_str("mov");
            q(o, t.name());
        }
        Op::Ld(l) => load(o, l),
        Op::Ldu(l) => {
            o.push_str("ldu");
            if let Some(n) = space_name(l.space) {
                q(o, n);
            }
            if let Some(v) = l.vec {
                q(o, v.name());
            }
            q(o, l.ty.name());
        }
        Op::St(st) => store(o, st),
        Op::Prefetch(p) => prefetch(o, p),
        Op::ApplyPriority => o.push_str("applypriority.global.L2::evict_normal"),
        Op::Discard => o.push_str("discard.global.L2"),
        Op::CreatePolicy(c) => create_policy(o, c),
        Op::Isspacep(sp) => {
            o.push_str("isspacep");
            q(o, space_dir(*sp).trim_start_matches('.'));
        }
        Op::Cvta(c) => {
            o.push_str("cvta");
            if c.to {
                q(o, "to");
            }
            if let Some(n) = space_name(c.space) {
                q(o, n);
            }
            q(o, c.ty.name());
        }
        Op::Cvt(c) => cvt(o, c),
        Op::CvtPack(c) => {
            o.push_str("cvt.pack.sat");
            q(o, c.dst.name());
            q(o, c.src.name());
            if let Some(t) = c.c {
                q(o, t.name());
            }
        }
        _ => {}
    }
}

/// `ld` with its semantics, state space, cache operator, hints, vector and type.
fn load(o: &mut String, l: &Ld) {
    o.push_str("ld");
    match l.sem() {
        None => {}
        Some(LoadSem::Weak) => q(o, "weak"),
        Some(LoadSem::Volatile) => q(o, "volatile"),
        Some(LoadSem::Relaxed(s)) => {
            q(o, "relaxed");
            q(o, s.name());
        }
        Some(LoadSem::Acquire(s)) => {
            q(o, "acquire");
            q(o, s.name());
        }
        Some(LoadSem::Mmio) => o.push_str(".mmio.relaxed.sys"),
    }
    if let Some(n) = space_name(l.space) {
        q(o, n);
    }
    if let Some(c) = l.cop() {
        q(o, c.name());
    }
    if l.nc() {
        q(o, "nc");
    }
    hints(o, &l.hints);
    if let Some(v) = l.vec {
        q(o, v.name());
    }
    q(o, l.ty.name());
}

/// `st` with its semantics, state space, cache operator, hints, vector and type.
fn store(o: &mut String, st: &St) {
    o.push_str("st");
    match st.sem() {
        None => {}
        Some(StoreSem::Weak) => q(o, "weak"),
        Some(StoreSem::Volatile) => q(o, "volatile"),
        Some(StoreSem::Relaxed(s)) => {
            q(o, "relaxed");
            q(o, s.name());
        }
        Some(StoreSem::Release(s)) => {
            q(o, "release");
            q(o, s.name());
        }
        Some(StoreSem::Mmio) => o.push_str(".mmio.relaxed.sys"),
    }
    if let Some(n) = space_name(st.space) {
        q(o, n);
    }
    if let Some(c) = st.cop() {
        q(o, c.name());
    }
    hints(o, &st.hints);
    if let Some(v) = st.vec {
        q(o, v.name());
    }
    q(o, st.ty.name());
}

/// `prefetch{u}` with its state space and level.
fn prefetch(o: &mut String, p: &Prefetch) {
    o.push_str(if p.uniform { "prefetchu" } else { "prefetch" });
    if let Some(n) = space_name(p.space) {
        q(o, n);
    }
    q(
        o,
        match p.level {
            PrefetchLevel::L1 => "L1",
            PrefetchLevel::L2 => "L2",
            PrefetchLevel::L2EvictLast => "L2::evict_last",
            PrefetchLevel::L2EvictNormal => "L2::evict_normal",
            PrefetchLevel::Tensormap => "tensormap",
        },
    );
}

/// `createpolicy` with its kind and eviction priorities.
fn create_policy(o: &mut String, c: &CreatePolicy) {
    o.push_str("createpolicy");
    match c.kind {
        PolicyKind::Fractional => q(o, "fractional"),
        PolicyKind::Range => q(o, "range"),
        PolicyKind::Cvt => o.push_str(".cvt.L2"),
    }
    if c.kind != PolicyKind::Cvt {
        q(o, l2_evict_name(c.primary));
        if let Some(sec) = c.secondary {
            q(o, l2_evict_name(sec));
        }
    }
    q(o, "b64");
}

/// `cvt` with its rounding, modifiers and types.
fn cvt(o: &mut String, c: &Cvt) {
    o.push_str("cvt");
    match c.rnd {
        Some(CvtRounding::Float(r)) => q(o, r.name()),
        Some(CvtRounding::Int(r)) => q(o, r.name()),
        None => {}
    }
    if c.ftz {
        q(o, "ftz");
    }
    if c.sat {
        q(o, "sat");
    }
    if c.relu {
        q(o, "relu");
    }
    if c.satfinite {
        q(o, "satfinite");
    }
    q(o, c.dst.name());
    q(o, c.src.name());
}
