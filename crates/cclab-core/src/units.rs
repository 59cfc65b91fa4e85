//! Quantities with units, as scenario files write them: durations ("20ms", "65us", "1.5s"),
//! rates ("100Mbps", "1.5Gbps", "225Bps" for bytes/s) and sizes ("1500B", "64KB", "1GB",
//! "4MiB"). Deserialising a bare number is an error that says which units are accepted.

use crate::time::Dur;
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
    Ok(Dur::from_secs_f64(n * scale))
}

/// Parses "100Mbps", "1.5Gbps", "56kbps", "800bps", "225Bps" (bytes/s), "1MBps".
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let err = || {
        format!("expected a rate with a unit (bps, kbps, Mbps, Gbps, or Bps/kBps/MBps for bytes/s), e.g. \"100Mbps\", got {s:?}")
    };
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let scale = match unit {
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "Tbps" => 1e12,
        "Bps" => 8.0,
        "kBps" | "KBps" => 8e3,
        "MBps" => 8e6,
        "GBps" => 8e9,
        _ => return Err(err()),
    };
    let bps = (n * scale).round();
    if bps < 1.0 {
        return Err(format!("expected a positive rate of at least 1 bit/s, got {s:?}"));
    }
    Ok(Rate(bps.min(u64::MAX as f64) as u64))
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
    Ok(Bytes((n * scale).round() as u64))
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
        Err(E::custom(format!(
            "expected a {} with a unit as a string, e.g. \"{v}{}\", got the bare number {v}",
            self.what,
            example_unit(self.what)
        )))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_i64(v as i64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(E::custom(format!(
            "expected a {} with a unit as a string, got the bare number {v}",
            self.what
        )))
    }
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
        assert_eq!(parse_rate("225Bps").unwrap(), Rate(1800));
        assert_eq!(parse_bytes("1GB").unwrap(), Bytes(1_000_000_000));
        assert_eq!(parse_bytes("4MiB").unwrap(), Bytes(4 << 20));
    }

    #[test]
    fn rejects_bad_units() {
        assert!(parse_duration("20").unwrap_err().contains("unit"));
        assert!(parse_duration("20 parsecs").is_err());
        assert!(parse_rate("-5Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate("0.4bps").is_err());
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
