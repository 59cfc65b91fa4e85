//! Each scenario key at its extremes: a value the model cannot honour is an error naming the key and the
//! range, never a clamp, a flow that silently sends nothing, or a window that grows on loss. Values at the
//! edge of the range still load and run.

use cclab_sim::{run, RunOptions, Scenario, ScenarioError};

const GOOD: &str = r#"
[scenario]
name = "edge"
duration = "2s"

[path.forward]
rate = "10Mbps"
delay = "10ms"

[path.return]
rate = "10Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "100KB" }
"#;

fn load(sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml_str(GOOD, "scenarios/x.toml", &sets)
}

#[track_caller]
fn fails(sets: &[&str], key: &str, words: &str) {
    let e = load(sets).expect_err("must be rejected");
    assert_eq!(e.key_path(), Some(key), "{e}");
    let shown = e.to_string();
    assert!(shown.contains(words), "{shown}");
}

/// Loads, runs and returns the bytes the first flow delivered.
#[track_caller]
fn delivered(sets: &[&str]) -> u64 {
    let s = load(sets).unwrap_or_else(|e| panic!("{sets:?} must load: {e}"));
    let r = run(&s, RunOptions::default()).expect("runs");
    r.summary.flows[0].bytes_delivered
}

#[test]
fn units_beyond_u64_are_errors_not_clamps() {
    // Each of these was clamped to u64::MAX (or 584 years) and ran as if it had been written.
    fails(&["path.forward.delay=1e30s"], "path.forward.delay", "584 years");
    fails(&["scenario.duration=1e12s"], "scenario.duration", "584 years");
    // A tagged table (`source`) is as deep as serde names the key.
    fails(&["flow[0].source.size=1e30B"], "flow[0].source", "2^64");
    fails(&["path.forward.rate=1e9Tbps"], "path.forward.rate", "18446744Tbit/s");
    // The largest values that fit still load.
    assert!(load(&["path.forward.delay=18446744073s", "flow[0].source.size=1e19B"]).is_ok());
}

#[test]
fn durations_past_2_63_ns_are_errors_naming_the_key() {
    // The links add serialisation times to the run's times without saturating: a run ends by 2^63 ns.
    fails(
        &["scenario.duration=9300000000s"],
        "scenario.duration",
        "at most 2^63 ns",
    );
    // The longest run that fits (its time series one row a year, within the output budget) still loads.
    let e = load(&["scenario.duration=9223372036s", "output.timeseries_interval=31557600s"]);
    assert!(e.is_ok(), "{e:?}");
}

#[test]
fn controller_parameters_out_of_range_name_the_key() {
    let nan_loss = "flow[0].cc={algorithm=\"newreno\",loss_reduction_factor=nan}";
    fails(&[nan_loss], "flow[0].cc.loss_reduction_factor", "(0, 1]");
    let growing = "flow[0].cc={algorithm=\"cubic\",beta=2.0}";
    fails(&[growing], "flow[0].cc.beta", "got 2");
    fails(&["flow[0].cc={algorithm=\"cubic\",c=0.0}"], "flow[0].cc.c", "above 0");
    let pq = "flow[0].cc={algorithm=\"cubic-picoquic\",beta=nan}";
    fails(&[pq], "flow[0].cc.beta", "NaN");
    let bbr = "flow[0].cc={algorithm=\"bbr\",initial_window_packets=0}";
    fails(&[bbr], "flow[0].cc.initial_window_packets", "at least 1");
    let bbr3 = "flow[0].cc={algorithm=\"bbr3\",cwnd_gain=0.0}";
    fails(&[bbr3], "flow[0].cc.cwnd_gain", "above 0");
    let dctcp = "flow[0].cc={algorithm=\"dctcp\",gain=nan}";
    fails(&[dctcp], "flow[0].cc.gain", "(0, 1]");
    fails(
        &["flow[0].sender.pacing.gain=0.0"],
        "flow[0].sender.pacing.gain",
        "above 0",
    );
    fails(
        &["flow[0].sender.time_threshold=nan"],
        "flow[0].sender.time_threshold",
        "NaN",
    );
}

