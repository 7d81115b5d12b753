//! The prologue of a litmus file in the dialect (litmus-format spec §1): the header after
//! `PTX` (the name and quoted comments), the `{ init }` block of locations, aliases and
//! register values, and the thread header row (`P0@cta 0,gpu 0 | …;`).

use super::address::{is_location_name, AddressReg};
use super::{err, parse_int, too_many_threads, RawError, Text, MAX_THREADS};
use crate::ast::{LocDecl, ThreadDecl};
use crate::cell::proxy_of_name;

/// The header after `PTX`, up to the `{`: the test's name and its quoted comment.
pub(super) fn header(t: &mut Text<'_>) -> Result<(String, Vec<String>), RawError> {
    // Everything up to `{` is the header: the name, then free text and quoted comments (which
    // may span lines and themselves contain quotes).
    let header_pos = t.pos;
    let header = t
        .until('{')
        .ok_or_else(|| err(header_pos, "missing the `{ … }` initial state"))?;
    let name = header.split_whitespace().next().unwrap_or("").to_string();
    let mut comments = Vec::new();
    if let (Some(a), Some(b)) = (header.find('"'), header.rfind('"')) {
        if b > a {
            comments.push(header[a + 1..b].trim().to_string());
        }
    }
    Ok((name, comments))
}

/// What the `{ init }` block declares.
pub(super) struct InitialState {
    /// The locations (values and aliases, in order).
    pub locations: Vec<(String, LocDecl)>,
    /// Register initial values.
    pub reg_init: Vec<(u32, String, i64)>,
    /// Registers holding a location's address (`P0:r2=x;`).
    pub addresses: Vec<AddressReg>,
}

/// The `{ init }` block.
pub(super) fn initial_state(t: &mut Text<'_>) -> Result<InitialState, RawError> {
    let init_line = t.pos;
    let init = t
        .until('}')
        .ok_or_else(|| err(init_line, "unterminated `{` initial state"))?;
    let mut locations = Vec::new();
    let mut reg_init = Vec::new();
    let mut addresses: Vec<AddressReg> = Vec::new();
    // The offset of each entry, kept as the entries are walked: summing the lengths before
    // each entry anew made 20,000 locations take minutes.
    let mut next = init_line;
    // Where each location is in `locations`, so a reference to one is found in constant time.
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for entry in init.split(';') {
        // Errors point at the entry itself, past the whitespace (and lines) before it.
        let line = next + (entry.len() - entry.trim_start().len());
        next += entry.len() + 1;
        let e = entry.trim();
        if e.is_empty() {
            continue;
        }
        if let Some((lhs, rhs)) = e.split_once('@') {
            let words: Vec<&str> = rhs.split_whitespace().collect();
            match words.as_slice() {
                [p, "aliases", target] => {
                    let proxy = proxy_of_name(p)
                        .ok_or_else(|| err(line, format!("unknown proxy `{p}`")))?;
                    if !index.contains_key(*target) {
                        return Err(err(
                            line,
                            format!("`{target}` must be declared before its alias"),
                        ));
                    }
                    index
                        .entry(lhs.trim().to_string())
                        .or_insert(locations.len());
                    locations.push((
                        lhs.trim().to_string(),
                        LocDecl::Alias {
                            proxy,
                            target: target.to_string(),
                        },
                    ));
                }
                _ => return Err(err(line, format!("cannot read `{e}`"))),
            }
            continue;
        }
        let (lhs, rhs) = e
            .split_once('=')
            .ok_or_else(|| err(line, format!("cannot read `{e}`")))?;
        let (lhs, rhs) = (lhs.trim(), rhs.trim());
        if let Some((th, reg)) = lhs.split_once(':') {
            let th: u32 = th
                .trim()
                .trim_start_matches('P')
                .parse()
                .map_err(|_| err(line, format!("bad thread in `{lhs}`")))?;
            let reg = reg.trim().trim_start_matches('%').to_string();
            let target = rhs.trim_start_matches('&').trim();
            match parse_int(rhs) {
                Some(v) => reg_init.push((th, reg, v)),
                // herd's register holding a location's address: `0:r2=x;` (or `&x`).
                None if is_location_name(target) => {
                    if addresses.iter().any(|a| a.thread == th && a.reg == reg) {
                        return Err(err(line, format!("P{th}:{reg} is given two addresses")));
                    }
                    addresses.push(AddressReg {
                        thread: th,
                        reg,
                        loc: target.to_string(),
                    });
                }
                None => {
                    return Err(err(
                        line,
                        format!(
                            "`{rhs}`: a register starts with an integer or a location's address"
                        ),
                    ))
                }
            }
        } else {
            let v = match parse_int(rhs) {
                Some(v) => v,
                None => {
                    let other = rhs.trim_start_matches('&');
                    match index.get(other).map(|&k| &locations[k]) {
                        Some((_, LocDecl::Value(v))) => *v,
                        _ => {
                            return Err(err(line, format!("cannot read the initial value `{rhs}`")))
                        }
                    }
                }
            };
            index.entry(lhs.to_string()).or_insert(locations.len());
            locations.push((lhs.to_string(), LocDecl::Value(v)));
        }
    }
    // A register holding a location's address declares the location, as in herd (initial
    // value 0), unless the block declares it.
    for a in &addresses {
        if !index.contains_key(&a.loc) {
            index.insert(a.loc.clone(), locations.len());
            locations.push((a.loc.clone(), LocDecl::Value(0)));
        }
    }
    Ok(InitialState {
        locations,
        reg_init,
        addresses,
    })
}

