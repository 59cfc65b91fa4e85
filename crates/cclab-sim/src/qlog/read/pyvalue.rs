//! What Python makes of a JSON value, for the few operations the Python reader applies to event fields.
//!
//! `python/cclab/traces/qlog.py` is the reference: these helpers give the same answers as its `_num`, `str()`
//! and truthiness tests on whatever `json.loads` returned. Where Python's answer is not reproduced here (the
//! `repr` of a float, `str()` of a list), they return [`Unsupported`], and the caller leaves the file to the
//! Python reader rather than guess.

use super::value::{Json, Num, Obj};

/// A value whose Python meaning this module does not reproduce.
#[derive(Debug)]
pub(super) struct Unsupported(pub(super) &'static str);

/// Python's `_num(v)`: the number as a float, `None` for booleans and non-numbers.
///
/// Integers become floats correctly rounded (Rust's `as` rounds to nearest, ties to even, as `float(int)`
/// does; the integer `-0` is 0.0); decimals were parsed correctly rounded, as `json.loads` parses them.
pub(super) fn num(v: Option<&Json<'_>>) -> Result<Option<f64>, Unsupported> {
    Ok(match v {
        Some(Json::Num(Num::U(u))) => Some(*u as f64),
        Some(Json::Num(Num::I(i))) => Some(*i as f64),
        Some(Json::Num(Num::F(f))) => Some(*f),
        _ => None,
    })
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
        // Leaked: a few bytes per test value, and the value may borrow from the arena for the whole test.
        let arena: &'static bumpalo::Bump = Box::leak(Box::default());
        super::super::value::parse(text.as_bytes(), arena).unwrap()
    }

    #[test]
    fn num_follows_python_float_of_json_numbers() {
        assert_eq!(num(Some(&json("3"))).unwrap(), Some(3.0));
        assert_eq!(
            num(Some(&json("18446744073709551615"))).unwrap(),
            Some(1.8446744073709552e19)
        );
        // Beyond 64 bits: correctly rounded, as Python's float(int) (2**64 + 2**11 + 1 rounds up).
        assert_eq!(
            num(Some(&json("18446744073709553665"))).unwrap(),
            Some(18446744073709555712.0)
        );
        assert_eq!(num(Some(&json("0.1"))).unwrap(), Some(0.1));
        assert_eq!(num(Some(&json("true"))).unwrap(), None);
        assert_eq!(num(Some(&json("\"1\""))).unwrap(), None);
        assert_eq!(num(Some(&json("-0"))).unwrap().map(f64::to_bits), Some(0));
        assert_eq!(
            num(Some(&json("-0.0"))).unwrap().map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
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
