//! CTA barriers in litmus tests, as the corpus defines them (litmus-format spec §3.2, §2.4):
//! which combinations of thread paths are consistent with the barriers they reach, and the
//! barrier synchronisation (`syncbar`) each consistent combination may have.
//!
//! * Unnamed `bar.cta.sync N`: the barriers with instance N in threads of one CTA form a group;
//!   if every member is reached (executed, or waited at), all execute; otherwise none does.
//! * Named `bar.cta.sync N, id`: the same, over the members whose id equals (a register id
//!   counts with its runtime value).
//! * Quorum `bar.cta.sync N, id, q`: if at least q members with an equal id are reached, all of
//!   them execute, and some subset of at least q of them forms the *sync set*: only a barrier in
//!   the sync set orders what precedes it before what follows the others. Otherwise all wait.
//! * `syncbar(a, b)`: a and b executed, same instance (and id), same CTA, b not an arrive (and
//!   a in the sync set for quorum barriers). It includes a = b.

use models::event::BarrierTag;
use models::rel::Rel;

/// A barrier instruction of a thread, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticBarrier {
    /// Thread.
    pub thread: usize,
    /// Instruction index in the thread.
    pub instr: usize,
    /// Instance, when a constant.
    pub instance: Option<i64>,
    /// `Some(Some(v))` a constant id, `Some(None)` an id in a register, `None` unnamed.
    pub id: Option<Option<i64>>,
    /// Whether a quorum is given.
    pub quorum: bool,
}

/// A barrier reached on one path: executed (with its event index) or waited at forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reached {
    /// Thread.
    pub thread: usize,
    /// Instruction index.
    pub instr: usize,
    /// The barrier with its runtime instance, id and quorum.
    pub tag: BarrierTag,
    /// The event's index in the skeleton, or `None` when the thread waits here forever.
    pub event: Option<usize>,
}

/// Where a thread sits: (gpu, cta).
pub type Place = (u32, u32);

fn same_group(a: &Reached, b: &Reached, places: &[Place]) -> bool {
    places[a.thread].1 == places[b.thread].1
        && a.tag.instance == b.tag.instance
        && a.tag.id.is_some() == b.tag.id.is_some()
}

