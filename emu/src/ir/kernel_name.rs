//! Kernel names as a C++ programmer writes them: demangling (Itanium C++ ABI, as nvcc and
//! clang mangle `__global__` functions) and finding a kernel by any name its user knows.
//!
//! A kernel is found by its mangled name (`_Z19reduce_missing_syncPKfPf`, what the PTX
//! declares), its demangled signature (`reduce_missing_sync(float const*, float*)`, also
//! spelled `reduce_missing_sync(const float *, float *)`), its name with template arguments
//! (`multi_warp_cg_reduce<int, 128ul, 64ul>`), or its base name (`reduce_missing_sync`, or
//! `ns::k` and `k` for a kernel in a namespace) when exactly one kernel has it. Names are
//! compared after [`normalise`]: whitespace only where it separates two words, and a leading
//! `const`/`volatile` of a type moved after the type, as the demangler writes it.
//!
//! Demangling uses the `cpp_demangle` crate. A name that is not mangled, or that the crate
//! cannot demangle, is shown and matched as it is: a malformed name is never an error.
//!
//! Normalising also spells builtin types one way (`unsigned` and `unsigned int`, `long int`
//! and `long`, `signed char` kept apart from `char`), drops parameter names (a declaration
//! copied from the source, `k(const float* in, int n)`) and reads an array parameter as the
//! pointer it is (`float a[]` as `float*`). When no kernel matches, integer literals are
//! compared without their suffixes (`f<int, 128>` finds `f<int, 128ul>`), a second try so
//! that `f<128u>` still picks one of `f<128u>` and `f<128>`.
//!
//! Deliberate deviations:
//! 1. Typedefs are not expanded (`size_t` does not match `unsigned long`); the error for an
//!    unknown name lists every kernel's demangled signature to copy from.

use std::borrow::Cow;
use std::fmt;

use cpp_demangle::{DemangleOptions, Symbol};

/// The demangled C++ name of `mangled`, or `None` when it is not an Itanium-mangled name the
/// demangler understands. Never panics.
pub fn demangle(mangled: &str) -> Option<String> {
    demangle_with(mangled, DemangleOptions::new())
}

fn demangle_with(mangled: &str, opts: DemangleOptions) -> Option<String> {
    if !mangled.starts_with("_Z") {
        return None;
    }
    // The demangler is fuzzed and returns errors for malformed input; a panic in it would
    // still be a bug of the tool, not of the user's name, so it falls back to the raw name.
    std::panic::catch_unwind(|| {
        let sym = Symbol::new(mangled.as_bytes()).ok()?;
        sym.demangle_with_options(&opts).ok()
    })
    .ok()
    .flatten()
    .filter(|s| !s.is_empty())
    .map(|s| literal_suffixes(&s))
}

/// Integer literal casts the demangler writes (`(unsigned int)512`), with the C++ suffix
/// GNU c++filt and nvcc's messages use instead (`512u`).
const LITERAL_SUFFIXES: &[(&str, &str)] = &[
    ("(int)", ""),
    ("(unsigned int)", "u"),
    ("(long)", "l"),
    ("(unsigned long)", "ul"),
    ("(long long)", "ll"),
    ("(unsigned long long)", "ull"),
];

/// `s` with each integer literal cast of [`LITERAL_SUFFIXES`] written as a suffixed literal.
fn literal_suffixes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'scan: while let Some(i) = rest.find('(') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        for (cast, suffix) in LITERAL_SUFFIXES {
            if let Some(after) = tail.strip_prefix(cast) {
                let sign = usize::from(after.starts_with('-'));
                let digits = after[sign..]
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(after.len() - sign);
                if digits > 0 {
                    out.push_str(&after[..sign + digits]);
                    out.push_str(suffix);
                    rest = &after[sign + digits..];
                    continue 'scan;
                }
            }
        }
        out.push('(');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// The name to show a user: the demangled one when there is one, else `name` itself.
pub fn display(name: &str) -> Cow<'_, str> {
    match demangle(name) {
        Some(d) => Cow::Owned(d),
        None => Cow::Borrowed(name),
    }
}

