//! Checks of the bulk copies and tensor maps (PTX ISA "cp.async.bulk", "cp.reduce.async.bulk",
//! "cp.async.bulk.tensor", "cp.async.bulk.prefetch(.tensor)", "cp.async.bulk.wait_group",
//! "tensormap.replace", "tensormap.cp_fenceproxy"): operand counts and kinds, coordinate
//! vector lengths, the reduction types each destination allows, and the PTX version and
//! target of each form ("PTX ISA Notes" / "Target ISA Notes").

use crate::ir::tma::{
    BulkCopy, BulkReduce, BulkSpace, Completion, RedOp, TensorCopy, TensorDir, Tma, TmapField,
};
use crate::ir::{ArchSuffix, Function, Imm, Instr, Module, Op, Operand, Type, Version};
use crate::validate::diagnostic::Diagnostic;

/// Operand counts of one of these instructions.
pub fn arity(t: &Tma) -> (usize, usize) {
    let hint = |h: bool| usize::from(h);
    match t {
        Tma::Bulk(c) | Tma::Reduce(BulkReduce { copy: c, .. }) => {
            let n = if c.completion == Completion::Mbarrier {
                4
            } else {
                3
            };
            let n = n + usize::from(c.multicast);
            (n, n + hint(c.cache_hint))
        }
        Tma::Tensor(c) => {
            let n = if c.dir == TensorDir::Load {
                4 + usize::from(c.im2col) + usize::from(c.multicast)
            } else {
                3
            };
            (n, n + hint(c.cache_hint))
        }
        Tma::Prefetch { cache_hint } => (2, 2 + hint(*cache_hint)),
        Tma::PrefetchTensor {
            im2col, cache_hint, ..
        } => {
            let n = 2 + usize::from(*im2col);
            (n, n + hint(*cache_hint))
        }
        Tma::CommitGroup => (0, 0),
        Tma::WaitGroup { .. } => (1, 1),
        Tma::Replace { field, .. } => {
            let n = 2 + usize::from(field.has_ordinal());
            (n, n)
        }
        Tma::CpFenceproxy { .. } => (3, 3),
    }
}

/// The (ptx, sm, arch-specific) an instruction needs.
fn needs(t: &Tma) -> (&'static str, (u32, u32), u32, bool) {
    match t {
        Tma::Bulk(c) if c.dst == BulkSpace::SharedCta && c.src == BulkSpace::Global => {
            ("cp.async.bulk to .shared::cta", (8, 6), 90, false)
        }
        Tma::Tensor(c) if c.shared == BulkSpace::SharedCta && c.dir == TensorDir::Load => {
            ("cp.async.bulk.tensor to .shared::cta", (8, 6), 90, false)
        }
        Tma::Replace { .. } => ("tensormap.replace", (8, 3), 90, true),
        Tma::CpFenceproxy { .. } => ("tensormap.cp_fenceproxy", (8, 3), 90, false),
        _ => ("the bulk asynchronous copies", (8, 0), 90, false),
    }
}

/// The reduction types `cp.reduce.async.bulk` allows for `op` into `dst`.
fn red_types(op: RedOp, dst: BulkSpace) -> &'static [Type] {
    let global = dst == BulkSpace::Global;
    match op {
        RedOp::And | RedOp::Or | RedOp::Xor => &[Type::B32, Type::B64],
        RedOp::Inc | RedOp::Dec => &[Type::U32],
        RedOp::Add if global => &[
            Type::U32,
            Type::S32,
            Type::U64,
            Type::F32,
            Type::F64,
            Type::F16,
            Type::BF16,
        ],
        RedOp::Add => &[Type::U32, Type::S32, Type::U64],
        RedOp::Min | RedOp::Max if global => &[
            Type::U32,
            Type::S32,
            Type::U64,
            Type::S64,
            Type::F16,
            Type::BF16,
        ],
        RedOp::Min | RedOp::Max => &[Type::U32, Type::S32],
    }
}

fn vec_len(i: &Instr, k: usize) -> Option<usize> {
    match i.args.get(k) {
        Some(Operand::Vector(v)) => Some(v.len()),
        _ => None,
    }
}

