//! Property fuzzing of the unit parsers (`units::{parse_duration, parse_rate, parse_bytes}`) and their serde
//! path, the stable counterpart of `fuzz/fuzz_targets/units.rs`.
//!
//! No input panics, every error quotes the input, and well-formed inputs give the exact closed-form value.
//! Fixed seed; `PROPTEST_RNG_SEED` and `PROPTEST_CASES` override it and the case count.

use cclab_core::units::{parse_bytes, parse_duration, parse_rate, Bytes, Rate};
use cclab_core::Dur;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::Deserialize;

mod fuzz_support;
use fuzz_support::config;

/// Duration units and their length in nanoseconds.
const DURATION_UNITS: [(&str, u64); 6] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("min", 60_000_000_000),
];
/// Rate units and their value in bits/s.
const RATE_UNITS: [(&str, u64); 11] = [
    ("bps", 1),
    ("bit/s", 1),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("kbit/s", 1_000),
    ("Mbps", 1_000_000),
    ("Mbit/s", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("Gbit/s", 1_000_000_000),
    ("Tbps", 1_000_000_000_000),
    ("Tbit/s", 1_000_000_000_000),
];
/// Byte-rate units (refused: `MBps` and `Mbps` differ only in case).
const BYTE_RATE_UNITS: [&str; 6] = ["Bps", "kBps", "MBps", "GBps", "B/s", "MB/s"];
/// Size units and their value in bytes (decimal and binary prefixes).
const SIZE_UNITS: [(&str, u64); 9] = [
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Text close to the grammar (signs, digits, dots, exponents, underscores, spaces, real and bogus units),
/// mixed with arbitrary Unicode.
fn unit_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+ ]?[0-9_.eE+-]{0,14} ?(ns|us|µs|ms|s|min|bps|kbps|Mbps|Gbps|Tbps|Mbit/s|bit/s|Bps|MBps|MB/s|B|KB|MiB|GiB|x|)[ \t]?",
        any::<String>(),
    ]
}

/// Every parser either succeeds or returns a message that quotes the input.
fn check_error_names_input<T>(s: &str, r: Result<T, String>) -> Result<(), TestCaseError> {
    if let Err(e) = r {
        prop_assert!(e.contains(&format!("{s:?}")), "error {e:?} does not quote {s:?}");
    }
    Ok(())
}

/// `n` with `_` digit separators inserted every three digits from the right, e.g. 1_000_000.
fn with_separators(n: u64) -> String {
    let digits = n.to_string().into_bytes();
    let groups: Vec<&str> = digits
        .rchunks(3)
        .rev()
        .map(|g| std::str::from_utf8(g).expect("ASCII digits"))
        .collect();
    groups.join("_")
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)] // fields exist to be deserialised
struct Quantities {
    d: Option<Dur>,
    r: Option<Rate>,
    b: Option<Bytes>,
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn units_arbitrary_text_never_panics_and_errors_quote_it(s in unit_text()) {
        check_error_names_input(&s, parse_duration(&s))?;
        check_error_names_input(&s, parse_rate(&s))?;
        check_error_names_input(&s, parse_bytes(&s))?;
    }

    /// Integers below 10^5 keep every product exact in f64 (n·5^k < 2^53), so the value is exactly n × unit.
    #[test]
    fn units_integer_with_unit_is_exact(
        n in 0..100_000u64, d in 0..DURATION_UNITS.len(), r in 0..RATE_UNITS.len(), b in 0..SIZE_UNITS.len(),
    ) {
        let (du, dn) = DURATION_UNITS[d];
        prop_assert_eq!(parse_duration(&format!("{n}{du}")), Ok(Dur::from_nanos(n * dn)));
        let (ru, rn) = RATE_UNITS[r];
        let rate = parse_rate(&format!("{n}{ru}"));
        if n == 0 {
            prop_assert!(rate.unwrap_err().contains("positive"));
        } else {
            prop_assert_eq!(rate, Ok(Rate(n * rn)));
        }
        let (bu, bn) = SIZE_UNITS[b];
        prop_assert_eq!(parse_bytes(&format!("{n}{bu}")), Ok(Bytes(n * bn)));
    }

    /// Spaces around the number and unit, a leading `+` and `_` separators leave the value unchanged.
    #[test]
    fn units_spacing_sign_and_separators_are_neutral(n in 1..1u64 << 40, d in 0..DURATION_UNITS.len()) {
        let (unit, unit_ns) = DURATION_UNITS[d];
        let plain = parse_duration(&format!("{n}{unit}"));
        // Past ~584 years of nanoseconds a duration is refused (it used to saturate), whatever its spelling.
        let fits = n as f64 * unit_ns as f64 * 1e-9 < u64::MAX as f64 * 1e-9;
        prop_assert_eq!(plain.is_ok(), fits, "{}{}", n, unit);
        for variant in [format!(" {n} {unit} "), format!("+{n}{unit}"), format!("{}{unit}", with_separators(n))] {
            let parsed = parse_duration(&variant);
            if fits {
                prop_assert_eq!(parsed, plain.clone(), "{}", variant);
            } else {
                prop_assert!(parsed.unwrap_err().contains("584 years"), "{}", variant);
            }
        }
        let negative = format!("-{n}{unit}");
        let (bytes, rate) = (parse_bytes(&format!("-{n}B")), parse_rate(&format!("-{n}bps")));
        prop_assert!(parse_duration(&negative).unwrap_err().contains("non-negative"));
        prop_assert!(bytes.unwrap_err().contains("non-negative"));
        prop_assert!(rate.unwrap_err().contains("positive"));
    }

