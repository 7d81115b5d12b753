//! The litmus event mode computes values as the interpreter does: for random operands of every
//! integer type, an arithmetic instruction, a comparison and an atomic give in event mode
//! (`emu::event::traces`) what the same instruction gives when a kernel runs it
//! (`Machine::launch`), bit for bit in the type's width, held in a register sign-extended for
//! a signed type and zero-extended otherwise. The interpreter is the reference here: the two
//! share `semantics::int` and `semantics::atomic`, and this checks that event mode applies
//! them to the right width and signedness (issue 38: it once computed `atom.add.u32` on
//! unbounded integers).

use emu::event::{traces, EvKind, Limits, ThreadCode};
use emu::exec::{LaunchConfig, Machine};
use emu::front::{parse_instruction, NameResolver};
use emu::ir::{GlobalId, LabelId, ProtoId, RegId, Span, VarRef};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

/// Registers `r0`…`r3` and `p0`; the one location `x`.
struct Names;

impl NameResolver for Names {
    fn register(&mut self, name: &str) -> Option<RegId> {
        match name.trim_start_matches('%') {
            "r0" => Some(RegId(0)),
            "r1" => Some(RegId(1)),
            "r2" => Some(RegId(2)),
            "r3" => Some(RegId(3)),
            "p0" => Some(RegId(4)),
            _ => None,
        }
    }
    fn variable(&mut self, name: &str) -> Option<VarRef> {
        (name == "x").then_some(VarRef::Global(GlobalId(0)))
    }
    fn label(&mut self, _: &str, _: Span, _: bool) -> Option<LabelId> {
        None
    }
    fn prototype(&mut self, _: &str) -> Option<ProtoId> {
        None
    }
}

/// The integer types compared.
const TYPES: [&str; 6] = ["u32", "s32", "b32", "u64", "s64", "b64"];

fn width(ty: &str) -> u32 {
    ty[1..].parse().unwrap()
}

fn signed(ty: &str) -> bool {
    ty.starts_with('s')
}

fn wrap(v: u64, w: u32) -> u64 {
    if w >= 64 {
        v
    } else {
        v & ((1 << w) - 1)
    }
}

/// What a register holding the `w`-bit value `bits` of type `ty` reads as.
fn held(bits: u64, ty: &str) -> i64 {
    let w = width(ty);
    if signed(ty) && w < 64 {
        ((bits << (64 - w)) as i64) >> (64 - w)
    } else {
        wrap(bits, w) as i64
    }
}

/// A value with its edges drawn often: 0, ±1, the type boundaries.
#[derive(Clone, Copy, Debug)]
struct Val(u64);

impl Arbitrary for Val {
    fn arbitrary(g: &mut Gen) -> Val {
        const EDGES: [u64; 10] = [
            0,
            1,
            2,
            5,
            u64::MAX,
            0xFFFF_FFFF,
            0x8000_0000,
            0x7FFF_FFFF,
            0x1_0000_0000,
            0x8000_0000_0000_0000,
        ];
        if bool::arbitrary(g) {
            Val(*g.choose(&EDGES).unwrap())
        } else {
            Val(u64::arbitrary(g))
        }
    }
}

/// One instruction run by event mode: its registers' initial values and the location's
/// value; the final registers and the written value, if any.
fn event(text: &str, regs: [i64; 4], x: i64) -> (Vec<i64>, Option<i64>) {
    let ins = parse_instruction(text, &mut Names).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    let code = ThreadCode {
        instrs: vec![ins],
        nregs: 5,
        reg_init: (0..4).map(|k| (RegId(k as u32), regs[k])).collect(),
        ..ThreadCode::default()
    };
    let dom = [x];
    let domain = |_: u32| -> &[i64] { &dom };
    let t =
        traces(&code, &domain, false, Limits::default()).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(t.len(), 1, "{text}: one path");
    let written = t[0].events.iter().find_map(|e| match e.kind {
        EvKind::Write { value, .. } => Some(value),
        _ => None,
    });
    (t[0].regs.clone(), written)
}

/// A kernel of `body` run once on a buffer of three 8-byte words holding `words`; the
/// buffer's words afterwards.
fn interpreter(body: &str, words: [u64; 3]) -> [u64; 3] {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .b64 %rd<2>;\n.reg .b32 %w<8>;\n.reg .b64 %d<8>;\n.reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n"
    );
    let m = emu::front::parse_module(&src, "k.ptx").unwrap_or_else(|e| panic!("{body}: {e:?}"));
    let m = emu::validate::Validated::new(m).unwrap_or_else(|e| panic!("{body}: {e:?}"));
    let mut mach = Machine::load(&m, "k.ptx").unwrap();
    let buf = mach.alloc(24, "buf").unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    mach.write(buf, &bytes);
    let mut cfg = LaunchConfig::new("k", [1, 1, 1], [1, 1, 1]);
    cfg.threads = 1;
    let rep = mach.launch(&cfg, &[buf.to_le_bytes().to_vec()]).unwrap();
    assert!(rep.fault.is_none(), "{body}: {:?}", rep.fault);
    let out = mach.read(buf, 24).unwrap();
    std::array::from_fn(|k| u64::from_le_bytes(out[k * 8..k * 8 + 8].try_into().unwrap()))
}

/// The interpreter's register name for `ty`.
fn reg(ty: &str, k: u32) -> String {
    if width(ty) == 64 {
        format!("%d{k}")
    } else {
        format!("%w{k}")
    }
}

