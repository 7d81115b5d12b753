//! tcgen05 in the interpreter: store/load round trips across every pair of shapes (a
//! quickcheck property), `.red`, `shift` and the trace. The faults of checked mode are in
//! `exec_tcgen05_faults.rs`.

mod exec_common;
mod tcgen05_common;

use emu::ir::{Repeat, TmemShape, REPEATS};
use emu::tcgen05::layout::SHAPES;
use emu::tcgen05::memory::POISON;
use exec_common::{launch, launch_with, zeros, Outcome};
use quickcheck::{Arbitrary, Gen, QuickCheck};
use std::collections::HashMap;
use tcgen05_common::{kernel, regs};

fn shape_name(s: TmemShape) -> &'static str {
    s.name()
}

/// One access: shape, repeat, packing.
#[derive(Clone, Copy, Debug)]
struct Access {
    shape: TmemShape,
    num: Repeat,
    packed: bool,
}

impl Access {
    fn regs(self) -> u32 {
        self.shape.regs(self.num.count())
    }

    fn width(self) -> u32 {
        self.shape.width(self.num.count(), self.packed)
    }

    /// The second half's offset for `.16x32bx2`: 16 lanes down, same columns.
    fn split(self) -> u32 {
        16 << 16
    }

    fn split_operand(self) -> String {
        if self.shape == TmemShape::S16x32bx2 {
            format!(", {}", self.split())
        } else {
            String::new()
        }
    }

    fn cells(self, t: u32, j: u32) -> Vec<(u32, u32)> {
        if self.packed {
            self.shape.packed_cells(0, self.split(), t, j).to_vec()
        } else {
            vec![self.shape.cell(0, self.split(), t, j)]
        }
    }
}

impl Arbitrary for Access {
    fn arbitrary(g: &mut Gen) -> Access {
        loop {
            let shape = *g.choose(&SHAPES).unwrap();
            let num = *g.choose(&REPEATS).unwrap();
            let packed = bool::arbitrary(g);
            let a = Access { shape, num, packed };
            if shape.num_ok(num.count()) && a.width() <= 256 {
                return a;
            }
        }
    }
}

/// Stores with `st`, loads with `ld` (one warp, lanes 0..31, columns from 0), and returns each
/// thread's loaded registers.
fn store_then_load(st: Access, ld: Access) -> Outcome {
    let nst = st.regs();
    let nld = ld.regs();
    let mut body = String::new();
    for j in 0..nst {
        body.push_str(&format!(
            "  mad.lo.u32 %r{}, %r5, 65536, {};\n",
            10 + j,
            j + 1
        ));
    }
    body.push_str(&format!(
        "  tcgen05.st.sync.aligned.{}.x{}{}.b32 [%r2]{}, {};\n  tcgen05.wait::st.sync.aligned;\n",
        shape_name(st.shape),
        st.num.count(),
        if st.packed { ".unpack::16b" } else { "" },
        st.split_operand(),
        regs(10, nst)
    ));
    body.push_str(&format!(
        "  tcgen05.ld.sync.aligned.{}.x{}{}.b32 {}, [%r2]{};\n  tcgen05.wait::ld.sync.aligned;\n",
        shape_name(ld.shape),
        ld.num.count(),
        if ld.packed { ".pack::16b" } else { "" },
        regs(150, nld),
        ld.split_operand()
    ));
    body.push_str(&format!("  mul.lo.u32 %r7, %r5, {};\n", nld * 4));
    body.push_str("  cvt.u64.u32 %rd2, %r7;\n  add.u64 %rd3, %rd1, %rd2;\n");
    for j in 0..nld {
        body.push_str(&format!(
            "  st.global.u32 [%rd3+{}], %r{};\n",
            4 * j,
            150 + j
        ));
    }
    let src = kernel(256, &body);
    launch(
        &src,
        "k",
        [1, 1, 1],
        [32, 1, 1],
        vec![zeros((32 * nld) as usize)],
    )
}

/// What the loads must see, from the layouts: the stored image, poison elsewhere.
fn expected(st: Access, ld: Access) -> Vec<u32> {
    let mut image: HashMap<(u32, u32), u32> = HashMap::new();
    for t in 0..32 {
        for j in 0..st.regs() {
            let v = t * 65536 + j + 1;
            let cells = st.cells(t, j);
            if st.packed {
                image.insert(cells[0], v & 0xFFFF);
                image.insert(cells[1], v >> 16);
            } else {
                image.insert(cells[0], v);
            }
        }
    }
    let cell = |c: (u32, u32)| image.get(&c).copied().unwrap_or(POISON);
    let mut out = Vec::new();
    for t in 0..32 {
        for j in 0..ld.regs() {
            let c = ld.cells(t, j);
            out.push(if ld.packed {
                (cell(c[0]) & 0xFFFF) | ((cell(c[1]) & 0xFFFF) << 16)
            } else {
                cell(c[0])
            });
        }
    }
    out
}

#[test]
fn stores_and_loads_of_any_two_shapes_agree_with_the_layouts() {
    fn prop(st: Access, ld: Access) -> bool {
        let o = store_then_load(st, ld);
        o.ok();
        o.u32s(0) == expected(st, ld)
    }
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(Access, Access) -> bool);
}

