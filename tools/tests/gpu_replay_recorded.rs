//! ptxemu against an H100's recorded replay of the fixtures (no GPU needed).
//!
//! `litmus/hardware/nvidia-h100/replay/` holds what `tools/gpu/replay-fixtures.sh` recorded on
//! an H100: `summary.tsv` (the sha256 of every buffer the GPU dumped), `launches.tsv` (the
//! launches replayed, as `tools/gpu/list_fixtures.py` wrote them), `dumps/SHA.bin` (the GPU's
//! bytes where they differ from the fixture's expected file) and `known_differences.tsv`.
//! Every recorded launch runs through `ptxemu run` and each dump is compared with the GPU's:
//! bit for bit, unless `known_differences.tsv` lists it, in which case the differing element
//! count and the largest distance in ulps must stay within the listed figures and must not
//! reach zero (a listed dump that became exact fails too: take it off the list).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn replay_dir() -> PathBuf {
    root().join("litmus/hardware/nvidia-h100/replay")
}

fn rows(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(replay_dir().join(name)).expect(name);
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// One recorded dump: `summary.tsv`'s row.
struct Recorded {
    fixture: String,
    variant: String,
    arg: String,
    sha: String,
    equal_expected: bool,
}

/// One `known_differences.tsv` row: the bound for a dump ptxemu does not match.
struct Known {
    dtype: String,
    /// `None`: the GPU made no dump (the launch failed).
    differing: Option<usize>,
    max_ulps: Option<u64>,
}

type Key = (String, String, String);

fn known() -> BTreeMap<Key, Known> {
    rows("known_differences.tsv")
        .into_iter()
        .skip(1)
        .map(|r| {
            let key = (r[0].clone(), r[1].clone(), r[2].clone());
            let k = Known {
                dtype: r[3].clone(),
                differing: r[4].parse().ok(),
                max_ulps: r[6].parse().ok(),
            };
            (key, k)
        })
        .collect()
}

/// Maps an IEEE bit pattern to an integer whose order is the numbers' order.
fn ordered(bits: u64, width: u32) -> i64 {
    let sign = 1u64 << (width - 1);
    if bits & sign != 0 {
        -((bits & (sign - 1)) as i64)
    } else {
        bits as i64
    }
}

/// (elements that differ, largest distance in ulps; for `u8` the largest byte difference).
fn distance(gpu: &[u8], emu: &[u8], dtype: &str) -> (usize, u64) {
    let width: usize = match dtype {
        "f32" => 4,
        "f16" => 2,
        _ => 1,
    };
    let mut n = 0;
    let mut max = 0u64;
    for (g, e) in gpu.chunks(width).zip(emu.chunks(width)) {
        if g == e {
            continue;
        }
        n += 1;
        let word = |b: &[u8]| b.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x));
        let d = if width == 1 {
            u64::from(g[0].abs_diff(e[0]))
        } else {
            let w = width as u32 * 8;
            ordered(word(g), w).abs_diff(ordered(word(e), w))
        };
        max = max.max(d);
    }
    (n, max)
}

