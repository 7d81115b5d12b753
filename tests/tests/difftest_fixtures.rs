//! Regression fixtures from `ptxemu difftest` on an NVIDIA H100: each kernel, shrunk to the
//! instruction on which ptxemu once disagreed with the GPU, must now produce exactly the
//! bytes the GPU produced (`tests/difftest/h100/*.gpu.bin`, `tests/difftest/h200/*.gpu.bin`).

use std::path::Path;

use emu::exec::{LaunchConfig, Machine};

const FRAME: usize = 128;
const THREADS: usize = 32;

fn run(ptx: &str, input: &[u8]) -> Vec<u8> {
    let module = emu::front::parse_module(ptx, "fixture.ptx").expect("fixture parses");
    assert!(emu::validate::validate_module(&module).is_empty());
    let mut m = Machine::load_with_source(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "fixture.ptx",
        ptx,
    )
    .expect("loads");
    let size = (FRAME * THREADS) as u64;
    let din = m.alloc(size, "in").unwrap();
    let dout = m.alloc(size, "out").unwrap();
    m.write(din, input);
    m.write(dout, &[0xA5; FRAME * THREADS]);
    let cfg = LaunchConfig::new("k0", [1, 1, 1], [THREADS as u32, 1, 1]);
    let args = vec![din.to_le_bytes().to_vec(), dout.to_le_bytes().to_vec()];
    let report = m.launch(&cfg, &args).expect("launches");
    assert!(report.fault.is_none(), "{:?}", report.fault);
    m.read(dout, size).expect("readable")
}

#[test]
fn every_gpu_fixture_is_reproduced_bit_for_bit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("difftest");
    let mut checked = 0;
    let mut entries: Vec<_> = ["h100", "h200"]
        .iter()
        .flat_map(|gpu| std::fs::read_dir(root.join(gpu)).expect("fixture folder"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    entries.sort();
    for ptx_path in entries {
        let stem = ptx_path.with_extension("");
        let ptx = std::fs::read_to_string(&ptx_path).expect("ptx");
        let input = std::fs::read(stem.with_extension("in.bin")).expect("input");
        let gpu = std::fs::read(stem.with_extension("gpu.bin")).expect("gpu output");
        let out = run(&ptx, &input);
        if out != gpu {
            let first = out.iter().zip(&gpu).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{}: ptxemu differs from the GPU first at byte {first} (thread {}, frame offset {})",
                ptx_path.display(),
                first / FRAME,
                first % FRAME
            );
        }
        checked += 1;
    }
    assert!(checked >= 23, "only {checked} fixtures found");
}
