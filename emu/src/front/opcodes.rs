//! Instruction families: from an opcode and its qualifiers to a typed [`Op`].
//!
//! Each family takes the qualifiers it understands; anything left over is reported as an
//! unknown qualifier of that instruction. Families ptxemu does not implement yet (tensor
//! cores, async copies, textures, …) are reported as unsupported, naming the instruction.

use super::error::{Error, ErrorKind};
use super::quals::Quals;
use crate::ir::{
    Arith, Atom, AtomOp, Bar, BarKind, BarRedOp, Bfind, BoolOp, Carry, CmpOp, CreatePolicy, Cvt,
    CvtPack, CvtRounding, Cvta, Div, DivKind, Dp, Dp2a, Fence, FenceSem, FloatFn, GriddepAction,
    Ld, Ldu, Madc, Match, MembarLevel, MinMax, Mul, Mul24, MulMode, Op, PolicyKind, Prefetch,
    PrefetchLevel, PrmtMode, Red, Redux, ReduxOp, Set, Setp, Shf, Shfl, ShflMode, ShiftMode, Slct,
    St, StateSpace, Szext, Testp, TestpClass, Type, Unary, Vote, VoteMode,
};
use crate::ir::{LoadMode, StoreMode};
use models::vocab::{LoadSem, Proxy, RmwSem, Scope, StoreSem};

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
    "clusterlaunchcontrol",
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
    "prefetch.tensormap",
    "cvt.rs",
    "ld.async",
    "elect.one",
];

fn arith(q: &mut Quals) -> Result<Arith, Error> {
    let rnd = q.float_rounding();
    let ftz = q.take("ftz");
    let sat = q.take("sat");
    let cc = q.take("cc");
    let relu = q.take("relu");
    let ty = q.ty()?;
    Ok(Arith {
        ty,
        rnd,
        ftz,
        sat,
        cc,
        relu,
    })
}

