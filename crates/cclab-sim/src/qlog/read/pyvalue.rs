//! What Python makes of a JSON value, for the few operations the Python reader applies to event fields.
//!
//! `python/cclab/traces/qlog.py` is the reference: these helpers give the same answers as its `_num`, `str()`
//! and truthiness tests on whatever `json.loads` returned. Where Python's answer needs more than a JSON value
//! says (the `repr` of a float, an integer literal `-0`, which serde_json hands over as the float -0.0 while
//! Python keeps the integer 0), they return [`Unsupported`], and the caller leaves the file to the Python
//! reader rather than guess.

use super::value::{Json, Num, Obj};

/// A value whose Python meaning this module does not reproduce.
#[derive(Debug)]
pub(super) struct Unsupported(pub(super) &'static str);

/// Python's `_num(v)`: the number as a float, `None` for booleans and non-numbers.
///
/// Integers become floats correctly rounded (Rust's `as` rounds to nearest, ties to even, as `float(int)`
/// does); serde_json with `float_roundtrip` parses decimals correctly rounded, as `json.loads` does.
pub(super) fn num(v: Option<&Json<'_>>) -> Result<Option<f64>, Unsupported> {
    match v {
        Some(Json::Num(Num::U(u))) => Ok(Some(*u as f64)),
        Some(Json::Num(Num::I(i))) => Ok(Some(*i as f64)),
        // "-0" (Python: the integer 0 → 0.0) and "-0.0" (Python: -0.0) both arrive as -0.0.
        Some(Json::Num(Num::F(f))) if *f == 0.0 && f.is_sign_negative() => Err(Unsupported("a negative zero")),
        Some(Json::Num(Num::F(f))) => Ok(Some(*f)),
        _ => Ok(None),
    }
}

/// Python's `bool(v)` of a decoded JSON value.
pub(super) fn truthy(v: Option<&Json<'_>>) -> bool {
    match v {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(Json::Num(Num::U(u))) => *u != 0,
        Some(Json::Num(Num::I(i))) => *i != 0,
        Some(Json::Num(Num::F(f))) => *f != 0.0,
        Some(Json::Str(s)) => !s.is_empty(),
        Some(Json::Arr(a)) => !a.is_empty(),
        Some(Json::Obj(o)) => !o.is_empty(),
    }
}

/// Python's `a or b`.
pub(super) fn or<'v, 'a>(a: Option<&'v Json<'a>>, b: Option<&'v Json<'a>>) -> Option<&'v Json<'a>> {
    if truthy(a) {
        a
    } else {
        b
    }
}

/// Python's `str(v)` for strings, `None`, booleans and integers; other values are [`Unsupported`].
pub(super) fn py_str(v: &Json<'_>) -> Result<String, Unsupported> {
    match v {
        Json::Str(s) => Ok(s.to_string()),
        Json::Null => Ok("None".into()),
        Json::Bool(true) => Ok("True".into()),
        Json::Bool(false) => Ok("False".into()),
        Json::Num(Num::U(u)) => Ok(u.to_string()),
        Json::Num(Num::I(i)) => Ok(i.to_string()),
        _ => Err(Unsupported("str() of a float, list or object")),
    }
}

/// Python's `_obj(v)`: the object at `v`, or an empty one (a field of the wrong type is ignored).
pub(super) fn object<'v, 'a>(v: Option<&'v Json<'a>>) -> &'v Obj<'a> {
    static EMPTY: Obj<'static> = Obj::EMPTY;
    match v {
        Some(Json::Obj(o)) => o,
        _ => &EMPTY,
    }
}

/// The value as a string slice, if it is one.
pub(super) fn as_str<'v>(v: Option<&'v Json<'_>>) -> Option<&'v str> {
    v.and_then(Json::as_str)
}

/// Python's `str.isspace()` for one character: Unicode White_Space plus the four separators U+001C..U+001F
/// (which is why a JSON-SEQ record separator counts as space in Python's `strip()`).
pub(super) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json<'_> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn num_follows_python_float_of_json_numbers() {
        assert_eq!(num(Some(&json("3"))).unwrap(), Some(3.0));
        assert_eq!(num(Some(&json("18446744073709551615"))).unwrap(), Some(1.8446744073709552e19));
        // Beyond 64 bits: correctly rounded, as Python's float(int) (2**64 + 2**11 + 1 rounds up).
        assert_eq!(num(Some(&json("18446744073709553665"))).unwrap(), Some(18446744073709555712.0));
        assert_eq!(num(Some(&json("0.1"))).unwrap(), Some(0.1));
        assert_eq!(num(Some(&json("true"))).unwrap(), None);
        assert_eq!(num(Some(&json("\"1\""))).unwrap(), None);
        assert!(num(Some(&json("-0"))).is_err());
    }

    #[test]
    fn truthiness_and_str_follow_python() {
        assert!(!truthy(Some(&json("0.0"))) && !truthy(Some(&json("\"\""))) && !truthy(Some(&json("[]"))));
        assert!(truthy(Some(&json("-1"))) && truthy(Some(&json(r#"{"a": 1}"#))));
        assert_eq!(py_str(&json("null")).unwrap(), "None");
        assert_eq!(py_str(&json("-7")).unwrap(), "-7");
        assert!(py_str(&json("1.5")).is_err());
        assert!(is_py_space('\u{1e}') && is_py_space('\u{a0}') && !is_py_space('x'));
    }
}
