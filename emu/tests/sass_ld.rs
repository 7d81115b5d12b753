//! SASS `LD` (SPA 5.0) as the seed describes it: each example line of the seed with exact
//! register contents, then the edge cases (negative offsets, RZ, an omitted or absent Ra,
//! window edges, misalignment, out-of-window) and the companions in small programs.

use emu::sass::exec::{MemError, SassFault, GLOBAL_BASE};
use emu::sass::{parse_program, SassConfig, SassMachine, SassReport, Windows};

/// A global buffer of 256 bytes where byte k holds k (so word at offset o is recognisable).
fn machine() -> (SassMachine, u64) {
    let mut m = SassMachine::default();
    let a = m.alloc(256).unwrap();
    let bytes: Vec<u8> = (0..=255u8).collect();
    assert!(m.write(a, &bytes));
    (m, a)
}

fn word(off: u32) -> u32 {
    u32::from_le_bytes([off as u8, off as u8 + 1, off as u8 + 2, off as u8 + 3])
}

fn run_cfg(src: &str, cfg: &SassConfig) -> (Result<SassReport, SassFault>, SassMachine, u64) {
    let prog = parse_program(src).unwrap_or_else(|e| panic!("{}", e.render(src, "t.sass")));
    let (mut m, a) = machine();
    let r = m.launch(&prog, cfg, &[a.to_le_bytes().to_vec()]);
    (r, m, a)
}

fn run(src: &str) -> SassReport {
    run_cfg(src, &SassConfig::new([1, 1, 1], [1, 1, 1]))
        .0
        .unwrap()
}

/// Loads the buffer address (param 0) into R1 (32-bit) and {R3, R2} (64-bit).
const PRELUDE: &str = "MOV R1, c[0x0][0x140];\nMOV R2, c[0x0][0x140];\nMOV R3, c[0x0][0x144];\n";

#[test]
fn seed_example_ld32_with_plg() {
    // P0 true: global/local; the word 20 bytes past R1.
    let r = run(&format!(
        "{PRELUDE}ISETP.EQ.AND P0, PT, RZ, RZ, PT;\nLD.32 R3, [R1 + 20], P0;\nEXIT;\n"
    ));
    assert_eq!(r.threads[0].regs[3], word(20));
    assert!(r.errors.is_empty());
    // P0 false: the shared window; a global address is outside it: R3 = 0 and an error.
    let r = run(&format!("{PRELUDE}LD.32 R3, [R1 + 20], P0;\nEXIT;\n"));
    assert_eq!(r.threads[0].regs[3], 0);
    assert_eq!(r.errors.len(), 1);
    assert!(
        r.errors[0].what.contains("shared window"),
        "{}",
        r.errors[0]
    );
}

#[test]
fn seed_example_ld_e_uses_the_register_pair() {
    let src = "MOV R2, c[0x0][0x140];\nMOV R3, c[0x0][0x144];\nIADD32I R2, R2, -0x1200;\nLD.E R0, [R2 + 0x1234];\nEXIT;\n";
    let r = run(src);
    assert_eq!(
        r.threads[0].regs[0],
        word(0x34),
        "{{R3,R2}} - 0x1200 + 0x1234"
    );
    assert_eq!(GLOBAL_BASE >> 32, 0);
}

#[test]
fn seed_example_ld_u128_fills_four_registers() {
    let r = run(&format!(
        "{PRELUDE}IADD32I R1, R1, 32;\nLD.U.128 R4, [R1], P1;\nEXIT;\n"
    ));
    // P1 is false (never set): shared window. Put the data there first instead.
    assert_eq!(r.threads[0].regs[4..8], [0, 0, 0, 0]);
    assert_eq!(r.errors.len(), 1);
    let r = run(&format!(
        "{PRELUDE}IADD32I R1, R1, 32;\nLD.U.128 R4, [R1], PT;\nLD.128 R8, [R1];\nEXIT;\n"
    ));
    assert_eq!(
        r.threads[0].regs[4..8],
        [word(32), word(36), word(40), word(44)]
    );
    assert_eq!(
        r.threads[0].regs[8..12],
        r.threads[0].regs[4..8],
        ".U.128 = .128"
    );
}

