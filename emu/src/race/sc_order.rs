//! Races that depend on Fence-SC order (docs/race.md, "Fence-SC order").
//!
//! The PTX memory model lets Fence-SC order (the order among morally strong `fence.sc`, part
//! of synchronizes-with) be any order that does not contradict causality order
//! (docs/spec/memory-model.md §5.1, §6 axiom 2). A run fixes one: the order in which the
//! fences executed. A pair of accesses that this order alone orders may be unordered under
//! another Fence-SC order of the same execution, and is then a data race of the program that
//! a single run must not hide (the last-block reduction whose last block does no acquire).
//!
//! The detector decides it for each such pair, `a` (earlier) and `b`:
//!
//! - The clocks keep what was learned through a Fence-SC edge apart ([`VIA_SC`] entries), so
//!   a pair is *ordered only through Fence-SC order* when the untagged entries leave it
//!   unordered and the tagged ones order it.
//! - Let A be the `fence.sc` that `a` reaches without Fence-SC order (program order and
//!   synchronisation: release/acquire patterns, barriers, mbarriers, copies' waits) and B
//!   those that reach `b` so. Let G be program order, that synchronisation, and the
//!   communication of the run (reads-from, coherence and from-reads between accesses of the
//!   same bytes; the interpreter performs accesses one at a time, so all of them point
//!   forward in the run).
//! - **If no fence of A reaches a fence of B through G, the pair races.** Witness: an order of
//!   all events that extends G and puts everything that reaches B first (it exists because G
//!   is acyclic and no fence of A is among those), taken as the new Fence-SC order on every
//!   morally strong pair of fences. Every value read stays the same (G contains every
//!   reads-from and from-reads edge, so Causality and Coherence still hold; the other axioms
//!   do not mention Fence-SC order), the FenceSC axiom holds (causality order follows the
//!   order), and no path from `a` to `b` remains: every causality edge points forward in the
//!   new order, while every fence `a` reaches lies after every fence that reaches `b`.
//! - Otherwise some fence of A reaches a fence of B through G, and every Fence-SC order
//!   consistent with the run's values puts them in that order. When every fence of the run
//!   is `.gpu` or `.sys` (so every two are morally strong and Fence-SC order relates them),
//!   that orders `a` before `b` in every such execution: the pair is not reported.
//! - With narrower fences (`.cta`, `.cluster`) Fence-SC order relates only morally strong
//!   pairs, and a chain through G need not be one. The detector then searches an order
//!   itself over the fences of the run (`search`): it schedules the fences in an order that
//!   extends G, taking a fence that `a` does not reach whenever one is ready, and follows what
//!   `a` reaches (its fences of A, then every fence a reached fence precedes and is morally
//!   strong with, or reaches without Fence-SC order). If no fence of B is reached, the order
//!   is a witness and the pair races; otherwise the pair is not reported (the search takes
//!   the run's own order among reached fences, so it is never worse than the run, but it
//!   does not try every order: a race could be missed, never invented). It runs on at most
//!   [`SEARCH_FENCES`] fences and a launch-wide budget of steps; past them the pair counts as
//!   undecided.
//!
//! How G is followed: [`FENCE_REACH`] entries (thread `t`'s latest `fence.sc` that reaches
//! this point) are raised by each fence, travel with clocks through every synchronisation,
//! and travel through memory here: shadow memory keeps, per word, the reach of its last
//! write and the joined reach of the reads since, which a later read (reads-from) or write
//! (coherence, from-reads) joins. At each fence its reach is copied into [`FENCES_BEFORE`]
//! entries, which travel through synchronisation only, so that a clock's `FENCES_BEFORE`
//! entries say which fences reach some fence of B. Deciding a pair then looks up, for each
//! thread `t` in them, `t`'s fence at that clock in the [`FenceLog`] and whether `a` reaches
//! it (so it is in A).
//!
//! Not followed (deviations): Tensor Memory and `ld.global.nc` accesses are not shadowed, so
//! communication through them is not in G; a `cp.async`'s or bulk copy's accesses are taken
//! at the issue, like the rest of the detector's view of them.

use std::collections::HashMap;
use std::sync::Arc;

use models::vocab::Scope;

use super::vc::{Vc, FENCES_BEFORE, FENCE_REACH, VIA_SC};

/// `fence.sc` instances logged before decisions stop (each costs one clock reference); past
/// it, pairs ordered only through Fence-SC order are counted as undecided and not reported.
pub const MAX_FENCES: usize = 1 << 20;