fn arithmetic(op: u8, ty: u8, a: Val, b: Val) -> TestResult {
    let ops = ["add", "sub", "mul.lo", "div", "and", "or", "xor"];
    let (op, ty) = (
        ops[op as usize % ops.len()],
        TYPES[ty as usize % TYPES.len()],
    );
    let logic = matches!(op, "and" | "or" | "xor");
    if logic != ty.starts_with('b') {
        return TestResult::discard();
    }
    let (regs, _) = event(
        &format!("{op}.{ty} r2, r0, r1"),
        [a.0 as i64, b.0 as i64, 0, 0],
        0,
    );
    let (ra, rb, rd) = (reg(ty, 1), reg(ty, 2), reg(ty, 3));
    let out = interpreter(
        &format!(
            "ld.global.{ty} {ra}, [%rd1];\nld.global.{ty} {rb}, [%rd1+8];\n{op}.{ty} {rd}, {ra}, {rb};\nst.global.{ty} [%rd1+16], {rd};"
        ),
        [a.0, b.0, 0],
    );
    let want = held(out[2], ty);
    TestResult::from_bool(regs[2] == want)
}

fn comparison(cmp: u8, ty: u8, a: Val, b: Val) -> TestResult {
    let cmps = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
    let (cmp, ty) = (
        cmps[cmp as usize % cmps.len()],
        TYPES[ty as usize % TYPES.len()],
    );
    let unsigned_only = matches!(cmp, "lo" | "ls" | "hi" | "hs");
    if ty.starts_with('b') && !matches!(cmp, "eq" | "ne") || unsigned_only && ty.starts_with('s') {
        return TestResult::discard();
    }
    let (regs, _) = event(
        &format!("setp.{cmp}.{ty} p0, r0, r1"),
        [a.0 as i64, b.0 as i64, 0, 0],
        0,
    );
    let (ra, rb) = (reg(ty, 1), reg(ty, 2));
    let out = interpreter(
        &format!(
            "ld.global.{ty} {ra}, [%rd1];\nld.global.{ty} {rb}, [%rd1+8];\nsetp.{cmp}.{ty} %p1, {ra}, {rb};\nselp.u64 %d7, 1, 0, %p1;\nst.global.u64 [%rd1+16], %d7;"
        ),
        [a.0, b.0, 0],
    );
    TestResult::from_bool(regs[4] == out[2] as i64)
}

fn atomic(op: u8, ty: u8, old: Val, b: Val, c: Val) -> TestResult {
    let ops = [
        "add", "and", "or", "xor", "exch", "cas", "min", "max", "inc", "dec",
    ];
    let (op, ty) = (
        ops[op as usize % ops.len()],
        TYPES[ty as usize % TYPES.len()],
    );
    let ok = match op {
        "add" | "min" | "max" => !ty.starts_with('b'),
        "and" | "or" | "xor" | "exch" | "cas" => ty.starts_with('b'),
        _ => ty == "u32",
    };
    if !ok || (ty.ends_with("64") && op == "add" && ty.starts_with('s')) {
        return TestResult::discard();
    }
    let w = width(ty);
    // The location holds a value of the type (what a write of it left there).
    let x = held(wrap(old.0, w), ty);
    let cas = op == "cas";
    let text = if cas {
        format!("atom.relaxed.gpu.global.{op}.{ty} r2, [x], r0, r1")
    } else {
        format!("atom.relaxed.gpu.global.{op}.{ty} r2, [x], r0")
    };
    let (regs, written) = event(&text, [b.0 as i64, c.0 as i64, 0, 0], x);
    let (rb, rc, rd) = (reg(ty, 1), reg(ty, 2), reg(ty, 3));
    let third = if cas {
        format!(", {rc}")
    } else {
        String::new()
    };
    let out = interpreter(
        &format!(
            "ld.global.{ty} {rb}, [%rd1+8];\nld.global.{ty} {rc}, [%rd1+16];\natom.global.{op}.{ty} {rd}, [%rd1], {rb}{third};"
        ),
        [wrap(old.0, w), b.0, c.0],
    );
    let Some(written) = written else {
        return TestResult::failed();
    };
    // The written value and the returned old value, as registers hold them.
    TestResult::from_bool(written == held(out[0], ty) && regs[2] == x)
}

#[test]
fn event_mode_arithmetic_is_the_interpreters() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(arithmetic as fn(u8, u8, Val, Val) -> TestResult);
}

#[test]
fn event_mode_comparisons_are_the_interpreters() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(comparison as fn(u8, u8, Val, Val) -> TestResult);
}

#[test]
fn event_mode_atomics_are_the_interpreters() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(atomic as fn(u8, u8, Val, Val, Val) -> TestResult);
}

#[test]
fn the_issues_two_atomics() {
    // atom.add.u32 on 4294967295 wraps to 0; atom.min.s32 reads 0xFFFFFFFF as -1.
    let (_, w) = event(
        "atom.relaxed.gpu.global.add.u32 r2, [x], r0",
        [1, 0, 0, 0],
        4_294_967_295,
    );
    assert_eq!(w, Some(0));
    let (_, w) = event(
        "atom.relaxed.gpu.global.min.s32 r2, [x], r0",
        [5, 0, 0, 0],
        0xFFFF_FFFF,
    );
    assert_eq!(w, Some(-1));
}
