//! A scalar `--arg` checked against its parameter's declared type, not only its size: a float
//! given for an integer parameter (`f32:1.5` for `.u32`), or an integer for a float parameter
//! (`u32:1` for `.f32`, which would pass the bits of a denormal), or one 16-bit float format for
//! the other (`f16:1` for `.bf16`), is refused. `.b` parameters
//! take any scalar of their size, and signed and unsigned integers take each other's spelling.

use emu::ir::{Function, Type};

use crate::argspec::ElemType;

/// Why scalar argument `i` (of type `ty`) does not suit parameter `i` of `kernel`, if it does
/// not.
pub(crate) fn mismatch(kernel: &Function, i: usize, ty: ElemType) -> Option<String> {
    let p = kernel.params.get(i)?;
    let v = &p.var;
    if !v.dims.is_empty() || v.vec.is_some() || ty == ElemType::B8 {
        return None;
    }
    let want = v.ty;
    let float_arg = ty.is_float();
    let bits_arg = matches!(ty, ElemType::B16 | ElemType::B32 | ElemType::B64);
    let clash = if matches!(want, Type::B8 | Type::B16 | Type::B32 | Type::B64) || bits_arg {
        false
    } else if want.is_float() {
        // Same-sized float formats differ (`f16` given for `.bf16`): the name must match.
        !float_arg || (ty.size() == 2 && ty.name() != want.name())
    } else {
        want.is_integer() && float_arg
    };
    clash.then(|| {
        format!(
            "argument {i}: {} {} is given for parameter {i} `{}` of `{}`, which is .{}",
            crate::argspec::article(ty.name()),
            ty.name(),
            v.name,
            kernel.name,
            want.name()
        )
    })
}
