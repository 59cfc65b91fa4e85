//! What Python makes of a JSON value, for the few operations the Python reader applies to event fields.
//!
//! `python/cclab/traces/qlog.py` is the reference: these helpers give the same answers as its `_num`, `str()`
//! and truthiness tests on whatever `json.loads` returned. Where Python's answer needs more than a JSON value
//! says (the `repr` of a float, an integer literal `-0`, which serde_json hands over as the float -0.0 while
//! Python keeps the integer 0), they return [`Unsupported`], and the caller leaves the file to the Python
//! reader rather than guess.

use serde_json::{Map, Value};

/// A value whose Python meaning this module does not reproduce.
#[derive(Debug)]
pub(super) struct Unsupported(pub(super) &'static str);

/// Python's `_num(v)`: the number as a float, `None` for booleans and non-numbers.
///
/// Integers become floats correctly rounded (Rust's `as` rounds to nearest, ties to even, as `float(int)`
/// does); serde_json with `float_roundtrip` parses decimals correctly rounded, as `json.loads` does.
pub(super) fn num(v: Option<&Value>) -> Result<Option<f64>, Unsupported> {
    let Some(Value::Number(n)) = v else { return Ok(None) };
    if let Some(u) = n.as_u64() {
        return Ok(Some(u as f64));
    }
    if let Some(i) = n.as_i64() {
        return Ok(Some(i as f64));
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if f == 0.0 && f.is_sign_negative() {
        // "-0" (Python: the integer 0 → 0.0) and "-0.0" (Python: -0.0) both arrive as -0.0.
        return Err(Unsupported("a negative zero"));
    }
    Ok(Some(f))
}

/// Python's `bool(v)` of a decoded JSON value.
pub(super) fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// Python's `a or b`.
pub(super) fn or<'a>(a: Option<&'a Value>, b: Option<&'a Value>) -> Option<&'a Value> {
    if truthy(a) {
        a
    } else {
        b
    }
}

/// Python's `str(v)` for strings, `None`, booleans and integers; other values are [`Unsupported`].
pub(super) fn py_str(v: &Value) -> Result<String, Unsupported> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok("None".into()),
        Value::Bool(true) => Ok("True".into()),
        Value::Bool(false) => Ok("False".into()),
        Value::Number(n) if n.is_u64() || n.is_i64() => Ok(n.to_string()),
        _ => Err(Unsupported("str() of a float, list or object")),
    }
}

/// Python's `_obj(v)`: the object at `v`, or an empty one (a field of the wrong type is ignored).
pub(super) fn object(v: Option<&Value>) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match v {
        Some(Value::Object(o)) => o,
        _ => EMPTY.get_or_init(Map::new),
    }
}

/// The value as a string slice, if it is one.
pub(super) fn as_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

/// Python's `str.isspace()` for one character: Unicode White_Space plus the four separators U+001C..U+001F
/// (which is why a JSON-SEQ record separator counts as space in Python's `strip()`).
pub(super) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn num_follows_python_float_of_json_numbers() {
        assert_eq!(num(Some(&json!(3))).unwrap(), Some(3.0));
        assert_eq!(num(Some(&json!(u64::MAX))).unwrap(), Some(1.8446744073709552e19));
        assert_eq!(num(Some(&json!(true))).unwrap(), None);
        assert_eq!(num(Some(&json!("1"))).unwrap(), None);
        let neg_zero: Value = serde_json::from_str("-0").unwrap();
        assert!(num(Some(&neg_zero)).is_err());
    }

    #[test]
    fn truthiness_and_str_follow_python() {
        assert!(!truthy(Some(&json!(0.0))) && !truthy(Some(&json!(""))) && !truthy(Some(&json!([]))));
        assert!(truthy(Some(&json!(-1))) && truthy(Some(&json!({"a": 1}))));
        assert_eq!(py_str(&json!(null)).unwrap(), "None");
        assert_eq!(py_str(&json!(-7)).unwrap(), "-7");
        assert!(py_str(&json!(1.5)).is_err());
        assert!(is_py_space('\u{1e}') && is_py_space('\u{a0}') && !is_py_space('x'));
    }
}
