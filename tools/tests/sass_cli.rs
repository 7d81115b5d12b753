//! `ptxemu run --isa sass` and `ptxemu check --isa sass`: programs end to end with the PTX
//! argument and dump interface, registers in `--json`, errors reported or fatal.

mod fixture_common;

use fixture_common::ptxemu_in_workspace as ptxemu;

use std::path::PathBuf;
use std::process::Output;

fn scratch(name: &str, body: &str) -> PathBuf {
    fixture_common::scratch_file("sass", name, body)
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

#[test]
fn a_grid_scales_a_buffer_through_64_bit_addresses() {
    let dump = std::env::temp_dir().join(format!("ptxemu-sass-out-{}.bin", std::process::id()));
    let dump_arg = format!("1={}", dump.display());
    let o = ptxemu(&[
        "run",
        "--isa",
        "sass",
        "tests/fixtures/sass/scale.sass",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "u32[50]:fill=3",
        "--arg",
        "u32[50]:zero",
        "--arg",
        "u32:50",
        "--dump",
        &dump_arg,
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(&dump).unwrap();
    let out: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u32> = (0..50).map(|i| 3 * 4 + i).collect();
    assert_eq!(out, want, "threads 50..63 exit on the bound");
    let j = json(&o);
    assert_eq!(j["isa"], "sass");
    assert_eq!(j["threads"].as_array().unwrap().len(), 64);
    assert_eq!(
        j["threads"][37]["regs"][3], "0x00000025",
        "thread 37 of the grid: i = 37"
    );
    assert_eq!(j["buffers"][1]["values"][49], 61);
}

#[test]
fn the_seed_examples_give_the_registers_the_seed_describes() {
    let bytes: Vec<String> = (0..64).map(|b| b.to_string()).collect();
    let buf = format!("u8[64]:[{}]", bytes.join(","));
    let o = ptxemu(&[
        "run",
        "--isa",
        "sass",
        "tests/fixtures/sass/seed_examples.sass",
        "--arg",
        &buf,
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let regs = &json(&o)["threads"][0]["regs"];
    assert_eq!(regs[0], "0x07060504", "LD.E R0, [R2 + 0x1234]");
    assert_eq!(regs[3], "0x17161514", "LD.32 R3, [R1 + 20], P0");
    let four: Vec<&str> = (4..8).map(|k| regs[k].as_str().unwrap()).collect();
    assert_eq!(
        four,
        ["0x03020100", "0x07060504", "0x0b0a0908", "0x0f0e0d0c"],
        "LD.U.128 R4, [R1], P1"
    );
}

#[test]
fn memory_errors_are_reported_and_strict_makes_them_fatal() {
    let p = scratch(
        "oob.sass",
        "MOV R1, c[0x0][0x140];\nLD R2, [R1 + 64];\nMOV32I R3, 7;\nLD R4, [R1 + 6];\nEXIT;\n",
    );
    let path = p.to_str().unwrap();
    let o = ptxemu(&[
        "run",
        "--isa",
        "sass",
        path,
        "--arg",
        "u32[16]:fill=9",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "an error was reported");
    let j = json(&o);
    assert_eq!(j["errors"].as_array().unwrap().len(), 1);
    assert!(j["errors"][0]
        .as_str()
        .unwrap()
        .contains("outside every global allocation"));
    assert_eq!(j["threads"][0]["regs"][2], "0x00000000", "Rd = 0 on error");
    assert_eq!(j["threads"][0]["regs"][3], "0x00000007", "the run went on");
    assert_eq!(
        j["threads"][0]["regs"][4], "0x00000009",
        "misaligned, forced down"
    );
    let o = ptxemu(&[
        "run",
        "--isa",
        "sass",
        path,
        "--arg",
        "u32[16]:fill=9",
        "--strict",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("line 2: LD R2, [R1 + 64]") && e.contains("address 0x10000040"),
        "{e}"
    );
    let o = ptxemu(&[
        "run",
        "--isa",
        "sass",
        path,
        "--arg",
        "u32[16]:fill=9",
        "--strict-align",
        "--json",
    ]);
    assert_eq!(json(&o)["errors"].as_array().unwrap().len(), 2);
    let o = ptxemu(&[
        "run",
        "--isa",
        "sass",
        path,
        "--shared-window",
        "0x2000000:0x100",
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "overlapping windows are bad input"
    );
}

#[test]
fn check_validates_sass_and_names_the_position() {
    let o = ptxemu(&[
        "check",
        "--isa",
        "sass",
        "tests/fixtures/sass/scale.sass",
        "tests/fixtures/sass/seed_examples.sass",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let bad = scratch("bad.sass", "NOP;\nLD.128 R5, [R2];\n");
    let o = ptxemu(&["check", "--isa", "sass", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("bad.sass:2:1: error: a 128-bit access needs a register aligned to 4"),
        "{e}"
    );
    let o = ptxemu(&["run", "--isa", "sass", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}
