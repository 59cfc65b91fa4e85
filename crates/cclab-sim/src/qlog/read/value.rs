//! A JSON value that borrows its strings from the record and keeps objects as lists of pairs, and its parser.
//!
//! `serde_json::Value` allocates a `String` per key and a B-tree per object, and frees them all again; here
//! arrays and objects are slices in an arena reset once per record, and strings without escapes are slices
//! of the record (allocating and freeing took a third of the reader's time). Lookups
//! scan from the end: with a duplicated key the last one wins, as in Python's `json.loads`. The parser is ours
//! (a serde visitor into the same type took twice as long) and keeps what Python's integers and decimals
//! need: an integer literal stays an integer (`-0` too), a decimal is parsed correctly rounded.

use bumpalo::collections::{String as BumpString, Vec as BumpVec};
use bumpalo::Bump;

/// A JSON number: an integer literal that fits 64 bits as `U` (non-negative) or `I` (negative, and `-0`), anything
/// else as the nearest double.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    U(u64),
    I(i64),
    F(f64),
}

/// One JSON value; strings, arrays and objects live in the record's bytes or in the per-record arena.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Json<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(&'a str),
    Arr(&'a [Json<'a>]),
    Obj(Obj<'a>),
}

/// A JSON object: its members in file order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Obj<'a>(&'a [(&'a str, Json<'a>)]);

impl<'a> Obj<'a> {
    /// An object without members.
    pub(super) const EMPTY: Obj<'static> = Obj(&[]);

    /// The value of `key` (the last one if repeated).
    pub(super) fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.0.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    pub(super) fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| *k == key)
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

/// Why a record is not JSON, and the byte offset where that was found.
#[derive(Debug, PartialEq)]
pub(super) struct ParseError {
    pub(super) offset: usize,
    pub(super) msg: &'static str,
}

/// Nesting limit, serde_json's: it bounds the work and the stack per record.
const MAX_DEPTH: usize = 128;

/// Parses one JSON text (RFC 8259: one value between optional blanks).
///
/// Strict, like serde_json: no `NaN`/`Infinity` (Python's `json` accepts them), no lone surrogates in `\u`
/// escapes (Python keeps them), no control characters in strings, no leading zeros, nothing but blanks after
/// the value, and nothing nested deeper than 128. A number beyond a double's range is an error (Python: a float
/// infinity, or an integer `float()` refuses). Where this is stricter than Python the reader hands the file to
/// Python, so it only ever accepts what Python accepts, and then with the same values.
pub(super) fn parse<'a>(bytes: &'a [u8], arena: &'a Bump) -> Result<Json<'a>, ParseError> {
    let mut p = Parser {
        b: bytes,
        i: 0,
        depth: 0,
        arena,
    };
    let v = p.value()?;
    p.blanks();
    if p.i != bytes.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
    /// Where arrays, objects and unescaped strings go: one reset per record instead of a free per value.
    arena: &'a Bump,
}

impl<'a> Parser<'a> {
    fn error(&self, msg: &'static str) -> ParseError {
        ParseError { offset: self.i, msg }
    }

    fn blanks(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<Json<'a>, ParseError> {
        self.blanks();
        match self.b.get(self.i) {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.literal(b"true", Json::Bool(true)),
            Some(b'f') => self.literal(b"false", Json::Bool(false)),
            Some(b'n') => self.literal(b"null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number().map(Json::Num),
            None => Err(self.error("EOF while parsing a value")),
            Some(_) => Err(self.error("expected value")),
        }
    }

    fn literal(&mut self, word: &[u8], v: Json<'a>) -> Result<Json<'a>, ParseError> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.error("expected value"))
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.i += 1;
        Ok(())
    }

