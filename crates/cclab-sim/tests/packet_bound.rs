//! `[scenario] max_packets_in_network`: a path that nothing limits stops with an error naming the key
//! while the memory is still there, at the same point every time; a path with a bottleneck never meets
//! the bound; and a bound of 0 is refused before anything runs.

use cclab_sim::{run, RunError, RunOptions, Scenario};

/// Links of unlimited rate between hosts whose CPU costs nothing: a bulk flow's window doubles every
/// 100 µs round trip, and nothing ever drops a packet.
const UNLIMITED: &str = r#"
[scenario]
name = "unlimited"
duration = "10s"
max_packets_in_network = 50000

[path.forward]
rate = "unlimited"
delay = "50us"

[path.return]
rate = "unlimited"
delay = "50us"

[[flow]]
source = { kind = "bulk", size = "100GB" }
cc = { algorithm = "cubic" }
"#;

fn load(text: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml_str(text, "bound.toml", &sets).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_window_nothing_limits_stops_at_the_bound_naming_the_key() {
    let stop = |s: &Scenario| match run(s, RunOptions::default()) {
        Err(RunError::PacketBound { held, at, max }) => (held, at, max),
        other => panic!(
            "expected the packet bound, got {:?}",
            other.map(|o| o.summary.sim.events)
        ),
    };
    let s = load(UNLIMITED, &[]);
    let (held, at, max) = stop(&s);
    assert_eq!(max, 50_000);
    assert!(held > max, "held {held}");
    // Counted every 65,536 events: the window overshoots by what those events send, not by orders of magnitude.
    assert!(held < 20 * max, "held {held}");
    assert!(at > 0.0 && at < 0.1, "stopped at {at} s of 10");
    // The same scenario stops at the same count and instant.
    assert_eq!(stop(&s), (held, at, max));
    let msg = run(&s, RunOptions::default()).unwrap_err().to_string();
    assert!(msg.starts_with("scenario.max_packets_in_network:"), "{msg}");
    assert!(
        msg.contains("\"unlimited\"") && msg.contains("raise the bound"),
        "{msg}"
    );
}

#[test]
fn a_path_with_a_bottleneck_never_meets_the_bound() {
    // The same flow on a 100 Mbit/s link with a 100-packet queue holds a few hundred packets at most.
    let text = UNLIMITED
        .replacen(
            "rate = \"unlimited\"",
            "rate = \"100Mbps\"\nqueue = { kind = \"droptail\", limit_packets = 100 }",
            1,
        )
        .replace("size = \"100GB\"", "size = \"5MB\"")
        .replace("max_packets_in_network = 50000", "max_packets_in_network = 1000");
    let out = run(&load(&text, &[]), RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.summary.flows[0].bytes_delivered, 5_000_000);
}

#[test]
fn a_bound_of_zero_is_refused_before_the_run() {
    let sets = vec!["scenario.max_packets_in_network=0".to_string()];
    let e = Scenario::from_toml_str(UNLIMITED, "bound.toml", &sets).unwrap_err();
    assert_eq!(e.key_path(), Some("scenario.max_packets_in_network"), "{e}");
    assert!(e.to_string().contains("at least 1"), "{e}");
}
