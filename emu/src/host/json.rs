//! The one JSON reader for input files (launch plans, Triton metadata, harness histograms,
//! race reports, difftest records): `serde_json`'s parser, with objects that refuse a key
//! given twice.
//!
//! `serde_json::from_str::<Value>` keeps the last of two equal keys without a word, so a
//! histogram with `"x": 1, …, "x": 2` is judged as another outcome, and a plan's second
//! `"steps"` silently replaces its first. Here the second key is an error naming it, with the
//! line and column `serde_json` adds. Everything else is `serde_json`'s: the grammar, the
//! numbers, and its nesting limit (128 levels), which bounds the recursion.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `text` as JSON, refusing an object that names a key twice.
///
/// # Errors
/// Malformed JSON, nesting past 128 levels, or a duplicate key (`duplicate key `x` at line 3
/// column 12`).
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

/// A JSON value read with duplicate keys refused.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key `{}`",
                    crate::front::error::clipped(&key, 80)
                )));
            }
            let Strict(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_given_twice_is_refused_with_its_place() {
        let e = parse("{\"test\": \"a\",\n \"test\": \"b\"}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("duplicate key `test` at line 2"), "{e}");
        let e = parse(r#"{"states": [{"values": {"x": 1, "y": 0, "x": 2}}]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("duplicate key `x`"), "{e}");
        let e = parse("{\"\u{1b}[2J\": 1, \"\u{1b}[2J\": 2}")
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\u{1b}'), "{e:?}");
    }

    #[test]
    fn everything_else_reads_as_serde_json_reads_it() {
        for text in [
            r#"{"a": [1, -2, 3.5, true, null, "s"], "b": {"c": {}}, "d": 18446744073709551615}"#,
            "[]",
            "\"x\"",
            "-9223372036854775808",
        ] {
            let want: Value = serde_json::from_str(text).unwrap();
            assert_eq!(parse(text).unwrap(), want, "{text}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(parse(&deep).is_err(), "nesting is bounded");
        assert!(parse("{\"a\": 1,}").is_err());
    }
}