#[test]
fn a_store_then_a_load_of_the_same_shape_returns_every_register() {
    for shape in SHAPES {
        for packed in [false, true] {
            let a = Access {
                shape,
                num: Repeat::X4,
                packed,
            };
            let o = store_then_load(a, a);
            o.ok();
            let want: Vec<u32> = (0..32)
                .flat_map(|t| (0..a.regs()).map(move |j| t * 65536 + j + 1))
                .map(|v| {
                    if packed {
                        v & 0xFFFF | (v >> 16) << 16
                    } else {
                        v
                    }
                })
                .collect();
            assert_eq!(o.u32s(0), want, "{shape:?} packed={packed}");
        }
    }
}

#[test]
fn ld_red_reduces_each_threads_values() {
    // Thread t stores t, -t, 2t-7 and NaN (for t = 5) into its lane; .red over 4 columns.
    let body = "  cvt.rn.f32.u32 %f1, %r5;
  neg.f32 %f2, %f1;
  mul.f32 %f3, %f1, 0f40000000;
  sub.f32 %f3, %f3, 0f40E00000;
  setp.eq.u32 %p1, %r5, 5;
  selp.f32 %f4, 0f7FC00000, %f1, %p1;
  mov.b32 %r10, %f1;
  mov.b32 %r11, %f2;
  mov.b32 %r12, %f3;
  mov.b32 %r13, %f4;
  tcgen05.st.sync.aligned.32x32b.x4.b32 [%r2], {%r10, %r11, %r12, %r13};
  tcgen05.wait::st.sync.aligned;
  tcgen05.ld.red.sync.aligned.32x32b.x4.max.abs.f32 {%r20, %r21, %r22, %r23}, %r30, [%r2];
  tcgen05.ld.red.sync.aligned.32x32b.x4.min.NaN.f32 {%r24, %r25, %r26, %r27}, %r31, [%r2];
  tcgen05.ld.red.sync.aligned.32x32b.x4.min.s32 {%r40, %r41, %r42, %r43}, %r32, [%r2];
  tcgen05.wait::ld.sync.aligned;
  mul.wide.u32 %rd2, %r5, 16;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r30, %r31, %r32, %r21};";
    let src = kernel(32, body).replace(".target sm_100a", ".target sm_103a");
    let o = launch(&src, "k", [1, 1, 1], [32, 1, 1], vec![zeros(128)]);
    o.ok();
    let v = o.u32s(0);
    for t in 0..32u32 {
        let x = t as f32;
        let vals = [x, -x, 2.0 * x - 7.0, if t == 5 { f32::NAN } else { x }];
        let maxabs = vals
            .iter()
            .filter(|v| !v.is_nan())
            .map(|v| v.abs())
            .fold(f32::NEG_INFINITY, f32::max);
        let row = &v[(4 * t) as usize..(4 * t + 4) as usize];
        assert_eq!(f32::from_bits(row[0]), maxabs, "thread {t} max.abs");
        if t == 5 {
            assert_eq!(row[1], 0x7FFF_FFFF, "min.NaN sees the NaN");
        } else {
            let min = vals.iter().copied().fold(f32::INFINITY, f32::min);
            assert_eq!(f32::from_bits(row[1]), min, "thread {t} min.NaN");
        }
        let ints = vals.map(|f| f.to_bits() as i32);
        assert_eq!(
            row[2] as i32,
            *ints.iter().min().unwrap(),
            "thread {t} min.s32"
        );
        assert_eq!(
            f32::from_bits(row[3]),
            -x,
            "registers keep their sign under .abs"
        );
    }
}

#[test]
fn shift_moves_rows_down_within_the_32_lane_block() {
    // Each thread stores its tid into 8 columns of its lane; thread 0 then shifts.
    let body =
        "  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r2], {%r5, %r5, %r5, %r5, %r5, %r5, %r5, %r5};
  tcgen05.wait::st.sync.aligned;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 tcgen05.shift.cta_group::1.down [%r2];
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, [%r2];
  tcgen05.wait::ld.sync.aligned;
  mul.wide.u32 %rd2, %r5, 8;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r20, %r27};";
    let o = launch(
        &kernel(32, body),
        "k",
        [1, 1, 1],
        [32, 1, 1],
        vec![zeros(64)],
    );
    o.ok();
    let v = o.u32s(0);
    for lane in 0..32u32 {
        let want = lane.saturating_sub(1);
        assert_eq!(
            (v[2 * lane as usize], v[2 * lane as usize + 1]),
            (want, want),
            "lane {lane} holds row {want}'s old value"
        );
    }
}

#[test]
fn the_trace_names_every_registers_cells() {
    let body = "  tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32 [%r2], {%r5, %r6};\n  tcgen05.wait::st.sync.aligned;";
    let o = launch_with(
        &kernel(32, body),
        "k",
        [1, 1, 1],
        [32, 1, 1],
        vec![zeros(1)],
        |c| c.tmem.trace = true,
    );
    o.ok();
    let t = &o.report.tmem_trace;
    assert_eq!(t.len(), 3, "alloc, st, dealloc: {t:?}");
    let st = &t[1];
    assert_eq!(st.moves.len(), 64);
    let m = st
        .moves
        .iter()
        .find(|m| m.thread == 5 && m.reg == 1)
        .unwrap();
    let s = TmemShape::S16x64b;
    assert_eq!(m.cells.to_vec(), s.packed_cells(0, 0, 5, 1).to_vec());
    assert_eq!(
        m.cells.to_vec(),
        [(9, 4), (9, 5)],
        "thread 5, register 1: lane 8+1, unpacked column 2·1+0, so cells 4 and 5"
    );
    assert_eq!(m.value, 0, "%r6 is thread 5's warp index");
}
