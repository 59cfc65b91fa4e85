//! Real mode end to end on this machine's loopback: transfers arrive whole and intact, over
//! plain loopback and through the emulator, and the emulator keeps its rate and times.

use cclab_real::{run_real, RealOptions};
use cclab_sim::{RunOutput, Scenario};
use std::sync::Mutex;

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "test.toml", &[]).expect("valid scenario")
}

fn run(text: &str) -> RunOutput {
    run_with(text, RealOptions::default())
}

/// Real runs share this 2-core machine's CPU: one at a time, so each test measures its own run.
fn run_with(text: &str, opts: RealOptions) -> RunOutput {
    static SERIAL: Mutex<()> = Mutex::new(());
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    run_real(&scenario(text), opts).expect("real run")
}

fn bulk(path: &str, size: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "real-test"
duration = "20s"
{path}
[[flow]]
source = {{ kind = "bulk", size = "{size}" }}
{extra}
"#
    )
}

const LOOPBACK: &str = r#"
[path.forward]
rate = "unlimited"
delay = "0s"
[path.return]
rate = "unlimited"
delay = "0s"
"#;

#[test]
fn plain_loopback_delivers_every_byte_intact() {
    let out = run(&bulk(LOOPBACK, "8MB", "cc = { algorithm = \"cubic\" }"));
    let f = &out.summary.flows[0];
    assert_eq!(out.summary.mode, "real");
    assert_eq!(f.bytes_delivered, 8_000_000, "{f:?}");
    assert_eq!(f.decode_errors, Some(0));
    assert!(f.completion_time_s.is_some());
    assert!(out.summary.emulator.is_none(), "plain loopback needs no relay");
    assert!(f.cpu_time_sender_s.unwrap() > 0.0);
}

#[test]
fn tcp_and_dccp_profiles_run_as_udp_datagrams() {
    let tcp = run(&bulk(LOOPBACK, "2MB", "profile = \"tcp\""));
    assert_eq!(tcp.summary.flows[0].bytes_delivered, 2_000_000);
    assert_eq!(tcp.summary.flows[0].decode_errors, Some(0));
    // CCID-3 on loopback is seed 004's pathology: give it a path where TFRC can finish a short transfer.
    let path =
        "[path.forward]\nrate = \"20Mbps\"\ndelay = \"2ms\"\n[path.return]\nrate = \"20Mbps\"\ndelay = \"2ms\"\n";
    let dccp = run(&bulk(path, "300KB", "profile = \"dccp\""));
    let f = &dccp.summary.flows[0];
    assert_eq!(f.bytes_delivered, 300_000, "{f:?}");
    assert_eq!(f.decode_errors, Some(0));
}

#[test]
fn emulated_path_survives_loss_reordering_and_duplication() {
    let path = r#"
[path.forward]
rate = "50Mbps"
delay = "2ms"
loss = { model = "bernoulli", p = 0.1 }
reorder = { p = 0.05, delay = "1ms" }
duplicate = 0.05
[path.return]
rate = "50Mbps"
delay = "2ms"
"#;
    let out = run(&bulk(path, "3MB", "cc = { algorithm = \"newreno\" }"));
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, 3_000_000, "{f:?}");
    assert_eq!(f.decode_errors, Some(0));
    let fwd = &out.summary.links[0];
    assert!(fwd.drops > 0, "{fwd:?}");
    let emu = out.summary.emulator.as_ref().expect("emulated");
    assert!(emu.packets > 0);
}

#[test]
fn emulator_holds_100_mbit_and_adds_no_more_delay_than_it_reports() {
    let path = r#"
[path.forward]
rate = "100Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "200KB" }
[path.return]
rate = "100Mbps"
delay = "5ms"
"#;
    let out = run(&bulk(path, "12MB", "cc = { algorithm = \"cubic\" }"));
    let emu = out.summary.emulator.as_ref().expect("emulated");
    let fwd = &out.summary.links[0];
    let achieved = fwd.achieved_rate_bps.expect("the forward link was backlogged");
    // Within 2 % of the rate while the emulator keeps time. When other work on the machine starves it
    // (a CI build on both cores), it falls behind and must say so: more than 1 % of its packets late
    // (it reported 567 of 12,242 and 96.7 Mbit/s under a load of 7). Then only 10 % holds, never above.
    let late = emu.late_packets as f64 > 0.01 * emu.packets as f64;
    let (below, above) = if late { (0.10, 0.02) } else { (0.02, 0.02) };
    assert!(
        achieved > 100e6 * (1.0 - below) && achieved < 100e6 * (1.0 + above),
        "achieved {achieved} bit/s, emulator {emu:?}"
    );
    // The smallest RTT: 2 × 5 ms propagation + a 1500 B packet at 100 Mbit/s (120 µs) + a small ACK.
    // The emulator may add up to its p99 each way; the endpoints' own wake-ups add the rest.
    let min_rtt = out.summary.flows[0].min_rtt_s.expect("RTT sampled");
    let modelled = 0.010 + 120e-6;
    assert!(
        min_rtt >= modelled - 1e-6,
        "min RTT {min_rtt} below the model's {modelled}"
    );
    let bound = modelled + 2.0 * emu.release_error_p99_s + 1e-3;
    assert!(min_rtt <= bound, "min RTT {min_rtt} above {bound} (emulator {emu:?})");
}

