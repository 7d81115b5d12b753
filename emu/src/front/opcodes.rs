//! Instruction families: from an opcode and its qualifiers to a typed [`Op`].
//!
//! Each family takes the qualifiers it understands; anything left over is reported as an
//! unknown qualifier of that instruction. Families ptxemu does not implement yet (tensor
//! cores, async copies, textures, …) are reported as unsupported, naming the instruction.

use super::error::{Error, ErrorKind};
use super::quals::Quals;
use crate::ir::{Op, Type};

mod arith;
mod bits;
mod float;
mod memory;
mod sync;

use float::float_fn;

/// Opcodes of instruction families ptxemu recognises but does not implement.
const UNSUPPORTED: &[&str] = &[
    "tex",
    "tld4",
    "suld",
    "sust",
    "sured",
    "suq",
    "txq",
    "multimem",
    "stackrestore",
    "stacksave",
    "alloca",
    "istypep",
    "st.async",
    "red.async",
    "vabsdiff",
    "vadd",
    "vsub",
    "vmad",
    "vmax",
    "vmin",
    "vset",
    "vshl",
    "vshr",
    "vabsdiff2",
    "vadd2",
    "vsub2",
    "vavrg2",
    "vmax2",
    "vmin2",
    "vset2",
    "vabsdiff4",
    "vadd4",
    "vsub4",
    "vavrg4",
    "vmax4",
    "vmin4",
    "vset4",
    "fma.rn.oob",
    "cvt.rs",
    "ld.async",
    "elect.one",
];

