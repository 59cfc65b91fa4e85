//! A whole simulation of any scenario that loads, under an event cap: no panic (debug builds also check that
//! no event is scheduled in the past), and the run invariants of
//! `crates/cclab-sim/tests/run_invariants/mod.rs` hold (determinism, delivered = size when complete,
//! conservation, monotone time, no protocol violation). Input layout as for `scenario`: the scenario text,
//! then `key.path=value` overrides, separated by NUL bytes.
#![no_main]

use cclab_sim::Scenario;
use libfuzzer_sys::fuzz_target;

#[path = "../../crates/cclab-sim/tests/run_invariants/mod.rs"]
mod run_invariants;

/// Events per run (the cap is checked every 65,536): a run costs milliseconds, whatever its duration.
const MAX_EVENTS: u64 = 65_536;
/// Flows per run: a few bytes of `count` may ask for 32,767 flows, whose building alone costs ~0.5 s and
/// ~300 MB here; what copies expand to is checked by `crates/cclab-sim/tests/flow_copies.rs`.
const MAX_FLOWS: usize = 256;

fuzz_target!(|input: &str| {
    let mut parts = input.split('\0');
    let text = parts.next().unwrap_or_default();
    let overrides: Vec<String> = parts.map(str::to_string).collect();
    if let Ok(s) = Scenario::from_toml_str(text, "fuzz.toml", &overrides) {
        if s.config().flow.len() > MAX_FLOWS {
            return;
        }
        if let Err(e) = run_invariants::check(&s, MAX_EVENTS) {
            panic!("{e}\n{input}");
        }
    }
});
