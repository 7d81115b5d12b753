//! The tutorial's path through ptxemu's litmus library (`litmus/tests/library`): ordered steps,
//! each with a short introduction and its tests, from what a litmus test is to proxies. The
//! tests' texts are compiled in, so the playground offers them without files, and the
//! tutorial pages (`docs/tutorial/`) are generated from this list ([`pages`]).
//! A test checks that every library test appears in exactly one step.

pub mod pages;

/// One test of the library.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// Its name (the file's stem).
    pub name: &'static str,
    /// Its text.
    pub source: &'static str,
}

/// One step of the path.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// A short name, used for the step's page (`NN-SLUG.md`).
    pub slug: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What the step teaches, in Markdown.
    pub intro: &'static str,
    /// Its tests, in the order they are read.
    pub tests: &'static [Example],
}

macro_rules! example {
    ($name:literal) => {
        Example {
            name: $name,
            source: include_str!(concat!("../tests/library/", $name, ".litmus")),
        }
    };
}

/// The steps, in order.
pub const STEPS: &[Step] = &[
    Step {
        slug: "litmus-tests",
        title: "What a litmus test is",
        intro: "A litmus test is a tiny concurrent program with a question. Its header names the threads and where they run (`P0@cta 0,gpu 0`: thread P0 in CTA 0 of GPU 0), the braces give the initial memory, each column is one thread's instructions, and the last line asks whether some execution can end in a given state (`exists (P1:r0 == 1 /\\ P1:r1 == 0)`: P1's register r0 holds 1 and r1 holds 0).

A memory model answers by looking at *executions*: graphs whose nodes are the memory events (each read, write and fence) and whose edges say which write each read takes its value from (reads-from, `rf`), in which order the writes to one location happen (coherence, `co`), and which writes a read comes before (from-reads, `fr`: the read took a value that a later write in coherence overwrote). Program order (`po`) is the order of each thread's instructions. The model's axioms accept or reject each graph; the outcomes of the accepted ones are what the hardware may produce.

Message passing (MP) is the first test everyone meets: P0 writes data `x`, then a flag `y`; P1 reads the flag, then the data. Seeing the flag but stale data is the bug every synchronisation protocol is built to prevent. With plain (weak) accesses, PTX allows it.",
        tests: &[
            example!("MP+weak"),
        ],
    },
    Step {
        slug: "message-passing",
        title: "Message passing: weak, relaxed, then release and acquire",
        intro: "Relaxed accesses (`.relaxed.gpu`) are *strong*: two of them to the same location, each in the other's scope, are *morally strong* and keep coherence. But they order nothing else, so MP stays allowed. What forbids it is synchronisation: a *release pattern* (here `st.release`) observed by an *acquire pattern* (`ld.acquire`) gives a *synchronizes-with* edge, causality then runs from the data write to the data read, and the Causality axiom forbids the read from taking a value that a causally earlier write overwrote. The last two tests are the same shapes in the PTX syntax nvcc emits (`.volatile` is `.relaxed.sys`).",
        tests: &[
            example!("MP+rlx"),
            example!("MP+rel+acq-gpu"),
            example!("MP+ptx-syntax"),
            example!("MP+ptx-syntax-rel-acq"),
        ],
    },
    Step {
        slug: "fences",
        title: "Fences and barriers",
        intro: "The release and acquire can also come from fences: `fence.acq_rel` followed in program order by a strong write forms a release pattern, and a strong read followed by `fence.acq_rel` forms an acquire pattern, so relaxed flag accesses between fences synchronise. Inside a CTA, `bar.sync` does the same for every thread that takes part in the barrier.",
        tests: &[
            example!("MP+fences"),
            example!("MP+bar"),
        ],
    },
    Step {
        slug: "scopes",
        title: "Scopes: same CTA, different CTAs, different GPUs",
        intro: "Every strong operation carries a scope: `.cta`, `.cluster`, `.gpu` or `.sys`. Two operations synchronise only when each one's scope includes the other's thread. A `.cta` release reaches a thread of the same CTA but not one in another CTA; `.gpu` reaches every CTA of the GPU but not another GPU; `.sys` reaches everything. A scope that is too narrow does not give an error: it silently gives no synchronisation, and the stale read comes back. For every variant at once, `ptxemu diy` generates the family: [every MP test over two scopes and three placements](../diy.md#a-generated-family-message-passing-over-scopes-and-placements), which are forbidden and why.",
        tests: &[
            example!("MP+rel+acq-cta-same-cta"),
            example!("MP+rel+acq-cta-diff-cta"),
            example!("MP+rel+acq-gpu-diff-gpu"),
            example!("MP+rel+acq-sys-diff-gpu"),
        ],
    },
    Step {
        slug: "store-buffering",
        title: "Store buffering, and why release and acquire are not enough",
        intro: "In SB each thread writes one location and then reads the other; both reads returning 0 is impossible under sequential consistency (some write must come first), but allowed by PTX. Release and acquire do not help: an acquire orders what comes *after* it, a release what comes *before* it, and in SB the read that would have to observe a write reads the initial value, so no synchronisation edge forms at all. `fence.acq_rel` does not help either.",
        tests: &[
            example!("SB+rlx"),
            example!("SB+rel+acq"),
            example!("SB+fence.acq_rel"),
        ],
    },
    Step {
        slug: "fence-sc",
        title: "fence.sc: a total order between fences",
        intro: "`fence.sc` (and `membar`, its older spelling) is an acq_rel fence that also takes part in the *Fence-SC order*: every two morally strong `fence.sc` are ordered one way or the other, that order synchronises, and it must never contradict causality. In SB, whichever fence comes first makes the other thread's write causally before its read, so one of the reads must see the write. Scope still matters: `fence.sc.cta` in different CTAs are not morally strong and are not ordered. The R and 2+2W shapes show the same for write-write pairs.",
        tests: &[
            example!("SB+fence.sc-gpu"),
            example!("SB+membar"),
            example!("SB+fence.sc-cta-diff-cta"),
            example!("R+rlx"),
            example!("R+fence.sc"),
            example!("2+2W+rlx"),
            example!("2+2W+rel"),
            example!("2+2W+fence.sc"),
            example!("FenceSC+cta-then-sys"),
        ],
    },
    Step {
        slug: "iriw",
        title: "Cumulativity, IRIW and multi-copy atomicity",
        intro: "Causality is transitive: a write that a thread observed before releasing is ordered for whoever acquires from that thread (WRC, ISA2). This is *cumulativity*. But PTX is not *multi-copy atomic*: two writes to different locations by different threads may become visible to two readers in different orders (IRIW), even when the readers use acquire loads, because nothing synchronises the two writers. Only `fence.sc` between each reader's loads rules it out.",
        tests: &[
            example!("WRC+rlx"),
            example!("WRC+rel+acq"),
            example!("ISA2+rel+acq"),
            example!("IRIW+acq"),
            example!("IRIW+fence.sc"),
        ],
    },
    Step {
        slug: "coherence",
        title: "Coherence: one location at a time",
        intro: "Morally strong accesses to one location agree on one order of its writes (SC-per-location): a thread cannot read a newer value and then an older one (CoRR), and a thread that reads another thread's write after making its own cannot find its own write last in coherence (CoWR). Weak accesses in different threads are never morally strong, so they race, and a race promises no coherence. The S shape mixes coherence with release and acquire.",
        tests: &[
            example!("CoRR+rlx"),
            example!("CoRR+weak"),
            example!("CoWR+rlx"),
            example!("CoWR+rlx-agree"),
            example!("S+rel+acq"),
        ],
    },
    Step {
        slug: "load-buffering",
        title: "Load buffering and values out of thin air",
        intro: "In LB each thread reads one location and then writes the other. Relaxed accesses allow both reads to see the other thread's later write; acquire loads and release stores forbid it. A write that stores the value its thread read creates a dependency, and the No-Thin-Air axiom forbids a cycle of dependencies and reads-from: values cannot justify themselves.",
        tests: &[
            example!("LB+rlx"),
            example!("LB+acq+rel"),
            example!("LB+data"),
        ],
    },
    Step {
        slug: "rmw",
        title: "Read-modify-writes",
        intro: "An `atom` is a read and a write that no morally strong write can come between (the Atomicity axiom). Two `.gpu` increments therefore always add up; two `.cta` increments in different CTAs are not morally strong, and one increment can be lost. A compare-and-swap lets exactly one of two threads take a lock.",
        tests: &[
            example!("RMW+add-gpu"),
            example!("RMW+add-cta-diff-cta"),
            example!("RMW+cas-lock"),
        ],
    },
    Step {
        slug: "proxies",
        title: "Proxies: the same memory through another address",
        intro: "Since PTX 7.5, accesses carry a *proxy*, and two virtual addresses of the same memory (an alias) count as different proxies. Causality only orders events of the same address through the generic proxy, so a release/acquire pair that orders the write of `x` says nothing about a read of its alias `y`, unless a `fence.proxy.alias` lies on the causality path. The same holds for the texture, surface, constant and async proxies with their own proxy fences.",
        tests: &[
            example!("MP+alias"),
            example!("MP+alias+fence.proxy.alias"),
        ],
    },
];
