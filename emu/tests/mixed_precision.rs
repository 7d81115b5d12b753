//! The sm_100 mixed-precision `add/sub{.rnd}{.sat}.f32.{f16,bf16}` and
//! `fma.rnd{.sat}.f32.{f16,bf16}` (PTX ISA "Mixed Precision Floating-Point Instructions", PTX
//! ISA 8.6), which Triton emits for fp16/bf16 values feeding fp32 arithmetic on sm_100a.
//!
//! * `verdicts.txt`: ptxas 13.5's verdict on 78 probes (the forms in every modifier order,
//!   look-alikes the PTX ISA does not define, wrong operand types, older targets and PTX
//!   versions), made by `mixed_precision/ptxas_verdicts.py`. ptxemu accepts exactly what ptxas
//!   accepts, prints what it accepts back to text that parses to the same module, and names the
//!   needed target and PTX version where ptxas does.
//! * `cases.txt`: 128 inputs per 16-bit type (edge values crossed: zeros, subnormals, the
//!   largest finite values, infinities, NaN; and random values whose sums cancel) and the
//!   expected result of each of the 56 forms, computed by `mixed_precision/cases.py` with numpy
//!   and exact rationals. Each form runs as a kernel, one case per thread, and must match bit
//!   for bit.

mod exec_common;
use exec_common::*;

use std::collections::BTreeMap;

const VERDICTS: &str = include_str!("mixed_precision/verdicts.txt");
const CASES: &str = include_str!("mixed_precision/cases.txt");

/// The registers every probe of `verdicts.txt` may use (its second comment line).
fn probe_decls() -> &'static str {
    VERDICTS
        .lines()
        .find_map(|l| l.strip_prefix("# registers: "))
        .expect("the registers line")
}

fn probe_module(version: &str, target: &str, instr: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{}\n{instr}\nret;\n}}\n",
        probe_decls()
    )
}

/// The kernel's instructions, without their places in the text.
fn instrs(m: &emu::ir::Module) -> Vec<(emu::ir::Op, Vec<emu::ir::Operand>)> {
    let body = m.functions[0].body.as_ref().expect("a body");
    body.stmts
        .iter()
        .filter_map(|s| match s {
            emu::ir::Stmt::Instr(i) => Some((i.op.clone(), i.args.to_vec())),
            _ => None,
        })
        .collect()
}

/// ptxemu's verdict: `Ok(())`, or the parse error or the validator's messages.
fn ptxemu_verdict(src: &str) -> Result<(), Vec<String>> {
    let m = emu::front::parse_module(src, "t.ptx").map_err(|e| vec![e.render(src)])?;
    let d: Vec<String> = emu::validate::validate_module(&m)
        .into_iter()
        .map(|d| d.message)
        .collect();
    if d.is_empty() {
        Ok(())
    } else {
        Err(d)
    }
}

#[test]
fn ptxemu_accepts_what_ptxas_accepts() {
    let mut seen = 0;
    for line in VERDICTS.lines().filter(|l| !l.starts_with('#')) {
        let mut parts = line.split(" | ");
        let head: Vec<&str> = parts.next().unwrap().split_whitespace().collect();
        let instr = parts.next().expect("instruction");
        let ptxas_says = parts.next().unwrap_or("");
        let (verdict, version, target) = (head[0], head[1], head[2]);
        let src = probe_module(version, target, instr);
        let ours = ptxemu_verdict(&src);
        match verdict {
            "ok" => {
                assert!(ours.is_ok(), "{version} {target} `{instr}`: {ours:?}");
                // Printed back, it parses to the same module.
                let m = emu::front::parse_module(&src, "t.ptx").unwrap();
                let printed = emu::front::print_module(&m);
                let again = emu::front::parse_module(&printed, "p.ptx").expect(&printed);
                assert_eq!(instrs(&m), instrs(&again), "{printed}");
                assert_eq!(printed, emu::front::print_module(&again));
            }
            "refused" => {
                let why = ours.expect_err(&format!(
                    "{version} {target} `{instr}` is refused by ptxas: {ptxas_says}"
                ));
                let why = why.join("\n");
                if ptxas_says.contains("requires .target sm_100") {
                    assert!(
                        why.contains("requires sm_100"),
                        "`{instr}` on {target}: {why}"
                    );
                }
                if ptxas_says.contains("requires PTX ISA .version 8.6") {
                    assert!(
                        why.contains("requires PTX ISA 8.6"),
                        "`{instr}` {version}: {why}"
                    );
                }
            }
            other => panic!("verdict `{other}` in `{line}`"),
        }
        seen += 1;
    }
    assert_eq!(seen, 78, "every probe of verdicts.txt was checked");
}

