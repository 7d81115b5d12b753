//! Limits on a module's data that ptxas enforces: the `.const` variables of a module share one
//! 64 KiB constant bank ("File uses too much global constant data").

use super::Diagnostic;
use crate::exec::memory::CONST_BANK_SIZE;
use crate::ir::{Module, StateSpace};

/// Reports the first module-scope `.const` variable that does not fit the constant bank.
pub fn check_module(m: &Module, out: &mut Vec<Diagnostic>) {
    let mut used = 0u64;
    for v in m.globals.iter().filter(|v| v.space == StateSpace::Const) {
        let align = u64::from(v.alignment()).max(1);
        used = used.div_ceil(align).saturating_mul(align);
        used = used.saturating_add(v.allocated_bytes());
        if used > CONST_BANK_SIZE {
            out.push(Diagnostic {
                rule: "const-bank-full",
                message: format!(
                    "with `{}` the module's .const variables take {used} bytes; a constant bank holds {CONST_BANK_SIZE}",
                    v.name
                ),
                span: v.span,
            });
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diags(decls: &str) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        check_module(&crate::validate::module_declaring(decls), &mut out);
        out
    }

    #[test]
    fn the_constant_bank_holds_64_kib_as_ptxas_counts_it() {
        // ptxas 13.5 accepts exactly 0x10000 bytes and refuses .const .u32 c[20000] (0x13880).
        assert!(diags(".const .u32 c[16384];").is_empty());
        assert!(diags(".const .u32 a[16000];\n.const .u32 b[384];").is_empty());
        let d = diags(".const .u32 a[16000];\n.const .u8 pad;\n.const .u32 b[384];");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].rule, "const-bank-full");
        assert!(
            d[0].message.contains("with `b`") && d[0].message.contains("65540"),
            "{}",
            d[0].message
        );
        assert_eq!(diags(".const .u32 c[20000];").len(), 1);
        assert!(
            diags(".global .u32 g[20000];").is_empty(),
            "only .const counts"
        );
    }
}
