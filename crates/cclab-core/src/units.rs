//! Quantities with units, as scenario files write them: durations ("20ms", "65us", "1.5s"),
//! rates in bits ("100Mbps", "100Mbit/s", "1.5Gbps"; byte rates are refused) and sizes ("1500B", "64KB", "1GB",
//! "4MiB"). Deserialising a bare number is an error that says which units are accepted.

use crate::time::{Dur, NonZeroDur};
use core::fmt;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

/// A size in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Rate {
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Bytes per second.
    pub fn bytes_per_sec(self) -> f64 {
        self.0 as f64 / 8.0
    }
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-' || c == '+' || c == '_'))
        .map_or(s.len(), |(i, _)| i);
    let num: f64 = s[..end].replace('_', "").parse().ok()?;
    if !num.is_finite() {
        return None;
    }
    Some((num, s[end..].trim()))
}

/// Parses "20ms", "65us", "65µs", "1.5s", "100ns", "2min".
pub fn parse_duration(s: &str) -> Result<Dur, String> {
    let err = || format!("expected a duration with a unit (ns, us, ms, s, min), e.g. \"20ms\", got {s:?}");
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        _ => return Err(err()),
    };
    if n < 0.0 {
        return Err(format!("expected a non-negative duration, got {s:?}"));
    }
    // Time is u64 nanoseconds: a longer duration would have to be clamped or wrapped, so it is refused.
    if n * scale >= u64::MAX as f64 * 1e-9 {
        return Err(format!(
            "expected a duration below 18446744073s (~584 years, the longest the nanosecond clock holds), got {s:?}"
        ));
    }
    Ok(Dur::from_secs_f64(n * scale))
}

/// Bit-rate units and their value in bits/s: `Mbps` as scenario files write it, `Mbit/s` as cclab prints it.
const RATE_UNITS: [(&str, f64); 11] = [
    ("bps", 1.0),
    ("bit/s", 1.0),
    ("kbps", 1e3),
    ("Kbps", 1e3),
    ("kbit/s", 1e3),
    ("Mbps", 1e6),
    ("Mbit/s", 1e6),
    ("Gbps", 1e9),
    ("Gbit/s", 1e9),
    ("Tbps", 1e12),
    ("Tbit/s", 1e12),
];

/// Byte-rate units and their value in bytes/s. They are refused: `MBps` and `Mbps` differ only in the case
/// of one letter and mean rates 8× apart, so a typo would silently change a link by that factor.
const BYTE_RATE_UNITS: [(&str, f64); 12] = [
    ("Bps", 1.0),
    ("B/s", 1.0),
    ("kBps", 1e3),
    ("KBps", 1e3),
    ("kB/s", 1e3),
    ("KB/s", 1e3),
    ("MBps", 1e6),
    ("MB/s", 1e6),
    ("GBps", 1e9),
    ("GB/s", 1e9),
    ("TBps", 1e12),
    ("TB/s", 1e12),
];

/// `bps` bits/s in the largest unit that keeps the number at least 1, e.g. "400Mbit/s".
fn format_bit_rate(bps: f64) -> String {
    let (unit, scale) = [("Tbit/s", 1e12), ("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)]
        .into_iter()
        .find(|&(_, scale)| bps >= scale)
        .unwrap_or(("bit/s", 1.0));
    format!("{}{unit}", bps / scale)
}

/// Parses bit rates: "100Mbps", "100Mbit/s", "1.5Gbps", "56kbps", "800bit/s". Byte rates ("50MBps",
/// "50MB/s") are refused with the bit rate to write instead.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let err = || {
        format!("expected a rate with a unit (bps, kbps, Mbps, Gbps, Tbps or bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s), e.g. \"100Mbps\", got {s:?}")
    };
    let (n, unit) = split_number(s).ok_or_else(err)?;
    if let Some(&(_, bytes)) = BYTE_RATE_UNITS.iter().find(|u| u.0 == unit) {
        return Err(format!(
            "byte-rate units are refused (MBps and Mbps differ only in case): write the rate in bits, \"{}\" for {s:?}",
            format_bit_rate(n * bytes * 8.0)
        ));
    }
    let scale = RATE_UNITS.iter().find(|u| u.0 == unit).ok_or_else(err)?.1;
    let bps = (n * scale).round();
    if bps < 1.0 {
        return Err(format!("expected a positive rate of at least 1 bit/s, got {s:?}"));
    }
    // Rates are u64 bit/s: a larger one would be clamped silently.
    if bps >= u64::MAX as f64 {
        return Err(format!("expected a rate below 18446744Tbit/s (u64 bit/s), got {s:?}"));
    }
    Ok(Rate(bps as u64))
}