/// Checks every recorded dump of the fixtures under `group` (`kernels`, `triton`, ...);
/// returns the report of failures (empty when all pass) and the number of dumps checked.
fn check_group(group: &str) -> (String, usize) {
    let launches: BTreeMap<(String, String), Vec<String>> = rows("launches.tsv")
        .into_iter()
        .filter(|r| r[0] == "run")
        .map(|r| ((r[1].clone(), r[2].clone()), r))
        .collect();
    let known = known();
    let recorded: Vec<Recorded> = rows("summary.tsv")
        .into_iter()
        .skip(1)
        .filter(|r| r[2] != "-" && r[0].split('/').next() == Some(group))
        .map(|r| Recorded {
            fixture: r[0].clone(),
            variant: r[1].clone(),
            arg: r[2].clone(),
            sha: r[3].clone(),
            equal_expected: r[4] == "yes",
        })
        .collect();
    let mut by_launch: BTreeMap<(String, String), Vec<&Recorded>> = BTreeMap::new();
    for r in &recorded {
        by_launch
            .entry((r.fixture.clone(), r.variant.clone()))
            .or_default()
            .push(r);
    }
    let mut report = String::new();
    let mut seen = BTreeSet::new();
    let tmp =
        std::env::temp_dir().join(format!("ptxemu-gpu-replay-{group}-{}", std::process::id()));
    for ((fixture, variant), recs) in &by_launch {
        let launch = launches
            .get(&(fixture.clone(), variant.clone()))
            .unwrap_or_else(|| panic!("{fixture} {variant}: not in launches.tsv"));
        let dumps: BTreeMap<&str, &str> = launch[5]
            .split(',')
            .filter_map(|s| s.split_once('='))
            .collect();
        let out = tmp.join(fixture).join(variant);
        std::fs::create_dir_all(&out).expect("temp dir");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
        cmd.current_dir(root())
            .arg("run")
            .arg(&launch[4])
            .args(&launch[6..]);
        for r in recs {
            cmd.arg("--dump").arg(format!(
                "{}={}",
                r.arg,
                out.join(format!("arg{}.bin", r.arg)).display()
            ));
        }
        let run = cmd.output().expect("ptxemu runs");
        for r in recs {
            let key = (r.fixture.clone(), r.variant.clone(), r.arg.clone());
            seen.insert(key.clone());
            let what = format!("{fixture} {variant} arg {}", r.arg);
            let listed = known.get(&key);
            if r.sha == "-" {
                if listed.is_none_or(|k| k.differing.is_some()) {
                    let _ = writeln!(report, "{what}: the GPU made no dump; list it as `no-dump`");
                }
                continue;
            }
            let gpu_path = if r.equal_expected {
                root().join(dumps[r.arg.as_str()])
            } else {
                replay_dir().join("dumps").join(format!("{}.bin", r.sha))
            };
            let gpu = std::fs::read(&gpu_path).expect("the GPU's dump");
            assert_eq!(
                sha256_hex(&gpu),
                r.sha,
                "{what}: {} is not the recorded dump",
                gpu_path.display()
            );
            let Ok(emu) = std::fs::read(out.join(format!("arg{}.bin", r.arg))) else {
                let err = String::from_utf8_lossy(&run.stderr);
                let _ = writeln!(
                    report,
                    "{what}: ptxemu made no dump ({}): {err}",
                    run.status
                );
                continue;
            };
            let dtype = listed.map_or("u8", |k| k.dtype.as_str());
            let (n, ulps) = distance(&gpu, &emu, dtype);
            let ulps_s = if dtype == "u8" {
                "-".to_string()
            } else {
                ulps.to_string()
            };
            match listed {
                None if n > 0 || gpu.len() != emu.len() => {
                    let _ = writeln!(
                        report,
                        "{what}: differs from the GPU in {n} bytes; not listed"
                    );
                }
                None => {}
                Some(_) if gpu == emu => {
                    let _ = writeln!(
                        report,
                        "{what}: now equal to the GPU; take it off known_differences.tsv"
                    );
                }
                Some(k) => {
                    let over_n = k.differing.is_none_or(|m| n > m);
                    let over_u = k.max_ulps.is_some_and(|m| ulps > m);
                    if over_n || over_u || gpu.len() != emu.len() {
                        let _ = writeln!(
                            report,
                            "{what}: {n} {dtype} elements differ, max {ulps_s} ulps; listed {:?} / {:?}",
                            k.differing, k.max_ulps
                        );
                    }
                }
            }
        }
    }
    for key in known
        .keys()
        .filter(|k| k.0.split('/').next() == Some(group))
    {
        if !seen.contains(key) {
            let _ = writeln!(
                report,
                "{key:?}: listed in known_differences.tsv but not recorded"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    (report, recorded.len())
}

fn check(group: &str) {
    let (report, n) = check_group(group);
    assert!(n > 0, "no recorded dumps under {group}/");
    assert!(
        report.is_empty(),
        "ptxemu vs the H100's recorded dumps ({group}/):\n{report}"
    );
}

#[test]
fn async_fixtures() {
    check("async");
}

#[test]
fn cluster_fixtures() {
    check("cluster");
}

#[test]
fn kernel_fixtures() {
    check("kernels");
}

#[test]
fn mma_fixtures() {
    check("mma");
}

#[test]
fn tma_fixtures() {
    check("tma");
}

#[test]
fn triton_fixtures() {
    check("triton");
}

#[test]
fn wgmma_fixtures() {
    check("wgmma");
}

#[test]
fn every_group_is_checked() {
    let groups: BTreeSet<String> = rows("summary.tsv")
        .into_iter()
        .skip(1)
        .map(|r| r[0].split('/').next().unwrap_or("").to_string())
        .collect();
    let tested = [
        "async", "cluster", "kernels", "mma", "tma", "triton", "wgmma",
    ];
    assert_eq!(groups, tested.iter().map(|s| s.to_string()).collect());
}

#[test]
fn ulp_distance() {
    let f = |x: f32| x.to_le_bytes().to_vec();
    assert_eq!(distance(&f(1.0), &f(1.0), "f32"), (0, 0));
    assert_eq!(
        distance(&f(1.0), &f(f32::from_bits(0x3f80_0002)), "f32"),
        (1, 2)
    );
    assert_eq!(
        distance(&f(f32::from_bits(1)), &f(-f32::from_bits(1)), "f32"),
        (1, 2)
    );
    assert_eq!(distance(&[0x00, 0x3c], &[0x01, 0x3c], "f16"), (1, 1));
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

/// SHA-256 (FIPS 180-4), to check the committed dumps against `summary.tsv`.
fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}
