//! Defects found by running public CUDA kernels as nvcc 13.5 emits them (issue 19), each on a
//! small module: `WARP_SZ`, the reserved shared-memory registers, ptxas's per-kernel shared
//! layout, 32-bit shared addresses, a shuffle with a full mask in a partial warp, and a kernel
//! the interpreter cannot run beside one it can.
//!
//! The expected shared offsets are ptxas 13.5's: each module below was assembled with
//! `ptxas -arch=sm_90` (or sm_80) and the offsets read from its SASS (`cuobjdump -sass`: the
//! `MOV R, 0x400` / `VIADD R, R, 0x10` feeding each `mov.u32 %r, var`) and the `SHARED:` of
//! `cuobjdump -res-usage`, as stated beside each check.

mod exec_common;

use emu::exec::{LaunchConfig, LaunchError, Machine};
use exec_common::{launch, launch_with, zeros, HEADER};

/// A kernel `k(out)` that stores the 32-bit values `vals` (registers or names) to `out[0..]`.
fn store_all(header: &str, decls: &str, locals: &str, name: &str, vals: &[&str]) -> String {
    // `%r{i}` for each value, so `.reg .b32 %r<N>` with N = len + 1.
    let mut body = String::new();
    for (i, v) in vals.iter().enumerate() {
        body.push_str(&format!(
            "mov.u32 %r{i}, {v};\nst.global.u32 [%rd1+{}], %r{i};\n",
            4 * i
        ));
    }
    format!(
        "{header}{decls}\n.visible .entry {name}(.param .u64 out)\n{{\n.reg .b32 %r<{}>;\n.reg .b64 %rd<2>;\n{locals}\nld.param.u64 %rd1, [out];\n{body}ret;\n}}\n",
        vals.len() + 1
    )
}

#[test]
fn warp_sz_is_the_warp_size() {
    // nvcc writes `mov.u32 %r, WARP_SZ;` for every CUDA `warpSize`.
    let src = store_all(HEADER, "", "", "k", &["WARP_SZ"]);
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(1)]);
    assert_eq!(o.ok().u32s(0), vec![32]);
}

#[test]
fn reserved_region_is_the_first_kib_on_sm_90() {
    // ptxas -arch=sm_90: `begin` and `_0` are the constant 0 and `cap` the constant 0x400;
    // `arr` is at 0x400 and `dyn` at 0x410 (SHARED:1040). `end` and `_1` come from the
    // driver: ptxemu's choice (decode::shared) is the region's end and its last 288 bytes.
    let src = store_all(
        HEADER,
        ".extern .shared .align 16 .b8 dyn[];",
        ".shared .align 4 .b32 arr[4];",
        "k",
        &[
            "%reserved_smem_offset_begin",
            "%reserved_smem_offset_end",
            "%reserved_smem_offset_cap",
            "%reserved_smem_offset_0",
            "%reserved_smem_offset_1",
            "arr",
            "dyn",
            "%dynamic_smem_size",
        ],
    );
    let o = launch_with(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(8)], |c| {
        c.dynamic_shared = 64;
    });
    let v = o.ok().u32s(0);
    // `%dynamic_smem_size` is the launch's dynamic bytes (ptxas reads it from the launch's
    // constant bank).
    assert_eq!(v, vec![0, 1024, 1024, 0, 1024 - 288, 1024, 1040, 64]);
}

#[test]
fn variables_are_laid_out_per_kernel_as_ptxas_does() {
    // ptxas -arch=sm_90, three kernels of one module: k1 has `arr` at 0x400 and uses `modsh`
    // (0x410); `dyn` follows at 0x430 (SHARED:1072). k2 has `big` at 0x400 and `small` at
    // 0x420, `dyn` at 0x430 (SHARED:1072). k3 has no variables: `dyn` at 0x400
    // (SHARED:1024). `unused` takes no space anywhere.
    let decls = ".extern .shared .align 16 .b8 dyn[];\n.shared .align 8 .b8 modsh[24];\n.shared .align 4 .b8 unused[100];";
    let k1 = store_all(
        HEADER,
        decls,
        ".shared .align 4 .b32 arr[4];",
        "k1",
        &["arr", "dyn", "modsh"],
    );
    let k2 = store_all(
        "",
        "",
        ".shared .align 16 .b32 big[8];\n.shared .align 2 .b16 small[3];",
        "k2",
        &["big", "dyn", "small"],
    );
    let k3 = store_all("", "", "", "k3", &["dyn"]);
    let src = format!("{k1}{k2}{k3}");
    let run = |k: &str, n: usize| launch(&src, k, [1, 1, 1], [1, 1, 1], vec![zeros(n)]);
    assert_eq!(run("k1", 3).ok().u32s(0), vec![0x400, 0x430, 0x410]);
    assert_eq!(run("k2", 3).ok().u32s(0), vec![0x400, 0x430, 0x420]);
    assert_eq!(run("k3", 1).ok().u32s(0), vec![0x400]);
}

