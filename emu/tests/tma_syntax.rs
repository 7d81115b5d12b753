//! The bulk-copy and tensor-map syntax: every form parses, prints back and validates as the
//! PTX ISA writes it; forms ptxemu does not model are refused naming the qualifier; operand
//! shapes and reduction types are checked.

fn module(body: &str) -> String {
    format!(
        ".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 g)\n{{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .b16 %h<3>;\n.shared .align 128 .b8 s[4096];\n.shared .align 8 .b64 bar;\n{body}\nret;\n}}\n"
    )
}

fn diagnostics(body: &str) -> Vec<String> {
    let src = module(body);
    let m = emu::front::parse_module(&src, "t.ptx").expect("parses");
    let printed = emu::front::print_module(&m);
    let again = emu::front::parse_module(&printed, "printed.ptx").expect("reparses");
    assert_eq!(printed, emu::front::print_module(&again), "print is stable");
    emu::validate::validate_module(&m)
        .into_iter()
        .map(|d| d.message)
        .collect()
}

#[test]
fn every_form_parses_prints_and_validates() {
    let forms = [
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [%rd1], 256, [bar];",
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint [s], [%rd1], %r1, [bar], %rd2;",
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [s], [s+256], 64, [bar];",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [s], 128;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [s], 128;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%rd1], [s], 128;",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.inc.u32 [s], [s+512], 64, [bar];",
        "cp.async.bulk.prefetch.L2.global [%rd1], 256;",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd3, {%r1, %r2}];",
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [s], [%rd3, {%r1}], [bar];",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [s], [%rd1, {%r1, %r2, %r3}], [bar], {%h1};",
        "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%rd3, {%r1, %r2, %r3, %r4, %r5}], [s];",
        "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [s], [%rd3, {%r1, %r2}], [bar];",
        "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes.cta_group::1.L2::cache_hint [s], [%rd3, {%r1, %r2}], [bar], %rd2;",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%rd3, {%r1, %r2}], [s];",
        "cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group.read 0;",
        "cp.async.bulk.wait_group 2;",
        "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [s], %rd1;",
        "tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 1, %r1;",
        "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [s], 0;",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [s], 128;",
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",
        "fence.proxy.async.shared::cta;",
    ];
    for f in forms {
        let d = diagnostics(f);
        assert!(d.is_empty(), "{f}: {d:?}");
    }
}

#[test]
fn operand_shapes_and_types_are_checked() {
    let cases = [
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [s], [%rd3, {%r1}], [bar];",
            "takes 2 coordinates",
        ),
        (
            "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.f32 [s], [s+64], 64, [bar];",
            "cp.reduce.async.bulk into .shared::cluster takes",
        ),
        (
            "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [s], [tm, {%r1}], [bar];",
            "the tensor map of a tensor copy is a generic address",
        ),
        (
            "tensormap.replace.tile.rank.shared::cta.b1024.b64 [s], %rd1;",
            "takes .b32",
        ),
        (
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [s], 64;",
            "the constant 128",
        ),
        (
            "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [s], [%rd3, {%r1, %r2, %r3}], [bar], {%h1, %h2};",
            "1 im2col offsets",
        ),
    ];
    for (f, want) in cases {
        let d = diagnostics(f);
        assert!(d.iter().any(|m| m.contains(want)), "{f}: {d:?}");
    }
}

#[test]
fn unmodelled_forms_are_refused_by_name() {
    let src = module(
        "cp.async.bulk.tensor.2d.tile::gather4.shared::cluster.global.mbarrier::complete_tx::bytes [s], [%rd3, {%r1, %r2, %r3, %r4, %r5}], [bar];",
    );
    // The function is kept, marked as holding an unsupported construct (it cannot launch).
    let m = emu::front::parse_module(&src, "t.ptx").expect("parses");
    let u = &m.functions[0].unsupported;
    assert!(u.iter().any(|(what, _)| what.contains("gather4")), "{u:?}");
}
