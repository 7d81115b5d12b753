//! The shape of a variable's initialiser, as ptxas checks it: one `{…}` list per array
//! dimension, outermost first, with at most as many entries as the dimension holds (fewer are
//! zero-filled); a vector element takes a list of exactly as many values as it has lanes; a
//! scalar takes one value.

use super::diagnostic::Diagnostic;
use crate::ir::{ArrayDim, Initializer, Module, Variable};

/// What is wrong with the shape of `v`'s initialiser, if anything.
pub fn shape_error(v: &Variable) -> Option<String> {
    let init = v.init.as_ref()?;
    check(v, init, 0).err()
}

fn check(v: &Variable, init: &Initializer, depth: usize) -> Result<(), String> {
    let Some(dim) = v.dims.get(depth) else {
        return element(v, init);
    };
    let Initializer::List(items) = init else {
        return Err(format!(
            "dimension {} of `{}` needs a `{{…}}` list, not a single value",
            depth + 1,
            v.name
        ));
    };
    if let ArrayDim::Sized(n) = *dim {
        if items.len() as u64 > n {
            return Err(format!(
                "the initialiser gives {} entries for dimension {} of `{}`, which holds {n}",
                items.len(),
                depth + 1,
                v.name
            ));
        }
    }
    items.iter().try_for_each(|i| check(v, i, depth + 1))
}

/// One element: a value, or for a vector type a list of one value per lane.
fn element(v: &Variable, init: &Initializer) -> Result<(), String> {
    match (init, v.vec) {
        (Initializer::Value(_), None) => Ok(()),
        (Initializer::List(_), None) => Err(format!(
            "an element of `{}` is a single {} value, not a list",
            v.name,
            v.ty.name()
        )),
        (Initializer::List(vals), Some(w)) => {
            if vals.len() != w.len() {
                return Err(format!(
                    "a .{} element of `{}` takes exactly {} values, not {}",
                    w.name(),
                    v.name,
                    w.len(),
                    vals.len()
                ));
            }
            match vals.iter().all(|x| matches!(x, Initializer::Value(_))) {
                true => Ok(()),
                false => Err(format!("a lane of `{}` takes a single value", v.name)),
            }
        }
        (Initializer::Value(_), Some(w)) => Err(format!(
            "a .{} element of `{}` takes a list of {} values",
            w.name(),
            v.name,
            w.len()
        )),
    }
}

/// Checks every initialised variable of the module, at module scope and in function bodies.
pub fn check_module(m: &Module, out: &mut Vec<Diagnostic>) {
    let locals = m.functions.iter().flat_map(|f| f.locals.iter());
    for v in m.globals.iter().chain(locals) {
        if let Some(message) = shape_error(v) {
            out.push(Diagnostic {
                rule: "initializer-shape",
                message,
                span: v.span,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(decl: &str) -> Option<String> {
        shape_error(&crate::validate::module_declaring(decl).globals[0])
    }

    #[test]
    fn shapes_ptxas_accepts_pass() {
        for decl in [
            ".global .u32 a[3] = {1,2};",
            ".global .u32 a[2][2] = {{1},{3}};",
            ".global .u32 a[][2] = {{1,2},{3}};",
            ".global .u32 a[2] = {};",
            ".global .v2 .u32 a = {1,2};",
            ".global .v2 .u32 a[2] = {{1,2},{3,4}};",
            ".global .v4 .f32 a[1] = {{1.0,2.0,3.0,4.0}};",
            ".global .u32 a = 7;",
        ] {
            assert_eq!(error_of(decl), None, "{decl}");
        }
    }

    #[test]
    fn shapes_ptxas_refuses_fail_with_the_reason() {
        // Each refused by ptxas 13.5 ("Greater number of elements in array initializer",
        // "Incorrect number of elements in vector initializer", "Initial value type mismatch").
        for (decl, why) in [
            (
                ".global .u32 a[2] = {1,2,3};",
                "gives 3 entries for dimension 1",
            ),
            (
                ".global .u32 a[2][2] = {1,2,3,4};",
                "gives 4 entries for dimension 1",
            ),
            (
                ".global .u32 a[2][2] = {{1,2,3},{4}};",
                "gives 3 entries for dimension 2",
            ),
            (
                ".global .u32 a[2][2] = {1,2};",
                "dimension 2 of `a` needs a `{…}` list",
            ),
            (".global .u32 a[2] = 5;", "dimension 1 of `a` needs"),
            (
                ".global .u32 a[2] = {{1},{2}};",
                "is a single u32 value, not a list",
            ),
            (".global .u32 a = {1,2};", "is a single u32 value"),
            (".global .v2 .u32 a = {1};", "takes exactly 2 values, not 1"),
            (".global .v2 .u32 a = 1;", "takes a list of 2 values"),
            (
                ".global .v2 .u32 a[2] = {{1},{2,3}};",
                "takes exactly 2 values",
            ),
        ] {
            let e = error_of(decl).unwrap_or_else(|| panic!("{decl} passed"));
            assert!(e.contains(why), "{decl}: {e}");
        }
    }
}