#[test]
fn sizes_extend_and_pairs_fill() {
    let src = format!(
        "{PRELUDE}LD.U8 R4, [R1 + 0xF0];\nLD.S8 R5, [R1 + 0xF0];\nLD.U16 R6, [R1 + 0x80];\nLD.S16 R7, [R1 + 0xFE];\nLD.64 R8, [R1 + 8];\nLD R10, [R1 + 4];\nEXIT;\n"
    );
    let r = run(&src);
    let t = &r.threads[0].regs;
    assert_eq!(t[4], 0xF0);
    assert_eq!(t[5], 0xFFFF_FFF0, "sign-extended");
    assert_eq!(t[6], 0x8180);
    assert_eq!(t[7], 0xFFFF_FFFE, "0xFFFE sign-extended");
    assert_eq!((t[8], t[9]), (word(8), word(12)));
    assert_eq!(t[10], word(4), ".32 is the default");
}

#[test]
fn negative_offsets_in_both_spellings() {
    let src = format!("{PRELUDE}IADD32I R1, R1, 64;\nLD R4, [R1 - 4];\nLD R5, [R1 + -8];\nLD R6, [R1+-0xc];\nEXIT;\n");
    let t = run(&src).threads[0].regs.clone();
    assert_eq!((t[4], t[5], t[6]), (word(60), word(56), word(52)));
}

#[test]
fn rz_omitted_or_absent_base_means_an_absolute_address() {
    let abs = GLOBAL_BASE + 16;
    let src = format!(
        "MOV32I R20, 0x1000;\nLD R4, [RZ + 0x{abs:x}];\nLD R5, [0x{abs:x}];\nLD R6, [R20 + 0x{abs:x}];\nEXIT;\n"
    );
    let mut cfg = SassConfig::new([1, 1, 1], [1, 1, 1]);
    cfg.registers = 16;
    let r = run_cfg(&src, &cfg).0.unwrap();
    let t = &r.threads[0].regs;
    assert_eq!((t[4], t[5]), (word(16), word(16)));
    assert_eq!(
        t[6],
        word(16),
        "R20 is beyond the 16 registers: the offset alone"
    );
    cfg.registers = 255;
    let r = run_cfg(&src, &cfg).0.unwrap();
    assert_eq!(
        r.threads[0].regs[6], 0,
        "with R20 present the address is past the buffer"
    );
    assert_eq!(r.errors.len(), 1);
}

#[test]
fn misaligned_addresses_are_forced_down_and_optionally_errors() {
    let src = format!("{PRELUDE}LD R4, [R1 + 6];\nLD.64 R6, [R1 + 12];\nEXIT;\n");
    let r = run(&src);
    assert_eq!(r.threads[0].regs[4], word(4));
    assert_eq!(
        (r.threads[0].regs[6], r.threads[0].regs[7]),
        (word(8), word(12))
    );
    assert!(r.errors.is_empty());
    let mut cfg = SassConfig::new([1, 1, 1], [1, 1, 1]);
    cfg.strict_align = true;
    let r = run_cfg(&src, &cfg).0.unwrap();
    assert_eq!(r.errors.len(), 2);
    assert!(r.errors[0].what.contains("misaligned"));
    assert_eq!(r.threads[0].regs[4], word(4), "still forced down");
    cfg.strict = true;
    let e = run_cfg(&src, &cfg).0.unwrap_err();
    assert!(matches!(e, SassFault::Memory(MemError { address, .. }) if address & 0xff == 6));
}

#[test]
fn window_edges_and_out_of_window() {
    let w = Windows::default();
    let last = w.shared_base + w.shared_size - 4;
    let src = format!(
        "MOV32I R1, 0x{last:x};\nMOV32I R2, 0x1234;\nST [R1], R2, !PT;\nLD R4, [R1], !PT;\nLD R5, [R1 + 4], !PT;\nLD R6, [R1 + 4];\nEXIT;\n"
    );
    let r = run(&src);
    let t = &r.threads[0].regs;
    assert_eq!(t[4], 0x1234, "the last shared word is inside");
    assert_eq!(t[5], 0, "one past the window");
    assert_eq!(
        t[6], 0,
        "one past the shared window, with Plg true: neither local nor allocated"
    );
    assert_eq!(r.errors.len(), 2, "{:?}", r.errors);
    let local = format!(
        "MOV32I R1, 0x{:x};\nMOV32I R2, 77;\nST [R1 + 8], R2;\nLD R4, [R1 + 8];\nEXIT;\n",
        w.local_base
    );
    assert_eq!(
        run(&local).threads[0].regs[4],
        77,
        "local memory round trip"
    );
    let mut cfg = SassConfig::new([1, 1, 1], [1, 1, 1]);
    cfg.strict = true;
    let e = run_cfg(&src, &cfg).0.unwrap_err().to_string();
    assert!(
        e.contains("outside the shared window") && e.contains("line 5"),
        "{e}"
    );
}