/// Every spelling that names a kernel, normalised: its mangled name, its demangled signature
/// (with and without the return type), its name with template arguments, its qualified base
/// name and the last component of that.
fn spellings(mangled: &str) -> Vec<String> {
    let mut out = vec![mangled.to_string()];
    let Some(full) = demangle(mangled) else {
        return out;
    };
    out.push(normalise(&full));
    if let Some(s) = demangle_with(mangled, DemangleOptions::new().no_return_type()) {
        out.push(normalise(&s));
    }
    if let Some(named) = demangle_with(mangled, DemangleOptions::new().no_return_type().no_params())
    {
        let named = normalise(&named);
        let base = without_template_args(&named);
        if let Some(i) = base.rfind("::") {
            out.push(base[i + 2..].to_string());
        }
        out.push(base);
        out.push(named);
    }
    out.sort();
    out.dedup();
    out
}

/// `name` without its template argument lists (`f<int, 4>` → `f`, `ns::A<int>::f` →
/// `ns::A::f`). Operator names with `<` (`operator<`) are left alone.
fn without_template_args(name: &str) -> String {
    if name.contains("operator") {
        return name.to_string();
    }
    let mut out = String::new();
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Words a type may be spelled with across several tokens (`unsigned long long`).
const BUILTIN_WORDS: &[&str] = &[
    "unsigned", "signed", "short", "long", "int", "char", "float", "double", "bool", "void",
    "wchar_t", "char8_t", "char16_t", "char32_t", "__int128",
];

/// One token of a C++ name: a word (identifier or number) or punctuation (`::` is one).
fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '$' {
            let mut w = c.to_string();
            while let Some(&n) = chars.peek() {
                if n.is_alphanumeric() || n == '_' || n == '$' {
                    w.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(w);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.push("::".into());
        } else {
            out.push(c.to_string());
        }
    }
    out
}

fn is_word(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The end (exclusive) of the type name starting at `i`: a run of builtin words, or a
/// qualified name with balanced template arguments. `None` when no type name starts there.
fn type_name_end(t: &[String], i: usize) -> Option<usize> {
    let first = t.get(i)?;
    if BUILTIN_WORDS.contains(&first.as_str()) {
        let mut j = i;
        while t
            .get(j)
            .is_some_and(|w| BUILTIN_WORDS.contains(&w.as_str()))
        {
            j += 1;
        }
        return Some(j);
    }
    let mut j = i;
    if t.get(j).map(String::as_str) == Some("::") {
        j += 1;
    }
    loop {
        if !t.get(j).is_some_and(|w| is_word(w)) {
            return None;
        }
        j += 1;
        if t.get(j).map(String::as_str) == Some("<") {
            let mut depth = 0usize;
            while let Some(w) = t.get(j) {
                match w.as_str() {
                    "<" => depth += 1,
                    ">" => depth -= 1,
                    _ => {}
                }
                j += 1;
                if depth == 0 {
                    break;
                }
            }
            if depth != 0 {
                return None;
            }
        }
        if t.get(j).map(String::as_str) == Some("::") {
            j += 1;
        } else {
            return Some(j);
        }
    }
}

/// `name` in the one spelling names are compared in: a space only between two words, and a
/// `const` or `volatile` written before a type moved after it (`const float *` →
/// `float const*`, as the demangler writes it).
pub fn normalise(name: &str) -> String {
    let mut t = tokens(name);
    canonical_builtins(&mut t);
    drop_parameter_names(&mut t);
    let mut i = 0;
    while i < t.len() {
        let starts_type = i == 0 || matches!(t[i - 1].as_str(), "(" | "," | "<");
        if starts_type && (t[i] == "const" || t[i] == "volatile") {
            // A run of qualifiers, then the type they qualify.
            let mut q = i;
            while t.get(q).is_some_and(|w| w == "const" || w == "volatile") {
                q += 1;
            }
            if let Some(end) = type_name_end(&t, q) {
                let quals: Vec<String> = t[i..q].to_vec();
                t.drain(i..q);
                let end = end - quals.len();
                for (k, w) in quals.into_iter().enumerate() {
                    t.insert(end + k, w);
                }
                i = end;
                continue;
            }
        }
        i += 1;
    }
    joined(&t)
}

/// Tokens written back as one name: a space only between two words.
fn joined<S: AsRef<str>>(t: &[S]) -> String {
    let mut out = String::new();
    for (k, w) in t.iter().enumerate() {
        let w = w.as_ref();
        if k > 0 && is_word(w) && is_word(t[k - 1].as_ref()) {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Spells each run of builtin type words the way the demangler does: `unsigned` →
/// `unsigned int`, `long int`/`signed long` → `long`, `long unsigned long` →
/// `unsigned long long`, `short int` → `short`, `signed` → `int`; `signed char`,
/// `unsigned char` and `char` stay three types, and `long double` stays itself.
fn canonical_builtins(t: &mut Vec<String>) {
    let mut i = 0;
    while i < t.len() {
        let is_builtin = |w: &String| BUILTIN_WORDS.contains(&w.as_str());
        if !is_builtin(&t[i]) {
            i += 1;
            continue;
        }
        let mut j = i;
        while t.get(j).is_some_and(is_builtin) {
            j += 1;
        }
        let words: Vec<&str> = t[i..j].iter().map(String::as_str).collect();
        let has = |w: &str| words.contains(&w);
        let longs = words.iter().filter(|w| **w == "long").count();
        let unsigned = has("unsigned");
        let canonical: Option<Vec<&str>> = if has("char") {
            Some(match (unsigned, has("signed")) {
                (true, _) => vec!["unsigned", "char"],
                (false, true) => vec!["signed", "char"],
                _ => vec!["char"],
            })
        } else if has("double") {
            Some(if longs > 0 {
                vec!["long", "double"]
            } else {
                vec!["double"]
            })
        } else if has("__int128") {
            Some(if unsigned {
                vec!["unsigned", "__int128"]
            } else {
                vec!["__int128"]
            })
        } else if has("short") || longs > 0 || has("int") || unsigned || has("signed") {
            let mut v = if unsigned { vec!["unsigned"] } else { vec![] };
            match (has("short"), longs) {
                (true, _) => v.push("short"),
                (false, 0) => v.push("int"),
                (false, 1) => v.push("long"),
                _ => v.extend(["long", "long"]),
            }
            Some(v)
        } else {
            None
        };
        match canonical {
            Some(c) => {
                let c: Vec<String> = c.into_iter().map(String::from).collect();
                let n = c.len();
                t.splice(i..j, c);
                i += n;
            }
            None => i = j,
        }
    }
}

/// The parameter list of a signature: the balanced `( … )` that ends the name, as token
/// indices of its parentheses.
fn parameter_list(t: &[String]) -> Option<(usize, usize)> {
    if t.last().map(String::as_str) != Some(")") {
        return None;
    }
    let close = t.len() - 1;
    let mut depth = 0usize;
    for k in (0..t.len()).rev() {
        match t[k].as_str() {
            ")" => depth += 1,
            "(" => {
                depth -= 1;
                if depth == 0 {
                    return Some((k, close));
                }
            }
            _ => {}
        }
    }
    None
}

/// Drops the names of a signature's parameters (`float const* in` → `float const*`) and reads
/// `T name[]` or `T name[N]` as `T*`. A parameter keeps its last word when that word may be
/// its type (`k(Foo)`, `k(ns::Foo)`, `k(float const)`), and parameters holding parentheses
/// (function pointers) are left as they are.
fn drop_parameter_names(t: &mut Vec<String>) {
    let Some((open, close)) = parameter_list(t) else {
        return;
    };
    // Split the list at commas outside any brackets.
    let mut entries: Vec<(usize, usize)> = Vec::new();
    let (mut depth, mut start) = (0usize, open + 1);
    for (k, w) in t.iter().enumerate().take(close).skip(open + 1) {
        match w.as_str() {
            "<" | "(" | "[" => depth += 1,
            ">" | ")" | "]" => depth = depth.saturating_sub(1),
            "," if depth == 0 => {
                entries.push((start, k));
                start = k + 1;
            }
            _ => {}
        }
    }
    entries.push((start, close));
    let mut out: Vec<String> = t[..=open].to_vec();
    for (n, &(a, b)) in entries.iter().enumerate() {
        let mut e: Vec<String> = t[a..b].to_vec();
        if !e.iter().any(|w| w == "(" || w == ")") {
            // `name[…]` at the end: an array parameter, a pointer.
            if e.last().map(String::as_str) == Some("]") {
                if let Some(lb) = e.iter().rposition(|w| w == "[") {
                    e.truncate(lb);
                    e.push("*".into());
                    if let Some(name) = e.len().checked_sub(2).filter(|&k| is_name(&e, k)) {
                        e.remove(name);
                    }
                }
            } else if let Some(k) = e.len().checked_sub(1).filter(|&k| is_name(&e, k)) {
                e.remove(k);
            }
        }
        if n > 0 {
            out.push(",".into());
        }
        out.extend(e);
    }
    out.extend(t[close..].iter().cloned());
    *t = out;
}

/// Whether token `k` of one parameter is its name: an identifier (not a builtin word, `const`
/// or `volatile`) after a complete type (a pointer or reference sign, a word, or a closing
/// template argument list).
fn is_name(e: &[String], k: usize) -> bool {
    let w = e[k].as_str();
    let keyword = BUILTIN_WORDS.contains(&w) || w == "const" || w == "volatile";
    k > 0
        && is_word(w)
        && !keyword
        && !w.starts_with(|c: char| c.is_ascii_digit())
        && (matches!(e[k - 1].as_str(), "*" | "&" | ">") || is_word(&e[k - 1]))
}

/// `name` normalised, with integer literals' suffixes dropped (`128ul` → `128`).
fn without_literal_suffixes(name: &str) -> String {
    let t = tokens(&normalise(name));
    let bare: Vec<&str> = t
        .iter()
        .map(|w| {
            if w.starts_with(|c: char| c.is_ascii_digit()) {
                w.trim_end_matches(['u', 'U', 'l', 'L'])
            } else {
                w.as_str()
            }
        })
        .collect();
    joined(&bare)
}

/// Why a name finds no kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelLookupError {
    /// No kernel has the name.
    Unknown {
        /// The name asked for.
        query: String,
        /// The module's kernels, mangled.
        available: Vec<String>,
    },
    /// Several kernels have the name (overloads, template instances).
    Ambiguous {
        /// The name asked for.
        query: String,
        /// The kernels that have it, mangled.
        candidates: Vec<String>,
    },
}

/// `name` as listed in an error: the demangled signature and the mangled name.
fn listed(name: &str) -> String {
    match demangle(name) {
        Some(d) => format!("`{d}` ({name})"),
        None => format!("`{name}`"),
    }
}

impl fmt::Display for KernelLookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelLookupError::Unknown { query, available } => {
                write!(f, "no kernel named `{query}` (kernels: ")?;
                if available.is_empty() {
                    f.write_str("none")?;
                }
                let names: Vec<String> = available.iter().map(|n| listed(n)).collect();
                write!(f, "{})", names.join(", "))
            }
            KernelLookupError::Ambiguous { query, candidates } => {
                let names: Vec<String> = candidates.iter().map(|n| listed(n)).collect();
                write!(
                    f,
                    "`{query}` names {} kernels; give the signature or the mangled name of one: {}",
                    candidates.len(),
                    names.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for KernelLookupError {}

/// The kernel among `kernels` (mangled names, as the PTX declares them) that `query` names.
///
/// # Errors
/// No kernel has the name, or several do.
pub fn resolve<'a>(
    kernels: impl IntoIterator<Item = &'a str>,
    query: &str,
) -> Result<&'a str, KernelLookupError> {
    let kernels: Vec<&str> = kernels.into_iter().collect();
    if let Some(k) = kernels.iter().find(|k| **k == query) {
        return Ok(k);
    }
    let named: Vec<(&str, Vec<String>)> = kernels.iter().map(|k| (*k, spellings(k))).collect();
    let matching = |hit: &dyn Fn(&String) -> bool| -> Vec<&'a str> {
        named
            .iter()
            .filter(|(_, ss)| ss.iter().any(hit))
            .map(|(k, _)| *k)
            .collect()
    };
    let wanted = normalise(query);
    let mut found = matching(&|s| *s == wanted);
    if found.is_empty() {
        // Integer literals as a user writes them: without the suffixes the demangler adds.
        let wanted = without_literal_suffixes(query);
        found = matching(&|s| without_literal_suffixes(s) == wanted);
    }
    found.dedup();
    match found.len() {
        1 => Ok(found[0]),
        0 => Err(KernelLookupError::Unknown {
            query: query.to_string(),
            available: kernels.iter().map(|k| k.to_string()).collect(),
        }),
        _ => Err(KernelLookupError::Ambiguous {
            query: query.to_string(),
            candidates: found.iter().map(|k| k.to_string()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_spacing_and_const_placement() {
        assert_eq!(
            normalise("reduce_missing_sync(const float *, float *)"),
            "reduce_missing_sync(float const*,float*)"
        );
        assert_eq!(
            normalise("reduce_missing_sync(float const*, float*)"),
            "reduce_missing_sync(float const*,float*)"
        );
        assert_eq!(
            normalise("k(const unsigned int*, volatile ns::A<int, 2>&)"),
            "k(unsigned int const*,ns::A<int,2>volatile&)"
        );
        assert_eq!(normalise("  k  "), "k");
    }

    #[test]
    fn builtin_types_parameter_names_and_arrays_are_spelled_one_way() {
        // Each pair names one type (C++ [dcl.type.simple]); the right side is how GNU c++filt
        // writes it.
        for (typed, demangled) in [
            ("k(unsigned)", "k(unsigned int)"),
            ("k(unsigned long int)", "k(unsigned long)"),
            ("k(long unsigned)", "k(unsigned long)"),
            ("k(long long unsigned int)", "k(unsigned long long)"),
            ("k(signed)", "k(int)"),
            (
                "k(short int, unsigned short int)",
                "k(short, unsigned short)",
            ),
            ("k(long double)", "k(long double)"),
            (
                "k(const float* in, float *out, unsigned n)",
                "k(float const*, float*, unsigned int)",
            ),
            ("k(float a[], int b[16])", "k(float*, int*)"),
            (
                "k(ns::Foo<int> f, Foo g, float const c)",
                "k(ns::Foo<int>, Foo, float const)",
            ),
        ] {
            assert_eq!(normalise(typed), normalise(demangled), "{typed}");
        }
        // Three distinct types stay distinct; a lone type name is not a parameter name.
        assert_ne!(normalise("k(char)"), normalise("k(signed char)"));
        assert_ne!(normalise("k(char)"), normalise("k(unsigned char)"));
        assert_eq!(normalise("k(Foo)"), "k(Foo)");
        assert_eq!(normalise("k(ns::Foo)"), "k(ns::Foo)");
        assert_eq!(normalise("k(void (*)(int))"), "k(void(*)(int))");
    }

    #[test]
    fn integer_literals_match_without_suffixes_only_when_nothing_else_does() {
        // _Z1fILj128EEvv is f<128u>(), _Z1fILi128EEvv is f<128>(), _Z1gILm64EEvv g<64ul>().
        let ks = ["_Z1fILj128EEvv", "_Z1fILi128EEvv", "_Z1gILm64EEvv"];
        assert_eq!(resolve(ks, "f<128u>"), Ok("_Z1fILj128EEvv"));
        assert_eq!(resolve(ks, "f<128>"), Ok("_Z1fILi128EEvv"));
        assert_eq!(resolve(ks, "g<64>"), Ok("_Z1gILm64EEvv"));
        assert_eq!(resolve(ks, "g<64>()"), Ok("_Z1gILm64EEvv"));
        assert!(matches!(
            resolve(ks, "f"),
            Err(KernelLookupError::Ambiguous { .. })
        ));
    }

    #[test]
    fn malformed_names_fall_back_to_the_raw_name() {
        for bad in [
            "_Z",
            "_Z9",
            "_Z99short",
            "_ZN",
            "_Z3fooILi",
            "_Z3fooPPPPPPPPPPPPPPPPPP",
            "",
        ] {
            assert_eq!(demangle(bad), None, "{bad}");
            assert_eq!(display(bad), bad);
        }
        let deep = format!("_Z1f{}i", "P".repeat(100_000));
        assert!(!display(&deep).is_empty());
    }

    #[test]
    fn unmangled_names_are_matched_as_they_are() {
        let ks = ["add_kernel", "_Z3addPf"];
        assert_eq!(resolve(ks, "add_kernel"), Ok("add_kernel"));
        assert_eq!(resolve(ks, "add"), Ok("_Z3addPf"));
        assert!(matches!(
            resolve(ks, "mul"),
            Err(KernelLookupError::Unknown { .. })
        ));
    }
}
