//! Final conditions (litmus-format spec §1.7): comparisons of registers, final memory values
//! and constants, combined with `/\`, `\/`, `~` and parentheses (`/\` binds tighter than
//! `\/`), and their evaluation on an outcome.

use crate::ast::{CmpOp, Expr, Term};
use crate::parse::{err, RawError};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    LParen,
    RParen,
    And,
    Or,
    Not,
    True,
    False,
    Cmp(CmpOp),
    Atom(String),
}

fn tokens(s: &str, base: usize) -> Result<Vec<(Tok, usize)>, RawError> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        let at = base + i;
        let two = s.get(i..i + 2).unwrap_or("");
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let (t, len) = match two {
            "/\\" => (Tok::And, 2),
            "\\/" => (Tok::Or, 2),
            "==" => (Tok::Cmp(CmpOp::Eq), 2),
            "!=" => (Tok::Cmp(CmpOp::Ne), 2),
            "<=" => (Tok::Cmp(CmpOp::Le), 2),
            ">=" => (Tok::Cmp(CmpOp::Ge), 2),
            _ => match c {
                '(' => (Tok::LParen, 1),
                ')' => (Tok::RParen, 1),
                '~' => (Tok::Not, 1),
                '=' => (Tok::Cmp(CmpOp::Eq), 1),
                '<' => (Tok::Cmp(CmpOp::Lt), 1),
                '>' => (Tok::Cmp(CmpOp::Gt), 1),
                _ if c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '-' || c == '&' => {
                    let mut j = i + 1;
                    while j < b.len() {
                        let d = b[j] as char;
                        if d.is_ascii_alphanumeric() || d == '_' {
                            j += 1;
                        } else if d == ':' {
                            // `P3: r0` is written with a space now and then.
                            j += 1;
                            while j < b.len() && (b[j] as char).is_whitespace() {
                                j += 1;
                            }
                        } else {
                            break;
                        }
                    }
                    let w: String = s[i..j].split_whitespace().collect();
                    let w = w.as_str();
                    let t = match w {
                        "not" => Tok::Not,
                        "true" => Tok::True,
                        "false" => Tok::False,
                        _ => Tok::Atom(w.to_string()),
                    };
                    (t, j - i)
                }
                _ => {
                    // The whole character, not its first byte (`é`, not `Ã`), escaped if a
                    // control character.
                    let c = s[i..].chars().next().unwrap_or('?');
                    return Err(err(
                        at,
                        format!(
                            "unexpected `{}` in the condition",
                            emu::front::error::printable(&c.to_string())
                        ),
                    ));
                }
            },
        };
        out.push((t, at));
        i += len;
    }
    Ok(out)
}

/// Reads a term: `P1:r0`, `1:r0`, a location name, or an integer constant.
pub(crate) fn term(s: &str, pos: usize) -> Result<Term, RawError> {
    let s = s.trim();
    if let Some((th, reg)) = s.split_once(':') {
        let th = th.trim_start_matches('P');
        let t: u32 = th
            .parse()
            .map_err(|_| err(pos, format!("`{s}`: expected Pn:register")))?;
        if reg.is_empty() {
            return Err(err(pos, format!("`{s}`: missing register name")));
        }
        return Ok(Term::Reg(t, reg.to_string()));
    }
    if let Some(v) = crate::parse::parse_int(s) {
        return Ok(Term::Const(v));
    }
    let name = s.trim_start_matches('&');
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(err(
            pos,
            format!("`{s}` is not a register, location or constant"),
        ));
    }
    Ok(Term::Loc(name.to_string()))
}

struct P {
    toks: Vec<(Tok, usize)>,
    k: usize,
    end: usize,
    /// `~` and `(` levels open at the cursor.
    depth: u32,
}

