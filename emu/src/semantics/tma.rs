//! Tensor maps and the element placement of the tensor copies (PTX ISA "Tensor Map",
//! "cp.async.bulk.tensor", "tensormap.replace"; CUDA driver API `cuTensorMapEncodeTiled` and
//! `cuTensorMapEncodeIm2col`).
//!
//! A tensor map is a 128-byte object. The driver's layout is not public; ptxemu's own byte
//! encoding is described in `docs/tensor-map.md` and implemented by [`TensorMap::encode`] and
//! [`TensorMap::decode`]. An all-zero object decodes (rank 1, box 1), so that the device-side
//! pattern "zero 128 bytes, then `tensormap.replace` each field" works.
//!
//! The copy functions here are pure: [`tile_elements`] and [`im2col_elements`] list, for each
//! element of a box, its byte offset in the (unswizzled) shared-memory box and its global
//! address, or `None` when the element lies outside the tensor; [`swizzle`] maps a shared
//! offset through the 32B/64B/128B patterns; [`reduce`] (in `bulk_reduce`) combines one
//! element. Interleaved maps (16B/32B channel slices) and the encode rules that depend on the
//! interleave are in [`super::tma_rules`].

pub use super::bulk_reduce::{red_kind, reduce, RedKind, RedOp};

/// Bytes of a tensor map.
pub const TMAP_BYTES: usize = 128;

/// The element type of a tensor map, numbered as the `elemtype` field of `tensormap.replace`
/// numbers it (PTX ISA; `CUtensorMapDataType` orders f32_ftz, f64 and bf16 differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// 0 `.u8`
    U8,
    /// 1 `.u16`
    U16,
    /// 2 `.u32`
    U32,
    /// 3 `.s32`
    S32,
    /// 4 `.u64`
    U64,
    /// 5 `.s64`
    S64,
    /// 6 `.f16`
    F16,
    /// 7 `.f32`
    F32,
    /// 8 `.f32.ftz`
    F32Ftz,
    /// 9 `.f64`
    F64,
    /// 10 `.bf16`
    Bf16,
    /// 11 `.tf32`
    Tf32,
    /// 12 `.tf32.ftz`
    Tf32Ftz,
}

/// The data types by number, as `tensormap.replace` numbers them.
const DTYPES: [(Dtype, &str); 13] = [
    (Dtype::U8, "u8"),
    (Dtype::U16, "u16"),
    (Dtype::U32, "u32"),
    (Dtype::S32, "s32"),
    (Dtype::U64, "u64"),
    (Dtype::S64, "s64"),
    (Dtype::F16, "f16"),
    (Dtype::F32, "f32"),
    (Dtype::F32Ftz, "f32_ftz"),
    (Dtype::F64, "f64"),
    (Dtype::Bf16, "bf16"),
    (Dtype::Tf32, "tf32"),
    (Dtype::Tf32Ftz, "tf32_ftz"),
];

impl Dtype {
    /// The type numbered `n` (`None` for the packed 4/6-bit types and unknown numbers).
    pub fn from_code(n: u32) -> Option<Dtype> {
        DTYPES.get(n as usize).map(|d| d.0)
    }

    /// Its number.
    pub fn code(self) -> u32 {
        DTYPES.iter().position(|d| d.0 == self).unwrap_or(0) as u32
    }

    /// The name used by `--arg tmap:` (`f16`, `bf16`, `u8`, ...).
    pub fn name(self) -> &'static str {
        DTYPES[self.code() as usize].1
    }

    /// The type named `s`.
    pub fn from_name(s: &str) -> Option<Dtype> {
        DTYPES.iter().find(|d| d.1 == s).map(|d| d.0)
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            Dtype::U8 => 1,
            Dtype::U16 | Dtype::F16 | Dtype::Bf16 => 2,
            Dtype::U32 | Dtype::S32 | Dtype::F32 | Dtype::F32Ftz | Dtype::Tf32 | Dtype::Tf32Ftz => {
                4
            }
            Dtype::U64 | Dtype::S64 | Dtype::F64 => 8,
        }
    }

    /// A floating-point type (NaN fill allowed).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Dtype::F16
                | Dtype::F32
                | Dtype::F64
                | Dtype::Bf16
                | Dtype::F32Ftz
                | Dtype::Tf32
                | Dtype::Tf32Ftz
        )
    }

    /// The `oob=nan` fill, as raw bits: 0x7FF7 per 16 bits (f32 0x7FF77FF7, f16 0x7FF7 as
    /// recorded on an H100, driver 580.159.04; bf16 and f64 extend it, unrecorded).
    pub fn nan(self) -> u64 {
        match self {
            Dtype::F16 | Dtype::Bf16 => 0x7ff7,
            Dtype::F64 => 0x7ff7_7ff7_7ff7_7ff7,
            _ => 0x7ff7_7ff7,
        }
    }
}