#[test]
fn windows_below_one_packet_are_errors_naming_the_packet_size() {
    // Before: these loaded and the flow delivered 0 bytes in the whole run, without a word.
    let iw = "flow[0].cc={algorithm=\"newreno\",initial_window=\"1B\"}";
    fails(&[iw], "flow[0].cc.initial_window", "1472B");
    let prague = "flow[0].cc={algorithm=\"prague\",initial_window=\"0B\"}";
    fails(&[prague], "flow[0].cc.initial_window", "full packet");
    for cubic in ["cubic", "cubic-picoquic"] {
        let iw = format!("flow[0].cc={{algorithm=\"{cubic}\",initial_window=\"1B\"}}");
        fails(&[&iw], "flow[0].cc.initial_window", "full packet");
    }
    let min = "flow[0].cc={algorithm=\"newreno\",minimum_window=\"0B\"}";
    fails(&[min], "flow[0].cc.minimum_window", "full packet");
    fails(
        &["flow[0].sender.receive_window=\"1000B\""],
        "flow[0].sender.receive_window",
        "1472B",
    );
    let tcp = ["flow[0].profile=\"tcp\"", "flow[0].receiver.receive_window=\"1000B\""];
    fails(&tcp, "flow[0].receiver.receive_window", "1448B");
}

#[test]
fn one_packet_windows_and_edge_factors_still_run() {
    // A window of exactly one packet, and factors at the ends of their ranges, are the model's to run.
    let one = "flow[0].cc={algorithm=\"newreno\",initial_window=\"1472B\",minimum_window=\"1472B\"}";
    assert_eq!(delivered(&[one]), 100_000);
    // One packet per round trip and delayed ACK: ~32 KB/s here.
    let rwnd = ["flow[0].sender.receive_window=\"1472B\"", "scenario.duration=\"5s\""];
    assert_eq!(delivered(&rwnd), 100_000);
    let keep = "flow[0].cc={algorithm=\"cubic\",beta=1.0}";
    assert_eq!(
        delivered(&[keep, "path.forward.loss={model=\"bernoulli\",p=0.01}"]),
        100_000
    );
}

#[test]
fn receiver_socket_buffer_below_one_packet_is_an_error() {
    // Before: "1B" loaded and every data packet was dropped at the receiver for the whole run.
    fails(
        &["hosts.receiver.socket_buffer=\"1B\""],
        "hosts.receiver.socket_buffer",
        "1472B for flow[0]",
    );
    assert_eq!(delivered(&["hosts.receiver.socket_buffer=\"3KB\""]), 100_000);
}

#[test]
fn cross_traffic_faster_than_one_packet_per_nanosecond_is_an_error() {
    // Before: 1 B packets at 1 Tbit/s left one per nanosecond (8 Gbit/s), with no word, for 40 s of CPU.
    let fast = "path.forward.cross_traffic={kind=\"cbr\",rate=\"1Tbps\",size=\"1B\"}";
    fails(
        &[fast],
        "path.forward.cross_traffic.rate",
        "at most 8000000000 bit/s for 1B packets",
    );
    assert!(load(&["path.forward.cross_traffic={kind=\"cbr\",rate=\"8Gbps\",size=\"1B\"}"]).is_ok());
}

#[test]
fn cbr_source_faster_than_one_write_per_nanosecond_is_an_error() {
    // Before: 1 B writes at 100 Gbit/s woke the sender every nanosecond (3.8 s of CPU per 20 simulated ms).
    let cbr =
        |size: &str, rate: &str| format!("flow[0].source={{kind=\"cbr\",packet_size=\"{size}\",rate=\"{rate}\"}}");
    fails(
        &[&cbr("1B", "100Gbps")],
        "flow[0].source.rate",
        "at most 8000000000 bit/s for 1B writes",
    );
    fails(&[&cbr("1200B", "9601Gbps")], "flow[0].source.rate", "raise packet_size");
    fails(
        &["flow[0].profile=\"dccp\"", &cbr("10B", "81Gbps")],
        "flow[0].source.rate",
        "for 10B writes",
    );
    // One write per nanosecond, and an empty write (nothing to write at any rate), still load.
    assert!(load(&[&cbr("1B", "8Gbps")]).is_ok());
    assert!(load(&[&cbr("0B", "100Gbps")]).is_ok());
}