/// Parses "1500B", "64KB" (10^3), "1GB" (10^9), "4MiB" (2^20), "1KiB".
pub fn parse_bytes(s: &str) -> Result<Bytes, String> {
    let err = || format!("expected a size with a unit (B, KB, MB, GB, TB, KiB, MiB, GiB), e.g. \"1500B\", got {s:?}");
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let scale = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        _ => return Err(err()),
    };
    if n < 0.0 {
        return Err(format!("expected a non-negative size, got {s:?}"));
    }
    // Sizes are u64 bytes: a larger one would be clamped silently to 2^64 − 1.
    let bytes = (n * scale).round();
    if bytes >= u64::MAX as f64 {
        return Err(format!("expected a size below 2^64 bytes (~18446744TB), got {s:?}"));
    }
    Ok(Bytes(bytes as u64))
}

struct UnitVisitor<T> {
    what: &'static str,
    parse: fn(&str) -> Result<T, String>,
}

impl<T> Visitor<'_> for UnitVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} string with a unit", self.what)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Err(bare_integer(self.what, v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_i64(v as i64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(bare_float(self.what, v))
    }
}

/// A bare integer where a `what` with a unit belongs.
fn bare_integer<E: de::Error>(what: &str, v: i64) -> E {
    E::custom(format!(
        "expected a {what} with a unit as a string, e.g. \"{v}{}\", got the bare number {v}",
        example_unit(what)
    ))
}

/// A bare float where a `what` with a unit belongs.
fn bare_float<E: de::Error>(what: &str, v: f64) -> E {
    E::custom(format!(
        "expected a {what} with a unit as a string, got the bare number {v}"
    ))
}

fn example_unit(what: &str) -> &'static str {
    match what {
        "duration" => "ms",
        "rate" => "Mbps",
        _ => "B",
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dur, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "duration",
            parse: parse_duration,
        })
    }
}
impl<'de> Deserialize<'de> for NonZeroDur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NonZeroDur, D::Error> {
        deserialize_duration_within(d, "a duration of at least 1ns", NonZeroDur::new)
    }
}

/// Deserializes a duration that `accept` keeps (as `T`); one it refuses is an `invalid value` error quoting the
/// string as written and `expected`, the form by which a scenario error names the key even inside a tagged
/// table (`[flow.receiver.ack] policy = …`), where serde's own path stops at the table.
pub fn deserialize_duration_within<'de, D: Deserializer<'de>, T>(
    d: D,
    expected: &'static str,
    accept: fn(Dur) -> Option<T>,
) -> Result<T, D::Error> {
    struct Within<T> {
        expected: &'static str,
        accept: fn(Dur) -> Option<T>,
    }
    impl<T> Visitor<'_> for Within<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.expected)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            let dur = parse_duration(v).map_err(E::custom)?;
            (self.accept)(dur).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self.expected))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
            Err(bare_integer("duration", v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
            self.visit_i64(v as i64)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
            Err(bare_float("duration", v))
        }
    }
    d.deserialize_any(Within { expected, accept })
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "rate",
            parse: parse_rate,
        })
    }
}
impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "size",
            parse: parse_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_duration("20ms").unwrap(), Dur::from_millis(20));
        assert_eq!(parse_duration("65us").unwrap(), Dur::from_micros(65));
        assert_eq!(parse_duration("1.5s").unwrap(), Dur::from_millis(1500));
        assert_eq!(parse_rate("100Mbps").unwrap(), Rate(100_000_000));
        assert_eq!(parse_rate("50Mbit/s").unwrap(), Rate(50_000_000));
        assert_eq!(parse_rate("56kbit/s").unwrap(), Rate(56_000));
        assert_eq!(parse_rate("2Gbit/s").unwrap(), Rate(2_000_000_000));
        assert_eq!(parse_rate("800bit/s").unwrap(), Rate(800));
        assert_eq!(parse_bytes("1GB").unwrap(), Bytes(1_000_000_000));
        assert_eq!(parse_bytes("4MiB").unwrap(), Bytes(4 << 20));
    }

    #[test]
    fn rejects_bad_units() {
        assert!(parse_duration("20").unwrap_err().contains("unit"));
        assert!(parse_duration("20 parsecs").is_err());
        assert!(parse_rate("-5Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate("0.4bps").is_err());
        // Issue #15 defect 10: "50MBps" silently meant 400 Mbit/s; byte rates now say what to write.
        let e = parse_rate("50MBps").unwrap_err();
        assert!(e.contains("\"400Mbit/s\"") && e.contains("\"50MBps\""), "{e}");
        assert!(parse_rate("225B/s").unwrap_err().contains("\"1.8kbit/s\""));
        assert!(parse_rate("1kBps").unwrap_err().contains("\"8kbit/s\""));
        assert!(parse_bytes("lots").is_err());
    }

    #[test]
    fn bare_numbers_are_errors_in_toml() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct S {
            d: Dur,
        }
        let e = toml::from_str::<S>("d = 20").unwrap_err().to_string();
        assert!(e.contains("bare number 20"), "{e}");
        assert_eq!(toml::from_str::<S>("d = \"20ms\"").unwrap().d, Dur::from_millis(20));
    }
}