/// The coordinates and im2col offsets of the tensor instructions are values: registers or
/// constants, never `_` (lowering reads them through `Validated::values_of`).
fn no_sink_in_vectors(i: &Instr, push: &mut dyn FnMut(&'static str, String)) {
    for a in &i.args {
        if let Operand::Vector(v) = a {
            if v.iter().any(|e| matches!(e, crate::ir::VecElem::Sink)) {
                push(
                    "operand-kind",
                    "the coordinates and offsets of a tensor instruction are registers or constants, not `_`".into(),
                );
                return;
            }
        }
    }
}

/// Checks one instruction of these families.
pub fn check(m: &Module, f: &Function, i: &Instr, out: &mut Vec<Diagnostic>) {
    let Op::Tma(t) = &i.op else { return };
    let mut push = |rule: &'static str, message: String| {
        out.push(Diagnostic {
            rule,
            message,
            span: i.span,
        })
    };
    if let Tma::Tensor(c) = t {
        tensor_map_operand(m, f, i, c, &mut push);
    }
    no_sink_in_vectors(i, &mut push);
    if m.version.major != 0 && m.target.sm != 0 {
        requirements(m, t, &mut push);
    }
    let addrs = match t {
        Tma::Bulk(c) => bulk_route(c, &mut push),
        Tma::Reduce(r) => {
            let addrs = bulk_route(&r.copy, &mut push);
            reduce_type(r, &mut push);
            addrs
        }
        Tma::Tensor(c) => tensor(i, c, &mut push),
        Tma::Prefetch { .. } => vec![0],
        Tma::PrefetchTensor { dim, .. } => {
            if vec_len(i, 1) != Some(usize::from(*dim)) {
                push(
                    "operand-kind",
                    format!("a .{dim}d tensor prefetch takes {dim} coordinates"),
                );
            }
            vec![0]
        }
        Tma::CommitGroup => Vec::new(),
        Tma::WaitGroup { .. } => {
            if !matches!(i.args.first(), Some(Operand::Imm(Imm::Int(0..)))) {
                push(
                    "operand-kind",
                    "cp.async.bulk.wait_group takes a non-negative integer constant".into(),
                );
            }
            Vec::new()
        }
        Tma::Replace { field, ty, .. } => replace(i, *field, *ty, &mut push),
        Tma::CpFenceproxy { .. } => {
            if !matches!(i.args.get(2), Some(Operand::Imm(Imm::Int(128)))) {
                push(
                    "operand-kind",
                    "the size of tensormap.cp_fenceproxy is the constant 128".into(),
                );
            }
            vec![0, 1]
        }
    };
    for k in addrs {
        if !matches!(i.args.get(k), Some(Operand::Address(_))) {
            push(
                "operand-kind",
                format!("operand {} is an address `[...]`", k + 1),
            );
        }
    }
}