/// The shared-memory swizzle of a tensor map (`CUtensorMapSwizzle`, `swizzle_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// 0: none
    None,
    /// 1: 32-byte span
    B32,
    /// 2: 64-byte span
    B64,
    /// 3: 128-byte span
    B128,
    /// 128-byte span with 32-byte atomicity (`CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`; swizzle
    /// mode 3, `swizzle_atomicity` 1; sm_100).
    B128Atom32,
    /// 128-byte span with 64-byte atomicity (`CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B`; swizzle
    /// mode 3, `swizzle_atomicity` 3; sm_100).
    B128Atom64,
}

impl Swizzle {
    /// The mode numbered `n`.
    pub fn from_code(n: u32) -> Option<Swizzle> {
        [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128]
            .get(n as usize)
            .copied()
    }

    /// The span in bytes (0 for none).
    pub fn span(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 | Swizzle::B128Atom32 | Swizzle::B128Atom64 => 128,
        }
    }

    /// The pattern of a swizzle mode (0-3) and `swizzle_atomicity` (0 16B, 1 32B, 2 32B with
    /// 8-byte flip, 3 64B), or why there is none: atomicities other than 16B exist only for
    /// the 128-byte mode (PTX ISA, "valid combination of swizzle-atomicity with
    /// swizzling-mode"), and the 8-byte flip is not modelled (the ISA's text does not say
    /// which of the alternate lines flip).
    pub fn of(mode: u32, atomicity: u32) -> Result<Swizzle, String> {
        let sw =
            Swizzle::from_code(mode).ok_or_else(|| format!("swizzle mode {mode} is not 0-3"))?;
        match (sw, atomicity) {
            (_, 0) => Ok(sw),
            (Swizzle::B128, 1) => Ok(Swizzle::B128Atom32),
            (Swizzle::B128, 3) => Ok(Swizzle::B128Atom64),
            (Swizzle::B128, 2) => Err("the 128B swizzle with 32-byte atomicity and 8-byte flip \
                 (CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B) is not modelled"
                .into()),
            (_, 1..=3) => Err(format!(
                "swizzle atomicity {atomicity} needs the 128B swizzle mode, not mode {mode}"
            )),
            _ => Err(format!("swizzle atomicity {atomicity} is not 0-3")),
        }
    }
}

/// Maps a shared-memory byte offset through a swizzle pattern: the 16-byte chunk index inside
/// each span-sized row is XORed with the row index (modulo span / 16), the row being the
/// offset's 128-byte line. The pattern repeats every 256, 512 and 1024 bytes for 32B, 64B and
/// 128B (CUTLASS writes these as `Swizzle<1,4,3>`, `<2,4,3>`, `<3,4,3>`).
///
/// With 32-byte atomicity the 32-byte pairs of chunks move instead, XORed with the line index
/// modulo 4 (`Swizzle<2,5,2>`, CUTLASS's `SWIZZLE_128B_BASE32B`); with 64-byte atomicity the
/// two halves of every odd line swap (`Swizzle<1,6,1>`), as the PTX ISA's tables show.
pub fn swizzle(off: u64, s: Swizzle) -> u64 {
    let (mask, unit) = match s {
        Swizzle::None => return off,
        Swizzle::B32 => (1, 4),
        Swizzle::B64 => (3, 4),
        Swizzle::B128 => (7, 4),
        Swizzle::B128Atom32 => (3, 5),
        Swizzle::B128Atom64 => (1, 6),
    };
    off ^ (((off >> 7) & mask) << unit)
}