    fn object(&mut self) -> Result<Json<'a>, ParseError> {
        self.enter()?;
        let mut members = BumpVec::with_capacity_in(4, self.arena);
        self.blanks();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Json::Obj(Obj::EMPTY));
        }
        loop {
            self.blanks();
            if self.b.get(self.i) != Some(&b'"') {
                return Err(self.error("expected a key"));
            }
            let key = self.string()?;
            self.blanks();
            if self.b.get(self.i) != Some(&b':') {
                return Err(self.error("expected ':'"));
            }
            self.i += 1;
            members.push((key, self.value()?));
            self.blanks();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => break,
                None => return Err(self.error("EOF while parsing an object")),
                Some(_) => return Err(self.error("expected ',' or '}'")),
            }
        }
        self.i += 1;
        self.depth -= 1;
        Ok(Json::Obj(Obj(members.into_bump_slice())))
    }

    fn array(&mut self) -> Result<Json<'a>, ParseError> {
        self.enter()?;
        let mut items = BumpVec::new_in(self.arena);
        self.blanks();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Json::Arr(&[]));
        }
        loop {
            items.push(self.value()?);
            self.blanks();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => break,
                None => return Err(self.error("EOF while parsing a list")),
                Some(_) => return Err(self.error("expected ',' or ']'")),
            }
        }
        self.i += 1;
        self.depth -= 1;
        Ok(Json::Arr(items.into_bump_slice()))
    }

    /// A string at the opening quote: borrowed from the record unless it has escapes (then in the arena).
    fn string(&mut self) -> Result<&'a str, ParseError> {
        self.i += 1;
        let mut owned: Option<BumpString<'a>> = None;
        let mut run = self.i; // start of the bytes not yet copied into `owned`
        let mut high = 0u8; // OR of the bytes since `run`: UTF-8 is checked only where a byte is non-ASCII
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return Err(self.error("EOF while parsing a string"));
            };
            match c {
                b'"' => {
                    let tail = self.text(run, high)?;
                    self.i += 1;
                    return Ok(match owned {
                        None => tail,
                        Some(mut s) => {
                            s.push_str(tail);
                            s.into_bump_str()
                        }
                    });
                }
                b'\\' => {
                    let part = self.text(run, high)?;
                    let s = owned.get_or_insert_with(|| BumpString::new_in(self.arena));
                    s.push_str(part);
                    self.i += 1;
                    let ch = self.escape()?;
                    owned.as_mut().expect("set above").push(ch);
                    (run, high) = (self.i, 0);
                }
                0..=0x1f => return Err(self.error("control character in a string")),
                _ => {
                    high |= c;
                    self.i += 1;
                }
            }
        }
    }

    /// The bytes from `from` to the position as text (strings are the only place non-ASCII bytes may appear).
    fn text(&self, from: usize, high: u8) -> Result<&'a str, ParseError> {
        let bytes = &self.b[from..self.i];
        if high < 0x80 {
            // SAFETY: every byte is below 0x80 (their OR is), and ASCII is valid UTF-8. Most strings take this
            // path; validating them again cost 6 % of the reader's time.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        std::str::from_utf8(bytes).map_err(|_| ParseError {
            offset: from,
            msg: "invalid UTF-8",
        })
    }

    /// The character of the escape after a backslash (RFC 8259 §7); a `\u` surrogate must be a pair.
    fn escape(&mut self) -> Result<char, ParseError> {
        let Some(&c) = self.b.get(self.i) else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.i += 1;
        Ok(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = match hi {
                    0xD800..=0xDBFF => {
                        if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                            return Err(self.error("lone leading surrogate"));
                        }
                        self.i += 2;
                        let lo = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return Err(self.error("lone leading surrogate"));
                        }
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.error("lone trailing surrogate")),
                    _ => hi,
                };
                char::from_u32(code).ok_or(self.error("invalid escape"))?
            }
            _ => return Err(self.error("invalid escape")),
        })
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .b
            .get(self.i..self.i + 4)
            .ok_or(self.error("EOF while parsing a string"))?;
        let mut v = 0;
        for &d in digits {
            let x = (d as char).to_digit(16).ok_or(self.error("invalid \\u escape"))?;
            v = v * 16 + x;
        }
        self.i += 4;
        Ok(v)
    }

    /// A number (RFC 8259 §6). Integers stay integers while they fit 64 bits, as in Python (`-0` is the integer
    /// 0); other integers and decimals become the nearest double (Rust's `f64` parsing is correctly rounded,
    /// as Python's `float()` of a decimal or an integer is).
    fn number(&mut self) -> Result<Num, ParseError> {
        let start = self.i;
        let negative = self.b[self.i] == b'-';
        if negative {
            self.i += 1;
        }
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("invalid number")),
        }
        let mut integer = true;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            integer = false;
            if !matches!(self.b.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            integer = false;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if !matches!(self.b.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number"));
            }
            self.digits();
        }
        // ASCII digits and signs only, so this is text.
        let text = std::str::from_utf8(&self.b[start..self.i]).expect("ASCII");
        if integer {
            let n = if negative {
                text.parse().ok().map(Num::I)
            } else {
                text.parse().ok().map(Num::U)
            };
            if let Some(n) = n {
                return Ok(n);
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Num::F(f)),
            _ => Err(ParseError {
                offset: start,
                msg: "number out of range",
            }),
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.b.get(self.i) {
            self.i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_borrows_keeps_order_and_last_duplicate_wins() {
        let arena = Bump::new();
        let v = parse(br#"{"a": 1, "b": "x\"y", "a": -2, "c": [1.5, null, true]}"#, &arena).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.get("a"), Some(&Json::Num(Num::I(-2))));
        assert_eq!(o.get("b").and_then(Json::as_str), Some("x\"y"));
        assert_eq!(
            o.get("c"),
            Some(&Json::Arr(&[Json::Num(Num::F(1.5)), Json::Null, Json::Bool(true)]))
        );
        assert!(o.contains_key("c") && !o.contains_key("d"));
    }

    #[test]
    fn parse_agrees_with_serde_json_and_is_as_strict() {
        let ok = [
            "0",
            "-0",
            "-0.0",
            "1e-400",
            "0.1",
            "1.7976931348623157e308",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            r#""a\u00e9\ud83d\ude00\n\/""#,
            r#"{"k": [1, {"x": []}, "é"]}"#,
            " [ ] ",
            "true",
            "null",
        ];
        for text in ok {
            let arena = Bump::new();
            let ours = parse(text.as_bytes(), &arena).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(format!("{:?}", plain(&ours)), format!("{:?}", theirs), "{text}");
        }
        let bad = [
            "",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "NaN",
            "Infinity",
            "1e400",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\t\"",
            "\"\\x\"",
            "[1] 2",
            "tru",
            "\"abc",
        ];
        for text in bad {
            assert!(parse(text.as_bytes(), &Bump::new()).is_err(), "{text}");
            assert!(serde_json::from_str::<serde_json::Value>(text).is_err(), "{text}");
        }
        let deep = "[".repeat(129) + &"]".repeat(129);
        assert!(parse(deep.as_bytes(), &Bump::new()).is_err());
        assert!(parse(&[b'"', 0xff, b'"'], &Bump::new()).is_err());
    }

    #[test]
    fn integer_minus_zero_is_the_integer_zero() {
        let arena = Bump::new();
        assert_eq!(parse(b"-0", &arena).unwrap(), Json::Num(Num::I(0)));
        assert!(matches!(parse(b"-0.0", &arena).unwrap(), Json::Num(Num::F(f)) if f == 0.0 && f.is_sign_negative()));
    }

    /// `v` as a serde_json value, to compare with serde_json's parse.
    fn plain(v: &Json<'_>) -> serde_json::Value {
        use serde_json::Value as V;
        match v {
            Json::Null => V::Null,
            Json::Bool(b) => V::Bool(*b),
            Json::Num(Num::U(u)) => V::from(*u),
            Json::Num(Num::I(0)) => V::from(-0.0), // serde_json's reading of "-0"
            Json::Num(Num::I(i)) => V::from(*i),
            Json::Num(Num::F(f)) => V::from(*f),
            Json::Str(s) => V::from(*s),
            Json::Arr(a) => V::Array(a.iter().map(plain).collect()),
            Json::Obj(o) => V::Object(o.0.iter().map(|(k, v)| (k.to_string(), plain(v))).collect()),
        }
    }
}
