//! Times the incremental explorer on issue 21's family (threads in different CTAs each
//! `st.relaxed.gpu x, 2i+1; ld.relaxed.gpu r0, x; st.relaxed.gpu x, 2i+2; ld.relaxed.gpu r1, x`)
//! and on IRIW, built here without the litmus front end so that profiling the explorer needs
//! only this crate: `cargo run --release -p models --example explore_family -- family 3 [REPS [MODEL]]`.
//! Prints the allowed executions, the partial ones, the final values of `x` and the time.

use std::collections::BTreeMap;
use std::time::Instant;

use models::event::{Event, EventKind, ThreadPos};
use models::explore::{explore, Brakes, Leaf, Sink, Tree, TreeNode, Universe};
use models::ptx::{Model, Options};
use models::rel::Rel;
use models::vocab::{Proxy, Scope};
use models::Next;

/// One instruction of a thread: a relaxed or acquiring read, or a relaxed write.
#[derive(Clone, Copy)]
enum Ins {
    St(u32, i64),
    Ld(u32, bool),
}

fn event(t: usize, i: usize, ins: Ins, value: i64) -> Event {
    let mut e = Event::init(0, 0, 0, String::new());
    e.thread = Some(t as u32);
    let cta = t as u32;
    e.pos = ThreadPos {
        gpu: 0,
        cluster: cta,
        cta,
    };
    e.strong = true;
    e.scope = Some(Scope::Gpu);
    e.proxy = Some(Proxy::Generic);
    e.instr = i as u32;
    match ins {
        Ins::St(loc, v) => {
            e.kind = EventKind::Write;
            e.loc = Some(loc);
            e.vloc = Some(loc);
            e.value = v;
        }
        Ins::Ld(loc, acq) => {
            e.kind = EventKind::Read;
            e.loc = Some(loc);
            e.vloc = Some(loc);
            e.acquire = acq;
            e.value = value;
        }
    }
    e
}

/// The universe of straight-line threads whose reads take any value of `domain`.
fn universe(locs: u32, threads: &[Vec<Ins>], domain: &[i64]) -> Universe {
    let mut events: Vec<Event> = (0..locs)
        .map(|l| Event::init(l, l, 0, format!("{l} = 0")))
        .collect();
    let inits = events.len();
    let mut trees = Vec::new();
    for (t, prog) in threads.iter().enumerate() {
        let mut tree = Tree {
            nodes: vec![TreeNode::default()],
        };
        let mut frontier = vec![0usize];
        for (i, &ins) in prog.iter().enumerate() {
            let values: Vec<i64> = match ins {
                Ins::St(..) => vec![0],
                Ins::Ld(..) => domain.to_vec(),
            };
            let mut next = Vec::new();
            for &x in &frontier {
                for &v in &values {
                    let g = events.len();
                    events.push(event(t, i, ins, v));
                    let c = tree.nodes.len();
                    tree.nodes.push(TreeNode {
                        event: Some(g),
                        ..TreeNode::default()
                    });
                    tree.nodes[x].children.push(c as u32);
                    next.push(c);
                }
            }
            frontier = next;
        }
        for (k, &x) in frontier.iter().enumerate() {
            tree.nodes[x].ends.push(k as u32);
        }
        trees.push(tree);
    }
    Universe::new(events, inits, trees, Vec::new(), Vec::new())
}

#[derive(Default)]
struct Count {
    allowed: u64,
    finals: BTreeMap<Vec<i64>, u64>,
}

impl Sink for Count {
    fn syncbars(&mut self, _: &[u32], _: &[Vec<usize>], n: usize) -> Vec<Rel> {
        vec![Rel::empty(n)]
    }
    fn visit(&mut self, u: &Universe, leaf: &Leaf<'_>) -> Next {
        if leaf.verdict.is_ok() {
            self.allowed += 1;
            let mut f: Vec<i64> = leaf
                .co_maximal(u)
                .iter()
                .map(|&w| u.events[leaf.ids[w]].value)
                .collect();
            f.sort_unstable();
            *self.finals.entry(f).or_default() += 1;
        }
        Next::Continue
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("family", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let model = args
        .get(4)
        .and_then(|s| Model::from_name(s))
        .unwrap_or(Model::PtxV75);
    let u = match which {
        "iriw" => {
            let mut th = vec![vec![Ins::St(0, 1)], vec![Ins::St(1, 1)]];
            for j in 0..n {
                let (a, b) = if j % 2 == 0 { (0, 1) } else { (1, 0) };
                th.push(vec![Ins::Ld(a, true), Ins::Ld(b, true)]);
            }
            universe(2, &th, &[0, 1])
        }
        _ => {
            let th: Vec<Vec<Ins>> = (0..n as i64)
                .map(|i| {
                    vec![
                        Ins::St(0, 2 * i + 1),
                        Ins::Ld(0, false),
                        Ins::St(0, 2 * i + 2),
                        Ins::Ld(0, false),
                    ]
                })
                .collect();
            let domain: Vec<i64> = (0..=2 * n as i64).collect();
            universe(1, &th, &domain)
        }
    };
    for _ in 0..reps {
        let t0 = Instant::now();
        let out = explore(
            &u,
            model,
            Options::default(),
            1,
            Brakes::default(),
            None,
            &Count::default,
        );
        let el = t0.elapsed();
        let s = &out.sinks[0];
        println!(
            "{which}{n}: {} allowed, {} judged, {} partial, {:.3} s, {:.2} us/allowed, finals {:?}",
            s.allowed,
            out.stats.executions,
            out.stats.explored,
            el.as_secs_f64(),
            el.as_secs_f64() * 1e6 / s.allowed.max(1) as f64,
            s.finals.values().collect::<Vec<_>>()
        );
    }
}