/// The thread header row: each thread's position (`@cta N,gpu M{,warp W}{,cluster C}`),
/// numbered in order.
pub(super) fn thread_header(t: &mut Text<'_>) -> Result<Vec<ThreadDecl>, RawError> {
    t.skip_ws();
    let th_line = t.pos;
    let header_row = t
        .until(';')
        .ok_or_else(|| err(th_line, "missing the thread header row"))?;
    let mut threads = Vec::new();
    for (k, decl) in header_row.split('|').enumerate() {
        if k >= MAX_THREADS {
            return Err(too_many_threads(th_line));
        }
        let d = decl.trim();
        let (p, pos) = d
            .split_once('@')
            .ok_or_else(|| err(th_line, format!("thread `{d}` needs @cta N,gpu M")))?;
        let id: u32 = p
            .trim()
            .trim_start_matches('P')
            .parse()
            .map_err(|_| err(th_line, format!("bad thread name `{p}`")))?;
        if id as usize != k {
            return Err(err(
                th_line,
                format!("thread {k} is named P{id}; threads must be numbered in order"),
            ));
        }
        let mut cta = None;
        let mut gpu = None;
        let mut warp = None;
        let mut cluster = None;
        for part in pos.split(',') {
            let w: Vec<&str> = part.split_whitespace().collect();
            let number = |what: &str, n: &str| {
                n.parse::<u32>()
                    .map_err(|_| err(th_line, format!("cannot read the {what} of `{d}`")))
            };
            match w.as_slice() {
                ["cta", n] => cta = n.parse().ok(),
                ["gpu", n] => gpu = n.parse().ok(),
                ["warp", n] => warp = Some(number("warp", n)?),
                ["cluster", n] => cluster = Some(number("cluster", n)?),
                _ => return Err(err(th_line, format!("cannot read the position `{pos}`"))),
            }
        }
        threads.push(ThreadDecl {
            id,
            cta: cta.ok_or_else(|| err(th_line, format!("thread P{id} needs a cta")))?,
            gpu: gpu.ok_or_else(|| err(th_line, format!("thread P{id} needs a gpu")))?,
            warp,
            cluster,
        });
    }
    same_cluster_per_cta(&threads).map_err(|why| err(th_line, why))?;
    Ok(threads)
}

/// Refuses two threads of one CTA that name different clusters: a CTA lies in one cluster.
fn same_cluster_per_cta(threads: &[ThreadDecl]) -> Result<(), String> {
    for (k, a) in threads.iter().enumerate() {
        for b in &threads[k + 1..] {
            if let (Some(ca), Some(cb)) = (a.cluster, b.cluster) {
                if (a.gpu, a.cta) == (b.gpu, b.cta) && ca != cb {
                    return Err(format!(
                        "P{} and P{} share CTA {} of GPU {} but name clusters {ca} and {cb}",
                        a.id, b.id, a.cta, a.gpu
                    ));
                }
            }
        }
    }
    Ok(())
}