#[test]
fn own_variables_first_then_module_variables_in_declaration_order() {
    // ptxas -arch=sm_90, offsets from 0x400: l1 0x0, l2 0x8, l3 0xc (the kernel's own, in
    // declaration order), then m1 0x18, m2 0x20, m3 0x30 (module scope, in declaration
    // order, not in order of use); SHARED:1076.
    let src = store_all(
        HEADER,
        ".shared .align 1 .b8 m1[3];\n.shared .align 16 .b8 m2[16];\n.shared .align 4 .b8 m3[4];",
        ".shared .align 8 .b8 l1[8];\n.shared .align 2 .b8 l2[2];\n.shared .align 4 .b8 l3[12];",
        "k",
        &["m3", "m2", "l2", "m1", "l1", "l3"],
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(6)]);
    let got: Vec<u32> = o.ok().u32s(0).iter().map(|a| a - 0x400).collect();
    assert_eq!(got, vec![0x30, 0x20, 0x8, 0x18, 0x0, 0xc]);
}

#[test]
fn before_sm_90_variables_start_at_zero() {
    // ptxas -arch=sm_80: `arr` at 0 (STS [RZ]), `dyn` at 0x10, SHARED:16; the reserved
    // region follows the CTA's shared memory there.
    let header = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let src = store_all(
        header,
        ".extern .shared .align 16 .b8 dyn[];",
        ".shared .align 4 .b32 arr[4];",
        "k",
        &["arr", "dyn", "%reserved_smem_offset_begin"],
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(3)]);
    assert_eq!(o.ok().u32s(0), vec![0, 16, 16]);
}

#[test]
fn each_kernel_has_its_own_227_kib() {
    // Two kernels with 200 KiB each: together they exceed a CTA's 227 KiB, but each CTA
    // holds only its own kernel's array, at 0x400.
    let k = |name: &str| {
        store_all(
            "",
            "",
            &format!(".shared .align 4 .b8 {name}_a[204800];"),
            name,
            &[&format!("{name}_a")],
        )
    };
    let src = format!("{HEADER}{}{}", k("one"), k("two"));
    for name in ["one", "two"] {
        let o = launch(&src, name, [1, 1, 1], [1, 1, 1], vec![zeros(1)]);
        assert_eq!(o.ok().u32s(0), vec![0x400], "{name}");
    }
}

#[test]
fn shared_addresses_wrap_modulo_2_pow_32() {
    // `[%r+68]` with `%r` below zero (as Rodinia's needleman-wunsch computes it): the 32-bit
    // address wraps to arr+68, as on the hardware.
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<5>;\n.reg .b64 %rd<2>;\n.shared .align 4 .b32 arr[32];\nld.param.u64 %rd1, [out];\nmov.u32 %r1, arr;\nsub.u32 %r2, %r1, 2000;\nst.shared.u32 [%r2+2068], 5;\nld.shared.u32 %r3, [arr+68];\nst.global.u32 [%rd1], %r3;\nret;\n}}\n"
    );
    let o = launch(&src, "k", [1, 1, 1], [1, 1, 1], vec![zeros(1)]);
    assert_eq!(o.ok().u32s(0), vec![5]);
}

#[test]
fn a_full_mask_shuffle_in_a_partial_warp_waits_only_for_existing_lanes() {
    // 40 threads: the second warp has lanes 0-7. `shfl.sync.up` with mask -1 (as cooperative
    // groups' tiled_partition<32> writes it) must not wait for lanes 8-31, which do not exist.
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p;\nld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nshfl.sync.up.b32 %r2|%p, %r1, 1, 0, -1;\nmul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r2;\nret;\n}}\n"
    );
    let o = launch(&src, "k", [1, 1, 1], [40, 1, 1], vec![zeros(40)]);
    let want: Vec<u32> = (0..40u32)
        .map(|t| if t % 32 == 0 { t } else { t - 1 })
        .collect();
    assert_eq!(o.ok().u32s(0), want);
}

