//! A JSON value that borrows its strings from the record and keeps objects as lists of pairs.
//!
//! `serde_json::Value` allocates a `String` per key and a B-tree per object; a qlog event has a few small
//! objects, so here each object is one `Vec` and each string without escapes is a slice of the record (half of
//! the reader's time went to those allocations). Lookups scan from the end: with a duplicated key the last one
//! wins, as in Python's `json.loads`. serde_json still parses (its nesting limit of 128 bounds the work).

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A JSON number as the parser gave it (serde_json: integers as `U`/`I`, anything with a fraction, an
/// exponent, or beyond 64 bits as `F`, correctly rounded with `float_roundtrip`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    U(u64),
    I(i64),
    F(f64),
}

/// One JSON value.
#[derive(Debug, PartialEq)]
pub(super) enum Json<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(Cow<'a, str>),
    Arr(Vec<Json<'a>>),
    Obj(Obj<'a>),
}

/// A JSON object: its members in file order.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Obj<'a>(Vec<(Cow<'a, str>, Json<'a>)>);

impl<'a> Obj<'a> {
    /// An object without members.
    pub(super) const EMPTY: Obj<'static> = Obj(Vec::new());

    /// The value of `key` (the last one if repeated).
    pub(super) fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(super) fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> Json<'a> {
    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn as_object(&self) -> Option<&Obj<'a>> {
        match self {
            Json::Obj(o) => Some(o),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Num(Num::U(n)))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Num(Num::I(n)))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Json<'de>, E> {
        Ok(Json::Num(Num::F(n)))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Json::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            members.push((key.0, map.next_value()?));
        }
        Ok(Json::Obj(Obj(members)))
    }
}

/// An object key, borrowed from the record when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_borrows_keeps_order_and_last_duplicate_wins() {
        let v: Json<'_> = serde_json::from_str(r#"{"a": 1, "b": "x\"y", "a": -2, "c": [1.5, null, true]}"#).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.get("a"), Some(&Json::Num(Num::I(-2))));
        assert_eq!(o.get("b").and_then(Json::as_str), Some("x\"y"));
        assert_eq!(o.get("c"), Some(&Json::Arr(vec![Json::Num(Num::F(1.5)), Json::Null, Json::Bool(true)])));
        assert!(o.contains_key("c") && !o.contains_key("d"));
    }
}
