//! Litmus tests written from generated threads of accesses: the classic shapes and the
//! random tests of `explore_same_answers`.

/// One access or fence of a generated test.
#[derive(Clone, Debug)]
pub enum Ins {
    /// Store a constant.
    St(&'static str, i64),
    /// Store the thread's last loaded register (a data dependency).
    StReg(&'static str),
    /// Load into the thread's next register.
    Ld(&'static str),
    /// `atom.add` of 1, into the next register.
    Add(&'static str),
    /// `atom.exch` of a constant, into the next register.
    Exch(&'static str, i64),
    /// A fence (`sc` or `acq_rel`).
    Fence(&'static str),
    /// Spin until a load of the location reads the value (an await loop), into the next
    /// register.
    Await(&'static str, i64),
}

/// How the accesses of a generated test are qualified.
#[derive(Clone, Copy, Debug)]
pub enum Sem {
    Weak,
    Relaxed,
    RelAcq,
}

/// Writes a litmus test: `threads[t]` are thread t's instructions with a semantics and scope
/// each, placed at (cta, gpu) `places[t]`; the condition mentions every register and location,
/// so the states show every value.
pub fn text(name: &str, threads: &[Vec<(Ins, Sem, &str)>], places: &[(u32, u32)]) -> String {
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut terms = vec!["x == 1".to_string(), "y == 1".to_string()];
    for (t, code) in threads.iter().enumerate() {
        let mut regs = 0;
        let mut col = Vec::new();
        for (ins, sem, scope) in code {
            let q = |w: bool| match sem {
                Sem::Weak => ".weak".to_string(),
                Sem::Relaxed => format!(".relaxed.{scope}"),
                Sem::RelAcq if w => format!(".release.{scope}"),
                Sem::RelAcq => format!(".acquire.{scope}"),
            };
            let row = match ins {
                Ins::St(l, v) => format!("st{} {l}, {v}", q(true)),
                Ins::StReg(l) if regs > 0 => format!("st{} {l}, r{}", q(true), regs - 1),
                Ins::StReg(l) => format!("st{} {l}, 2", q(true)),
                Ins::Exch(l, v) => {
                    regs += 1;
                    terms.push(format!("P{t}:r{} == 1", regs - 1));
                    let s = match sem {
                        Sem::Weak | Sem::Relaxed => "relaxed",
                        Sem::RelAcq => "acq_rel",
                    };
                    format!("atom.{s}.{scope}.exch r{}, {l}, {v}", regs - 1)
                }
                Ins::Ld(l) | Ins::Add(l) => {
                    regs += 1;
                    terms.push(format!("P{t}:r{} == 1", regs - 1));
                    if matches!(ins, Ins::Ld(_)) {
                        format!("ld{} r{}, {l}", q(false), regs - 1)
                    } else {
                        let s = match sem {
                            Sem::Weak | Sem::Relaxed => "relaxed",
                            Sem::RelAcq => "acq_rel",
                        };
                        format!("atom.{s}.{scope}.add r{}, {l}, 1", regs - 1)
                    }
                }
                Ins::Fence(k) => format!("fence.{k}.{scope}"),
                Ins::Await(l, v) => {
                    regs += 1;
                    let (top, out) = (
                        format!("LC{t}{}", 2 * regs),
                        format!("LC{t}{}", 2 * regs + 1),
                    );
                    col.push(format!("{top}:"));
                    col.push(format!("ld{} r{}, {l}", q(false), regs - 1));
                    col.push(format!("beq r{}, {v}, {out}", regs - 1));
                    col.push(format!("goto {top}"));
                    format!("{out}:")
                }
            };
            col.push(row);
        }
        cols.push(col);
    }
    let head: Vec<String> = places
        .iter()
        .enumerate()
        .map(|(t, (cta, gpu))| format!("P{t}@cta {cta},gpu {gpu}"))
        .collect();
    super::layout(
        name,
        "generated",
        "x=0; y=0;",
        &head,
        &cols,
        &terms.join(" /\\ "),
    )
}
