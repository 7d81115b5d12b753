//! The qualifiers of `cp.async` (non-bulk) and `mbarrier` (PTX ISA "cp.async",
//! "cp.async.commit_group", "cp.async.wait_group", "cp.async.mbarrier.arrive", "mbarrier").
//!
//! The bulk and tensor copies (`cp.async.bulk*`) and other `cp` forms are refused as
//! unsupported, naming the instruction.

use crate::front::error::{Error, ErrorKind};
use crate::front::quals::Quals;
use crate::ir::{CpAsync, CpAsyncCopy, Mbarrier, MbarrierOp, MbarrierSem, Op, Type};
use models::vocab::Scope;

fn unsupported(q: &Quals, name: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported(format!("the `{name}` instruction")),
        q.span,
    )
}

/// `.shared` (Some(false)), `.shared::cta` (Some(true)) or nothing (None); `.shared::cluster`
/// and other spaces are left for `finish` to report.
fn shared(q: &mut Quals) -> Option<bool> {
    if q.take("shared::cta") {
        Some(true)
    } else if q.take("shared") {
        Some(false)
    } else {
        None
    }
}

/// Parses `cp.…` (the opcode `cp` with its qualifiers).
///
/// # Errors
/// A `cp` form other than the non-bulk `cp.async` family, or missing qualifiers.
pub fn parse_cp(q: &mut Quals) -> Result<Op, Error> {
    if q.first() == Some("reduce") || (q.first() == Some("async") && q.second() == Some("bulk")) {
        return crate::tma::syntax::parse_cp(q);
    }
    if !q.take("async") {
        let what = q
            .remaining()
            .next()
            .map_or("cp".into(), |s| format!("cp.{s}"));
        return Err(unsupported(q, &what));
    }
    if q.first() == Some("async") {
        if let Some(s) = q.second() {
            if s.starts_with("bulk") {
                return Err(unsupported(q, &format!("cp.async.{s}")));
            }
        }
    }
    if q.take("commit_group") {
        return Ok(Op::CpAsync(CpAsync::CommitGroup));
    }
    if q.take("wait_group") {
        return Ok(Op::CpAsync(CpAsync::WaitGroup));
    }
    if q.take("wait_all") {
        return Ok(Op::CpAsync(CpAsync::WaitAll));
    }
    if q.take("mbarrier") {
        if !q.take("arrive") {
            return Err(q.syntax("cp.async.mbarrier needs .arrive".into()));
        }
        let noinc = q.take("noinc");
        let sh = shared(q);
        if !q.take("b64") {
            return Err(q.syntax("cp.async.mbarrier.arrive needs .b64".into()));
        }
        return Ok(Op::CpAsync(CpAsync::MbarrierArrive { noinc, shared: sh }));
    }
    // The destination space comes before the source space (`.global.shared` is refused).
    let order: Vec<&str> = q.remaining().collect();
    let pos = |n: &[&str]| order.iter().position(|s| n.contains(s));
    if let (Some(s), Some(g)) = (pos(&["shared", "shared::cta"]), pos(&["global"])) {
        if g < s {
            return Err(q.syntax("cp.async is written .shared{::cta}.global".into()));
        }
    }
    let cg = if q.take("cg") {
        true
    } else if q.take("ca") {
        false
    } else {
        return Err(q.syntax("cp.async needs .ca or .cg".into()));
    };
    let explicit_cta = match shared(q) {
        Some(e) => e,
        None => return Err(q.syntax("cp.async needs .shared{::cta}".into())),
    };
    if !q.take("global") {
        return Err(q.syntax("cp.async needs .global".into()));
    }
    let cache_hint = q.take("L2::cache_hint");
    let prefetch = q.take_map(|s| match s {
        "L2::64B" => Some(64),
        "L2::128B" => Some(128),
        "L2::256B" => Some(256),
        _ => None,
    });
    Ok(Op::CpAsync(CpAsync::Copy(CpAsyncCopy {
        cg,
        explicit_cta,
        cache_hint,
        prefetch,
    })))
}

