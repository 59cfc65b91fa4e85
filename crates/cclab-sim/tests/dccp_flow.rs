//! `profile = "dccp"` flows: the TFRC endpoints of cclab-core built from `[flow.tfrc]`, run by
//! the simulator, checked against closed forms (RFC 5348, RFC 4342, RFC 4340 header sizes).
//!
//! ```text
//!  TfrcSender ──forward: unlimited, 500 µs──▶ TfrcReceiver
//!             ◀──return: unlimited, 500 µs───
//! ```

use cclab_sim::{run, RunOptions, Scenario};

const CBR_1MS: &str = r#"
[scenario]
name = "dccp"
duration = "10s"

[path.forward]
rate = "unlimited"
delay = "500us"

[path.return]
rate = "unlimited"
delay = "500us"

[[flow]]
profile = "dccp"
source = { kind = "cbr", packet_size = "22B", rate = "1800bps" }

[flow.tfrc]
slow_start_floor = "segment-per-rtt"
nofeedback_min = "100ms"
clock = { resolution = "1us" }
"#;

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn dccp_flow_runs_tfrc_and_settles_at_a_segment_per_rtt() {
    let out = run(&scenario(CBR_1MS), RunOptions::default()).unwrap();
    let f = &out.summary.flows[0];
    // One write every 22·8/1800 s = 97.8 ms for 10 s: 103 packets (the first at 0).
    assert_eq!(f.data_packets_sent, 103);
    // Each write is > 4 quarter-RTTs after the last: CCVal moves by 5 and the receiver sends
    // feedback for every packet (RFC 4342 §10.3).
    assert_eq!(f.acks_sent, f.data_packets_sent);
    // Feedback = IPv4 20 + DCCP generic header 16 + Ack subheader 8 + options 20 (RFC 4340 §5).
    assert_eq!(f.ack_bytes, 64 * f.acks_sent);
    assert_eq!(f.srtt_s, Some(1e-3));
    // rfc3448bis-00, not idle for 2 RTT at feedback: X = max(min(2X, 2·X_recv), s/R) = s/R.
    let cols = out.timeseries.columns();
    let pacing = cols.iter().find(|c| c.0 == "pacing_rate_bps").unwrap().1;
    // Link rows follow the flow's in each round; the flow's last row is the last non-empty value.
    let x = *pacing.iter().rev().find(|v| !v.is_nan()).unwrap();
    assert!((x - 22.0 * 8.0 / 1e-3).abs() <= 1.0, "8·X = {x} bit/s");
}

#[test]
fn tfrc_table_is_rejected_outside_dccp() {
    let text = CBR_1MS.replace("profile = \"dccp\"", "profile = \"quic\"");
    let e = Scenario::from_toml_str(&text, "test.toml", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("flow[0].tfrc"), "{e}");
}