#[test]
fn quic_connection_ids_past_20_bytes_are_errors() {
    // Before: dcid_len = 4294967295 wrapped the u32 size sums, and the flow ran faster than with 8 bytes.
    let huge = "flow[0].quic={dcid_len=4294967295}";
    fails(&[huge], "flow[0].quic.dcid_len", "RFC 9000 §17.2");
    fails(&["flow[0].quic={dcid_len=21}"], "flow[0].quic.dcid_len", "at most 20");
    assert!(load(&["flow[0].quic={dcid_len=20}"]).is_ok());
}

#[test]
fn slow_start_and_loss_counts_out_of_range_name_the_key() {
    // Before: NaN jumped cwnd to ssthresh (hundreds of losses); 0 and 0.5 never jumped, a classic slow start
    // under the train's name; a NaN cap meant no cap; 0 train packets and a packet threshold of 0 were
    // silently treated as no pause and 1; bw_probe_max_rounds = 0 made every round a probe time.
    let train = |kv: &str| format!("flow[0].cc={{algorithm=\"cubic\",slow_start={{kind=\"train\",{kv}}}}}");
    let gain = "flow[0].cc.slow_start.bdp_gain";
    fails(&[&train("bdp_gain=nan")], gain, "above 0, got NaN");
    fails(&[&train("bdp_gain=0.0")], gain, "above 0");
    let reno = "flow[0].cc={algorithm=\"newreno\",slow_start={kind=\"train\",bdp_gain=-1.0}}";
    fails(&[reno], gain, "got -1");
    let jump = "flow[0].cc.slow_start.max_jump_factor";
    fails(&[&train("max_jump_factor=nan")], jump, "above 1");
    fails(&[&train("max_jump_factor=1.0")], jump, "no jump can raise");
    let pq = "flow[0].cc={algorithm=\"cubic-picoquic\",slow_start={kind=\"train\",min_train_packets=0}}";
    fails(&[pq], "flow[0].cc.slow_start.min_train_packets", "at least 1");
    fails(
        &["flow[0].sender.packet_threshold=0"],
        "flow[0].sender.packet_threshold",
        "expected a nonzero u64",
    );
    let bbr3 = "flow[0].cc={algorithm=\"bbr3\",bw_probe_max_rounds=0}";
    fails(&[bbr3], "flow[0].cc.bw_probe_max_rounds", "at least 1");
}

#[test]
fn receiver_counts_of_zero_are_errors_not_raised_to_one() {
    // Before: each of these loaded, and the core raised the 0 to 1 without a word.
    let ack = |policy: &str, kv: &str| format!("flow[0].receiver.ack={{policy=\"{policy}\",{kv}}}");
    for (policy, key) in [
        ("ratio", "ratio"),
        ("ratio-after", "first_ratio"),
        ("ratio-after", "then_ratio"),
        ("tcp-delayed", "segments_per_ack"),
    ] {
        let zero = ack(policy, &format!("{key}=0"));
        fails(
            &[&zero],
            &format!("flow[0].receiver.ack.{key}"),
            "expected a nonzero u64",
        );
    }
    fails(
        &["flow[0].receiver.max_ack_ranges=0"],
        "flow[0].receiver.max_ack_ranges",
        "expected a nonzero usize",
    );
    assert_eq!(
        delivered(&[&ack("ratio", "ratio=1"), "flow[0].receiver.max_ack_ranges=1"]),
        100_000
    );
}

