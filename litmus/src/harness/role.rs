//! One role (litmus thread) of a harness as a block of inline PTX: the thread's instructions
//! exactly as the test writes them (dialect instructions as the real PTX they stand for), with
//! its registers and locations declared as PTX registers of a nested scope.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use models::vocab::Proxy;

use super::HarnessError;
use crate::ast::{loop_heads, Inst, Mo, Test, Val};
use crate::lower::{is_register_name, ptx_of};

/// The PTX register type of a test register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegKind {
    /// `.pred` (branch conditions of the dialect).
    Pred,
    /// `.b32`.
    B32,
    /// `.b64`.
    B64,
}

impl RegKind {
    fn decl(self) -> &'static str {
        match self {
            RegKind::Pred => ".pred",
            RegKind::B32 => ".b32",
            RegKind::B64 => ".b64",
        }
    }
}

/// A role's code ready to paste into a CUDA kernel.
#[derive(Clone, Debug)]
pub(crate) struct RoleAsm {
    /// The `asm volatile(...)` statement, one C string literal per PTX line.
    pub statement: String,
    /// How many 64-bit outputs it writes (the observed registers, in order).
    pub outputs: usize,
}

/// Width in bits of the type suffix of a mnemonic (`ld.relaxed.gpu.global.u32` → 32).
fn type_bits(mnemonic: &str) -> Option<u32> {
    mnemonic.rsplit('.').find_map(|part| {
        let mut c = part.chars();
        match c.next() {
            Some('b' | 's' | 'u' | 'f') => c.as_str().parse::<u32>().ok(),
            _ => None,
        }
    })
}

/// Identifier-like tokens of an instruction's text (`%r1`, `r0`, `x`, …).
fn tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '%' || c == '$'))
        .filter(|t| !t.is_empty())
        .collect()
}

/// Registers used by `text` with the kind each must have.
fn registers_of(text: &str) -> Vec<(String, RegKind)> {
    let mut out = Vec::new();
    let (guard, body) = match text.trim_start().strip_prefix('@') {
        Some(rest) => {
            let (g, b) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            (Some(g.trim_start_matches('!')), b)
        }
        None => (None, text),
    };
    if let Some(g) = guard {
        out.push((g.to_string(), RegKind::Pred));
    }
    let body = body.trim();
    let (mnemonic, operands) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let width = match type_bits(mnemonic) {
        Some(b) if b > 32 => RegKind::B64,
        Some(_) => RegKind::B32,
        None => RegKind::B64,
    };
    let setp = mnemonic.starts_with("setp");
    for (k, tok) in tokens(operands).into_iter().enumerate() {
        if is_register_name(tok) {
            let kind = if setp && k == 0 { RegKind::Pred } else { width };
            out.push((tok.to_string(), kind));
        }
    }
    out
}

/// Why the harness cannot run instruction `inst` of a thread on hardware, if it cannot.
fn unsupported(inst: &Inst) -> Option<String> {
    let proxy_name = |p: Proxy| p.name().to_string();
    match inst {
        Inst::Load { proxy, .. } | Inst::Store { proxy, .. } | Inst::Rmw { proxy, .. }
            if *proxy != Proxy::Generic =>
        {
            Some(format!(
                "accesses through the {} proxy need texture/surface/constant objects, which the harness does not create",
                proxy_name(*proxy)
            ))
        }
        Inst::ProxyFence(p) => Some(format!(
            "fence.proxy.{} has no PTX instruction of that name",
            proxy_name(*p)
        )),
        Inst::Rmw {
            reg: None,
            mo: Mo::Acquire | Mo::AcqRel,
            ..
        } => Some("PTX `red` has no acquire semantics (.acquire/.acq_rel)".into()),
        Inst::Barrier { arrive: true, .. } => Some(
            "PTX `bar.arrive` needs a thread count, which the litmus barrier does not give".into(),
        ),
        Inst::Barrier { id: Some(_), .. } => Some(
            "the litmus barrier's second operand (a logical id) is a thread count in PTX".into(),
        ),
        Inst::Barrier { quorum: Some(_), .. } => Some(
            "a barrier quorum counts litmus threads, but hardware counts CTA threads (each role runs in a whole warp)".into(),
        ),
        Inst::Barrier {
            instance, id, ..
        } if !matches!(instance, Val::Const(_)) || matches!(id, Some(Val::Reg(_))) => {
            Some("a barrier named by a register".into())
        }
        Inst::Ptx(t) => {
            let m = t.split_whitespace().next().unwrap_or("");
            [".shared", ".local", ".const", ".param", ".tex", ".surf"]
                .iter()
                .find(|s| m.contains(**s))
                .map(|s| format!("`{m}` uses state space {s}; the harness provides global memory only"))
        }
        _ => None,
    }
}

