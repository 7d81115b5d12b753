//! `--race` keeps the same read by one thread in each of several CTAs, nothing ordering them,
//! as one entry (a run): a later write must still race with each of those reads, one by one,
//! as if each were kept on its own (expected verdicts from the PTX memory model by hand: no
//! barrier or release/acquire orders threads of different CTAs here).

use emu::exec::{LaunchConfig, Machine};
use emu::race::RaceOptions;

/// Thread `t` of every CTA reads word `t` of `a` (one thread per CTA reads each word), twice
/// when `twice` is not 0 (the same instruction again); then thread 0 of CTA `w` writes word 0.
const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u32 w, .param .u32 twice)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u32 %r1, [w];
    ld.param.u32 %r2, [twice];
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %ctaid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    setp.ne.u32 %p3, %r2, 0;
LOOP:
    ld.global.u32 %r5, [%rd3];
    @!%p3 bra DONE;
    setp.ne.u32 %p3, %r2, %r2;
    bra LOOP;
DONE:
    setp.eq.u32 %p1, %r4, %r1;
    setp.eq.u32 %p2, %r3, 0;
    and.pred %p1, %p1, %p2;
    @%p1 st.global.u32 [%rd1], %r4;
    ret;
}
"#;

/// (access pairs, CTA of the first pair's read, CTA of its write) of a launch of `ctas` CTAs
/// of 4 threads with CTA `writer` writing.
fn races(ctas: u32, writer: u32, twice: u32) -> (u64, u32, u32) {
    let module = emu::front::parse_module(PTX, "runs.ptx").expect("parses");
    let mut m = Machine::load(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "runs.ptx",
    )
    .expect("decodes");
    let a = m.alloc(16, "a").expect("alloc");
    let mut cfg = LaunchConfig::new("k", [ctas, 1, 1], [4, 1, 1]);
    cfg.threads = 1;
    cfg.race = Some(RaceOptions::default());
    let args = vec![
        a.to_le_bytes().to_vec(),
        writer.to_le_bytes().to_vec(),
        twice.to_le_bytes().to_vec(),
    ];
    let r = m.launch(&cfg, &args).expect("launch");
    assert!(r.fault.is_none(), "{:?}", r.fault);
    let rep = r.races.expect("race report");
    assert_eq!(rep.races.len(), 1, "{:?}", rep.races);
    let x = &rep.races[0];
    (x.count, x.first.cta[0], x.second.cta[0])
}

#[test]
fn a_write_races_with_each_read_of_a_run() {
    // 40 CTAs read word 0 (a run of 32 and one of 8); CTA 35's write races with the reads of
    // CTAs 0-34 before it and 36-39 after it, one pair each: 39 pairs, the first with CTA 0.
    assert_eq!(races(40, 35, 0), (39, 0, 35));
    // The writer first: every other CTA's read comes after the write.
    assert_eq!(races(40, 0, 0), (39, 0, 1));
    // Each thread reads its word twice: before the write, the second read stands for the
    // first (35 pairs); after it, each read races with the write (4 CTAs, 8 pairs).
    assert_eq!(races(40, 35, 1), (43, 0, 35));
    assert_eq!(races(40, 0, 1), (78, 0, 1));
}