/// A decoded tensor map: the parameters of `cuTensorMapEncodeTiled` / `Im2col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// Element type number (see [`Dtype::from_code`]; kept raw so that any value
    /// `tensormap.replace` writes round-trips).
    pub dtype: u32,
    /// Rank, 1 to 5.
    pub rank: u32,
    /// Global address of element 0.
    pub addr: u64,
    /// Elements per dimension (dimension 0 innermost).
    pub dims: [u32; 5],
    /// Byte strides of dimensions 1..rank (`strides[0]` is unused and 0).
    pub strides: [u64; 5],
    /// Box size per dimension (tiled), in elements; in im2col mode `boxes[0]` is
    /// channelsPerPixel.
    pub boxes: [u32; 5],
    /// Traversal strides per dimension, 1 to 8.
    pub estrides: [u32; 5],
    /// `CUtensorMapInterleave` (0 none, 1 16B, 2 32B).
    pub interleave: u32,
    /// `CUtensorMapSwizzle` (0 none, 1 32B, 2 64B, 3 128B).
    pub swizzle: u32,
    /// `swizzle_atomicity` of `tensormap.replace` (0: 16B, the sm_90 behaviour).
    pub atomicity: u32,
    /// `CUtensorMapFloatOOBfill` (0 zero, 1 NaN request-zero-FMA).
    pub fill: u32,
    /// `CUtensorMapL2promotion` (0 none, 1 64B, 2 128B, 3 256B).
    pub l2: u32,
    /// Made by `cuTensorMapEncodeIm2col`.
    pub im2col: bool,
    /// im2col: pixelBoxLowerCorner per spatial dimension (W, H, D).
    pub lower: [i32; 3],
    /// im2col: pixelBoxUpperCorner per spatial dimension.
    pub upper: [i32; 3],
    /// im2col: pixelsPerColumn.
    pub pixels: u32,
}

fn rd(b: &[u8], o: usize, n: usize) -> u64 {
    let mut v = 0u64;
    for k in 0..n {
        v |= u64::from(b[o + k]) << (8 * k);
    }
    v
}

fn wr(b: &mut [u8], o: usize, n: usize, v: u64) {
    for k in 0..n {
        b[o + k] = (v >> (8 * k)) as u8;
    }
}

/// Byte offsets of the encoding (docs/tensor-map.md).
pub mod layout {
    /// u64 global address.
    pub const ADDR: usize = 0;
    /// u64 byte strides of dimensions 1..4 (4 entries).
    pub const STRIDES: usize = 8;
    /// u32 global dimensions 0..4 (5 entries).
    pub const DIMS: usize = 40;
    /// u32 packed small fields.
    pub const FLAGS: usize = 60;
    /// u8 box size minus one, dimensions 0..4.
    pub const BOX: usize = 64;
    /// u8 element stride minus one, dimensions 0..4.
    pub const ESTRIDE: usize = 69;
    /// i16 im2col lower corner (W, H, D).
    pub const LOWER: usize = 76;
    /// i16 im2col upper corner (W, H, D).
    pub const UPPER: usize = 82;
    /// u16 im2col pixelsPerColumn minus one.
    pub const PIXELS: usize = 88;
}

/// Bit positions in the flags word: (shift, width) of each small field.
pub mod flags {
    /// element type
    pub const DTYPE: (u32, u32) = (0, 4);
    /// rank minus one
    pub const RANK: (u32, u32) = (4, 3);
    /// interleave
    pub const INTERLEAVE: (u32, u32) = (8, 2);
    /// swizzle mode
    pub const SWIZZLE: (u32, u32) = (10, 3);
    /// swizzle atomicity
    pub const ATOMICITY: (u32, u32) = (13, 2);
    /// OOB fill
    pub const FILL: (u32, u32) = (15, 1);
    /// L2 promotion
    pub const L2: (u32, u32) = (16, 2);
    /// im2col mode
    pub const IM2COL: (u32, u32) = (18, 1);
}

fn field(w: u64, f: (u32, u32)) -> u32 {
    ((w >> f.0) & ((1 << f.1) - 1)) as u32
}

