//! Parsing float functions, comparison, selection and conversion: `testp`, `setp`, `set`, `slct`, `cvt`.

use crate::front::error::Error;
use crate::front::quals::Quals;
use crate::ir::{
    BoolOp, CmpOp, Cvt, CvtPack, CvtRounding, DivKind, FloatFn, Op, Set, Setp, Slct, Testp,
    TestpClass,
};

/// `testp` and its class.
pub(super) fn testp(q: &mut Quals) -> Result<Op, Error> {
    let class = q
        .take_map(|s| {
            Some(match s {
                "finite" => TestpClass::Finite,
                "infinite" => TestpClass::Infinite,
                "number" => TestpClass::Number,
                "notanumber" => TestpClass::NotANumber,
                "normal" => TestpClass::Normal,
                "subnormal" => TestpClass::Subnormal,
                _ => return None,
            })
        })
        .ok_or_else(|| q.syntax("testp needs a class (.finite, .normal, …)".into()))?;
    Ok(Op::Testp(Testp { class, ty: q.ty()? }))
}

/// `setp`.
pub(super) fn setp(q: &mut Quals) -> Result<Op, Error> {
    let cmp = q
        .take_map(cmp_of)
        .ok_or_else(|| q.syntax("setp needs a comparison".into()))?;
    let bool_op = q.take_map(bool_of);
    let ftz = q.take("ftz");
    Ok(Op::Setp(Setp {
        cmp,
        bool_op,
        ftz,
        ty: q.ty()?,
    }))
}

/// `set`.
pub(super) fn set(q: &mut Quals) -> Result<Op, Error> {
    let cmp = q
        .take_map(cmp_of)
        .ok_or_else(|| q.syntax("set needs a comparison".into()))?;
    let bool_op = q.take_map(bool_of);
    let ftz = q.take("ftz");
    let (dst, src) = q.two_types()?;
    Ok(Op::Set(Set {
        cmp,
        bool_op,
        ftz,
        dst,
        src,
    }))
}

/// `slct`.
pub(super) fn slct(q: &mut Quals) -> Result<Op, Error> {
    let ftz = q.take("ftz");
    let (dst, sel) = q.two_types()?;
    Ok(Op::Slct(Slct { ftz, dst, sel }))
}

/// `cvt` and `cvt.pack`.
pub(super) fn cvt(q: &mut Quals) -> Result<Op, Error> {
    let op = if q.take("pack") {
        q.take("sat");
        let types = q.take_all(crate::ir::Type::from_name);
        let (dst, src, c) = match types.as_slice() {
            [d, s] => (*d, *s, None),
            [d, s, c] => (*d, *s, Some(*c)),
            _ => return Err(q.syntax("cvt.pack needs two or three types".into())),
        };
        Op::CvtPack(CvtPack { dst, src, c })
    } else {
        let rnd = q
            .int_rounding()
            .map(CvtRounding::Int)
            .or_else(|| q.float_rounding().map(CvtRounding::Float));
        let ftz = q.take("ftz");
        let sat = q.take("sat");
        let relu = q.take("relu");
        let satfinite = q.take("satfinite");
        let (dst, src) = q.two_types()?;
        Op::Cvt(Cvt {
            dst,
            src,
            rnd,
            ftz,
            sat,
            relu,
            satfinite,
        })
    };
    Ok(op)
}

fn cmp_of(s: &str) -> Option<CmpOp> {
    use CmpOp as C;
    Some(match s {
        "eq" => C::Eq,
        "ne" => C::Ne,
        "lt" => C::Lt,
        "le" => C::Le,
        "gt" => C::Gt,
        "ge" => C::Ge,
        "lo" => C::Lo,
        "ls" => C::Ls,
        "hi" => C::Hi,
        "hs" => C::Hs,
        "equ" => C::Equ,
        "neu" => C::Neu,
        "ltu" => C::Ltu,
        "leu" => C::Leu,
        "gtu" => C::Gtu,
        "geu" => C::Geu,
        "num" => C::Num,
        "nan" => C::Nan,
        _ => return None,
    })
}

fn bool_of(s: &str) -> Option<BoolOp> {
    Some(match s {
        "and" => BoolOp::And,
        "or" => BoolOp::Or,
        "xor" => BoolOp::Xor,
        _ => return None,
    })
}

pub(super) fn float_fn(q: &mut Quals, approx_only: bool) -> Result<FloatFn, Error> {
    let kind = if q.take("approx") {
        DivKind::Approx
    } else if q.take("full") {
        DivKind::Full
    } else if let Some(r) = q.float_rounding() {
        DivKind::Rounded(r)
    } else if approx_only {
        return Err(q.syntax(format!("`{}` needs .approx", q.opcode)));
    } else {
        DivKind::Exact
    };
    let ftz = q.take("ftz");
    let ty = q.ty()?;
    Ok(FloatFn { ty, kind, ftz })
}
