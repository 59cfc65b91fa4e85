//! `Scenario::from_toml_str` with `--set` overrides on arbitrary UTF-8: no panic, and every error has a
//! message and starts with the origin it was given.
//!
//! Input layout: the scenario text, then zero or more overrides (`key.path=value`), separated by NUL bytes; a
//! catalog scenario file is thus a seed as it is. Relative trace paths resolve against the working directory.
#![no_main]

use cclab_sim::Scenario;
use libfuzzer_sys::fuzz_target;

const ORIGIN: &str = "fuzz.toml";

fuzz_target!(|input: &str| {
    let mut parts = input.split('\0');
    let text = parts.next().unwrap_or_default();
    let overrides: Vec<String> = parts.map(str::to_string).collect();
    if let Err(e) = Scenario::from_toml_str(text, ORIGIN, &overrides) {
        assert!(!e.message().is_empty(), "empty message: {e:?}");
        assert!(e.to_string().starts_with(ORIGIN), "origin missing: {e}");
    }
});