/// Fences the order search of narrow-scope runs looks at, at most.
pub const SEARCH_FENCES: usize = 2048;

/// Steps (fence pairs looked at) the order searches of one launch may take together.
pub const SEARCH_BUDGET: u64 = 1 << 27;

/// One executed `fence.sc`.
#[derive(Clone, Debug)]
pub struct FenceRecord {
    /// The fencing thread.
    pub owner: u32,
    /// Its CTA (linear).
    pub cta: u32,
    /// The fence's scope.
    pub scope: Scope,
    /// The fencing thread's clock value at the fence (its own entry).
    pub clk: u32,
    /// The instruction.
    pub pc: u32,
    /// The thread's clock at the fence without its own entry (the untagged entries are what
    /// reaches the fence without Fence-SC order; [`FENCE_REACH`] ones, what reaches it through
    /// G).
    pub base: Arc<Vc>,
}

impl FenceRecord {
    /// Whether the event of thread (or agent) `t` at clock `c` reaches this fence without
    /// Fence-SC order.
    pub fn reached_by(&self, t: u32, c: u32) -> bool {
        if t == self.owner {
            c <= self.clk
        } else {
            self.base.get(t) >= c
        }
    }

    /// Whether fence `x` reaches this one through G (program order, synchronisation,
    /// communication).
    pub fn g_after(&self, x: &FenceRecord) -> bool {
        if x.owner == self.owner {
            x.clk < self.clk
        } else {
            self.base.get(x.owner | FENCE_REACH) >= x.clk
        }
    }
}

/// The clock of the later access's thread: its base and own counter.
#[derive(Clone, Copy, Debug)]
pub struct Later<'a> {
    /// The thread.
    pub me: u32,
    /// Its clock without its own entry.
    pub base: &'a Vc,
    /// Its own entry.
    pub own: u32,
}

impl Later<'_> {
    /// Whether fence `x` precedes the later access without Fence-SC order (is in B).
    fn after(&self, x: &FenceRecord) -> bool {
        if x.owner == self.me {
            x.clk <= self.own
        } else {
            self.base.get(x.owner) >= x.clk
        }
    }
}

/// Every `fence.sc` of a launch, per thread in execution order.
#[derive(Debug, Default)]
pub struct FenceLog {
    by_thread: HashMap<u32, Vec<FenceRecord>>,
    /// (thread, index in its list), in execution order.
    order: Vec<(u32, u32)>,
    /// Whether fences were left out ([`MAX_FENCES`]).
    pub full: bool,
    /// Whether some fence has a scope narrower than `.gpu`.
    narrow: bool,
    /// Steps the order searches took.
    steps: u64,
}

impl FenceLog {
    /// Logs a fence.
    pub fn push(&mut self, r: FenceRecord) {
        if self.order.len() >= MAX_FENCES {
            self.full = true;
            return;
        }
        self.narrow |= r.scope < Scope::Gpu;
        let list = self.by_thread.entry(r.owner).or_default();
        self.order
            .push((r.owner, u32::try_from(list.len()).unwrap_or(u32::MAX)));
        list.push(r);
    }

    /// Thread `t`'s latest fence at clock `c` or before.
    pub fn at(&self, t: u32, c: u32) -> Option<&FenceRecord> {
        let v = self.by_thread.get(&t)?;
        let i = v.partition_point(|r| r.clk <= c);
        i.checked_sub(1).map(|i| &v[i])
    }

    /// Thread `t`'s first fence at clock `c` or after (the first it runs after its event at
    /// `c`).
    pub fn first_after(&self, t: u32, c: u32) -> Option<&FenceRecord> {
        let v = self.by_thread.get(&t)?;
        v.get(v.partition_point(|r| r.clk < c))
    }

    /// Fences logged.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Every fence, in execution order.
    fn in_order(&self) -> impl Iterator<Item = &FenceRecord> + '_ {
        self.order
            .iter()
            .filter_map(|&(t, i)| self.by_thread.get(&t)?.get(i as usize))
    }
}

/// A `fence.sc` named in a report: its instruction (pc) and thread.
pub type NamedFence = (u32, u32);

/// What another Fence-SC order makes of a pair that this run's order alone orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScVerdict {
    /// Some order consistent with the run leaves the pair unordered: a race. `after_first` is
    /// the first `fence.sc` of the earlier access's thread after it, `before_second` a
    /// `fence.sc` ordered before the later access without Fence-SC order (pc and thread).
    Races {
        /// The fence after the earlier access, when its own thread ran one.
        after_first: Option<NamedFence>,
        /// A fence before the later access.
        before_second: Option<NamedFence>,
    },
    /// Every such order orders the pair (for fences of narrower scopes: or the test could
    /// not tell).
    Ordered,
    /// The fence log was full.
    Undecided,
}

