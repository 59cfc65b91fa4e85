//! BBRv3 end to end over one bottleneck, against the draft's design goals
//! (draft-ietf-ccwg-bbr-01 §1, §5.3.3.5): high throughput under random loss well below its 2 %
//! loss threshold, and a queue of about one BDP on a deep buffer.
//!
//! ```text
//!  sender ──forward: 100 Mbit/s, 20 ms, loss, drop-tail──▶ receiver
//!         ◀──return: 100 Mbit/s, 20 ms──────────────────
//! ```
//! RTT 40 ms, BDP = 100 Mbit/s × 40 ms = 500 kB.

use cclab_sim::{run, RunOptions, RunOutput, Scenario};

/// Bottleneck rate, bit/s.
const RATE: f64 = 100e6;
/// Base RTT, s.
const RTT: f64 = 0.040;

fn scenario(duration: &str, queue: &str, loss: &str, algorithm: &str) -> Scenario {
    let text = format!(
        r#"
[scenario]
name = "bbr3"
duration = "{duration}"

[path.forward]
rate = "100Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "{queue}" }}
loss = {loss}

[path.return]
rate = "100Mbps"
delay = "20ms"

[[flow]]
source = {{ kind = "bulk", size = "10GB" }}
cc = {{ algorithm = "{algorithm}" }}

[output]
timeseries_interval = "10ms"
"#
    );
    Scenario::from_toml_str(&text, "bbr3.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn path(duration: &str, queue: &str, loss: &str, algorithm: &str) -> RunOutput {
    run(&scenario(duration, queue, loss, algorithm), RunOptions::default()).unwrap()
}

fn column<'a>(out: &'a RunOutput, name: &str) -> &'a [f64] {
    let cols = out.timeseries.columns();
    cols.into_iter().find(|(n, _)| *n == name).expect("column").1
}

/// Goodput over 1..20 s (after Startup) from the time series, bit/s.
fn goodput_after_startup(out: &RunOutput) -> f64 {
    let (t, acked) = (column(out, "time_s"), column(out, "bytes_acked"));
    let at = |s: f64| acked[t.iter().position(|&x| x >= s).expect("sampled")];
    (at(19.99) - at(1.0)) * 8.0 / (19.99 - 1.0)
}

#[test]
fn bbr3_at_one_percent_random_loss_keeps_most_of_the_link_where_cubic_collapses() {
    // 1 BDP of buffer; 1 % Bernoulli loss at the link's entrance, half BBR.LossThresh (2 %).
    let loss = r#"{ model = "bernoulli", p = 0.01 }"#;
    let out = path("20s", "500KB", loss, "bbr3");
    let f = &out.summary.flows[0];
    assert!((0.008..0.012).contains(&f.loss_rate), "loss rate {}", f.loss_rate);
    // The most a flow can deliver: the payload share of each 1500 B datagram at line rate.
    let ceiling = RATE * f.bytes_delivered as f64 / (f.data_packets_sent as f64 * 1500.0);
    let share = goodput_after_startup(&out) / ceiling;
    // Not the 90 % issue #12 hoped for, by design. Outside probes, each round with loss cuts
    // bw_lo / inflight_lo to the round's best delivery rate and volume (§5.5.10.3; Linux v3
    // `bbr_adapt_lower_bounds` → `bbr_loss_lower_bounds`). ProbeBW_DOWN counts as not probing,
    // so after each probe bw_lo falls to Down's own 0.9× rate; in Cruise the round's best sample
    // is ~0.5 % below bw_lo (1 % lost, 1 % pacing margin), so it decays until the next probe
    // 2–3 s (≤ 63 rounds) later restores it. The draft models exactly this, (1 − loss)^N over
    // N rounds (§5.3.3.8). Measured: 0.84 here, 0.84–0.86 over seeds 1–5 (without the loss
    // response 0.98).
    assert!(share >= 0.80, "BBRv3 kept {share:.3} of the achievable goodput");
    // CUBIC reads every loss as congestion: ~1.22·MSS/(RTT·√p) = 3.7 Mbit/s (Mathis et al.).
    let cubic = goodput_after_startup(&path("20s", "500KB", loss, "cubic"));
    assert!(
        share * ceiling > 10.0 * cubic,
        "BBRv3 {:.3e} vs CUBIC {cubic:.3e} bit/s",
        share * ceiling
    );
}

#[test]
fn bbr3_bounds_its_queue_to_about_one_bdp_on_a_deep_buffer() {
    // A 10-BDP buffer: a loss-based controller would fill it (400 ms of queue).
    let out = path("20s", "5MB", r#"{ model = "none" }"#, "bbr3");
    let f = &out.summary.flows[0];
    assert_eq!(f.lost_packets, 0, "no drops: the queue never reached 10 BDP");
    let (t, srtt) = (column(&out, "time_s"), column(&out, "srtt_s"));
    // Queueing delay after Startup and Drain, in base RTTs (one base RTT of queue = one BDP).
    let queue: Vec<f64> = t
        .iter()
        .zip(srtt)
        .filter(|(&t, s)| t >= 2.0 && !s.is_nan()) // link rows have no srtt
        .map(|(_, &s)| s / RTT - 1.0)
        .collect();
    let mean = queue.iter().sum::<f64>() / queue.len() as f64;
    let max = queue.iter().cloned().fold(0.0, f64::max);
    println!("bbr3 deep buffer: queue mean {mean:.2} BDP, max {max:.2} BDP");
    assert!(max <= 1.5, "queue reached {max:.2} BDP");
    assert!(mean <= 1.0, "mean queue {mean:.2} BDP");
    let util = out
        .summary
        .links
        .iter()
        .find(|l| l.direction == "forward")
        .unwrap()
        .utilisation;
    assert!(
        util >= 0.9,
        "a bounded queue must not cost throughput: utilisation {util:.3}"
    );
}

#[test]
fn bbr3_same_seed_gives_identical_runs_and_another_seed_other_probe_times() {
    // 8 s: Startup, a first probe wait of 2–3 s drawn from the flow's seed, and a probe.
    let s = scenario("8s", "500KB", r#"{ model = "bernoulli", p = 0.01 }"#, "bbr3");
    let outputs = |seed| {
        let out = run(
            &s,
            RunOptions {
                seed: Some(seed),
                ..Default::default()
            },
        )
        .unwrap();
        let mut csv = Vec::new();
        out.timeseries.to_csv(&mut csv).unwrap();
        let mut sum = out.summary;
        (sum.sim.wall_s, sum.sim.cpu_s, sum.sim.events_per_s) = (0.0, 0.0, 0.0);
        (sum.to_json_pretty(), csv)
    };
    let (a, b, c) = (outputs(5), outputs(5), outputs(6));
    assert!(a == b, "same seed, different outputs");
    assert!(a.1 != c.1, "another seed changes the loss pattern and the probe waits");
}
