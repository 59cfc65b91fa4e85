//! Flows of different kinds sharing the AQMs of RFC 9332 (DualPI2) and RFC 8290 (FQ-CoDel).
//!
//! ```text
//!  flow i: sender ──1 Gbit/s, access delay d_i──┐                        ┌── receiver i
//!                                                ├─ bottleneck, AQM ──────┤
//!                                                ┘  (return: same rate)   └
//! ```

use cclab_sim::{run, RunOptions, RunOutput, Scenario};

/// Runs the catalog scenario `path` with overrides `sets`.
fn run_catalog(path: &str, sets: &[&str]) -> RunOutput {
    let file = format!("{}/../../scenarios/{path}", env!("CARGO_MANIFEST_DIR"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let text = std::fs::read_to_string(&file).unwrap();
    let s = Scenario::from_toml_str(&text, &file, &sets).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions::default()).unwrap()
}

/// Each flow's goodput (bits/s of acknowledged bytes) from `from_s` to the end, from the time series.
fn late_rates(out: &RunOutput, from_s: f64) -> Vec<f64> {
    let cols = out.timeseries.columns();
    let col = |name: &str| cols.iter().find(|c| c.0 == name).unwrap().1;
    let (t, flow, acked) = (col("time_s"), col("flow"), col("bytes_acked"));
    let flows = out.summary.flows.len();
    let mut first = vec![None; flows];
    let mut last = vec![(0.0, 0.0); flows];
    // Flow rows only: link rows have no flow (NaN).
    for i in (0..t.len()).filter(|&i| t[i] >= from_s && !flow[i].is_nan()) {
        let f = flow[i] as usize;
        first[f].get_or_insert((t[i], acked[i]));
        last[f] = (t[i], acked[i]);
    }
    (0..flows)
        .map(|f| {
            let (t0, a0) = first[f].expect("samples after from_s");
            8.0 * (last[f].1 - a0) / (last[f].0 - t0)
        })
        .collect()
}

#[test]
fn prague_and_cubic_share_dualpi2_within_a_factor_of_two() {
    // 100 Mbit/s, 20 ms RTT: the catalog scenario. Prague leaves slow start at the first CE
    // mark, a few packets into the L queue, and then grows by one MSS per RTT for 500 round trips
    // (10 s), (20/25)² MSS after (`cc/scalable/prague.rs`); the rates are compared over the
    // second half of 20 s.
    let out = run_catalog("l4s-dualpi2-prague-cubic.toml", &[]);
    let s = &out.summary;
    let (prague, cubic) = (&s.flows[0], &s.flows[1]);
    let rates = late_rates(&out, 10.0);
    let ratio = rates[0] / rates[1];
    eprintln!(
        "10–20 s: prague {:.1} Mbit/s srtt {:?}, cubic {:.1} Mbit/s srtt {:?}; CE marks {}, lost {}/{}",
        rates[0] / 1e6,
        prague.srtt_s,
        rates[1] / 1e6,
        cubic.srtt_s,
        s.links.iter().map(|l| l.ecn_marks).sum::<u64>(),
        prague.lost_packets,
        cubic.lost_packets
    );
    // The bound holds for the catalog's seed (1.93), not for the model in general: seeds 2-5 give 2.16, 2.26,
    // 1.58 and 2.39 (27 November 2026), a mean of 2.06, so Prague takes about twice CUBIC's rate here, more than
    // RFC 9332 §2.1's coupling aims for. Open; a failure after a change may be this spread, not a regression.
    assert!((0.5..=2.0).contains(&ratio), "rate ratio prague/cubic {ratio}");
    // Together they fill the link (payload share of a 1500 B datagram ≈ 0.96).
    let total = rates[0] + rates[1];
    assert!(total > 0.9 * 100e6 * 0.96, "total goodput {total}");
    // The L queue keeps Prague's RTT near the base RTT while CUBIC's includes the C queue.
    let (rp, rc) = (prague.srtt_s.unwrap(), cubic.srtt_s.unwrap());
    assert!(rp < 0.0225 && rc > rp + 0.005, "srtt prague {rp} s, cubic {rc} s");
    // Prague is controlled by CE marks, not losses.
    assert_eq!(prague.lost_packets, 0);
    assert!(
        prague.ecn_marks.expect("prague turns ECN on") > 100,
        "{:?}",
        prague.ecn_marks
    );
    assert_eq!(cubic.ecn_marks, None, "CUBIC stays Not-ECT");
}

#[test]
fn fq_codel_shares_fairly_among_three_rtts() {
    // 10, 40 and 100 ms RTT on 50 Mbit/s (the catalog scenario, shortened to 10 s).
    let out = run_catalog("fq-codel-rtt-fairness.toml", &["scenario.duration=10s"]);
    let s = &out.summary;
    let goodputs: Vec<f64> = s.flows.iter().map(|f| f.goodput_bps / 1e6).collect();
    let jain = s.fairness_jain.expect("three flows");
    eprintln!("goodputs {goodputs:?} Mbit/s, Jain {jain}");
    assert!(jain >= 0.98, "Jain {jain}: {goodputs:?}");
}

const DCTCP_TCP: &str = r#"
[scenario]
name = "dctcp-tcp-dualpi2"
duration = "5s"

[path.forward]
rate = "50Mbps"
delay = "10ms"
queue = { kind = "dualpi2" }

[path.return]
rate = "50Mbps"
delay = "10ms"

[[flow]]
profile = "tcp"
tcp = { accecn = true }
source = { kind = "bulk", size = "10GB" }
cc = { algorithm = "dctcp", ect1 = true }
"#;

#[test]
fn dctcp_over_tcp_with_accecn_fills_the_l_queue_without_loss() {
    let run_with = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let s = Scenario::from_toml_str(DCTCP_TCP, "dctcp.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
        run(&s, RunOptions::default()).unwrap()
    };
    let out = run_with(&[]);
    let f = &out.summary.flows[0];
    // Slow start ends at the first CE mark, a few packets into the L queue; Reno's one MSS per
    // RTT then needs ~1.5 s to fill the 83-packet BDP, so the rate is taken over the last 2.5 s.
    let rate = late_rates(&out, 2.5)[0];
    eprintln!(
        "dctcp: {:.1} Mbit/s, srtt {:?}, lost {}",
        rate / 1e6,
        f.srtt_s,
        f.lost_packets
    );
    // ECT(1) puts DCTCP in the L queue: CE marks hold its RTT within ~1 ms of the base 20 ms.
    assert_eq!(f.lost_packets, 0);
    assert!(f.srtt_s.unwrap() < 0.0215, "srtt {:?}", f.srtt_s);
    assert!(rate > 0.9 * 50e6 * 0.96, "goodput {rate}");
    // The AccECN option adds 12 bytes to each pure ACK (52 → 64 bytes with timestamps).
    let plain = run_with(&["flow.0.tcp.accecn=false"]).summary;
    let per_ack = |f: &cclab_sim::summary::FlowSummary| f.ack_bytes as f64 / f.acks_sent as f64;
    let (with, without) = (per_ack(f), per_ack(&plain.flows[0]));
    assert!((with - without - 12.0).abs() < 0.5, "{with} vs {without}");
}