#[test]
fn a_kernel_the_interpreter_cannot_run_refuses_only_itself() {
    // `bad` holds a vector atomic with a vector destination, which the decoder does not
    // lower; `good` in the same module runs.
    let src = format!(
        "{HEADER}.visible .entry good(.param .u64 out)\n{{\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], 7;\nret;\n}}\n.visible .entry bad(.param .u64 out)\n{{\n.reg .b64 %rd<2>;\n.reg .f32 %f<3>;\nld.param.u64 %rd1, [out];\nmov.f32 %f1, 0f3F800000;\natom.global.v2.f32.add {{%f1, %f2}}, [%rd1], {{%f1, %f1}};\nret;\n}}\n"
    );
    let module = emu::front::parse_module(&src, "t.ptx").expect("parses");
    assert!(emu::validate::validate_module(&module).is_empty());
    let mut m = Machine::load_with_source(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "t.ptx",
        &src,
    )
    .expect("the module loads");
    let out = m.alloc(4, "out").unwrap();
    let arg = vec![out.to_le_bytes().to_vec()];
    let r = m
        .launch(&LaunchConfig::new("good", [1, 1, 1], [1, 1, 1]), &arg)
        .expect("good runs");
    assert!(r.fault.is_none());
    assert_eq!(m.read(out, 4), Some(7u32.to_le_bytes().to_vec()));
    let e = m
        .launch(&LaunchConfig::new("bad", [1, 1, 1], [1, 1, 1]), &arg)
        .expect_err("bad is refused");
    let LaunchError::Refused { kernel, error } = &e else {
        panic!("expected a refusal, got {e}");
    };
    assert_eq!(kernel, "bad");
    let text = e.to_string();
    let line = src.lines().position(|l| l.starts_with("atom.")).unwrap() + 1;
    assert!(text.contains(&format!("line {line}")), "{text}");
    assert!(text.contains("kernel `bad`"), "{text}");
    let _ = error;
}

#[test]
fn an_unimplemented_instruction_refuses_only_the_kernels_that_reach_it() {
    // `stacksave` and `vadd` are PTX that ptxemu does not implement: the validator reports
    // both (so `check` does), `bad` and its caller chain are refused naming the first, and
    // `good` runs.
    let src = format!(
        "{HEADER}.func helper()\n{{\n.reg .b32 %r<2>;\nvadd.s32.s32.s32 %r1, %r1, %r1, %r1;\nret;\n}}\n.visible .entry good(.param .u64 out)\n{{\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], 7;\nret;\n}}\n.visible .entry bad(.param .u64 out)\n{{\n.reg .b64 %rd<2>;\n.shared .align 16 .b8 buf[64];\nld.param.u64 %rd1, [out];\nstacksave.u64 %rd1;\nret;\n}}\n.visible .entry calls(.param .u64 out)\n{{\ncall helper, ();\nret;\n}}\n"
    );
    let line = |prefix: &str| src.lines().position(|l| l.starts_with(prefix)).unwrap() + 1;
    let module = emu::front::parse_module(&src, "t.ptx").expect("parses");
    let diags = emu::validate::validate_module(&module);
    let lines: Vec<(u32, &str)> = diags.iter().map(|d| (d.span.line, d.rule)).collect();
    assert_eq!(
        lines,
        vec![
            (line("vadd.") as u32, emu::validate::UNSUPPORTED),
            (line("stacksave.") as u32, emu::validate::UNSUPPORTED)
        ]
    );
    let mut m = Machine::load_with_source(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "t.ptx",
        &src,
    )
    .expect("the module loads");
    let out = m.alloc(4, "out").unwrap();
    let arg = vec![out.to_le_bytes().to_vec()];
    let cfg = |k: &str| LaunchConfig::new(k, [1, 1, 1], [1, 1, 1]);
    assert!(m
        .launch(&cfg("good"), &arg)
        .expect("good runs")
        .fault
        .is_none());
    assert_eq!(m.read(out, 4), Some(7u32.to_le_bytes().to_vec()));
    for (kernel, what, at) in [
        ("bad", "`stacksave`", line("stacksave.")),
        ("calls", "`vadd`", line("vadd.")),
    ] {
        let e = m.launch(&cfg(kernel), &arg).expect_err("refused");
        let text = e.to_string();
        assert!(matches!(e, LaunchError::Refused { .. }), "{text}");
        assert!(text.contains(&format!("kernel `{kernel}`")), "{text}");
        assert!(text.contains(&format!("line {at}")), "{text}");
        assert!(text.contains(what), "{text}");
    }
}
