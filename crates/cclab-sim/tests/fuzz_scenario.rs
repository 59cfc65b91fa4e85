//! Property fuzzing of the scenario loader (`Scenario::from_toml_str`) and `--set` overrides, the stable
//! counterpart of `fuzz/fuzz_targets/scenario.rs`.
//!
//! Inputs are line- and token-level mutations of the catalog files under `scenarios/` (plus a small built-in
//! scenario, so the test means something before the catalog exists) and random override key paths and values.
//! Nothing may panic, and every error must have a message and start with the origin it was given.
//! Fixed seed; `PROPTEST_RNG_SEED` and `PROPTEST_CASES` override it and the case count.

use std::path::{Path, PathBuf};

use cclab_core::Dur;
use cclab_sim::scenario::Override;
use cclab_sim::{Scenario, ScenarioError};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;

#[path = "../../cclab-core/tests/fuzz_support/mod.rs"]
mod fuzz_support;
use fuzz_support::config;

/// A valid scenario touching most tables: the mutation base while `scenarios/` is empty.
const BASE: &str = r#"
[scenario]
name = "fuzz-base"
description = "built-in base for fuzz_scenario"
seed = 7
duration = "10s"

[path.forward]
rate = "20Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "64KB" }
loss = { model = "bernoulli", p = 0.01 }
reorder = { p = 0.001, delay = "1ms" }

[path.return]
rate = "unlimited"
delay = "20ms"

[[flow]]
profile = "quic"
source = { kind = "bulk", size = "10MB" }
cc = { algorithm = "cubic" }
quic = { max_udp_payload = "1200B" }

[[flow]]
profile = "tcp"
start = "1s"
source = { kind = "cbr", packet_size = "1200B", rate = "1Mbps", duration = "2s" }

[output]
timeseries_interval = "10ms"
"#;
const BASE_ORIGIN: &str = "<fuzz-base>";

/// `(origin, text)` of the built-in base and every `*.toml` under `scenarios/`, in path order.
fn catalog() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"),
        &mut paths,
    );
    paths.sort();
    let files = paths
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(&p).ok()?)));
    std::iter::once((BASE_ORIGIN.to_string(), BASE.to_string()))
        .chain(files)
        .collect()
}

/// Keys of the schema, so that mutations and overrides reach deep tables.
#[rustfmt::skip]
const KEYS: &[&str] = &[
    "scenario", "name", "seed", "duration", "topology", "path", "forward", "return", "rate", "delay", "queue",
    "kind", "limit", "limit_packets", "loss", "model", "p", "jitter", "reorder", "max_pps", "per_packet_cost",
    "thin_acks", "trace", "cross_traffic", "hosts", "sender", "receiver", "flow", "profile", "quic", "tcp", "dccp",
    "max_udp_payload", "dcid_len", "mss", "timestamps", "start", "source", "size", "packet_size", "cc", "algorithm",
    "access", "output", "timeseries_interval", "qlog", "min_th", "max_th", "max_p", "w_q", "target", "interval",
];

/// Values of every TOML type, valid and invalid units, and edge numbers.
#[rustfmt::skip]
const VALUES: &[&str] = &[
    "\"20ms\"", "\"0s\"", "\"100Mbps\"", "\"0.4bps\"", "\"unlimited\"", "\"1500B\"", "\"1e400GB\"", "\"-5ms\"",
    "\"droptail\"", "\"red\"", "\"codel\"", "\"bernoulli\"", "\"gilbert-elliott\"", "\"newreno\"", "\"cubic\"",
    "\"bbr\"", "\"bbr3\"", "\"quic\"", "\"tcp\"", "\"dccp\"", "\"bulk\"", "\"cbr\"", "\"dumbbell\"", "\"p2p\"",
    "\"no/such/trace\"", "0", "1", "-1", "0.5", "1e308", "nan", "inf", "18446744073709551615",
    "9223372036854775807", "true", "false", "[]", "[1, \"a\"]", "{}", "{ kind = \"red\" }", "1979-05-27T07:32:00Z",
    "\"\"", "\"a\\nb\"",
];

/// Structural TOML fragments for token insertions.
#[rustfmt::skip]
const TOKENS: &[&str] = &[
    "=", "\"", "'", "[", "]", "[[", "]]", "{", "}", ",", ".", "\n", "#", " ", "\\", "\"\"\"",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![4 => select(VALUES).prop_map(str::to_string), 1 => "[ -~]{0,12}"]
}

/// A key path such as `path.forward.queue.limit`, `flow[1].cc.algorithm` or `flow.0.x`.
fn key_path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        6 => select(KEYS).prop_map(str::to_string),
        1 => "[a-z_]{1,8}",
        1 => (0..4usize).prop_map(|i| i.to_string()),
        1 => (select(KEYS), 0..4usize).prop_map(|(k, i)| format!("{k}[{i}]")),
        1 => "[\\[\\]. a-z0-9]{0,6}",
    ];
    vec(segment, 1..5).prop_map(|s| s.join("."))
}

