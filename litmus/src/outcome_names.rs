//! Checking that an outcome names only what a test has.

/// Refuses an outcome naming a thread, register or location the test does not have (an
/// explanation of a misspelt name would be a verdict about nothing).
pub fn check_outcome(test: &crate::ast::Test, outcome: &crate::ast::Expr) -> Result<(), String> {
    use crate::ast::Term;
    let prep = crate::run::prepare(test).map_err(|e| e.to_string())?;
    for t in outcome.terms() {
        match &t {
            Term::Reg(th, r) => {
                let Some(thread) = prep.threads.get(*th as usize) else {
                    return Err(format!(
                        "P{th}:{r} names thread P{th}, but the test has {} thread(s)",
                        prep.threads.len()
                    ));
                };
                if thread.regs.get(r).is_none() {
                    return Err(format!(
                        "P{th}:{r}: thread P{th} has no register `{r}` (its registers: {})",
                        name_list(&thread.regs.names)
                    ));
                }
            }
            Term::Loc(l) => {
                if !prep.locs.names.contains(l) {
                    return Err(format!(
                        "the test has no location `{l}` (locations: {})",
                        name_list(&prep.locs.names)
                    ));
                }
            }
            Term::Const(_) => {}
        }
    }
    Ok(())
}

fn name_list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