/// How deeply `~` and parentheses may nest in a condition: the PTX parsers' bound.
const MAX_DEPTH: u32 = emu::front::MAX_NESTING;

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.k).map(|t| &t.0)
    }
    fn at(&self) -> usize {
        self.toks.get(self.k).map_or(self.end, |t| t.1)
    }
    fn or(&mut self) -> Result<Expr, RawError> {
        let mut terms = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.k += 1;
            terms.push(self.and()?);
        }
        Ok(associate(terms, Expr::Or))
    }
    fn and(&mut self) -> Result<Expr, RawError> {
        let mut terms = vec![self.unary()?];
        while self.peek() == Some(&Tok::And) {
            self.k += 1;
            terms.push(self.unary()?);
        }
        Ok(associate(terms, Expr::And))
    }
    fn unary(&mut self) -> Result<Expr, RawError> {
        if self.depth > MAX_DEPTH {
            return Err(err(
                self.at(),
                format!("the condition nests `~` and `(` more than {MAX_DEPTH} deep"),
            ));
        }
        self.depth += 1;
        let e = self.unary_at_depth();
        self.depth -= 1;
        e
    }
    fn unary_at_depth(&mut self) -> Result<Expr, RawError> {
        match self.peek().cloned() {
            Some(Tok::Not) => {
                self.k += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Some(Tok::LParen) => {
                self.k += 1;
                let e = self.or()?;
                if self.peek() != Some(&Tok::RParen) {
                    return Err(err(self.at(), "expected `)`"));
                }
                self.k += 1;
                Ok(e)
            }
            Some(Tok::True) => {
                self.k += 1;
                Ok(Expr::True)
            }
            Some(Tok::False) => {
                self.k += 1;
                Ok(Expr::Not(Box::new(Expr::True)))
            }
            Some(Tok::Atom(a)) => {
                let p = self.at();
                self.k += 1;
                let lhs = term(&a, p)?;
                let Some(Tok::Cmp(op)) = self.peek().cloned() else {
                    return Err(err(
                        self.at(),
                        "expected a comparison (==, !=, <, >, <=, >=)",
                    ));
                };
                self.k += 1;
                let p2 = self.at();
                let Some(Tok::Atom(b)) = self.peek().cloned() else {
                    return Err(err(p2, "expected a register, location or constant"));
                };
                self.k += 1;
                let rhs = term(&b, p2)?;
                if matches!(rhs, Term::Loc(_)) {
                    return Err(err(p2, "a location on the right of a comparison stands for its address, which litmus tests here do not model; put it on the left"));
                }
                Ok(Expr::Cmp(lhs, op, rhs))
            }
            _ => Err(err(self.at(), "expected a comparison, `~` or `(`")),
        }
    }
}

/// How many operands of one flat `/\` or `\/` chain are grouped to the left, as written.
const LEFT_RUN: usize = 32;

/// Joins the operands of a flat chain with `op`. Short chains are grouped to the left, as
/// written (`a /\ b /\ c` is `(a /\ b) /\ c`); longer ones join runs of [`LEFT_RUN`] as a
/// balanced tree, so a chain of any length is a tree of logarithmic depth and every recursive
/// pass over a condition (evaluation, printing, harness generation, dropping) stays shallow.
/// Both operators are associative, so the grouping never changes the value.
fn associate(terms: Vec<Expr>, op: fn(Box<Expr>, Box<Expr>) -> Expr) -> Expr {
    let mut runs: Vec<Expr> = Vec::with_capacity(terms.len() / LEFT_RUN + 1);
    let mut it = terms.into_iter();
    while let Some(first) = it.next() {
        let mut e = first;
        for _ in 1..LEFT_RUN {
            match it.next() {
                Some(t) => e = op(Box::new(e), Box::new(t)),
                None => break,
            }
        }
        runs.push(e);
    }
    while runs.len() > 1 {
        let mut next = Vec::with_capacity(runs.len() / 2 + 1);
        let mut it = runs.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => op(Box::new(a), Box::new(b)),
                None => a,
            });
        }
        runs = next;
    }
    runs.pop().unwrap_or(Expr::True)
}

/// How deep a parsed condition tree may be: far beyond any real test, and shallow enough that
/// every recursive pass over it fits a worker thread's stack.
const MAX_TREE_DEPTH: usize = 1_000;