/// Builds the inline-PTX statement of thread `t`. `locations` are the test's location names,
/// bound in order to the asm inputs; `observed` are the registers whose final values the
/// statement writes to its outputs, in order.
pub(crate) fn role_asm(
    test: &Test,
    t: usize,
    locations: &[String],
    observed: &[String],
) -> Result<RoleAsm, HarnessError> {
    let code = &test.code[t];
    let refuse = |line: u32, why: String| refusal(t, line, why);
    let (lines, mut regs) = code_lines(code, t)?;
    // Registers initialised or observed but never written by the code.
    for (th, r, _) in &test.reg_init {
        if *th as usize == t {
            regs.entry(spelling(&regs, r)).or_insert(RegKind::B64);
        }
    }
    for r in observed {
        regs.entry(spelling(&regs, r)).or_insert(RegKind::B64);
    }
    let bare: Vec<&str> = regs.keys().map(|r| r.trim_start_matches('%')).collect();
    if let Some(w) = bare.windows(2).find(|w| w[0] == w[1]) {
        return Err(refuse(
            code.first().map_or(0, |c| c.1),
            format!("register {} is written both with and without `%`; PTX would treat them as two registers", w[0]),
        ));
    }
    if let Some(l) = locations.iter().find(|l| regs.contains_key(*l)) {
        return Err(refuse(
            0,
            format!("`{l}` names both a location and a register"),
        ));
    }

    let nout = observed.len();
    let mut ptx: Vec<String> = vec!["{".into()];
    for l in locations {
        ptx.push(format!(".reg .b64 {l};"));
    }
    for (r, k) in &regs {
        ptx.push(format!(".reg {} {r};", k.decl()));
    }
    ptx.push(".reg .b32 %__budget;".into());
    ptx.push(".reg .pred %__spent;".into());
    for (k, l) in locations.iter().enumerate() {
        ptx.push(format!("mov.b64 {l}, %{};", nout + 1 + k));
    }
    ptx.push(format!(
        "mov.b32 %__budget, %{};",
        nout + 1 + locations.len()
    ));
    for (r, k) in &regs {
        let init = test
            .reg_init
            .iter()
            .find(|(th, name, _)| {
                *th as usize == t && name.trim_start_matches('%') == r.trim_start_matches('%')
            })
            .map_or(0, |x| x.2);
        match k {
            RegKind::Pred => {}
            RegKind::B32 => ptx.push(format!("mov.b32 {r}, {init};")),
            RegKind::B64 => ptx.push(format!("mov.b64 {r}, {init};")),
        }
    }
    let first_code = ptx.len();
    ptx.extend(lines.iter().map(|(s, _)| s.clone()));
    ptx.push(format!("mov.b32 %{nout}, 0;"));
    ptx.push("bra __ptxemu_done;".into());
    ptx.push("__ptxemu_abandon:".into());
    ptx.push(format!("mov.b32 %{nout}, 1;"));
    ptx.push("__ptxemu_done:".into());
    for (k, r) in observed.iter().enumerate() {
        let r = spelling(&regs, r);
        match regs[&r] {
            RegKind::B32 => ptx.push(format!("cvt.u64.u32 %{k}, {r};")),
            _ => ptx.push(format!("mov.b64 %{k}, {r};")),
        }
    }
    ptx.push("}".into());

    let s = asm_statement(&ptx, &lines, first_code, nout, locations.len());
    Ok(RoleAsm {
        statement: s,
        outputs: nout,
    })
}

/// Refuses thread `t`'s test at `line`.
fn refusal(t: usize, line: u32, why: String) -> HarnessError {
    HarnessError::Unsupported {
        thread: t as u32,
        line,
        why,
    }
}

/// PTX lines, each with the litmus line it comes from (none for the loop-budget lines).
type Lines = Vec<(String, Option<u32>)>;