/// Builds the typed op of `opcode` from its qualifiers.
///
/// # Errors
/// Unknown instructions, unsupported families, unknown or missing qualifiers.
pub fn parse_op(opcode: &str, q: &mut Quals) -> Result<Op, Error> {
    let two = q.remaining().next().map(|s| format!("{opcode}.{s}"));
    if UNSUPPORTED.contains(&opcode) || two.as_deref().is_some_and(|t| UNSUPPORTED.contains(&t)) {
        let name = if UNSUPPORTED.contains(&opcode) {
            opcode.to_string()
        } else {
            two.unwrap_or_default()
        };
        return Err(Error::new(
            ErrorKind::Unsupported(format!("the `{name}` instruction")),
            q.span,
        ));
    }
    let op = match opcode {
        "add" | "sub" | "fma" => arith::add_sub_fma(opcode, q)?,
        "mul" | "mad" => arith::mul_mad(opcode, q)?,
        "mul24" | "mad24" => arith::mul24(opcode, q)?,
        "sad" => Op::Sad(q.ty()?),
        "div" => arith::div(q)?,
        "rem" => Op::Rem(q.ty()?),
        "abs" | "neg" => arith::abs_neg(opcode, q)?,
        "min" | "max" => arith::min_max(opcode, q)?,
        "addc" | "subc" => arith::addc_subc(opcode, q)?,
        "madc" => arith::madc(q)?,
        "popc" => Op::Popc(q.ty()?),
        "clz" => Op::Clz(q.ty()?),
        "bfind" => bits::bfind(q)?,
        "fns" => {
            q.ty()?;
            Op::Fns
        }
        "brev" => Op::Brev(q.ty()?),
        "bfe" => Op::Bfe(q.ty()?),
        "bfi" => Op::Bfi(q.ty()?),
        "bmsk" => bits::bmsk(q)?,
        "szext" => bits::szext(q)?,
        "dp4a" => bits::dp4a(q)?,
        "dp2a" => bits::dp2a(q)?,
        "and" => Op::And(q.ty()?),
        "or" => Op::Or(q.ty()?),
        "xor" => Op::Xor(q.ty()?),
        "not" => Op::Not(q.ty()?),
        "cnot" => Op::Cnot(q.ty()?),
        "lop3" => {
            q.ty()?;
            Op::Lop3
        }
        "shf" => bits::shf(q)?,
        "shl" => Op::Shl(q.ty()?),
        "shr" => Op::Shr(q.ty()?),
        "prmt" => bits::prmt(q)?,
        "rcp" => Op::Rcp(float_fn(q, false)?),
        "sqrt" => Op::Sqrt(float_fn(q, false)?),
        "rsqrt" => Op::Rsqrt(float_fn(q, true)?),
        "sin" => Op::Sin(float_fn(q, true)?),
        "cos" => Op::Cos(float_fn(q, true)?),
        "lg2" => Op::Lg2(float_fn(q, true)?),
        "ex2" => Op::Ex2(float_fn(q, true)?),
        "tanh" => Op::Tanh(float_fn(q, true)?),
        "testp" => float::testp(q)?,
        "copysign" => Op::Copysign(q.ty()?),
        "setp" => float::setp(q)?,
        "set" => float::set(q)?,
        "selp" => Op::Selp(q.ty()?),
        "slct" => float::slct(q)?,
        "mov" => Op::Mov(q.ty()?),
        "ld" => memory::ld(q)?,
        "ldu" => memory::ldu(q)?,
        "st" => memory::st(q)?,
        "prefetch" | "prefetchu" => memory::prefetch(opcode, q)?,
        "applypriority" => memory::applypriority(q)?,
        "discard" => memory::discard(q)?,
        "createpolicy" => memory::createpolicy(q)?,
        "isspacep" => memory::isspacep(q)?,
        "cvta" => memory::cvta(q)?,
        "cvt" => float::cvt(q)?,
        "shfl" => sync::shfl(q)?,
        "vote" => sync::vote(q)?,
        "match" => sync::match_sync(q)?,
        "redux" => sync::redux(q)?,
        "activemask" => sync::activemask(q)?,
        "elect" => sync::elect(q)?,
        "barrier" if q.take("cluster") => crate::cluster::syntax::parse(opcode, q)?,
        "bar" | "barrier" => sync::bar(opcode, q)?,
        "membar" => sync::membar(q)?,
        "fence" => sync::fence(q)?,
        "atom" | "red" => memory::atom_red(opcode, q)?,
        "nanosleep" => sync::nanosleep(q)?,
        "griddepcontrol" => sync::griddepcontrol(q)?,
        "setmaxnreg" => sync::setmaxnreg(q)?,
        "pmevent" => Op::Pmevent {
            mask: q.take("mask"),
        },
        "bra" => Op::Bra { uni: q.take("uni") },
        "call" => super::module::call_op(q.take("uni")),
        "brx" => sync::brx(q)?,
        "ret" => Op::Ret { uni: q.take("uni") },
        "exit" => Op::Exit,
        "trap" => Op::Trap,
        "brkpt" => Op::Brkpt,
        "tcgen05" => crate::tcgen05::syntax::parse(q)?,
        "cp" => crate::async_copy::syntax::parse_cp(q)?,
        "tensormap" => crate::tma::syntax::parse_tensormap(q)?,
        "mapa" | "getctarank" => crate::cluster::syntax::parse(opcode, q)?,
        "clusterlaunchcontrol" => crate::cluster_launch::syntax::parse(q)?,
        "mbarrier" => crate::async_copy::syntax::parse_mbarrier(q)?,
        "wgmma" => crate::wgmma::syntax::parse(q)?,
        "mma" | "ldmatrix" | "stmatrix" | "movmatrix" | "wmma" => {
            crate::mma::syntax::parse(opcode, q)?
        }
        _ => {
            return Err(Error::new(
                ErrorKind::UnknownInstruction(opcode.to_string()),
                q.span,
            ))
        }
    };
    finish(q, op)
}

fn finish(q: &Quals, op: Op) -> Result<Op, Error> {
    q.finish()?;
    Ok(op)
}

/// Whether `t` is a plausible second type of a two-type instruction (for diagnostics).
pub fn is_type(t: &str) -> bool {
    Type::from_name(t).is_some()
}