fn put(w: &mut u64, f: (u32, u32), v: u32) {
    let m = ((1u64 << f.1) - 1) << f.0;
    *w = (*w & !m) | ((u64::from(v) << f.0) & m);
}

impl TensorMap {
    /// Reads a 128-byte object (any bytes decode).
    pub fn decode(b: &[u8; TMAP_BYTES]) -> TensorMap {
        let w = rd(b, layout::FLAGS, 4);
        let mut t = TensorMap {
            dtype: field(w, flags::DTYPE),
            rank: field(w, flags::RANK) + 1,
            addr: rd(b, layout::ADDR, 8),
            dims: [0; 5],
            strides: [0; 5],
            boxes: [0; 5],
            estrides: [0; 5],
            interleave: field(w, flags::INTERLEAVE),
            swizzle: field(w, flags::SWIZZLE),
            atomicity: field(w, flags::ATOMICITY),
            fill: field(w, flags::FILL),
            l2: field(w, flags::L2),
            im2col: field(w, flags::IM2COL) != 0,
            lower: [0; 3],
            upper: [0; 3],
            pixels: rd(b, layout::PIXELS, 2) as u32 + 1,
        };
        for d in 0..5 {
            t.dims[d] = rd(b, layout::DIMS + 4 * d, 4) as u32;
            t.boxes[d] = rd(b, layout::BOX + d, 1) as u32 + 1;
            t.estrides[d] = rd(b, layout::ESTRIDE + d, 1) as u32 + 1;
            if d >= 1 {
                t.strides[d] = rd(b, layout::STRIDES + 8 * (d - 1), 8);
            }
        }
        for s in 0..3 {
            t.lower[s] = rd(b, layout::LOWER + 2 * s, 2) as u16 as i16 as i32;
            t.upper[s] = rd(b, layout::UPPER + 2 * s, 2) as u16 as i16 as i32;
        }
        t
    }

    /// Writes the 128-byte object. Values wider than their field are truncated to it; the
    /// host-side builder validates first.
    pub fn encode(&self) -> [u8; TMAP_BYTES] {
        let mut b = [0u8; TMAP_BYTES];
        wr(&mut b, layout::ADDR, 8, self.addr);
        let mut w = 0u64;
        put(&mut w, flags::DTYPE, self.dtype);
        put(&mut w, flags::RANK, self.rank.wrapping_sub(1));
        put(&mut w, flags::INTERLEAVE, self.interleave);
        put(&mut w, flags::SWIZZLE, self.swizzle);
        put(&mut w, flags::ATOMICITY, self.atomicity);
        put(&mut w, flags::FILL, self.fill);
        put(&mut w, flags::L2, self.l2);
        put(&mut w, flags::IM2COL, u32::from(self.im2col));
        wr(&mut b, layout::FLAGS, 4, w);
        for d in 0..5 {
            wr(&mut b, layout::DIMS + 4 * d, 4, u64::from(self.dims[d]));
            wr(
                &mut b,
                layout::BOX + d,
                1,
                u64::from(self.boxes[d].wrapping_sub(1)),
            );
            wr(
                &mut b,
                layout::ESTRIDE + d,
                1,
                u64::from(self.estrides[d].wrapping_sub(1)),
            );
            if d >= 1 {
                wr(&mut b, layout::STRIDES + 8 * (d - 1), 8, self.strides[d]);
            }
        }
        for s in 0..3 {
            wr(
                &mut b,
                layout::LOWER + 2 * s,
                2,
                self.lower[s] as u16 as u64,
            );
            wr(
                &mut b,
                layout::UPPER + 2 * s,
                2,
                self.upper[s] as u16 as u64,
            );
        }
        wr(
            &mut b,
            layout::PIXELS,
            2,
            u64::from(self.pixels.wrapping_sub(1)),
        );
        b
    }

    /// The element type, if the map's number names a supported one.
    pub fn elem(&self) -> Option<Dtype> {
        Dtype::from_code(self.dtype)
    }