/// Decides the pair of the access of thread (or agent) `t` at clock `c` and a later access
/// whose thread's clock is `later`; `ms` says whether two fences are morally strong.
pub fn decide(
    log: &mut FenceLog,
    later: Later<'_>,
    (t, c): (u32, u32),
    ms: impl Fn(&FenceRecord, &FenceRecord) -> bool,
) -> ScVerdict {
    if log.full {
        return ScVerdict::Undecided;
    }
    let blocked = later
        .base
        .range(FENCES_BEFORE, FENCE_REACH)
        .iter()
        .any(|&(id, clk)| {
            let owner = id & !FENCES_BEFORE;
            log.at(owner, clk).is_some_and(|x| x.reached_by(t, c))
        });
    if blocked {
        if !log.narrow {
            return ScVerdict::Ordered;
        }
        match search(log, later, (t, c), ms) {
            Some(true) => {}
            Some(false) => return ScVerdict::Ordered,
            None => return ScVerdict::Undecided,
        }
    }
    // Name a fence of B: the later thread's own latest, else one of a thread it synchronised
    // with.
    let me = later.me;
    let own = log
        .at(me, later.base.get(me | FENCE_REACH))
        .map(|r| (r.pc, me));
    let before_second = own.or_else(|| {
        log.in_order()
            .filter(|r| later.after(r))
            .last()
            .map(|r| (r.pc, r.owner))
    });
    ScVerdict::Races {
        // An agent's clock is not its thread's: no fence of the thread to name.
        after_first: (t & super::cta::AGENTS == 0)
            .then(|| log.first_after(t, c).map(|r| (r.pc, t)))
            .flatten(),
        before_second,
    }
}

/// Looks for a Fence-SC order under which the access of `t` at clock `c` reaches no fence
/// before the later access (module doc): `Some(true)` when found, `Some(false)` when the
/// search's order reaches one, `None` past the search's limits.
fn search(
    log: &mut FenceLog,
    later: Later<'_>,
    (t, c): (u32, u32),
    ms: impl Fn(&FenceRecord, &FenceRecord) -> bool,
) -> Option<bool> {
    let n = log.len();
    let cost = (n as u64) * (n as u64);
    if n > SEARCH_FENCES || log.steps + cost > SEARCH_BUDGET {
        return None;
    }
    log.steps += cost;
    let fences: Vec<&FenceRecord> = log.in_order().collect();
    // Fences each one waits for (G), and how many of them are not scheduled yet.
    let mut waiting = vec![0u32; n];
    let mut followers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, y) in fences.iter().enumerate() {
        for (j, x) in fences.iter().enumerate() {
            if i != j && y.g_after(x) {
                waiting[i] += 1;
                followers[j].push(i);
            }
        }
    }
    // `reached[i]`: whether fence i, scheduled now, would be reached from the access.
    let mut reached: Vec<bool> = fences.iter().map(|x| x.reached_by(t, c)).collect();
    let in_b: Vec<bool> = fences.iter().map(|x| later.after(x)).collect();
    let mut done = vec![false; n];
    for _ in 0..n {
        // Ready fences, unreached first, then in execution order.
        let ready = |i: &usize| !done[*i] && waiting[*i] == 0;
        let pick = (0..n)
            .filter(|i| ready(i) && !reached[*i])
            .chain((0..n).filter(ready))
            .next()?;
        done[pick] = true;
        if reached[pick] {
            if in_b[pick] {
                return Some(false);
            }
            // Every later fence it is morally strong with (Fence-SC order), or reaches
            // without it, is reached too.
            for (k, z) in fences.iter().enumerate() {
                if !done[k]
                    && (ms(fences[pick], z) || z.reached_by(fences[pick].owner, fences[pick].clk))
                {
                    reached[k] = true;
                }
            }
        }
        for &f in &followers[pick] {
            waiting[f] -= 1;
        }
    }
    Some(true)
}