    /// Milliseconds with three decimals are whole microseconds: n.kkk ms = n·10^6 + k·10^3 ns.
    #[test]
    fn units_decimal_milliseconds_are_exact(n in 0..1_000_000u64, k in 0..1000u64) {
        let text = format!("{n}.{k:03}ms");
        prop_assert_eq!(parse_duration(&text), Ok(Dur::from_nanos(n * 1_000_000 + k * 1000)));
    }

    /// Any finite non-negative number parses when its value fits 64 bits, and is otherwise an error that quotes it
    /// and gives the bound (it used to saturate silently at `Dur::MAX` / `u64::MAX`); never a panic.
    #[test]
    fn units_any_finite_number_parses_or_is_refused_past_64_bits(
        x in 0.0..f64::MAX, d in 0..DURATION_UNITS.len(), b in 0..SIZE_UNITS.len(),
    ) {
        let ((du, dn), (bu, bn)) = (DURATION_UNITS[d], SIZE_UNITS[b]);
        let (duration, size) = (format!("{x:e}{du}"), format!("{x}{bu}"));
        match parse_duration(&duration) {
            Ok(v) => prop_assert!(x * dn as f64 * 1e-9 < u64::MAX as f64 * 1e-9 && v < Dur::MAX, "{}", duration),
            Err(e) => prop_assert!(e.contains("584 years") && e.contains(&format!("{duration:?}")), "{}", e),
        }
        match parse_bytes(&size) {
            Ok(_) => prop_assert!((x * bn as f64).round() < u64::MAX as f64, "{}", size),
            Err(e) => prop_assert!(e.contains("2^64") && e.contains(&format!("{size:?}")), "{}", e),
        }
        let minutes = format!("{x:e}min");
        prop_assert_eq!(parse_duration(&minutes).is_ok(), x * 60.0 < u64::MAX as f64 * 1e-9, "{}", minutes);
    }

    /// What `Dur` prints parses back to within the printed precision: 3 decimals of ms/us (≤ 0.5 µs / 0.5 ns),
    /// 6 of s (≤ 0.5 µs), plus f64 rounding of the nanosecond count.
    #[test]
    fn units_displayed_durations_parse_back(ns in any::<u64>()) {
        let back = parse_duration(&Dur::from_nanos(ns).to_string()).unwrap().as_nanos();
        prop_assert!(back.abs_diff(ns) <= 500 + (ns >> 50), "{} -> {}", ns, back);
    }

    /// Through serde (what scenario files use): no panic, and a bare TOML number is refused with a hint.
    #[test]
    fn units_toml_values_never_panic(s in unit_text(), n in any::<i64>(), key in prop::sample::select(vec!["d", "r", "b"])) {
        let quoted = toml::Value::String(s.clone()).to_string();
        if let Err(e) = toml::from_str::<Quantities>(&format!("{key} = {quoted}")) {
            prop_assert!(e.to_string().contains(&format!("{s:?}")), "{}", e);
        }
        let e = toml::from_str::<Quantities>(&format!("{key} = {n}")).unwrap_err().to_string();
        prop_assert!(e.contains(&format!("bare number {n}")), "{}", e);
    }

    /// Byte rates are refused whatever the number, and the error gives the bit rate to write instead.
    #[test]
    fn units_byte_rates_are_refused_with_the_bit_rate(n in 1..100_000u64, u in 0..BYTE_RATE_UNITS.len()) {
        let text = format!("{n}{}", BYTE_RATE_UNITS[u]);
        let e = parse_rate(&text).unwrap_err();
        prop_assert!(e.contains("bit/s\" for") && e.contains(&format!("{text:?}")), "{}", e);
    }

    /// `parse_rate` refuses zero as "expected a positive rate", so no accepted rate may be 0 bits/s (a link
    /// of rate 0 never finishes a packet).
    /// Found here: "0.4bps" used to round to Rate(0) and be accepted.
    #[test]
    fn units_accepted_rates_are_positive(x in 0.0..10.0f64, r in 0..RATE_UNITS.len()) {
        if let Ok(rate) = parse_rate(&format!("{x}{}", RATE_UNITS[r].0)) {
            prop_assert!(rate.bps() > 0, "{}{} -> {:?}", x, RATE_UNITS[r].0, rate);
        }
    }
}