#[test]
fn the_opcode_table_gives_the_forms_their_target_and_version() {
    for (instr, what) in [
        ("add.rn.f32.f16 %f1, %h1, %f2;", "add.f32.f16/add.f32.bf16"),
        ("sub.f32.bf16 %f1, %h1, %f2;", "sub.f32.f16/sub.f32.bf16"),
        (
            "fma.rn.f32.bf16 %f1, %h1, %h2, %f2;",
            "fma.f32.f16/fma.f32.bf16",
        ),
    ] {
        let m = emu::front::parse_module(&probe_module("8.6", "sm_100a", instr), "t.ptx").unwrap();
        let (op, _) = &instrs(&m)[0];
        let req = op.info().requires.expect("a requirement");
        assert_eq!((req.what, req.ptx, req.sm), (what, (8, 6), 100));
    }
}

/// `cases.txt`: each 16-bit type's inputs, and each form's expected results.
struct Cases {
    inputs: BTreeMap<String, Vec<[u32; 3]>>,
    expected: Vec<(String, Vec<u32>)>,
}

fn cases() -> Cases {
    let hex = |s: &str| u32::from_str_radix(s, 16).expect("hex");
    let mut c = Cases {
        inputs: BTreeMap::new(),
        expected: Vec::new(),
    };
    for line in CASES.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[0] {
            "in" => c.inputs.entry(w[1].to_string()).or_default().push([
                hex(w[2]),
                hex(w[3]),
                hex(w[4]),
            ]),
            "expect" => c
                .expected
                .push((w[1].to_string(), w[2..].iter().map(|s| hex(s)).collect())),
            other => panic!("line kind `{other}`"),
        }
    }
    c
}

/// One thread per case: a and b are 16-bit values held in the low half of 32-bit words.
fn kernel(form: &str) -> String {
    let op = if form.starts_with("fma") {
        format!("{form} %r3, %h1, %h2, %r2;")
    } else {
        format!("{form} %r3, %h1, %r2;")
    };
    format!(
        r#".version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
    .reg .b16 %h<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<10>;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 4;
    ld.param.u64 %rd2, [pa];
    ld.param.u64 %rd3, [pb];
    ld.param.u64 %rd4, [pc];
    ld.param.u64 %rd5, [pd];
    add.s64 %rd6, %rd2, %rd1;
    add.s64 %rd7, %rd3, %rd1;
    add.s64 %rd8, %rd4, %rd1;
    add.s64 %rd9, %rd5, %rd1;
    ld.global.b16 %h1, [%rd6];
    ld.global.b16 %h2, [%rd7];
    ld.global.b32 %r2, [%rd8];
    {op}
    st.global.b32 [%rd9], %r3;
    ret;
}}
"#
    )
}

#[test]
fn every_form_matches_the_numpy_reference_bit_for_bit() {
    let c = cases();
    assert_eq!(
        c.expected.len(),
        56,
        "add and sub: 5 roundings, fma: 4; × .sat × 2 types"
    );
    let mut failures = Vec::new();
    for (form, want) in &c.expected {
        let kind = form.rsplit('.').next().unwrap();
        let ins = &c.inputs[kind];
        let col = |k: usize| ins.iter().map(|v| v[k]).collect::<Vec<u32>>();
        let n = ins.len();
        let o = launch(
            &kernel(form),
            "k",
            [1, 1, 1],
            [n as u32, 1, 1],
            vec![u32s(&col(0)), u32s(&col(1)), u32s(&col(2)), zeros(n)],
        );
        o.ok();
        for (t, (got, want)) in o.u32s(3).iter().zip(want).enumerate() {
            if got != want {
                let [a, b, x] = ins[t];
                failures.push(format!(
                    "{form} a={a:04x} b={b:04x} c={x:08x}: got {got:08x}, numpy {want:08x}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}
