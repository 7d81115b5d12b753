//! One random instruction (integer, bit, float, conversion) or a shared-memory exchange, over
//! the frame's registers.

use super::{Rng, ND, NF, NFD, NR};

pub(super) fn r(g: &mut Rng) -> String {
    format!("%r{}", g.below(NR))
}
pub(super) fn d(g: &mut Rng) -> String {
    format!("%rd{}", g.below(ND))
}
pub(super) fn f(g: &mut Rng) -> String {
    format!("%f{}", g.below(NF))
}
pub(super) fn fd(g: &mut Rng) -> String {
    format!("%fd{}", g.below(NFD))
}
pub(super) fn p(g: &mut Rng) -> String {
    format!("%p{}", g.below(4))
}

pub(super) fn int_imm(g: &mut Rng) -> String {
    match g.below(6) {
        0 => "0".into(),
        1 => "1".into(),
        2 => "-1".into(),
        3 => "31".into(),
        4 => "0x80000000".into(),
        _ => (g.next() as u32).to_string(),
    }
}

pub(super) fn r_or_imm(g: &mut Rng) -> String {
    if g.below(4) == 0 {
        int_imm(g)
    } else {
        r(g)
    }
}

/// A register or an immediate in [0, 255] (bit positions and lengths).
pub(super) fn r_or_small(g: &mut Rng) -> String {
    if g.below(3) == 0 {
        g.below(256).to_string()
    } else {
        r(g)
    }
}

const ROUND: &[&str] = &[".rn", ".rz", ".rm", ".rp"];
const CMP_I: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
const CMP_F: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// One random instruction (sometimes two lines that belong together).
pub(super) fn instruction(g: &mut Rng) -> Vec<String> {
    let k = g.below(40);
    let line = match k {
        7 => return division(g),
        0..=17 => int32(g, k),
        18..=23 => int64(g, k),
        24..=32 => float32(g, k),
        33..=35 => float64(g, k),
        36..=38 => conversion(g),
        _ => format!("mov.b32 {}, {}", f(g), r(g)),
    };
    vec![line]
}

/// A division or remainder by a value forced to be non-zero.
fn division(g: &mut Rng) -> Vec<String> {
    let ty = g.pick(&["u32", "s32"]);
    let op = g.pick(&["div", "rem"]);
    let (dst, a, b) = (r(g), r(g), r(g));
    vec![
        format!("or.b32 %rt, {b}, 1"),
        format!("{op}.{ty} {dst}, {a}, %rt"),
    ]
}

/// Instruction `k` (0 to 17, but 7) of [`instruction`]: 32-bit integer arithmetic, logic,
/// bit fields, comparisons and selection.
fn int32(g: &mut Rng, k: u32) -> String {
    match k {
        0..=5 => {
            let op = g.pick(&["add", "sub", "mul.lo", "mul.hi", "min", "max"]);
            let ty = g.pick(&["u32", "s32"]);
            format!("{op}.{ty} {}, {}, {}", r(g), r(g), r_or_imm(g))
        }
        6 => format!("mad.lo.s32 {}, {}, {}, {}", r(g), r(g), r(g), r(g)),
        8..=10 => {
            let op = g.pick(&["and", "or", "xor"]);
            format!("{op}.b32 {}, {}, {}", r(g), r(g), r_or_imm(g))
        }
        11 => {
            let op = g.pick(&["shl.b32", "shr.u32", "shr.s32"]);
            let amount = if g.below(2) == 0 {
                r(g)
            } else {
                g.below(40).to_string()
            };
            format!("{op} {}, {}, {amount}", r(g), r(g))
        }
        12 => {
            let op = g.pick(&[
                "not.b32", "popc.b32", "clz.b32", "brev.b32", "abs.s32", "neg.s32",
            ]);
            format!("{op} {}, {}", r(g), r(g))
        }
        13 => format!(
            "bfe.{} {}, {}, {}, {}",
            g.pick(&["u32", "s32"]),
            r(g),
            r(g),
            r_or_small(g),
            r_or_small(g)
        ),
        14 => format!(
            "bfi.b32 {}, {}, {}, {}, {}",
            r(g),
            r(g),
            r(g),
            r_or_small(g),
            r_or_small(g)
        ),
        15 => format!("prmt.b32 {}, {}, {}, {}", r(g), r(g), r(g), r(g)),
        16 => format!(
            "setp.{}.{} {}, {}, {}",
            g.pick(CMP_I),
            g.pick(&["u32", "s32"]),
            p(g),
            r(g),
            r_or_imm(g)
        ),
        _ => format!("selp.b32 {}, {}, {}, {}", r(g), r(g), r(g), p(g)),
    }
}

/// Instruction `k` (18 to 23) of [`instruction`]: 64-bit integer arithmetic, logic, shifts,
/// widening multiplication and integer conversions.
fn int64(g: &mut Rng, k: u32) -> String {
    match k {
        18..=19 => {
            let op = g.pick(&["add", "sub", "mul.lo", "mul.hi", "min", "max"]);
            let ty = if op == "mul.hi" {
                "u64"
            } else {
                g.pick(&["u64", "s64"])
            };
            format!("{op}.{ty} {}, {}, {}", d(g), d(g), d(g))
        }
        20 => {
            let op = g.pick(&["and", "or", "xor"]);
            format!("{op}.b64 {}, {}, {}", d(g), d(g), d(g))
        }
        21 => format!(
            "{} {}, {}, {}",
            g.pick(&["shl.b64", "shr.u64", "shr.s64"]),
            d(g),
            d(g),
            r(g)
        ),
        22 => format!(
            "mul.wide.{} {}, {}, {}",
            g.pick(&["u32", "s32"]),
            d(g),
            r(g),
            r(g)
        ),
        _ => match g.below(3) {
            0 => format!("cvt.u64.u32 {}, {}", d(g), r(g)),
            1 => format!("cvt.s64.s32 {}, {}", d(g), r(g)),
            _ => format!("cvt.u32.u64 {}, {}", r(g), d(g)),
        },
    }
}

