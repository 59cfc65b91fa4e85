//! `[flow] handshake`: connection setup before data, against closed forms.
//!
//! ```text
//!  client = data sender ──forward: 100 Mbit/s, 10 ms──▶ server = data receiver
//!                       ◀──return: 100 Mbit/s, 10 ms──
//! ```
//! One 1000-byte write: the receiver completes one one-way delay after the first data packet
//! leaves, so a handshake adds exactly its own round trip and serialisations.

use cclab_sim::summary::Summary;
use cclab_sim::{run, RunOptions, Scenario};

const ONE_PACKET: &str = r#"
[scenario]
name = "handshake"
duration = "10s"

[path.forward]
rate = "100Mbps"
delay = "10ms"

[path.return]
rate = "100Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "1000B" }
"#;

fn summary(sets: &[&str]) -> Summary {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = Scenario::from_toml_str(ONE_PACKET, "test.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions::default()).unwrap().summary
}

fn completion(sets: &[&str]) -> f64 {
    let s = summary(sets);
    assert_eq!(s.flows[0].bytes_delivered, 1000);
    s.flows[0].completion_time_s.expect("completes")
}

/// Serialisation of `bytes` at 100 Mbit/s, seconds.
fn ser(bytes: f64) -> f64 {
    bytes * 8.0 / 100e6
}

#[test]
fn quic_handshake_delays_first_data_by_one_round_trip() {
    let none = completion(&[]);
    let hs = completion(&["flow[0].handshake=true"]);
    // Initial: 1200 B + 28 B IP/UDP. Server flight 3000 B: 1472 + 1472 + 56 B of payload, each
    // + 28 B. The client ACKs the first two datagrams at once with 1228-byte datagrams
    // (RFC 9000 §13.2.1, §14.1); the third completes the flight while the second ACK is still
    // being serialised, so its Finished (90 + 28 B) and the data follow that ACK.
    let expect = 0.020 + ser(1228.0) + ser(1500.0) + ser(1500.0) + ser(1228.0) + ser(118.0);
    assert!(((hs - none) - expect).abs() < 1e-9, "{hs} - {none} vs {expect}");
    // RFC 9002 §5.1: the handshake's round trip is the first sample; without one the sender
    // paced its first packet at the 333 ms initial RTT and never saw a smaller minimum.
    let min_rtt = summary(&["flow[0].handshake=true"]).flows[0].min_rtt_s.unwrap();
    assert!(
        (min_rtt - (0.020 + ser(1228.0) + ser(1500.0))).abs() < 1e-9,
        "{min_rtt}"
    );
}

#[test]
fn quic_server_flight_over_three_times_the_initial_waits_a_round_trip() {
    // 6000 B: 4 × 1472 + 112. RFC 9000 §8.1 lets the server send 3 × 1200 = 3600 B before the
    // client's ACK validates its address: two datagrams (2944 B). The client's ACK of the first
    // (1228 B) reaches the server one round trip after that datagram arrived; the server then
    // sends the rest (1500 + 1500 + 140 B) and the client ACKs the next two as above. Finished
    // leaves after the ACK of the flight's second-to-last datagram (times from the start):
    let d1 = 0.020 + ser(1228.0) + ser(1500.0);
    let big_finished = d1 + ser(1228.0) + 0.020 + ser(1500.0) + ser(1500.0) + ser(1228.0);
    let small_finished = d1 + ser(1500.0) + ser(1228.0);
    let small = completion(&["flow[0].handshake=true"]);
    let big = completion(&["flow[0].handshake={ server_flight = \"6000B\" }"]);
    let expect = big_finished - small_finished;
    assert!(((big - small) - expect).abs() < 1e-9, "{big} - {small} vs {expect}");
}

#[test]
fn tcp_three_way_handshake_delays_first_data_by_one_round_trip() {
    let none = completion(&["flow[0].profile=\"tcp\""]);
    let hs = completion(&["flow[0].profile=\"tcp\"", "flow[0].handshake=true"]);
    // SYN and SYN-ACK: 20 B IP + 20 B TCP + 20 B options; the first segment carries the ACK.
    let expect = 0.020 + ser(60.0) + ser(60.0);
    assert!(((hs - none) - expect).abs() < 1e-9, "{hs} - {none} vs {expect}");
}

#[test]
fn handshake_is_rejected_for_dccp_and_checked() {
    let err = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Scenario::from_toml_str(ONE_PACKET, "test.toml", &sets)
            .unwrap_err()
            .to_string()
    };
    let e = err(&["flow[0].profile=\"dccp\"", "flow[0].handshake=true"]);
    assert!(e.contains("flow[0].handshake") && e.contains("dccp"), "{e}");
    let e = err(&["flow[0].handshake={ server_flight = \"0B\" }"]);
    assert!(e.contains("flow[0].handshake.server_flight"), "{e}");
    let e = err(&["flow[0].handshake={ flight = \"1KB\" }"]);
    assert!(e.contains("unknown field"), "{e}");
}

#[test]
fn syn_loss_window_is_checked_and_tcp_only() {
    let key_of = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = Scenario::from_toml_str(ONE_PACKET, "test.toml", &sets).unwrap_err();
        (e.key_path().map(str::to_string), e.to_string())
    };
    let tcp = "flow[0].profile=\"tcp\"";
    for rule in ["rfc5681", "linux"] {
        let set = format!("flow[0].handshake={{ syn_loss_window = \"{rule}\" }}");
        assert_eq!(completion(&[tcp, &set]), completion(&[tcp, "flow[0].handshake=true"]));
        // RFC 9002 §7.2 keeps QUIC's window after a lost Initial: nothing to choose.
        let (key, e) = key_of(&[&set]);
        assert_eq!(key.as_deref(), Some("flow[0].handshake.syn_loss_window"), "{e}");
        assert!(e.contains("quic"), "{e}");
    }
    let (key, e) = key_of(&[tcp, "flow[0].handshake={ syn_loss_window = \"bsd\" }"]);
    assert_eq!(key.as_deref(), Some("flow[0].handshake.syn_loss_window"), "{e}");
    assert!(e.contains("rfc5681") && e.contains("linux"), "{e}");
}
