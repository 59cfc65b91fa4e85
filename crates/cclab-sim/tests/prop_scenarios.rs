//! Property tests over random scenarios: random paths (rate, delay, queue, loss, jitter, reordering, return
//! path) and 1–3 flows of every profile and controller, each run twice under an event cap and checked by
//! `run_invariants::check` (determinism, bytes delivered = size when complete, conservation across the
//! forward link, monotone time in the outputs, no protocol violation between correct endpoints).
//! 128 cases from a fixed seed; `PROPTEST_CASES` and `PROPTEST_RNG_SEED` override them.

use cclab_sim::Scenario;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

#[path = "../../cclab-core/tests/fuzz_support/mod.rs"]
mod fuzz_support;
mod run_invariants;

/// Events per run: enough for every generated transfer to finish on most paths, small enough for seconds.
const MAX_EVENTS: u64 = 300_000;

fn queue() -> impl Strategy<Value = String> {
    prop_oneof![
        (1..300u32).prop_map(|n| format!("{{ kind = \"droptail\", limit_packets = {n} }}")),
        (2..100u32).prop_map(|kb| format!("{{ kind = \"droptail\", limit = \"{kb}KB\" }}")),
        (2..30u32).prop_map(|kb| format!("{{ kind = \"red\", min_th = \"{kb}KB\", max_th = \"{}KB\" }}", 2 * kb)),
        Just("{ kind = \"codel\" }".to_string()),
    ]
}

fn link(forward: bool) -> impl Strategy<Value = String> {
    let rate = prop_oneof![
        (1..200u32).prop_map(|m| format!("\"{m}Mbps\"")),
        (64..2000u32).prop_map(|k| format!("\"{k}kbit/s\"")),
        Just("\"unlimited\"".to_string()),
    ];
    let loss = prop_oneof![
        3 => Just(String::new()),
        1 => (1..50u32).prop_map(|p| format!("loss = {{ model = \"bernoulli\", p = {} }}\n", p as f64 / 1000.0)),
    ];
    let reorder = prop_oneof![
        3 => Just(String::new()),
        1 => (1..50u32, 1..5u32).prop_map(|(p, d)| format!("reorder = {{ p = {}, delay = \"{d}ms\" }}\n", p as f64 / 1000.0)),
    ];
    (rate, 0..60u32, 0..3u32, queue(), loss, reorder).prop_map(move |(rate, delay, jitter, queue, loss, reorder)| {
        let dir = if forward { "forward" } else { "return" };
        format!("[path.{dir}]\nrate = {rate}\ndelay = \"{delay}ms\"\njitter = \"{jitter}ms\"\nqueue = {queue}\n{loss}{reorder}")
    })
}

fn flow() -> impl Strategy<Value = String> {
    let kind = select(vec!["quic", "tcp", "dccp"]);
    let cc = select(vec!["newreno", "cubic", "bbr"]);
    (kind, cc, 1..2000u32, 0..200u32).prop_map(|(profile, cc, kb, start)| {
        let cc = if profile == "dccp" {
            String::new()
        } else {
            format!("cc = {{ algorithm = \"{cc}\" }}\n")
        };
        format!("[[flow]]\nprofile = \"{profile}\"\nstart = \"{start}ms\"\nsource = {{ kind = \"bulk\", size = \"{kb}KB\" }}\n{cc}")
    })
}

fn scenario() -> impl Strategy<Value = String> {
    (any::<u32>(), 1..20u32, link(true), link(false), vec(flow(), 1..4)).prop_map(|(seed, secs, fwd, rev, flows)| {
        format!(
            "[scenario]\nname = \"prop\"\nseed = {seed}\nduration = \"{secs}s\"\n\n{fwd}\n{rev}\n{}",
            flows.join("\n")
        )
    })
}

fn config() -> ProptestConfig {
    let c = fuzz_support::config();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() {
        c.cases
    } else {
        128
    };
    ProptestConfig { cases, ..c }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_scenarios_keep_the_run_invariants(text in scenario()) {
        let s = Scenario::from_toml_str(&text, "prop.toml", &[]).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        run_invariants::check(&s, MAX_EVENTS).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    }
}