fn override_arg() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (key_path(), value()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => any::<String>(),
    ]
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    /// Replaces the value of the i-th `key = value` line (mod their number).
    SetValue(usize, String),
    InsertLine(usize, String),
    InsertToken(usize, String),
    DeleteChars(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let line = prop_oneof![
        (select(KEYS), value()).prop_map(|(k, v)| format!("{k} = {v}")),
        key_path().prop_map(|k| format!("[{k}]")),
        key_path().prop_map(|k| format!("[[{k}]]")),
    ];
    let token = prop_oneof![
        select(TOKENS).prop_map(str::to_string),
        select(KEYS).prop_map(str::to_string),
        value()
    ];
    prop_oneof![
        2 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        8 => (any::<usize>(), value()).prop_map(|(i, v)| Mutation::SetValue(i, v)),
        2 => (any::<usize>(), line).prop_map(|(i, l)| Mutation::InsertLine(i, l)),
        1 => (any::<usize>(), token).prop_map(|(i, t)| Mutation::InsertToken(i, t)),
        1 => (any::<usize>(), 1..16usize).prop_map(|(i, n)| Mutation::DeleteChars(i, n)),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len().max(1);
    match m {
        Mutation::DeleteLine(i) if !lines.is_empty() => drop(lines.remove(i % n)),
        Mutation::DuplicateLine(i) if !lines.is_empty() => lines.insert(i % n, lines[i % n].clone()),
        Mutation::SwapLines(a, b) if !lines.is_empty() => lines.swap(a % n, b % n),
        Mutation::SetValue(i, v) => {
            let mut assignments: Vec<&mut String> = lines.iter_mut().filter(|l| l.contains('=')).collect();
            let count = assignments.len();
            if let Some(l) = assignments.get_mut(i % count.max(1)) {
                let key = l.split('=').next().unwrap_or_default().trim_end().to_string();
                **l = format!("{key} = {v}");
            }
        }
        Mutation::InsertLine(i, l) => lines.insert(i % (lines.len() + 1), l.clone()),
        Mutation::InsertToken(i, t) => {
            let at = char_boundary(text, *i);
            return format!("{}{t}{}", &text[..at], &text[at..]);
        }
        Mutation::DeleteChars(i, k) => {
            let (at, end) = (char_boundary(text, *i), char_boundary(text, i.wrapping_add(*k)));
            return format!("{}{}", &text[..at], &text[end.max(at)..]);
        }
        _ => {}
    }
    lines.join("\n")
}

/// The byte offset of char `i % (chars + 1)` of `text` (its end for the last one).
fn char_boundary(text: &str, i: usize) -> usize {
    let n = text.chars().count() + 1;
    text.char_indices().nth(i % n).map_or(text.len(), |(b, _)| b)
}

/// Loading must not panic, and an error must have a message and start with its origin.
fn check_load(
    text: &str,
    origin: &str,
    overrides: &[String],
) -> Result<Result<Scenario, ScenarioError>, TestCaseError> {
    let r = Scenario::from_toml_str(text, origin, overrides);
    if let Err(e) = &r {
        prop_assert!(!e.message().trim().is_empty(), "empty message: {:?}", e);
        prop_assert!(
            e.to_string().starts_with(origin),
            "{} does not start with {}",
            e,
            origin
        );
        prop_assert!(e.key_path() != Some(""), "{:?}", e);
    }
    Ok(r)
}

#[test]
fn scenario_fuzz_base_is_valid() {
    let s = Scenario::from_toml_str(BASE, BASE_ORIGIN, &[]).unwrap();
    assert_eq!(s.config().flow.len(), 2);
}

/// The hand-written seeds of the `scenario` fuzz target (text, then NUL-separated overrides) load.
#[test]
fn scenario_fuzz_corpus_seeds_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/scenario");
    let mut seeds = 0;
    for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        let input = std::fs::read_to_string(&path).unwrap();
        let mut parts = input.split('\0');
        let text = parts.next().unwrap_or_default();
        let overrides: Vec<String> = parts.map(str::to_string).collect();
        Scenario::from_toml_str(text, "fuzz.toml", &overrides).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        seeds += 1;
    }
    assert!(seeds >= 2, "{seeds} seeds");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn scenario_mutated_catalog_never_panics(
        (origin, text) in select(catalog()),
        mutations in vec(mutation(), 1..3),
        overrides in vec(override_arg(), 0..3),
    ) {
        let text = mutations.iter().fold(text, |t, m| apply(&t, m));
        let _ = check_load(&text, &origin, &overrides)?;
    }

    /// A malformed `--set` argument fails the load, and the error quotes an argument.
    #[test]
    fn scenario_random_overrides_never_panic((origin, text) in select(catalog()), overrides in vec(override_arg(), 1..4)) {
        let r = check_load(&text, &origin, &overrides)?;
        if let Some(bad) = overrides.iter().find(|a| Override::parse(a).is_err()) {
            let e = r.expect_err(bad);
            let named = overrides.iter().any(|a| e.message().contains(&format!("--set {a}")));
            prop_assert!(named, "{} does not name a --set argument (first malformed: {:?})", e, bad);
        }
    }

    /// Overrides replace values: `--set scenario.seed=N` and `--set path.forward.delay="Xus"` land in the config.
    #[test]
    fn scenario_overrides_set_values(seed in any::<u64>(), delay_us in 0..10_000_000u64) {
        let args = [format!("scenario.seed={seed}"), format!("path.forward.delay={delay_us}us")];
        let s = Scenario::from_toml_str(BASE, BASE_ORIGIN, &args);
        if seed > i64::MAX as u64 {
            // TOML integers are i64 (TOML 1.0 §Integer): the value stays a string and the schema refuses it.
            let e = s.unwrap_err();
            prop_assert_eq!(e.key_path(), Some("scenario.seed"));
        } else {
            let s = s.unwrap();
            prop_assert_eq!(s.config().scenario.seed, seed);
            prop_assert_eq!(s.config().path.forward.delay, Dur::from_micros(delay_us));
        }
    }
}