#[test]
fn simulated_and_real_runs_of_one_scenario_complete_within_15_percent() {
    let path = r#"
[path.forward]
rate = "50Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "125KB" }
[path.return]
rate = "50Mbps"
delay = "10ms"
"#;
    let text = bulk(path, "10MB", "cc = { algorithm = \"newreno\" }");
    let sim = cclab_sim::run(&scenario(&text), Default::default()).expect("simulated run");
    let real = run(&text);
    let done = |o: &RunOutput| o.summary.flows[0].completion_time_s.expect("completed");
    let (s, r) = (done(&sim), done(&real));
    assert!((r / s - 1.0).abs() <= 0.15, "simulated {s:.3} s, real {r:.3} s");
}

#[test]
fn handshakes_run_over_real_sockets() {
    for profile in ["quic", "tcp"] {
        let out = run(&bulk(
            LOOPBACK,
            "1MB",
            &format!("profile = \"{profile}\"\nhandshake = true"),
        ));
        let f = &out.summary.flows[0];
        assert_eq!(f.bytes_delivered, 1_000_000, "{profile}: {f:?}");
        assert_eq!(f.decode_errors, Some(0), "{profile}");
    }
}

#[test]
fn more_flows_than_real_mode_takes_is_an_error_before_any_socket() {
    let text = bulk(LOOPBACK, "10KB", &format!("count = {}", cclab_real::MAX_REAL_FLOWS + 1));
    let e = run_real(&scenario(&text), RealOptions::default()).expect_err("must be refused");
    assert!(matches!(e, cclab_real::RealError::Unsupported(_)), "{e}");
    assert!(
        e.to_string().starts_with("flow: real mode runs at most 64 flows"),
        "{e}"
    );
    let at_limit = bulk(LOOPBACK, "10KB", &format!("count = {}", cclab_real::MAX_REAL_FLOWS));
    assert_eq!(scenario(&at_limit).config().flow.len(), 64);
}

#[test]
fn qlog_flows_and_window_choose_what_a_real_run_traces() {
    let path =
        "[path.forward]\nrate = \"20Mbps\"\ndelay = \"2ms\"\n[path.return]\nrate = \"20Mbps\"\ndelay = \"2ms\"\n";
    let text = bulk(
        path,
        "1MB",
        "count = 2\n[output]\nqlog_flows = [1]\nqlog_window = [\"100ms\", \"200ms\"]\n",
    );
    let dir = std::env::temp_dir().join(format!("cclab-real-qflows-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RealOptions {
        out_dir: Some(dir.clone()),
        qlog: cclab_sim::QlogMode::Draft02,
        ..Default::default()
    };
    let out = run_with(&text, opts);
    assert!(out.summary.flows.iter().all(|f| f.bytes_delivered == 1_000_000));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("sqlog"))
        .collect();
    names.sort();
    assert_eq!(names, ["trace-flow1.sqlog", "trace-receiver-flow1.sqlog"]);
    let text = std::fs::read_to_string(dir.join("trace-flow1.sqlog")).unwrap();
    let times: Vec<f64> = text
        .split('\u{1e}')
        .filter(|r| !r.trim().is_empty())
        .skip(1)
        .filter_map(|r| serde_json::from_str::<serde_json::Value>(r).unwrap()["time"].as_f64())
        .filter(|&t| t > 0.0)
        .collect();
    // Two 1 MB flows share 20 Mbit/s for ~0.8 s: the window holds packets, and only its own.
    assert!(times.len() > 50, "{} events", times.len());
    assert!(times.iter().all(|t| (100.0..200.0).contains(t)), "{times:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