fn mul_mode(q: &mut Quals) -> Option<MulMode> {
    q.take_map(|s| {
        Some(match s {
            "lo" => MulMode::Lo,
            "hi" => MulMode::Hi,
            "wide" => MulMode::Wide,
            _ => return None,
        })
    })
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

fn shift_mode(q: &mut Quals) -> Result<ShiftMode, Error> {
    q.take_map(|s| match s {
        "clamp" => Some(ShiftMode::Clamp),
        "wrap" => Some(ShiftMode::Wrap),
        _ => None,
    })
    .ok_or_else(|| q.syntax(format!("`{}` needs .clamp or .wrap", q.opcode)))
}

fn float_fn(q: &mut Quals, approx_only: bool) -> Result<FloatFn, Error> {
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

fn atom_op(s: &str) -> Option<AtomOp> {
    Some(match s {
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "cas" => AtomOp::Cas,
        "exch" => AtomOp::Exch,
        "add" => AtomOp::Add,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        _ => return None,
    })
}

fn rmw_sem(q: &mut Quals) -> Option<RmwSem> {
    q.take_map(|s| {
        Some(match s {
            "relaxed" => RmwSem::Relaxed,
            "acquire" => RmwSem::Acquire,
            "release" => RmwSem::Release,
            "acq_rel" => RmwSem::AcqRel,
            _ => return None,
        })
    })
}

/// Reads the semantics of a load: `.weak`, `.volatile`, `.relaxed.S`, `.acquire.S`,
/// `.mmio.relaxed.sys`.
fn load_sem(q: &mut Quals) -> Result<Option<LoadSem>, Error> {
    if q.take("weak") {
        return Ok(Some(LoadSem::Weak));
    }
    if q.take("volatile") {
        return Ok(Some(LoadSem::Volatile));
    }
    if q.take("mmio") {
        if !q.take("relaxed") || q.scope() != Some(Scope::Sys) {
            return Err(q.syntax(".mmio must be written .mmio.relaxed.sys".into()));
        }
        return Ok(Some(LoadSem::Mmio));
    }
    if q.take("relaxed") {
        let s = q
            .scope()
            .ok_or_else(|| q.syntax(".relaxed needs a scope".into()))?;
        return Ok(Some(LoadSem::Relaxed(s)));
    }
    if q.take("acquire") {
        let s = q
            .scope()
            .ok_or_else(|| q.syntax(".acquire needs a scope".into()))?;
        return Ok(Some(LoadSem::Acquire(s)));
    }
    Ok(None)
}

fn store_sem(q: &mut Quals) -> Result<Option<StoreSem>, Error> {
    if q.take("weak") {
        return Ok(Some(StoreSem::Weak));
    }
    if q.take("volatile") {
        return Ok(Some(StoreSem::Volatile));
    }
    if q.take("mmio") {
        if !q.take("relaxed") || q.scope() != Some(Scope::Sys) {
            return Err(q.syntax(".mmio must be written .mmio.relaxed.sys".into()));
        }
        return Ok(Some(StoreSem::Mmio));
    }
    if q.take("relaxed") {
        let s = q
            .scope()
            .ok_or_else(|| q.syntax(".relaxed needs a scope".into()))?;
        return Ok(Some(StoreSem::Relaxed(s)));
    }
    if q.take("release") {
        let s = q
            .scope()
            .ok_or_else(|| q.syntax(".release needs a scope".into()))?;
        return Ok(Some(StoreSem::Release(s)));
    }
    Ok(None)
}

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
        "add" => Op::Add(arith(q)?),
        "sub" => Op::Sub(arith(q)?),
        "mul" | "mad" => {
            let mode = mul_mode(q);
            let a = arith(q)?;
            let m = Mul { mode, arith: a };
            if opcode == "mul" {
                Op::Mul(m)
            } else {
                Op::Mad(m)
            }
        }
        "fma" => Op::Fma(arith(q)?),
        "mul24" | "mad24" => {
            let hi = match mul_mode(q) {
                Some(MulMode::Hi) => true,
                Some(MulMode::Lo) => false,
                _ => return Err(q.syntax(format!("`{opcode}` needs .lo or .hi"))),
            };
            let sat = q.take("sat");
            let m = Mul24 {
                hi,
                sat,
                ty: q.ty()?,
            };
            if opcode == "mul24" {
                Op::Mul24(m)
            } else {
                Op::Mad24(m)
            }
        }
        "sad" => Op::Sad(q.ty()?),
        "div" => {
            let f = float_fn(q, false)?;
            Op::Div(Div {
                ty: f.ty,
                kind: f.kind,
                ftz: f.ftz,
            })
        }
        "rem" => Op::Rem(q.ty()?),
        "abs" | "neg" => {
            let ftz = q.take("ftz");
            let u = Unary { ty: q.ty()?, ftz };
            if opcode == "abs" {
                Op::Abs(u)
            } else {
                Op::Neg(u)
            }
        }
        "min" | "max" => {
            let ftz = q.take("ftz");
            let nan = q.take("NaN");
            let xorsign_abs = q.take("xorsign");
            if xorsign_abs && !q.take("abs") {
                return Err(q.syntax(".xorsign must be followed by .abs".into()));
            }
            let relu = q.take("relu");
            let packed = if q.take("u16x2") {
                Some(Type::U32)
            } else if q.take("s16x2") {
                Some(Type::S32)
            } else {
                None
            };
            let m = MinMax {
                ty: match packed {
                    Some(t) => t,
                    None => q.ty()?,
                },
                ftz,
                nan,
                xorsign_abs,
                relu,
                packed16: packed.is_some(),
            };
            if opcode == "min" {
                Op::Min(m)
            } else {
                Op::Max(m)
            }
        }
        "addc" | "subc" => {
            let c = Carry {
                cc: q.take("cc"),
                ty: q.ty()?,
            };
            if opcode == "addc" {
                Op::Addc(c)
            } else {
                Op::Subc(c)
            }
        }
        "madc" => {
            let hi = match mul_mode(q) {
                Some(MulMode::Hi) => true,
                Some(MulMode::Lo) | None => false,
                Some(MulMode::Wide) => return Err(q.syntax("madc has no .wide form".into())),
            };
            Op::Madc(Madc {
                hi,
                cc: q.take("cc"),
                ty: q.ty()?,
            })
        }
        "popc" => Op::Popc(q.ty()?),
        "clz" => Op::Clz(q.ty()?),
        "bfind" => {
            let shiftamt = q.take("shiftamt");
            Op::Bfind(Bfind {
                shiftamt,
                ty: q.ty()?,
            })
        }
        "fns" => {
            q.ty()?;
            Op::Fns
        }
        "brev" => Op::Brev(q.ty()?),
        "bfe" => Op::Bfe(q.ty()?),
        "bfi" => Op::Bfi(q.ty()?),
        "bmsk" => {
            let m = shift_mode(q)?;
            q.ty()?;
            Op::Bmsk(m)
        }
        "szext" => {
            let mode = shift_mode(q)?;
            Op::Szext(Szext { mode, ty: q.ty()? })
        }
        "dp4a" => {
            let (a_ty, b_ty) = q.two_types()?;
            Op::Dp4a(Dp { a_ty, b_ty })
        }
        "dp2a" => {
            let hi = match mul_mode(q) {
                Some(MulMode::Hi) => true,
                Some(MulMode::Lo) => false,
                _ => return Err(q.syntax("dp2a needs .lo or .hi".into())),
            };
            let (a_ty, b_ty) = q.two_types()?;
            Op::Dp2a(Dp2a { hi, a_ty, b_ty })
        }
        "and" => Op::And(q.ty()?),
        "or" => Op::Or(q.ty()?),
        "xor" => Op::Xor(q.ty()?),
        "not" => Op::Not(q.ty()?),
        "cnot" => Op::Cnot(q.ty()?),
        "lop3" => {
            q.ty()?;
            Op::Lop3
        }
        "shf" => {
            let left = if q.take("l") {
                true
            } else if q.take("r") {
                false
            } else {
                return Err(q.syntax("shf needs .l or .r".into()));
            };
            let mode = shift_mode(q)?;
            q.ty()?;
            Op::Shf(Shf { left, mode })
        }
        "shl" => Op::Shl(q.ty()?),
        "shr" => Op::Shr(q.ty()?),
        "prmt" => {
            q.ty()?;
            Op::Prmt(q.take_map(|s| {
                Some(match s {
                    "f4e" => PrmtMode::F4e,
                    "b4e" => PrmtMode::B4e,
                    "rc8" => PrmtMode::Rc8,
                    "ecl" => PrmtMode::Ecl,
                    "ecr" => PrmtMode::Ecr,
                    "rc16" => PrmtMode::Rc16,
                    _ => return None,
                })
            }))
        }
        "rcp" => Op::Rcp(float_fn(q, false)?),
        "sqrt" => Op::Sqrt(float_fn(q, false)?),
        "rsqrt" => Op::Rsqrt(float_fn(q, true)?),
        "sin" => Op::Sin(float_fn(q, true)?),
        "cos" => Op::Cos(float_fn(q, true)?),
        "lg2" => Op::Lg2(float_fn(q, true)?),
        "ex2" => Op::Ex2(float_fn(q, true)?),
        "tanh" => Op::Tanh(float_fn(q, true)?),
        "testp" => {
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
            Op::Testp(Testp { class, ty: q.ty()? })
        }
        "copysign" => Op::Copysign(q.ty()?),
        "setp" => {
            let cmp = q
                .take_map(cmp_of)
                .ok_or_else(|| q.syntax("setp needs a comparison".into()))?;
            let bool_op = q.take_map(bool_of);
            let ftz = q.take("ftz");
            Op::Setp(Setp {
                cmp,
                bool_op,
                ftz,
                ty: q.ty()?,
            })
        }
        "set" => {
            let cmp = q
                .take_map(cmp_of)
                .ok_or_else(|| q.syntax("set needs a comparison".into()))?;
            let bool_op = q.take_map(bool_of);
            let ftz = q.take("ftz");
            let (dst, src) = q.two_types()?;
            Op::Set(Set {
                cmp,
                bool_op,
                ftz,
                dst,
                src,
            })
        }
        "selp" => Op::Selp(q.ty()?),
        "slct" => {
            let ftz = q.take("ftz");
            let (dst, sel) = q.two_types()?;
            Op::Slct(Slct { ftz, dst, sel })
        }
        "mov" => Op::Mov(q.ty()?),
        "ld" => {
            let sem = load_sem(q)?;
            let space = q.space();
            let nc = q.take("nc");
            let cop = q.cache_op();
            let mode = LoadMode::new(sem, nc, cop).map_err(|m| q.syntax(m))?;
            let hints = q.hints();
            let vec = q.vec();
            Op::Ld(Ld {
                mode,
                space,
                hints,
                vec,
                ty: q.ty()?,
            })
        }
        "ldu" => {
            let space = q.space();
            let vec = q.vec();
            Op::Ldu(Ldu {
                space,
                vec,
                ty: q.ty()?,
            })
        }
        "st" => {
            let sem = store_sem(q)?;
            let space = q.space();
            let cop = q.cache_op();
            let mode = StoreMode::new(sem, cop).map_err(|m| q.syntax(m))?;
            let hints = q.hints();
            let vec = q.vec();
            Op::St(St {
                mode,
                space,
                hints,
                vec,
                ty: q.ty()?,
            })
        }
        "prefetch" | "prefetchu" => {
            let space = q.space();
            let level = q
                .take_map(|s| {
                    Some(match s {
                        "L1" => PrefetchLevel::L1,
                        "L2" => PrefetchLevel::L2,
                        "L2::evict_last" => PrefetchLevel::L2EvictLast,
                        "L2::evict_normal" => PrefetchLevel::L2EvictNormal,
                        "tensormap" => PrefetchLevel::Tensormap,
                        _ => return None,
                    })
                })
                .ok_or_else(|| q.syntax("prefetch needs a level (.L1, .L2, …)".into()))?;
            Op::Prefetch(Prefetch {
                uniform: opcode == "prefetchu",
                space,
                level,
            })
        }
        "applypriority" => {
            q.take("global");
            q.take("L2::evict_normal");
            Op::ApplyPriority
        }
        "discard" => {
            q.take("global");
            q.take("L2");
            Op::Discard
        }
        "createpolicy" => {
            let kind = if q.take("fractional") {
                PolicyKind::Fractional
            } else if q.take("range") {
                PolicyKind::Range
            } else if q.take("cvt") {
                q.take("L2");
                PolicyKind::Cvt
            } else {
                return Err(q.syntax("createpolicy needs .fractional, .range or .cvt".into()));
            };
            let evicts = q.take_all(super::quals::l2_evict_of);
            let unchanged = q.take("L2::evict_unchanged");
            q.ty()?;
            let primary = evicts
                .first()
                .copied()
                .unwrap_or(crate::ir::L2Evict::Normal);
            let secondary = evicts.get(1).copied().or(if unchanged {
                Some(crate::ir::L2Evict::Normal)
            } else {
                None
            });
            Op::CreatePolicy(CreatePolicy {
                kind,
                primary,
                secondary,
            })
        }
        "isspacep" => {
            let s = q.space();
            if s.space == StateSpace::Generic {
                return Err(q.syntax("isspacep needs a state space".into()));
            }
            Op::Isspacep(s.space)
        }
        "cvta" => {
            let to = q.take("to");
            let space = q.space();
            if space.space == StateSpace::Generic {
                return Err(q.syntax("cvta needs a state space".into()));
            }
            Op::Cvta(Cvta {
                to,
                space,
                ty: q.ty()?,
            })
        }
        "cvt" => {
            if q.take("pack") {
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
            }
        }
        "shfl" => {
            let sync = q.take("sync");
            let mode = q
                .take_map(|s| {
                    Some(match s {
                        "up" => ShflMode::Up,
                        "down" => ShflMode::Down,
                        "bfly" => ShflMode::Bfly,
                        "idx" => ShflMode::Idx,
                        _ => return None,
                    })
                })
                .ok_or_else(|| q.syntax("shfl needs .up, .down, .bfly or .idx".into()))?;
            q.take("b32");
            Op::Shfl(Shfl { sync, mode })
        }
        "vote" => {
            let sync = q.take("sync");
            let mode = q
                .take_map(|s| {
                    Some(match s {
                        "all" => VoteMode::All,
                        "any" => VoteMode::Any,
                        "uni" => VoteMode::Uni,
                        "ballot" => VoteMode::Ballot,
                        _ => return None,
                    })
                })
                .ok_or_else(|| q.syntax("vote needs .all, .any, .uni or .ballot".into()))?;
            q.take("pred");
            q.take("b32");
            Op::Vote(Vote { sync, mode })
        }
        "match" => {
            let all = if q.take("all") {
                true
            } else if q.take("any") {
                false
            } else {
                return Err(q.syntax("match needs .any or .all".into()));
            };
            q.take("sync");
            Op::Match(Match { all, ty: q.ty()? })
        }
        "redux" => {
            if !q.take("sync") {
                return Err(q.syntax("redux needs .sync".into()));
            }
            let op = q
                .take_map(|s| {
                    Some(match s {
                        "add" => ReduxOp::Add,
                        "min" => ReduxOp::Min,
                        "max" => ReduxOp::Max,
                        "and" => ReduxOp::And,
                        "or" => ReduxOp::Or,
                        "xor" => ReduxOp::Xor,
                        _ => return None,
                    })
                })
                .ok_or_else(|| q.syntax("redux needs an operation".into()))?;
            let abs = q.take("abs");
            let nan = q.take("NaN");
            Op::Redux(Redux {
                op,
                ty: q.ty()?,
                abs,
                nan,
            })
        }
        "activemask" => {
            q.take("b32");
            Op::Activemask
        }
        "elect" => {
            if !q.take("sync") {
                return Err(q.syntax("elect needs .sync".into()));
            }
            Op::Elect
        }
        "barrier" if q.take("cluster") => super::cluster::parse(opcode, q)?,
        "bar" | "barrier" => {
            if opcode == "bar" && q.take("warp") {
                if !q.take("sync") {
                    return Err(q.syntax("bar.warp needs .sync".into()));
                }
                return finish(q, Op::BarWarpSync);
            }
            let cta = q.take("cta");
            let kind = if q.take("sync") {
                BarKind::Sync
            } else if q.take("arrive") {
                BarKind::Arrive
            } else if q.take("red") {
                let r = if q.take("popc") {
                    q.take("u32");
                    BarRedOp::Popc
                } else if q.take("and") {
                    q.take("pred");
                    BarRedOp::And
                } else if q.take("or") {
                    q.take("pred");
                    BarRedOp::Or
                } else {
                    return Err(q.syntax("bar.red needs .popc.u32, .and.pred or .or.pred".into()));
                };
                BarKind::Red(r)
            } else {
                BarKind::Sync
            };
            let aligned = q.take("aligned");
            Op::Bar(Bar {
                barrier: opcode == "barrier",
                cta,
                kind,
                aligned,
            })
        }
        "membar" => {
            let level = q
                .take_map(|s| {
                    Some(match s {
                        "cta" => MembarLevel::Cta,
                        "gl" => MembarLevel::Gl,
                        "sys" => MembarLevel::Sys,
                        _ => return None,
                    })
                })
                .ok_or_else(|| q.syntax("membar needs .cta, .gl or .sys".into()))?;
            Op::Membar(level)
        }
        "fence" => {
            if q.take("mbarrier_init") {
                super::cluster::fence_mbarrier_init(q)?
            } else if q.take("proxy") {
                if q.take("alias") {
                    Op::Fence(Fence::ProxyAlias)
                } else if q.take("async") {
                    let s = q.space();
                    Op::Fence(Fence::ProxyAsync(
                        (s.space != StateSpace::Generic).then_some(s.space),
                    ))
                } else if q.take("tensormap::generic") {
                    let release = if q.take("release") {
                        true
                    } else if q.take("acquire") {
                        false
                    } else {
                        return Err(q.syntax(
                            "fence.proxy.tensormap::generic needs .release or .acquire".into(),
                        ));
                    };
                    let scope = q
                        .scope()
                        .ok_or_else(|| q.syntax("fence.proxy.tensormap needs a scope".into()))?;
                    Op::Fence(Fence::ProxyTensormap { release, scope })
                } else {
                    let p = q
                        .take_map(|s| {
                            Some(match s {
                                "generic" => Proxy::Generic,
                                "texture" => Proxy::Texture,
                                "surface" => Proxy::Surface,
                                "constant" => Proxy::Constant,
                                _ => return None,
                            })
                        })
                        .ok_or_else(|| q.syntax("unknown fence.proxy kind".into()))?;
                    Op::Fence(Fence::ProxyKind(p))
                }
            } else {
                let sem = q.take_map(|s| {
                    Some(match s {
                        "sc" => FenceSem::Sc,
                        "acq_rel" => FenceSem::AcqRel,
                        "acquire" => FenceSem::Acquire,
                        "release" => FenceSem::Release,
                        _ => return None,
                    })
                });
                let scope = q
                    .scope()
                    .ok_or_else(|| q.syntax("fence needs a scope".into()))?;
                Op::Fence(Fence::Memory { sem, scope })
            }
        }
        "atom" | "red" => {
            let sem = rmw_sem(q);
            let scope = q.scope();
            let space = q.space();
            let op = q.take_map(atom_op).ok_or_else(|| {
                q.syntax(format!("`{opcode}` needs an operation (.add, .cas, …)"))
            })?;
            let noftz = q.take("noftz");
            let cache_hint = q.take("L2::cache_hint");
            let vec = q.vec();
            let ty = q.ty()?;
            if opcode == "atom" {
                Op::Atom(Atom {
                    sem,
                    scope,
                    space,
                    op,
                    vec,
                    ty,
                    noftz,
                    cache_hint,
                })
            } else {
                Op::Red(Red {
                    sem,
                    scope,
                    space,
                    op,
                    vec,
                    ty,
                    noftz,
                    cache_hint,
                })
            }
        }
        "nanosleep" => {
            q.take("u32");
            Op::Nanosleep
        }
        "griddepcontrol" => {
            let a = if q.take("launch_dependents") {
                GriddepAction::LaunchDependents
            } else if q.take("wait") {
                GriddepAction::Wait
            } else {
                return Err(q.syntax("griddepcontrol needs .launch_dependents or .wait".into()));
            };
            Op::Griddepcontrol(a)
        }
        "setmaxnreg" => {
            let inc = if q.take("inc") {
                true
            } else if q.take("dec") {
                false
            } else {
                return Err(q.syntax("setmaxnreg needs .inc or .dec".into()));
            };
            let sync = q.take("sync");
            let aligned = q.take("aligned");
            Op::Setmaxnreg(crate::ir::Setmaxnreg {
                inc,
                sync_aligned: sync && aligned,
                ty: q.ty()?,
            })
        }
        "pmevent" => Op::Pmevent {
            mask: q.take("mask"),
        },
        "bra" => Op::Bra { uni: q.take("uni") },
        "call" => super::module::call_op(q.take("uni")),
        "brx" => {
            if !q.take("idx") {
                return Err(q.syntax("brx needs .idx".into()));
            }
            Op::BrxIdx { uni: q.take("uni") }
        }
        "ret" => Op::Ret { uni: q.take("uni") },
        "exit" => Op::Exit,
        "trap" => Op::Trap,
        "brkpt" => Op::Brkpt,
        "tcgen05" => super::tcgen05::parse(q)?,
        "cp" => super::async_copy::parse_cp(q)?,
        "tensormap" => super::tma::parse_tensormap(q)?,
        "mapa" | "getctarank" => super::cluster::parse(opcode, q)?,
        "mbarrier" => super::async_copy::parse_mbarrier(q)?,
        "wgmma" => super::wgmma::parse(q)?,
        "mma" | "ldmatrix" | "stmatrix" | "movmatrix" | "wmma" => super::mma::parse(opcode, q)?,
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
