//! JSON fragments appended straight to a reusable byte buffer: no intermediate values, no
//! `core::fmt` machinery, integers written digit pairs at a time from a table; times converted
//! from integer nanoseconds to milliseconds exactly, output fixed by the input alone.

/// JSON-SEQ record separator (RFC 7464 §2.2), written before every record.
pub(super) const RS: u8 = 0x1e;

/// "00" "01" … "99": two decimal digits per table lookup halve the divisions of a digit loop.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Writes the decimal digits of `v` right-aligned into `out`, which must have room for them;
/// bytes before them are left as they are (zeros of a fixed-width field stay).
#[inline]
fn fill_digits(out: &mut [u8], mut v: u64) {
    let mut i = out.len();
    while v >= 100 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        out[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
    }
    if v >= 10 {
        let d = v as usize * 2;
        out[i - 2..i].copy_from_slice(&PAIRS[d..d + 2]);
    } else {
        out[i - 1] = b'0' + v as u8;
    }
}

/// Appends a fragment of JSON text.
#[inline]
pub(super) fn put(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(s.as_bytes());
}

/// Appends an unsigned integer in decimal.
#[inline]
pub(super) fn push_u64(buf: &mut Vec<u8>, v: u64) {
    let n = v.checked_ilog10().map_or(1, |l| l as usize + 1);
    // Digits go straight into the buffer: composing them in a stack array and copying that
    // stalled on store forwarding (narrow stores, then one wide load), the writer's hottest spot.
    let len = buf.len();
    buf.extend_from_slice(&[0u8; 20]);
    fill_digits(&mut buf[len..len + n], v);
    buf.truncate(len + n);
}

/// Appends `ns` nanoseconds as milliseconds with six decimals, so every nanosecond shows
/// (`1_500_042` ns → `1.500042`). Integer arithmetic: no float rounding, no platform variance.
#[inline]
pub(super) fn push_ms(buf: &mut Vec<u8>, ns: u64) {
    push_u64(buf, ns / 1_000_000);
    let len = buf.len();
    buf.extend_from_slice(b".000000");
    fill_digits(&mut buf[len + 1..len + 7], ns % 1_000_000);
}

/// Appends `s` as a JSON string literal, escaped per RFC 8259 §7.
pub(super) fn push_str(buf: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    buf.push(b'"');
    for &c in s.as_bytes() {
        match c {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            // Bytes of multi-byte UTF-8 sequences are all >= 0x80 and pass through unchanged.
            c if c < 0x20 => {
                buf.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 0xf) as usize]])
            }
            c => buf.push(c),
        }
    }
    buf.push(b'"');
}

/// Appends `,"key":` (or `"key":` when `first`), for building objects field by field.
#[inline]
pub(super) fn push_key(buf: &mut Vec<u8>, first: bool, key: &str) {
    if !first {
        buf.push(b',');
    }
    buf.push(b'"');
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(b"\":");
}

/// Appends `v` as a QUIC variable-length integer (RFC 9000 §16) in lowercase hex, the form qlog
/// uses for raw transport-parameter values.
pub(super) fn push_varint_hex(buf: &mut Vec<u8>, v: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // RFC 9000 §16: the two most significant bits of the first byte give log2 of the length.
    let (len, prefix) = match v {
        0..=0x3f => (1, 0u64),
        0x40..=0x3fff => (2, 0b01),
        0x4000..=0x3fff_ffff => (4, 0b10),
        _ => (8, 0b11),
    };
    let encoded = (prefix << (8 * len - 2)) | v;
    for i in (0..len).rev() {
        let byte = (encoded >> (8 * i)) & 0xff;
        buf.extend_from_slice(&[HEX[(byte >> 4) as usize], HEX[(byte & 0xf) as usize]]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut b = Vec::new();
        f(&mut b);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn push_ms_keeps_every_nanosecond() {
        let s = text(|b| {
            for ns in [1_500_042, 7, 25_000_000_000, 0, 999_999, 1_000_000, u64::MAX] {
                push_ms(b, ns);
                b.push(b' ');
            }
        });
        assert_eq!(
            s,
            "1.500042 0.000007 25000.000000 0.000000 0.999999 1.000000 18446744073709.551615 "
        );
    }

    #[test]
    fn push_u64_matches_display_at_every_length() {
        // Each power of ten and its neighbours: every digit count from 1 to 20, both parities.
        let mut values = vec![0, u64::MAX];
        let mut p = 1u64;
        for _ in 0..19 {
            values.extend([p - 1, p, p + 1, p * 5 + 3]);
            p *= 10;
        }
        for v in values {
            assert_eq!(text(|b| push_u64(b, v)), v.to_string());
        }
    }

    #[test]
    fn push_str_escapes_quotes_and_controls() {
        let s = text(|b| push_str(b, "a\"b\\c\n\u{1}\u{1f}é"));
        assert_eq!(s, r#""a\"b\\c\n\u0001\u001fé""#);
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
            assert_eq!(text(|b| push_varint_hex(b, v)), hex);
        }
    }
}