    /// Shared-memory elements per dimension of one box: ceil(box / elementStride) (tiled),
    /// or (channelsPerPixel, pixelsPerColumn) (im2col); an interleaved map's dimension 0 is
    /// one slice (`tma_rules`).
    pub fn box_counts(&self) -> [u64; 5] {
        let mut n = [1u64; 5];
        if self.im2col {
            n[0] = super::tma_rules::row(self, u64::from(self.boxes[0]));
            n[1] = u64::from(self.pixels);
            return n;
        }
        for (d, c) in n.iter_mut().enumerate().take(self.rank.min(5) as usize) {
            *c = u64::from(self.boxes[d].div_ceil(self.estride(d)));
        }
        n[0] = super::tma_rules::row(self, n[0]);
        n
    }

    /// The swizzle pattern of the map's mode and atomicity (see [`Swizzle::of`]).
    ///
    /// # Errors
    /// Why the combination has no pattern.
    pub fn pattern(&self) -> Result<Swizzle, String> {
        Swizzle::of(self.swizzle, self.atomicity)
    }

    /// The traversal stride of dimension `d`; `elementStrides[0]` counts only in interleaved
    /// maps (the driver ignores it otherwise).
    pub fn estride(&self, d: usize) -> u32 {
        if d == 0 && self.interleave == 0 {
            1
        } else {
            self.estrides[d].max(1)
        }
    }

    /// Bytes one box occupies in shared memory (the transaction count of a load).
    pub fn box_bytes(&self) -> u64 {
        let e = self.elem().map_or(1, Dtype::size);
        self.box_counts().iter().product::<u64>() * e
    }

    /// Why the map cannot be used by a copy (a decoded map that no `cuTensorMapEncode*`
    /// call could make, or a feature ptxemu does not model), or `None`.
    pub fn unusable(&self) -> Option<String> {
        if self.elem().is_none() {
            let packed = ["16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"];
            return Some(match packed.get((self.dtype as usize).wrapping_sub(13)) {
                Some(p) => format!("the packed element type {p} (13-15) is not modelled"),
                None => format!("element type {} is not 0-15", self.dtype),
            });
        }
        if !(1..=5).contains(&self.rank) {
            return Some(format!("rank {} is not 1 to 5", self.rank));
        }
        if let Err(why) = self.pattern() {
            return Some(why);
        }
        for d in 0..self.rank as usize {
            if self.dims[d] == 0 {
                return Some(format!("global dimension {d} is 0"));
            }
        }
        if let Err(e) = super::tma_rules::check_encode(self) {
            return Some(e.to_string());
        }
        super::tma_rules::unmodelled(self)
    }

    /// The global address of the element at `coords` (no bounds check).
    fn address(&self, coords: &[i64; 5], esize: u64) -> u64 {
        let mut a = self
            .addr
            .wrapping_add((coords[0] as u64).wrapping_mul(esize));
        for (d, c) in coords.iter().enumerate().take(self.rank as usize).skip(1) {
            a = a.wrapping_add((*c as u64).wrapping_mul(self.strides[d]));
        }
        a
    }

    /// Whether coordinate `c` of dimension `d` is inside the tensor.
    fn inside_dim(&self, d: usize, c: i64) -> bool {
        let bound = match d {
            0 => super::tma_rules::dim0_bound(self),
            _ => i64::from(self.dims[d]),
        };
        c >= 0 && c < bound
    }

    fn inside(&self, coords: &[i64; 5]) -> bool {
        (0..self.rank as usize).all(|d| self.inside_dim(d, coords[d]))
    }
}

/// One element of a box: its byte offset in the unswizzled shared box, and its global address
/// (`None`: outside the tensor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoxElem {
    /// Byte offset from the box's start in shared memory, before swizzling.
    pub smem: u64,
    /// The global address, or `None` when out of bounds.
    pub global: Option<u64>,
}

