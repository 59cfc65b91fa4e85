//! Whole runs with the real endpoints of cclab-core, against closed forms.
//!
//! ```text
//!  sender ──forward: rate, one-way delay, drop-tail──▶ receiver
//!         ◀──return: rate, one-way delay──────────────
//! ```

use cclab_sim::summary::Summary;
use cclab_sim::{run, RunOptions, Scenario};

fn summary(text: &str, sets: &[&str]) -> Summary {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = Scenario::from_toml_str(text, "test.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions::default()).unwrap().summary
}

const BULK: &str = r#"
[scenario]
name = "bulk"
duration = "60s"

[path.forward]
rate = "100Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "250KB" }   # 1 BDP

[path.return]
rate = "100Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "100MB" }
cc = { algorithm = "newreno" }
"#;

#[test]
fn newreno_100mb_on_100mbps_20ms_completes_within_10_percent_of_ideal() {
    let s = summary(BULK, &[]);
    let f = &s.flows[0];
    assert_eq!(f.bytes_delivered, 100_000_000);
    // Ideal: each distinct data packet (a full 1500 B datagram) once at line rate, plus one RTT.
    let distinct = (f.data_packets_sent - f.retransmitted_packets) as f64;
    let ideal = distinct * 1500.0 * 8.0 / 100e6 + 0.020;
    let t = f.completion_time_s.expect("completes");
    assert!(t < ideal * 1.10, "completion {t} s vs ideal {ideal} s");
    assert!(t > ideal * 0.999, "faster than the line rate: {t} s vs {ideal} s");
}

const DUMBBELL: &str = r#"
[scenario]
name = "dumbbell"
duration = "30s"
topology = "dumbbell"

[path.forward]
rate = "100Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "250KB" }

[path.return]
rate = "100Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "1GB" }
access = { rate = "1Gbps", delay = "1ms" }

[[flow]]
source = { kind = "bulk", size = "1GB" }
access = { rate = "1Gbps", delay = "1ms" }
"#;

#[test]
fn two_newreno_flows_share_a_dumbbell_fairly() {
    let s = summary(DUMBBELL, &[]);
    assert_eq!(s.flows.len(), 2);
    let jain = s.fairness_jain.expect("two flows");
    let goodputs: Vec<f64> = s.flows.iter().map(|f| f.goodput_bps).collect();
    assert!(jain >= 0.95, "Jain {jain}: {goodputs:?}");
    // Together they fill the bottleneck (payload share of a 1500 B datagram ≈ 0.96).
    let total: f64 = goodputs.iter().sum();
    assert!(total > 0.85 * 100e6 * 0.96, "total goodput {total}");
}

const ASYMMETRIC: &str = r#"
[scenario]
name = "asymmetric"
duration = "300s"

[path.forward]
rate = "10Mbps"
delay = "300ms"

[path.return]
rate = "100kbps"
delay = "300ms"
queue = { kind = "droptail", limit_packets = 100000 }

[[flow]]
source = { kind = "bulk", size = "1GB" }
cc = { algorithm = "newreno", slow_start = "hystart++" }
receiver = { ack = { policy = "ratio", ratio = 1 } }
"#;

#[test]
fn ack_limited_goodput_is_return_capacity_times_data_per_ack_size() {
    // RFC 3449 §3.1: with one ACK per data packet and no ACK lost, the return link carries one
    // ACK per packet, so packets/s = return rate / ACK size whatever the forward capacity.
    // (While the return queue fills, the sender runs ahead of its ACKs: ~1.5 MB in 300 s,
    // under 2 % of the total.)
    let s = summary(ASYMMETRIC, &[]);
    let f = &s.flows[0];
    let ack_size = f.ack_bytes as f64 / f.acks_sent as f64;
    let payload = f.bytes_delivered as f64 / s.links[0].packets as f64;
    let expected = 100e3 / (ack_size * 8.0) * payload * 8.0;
    assert!(
        s.links[1].utilisation > 0.95,
        "return link not saturated: {}",
        s.links[1].utilisation
    );
    assert!(
        (f.goodput_bps / expected - 1.0).abs() < 0.05,
        "goodput {} vs {expected}",
        f.goodput_bps
    );
}

#[test]
fn linux_hystart_exits_slow_start_before_the_first_loss() {
    // 100 Mbit/s, 20 ms, a 1-BDP (250 KB) drop-tail queue, Linux CUBIC as deployed without the
    // fq qdisc: no pacing. Classic slow start doubles past BDP + queue (500 KB) and loses
    // packets; Linux HyStart ends slow start on its ACK train or delay test first, and 20 MB
    // later CUBIC's growth from there has still lost nothing.
    let run = |ss: &str| {
        let cc = format!("flow[0].cc={{ algorithm = \"cubic\", slow_start = \"{ss}\" }}");
        summary(
            BULK,
            &[
                &cc,
                "flow[0].sender.pacing={ enabled = false }",
                "flow[0].source.size=20MB",
            ],
        )
    };
    let classic = run("classic");
    assert!(classic.links[0].drops > 0, "classic slow start must overflow the queue");
    let s = run("linux-hystart");
    let f = &s.flows[0];
    assert_eq!(f.bytes_delivered, 20_000_000);
    assert_eq!((s.links[0].drops, f.lost_packets), (0, 0));
    assert!(f.cwnd_max_bytes < 500_000, "cwnd peaked at {} B", f.cwnd_max_bytes);
}
