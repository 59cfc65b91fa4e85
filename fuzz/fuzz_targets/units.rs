//! `units::{parse_duration, parse_rate, parse_bytes}` on arbitrary UTF-8: no panic, and every error quotes the
//! input so a scenario author sees which value was refused.
#![no_main]

use cclab_core::units::{parse_bytes, parse_duration, parse_rate};
use libfuzzer_sys::fuzz_target;

fn check<T>(s: &str, r: Result<T, String>) {
    if let Err(e) = r {
        assert!(e.contains(&format!("{s:?}")), "error {e:?} does not quote {s:?}");
    }
}

fuzz_target!(|s: &str| {
    check(s, parse_duration(s));
    check(s, parse_rate(s));
    check(s, parse_bytes(s));
});
