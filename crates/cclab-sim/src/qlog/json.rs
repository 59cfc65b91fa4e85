//! JSON fragments appended straight to a reusable `String`: no intermediate values, times
//! converted from integer nanoseconds to milliseconds exactly, output fixed by the input alone.

use core::fmt::Write;

/// JSON-SEQ record separator (RFC 7464 §2.2), written before every record.
pub(super) const RS: char = '\u{1e}';

/// Appends `ns` nanoseconds as milliseconds with six decimals, so every nanosecond shows
/// (`1_500_042` ns → `1.500042`). Integer arithmetic: no float rounding, no platform variance.
pub(super) fn push_ms(buf: &mut String, ns: u64) {
    // Writing to a String cannot fail.
    let _ = write!(buf, "{}.{:06}", ns / 1_000_000, ns % 1_000_000);
}

/// Appends an unsigned integer.
pub(super) fn push_u64(buf: &mut String, v: u64) {
    let _ = write!(buf, "{v}");
}

/// Appends `s` as a JSON string literal, escaped per RFC 8259 §7.
pub(super) fn push_str(buf: &mut String, s: &str) {
    buf.push('"');
    for c in s.chars() {
        match c {
            '"' => buf.push_str("\\\""),
            '\\' => buf.push_str("\\\\"),
            '\n' => buf.push_str("\\n"),
            '\r' => buf.push_str("\\r"),
            '\t' => buf.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(buf, "\\u{:04x}", c as u32);
            }
            c => buf.push(c),
        }
    }
    buf.push('"');
}

/// Appends `,"key":` (or `"key":` when `first`), for building objects field by field.
pub(super) fn push_key(buf: &mut String, first: bool, key: &str) {
    if !first {
        buf.push(',');
    }
    buf.push('"');
    buf.push_str(key);
    buf.push_str("\":");
}

/// Appends `v` as a QUIC variable-length integer (RFC 9000 §16) in lowercase hex, the form qlog
/// uses for raw transport-parameter values.
pub(super) fn push_varint_hex(buf: &mut String, v: u64) {
    // RFC 9000 §16: the two most significant bits of the first byte give log2 of the length.
    let (len, prefix) = match v {
        0..=0x3f => (1, 0u64),
        0x40..=0x3fff => (2, 0b01),
        0x4000..=0x3fff_ffff => (4, 0b10),
        _ => (8, 0b11),
    };
    let encoded = (prefix << (8 * len - 2)) | v;
    for i in (0..len).rev() {
        let _ = write!(buf, "{:02x}", (encoded >> (8 * i)) & 0xff);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_ms_keeps_every_nanosecond() {
        let mut s = String::new();
        push_ms(&mut s, 1_500_042);
        s.push(' ');
        push_ms(&mut s, 7);
        s.push(' ');
        push_ms(&mut s, 25_000_000_000);
        assert_eq!(s, "1.500042 0.000007 25000.000000");
    }

    #[test]
    fn push_str_escapes_quotes_and_controls() {
        let mut s = String::new();
        push_str(&mut s, "a\"b\\c\n\u{1}");
        assert_eq!(s, r#""a\"b\\c\n\u0001""#);
    }

    #[test]
    fn varint_hex_matches_rfc9000_examples() {
        // RFC 9000 §A.1: 151288809941952652 → c2197c5eff14e88c, 494878333 → 9d7f3e7d,
        // 15293 → 7bbd, 37 → 25.
        for (v, hex) in [
            (151_288_809_941_952_652, "c2197c5eff14e88c"),
            (494_878_333, "9d7f3e7d"),
            (15_293, "7bbd"),
            (37, "25"),
        ] {
            let mut s = String::new();
            push_varint_hex(&mut s, v);
            assert_eq!(s, hex);
        }
    }
}