/// The `syncbar` relations a combination of paths may have, or an empty list when the
/// combination is impossible (a barrier executed without its group, or waited at although its
/// group is complete). `n` is the number of events; `places` each thread's position.
pub fn syncbar_options(
    statics: &[StaticBarrier],
    reached: &[Reached],
    places: &[Place],
    n: usize,
) -> Vec<Rel> {
    let is_reached = |s: &StaticBarrier, id: Option<i64>| {
        reached
            .iter()
            .any(|r| r.thread == s.thread && r.instr == s.instr && (id.is_none() || r.tag.id == id))
    };
    // Each reached barrier: may it execute (its group complete)?
    let mut quorum_groups: Vec<Vec<usize>> = Vec::new();
    for (k, r) in reached.iter().enumerate() {
        let cta = places[r.thread].1;
        let members = statics.iter().filter(|s| {
            places[s.thread].1 == cta
                && s.instance.is_none_or(|i| i == r.tag.instance)
                && s.id.is_some() == r.tag.id.is_some()
        });
        let complete = match (r.tag.id, r.tag.quorum) {
            (None, _) => members.clone().all(|s| is_reached(s, None)),
            (Some(id), None) => members.clone().all(|s| match s.id {
                Some(Some(lit)) if lit != id => true,
                Some(Some(_)) => is_reached(s, None),
                // A register id: it counts when reached with an equal value.
                _ => true,
            }),
            (Some(id), Some(q)) => {
                let count = reached
                    .iter()
                    .filter(|o| same_group(o, r, places) && o.tag.id == Some(id))
                    .count();
                if count as i64 >= q && !quorum_groups.iter().any(|g| g.contains(&k)) {
                    let g: Vec<usize> = (0..reached.len())
                        .filter(|&j| {
                            same_group(&reached[j], r, places) && reached[j].tag.id == Some(id)
                        })
                        .collect();
                    quorum_groups.push(g);
                }
                count as i64 >= q
            }
        };
        if complete != r.event.is_some() {
            return Vec::new();
        }
    }
    // The base relation, without the sync-set restriction of quorum barriers.
    let mut base = Rel::empty(n);
    for a in reached {
        for b in reached {
            let (Some(ea), Some(eb)) = (a.event, b.event) else {
                continue;
            };
            if places[a.thread] == places[b.thread]
                && a.tag.instance == b.tag.instance
                && a.tag.id == b.tag.id
                && !b.tag.arrive
            {
                base.add(ea, eb);
            }
        }
    }
    let mut options = vec![base];
    for g in &quorum_groups {
        let q = reached[g[0]].tag.quorum.unwrap_or(0).max(0) as usize;
        let mut next = Vec::new();
        for o in &options {
            for mask in 0u32..(1 << g.len()) {
                if (mask.count_ones() as usize) < q {
                    continue;
                }
                let mut r = o.clone();
                for (bit, &k) in g.iter().enumerate() {
                    if mask >> bit & 1 == 0 {
                        // Not in the sync set: orders nothing as a source.
                        let ea = reached[k].event.unwrap_or(usize::MAX);
                        for &j in g {
                            if let Some(eb) = reached[j].event {
                                r.remove(ea, eb);
                            }
                        }
                    }
                }
                next.push(r);
            }
        }
        options = next;
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(thread: usize, instance: i64, id: Option<Option<i64>>, quorum: bool) -> StaticBarrier {
        StaticBarrier {
            thread,
            instr: 0,
            instance: Some(instance),
            id,
            quorum,
        }
    }

    fn tag(instance: i64, id: Option<i64>, quorum: Option<i64>) -> BarrierTag {
        BarrierTag {
            instance,
            id,
            quorum,
            arrive: false,
        }
    }

    #[test]
    fn unnamed_groups_are_all_or_nothing() {
        let places = [(0, 0), (0, 0)];
        let s = [st(0, 1, None, false), st(1, 1, None, false)];
        let both = [
            Reached {
                thread: 0,
                instr: 0,
                tag: tag(1, None, None),
                event: Some(0),
            },
            Reached {
                thread: 1,
                instr: 0,
                tag: tag(1, None, None),
                event: Some(1),
            },
        ];
        let o = syncbar_options(&s, &both, &places, 2);
        assert_eq!(o.len(), 1);
        assert!(o[0].has(0, 1) && o[0].has(1, 0) && o[0].has(0, 0));
        // One thread never gets there: the other cannot pass, but may wait.
        let one = [Reached {
            thread: 0,
            instr: 0,
            tag: tag(1, None, None),
            event: Some(0),
        }];
        assert!(syncbar_options(&s, &one, &places, 2).is_empty());
        let waits = [Reached {
            thread: 0,
            instr: 0,
            tag: tag(1, None, None),
            event: None,
        }];
        assert_eq!(syncbar_options(&s, &waits, &places, 2).len(), 1);
        // Different CTAs never form one group.
        let apart = [(0, 0), (0, 1)];
        assert_eq!(syncbar_options(&s, &one, &apart, 2).len(), 1);
    }

    #[test]
    fn quorum_sync_sets() {
        let places = [(0, 0); 3];
        let s = [
            st(0, 1, Some(Some(1)), true),
            st(1, 1, Some(Some(1)), true),
            st(2, 1, Some(Some(1)), true),
        ];
        let all: Vec<Reached> = (0..3)
            .map(|t| Reached {
                thread: t,
                instr: 0,
                tag: tag(1, Some(1), Some(2)),
                event: Some(t),
            })
            .collect();
        // Subsets of size ≥ 2 of three barriers: 3 + 1.
        let o = syncbar_options(&s, &all, &places, 3);
        assert_eq!(o.len(), 4);
        assert!(
            o.iter().any(|r| !r.has(2, 0) && r.has(0, 2)),
            "a late arriver orders nothing"
        );
        // Quorum 4 with three threads: everybody waits.
        let hang: Vec<Reached> = (0..3)
            .map(|t| Reached {
                thread: t,
                instr: 0,
                tag: tag(1, Some(1), Some(4)),
                event: None,
            })
            .collect();
        assert_eq!(syncbar_options(&s, &hang, &places, 3).len(), 1);
        let pass: Vec<Reached> = (0..3)
            .map(|t| Reached {
                thread: t,
                instr: 0,
                tag: tag(1, Some(1), Some(4)),
                event: Some(t),
            })
            .collect();
        assert!(syncbar_options(&s, &pass, &places, 3).is_empty());
    }
}