/// Parses `mbarrier.…`.
///
/// # Errors
/// An unknown operation or missing `.b64`.
pub fn parse_mbarrier(q: &mut Quals) -> Result<Op, Error> {
    let op = if q.take("init") {
        MbarrierOp::Init
    } else if q.take("inval") {
        MbarrierOp::Inval
    } else if q.take("arrive") || q.take("arrive_drop") {
        let drop = q.first() == Some("arrive_drop");
        MbarrierOp::Arrive {
            drop,
            expect_tx: q.take("expect_tx"),
            no_complete: q.take("noComplete"),
        }
    } else if q.take("expect_tx") {
        MbarrierOp::ExpectTx
    } else if q.take("complete_tx") {
        MbarrierOp::CompleteTx
    } else if q.take("test_wait") {
        MbarrierOp::TestWait {
            parity: q.take("parity"),
        }
    } else if q.take("try_wait") {
        MbarrierOp::TryWait {
            parity: q.take("parity"),
        }
    } else if q.take("pending_count") {
        MbarrierOp::PendingCount
    } else {
        let what = q
            .remaining()
            .next()
            .map_or("mbarrier".into(), |s| format!("mbarrier.{s}"));
        return Err(q.syntax(format!("unknown mbarrier operation in `{what}`")));
    };
    let sem = if q.take("relaxed") {
        MbarrierSem::Relaxed
    } else if q.take("acquire") {
        MbarrierSem::Acquire
    } else if q.take("release") {
        MbarrierSem::Release
    } else {
        MbarrierSem::Default
    };
    let scope = q.take_map(|s| match s {
        "cta" => Some(Scope::Cta),
        "cluster" => Some(Scope::Cluster),
        _ => None,
    });
    let cluster = q.take("shared::cluster");
    let sh = if cluster { Some(true) } else { shared(q) };
    if q.ty()? != Type::B64 {
        return Err(q.syntax("mbarrier needs .b64".into()));
    }
    Ok(Op::Mbarrier(Mbarrier {
        op,
        sem,
        scope,
        shared: sh,
        cluster,
    }))
}

fn shared_name(s: Option<bool>) -> &'static str {
    match s {
        Some(true) => ".shared::cta",
        Some(false) => ".shared",
        None => "",
    }
}

/// Writes the mnemonic of a `cp.async` instruction.
pub fn cp_mnemonic(o: &mut String, c: &CpAsync) {
    match c {
        CpAsync::Copy(CpAsyncCopy {
            cg,
            explicit_cta,
            cache_hint,
            prefetch,
        }) => {
            o.push_str(if *cg { "cp.async.cg" } else { "cp.async.ca" });
            o.push_str(shared_name(Some(*explicit_cta)));
            o.push_str(".global");
            if *cache_hint {
                o.push_str(".L2::cache_hint");
            }
            if let Some(p) = prefetch {
                o.push_str(&format!(".L2::{p}B"));
            }
        }
        CpAsync::CommitGroup => o.push_str("cp.async.commit_group"),
        CpAsync::WaitGroup => o.push_str("cp.async.wait_group"),
        CpAsync::WaitAll => o.push_str("cp.async.wait_all"),
        CpAsync::MbarrierArrive { noinc, shared } => {
            o.push_str("cp.async.mbarrier.arrive");
            if *noinc {
                o.push_str(".noinc");
            }
            o.push_str(shared_name(*shared));
            o.push_str(".b64");
        }
    }
}

/// Writes the mnemonic of an `mbarrier` instruction.
pub fn mbarrier_mnemonic(o: &mut String, m: &Mbarrier) {
    let Mbarrier {
        op,
        sem,
        scope,
        shared,
        cluster,
    } = m;
    o.push_str("mbarrier.");
    match op {
        MbarrierOp::Init => o.push_str("init"),
        MbarrierOp::Inval => o.push_str("inval"),
        MbarrierOp::Arrive {
            drop,
            expect_tx,
            no_complete,
        } => {
            o.push_str(if *drop { "arrive_drop" } else { "arrive" });
            if *expect_tx {
                o.push_str(".expect_tx");
            }
            if *no_complete {
                o.push_str(".noComplete");
            }
        }
        MbarrierOp::ExpectTx => o.push_str("expect_tx"),
        MbarrierOp::CompleteTx => o.push_str("complete_tx"),
        MbarrierOp::TestWait { parity } | MbarrierOp::TryWait { parity } => {
            o.push_str(if matches!(op, MbarrierOp::TestWait { .. }) {
                "test_wait"
            } else {
                "try_wait"
            });
            if *parity {
                o.push_str(".parity");
            }
        }
        MbarrierOp::PendingCount => o.push_str("pending_count"),
    }
    o.push_str(match sem {
        MbarrierSem::Default => "",
        MbarrierSem::Relaxed => ".relaxed",
        MbarrierSem::Acquire => ".acquire",
        MbarrierSem::Release => ".release",
    });
    match scope {
        Some(Scope::Cta) => o.push_str(".cta"),
        Some(Scope::Cluster) => o.push_str(".cluster"),
        Some(s) => o.push_str(&format!(".{}", s.name())),
        None => {}
    }
    o.push_str(if *cluster {
        ".shared::cluster"
    } else {
        shared_name(*shared)
    });
    o.push_str(".b64");
}