/// A thread's clock at a `fence.sc` of its own at clock `own`: the fence reaches what follows
/// ([`FENCE_REACH`]), and what reaches it (its reach, the fence included) is copied into the
/// [`FENCES_BEFORE`] entries.
pub fn at_fence(base: &mut Arc<Vc>, me: u32, own: u32) {
    let v = Arc::make_mut(base);
    v.raise(me | FENCE_REACH, own);
    let reach: Vec<(u32, u32)> = v
        .range(FENCE_REACH, VIA_SC)
        .iter()
        .map(|&(id, c)| ((id & !FENCE_REACH) | FENCES_BEFORE, c))
        .collect();
    v.join_entries(&reach);
}

/// The fence reach of a clock: its [`FENCE_REACH`] entries.
pub fn reach_of(v: &Vc) -> &[(u32, u32)] {
    v.range(FENCE_REACH, VIA_SC)
}

/// Per word of shadow memory, the fence reach that its accesses pass on.
#[derive(Clone, Debug, Default)]
pub struct WordReach {
    /// The reach of the last write.
    write: Option<Arc<Vc>>,
    /// The joined reach of the reads since.
    reads: Option<Arc<Vc>>,
}

impl WordReach {
    /// Host bytes it holds beside its map entry: the clocks it keeps.
    fn bytes(&self) -> usize {
        let clock =
            |c: &Option<Arc<Vc>>| c.as_ref().map_or(0, |v| ARC_CLOCK_BYTES + v.heap_bytes());
        clock(&self.write) + clock(&self.reads)
    }
}

/// Host bytes of one kept clock besides its entries: the `Arc`'s counts and the `Vc`.
const ARC_CLOCK_BYTES: usize = 2 * std::mem::size_of::<usize>() + std::mem::size_of::<Vc>();

/// Host bytes of one word's entry in the map's table (key, value, and the table's control
/// byte, rounded up).
const WORD_ENTRY_BYTES: usize = std::mem::size_of::<(u64, WordReach)>() + 8;

/// The fence reach of the words of one shadow that have any.
#[derive(Debug, Default)]
pub struct ReachMap {
    words: HashMap<u64, WordReach>,
    /// Host bytes the words' entries and clocks hold now (what the shadow counts against the
    /// run's memory limit).
    held: usize,
}

impl ReachMap {
    /// An access of word `w` by a thread whose clock is `base`: a read joins the last write's
    /// reach (reads-from) and adds its own to the reads'; a write joins both (coherence,
    /// from-reads) and becomes the word's last write. Cheap when neither the thread nor the
    /// word has a reach.
    pub fn access(&mut self, w: u64, base: &mut Arc<Vc>, reads: bool, writes: bool) {
        let mine = !reach_of(base).is_empty();
        if !mine && self.words.is_empty() {
            return;
        }
        let entry = match self.words.get_mut(&w) {
            Some(e) => e,
            None if mine => {
                self.held += WORD_ENTRY_BYTES;
                self.words.entry(w).or_default()
            }
            None => return,
        };
        let before = entry.bytes();
        Self::pass_on(entry, base, reads, writes);
        self.held = self.held - before + entry.bytes();
    }

    /// [`ReachMap::access`] on the word's entry.
    fn pass_on(entry: &mut WordReach, base: &mut Arc<Vc>, reads: bool, writes: bool) {
        let mut incoming: Vec<&Arc<Vc>> = Vec::new();
        if reads || writes {
            incoming.extend(entry.write.as_ref());
        }
        if writes {
            incoming.extend(entry.reads.as_ref());
        }
        for r in incoming {
            if !r.leq(base) {
                Arc::make_mut(base).join(r);
            }
        }
        let now = reach_of(base);
        if now.is_empty() {
            return;
        }
        let mut own = Vc::default();
        own.join_entries(now);
        if writes {
            entry.write = Some(Arc::new(own));
            entry.reads = None;
        } else {
            match &mut entry.reads {
                Some(r) => {
                    if !own.leq(r) {
                        Arc::make_mut(r).join(&own);
                    }
                }
                None => entry.reads = Some(Arc::new(own)),
            }
        }
    }

    /// Forgets every word (a reused shared-memory shadow).
    pub fn clear(&mut self) {
        self.words.clear();
        self.held = 0;
    }