/// Instruction `k` (24 to 32) of [`instruction`]: `.f32` arithmetic, comparison and selection.
fn float32(g: &mut Rng, k: u32) -> String {
    match k {
        24..=27 => {
            let op = g.pick(&["add", "sub", "mul"]);
            let ftz = if g.below(3) == 0 { ".ftz" } else { "" };
            let sat = if g.below(5) == 0 { ".sat" } else { "" };
            format!(
                "{op}{}{ftz}{sat}.f32 {}, {}, {}",
                g.pick(ROUND),
                f(g),
                f(g),
                f(g)
            )
        }
        28 => format!(
            "fma{}{}.f32 {}, {}, {}, {}",
            g.pick(ROUND),
            if g.below(3) == 0 { ".ftz" } else { "" },
            f(g),
            f(g),
            f(g),
            f(g)
        ),
        29 => match g.below(4) {
            0 => format!("div{}.f32 {}, {}, {}", g.pick(ROUND), f(g), f(g), f(g)),
            1 => format!("sqrt{}.f32 {}, {}", g.pick(ROUND), f(g), f(g)),
            2 => format!("rcp{}.f32 {}, {}", g.pick(ROUND), f(g), f(g)),
            _ => format!(
                "{}.f32 {}, {}, {}",
                g.pick(&["min", "max"]),
                f(g),
                f(g),
                f(g)
            ),
        },
        30 => format!("{}.f32 {}, {}", g.pick(&["abs", "neg"]), f(g), f(g)),
        31 => format!("setp.{}.f32 {}, {}, {}", g.pick(CMP_F), p(g), f(g), f(g)),
        _ => format!("selp.f32 {}, {}, {}, {}", f(g), f(g), f(g), p(g)),
    }
}

/// Instruction `k` (33 to 35) of [`instruction`]: `.f64` arithmetic.
fn float64(g: &mut Rng, k: u32) -> String {
    match k {
        33..=34 => {
            let op = g.pick(&["add", "sub", "mul"]);
            format!("{op}{}.f64 {}, {}, {}", g.pick(ROUND), fd(g), fd(g), fd(g))
        }
        _ => match g.below(3) {
            0 => format!(
                "fma{}.f64 {}, {}, {}, {}",
                g.pick(ROUND),
                fd(g),
                fd(g),
                fd(g),
                fd(g)
            ),
            1 => format!("div{}.f64 {}, {}, {}", g.pick(ROUND), fd(g), fd(g), fd(g)),
            _ => format!("sqrt{}.f64 {}, {}", g.pick(ROUND), fd(g), fd(g)),
        },
    }
}

pub(super) fn conversion(g: &mut Rng) -> String {
    let iround = [".rni", ".rzi", ".rmi", ".rpi"];
    let ir = iround[g.below(4) as usize];
    match g.below(10) {
        0 => format!(
            "cvt{}.f32.{} {}, {}",
            g.pick(ROUND),
            g.pick(&["s32", "u32"]),
            f(g),
            r(g)
        ),
        1 => format!("cvt{ir}.{}.f32 {}, {}", g.pick(&["s32", "u32"]), r(g), f(g)),
        2 => format!(
            "cvt{ir}.{}.f64 {}, {}",
            g.pick(&["s32", "u32"]),
            r(g),
            fd(g)
        ),
        3 => format!(
            "cvt{}.f64.{} {}, {}",
            g.pick(ROUND),
            g.pick(&["s64", "u64"]),
            fd(g),
            d(g)
        ),
        4 => format!(
            "cvt{ir}.{}.f64 {}, {}",
            g.pick(&["s64", "u64"]),
            d(g),
            fd(g)
        ),
        5 => format!("cvt.f64.f32 {}, {}", fd(g), f(g)),
        6 => format!(
            "cvt{}{}.f32.f64 {}, {}",
            g.pick(ROUND),
            if g.below(3) == 0 { ".ftz" } else { "" },
            f(g),
            fd(g)
        ),
        7 => format!(
            "cvt{ir}{}.f32.f32 {}, {}",
            if g.below(3) == 0 { ".ftz" } else { "" },
            f(g),
            f(g)
        ),
        8 => format!(
            "cvt.sat.{}.{} {}, {}",
            g.pick(&["u8", "s8", "u16", "s16"]),
            g.pick(&["s32", "u32"]),
            r(g),
            r(g)
        ),
        _ => format!("cvt.sat.f32.f32 {}, {}", f(g), f(g)),
    }
}

/// A shared-memory exchange: every thread stores a register, the CTA synchronises, and each
/// loads its neighbour's value (top level only: `bar.sync` must not be skipped).
pub(super) fn exchange(g: &mut Rng) -> Vec<String> {
    let shift = 1 + g.below(31);
    let (src, dst) = (r(g), r(g));
    vec![
        format!("st.shared.u32 [%sh], {src}"),
        "bar.sync 0".into(),
        format!("add.u32 %rt, %t, {shift}"),
        "and.b32 %rt, %rt, 31".into(),
        "shl.b32 %rt, %rt, 2".into(),
        "cvt.u64.u32 %shx, %rt".into(),
        "mov.u64 %shb, xch".into(),
        "add.u64 %shx, %shx, %shb".into(),
        format!("ld.shared.u32 {dst}, [%shx]"),
        "bar.sync 0".into(),
    ]
}