/// The depth of `e`, walked with an explicit stack so the walk itself cannot overflow.
fn tree_depth(e: &Expr) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(e, 1usize)];
    while let Some((e, d)) = stack.pop() {
        deepest = deepest.max(d);
        match e {
            Expr::And(a, b) | Expr::Or(a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
            Expr::Not(a) => stack.push((a, d + 1)),
            Expr::True | Expr::Cmp(..) => {}
        }
    }
    deepest
}

/// Parses a condition expression; `base` is the byte offset of `s` in the file.
pub(crate) fn expr(s: &str, base: usize) -> Result<Expr, RawError> {
    let toks = tokens(s, base)?;
    let mut p = P {
        toks,
        k: 0,
        end: base + s.len(),
        depth: 0,
    };
    let e = p.or()?;
    if p.k != p.toks.len() {
        return Err(err(p.at(), "unexpected text after the condition"));
    }
    if tree_depth(&e) > MAX_TREE_DEPTH {
        return Err(err(
            base,
            format!("the condition nests more than {MAX_TREE_DEPTH} levels of `~`, `(`, `/\\` and `\\/`"),
        ));
    }
    Ok(e)
}

impl CmpOp {
    /// Applies the comparison.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Gt => a > b,
            CmpOp::Le => a <= b,
            CmpOp::Ge => a >= b,
        }
    }

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Gt => ">",
            CmpOp::Le => "<=",
            CmpOp::Ge => ">=",
        }
    }
}

impl Expr {
    /// Evaluates the condition, `value` giving each register's or location's final value.
    pub fn eval(&self, value: &dyn Fn(&Term) -> i64) -> bool {
        match self {
            Expr::True => true,
            Expr::Not(e) => !e.eval(value),
            Expr::And(a, b) => a.eval(value) && b.eval(value),
            Expr::Or(a, b) => a.eval(value) || b.eval(value),
            Expr::Cmp(a, op, b) => op.holds(value(a), value(b)),
        }
    }

    /// Every register and location the condition mentions, in order of first mention.
    pub fn terms(&self) -> Vec<Term> {
        let mut out = Vec::new();
        self.collect(&|t| !matches!(t, Term::Const(_)), &mut out);
        out
    }

    /// The distinct constants the expression compares with, in order of first mention.
    pub fn constants(&self) -> Vec<i64> {
        let mut out = Vec::new();
        self.collect(&|t| matches!(t, Term::Const(_)), &mut out);
        out.iter()
            .filter_map(|t| match t {
                Term::Const(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// The distinct terms `keep` accepts, in order of first mention.
    fn collect(&self, keep: &dyn Fn(&Term) -> bool, out: &mut Vec<Term>) {
        match self {
            Expr::True => {}
            Expr::Not(e) => e.collect(keep, out),
            Expr::And(a, b) | Expr::Or(a, b) => {
                a.collect(keep, out);
                b.collect(keep, out);
            }
            Expr::Cmp(a, _, b) => {
                for t in [a, b] {
                    if keep(t) && !out.contains(t) {
                        out.push(t.clone());
                    }
                }
            }
        }
    }
}

impl std::fmt::Display for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Term::Reg(t, r) => write!(f, "P{t}:{r}"),
            Term::Loc(l) => f.write_str(l),
            Term::Const(c) => write!(f, "{c}"),
        }
    }
}

impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expr::True => f.write_str("true"),
            Expr::Not(e) => write!(f, "~({e})"),
            Expr::And(a, b) => write!(f, "({a} /\\ {b})"),
            Expr::Or(a, b) => write!(f, "({a} \\/ {b})"),
            Expr::Cmp(a, op, b) => write!(f, "{a} {} {b}", op.symbol()),
        }
    }
}

