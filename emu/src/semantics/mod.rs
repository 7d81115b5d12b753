//! Pure functions giving the exact result of each PTX instruction on one lane's values.
//!
//! The interpreter's step functions call these per lane; they are unit-tested here at edge
//! values one by one (STYLE: "arithmetic, conversion, rounding and bit semantics live in pure
//! functions").
//!
//! | module | instructions |
//! |---|---|
//! | [`int`] | plain `w`-bit `add sub mul.lo div and or xor` and integer comparisons; `add.sat`, `mad.hi.sat`, `mul24`/`mad24`, `div`/`rem` (by zero), carries, `dp4a`/`dp2a` |
//! | [`atomic`] | the value functions of `atom`/`red` for each operation and type |
//! | [`block_scale`] | `tcgen05.mma` block scaling: where the scale factors sit in Tensor Memory, the scaled dot product |
//! | [`bits`] | `popc clz brev bfind fns bfe bfi bmsk szext prmt lop3 shf` |
//! | [`float`] | `add sub mul div fma sqrt rcp neg abs` on `.f32/.f64` with `.rnd .ftz .sat` |
//! | [`approx`] | `.approx` and `.full` forms: `rcp sqrt rsqrt div sin cos lg2 ex2 tanh` |
//! | [`compare`] | float `setp/set` comparisons, `min/max`, `testp`, `copysign` |
//! | [`convert`] | `cvt` between every integer and float type; `.f16/.bf16/.tf32/.e4m3/.e5m2` |
//! | [`half`] | `.f16/.bf16` and packed `x2` arithmetic |
//! | [`mixed`] | the sm_100 mixed-precision `add/sub/fma.f32.{f16,bf16}` |
//! | [`matrix_unpack`] | the packed 6-/4-bit source rows of `ldmatrix .b8x16` widened to bytes |
//! | [`mma`] | the dot products of `mma`: integer, single-bit, binary64, and the tensor-core accumulation model |
//! | [`narrow_float`] | the sm_100 narrow element formats e2m1, e2m3, e3m2 (and e4m3, e5m2) and the scale formats ue8m0, ue4m3, decoded exactly |
//! | [`tcgen05_cp`] | where `tcgen05.cp` puts each source row in Tensor Memory; its `.b8x16` decompressions |
//! | [`tma`] | tensor maps (ptxemu's 128-byte encoding), TMA box placement (tile, im2col), swizzles |
//! | [`tma_rules`] | interleaved tensor maps (16B/32B slices) and the encode rules that depend on the interleave |
//! | [`bulk_reduce`] | the element operations of `cp.reduce.async.bulk(.tensor)` |
//! | [`tcgen05_dlayout`] | where `tcgen05.mma` puts D's elements in Tensor Memory (data path layouts D, E, F, G) |
//! | [`tcgen05_desc`] | the shared-memory and instruction descriptors of `tcgen05.mma` ([`tcgen05_idesc`]) |
//! | [`wgmma_desc`] | the shared-memory matrix descriptor of `wgmma.mma_async`: fields, canonical layouts, swizzle |

pub mod approx;
pub mod atomic;
pub mod bits;
pub mod block_scale;
pub mod bulk_reduce;
pub mod compare;
pub mod convert;
pub mod float;
pub mod half;
pub mod int;
pub mod matrix_unpack;
pub mod mixed;
pub mod mma;
pub mod mma_sync;
pub mod narrow_float;
pub mod tcgen05_cp;
pub mod tcgen05_desc;
pub mod tcgen05_dlayout;
pub mod tcgen05_idesc;
pub mod tile;
pub mod tma;
pub mod tma_rules;
pub mod wgmma_desc;
