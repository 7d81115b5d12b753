//! The JSON form of race reports, written once for `ptxemu run --race --json` and the Python
//! package's `stats.races`, and read back by `ptxemu explain --race-report`.
//!
//! Each access: `line`, `instruction`, `source` (the `.loc` position: `file`, `line`,
//! `column`, `inlined_at`; `null` without `.loc`), `kind` (read/write/atomic), `sem`, `scope` (`cta`,
//! `cluster`, `gpu`, `sys`, or `null` for a weak access: the one spelling of "no scope"),
//! `space`, `cta`, `thread`, `warp`, `lane`, `address` (a hex string; an offset for `space:
//! shared`), `bytes`, `argument` (for a global address in a buffer passed as an argument:
//! `index`, `name` (the PTX parameter's), `offset` in bytes; else `null`), and for shared
//! memory in clusters `owner_cta` and `owner_rank`. Each race: `first`, `second`, `reason`,
//! `count` (racing access pairs of the two instructions), `fence_sc_dependent` and
//! `identical_lanes` (both writes of identical bytes, by lanes of one warp executing one
//! instruction).

use serde_json::{json, Value};

use super::report::{AccessReport, Race, RaceReport};

/// One access of a race.
pub fn access(a: &AccessReport) -> Value {
    let mut j = json!({
        "line": a.line,
        "instruction": a.instruction,
        "source": a.source.as_ref().map(|s| s.json()),
        "kind": a.kind,
        "sem": a.sem,
        "scope": a.scope,
        "space": a.space,
        "cta": a.cta,
        "thread": a.thread,
        "warp": a.warp,
        "lane": a.lane,
        "address": format!("0x{:x}", a.address),
        "bytes": a.bytes,
        "argument": a.argument.as_ref().map(|b| json!({
            "index": b.index,
            "name": b.name,
            "offset": b.offset,
        })),
    });
    if let Some((cta, rank)) = a.owner {
        j["owner_cta"] = json!(cta);
        j["owner_rank"] = json!(rank);
    }
    j
}

/// One race.
pub fn race(r: &Race) -> Value {
    json!({
        "first": access(&r.first),
        "second": access(&r.second),
        "reason": r.reason,
        "count": r.count,
        "fence_sc_dependent": r.fence_sc_dependent,
        "identical_lanes": r.identical_lanes,
    })
}

/// A launch's races, as an array.
pub fn races(rep: &RaceReport) -> Value {
    Value::Array(rep.races.iter().map(race).collect())
}
