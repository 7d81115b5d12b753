//! The recorded driver maps (litmus/hardware/nvidia-h100/tensor-maps/cases: each case's
//! `tmap:` spec, the launch record the host encoded it from, the driver's 128 bytes and the
//! buffer address) decode back to the parameters of their case.

use super::*;
use std::path::PathBuf;

fn cases() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../litmus/hardware/nvidia-h100/tensor-maps/cases")
}

/// Case number, launch record's tensor-map fields, driver bytes, recorded address, spec.
type Case = (u32, Vec<String>, [u8; TMAP_BYTES], u64, String);

fn recorded() -> Vec<Case> {
    let mut out = Vec::new();
    for n in 1..=40 {
        let p = |e: &str| cases().join(format!("{n}.{e}"));
        let Ok(bin) = std::fs::read(p("bin")) else {
            continue;
        };
        let launch = std::fs::read_to_string(p("launch.txt")).unwrap();
        let line = launch
            .lines()
            .find(|l| l.starts_with("param 0 tmap "))
            .unwrap();
        let fields = line.split_whitespace().skip(3).map(String::from).collect();
        let addr = std::fs::read_to_string(p("addr")).unwrap();
        let addr = u64::from_str_radix(addr.trim().trim_start_matches("0x"), 16).unwrap();
        let spec = std::fs::read_to_string(p("txt"))
            .unwrap()
            .trim()
            .to_string();
        out.push((n, fields, bin.try_into().unwrap(), addr, spec));
    }
    out
}

/// CUtensorMapDataType's numbers, as names.
const CUDA_DTYPES: [&str; 13] = [
    "u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32_ftz", "tf32",
    "tf32_ftz",
];

#[test]
fn every_recorded_driver_map_decodes_to_its_launch_parameters() {
    let all = recorded();
    assert_eq!(
        all.len(),
        37,
        "37 of the 40 cases were encoded by the driver"
    );
    for (n, f, bin, addr, _) in all {
        let m = decode(&bin).unwrap_or_else(|e| panic!("case {n}: {e}"));
        let im2col = f[0] == "im2col";
        let mut it2 = f[1..].iter().map(|x| x.parse::<i64>().unwrap());
        let mut nx = || it2.next().unwrap();
        let dt = nx() as usize;
        assert_eq!(m.elem().unwrap().name(), CUDA_DTYPES[dt], "case {n}: dtype");
        let rank = nx() as usize;
        assert_eq!((m.rank as usize, m.im2col), (rank, im2col), "case {n}");
        for d in 0..rank {
            assert_eq!(i64::from(m.dims[d]), nx(), "case {n}: dims[{d}]");
        }
        for d in 1..rank {
            assert_eq!(m.strides[d] as i64, nx(), "case {n}: strides[{d}]");
        }
        if !im2col {
            for d in 0..rank {
                assert_eq!(i64::from(m.boxes[d]), nx(), "case {n}: box[{d}]");
            }
        }
        for d in 0..rank {
            assert_eq!(i64::from(m.estrides[d]), nx(), "case {n}: estrides[{d}]");
        }
        let (il, sw, l2, oob) = (nx(), nx(), nx(), nx());
        assert_eq!(i64::from(m.interleave), il, "case {n}: interleave");
        assert_eq!(i64::from(m.swizzle), sw, "case {n}: swizzle");
        assert_eq!(i64::from(m.l2), l2, "case {n}: l2");
        assert_eq!(i64::from(m.fill), oob, "case {n}: oob fill");
        if im2col {
            for s in 0..rank - 2 {
                assert_eq!(i64::from(m.lower[s]), nx(), "case {n}: lower[{s}]");
            }
            for s in 0..rank - 2 {
                assert_eq!(i64::from(m.upper[s]), nx(), "case {n}: upper[{s}]");
            }
            assert_eq!(i64::from(m.boxes[0]), nx(), "case {n}: channels");
            assert_eq!(i64::from(m.pixels), nx(), "case {n}: pixels");
        }
        assert_eq!(m.addr, addr, "case {n}: the buffer address");
    }
}

#[test]
fn driver_bytes_give_the_map_the_parameters_give() {
    for (n, _, bin, _, spec) in recorded() {
        let body = spec.strip_prefix("tmap:").unwrap();
        let want = crate::tmap_arg::parse(body).unwrap_or_else(|e| panic!("case {n}: {e}"));
        let data = body.split_once(",data=").unwrap().1;
        let hexed: String = bin.iter().map(|b| format!("{b:02x}")).collect();
        let got = crate::tmap_arg::parse(&format!(
            "driver,bytes={hexed},offset={},data={data}",
            want.map.addr
        ))
        .unwrap_or_else(|e| panic!("case {n}: {e}"));
        assert_eq!(got.map, want.map, "case {n}");
    }
}

#[test]
fn fields_the_recordings_do_not_cover_are_refused_by_name() {
    let (_, _, bin, _, _) = recorded().remove(6);
    let bad = |k: usize, v: u8| {
        let mut b = bin;
        b[k] = v;
        decode(&b).unwrap_err()
    };
    assert!(bad(11, 0x80).contains("flags word"));
    assert!(bad(64, 0x81).contains("box byte count"));
    assert!(bad(72, 0x20).contains("alignment"));
    assert!(bad(100, 1).contains("byte 100"));
    assert!(bad(31, 1).contains("byte 31"));
    assert!(bad(40, 3).contains("globalDim[2]"));
    let e = crate::tmap_arg::parse("driver,bytes=00ff,buf=0").unwrap_err();
    assert!(e.contains("256"), "{e}");
    let e = crate::tmap_arg::parse("driver,buf=0").unwrap_err();
    assert!(e.contains("bytes="), "{e}");
}