/// Calls `visit(lin, g, outer_inside)` for each row of the tile-mode box at `coords`
/// (dimension 0 innermost), in shared-memory order: `lin` is the index in the box of the
/// row's first element, `g` the coordinates of the row's other dimensions (`g[0]` is 0), and
/// `outer_inside` whether they are all inside the tensor. Along a row those coordinates,
/// their bounds check and their part of the address stay the same.
fn box_rows(m: &TensorMap, coords: &[i32], mut visit: impl FnMut(u64, &[i64; 5], bool)) {
    let n = m.box_counts();
    let total: u64 = n.iter().product();
    let rank = m.rank as usize;
    let base = |d: usize| i64::from(coords.get(d).copied().unwrap_or(0));
    let mut idx = [0u64; 5];
    let mut lin = 0;
    while lin < total {
        let mut g = [0i64; 5];
        for d in 1..rank {
            g[d] = base(d) + (idx[d] * u64::from(m.estride(d))) as i64;
        }
        let outer_inside = (1..rank).all(|d| m.inside_dim(d, g[d]));
        visit(lin, &g, outer_inside);
        lin += n[0];
        for d in 1..5 {
            idx[d] += 1;
            if idx[d] < n[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// The elements of the tile-mode box at `coords` (one per dimension, rank of them), in
/// shared-memory order.
pub fn tile_elements(m: &TensorMap, coords: &[i32]) -> Vec<BoxElem> {
    let e = m.elem().map_or(1, Dtype::size);
    let n0 = m.box_counts()[0];
    // Elements of a row that are the box's (the rest of an interleave slice is padding).
    let row = u64::from(m.boxes[0].div_ceil(m.estride(0)));
    let base0 = i64::from(coords.first().copied().unwrap_or(0));
    let mut out = Vec::with_capacity(m.box_counts().iter().product::<u64>() as usize);
    box_rows(m, coords, |lin, g, outer_inside| {
        let mut g = *g;
        for i0 in 0..n0 {
            g[0] = base0 + (i0 * u64::from(m.estride(0))) as i64;
            out.push(BoxElem {
                smem: (lin + i0) * e,
                global: (i0 < row && outer_inside && m.inside_dim(0, g[0]))
                    .then(|| m.address(&g, e)),
            });
        }
    });
    out
}

/// Consecutive elements of a box: `count` of them from byte offset `smem` of the unswizzled
/// shared box on, at consecutive global addresses from `global` on (`None`: all outside the
/// tensor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoxRun {
    /// Byte offset of the first element from the box's start in shared memory, before
    /// swizzling.
    pub smem: u64,
    /// The first element's global address, or `None` when the run is out of bounds.
    pub global: Option<u64>,
    /// Elements in the run.
    pub count: u64,
}

/// Adds element `(smem, global)` of `e` bytes to `runs`, extending the last run when the
/// element follows it in shared and in global memory (or both are out of bounds).
fn push_run(runs: &mut Vec<BoxRun>, e: u64, smem: u64, global: Option<u64>, count: u64) {
    if let Some(last) = runs.last_mut() {
        let end = last.smem + last.count * e;
        let follows = match (last.global, global) {
            (Some(g0), Some(g)) => g0 + last.count * e == g,
            (None, None) => true,
            _ => false,
        };
        if follows && end == smem {
            last.count += count;
            return;
        }
    }
    runs.push(BoxRun {
        smem,
        global,
        count,
    });
}

/// `elems` (of `e` bytes each) as runs of consecutive elements.
pub fn runs_of(elems: &[BoxElem], e: u64) -> Vec<BoxRun> {
    let mut runs = Vec::new();
    for el in elems {
        push_run(&mut runs, e, el.smem, el.global, 1);
    }
    runs
}

/// [`tile_elements`] as runs of consecutive elements: a row of the box (dimension 0) whose
/// elements are contiguous in global memory is at most three runs (before the tensor, inside,
/// after), and runs that follow each other merge. Expanded, the runs are exactly
/// [`tile_elements`].
pub fn tile_runs(m: &TensorMap, coords: &[i32]) -> Vec<BoxRun> {
    let e = m.elem().map_or(1, Dtype::size);
    let n0 = m.box_counts()[0];
    let row = u64::from(m.boxes[0].div_ceil(m.estride(0)));
    let base0 = i64::from(coords.first().copied().unwrap_or(0));
    let es0 = u64::from(m.estride(0));
    let mut runs = Vec::new();
    box_rows(m, coords, |lin, g, outer_inside| {
        let inside = |i0: u64| {
            let g0 = base0 + (i0 * es0) as i64;
            i0 < row && outer_inside && m.inside_dim(0, g0)
        };
        let address = |i0: u64| {
            let mut g = *g;
            g[0] = base0 + (i0 * es0) as i64;
            m.address(&g, e)
        };
        if es0 == 1 {
            // The elements inside are those with 0 <= base + i0 < the bound, i0 < row.
            let (lo, hi) = if outer_inside {
                let clamp = |v: i64| v.clamp(0, n0 as i64) as u64;
                let lo = clamp(-base0);
                let end = (row as i64).min(super::tma_rules::dim0_bound(m) - base0);
                (lo, clamp(end).max(lo))
            } else {
                (n0, n0)
            };
            debug_assert!((0..n0).all(|i| inside(i) == (lo..hi).contains(&i)));
            if lo > 0 {
                push_run(&mut runs, e, lin * e, None, lo);
            }
            if hi > lo {
                push_run(&mut runs, e, (lin + lo) * e, Some(address(lo)), hi - lo);
            }
            if n0 > hi {
                push_run(&mut runs, e, (lin + hi) * e, None, n0 - hi);
            }
        } else {
            for i0 in 0..n0 {
                let global = inside(i0).then(|| address(i0));
                push_run(&mut runs, e, (lin + i0) * e, global, 1);
            }
        }
    });
    runs
}

/// The elements of the im2col-mode box at `coords` (C, spatial..., N) with the filter
/// `offsets` (one per spatial dimension), in shared-memory order: pixelsPerColumn pixels of
/// channelsPerPixel channels each. Pixels walk the bounding box (lower corner to dimension +
/// upper corner, stepping by the element strides) W first, then H, D and N, starting at the
/// pixel `coords` names; each pixel is read at its position plus `offsets`.
pub fn im2col_elements(m: &TensorMap, coords: &[i32], offsets: &[i32]) -> Vec<BoxElem> {
    let e = m.elem().map_or(1, Dtype::size);
    let r = m.rank as usize;
    let spatial = r.saturating_sub(2);
    let mut lo = [0i64; 3];
    let mut cnt = [1i64; 3];
    let mut start = [0i64; 3];
    for s in 0..spatial {
        let d = s + 1;
        let es = i64::from(m.estrides[d].max(1));
        lo[s] = i64::from(m.lower[s]);
        let hi = i64::from(m.dims[d]) - 1 + i64::from(m.upper[s]);
        cnt[s] = ((hi - lo[s]).max(-1) / es + 1).max(0);
        start[s] = (i64::from(coords.get(d).copied().unwrap_or(0)) - lo[s]) / es;
    }
    let n0 = i64::from(coords.get(r - 1).copied().unwrap_or(0));
    // The starting pixel's position in the walk.
    let mut lin0 = n0;
    for s in (0..spatial).rev() {
        lin0 = lin0 * cnt[s] + start[s];
    }
    let c0 = i64::from(coords.first().copied().unwrap_or(0));
    let channels = u64::from(m.boxes[0]);
    // A pixel's row in shared memory: its channels, padded to a slice when interleaved.
    let pitch = m.box_counts()[0];
    let mut out = Vec::with_capacity((pitch * u64::from(m.pixels)) as usize);
    for p in 0..u64::from(m.pixels) {
        let mut rest = lin0 + p as i64;
        let mut g = [0i64; 5];
        let mut empty = false;
        for s in 0..spatial {
            if cnt[s] == 0 {
                empty = true;
                break;
            }
            let k = rest.rem_euclid(cnt[s]);
            rest = rest.div_euclid(cnt[s]);
            let es = i64::from(m.estrides[s + 1].max(1));
            g[s + 1] = lo[s] + k * es + i64::from(offsets.get(s).copied().unwrap_or(0));
        }
        g[r - 1] = rest;
        for c in 0..pitch {
            g[0] = c0 + c as i64;
            let ok = !empty && c < channels && m.inside(&g);
            out.push(BoxElem {
                smem: (p * pitch + c) * e,
                global: ok.then(|| m.address(&g, e)),
            });
        }
    }
    out
}

#[cfg(test)]
#[path = "tma_tests.rs"]
mod tests;