/// The PTX version and target the form needs, against the module's.
fn requirements(m: &Module, t: &Tma, push: &mut dyn FnMut(&'static str, String)) {
    if let Tma::Tensor(TensorCopy {
        cta_group: Some(_), ..
    }) = t
    {
        cta_group_requirements(m, push);
    }
    let (what, ptx, sm, specific) = needs(t);
    if m.version < Version::new(ptx.0, ptx.1) {
        push(
            "requires-ptx-version",
            format!("{what} requires PTX ISA {}.{} or later", ptx.0, ptx.1),
        );
    }
    if m.target.sm < sm || (specific && m.target.suffix == ArchSuffix::None) {
        push(
            "requires-target",
            format!(
                "{what} requires sm_{sm}{} or later (the module targets sm_{})",
                if specific { "a" } else { "" },
                m.target.sm
            ),
        );
    }
}

/// `.cta_group` on a tensor copy: sm_100a and sm_101a/sm_110a from PTX ISA 8.6, and the `f`
/// targets of those families from 8.8 (PTX ISA "cp.async.bulk.tensor", Target ISA Notes).
fn cta_group_requirements(m: &Module, push: &mut dyn FnMut(&'static str, String)) {
    let t = &m.target;
    let ok = match t.suffix {
        ArchSuffix::Arch => matches!(t.sm, 100 | 101 | 110),
        ArchSuffix::Family => m.version >= Version::new(8, 8) && matches!(t.sm, 100..=110),
        ArchSuffix::None => false,
    };
    if m.version < Version::new(8, 6) {
        push(
            "requires-ptx-version",
            ".cta_group on cp.async.bulk.tensor requires PTX ISA 8.6 or later".into(),
        );
    }
    if !ok {
        push(
            "requires-target",
            format!(
                ".cta_group on cp.async.bulk.tensor requires sm_100a, sm_101a or sm_110a (or their f targets from PTX ISA 8.8); the module targets sm_{}",
                t.sm
            ),
        );
    }
}

/// The source, destination and completion of a (reducing) bulk copy go together; returns
/// the operands that must be addresses.
fn bulk_route(c: &BulkCopy, push: &mut dyn FnMut(&'static str, String)) -> Vec<usize> {
    let mut addrs = vec![0, 1];
    if c.completion == Completion::Mbarrier {
        addrs.push(3);
    }
    let shared = |s: BulkSpace| s != BulkSpace::Global;
    let ok = match c.completion {
        Completion::Mbarrier => shared(c.dst),
        Completion::BulkGroup => c.dst == BulkSpace::Global && shared(c.src),
    };
    if !ok || (shared(c.dst) && c.src == BulkSpace::SharedCluster) {
        push(
            "operand-kind",
            format!(
                "no bulk copy goes {} <- {} completing through {}",
                c.dst.name(),
                c.src.name(),
                if c.completion == Completion::Mbarrier {
                    "an mbarrier"
                } else {
                    "a bulk group"
                }
            ),
        );
    }
    addrs
}

/// The element type of `cp.reduce.async.bulk` suits its operation and destination, and
/// `.noftz` is written exactly where it belongs.
fn reduce_type(r: &BulkReduce, push: &mut dyn FnMut(&'static str, String)) {
    let allowed = red_types(r.op, r.copy.dst);
    if !allowed.contains(&r.ty) {
        let names: Vec<&str> = allowed.iter().map(|t| t.name()).collect();
        push(
            "operand-type",
            format!(
                "cp.reduce.async.bulk into {} takes .{} for this operation, not .{}",
                r.copy.dst.name(),
                names.join("/."),
                r.ty.name()
            ),
        );
    }
    let half = matches!(r.ty, Type::F16 | Type::BF16);
    if r.noftz != (half && r.op == RedOp::Add) {
        push(
            "operand-type",
            ".noftz is written exactly on .add of .f16/.bf16".into(),
        );
    }
}

/// The coordinate and im2col-offset vectors of a tensor copy; returns the operands that
/// must be addresses.
/// The tensor map of a tensor copy is a generic address: ptxas refuses a `.param` or `.const`
/// variable named there ("State space mismatch"; a kernel's `const __grid_constant__` map is
/// passed as its generic address, or a register holding it).
fn tensor_map_operand(
    m: &Module,
    f: &Function,
    i: &Instr,
    c: &TensorCopy,
    push: &mut dyn FnMut(&'static str, String),
) {
    let k = if c.dir == TensorDir::Load { 1 } else { 0 };
    let Some(Operand::Address(a)) = i.args.get(k) else {
        return;
    };
    let crate::ir::AddrBase::Var(v) = a.base else {
        return;
    };
    if matches!(
        crate::validate::prefetch::var_space(m, f, v),
        Some(models::vocab::StateSpace::Param(_) | models::vocab::StateSpace::Const)
    ) {
        push(
            "tensor-map-space",
            "the tensor map of a tensor copy is a generic address: name a register holding the .param/.const variable's generic address (cvta), not the variable".into(),
        );
    }
}

fn tensor(i: &Instr, c: &TensorCopy, push: &mut dyn FnMut(&'static str, String)) -> Vec<usize> {
    let (addrs, coords) = if c.dir == TensorDir::Load {
        (vec![0, 1, 3], 2)
    } else {
        (vec![0, 2], 1)
    };
    if vec_len(i, coords) != Some(usize::from(c.dim)) {
        push(
            "operand-kind",
            format!(
                "a .{}d tensor copy takes {} coordinates: [tensorMap, {{c0, ...}}]",
                c.dim, c.dim
            ),
        );
    }
    if c.im2col {
        if c.dim < 3 {
            push("operand-kind", "the .im2col mode needs .3d to .5d".into());
        } else if c.dir == TensorDir::Load && vec_len(i, 4) != Some(usize::from(c.dim) - 2) {
            push(
                "operand-kind",
                format!(
                    "an .im2col .{}d load takes {} im2col offsets in a vector after the mbarrier",
                    c.dim,
                    c.dim - 2
                ),
            );
        }
    }
    addrs
}

/// The value type and ordinal of `tensormap.replace`; returns the operands that must be
/// addresses.
fn replace(
    i: &Instr,
    field: TmapField,
    ty: Type,
    push: &mut dyn FnMut(&'static str, String),
) -> Vec<usize> {
    let want = match field {
        TmapField::GlobalAddress | TmapField::GlobalStride => Type::B64,
        _ => Type::B32,
    };
    if ty != want {
        push(
            "operand-type",
            format!("tensormap.replace .{} takes .{}", field.name(), want.name()),
        );
    }
    if field.has_ordinal() && !matches!(i.args.get(1), Some(Operand::Imm(Imm::Int(0..=4)))) {
        push(
            "operand-kind",
            format!(
                "the ordinal of tensormap.replace .{} is a constant 0 to 4",
                field.name()
            ),
        );
    }
    vec![0]
}