#[test]
fn tso_parameters_outside_linux_ranges_name_the_key() {
    let tso = |kv: &str| format!("flow[0].sender.tso={{enabled=true,{kv}}}");
    fails(
        &[&tso("gso_max_size=321")],
        "flow[0].sender.tso.gso_max_size",
        "from 322 to 524288",
    );
    fails(
        &[&tso("gso_max_size=600000")],
        "flow[0].sender.tso.gso_max_size",
        "got 600000",
    );
    fails(
        &[&tso("min_segs=0")],
        "flow[0].sender.tso.min_segs",
        "expected a nonzero u64",
    );
    fails(
        &[&tso("min_segs=65536")],
        "flow[0].sender.tso.min_segs",
        "from 1 to 65535",
    );
    fails(
        &[&tso("win_divisor=4294967296")],
        "flow[0].sender.tso.win_divisor",
        "to 2147483647",
    );
    fails(&[&tso("rtt_log=256")], "flow[0].sender.tso.rtt_log", "from 0 to 255");
}

#[test]
fn tso_at_its_edges_still_runs() {
    // One segment per aggregate from the smallest GSO size; no deferral rule but "more than 3 segments".
    for kv in [
        "gso_max_size=322,min_segs=1,win_divisor=0,rtt_log=0",
        "gso_max_size=524288,rtt_log=255",
    ] {
        let set = format!("flow[0].sender.tso={{enabled=true,{kv}}}");
        assert_eq!(delivered(&[&set]), 100_000, "{kv}");
    }
}

#[test]
fn slow_start_and_loss_counts_at_their_edges_still_run() {
    let edges = [
        "flow[0].cc={algorithm=\"cubic\",slow_start={kind=\"train\",bdp_gain=1e-9,max_jump_factor=1.001,\
         min_train_packets=1,pacing_pause_on_failed_estimate=true,long_rtt_threshold=\"0s\",min_interval=\"0s\"}}",
        // Linux HyStart testing from the first ACK, with trains of simultaneous ACKs only.
        "flow[0].cc={algorithm=\"cubic\",slow_start={kind=\"linux-hystart\",low_window=0,ack_delta=\"0s\"}}",
        "flow[0].cc={algorithm=\"bbr3\",bw_probe_max_rounds=1}",
    ];
    for cc in edges {
        assert_eq!(delivered(&[cc]), 100_000, "{cc}");
    }
    let lossy = [
        "flow[0].sender.packet_threshold=1",
        "path.forward.loss={model=\"bernoulli\",p=0.01}",
    ];
    assert_eq!(delivered(&lossy), 100_000);
}

#[test]
fn flows_starting_at_or_after_the_end_are_left_out_of_fairness() {
    // Two copies of the bulk flow, the second starting exactly when the 2 s run ends: it never sent, and the
    // index of the one flow left is absent (before: 0.5, the second counted as a 0 bit/s share).
    let late = ["flow[0].count=2", "flow[0].stagger=\"2s\""];
    let s = load(&late).expect("loads");
    let r = run(&s, RunOptions::default()).expect("runs");
    assert_eq!(r.summary.flows[1].bytes_delivered, 0);
    assert_eq!(r.summary.fairness_jain, None);
    // One nanosecond earlier it started: it delivered nothing in its nanosecond, and that 0 counts (x², 0: 1/2).
    let s = load(&["flow[0].count=2", "flow[0].stagger=\"1999999999ns\""]).expect("loads");
    let r = run(&s, RunOptions::default()).expect("runs");
    assert_eq!(r.summary.fairness_jain, Some(0.5));
}

#[test]
fn ack_frequency_divisors_and_gaps_out_of_range_name_the_key() {
    // Before: each 0 was raised to 1 by the policy without a word, and a max_gap below min_gap was overruled.
    let af = |kv: &str| format!("flow[0].sender.ack_frequency={{{kv}}}");
    for key in [
        "gap_divisor",
        "delay_divisor",
        "min_gap",
        "slow_start_gap_divisor",
        "gap_cap",
    ] {
        fails(
            &[&af(&format!("{key}=0"))],
            &format!("flow[0].sender.ack_frequency.{key}"),
            "expected a nonzero u64",
        );
    }
    fails(
        &[&af("min_gap=4,max_gap=2")],
        "flow[0].sender.ack_frequency.max_gap",
        "at least min_gap (4)",
    );
    assert_eq!(
        delivered(&[&af("min_gap=1,max_gap=1,gap_cap=1,gap_divisor=1,delay_divisor=1")]),
        100_000
    );
}

