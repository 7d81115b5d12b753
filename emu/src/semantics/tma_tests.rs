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
    // CUtensorMapSwizzle: 4 and 6 are the 128B swizzle with 32B and 64B atomicity.
    (m.swizzle, m.atomicity) = match f[6].parse().unwrap() {
        4 => (3, 1),
        6 => (3, 3),
        s => (s, 0),
    };
    m.im2col = f[0] == "im2col";
    // `tile:16` / `tile:32`: an interleaved map.
    m.interleave = match f[0] {
        "tile:16" => 1,
        "tile:32" => 2,
        _ => 0,
    };
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
        let sw = m.pattern().unwrap();
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
    assert!(n >= 78);
}

#[test]
fn tile_runs_expand_to_the_tile_elements() {
    let cases = include_str!("tma_cases.txt");
    let mut n = 0;
    for line in cases.lines() {
        let f: Vec<&str> = line.split(';').collect();
        let m = map_of(&f);
        if m.im2col {
            continue;
        }
        let e = m.elem().map_or(1, Dtype::size);
        // Boxes at the model's coordinates, and shifted to cross every edge of the tensor.
        let coords: Vec<i32> = ints(f[7]).iter().map(|v| *v as i32).collect();
        for shift in [0, -3, 5, 1000] {
            let at: Vec<i32> = coords.iter().map(|c| c + shift).collect();
            let expanded: Vec<BoxElem> = tile_runs(&m, &at)
                .iter()
                .flat_map(|r| {
                    (0..r.count).map(move |k| BoxElem {
                        smem: r.smem + k * e,
                        global: r.global.map(|g| g + k * e),
                    })
                })
                .collect();
            assert_eq!(
                expanded,
                tile_elements(&m, &at),
                "case {line:.120}, shift {shift}"
            );
            n += 1;
        }
    }
    assert!(n >= 200);
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

fn interleaved(il: u32, dtype: Dtype, dims: &[u32], strides: &[u64], boxes: &[u32]) -> TensorMap {
    let mut m = TensorMap::decode(&[0; TMAP_BYTES]);
    m.dtype = dtype.code();
    m.rank = dims.len() as u32;
    m.interleave = il;
    m.swizzle = 1;
    for d in 0..dims.len() {
        m.dims[d] = dims[d];
        m.boxes[d] = boxes[d];
        m.strides[d] = if d == 0 { 0 } else { strides[d - 1] };
    }
    m
}

#[test]
fn interleave_encode_rules_are_typed_and_name_the_field() {
    use super::super::tma_rules::{check_address, check_encode, EncodeError};
    let m = interleaved(2, Dtype::F16, &[16, 5, 3], &[32, 160], &[16, 4, 2]);
    assert_eq!(check_encode(&m), Ok(()));
    assert_eq!(m.unusable(), None);
    let mut r = m;
    r.rank = 2;
    assert_eq!(check_encode(&r), Err(EncodeError::InterleaveRank(2)));
    let mut s = m;
    s.strides[2] = 176;
    let e = check_encode(&s).unwrap_err();
    assert_eq!(
        e,
        EncodeError::Stride {
            dim: 1,
            stride: 176,
            align: 32
        }
    );
    assert!(e.to_string().starts_with("globalStrides[1] = 176"));
    let mut w = m;
    w.swizzle = 3;
    assert!(check_encode(&w)
        .unwrap_err()
        .to_string()
        .contains("swizzle 128B"));
    assert!(check_address(2, 0x1010).is_err() && check_address(1, 0x1010).is_ok());
    let mut i = m;
    i.interleave = 3;
    assert_eq!(check_encode(&i), Err(EncodeError::InterleaveCode(3)));
    // 16B interleave: any swizzle, no 16-byte rule for the box, but a row must fit a slice.
    let mut n = interleaved(1, Dtype::F16, &[6, 5, 4], &[16, 80], &[6, 4, 2]);
    n.swizzle = 3;
    assert_eq!(n.unusable(), None);
    n.boxes[0] = 9;
    assert!(n
        .unusable()
        .unwrap()
        .contains("wider than one 16-byte interleave slice"));
    n.estrides[0] = 2; // 5 elements, 10 bytes: fits
    assert_eq!(n.unusable(), None);
}

#[test]
fn interleaved_rows_fill_one_slice() {
    // u8, 16B interleave, 3 channels at c0 = 1 with elementStrides[0] = 2: channels 1, 3, 5;
    // dimension 0 has 4 channels but is bounded by the 16-channel slice (as an H100 does), so
    // 5 is in bounds; 13 padding slots follow.
    let mut m = interleaved(1, Dtype::U8, &[4, 2, 1], &[16, 32], &[6, 2, 1]);
    m.estrides[0] = 2;
    m.swizzle = 0;
    assert_eq!(m.box_counts()[..3], [16, 2, 1]);
    assert_eq!(m.box_bytes(), 32);
    let el = tile_elements(&m, &[1, 0, 0]);
    let got: Vec<Option<u64>> = el.iter().map(|e| e.global.map(|g| g - m.addr)).collect();
    let mut want = vec![None; 32];
    want[0] = Some(1);
    want[1] = Some(3);
    want[2] = Some(5);
    want[16] = Some(17);
    want[17] = Some(19);
    want[18] = Some(21);
    assert_eq!(got, want);
    // Without interleave, elementStrides[0] is ignored (the driver's rule).
    let mut p = m;
    p.interleave = 0;
    p.boxes[0] = 16;
    p.dims[0] = 16;
    assert_eq!(p.box_counts()[0], 16);
    assert_eq!(tile_elements(&p, &[0, 0, 0])[1].global, Some(p.addr + 1));
}

#[test]
fn interleaved_im2col_pixels_are_slices() {
    // f32, 32B interleave (8 per slice), 3 channels per pixel, W = 4, H = 1, N = 1.
    let mut m = interleaved(2, Dtype::F32, &[3, 4, 1], &[32, 128], &[3, 1, 1]);
    m.im2col = true;
    m.pixels = 2;
    assert_eq!(m.unusable(), None);
    assert_eq!(m.box_bytes(), 64);
    let el = im2col_elements(&m, &[0, 1, 0], &[]);
    let got: Vec<Option<u64>> = el.iter().map(|e| e.global.map(|g| g - m.addr)).collect();
    let mut want = vec![None; 16];
    for c in 0..3 {
        want[c] = Some(32 + 4 * c as u64);
        want[8 + c] = Some(64 + 4 * c as u64);
    }
    assert_eq!(got, want);
    m.estrides[0] = 2;
    assert!(m.unusable().unwrap().contains("im2col"));
}

#[test]
fn swizzle_atomicities() {
    assert_eq!(Swizzle::of(3, 1), Ok(Swizzle::B128Atom32));
    assert_eq!(Swizzle::of(3, 3), Ok(Swizzle::B128Atom64));
    assert!(Swizzle::of(3, 2).unwrap_err().contains("8-byte flip"));
    assert!(Swizzle::of(2, 1)
        .unwrap_err()
        .contains("needs the 128B swizzle"));
    // Line 1: the 32-byte pairs swap (chunk 0 -> 2); line 3: chunk 1 -> 7.
    assert_eq!(swizzle(128 + 5, Swizzle::B128Atom32), 128 + 32 + 5);
    assert_eq!(swizzle(3 * 128 + 16, Swizzle::B128Atom32), 3 * 128 + 112);
    // 64-byte atomicity: odd lines swap halves.
    assert_eq!(swizzle(128 + 16, Swizzle::B128Atom64), 128 + 80);
    assert_eq!(swizzle(2 * 128 + 16, Swizzle::B128Atom64), 2 * 128 + 16);
}

#[test]
fn packed_types_are_refused_by_name() {
    let mut m = TensorMap::decode(&[0; TMAP_BYTES]);
    m.dtype = 14;
    assert!(m.unusable().unwrap().contains("16U4_ALIGN16B"));
}
