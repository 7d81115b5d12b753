//! `--race` keeps the same read by several lanes of a warp as one entry: a later write must
//! still race with each lane's read that is not ordered before it (expected verdicts from the
//! PTX memory model by hand: no barrier orders lanes of one warp here).

use emu::exec::{LaunchConfig, Machine};
use emu::race::RaceOptions;

/// Every lane reads shared word 0 (one grouped read); then lane `W` writes it, with
/// `bar.warp.sync` in between only when `SYNC` is 1.
const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 w, .param .u32 sync)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .shared .align 4 .b8 s[128];
    ld.param.u32 %r1, [w];
    ld.param.u32 %r2, [sync];
    mov.u32 %r3, %tid.x;
    ld.shared.u32 %r4, [s];
    setp.ne.u32 %p1, %r2, 0;
    @!%p1 bra SKIP;
    bar.warp.sync 0xffffffff;
SKIP:
    setp.eq.u32 %p2, %r3, %r1;
    @%p2 st.shared.u32 [s], %r3;
    ret;
}
"#;

fn races(writer: u32, sync: u32) -> Vec<(u32, u32, u32)> {
    let module = emu::front::parse_module(PTX, "group.ptx").expect("parses");
    let mut m = Machine::load(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "group.ptx",
    )
    .expect("decodes");
    let mut cfg = LaunchConfig::new("k", [1, 1, 1], [32, 1, 1]);
    cfg.threads = 1;
    cfg.race = Some(RaceOptions::default());
    let args = vec![writer.to_le_bytes().to_vec(), sync.to_le_bytes().to_vec()];
    let r = m.launch(&cfg, &args).expect("launch");
    assert!(r.fault.is_none(), "{:?}", r.fault);
    let rep = r.races.expect("race report");
    rep.races
        .iter()
        .map(|x| (x.first.lane, x.second.lane, x.second.line))
        .collect()
}

#[test]
fn a_write_races_with_another_lane_of_a_grouped_read() {
    // Lane 0 writes: its own read is ordered before (program order), lane 1's is not.
    let r = races(0, 0);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!((r[0].0, r[0].1), (1, 0));
    // Lane 5 writes: lane 0's read is the first unordered one.
    let r = races(5, 0);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!((r[0].0, r[0].1), (0, 5));
}

#[test]
fn bar_warp_sync_orders_the_whole_group() {
    assert!(races(0, 1).is_empty());
    assert!(races(7, 1).is_empty());
}