#[test]
fn clock_resolution_and_tick_of_zero_are_errors_not_one_nanosecond() {
    // Before: each loaded, and the clock read the 0 as 1 ns without a word.
    for (table, profile) in [("sender", "quic"), ("receiver", "quic"), ("tfrc", "dccp")] {
        for key in ["resolution", "tick"] {
            let set = format!("flow[0].{table}.clock={{{key}=\"0s\"}}");
            let p = format!("flow[0].profile=\"{profile}\"");
            fails(
                &[&p, &set],
                &format!("flow[0].{table}.clock.{key}"),
                "expected a duration of at least 1ns",
            );
        }
    }
    // A duration that rounds to 0 ns is the same 0.
    let sub_ns = "flow[0].sender.clock={tick=\"0.4ns\"}";
    fails(&[sub_ns], "flow[0].sender.clock.tick", "at least 1ns");
    // 1 ns, the exact clock, and a timer granularity of 0 (documented as exact) still run.
    let exact = "flow[0].sender.clock={resolution=\"1ns\",tick=\"1ns\",timer_granularity=\"0s\"}";
    assert_eq!(delivered(&[exact]), 100_000);
}

#[test]
fn packet_number_length_outside_one_to_four_is_an_error_not_a_clamp() {
    // Before: 0 ran as 1 and 5 or 255 as 4 (RFC 9000 §17.1 has two bits for length − 1).
    for bad in ["0", "5", "255"] {
        let set = format!("flow[0].receiver.pn_len={bad}");
        fails(
            &[&set],
            "flow[0].receiver.pn_len",
            &format!("1 to 4 bytes (RFC 9000 §17.1), got {bad}"),
        );
    }
    for good in ["1", "4"] {
        assert_eq!(delivered(&[&format!("flow[0].receiver.pn_len={good}")]), 100_000);
    }
}

#[test]
fn tfrc_counter_resolution_of_zero_is_an_error_not_one_nanosecond() {
    // Before: it loaded and the window counter divided in units of 1 ns.
    let dccp = "flow[0].profile=\"dccp\"";
    let zero = "flow[0].tfrc.counter_resolution=\"0s\"";
    fails(
        &[dccp, zero],
        "flow[0].tfrc.counter_resolution",
        "expected a duration of at least 1ns",
    );
    assert!(load(&[dccp, "flow[0].tfrc.counter_resolution=\"1ns\""]).is_ok());
}

#[test]
fn delayed_ack_timeout_of_half_a_second_is_an_error_not_cut_below_it() {
    // Before: it loaded and the policy cut it to 499.999999 ms (RFC 1122 §4.2.3.2: less than 0.5 s).
    let tcp = "flow[0].profile=\"tcp\"";
    let delack = |d: &str| format!("flow[0].receiver.ack={{policy=\"tcp-delayed\",delack=\"{d}\"}}");
    fails(
        &[tcp, &delack("500ms")],
        "flow[0].receiver.ack.delack",
        "below 500ms (RFC 1122",
    );
    assert_eq!(delivered(&[tcp, &delack("499ms")]), 100_000);
}

#[test]
fn proportional_rate_reduction_is_for_newreno_and_cubic() {
    fails(
        &[
            "flow[0].cc={algorithm=\"bbr\"}",
            "flow[0].sender.proportional_rate_reduction=true",
        ],
        "flow[0].sender.proportional_rate_reduction",
        "\"newreno\" or \"cubic\"",
    );
    assert_eq!(
        delivered(&[
            "flow[0].cc={algorithm=\"cubic\"}",
            "flow[0].sender.proportional_rate_reduction=true"
        ]),
        100_000
    );
}
