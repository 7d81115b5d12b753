//! The keys of observed states, checked before any outcome is judged: a state with a key
//! twice, a key the test does not have (a thread it lacks, a location it does not declare, a
//! register its thread never writes), or fewer keys than the other states of its histogram is
//! refused with the line it came from, never quietly narrowed or overwritten.

use std::collections::BTreeSet;

use crate::ast::{Inst, Test};
use crate::compare::{Observed, State};

/// Adds `key` = `value` to `state`, refusing a key already there.
///
/// # Errors
/// `` `P1:r1` appears twice in this state ``.
pub(crate) fn insert_once(state: &mut State, key: String, value: i64) -> Result<(), String> {
    if state.contains_key(&key) {
        return Err(format!("`{key}` appears twice in this state"));
    }
    state.insert(key, value);
    Ok(())
}

/// Refuses a histogram whose states do not all name the same keys; `origins[k]` says where
/// state `k` came from (`line 12`).
///
/// # Errors
/// `line 13: this state lacks `P1:r1`, which line 12 has` (or has a key the others lack).
pub(crate) fn same_keys(states: &[(State, u64)], origins: &[String]) -> Result<(), String> {
    let Some((first, _)) = states.first() else {
        return Ok(());
    };
    for (k, (s, _)) in states.iter().enumerate().skip(1) {
        let here = |i: usize| origins.get(i).map_or("a state", String::as_str).to_string();
        if let Some(missing) = first.keys().find(|key| !s.contains_key(*key)) {
            return Err(format!(
                "{}: this state lacks `{missing}`, which {} has",
                here(k),
                here(0)
            ));
        }
        if let Some(extra) = s.keys().find(|key| !first.contains_key(*key)) {
            return Err(format!(
                "{}: this state has `{extra}`, which {} lacks",
                here(k),
                here(0)
            ));
        }
    }
    Ok(())
}

/// Refuses an observation naming a key `test` does not have, or lacking one of the terms the
/// model reports (`model_terms`, normalised).
///
/// # Errors
/// The first bad key, with the origin of its state.
pub(crate) fn check_against(
    test: &Test,
    obs: &Observed,
    model_terms: &[String],
) -> Result<(), String> {
    for (k, (state, _)) in obs.states.iter().enumerate() {
        let origin = obs
            .origins
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("state {k}"));
        for key in state.keys() {
            if let Some(why) = unknown(test, key) {
                return Err(format!("{origin}: `{key}` {why}"));
            }
        }
        if let Some(t) = model_terms.iter().find(|t| !state.contains_key(*t)) {
            return Err(format!(
                "{origin}: the state lacks `{t}`, which the test's condition reads"
            ));
        }
    }
    Ok(())
}

/// Why `key` (normalised: `P1:r0` or `x`) is not a term of `test`, if it is not.
fn unknown(test: &Test, key: &str) -> Option<String> {
    let Some((th, reg)) = key.split_once(':') else {
        return (!test.locations.iter().any(|(l, _)| l == key))
            .then(|| "is not a location the test declares".to_string());
    };
    let n = test.threads.len();
    let Some(t) = th.strip_prefix('P').and_then(|d| d.parse::<usize>().ok()) else {
        return Some("does not name a thread".to_string());
    };
    if t >= n {
        return Some(format!("names thread {t}, but the test has {n} thread(s)"));
    }
    (!registers(test, t).contains(reg))
        .then(|| format!("is not a register thread {t} writes or initialises"))
}

/// The registers thread `t` initialises or writes. A register named in an instruction kept as
/// raw PTX text counts when the text holds it as a word.
fn registers(test: &Test, t: usize) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = test
        .reg_init
        .iter()
        .filter(|(th, _, _)| *th as usize == t)
        .map(|(_, r, _)| r.trim_start_matches('%').to_string())
        .collect();
    for (inst, _) in test.code.get(t).map_or(&[][..], Vec::as_slice) {
        match inst {
            Inst::Load { reg, .. } | Inst::Move { reg, .. } | Inst::Arith { reg, .. } => {
                out.insert(reg.trim_start_matches('%').to_string());
            }
            Inst::Rmw { reg: Some(reg), .. } => {
                out.insert(reg.trim_start_matches('%').to_string());
            }
            Inst::Ptx(text) => {
                out.extend(
                    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|w| !w.is_empty())
                        .map(str::to_string),
                );
            }
            _ => {}
        }
    }
    out
}
