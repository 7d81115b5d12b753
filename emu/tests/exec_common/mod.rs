//! Helpers shared by the interpreter's integration tests: parse a PTX text, allocate buffers,
//! launch a kernel and read the buffers back.

#![allow(dead_code)]

use emu::exec::{Fault, LaunchConfig, LaunchReport, Machine};

/// A kernel argument for [`launch`].
pub enum Arg {
    /// A buffer with these initial bytes.
    Buf(Vec<u8>),
    /// A scalar with these bytes.
    Val(Vec<u8>),
}

/// A `u32` buffer.
pub fn u32s(v: &[u32]) -> Arg {
    Arg::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// A zeroed `u32` buffer of `n` elements.
pub fn zeros(n: usize) -> Arg {
    Arg::Buf(vec![0; n * 4])
}

/// A `u32` scalar.
pub fn val32(v: u32) -> Arg {
    Arg::Val(v.to_le_bytes().to_vec())
}

/// The outcome of a launch: its report and each buffer's final bytes.
pub struct Outcome {
    /// The launch report.
    pub report: LaunchReport,
    /// Final bytes of each argument (empty for scalars).
    pub buffers: Vec<Vec<u8>>,
}

impl Outcome {
    /// Buffer `i` as `u32`s.
    pub fn u32s(&self, i: usize) -> Vec<u32> {
        self.buffers[i]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// The fault, which the test expects.
    pub fn fault(&self) -> &Fault {
        self.report
            .fault
            .as_ref()
            .expect("the launch should have faulted")
    }

    /// Asserts the launch did not fault.
    pub fn ok(&self) -> &Self {
        if let Some(f) = &self.report.fault {
            panic!("unexpected fault: {f}");
        }
        self
    }
}

/// Parses `src`, launches `kernel` on a grid and block, and returns the outcome.
pub fn launch(src: &str, kernel: &str, grid: [u32; 3], block: [u32; 3], args: Vec<Arg>) -> Outcome {
    launch_with(src, kernel, grid, block, args, |_| {})
}

/// Like [`launch`], letting the test adjust the configuration.
pub fn launch_with(
    src: &str,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: Vec<Arg>,
    tweak: impl FnOnce(&mut LaunchConfig),
) -> Outcome {
    let module = match emu::front::parse_module(src, "test.ptx") {
        Ok(m) => m,
        Err(e) => panic!("parse error:\n{}", e.render(src)),
    };
    let diags = emu::validate::validate_module(&module);
    assert!(
        diags.is_empty(),
        "validation: {}",
        diags
            .iter()
            .map(|d| d.render(src, "test.ptx"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let mut m = Machine::load_with_source(
        &emu::validate::Validated::new(module.clone()).expect("the module validates"),
        "test.ptx",
        src,
    )
    .expect("decode");
    let mut values = Vec::new();
    let mut addrs = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::Buf(b) => {
                let addr = m.alloc(b.len() as u64, &format!("argument {i}")).unwrap();
                m.write(addr, b);
                values.push(addr.to_le_bytes().to_vec());
                addrs.push(Some((addr, b.len())));
            }
            Arg::Val(v) => {
                values.push(v.clone());
                addrs.push(None);
            }
        }
    }
    let mut cfg = LaunchConfig::new(kernel, grid, block);
    cfg.max_steps = 10_000_000;
    tweak(&mut cfg);
    let report = m.launch(&cfg, &values).expect("launch");
    let buffers = addrs
        .iter()
        .map(|a| match a {
            Some((addr, len)) => m.read(*addr, *len as u64).unwrap_or_default(),
            None => Vec::new(),
        })
        .collect();
    Outcome { report, buffers }
}

/// A PTX module header for sm_90.
pub const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";