/// Thread `t`'s code as PTX lines, a budget check after each loop head, and the registers the
/// code uses with their kinds.
fn code_lines(
    code: &[(Inst, u32)],
    t: usize,
) -> Result<(Lines, BTreeMap<String, RegKind>), HarnessError> {
    let mut lines: Lines = Vec::new();
    let loop_heads = loop_heads(code);
    let mut tmp = 0usize;
    let mut regs: BTreeMap<String, RegKind> = BTreeMap::new();
    let refuse = |line: u32, why: String| refusal(t, line, why);
    for (inst, line) in code {
        if let Some(why) = unsupported(inst) {
            return Err(refuse(*line, why));
        }
        if let Inst::Label(l) = inst {
            lines.push((format!("{l}:"), Some(*line)));
            if loop_heads.contains(&l.as_str()) {
                // The loop's budget: an instance whose loop runs too long is abandoned.
                for extra in [
                    "sub.u32 %__budget, %__budget, 1;",
                    "setp.eq.u32 %__spent, %__budget, 0;",
                    "@%__spent bra __ptxemu_abandon;",
                ] {
                    lines.push((extra.to_string(), None));
                }
            }
            continue;
        }
        let (texts, _) = ptx_of(inst, &mut tmp);
        for text in texts {
            for (r, kind) in registers_of(&text) {
                let prev = *regs.entry(r.clone()).or_insert(kind);
                if prev != kind {
                    return Err(refuse(
                        *line,
                        format!(
                            "register {r} is used both as {} and as {}",
                            prev.decl(),
                            kind.decl()
                        ),
                    ));
                }
            }
            lines.push((format!("{text};"), Some(*line)));
        }
    }
    Ok((lines, regs))
}

/// The `asm volatile` statement of `ptx` (the code's lines from `first_code` on, commented
/// with their litmus lines), with `nout` observed outputs and the abandoned flag as outputs,
/// and the `nlocations` addresses and the spin budget as inputs.
fn asm_statement(
    ptx: &[String],
    lines: &Lines,
    first_code: usize,
    nout: usize,
    nlocations: usize,
) -> String {
    let mut s = String::from("asm volatile(\n");
    for (k, p) in ptx.iter().enumerate() {
        let escaped = escape_percent(p);
        let comment = k
            .checked_sub(first_code)
            .and_then(|i| lines.get(i))
            .and_then(|(_, l)| *l)
            .map(|l| format!(" // line {l}"))
            .unwrap_or_default();
        let _ = writeln!(s, "        \"{escaped}\\n\\t\"{comment}");
    }
    let mut outs: Vec<String> = (0..nout).map(|k| format!("\"=l\"(out[{k}])")).collect();
    outs.push("\"=r\"(abandoned)".into());
    let mut ins: Vec<String> = (0..nlocations)
        .map(|k| format!("\"l\"(addr[{k}])"))
        .collect();
    ins.push("\"r\"(p.spin)".into());
    let _ = write!(
        s,
        "        : {}\n        : {}\n        : \"memory\");",
        outs.join(", "),
        ins.join(", ")
    );
    s
}

/// The spelling of register `r` (with or without `%`) that the thread's code uses.
fn spelling(regs: &BTreeMap<String, RegKind>, r: &str) -> String {
    let bare = r.trim_start_matches('%');
    let with = format!("%{bare}");
    if regs.contains_key(&with) {
        with
    } else {
        bare.to_string()
    }
}

/// Doubles every `%` that is not an asm operand reference (`%0`, `%12`), as GCC-style inline
/// assembly requires for literal percent signs.
fn escape_percent(p: &str) -> String {
    let mut out = String::new();
    let b: Vec<char> = p.chars().collect();
    for (k, &c) in b.iter().enumerate() {
        if c == '%' && !b.get(k + 1).is_some_and(char::is_ascii_digit) {
            out.push_str("%%");
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_kinds_follow_the_instruction_type() {
        assert_eq!(
            registers_of("ld.global.u32 %r1, [x]"),
            vec![("%r1".to_string(), RegKind::B32)]
        );
        assert_eq!(
            registers_of("@%__p1 bra LC01"),
            vec![("%__p1".to_string(), RegKind::Pred)]
        );
        assert_eq!(
            registers_of("setp.ne.s64 %__p1, r0, 1"),
            vec![
                ("%__p1".to_string(), RegKind::Pred),
                ("r0".to_string(), RegKind::B64)
            ]
        );
    }

    #[test]
    fn percent_signs_are_escaped_except_operands() {
        assert_eq!(escape_percent("mov.b64 %r1, %3;"), "mov.b64 %%r1, %3;");
        assert_eq!(
            escape_percent("cvt.u64.u32 %0, %r0;"),
            "cvt.u64.u32 %0, %%r0;"
        );
    }
}