/// Parses a condition written on its own (as on a command line), e.g. `P1:r0=1 /\ P1:r1=0`.
///
/// # Errors
/// A syntax error with its column.
pub fn parse_condition(s: &str) -> Result<Expr, crate::ParseError> {
    expr(s, 0).map_err(|e| e.located(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> Expr {
        expr(s, 0).unwrap()
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}x==1{}", "(".repeat(300_000), ")".repeat(300_000));
        assert!(expr(&deep, 0).is_err());
        let nots = format!("{}x==1", "~".repeat(300_000));
        assert!(expr(&nots, 0).is_err());
        let fine = format!("{}x==1{}", "(".repeat(150), ")".repeat(150));
        assert_eq!(e(&fine), e("x==1"));
    }

    #[test]
    fn flat_chains_of_any_length_parse_shallow_not_overflow() {
        // Issue 23: 20,000 and 200,000 terms once overflowed the stack of every pass.
        for n in [20_000usize, 200_000] {
            for op in ["/\\", "\\/"] {
                let s = vec!["x == 1"; n].join(&format!(" {op} "));
                let e = e(&s);
                assert!(
                    tree_depth(&e) < 64,
                    "{n} terms gave depth {}",
                    tree_depth(&e)
                );
                let all = |v: i64| {
                    move |t: &Term| match t {
                        Term::Const(c) => *c,
                        _ => v,
                    }
                };
                assert!(e.eval(&all(1)));
                assert!(!e.eval(&all(0)));
                assert_eq!(e.to_string().matches("x == 1").count(), n);
            }
        }
        // Short chains keep the grouping as written.
        assert_eq!(
            e("x=1 /\\ y=1 /\\ z=1").to_string(),
            "((x == 1 /\\ y == 1) /\\ z == 1)"
        );
    }

    #[test]
    fn a_deep_mix_of_parentheses_and_chains_is_refused() {
        let unit = vec!["x == 1"; 31].join(" /\\ ");
        let mut s = unit.clone();
        for _ in 0..150 {
            s = format!("({s}) /\\ {unit}");
        }
        let Err(err) = expr(&s, 0) else {
            panic!("a condition 4,800 levels deep was accepted")
        };
        let err = err.located(&s).to_string();
        assert!(err.contains("more than 1000 levels"), "{err}");
    }

    #[test]
    fn a_stray_character_is_named_whole_and_escaped() {
        // Issue 23: `é` was reported as `Ã`, and control bytes were echoed raw.
        let m = |s: &str| expr(s, 0).unwrap_err().message;
        assert_eq!(m("x == 1 /\\ é"), "unexpected `é` in the condition");
        assert_eq!(
            m("x == 1 /\\ \u{1b}[2J"),
            "unexpected `\\u{1b}` in the condition"
        );
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let x = e("0:r0 == 1 \\/ 0:r1 == 1 /\\ x = 2");
        assert!(matches!(x, Expr::Or(_, ref r) if matches!(**r, Expr::And(_, _))));
        let v = |t: &Term| match t {
            Term::Reg(_, r) if r == "r0" => 1,
            Term::Const(c) => *c,
            _ => 0,
        };
        assert!(x.eval(&v));
    }

    #[test]
    fn atoms_and_negation() {
        let x = e("~(P1:r0 != 0) /\\ (P0:r2 >= P1:r3) /\\ y < -1 /\\ not z > 0x10");
        assert_eq!(
            x.terms(),
            vec![
                Term::Reg(1, "r0".into()),
                Term::Reg(0, "r2".into()),
                Term::Reg(1, "r3".into()),
                Term::Loc("y".into()),
                Term::Loc("z".into())
            ]
        );
        let v = |t: &Term| match t {
            Term::Loc(l) if l == "y" => -5,
            Term::Const(c) => *c,
            _ => 0,
        };
        assert!(x.eval(&v));
        assert_eq!(
            e("0 == 0"),
            Expr::Cmp(Term::Const(0), CmpOp::Eq, Term::Const(0))
        );
    }

    #[test]
    fn errors_point_at_the_problem() {
        assert_eq!(expr("P0:r0 == 1 /\\ (", 10).unwrap_err().pos, 10 + 15);
        assert!(expr("P0:r0 1", 0)
            .unwrap_err()
            .message
            .contains("comparison"));
        assert!(expr("P0:r0 == x", 0)
            .unwrap_err()
            .message
            .contains("address"));
        assert!(expr("P0:r0 == 1 )", 0).is_err());
    }
}