#[test]
fn rz_destination_and_cache_operators() {
    let src = format!("{PRELUDE}LD.CG RZ, [R1];\nLD.CS R4, [R1 + 4];\nLD.LU R5, [R1 + 8];\nLD.CV R6, [R1 + 12];\nLD.CI R7, [R1 + 16];\nLD.E.CA.64 R8, [R2];\nEXIT;\n");
    let r = run(&src);
    let t = &r.threads[0].regs;
    assert_eq!(t[4..8], [word(4), word(8), word(12), word(16)]);
    assert_eq!((t[8], t[9]), (word(0), word(4)));
    let prog = parse_program("LD.CS R1, [R2];\nLD.LU R1, [R2];\n").unwrap();
    use emu::sass::ir::{CacheOp, Op};
    let cops: Vec<CacheOp> = prog
        .instrs
        .iter()
        .map(|i| match &i.op {
            Op::Ld(a) => a.cop.effective(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        cops,
        [CacheOp::Ca, CacheOp::Cg],
        ".CS acts as .CA, .LU as .CG"
    );
}

#[test]
fn a_grid_sums_with_a_loop_and_a_guarded_store() {
    // out[tid + ctaid*4] = sum of 0..tid (a loop), only for even threads; param 0 is the buffer.
    let src = "
/*0008*/  S2R R0, SR_TID.X;
/*0010*/  S2R R5, SR_CTAID.X;
/*0018*/  ISCADD R6, R5, R0, 2;            // linear = ctaid*4 + tid
/*0020*/  MOV R1, RZ;                     {&req_6}{?sched}
/*0028*/  MOV R2, RZ;
loop:
/*0030*/  ISETP.GE.AND P0, PT, R2, R0, PT;
/*0038*/  @P0 BRA 0x58;
/*0040*/  IADD R1, R1, R2;
/*0048*/  IADD32I R2, R2, 1;
/*0050*/  BRA loop;
/*0058*/  LOP.AND R3, R0, 1;
/*0060*/  ISETP.NE.AND P1, PT, R3, RZ, PT;
/*0068*/  MOV R4, c[0x0][0x140];
/*0070*/  ISCADD R4, R6, R4, 2;
/*0078*/  @!P1 ST.32 [R4], R1;
/*0080*/  EXIT;
";
    let (r, m, a) = run_cfg(src, &SassConfig::new([2, 1, 1], [4, 1, 1]));
    let r = r.unwrap();
    assert!(r.errors.is_empty());
    let out = m.read(a, 32).unwrap();
    let w = |k: usize| u32::from_le_bytes(out[4 * k..4 * k + 4].try_into().unwrap());
    assert_eq!(w(0), 0);
    assert_eq!(w(1), word(4), "odd threads store nothing");
    assert_eq!(w(2), 1);
    assert_eq!(w(6), 1, "CTA 1, thread 2");
    assert_eq!(r.threads.len(), 8);
    assert_eq!(r.threads[3].regs[1], 3, "thread 3: 0+1+2");
}

#[test]
fn parse_errors_name_line_and_column() {
    for (src, line, col, what) in [
        ("LD R1, [R2 + 4]\n", 1, 16, "expected `;`"),
        ("NOP;\n  LD.Q R1, [R2];\n", 2, 3, "unknown qualifier `.Q`"),
        ("LD.64 R1, [R2];\n", 1, 1, "aligned to 2"),
        ("LD.E R2, [R3];\n", 1, 1, "base must be even"),
        ("BRA nowhere;\n", 1, 1, "undefined label"),
        ("FOO R1;\n", 1, 1, "unknown instruction `FOO`"),
        ("LD R1, [R2 + 0x100000000];\n", 1, 1, "signed 32-bit"),
        ("/* open\nNOP;\n", 2, 1, "unterminated"),
        ("ST.U.128 [R4], R8;\n", 1, 1, "load hint"),
    ] {
        let e = parse_program(src).unwrap_err();
        assert_eq!((e.line, e.col), (line, col), "{src}: {e}");
        assert!(e.message.contains(what), "{src}: {e}");
        assert!(e
            .render(src, "p.sass")
            .starts_with(&format!("p.sass:{line}:{col}: error:")));
    }
}

#[test]
fn running_off_the_end_and_budgets_are_faults() {
    let e = run_cfg("NOP;\n", &SassConfig::new([1, 1, 1], [1, 1, 1]))
        .0
        .unwrap_err();
    assert!(matches!(e, SassFault::RanOff(_)));
    let mut cfg = SassConfig::new([1, 1, 1], [1, 1, 1]);
    cfg.max_steps = 100;
    let e = run_cfg("l: BRA l;\n", &cfg).0.unwrap_err().to_string();
    assert!(
        e.contains("more than 100") && e.contains("CTA (0,0,0), warp 0, lane 0"),
        "{e}"
    );
    // The budget bounds the launch's total: 64 CTAs of 32 threads, each thread running two
    // instructions (4,096 in all), stop once 1,000 have run, though no thread runs past 2.
    let mut cfg = SassConfig::new([64, 1, 1], [32, 1, 1]);
    cfg.max_steps = 1000;
    let e = run_cfg("NOP;\nEXIT;\n", &cfg).0.unwrap_err();
    assert!(matches!(e, SassFault::Budget(_, 1000)), "{e}");
    assert!(e.to_string().contains("raise --max-steps"), "{e}");
    cfg.max_steps = 4096;
    let r = run_cfg("NOP;\nEXIT;\n", &cfg).0.unwrap();
    assert_eq!(r.instructions, 4096, "exactly the budget still runs");
}

#[test]
fn uniform_hint_check() {
    let src =
        format!("{PRELUDE}S2R R0, SR_TID.X;\nISCADD R1, R0, R1, 4;\nLD.U.128 R4, [R1];\nEXIT;\n");
    let mut cfg = SassConfig::new([1, 1, 1], [4, 1, 1]);
    let r = run_cfg(&src, &cfg).0.unwrap();
    assert!(r.errors.is_empty(), "no check by default");
    cfg.check_uniform = true;
    let r = run_cfg(&src, &cfg).0.unwrap();
    assert_eq!(r.errors.len(), 3, "lanes 1..3 differ from lane 0");
    assert_eq!(r.threads[2].regs[4], word(32), "the load still happens");
}

#[test]
fn nvdisasm_listings_parse_and_run() {
    // As nvdisasm prints Maxwell code: addresses, ` ;`, `.reuse`, encodings, backtick targets.
    let src = "
        /*0008*/                   MOV R1, c[0x0][0x20] ;                          /* 0x4c98078000870001 */
        /*0010*/                   S2R R0, SR_TID.X ;                              /* 0xf0c8000002170000 */
        /*0018*/                   ISETP.GE.AND P0, PT, R0, 0x1, PT ;              /* 0x366d038000170007 */
        /*0028*/               @P0 BRA `(.L_1) ;                                   /* 0xe24000000000000f */
        /*0030*/                   SHL R2, R0.reuse, 0x2 ;                         /* 0x3848000000270002 */
        /*0038*/                   IADD R2, R2, c[0x0][0x140] ;                    /* 0x4c10000005070202 */
        /*0048*/                   LD.E R3, [R2+0x8] ;                             /* 0xeed4200000870203 */
.L_1:
        /*0050*/                   EXIT ;                                          /* 0xe30000000007000f */
";
    let p = parse_program(src).unwrap_or_else(|e| panic!("{}", e.render(src, "nv.sass")));
    assert_eq!(p.instrs.len(), 8);
    let (r, _, _) = run_cfg(
        &src.replace("MOV R1, c[0x0][0x20] ;", "MOV R3, c[0x0][0x144] ;"),
        &SassConfig::new([1, 1, 1], [2, 1, 1]),
    );
    let r = r.unwrap();
    assert_eq!(
        r.threads[0].regs[3],
        word(8),
        "thread 0 loads through {{R3, R2}}"
    );
    assert_eq!(r.threads[1].regs[2], 0, "thread 1 branched past the load");
}

#[test]
fn launch_shapes_follow_the_same_cuda_limits_as_ptx() {
    let src = "EXIT;\n";
    for (grid, block, ok) in [
        ([1, 1, 1], [1, 1, 64], true),
        ([1, 1, 1], [1, 1, 65], false),
        ([1, 1, 1], [1025, 1, 1], false),
        ([1, 65536, 1], [1, 1, 1], false),
        ([0, 1, 1], [1, 1, 1], false),
    ] {
        let (r, _, _) = run_cfg(src, &SassConfig::new(grid, block));
        match r {
            Ok(_) => assert!(ok, "{grid:?} {block:?} should be refused"),
            Err(SassFault::Shape(why)) => assert!(!ok, "{grid:?} {block:?}: {why}"),
            Err(e) => panic!("{grid:?} {block:?}: {e}"),
        }
    }
}
