//! Prague over DualPI2 on a slow link: the L queue marks on sojourn time from 800 µs (RFC 9332
//! §2.4), less than one 1500-byte packet's serialisation at 10 Mbit/s (1.2 ms), so every packet
//! that leaves right behind another is marked. Prague paces itself (Linux `tcp_prague`: at
//! `cwnd/srtt`, in bursts of at most ~244 µs, `cc/scalable/prague.rs`); with the sender's
//! 10-packet bucket instead, ACK-clocked pairs drew marks at any window and the flow kept 43 %
//! of the link.
//!
//!  sender ──10 Mbit/s, 5 ms, DualPI2──▶ receiver
//!         ◀──10 Mbit/s, 5 ms───────────

use cclab_sim::{run, RunOptions, Scenario};

fn run_prague(sender: &str) -> (f64, f64) {
    let text = format!(
        r#"
[scenario]
name = "prague-pacing"
duration = "10s"

[path.forward]
rate = "10Mbps"
delay = "5ms"
queue = {{ kind = "dualpi2" }}

[path.return]
rate = "10Mbps"
delay = "5ms"

[[flow]]
source = {{ kind = "bulk", size = "1GB" }}
cc = {{ algorithm = "prague" }}
{sender}
"#
    );
    let s = Scenario::from_toml_str(&text, "prague-pacing.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&s, RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let f = &out.summary.flows[0];
    (out.summary.links[0].utilisation, f.rtt_p50_s.unwrap_or(f64::NAN))
}

#[test]
fn prague_paces_itself_and_fills_a_slow_dualpi2_link() {
    let (util, rtt_p50) = run_prague("");
    // ~0.97 here (0.43 with 10-packet bursts), with the L queue's delay near its ramp (~1 ms).
    assert!(util > 0.9, "utilisation {util}");
    assert!(rtt_p50 < 0.0125, "median RTT {rtt_p50} s on a 10 ms path");
    // The sender's own bucket set to one packet gives the same: the bursts were the cause.
    let (one, _) = run_prague("sender = { pacing = { enabled = true, burst_packets = 1 } }");
    assert!(
        (one - util).abs() < 0.03,
        "burst_packets = 1: {one}, Prague's own: {util}"
    );
}