    /// Host bytes the map holds now (its words' table entries and clocks).
    pub fn held(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(entries: &[(u32, u32)]) -> Arc<Vc> {
        let mut v = Vc::default();
        for &(t, c) in entries {
            v.raise(t, c);
        }
        Arc::new(v)
    }

    /// The last-block shape: thread 1 writes, fences (clock 2) and takes a ticket; thread 9
    /// fences (clock 4) and reads. Nothing thread 1 did after its fence reached thread 9
    /// before its fence: the race stands under the order with 9's fence first.
    #[test]
    fn a_pair_behind_unrelated_fences_races() {
        let mut log = FenceLog::default();
        log.push(fence(1, 2, 10, clock(&[])));
        log.push(fence(9, 4, 10, clock(&[])));
        let mut later = clock(&[(1 | VIA_SC, 2)]);
        at_fence(&mut later, 9, 4);
        assert_eq!(
            decide(&mut log, at(9, &later, 5), (1, 1), |_, _| true),
            ScVerdict::Races {
                after_first: Some((10, 1)),
                before_second: Some((10, 9))
            }
        );
    }

    /// The store-buffering shape: thread 1's fence reaches thread 9's fence through what 1
    /// read after it and 9 wrote before its own (from-reads): every order consistent with
    /// the values puts 1's fence first, so the pair is ordered.
    #[test]
    fn a_fence_that_communicates_to_the_other_fence_orders_the_pair() {
        let mut log = FenceLog::default();
        log.push(fence(1, 2, 10, clock(&[])));
        let mut reader = clock(&[]);
        at_fence(&mut reader, 1, 2);
        let mut map = ReachMap::default();
        // Thread 1 reads y after its fence; thread 9 then writes y and fences.
        map.access(7, &mut reader, true, false);
        let mut writer = clock(&[]);
        map.access(7, &mut writer, false, true);
        assert_eq!(writer.get(1 | FENCE_REACH), 2);
        at_fence(&mut writer, 9, 4);
        log.push(fence(9, 4, 11, writer.clone()));
        assert_eq!(
            decide(&mut log, at(9, &writer, 5), (1, 1), |_, _| true),
            ScVerdict::Ordered
        );
        // An access of thread 1 after its fence is not in A: the fence does not follow it.
        assert!(matches!(
            decide(&mut log, at(9, &writer, 5), (1, 3), |_, _| true),
            ScVerdict::Races { .. }
        ));
    }

    /// The last-block shape with a `.cta` acquire fence: thread 1 (CTA 0) writes and runs a
    /// `.gpu` fence (1) before its ticket; thread 9 (CTA 1) runs a `.gpu` fence (2), takes
    /// the next ticket (so fence 1 reaches what follows through the tickets) and a `.cta`
    /// fence (3), then reads. Fence 1 reaches fence 3, but they are not morally strong: the
    /// order 2, 1, 3 leaves the read unordered.
    #[test]
    fn a_narrow_fence_chain_is_searched_for_an_order() {
        let mut log = FenceLog::default();
        let mut t1 = clock(&[]);
        at_fence(&mut t1, 1, 2);
        log.push(fence(1, 2, 10, t1.clone()));
        let mut t9 = clock(&[]);
        at_fence(&mut t9, 9, 4);
        log.push(fence(9, 4, 20, t9.clone()));
        // The ticket: thread 9 reads what thread 1 wrote after its fence.
        let mut map = ReachMap::default();
        map.access(3, &mut t1, true, true);
        map.access(3, &mut t9, true, true);
        at_fence(&mut t9, 9, 5);
        let mut narrow = fence(9, 5, 30, t9.clone());
        narrow.scope = Scope::Cta;
        narrow.cta = 1;
        log.push(narrow);
        // Morally strong: both `.gpu`, or the same CTA.
        let ms = |x: &FenceRecord, y: &FenceRecord| {
            x.cta == y.cta || (x.scope >= Scope::Gpu && y.scope >= Scope::Gpu)
        };
        assert!(matches!(
            decide(&mut log, at(9, &t9, 6), (1, 1), ms),
            ScVerdict::Races { .. }
        ));
        // With a `.gpu` third fence the chain 1 -> 3 is Fence-SC order: ordered.
        let mut log2 = FenceLog::default();
        log2.push(fence(1, 2, 10, t1.clone()));
        log2.push(fence(9, 4, 20, clock(&[])));
        log2.push(fence(9, 5, 30, t9.clone()));
        assert_eq!(
            decide(&mut log2, at(9, &t9, 6), (1, 1), ms),
            ScVerdict::Ordered
        );
    }

    fn fence(owner: u32, clk: u32, pc: u32, base: Arc<Vc>) -> FenceRecord {
        FenceRecord {
            owner,
            cta: owner / 8,
            scope: Scope::Gpu,
            clk,
            pc,
            base,
        }
    }

    fn at(me: u32, base: &Vc, own: u32) -> Later<'_> {
        Later { me, base, own }
    }
}
