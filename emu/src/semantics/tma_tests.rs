//! Tensor-map encoding and box placement, against the independent Python model
//! `tests/fixtures/tma/model.py` (its output is `tma_cases.txt`).

use super::*;

fn ints(s: &str) -> Vec<i64> {
    if s.is_empty() {
        return Vec::new();
    }
    s.split(',').map(|x| x.parse().unwrap()).collect()
}

fn dtype_of(esize: i64) -> Dtype {
    match esize {
        1 => Dtype::U8,
        2 => Dtype::F16,
        4 => Dtype::F32,
        _ => Dtype::F64,
    }
}

const BASE: u64 = 0x10_0000;

fn map_of(f: &[&str]) -> TensorMap {
    let esize = f[1].parse::<i64>().unwrap();
    let dims = ints(f[2]);
    let strides = ints(f[3]);
    let boxes = ints(f[4]);
    let es = ints(f[5]);
    let mut m = TensorMap::decode(&[0; TMAP_BYTES]);
    m.dtype = dtype_of(esize).code();
    m.rank = dims.len() as u32;
    m.addr = BASE;
    m.swizzle = f[6].parse().unwrap();
    m.im2col = f[0] == "im2col";
    for d in 0..dims.len() {
        m.dims[d] = dims[d] as u32;
        m.estrides[d] = es[d] as u32;
        if d >= 1 {
            m.strides[d] = strides[d - 1] as u64;
        }
        if let Some(b) = boxes.get(d) {
            m.boxes[d] = *b as u32;
        }
    }
    for (s, v) in ints(f[9]).iter().enumerate() {
        m.lower[s] = *v as i32;
    }
    for (s, v) in ints(f[10]).iter().enumerate() {
        m.upper[s] = *v as i32;
    }
    m.pixels = f[11].parse::<u32>().unwrap().max(1);
    // Every map of the model round-trips through the byte encoding.
    assert_eq!(TensorMap::decode(&m.encode()), m);
    m
}

#[test]
fn boxes_and_swizzles_match_the_python_model() {
    let cases = include_str!("tma_cases.txt");
    let mut n = 0;
    for line in cases.lines() {
        let f: Vec<&str> = line.split(';').collect();
        let m = map_of(&f);
        assert_eq!(m.unusable(), None, "{line}");
        let coords: Vec<i32> = ints(f[7]).iter().map(|v| *v as i32).collect();
        let offsets: Vec<i32> = ints(f[8]).iter().map(|v| *v as i32).collect();
        let elems = if m.im2col {
            im2col_elements(&m, &coords, &offsets)
        } else {
            tile_elements(&m, &coords)
        };
        let sw = Swizzle::from_code(m.swizzle).unwrap();
        let mut got: Vec<(u64, i64)> = elems
            .iter()
            .map(|e| {
                (
                    swizzle(e.smem, sw),
                    e.global.map_or(-1, |g| (g - BASE) as i64),
                )
            })
            .collect();
        got.sort();
        let got: Vec<String> = got.iter().map(|(s, g)| format!("{s}:{g}")).collect();
        assert_eq!(got.join(","), f[12], "case {line:.120}");
        assert_eq!(
            m.box_bytes(),
            elems.len() as u64 * dtype_of(f[1].parse().unwrap()).size()
        );
        n += 1;
    }
    assert!(n >= 50);
}

#[test]
fn swizzle_128b_permutes_chunks_by_line() {
    // Line 1: chunk 0 <-> chunk 1; line 7: chunk 0 -> chunk 7 (CUDA's 128B table).
    assert_eq!(swizzle(128, Swizzle::B128), 128 + 16);
    assert_eq!(swizzle(7 * 128 + 3, Swizzle::B128), 7 * 128 + 7 * 16 + 3);
    assert_eq!(swizzle(8 * 128, Swizzle::B128), 8 * 128);
    assert_eq!(swizzle(2 * 128 + 16, Swizzle::B64), 2 * 128 + 48);
    assert_eq!(swizzle(128 + 32, Swizzle::B32), 128 + 48);
    assert_eq!(swizzle(128 + 32, Swizzle::None), 128 + 32);
}

#[test]
fn a_zeroed_map_decodes_and_fields_round_trip() {
    let m = TensorMap::decode(&[0; TMAP_BYTES]);
    assert_eq!((m.rank, m.boxes[0], m.estrides[0], m.pixels), (1, 1, 1, 1));
    let mut b = [0u8; TMAP_BYTES];
    b[layout::FLAGS] = 10; // bf16
    b[layout::FLAGS] |= 1 << 4; // rank 2
    assert_eq!(TensorMap::decode(&b).elem(), Some(Dtype::Bf16));
    assert_eq!(TensorMap::decode(&b).rank, 2);
}

#[test]
fn reductions() {
    assert_eq!(reduce(RedOp::Add, RedKind::U(4), 0xffff_ffff, 2), 1);
    assert_eq!(
        reduce(RedOp::Min, RedKind::S(4), 0xffff_ffff, 3),
        0xffff_ffff
    );
    assert_eq!(
        reduce(RedOp::Max, RedKind::U(4), 0xffff_ffff, 3),
        0xffff_ffff
    );
    assert_eq!(reduce(RedOp::Inc, RedKind::U(4), 5, 5), 0);
    assert_eq!(reduce(RedOp::Inc, RedKind::U(4), 4, 5), 5);
    assert_eq!(reduce(RedOp::Dec, RedKind::U(4), 0, 7), 7);
    assert_eq!(reduce(RedOp::Dec, RedKind::U(4), 3, 7), 2);
    assert_eq!(reduce(RedOp::Xor, RedKind::U(8), 0xf0, 0xff), 0x0f);
    assert_eq!(
        reduce(
            RedOp::Add,
            RedKind::F32,
            1.5f32.to_bits().into(),
            2.25f32.to_bits().into()
        ),
        u64::from(3.75f32.to_bits())
    );
    // 1.0 + 2.0 in binary16.
    assert_eq!(reduce(RedOp::Add, RedKind::F16, 0x3c00, 0x4000), 0x4200);
    assert_eq!(reduce(RedOp::Max, RedKind::Bf16, 0x3f80, 0xbf80), 0x3f80);
}
