//! Kernel TCP through the emulated path, end to end. Needs root (network namespaces, tun); where
//! the machine forbids them, each test prints the one-line reason and passes as skipped.
//!
//! ```text
//!   sender ns 198.18.0.1 ─tun─▶ [path.forward 20 Mbit/s, 5 ms] ─tun─▶ receiver ns 198.19.0.1
//!                        ◀─tun─ [path.return  20 Mbit/s, 5 ms] ◀─tun─
//! ```

use cclab_kernel::{run_kernel, KernelError, KernelOptions};
use cclab_sim::Scenario;

fn scenario(cc: &str, size: &str, extra: &str) -> Scenario {
    scenario_with(cc, size, extra, &[])
}

fn scenario_with(cc: &str, size: &str, extra: &str, set: &[String]) -> Scenario {
    let text = format!(
        r#"
[scenario]
name = "kernel-test"
duration = "20s"
[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit_packets = 100 }}
[path.return]
rate = "20Mbps"
delay = "5ms"
[[flow]]
profile = "tcp"
source = {{ kind = "bulk", size = "{size}" }}
cc = {{ algorithm = "{cc}" }}
{extra}
"#
    );
    Scenario::from_toml_str(&text, "kernel-test.toml", set).expect("test scenario parses")
}

/// `Ok(None)` when the machine forbids namespaces: the test is skipped with that reason.
fn run(s: &Scenario, out: Option<std::path::PathBuf>) -> Option<cclab_sim::RunOutput> {
    match run_kernel(
        s,
        KernelOptions {
            out_dir: out,
            ..KernelOptions::default()
        },
    ) {
        Ok(o) => Some(o),
        Err(KernelError::Forbidden(why)) => {
            eprintln!("skipped: {why}");
            None
        }
        Err(e) => panic!("kernel run failed: {e}"),
    }
}

#[test]
fn kernel_cubic_moves_every_byte_through_the_emulated_path() {
    let dir = std::env::temp_dir().join(format!("cclab-kernel-test-{}", std::process::id()));
    let Some(out) = run(&scenario("cubic", "2MB", ""), Some(dir.clone())) else {
        return;
    };
    let s = &out.summary;
    assert_eq!(s.mode, "kernel");
    let f = &s.flows[0];
    assert_eq!(f.bytes_delivered, 2_000_000);
    // 2 MB at 20 Mbit/s takes at least 0.8 s of serialisation: the path model held the rate.
    let done = f.completion_time_s.expect("transfer completed");
    assert!(done > 0.8 && done < 10.0, "completion {done} s");
    // RTT at least the modelled 10 ms of propagation.
    let min_rtt = f.min_rtt_s.expect("an RTT sample");
    assert!(min_rtt >= 0.0095, "min_rtt {min_rtt}");
    // The forward link carried the data (payload plus headers), the return link the ACKs.
    assert!(s.links[0].bytes > 2_000_000, "{:?}", s.links[0]);
    assert!(s.links[1].packets > 100, "{:?}", s.links[1]);
    assert!(f.cwnd_max_bytes >= 10 * 1448);
    assert!(out.timeseries.len() > 10);
    for file in ["summary.json", "timeseries.csv", "tcp_info.csv"] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert!(text.contains("\"mode\": \"kernel\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kernel_reno_drops_at_a_small_queue_and_retransmits() {
    let s = scenario_with("newreno", "3MB", "", &["path.forward.queue.limit_packets=8".into()]);
    let Some(out) = run(&s, None) else { return };
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, 3_000_000);
    assert!(
        out.summary.links[0].drops > 0,
        "an 8-packet queue overflows in slow start"
    );
    assert!(f.retransmitted_packets > 0);
}

#[test]
fn kernel_runs_a_handshake_with_linuxs_own_rule_for_a_lost_syn() {
    // `syn_loss_window = "linux"` is what the kernel does anyway: it runs, where any handshake table
    // other than the default used to be refused as a QUIC `server_flight`.
    let s = scenario("cubic", "200KB", "handshake = { syn_loss_window = \"linux\" }");
    let Some(out) = run(&s, None) else { return };
    assert_eq!(out.summary.flows[0].bytes_delivered, 200_000);
}

#[test]
fn kernel_mode_rejects_what_it_cannot_map_naming_the_key() {
    for (s, key) in [
        (scenario("cubic-picoquic", "1MB", ""), "flow[0].cc.algorithm"),
        (
            scenario("cubic", "1MB", "receiver = { ack = { policy = \"ratio\", ratio = 4 } }"),
            "flow[0].receiver.ack.policy",
        ),
        // Before: "creating the sender's tun device: SIOCSIFMTU: Invalid argument (os error 22)".
        (scenario("cubic", "1MB", "tcp = { mss = \"75B\" }"), "flow[0].tcp.mss"),
        // A QUIC server's TLS flight: Linux answers a SYN with a bare SYN-ACK.
        (
            scenario("cubic", "1MB", "handshake = { server_flight = \"5KB\" }"),
            "flow[0].handshake.server_flight",
        ),
    ] {
        match run_kernel(&s, KernelOptions::default()) {
            Err(KernelError::Unsupported(m)) => assert!(m.contains(key), "{m}"),
            other => panic!("expected Unsupported for {key}, got {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn kernel_path_that_holds_the_syn_past_the_deadline_says_so() {
    // 1 bit/s: the 60-byte SYN needs 480 s, the run 0.1 s + 2 s of grace. The error used to be "receiver: no
    // connection arrived", which reads like a namespace failure.
    let set = [
        "path.forward.rate=\"1bps\"".to_string(),
        "scenario.duration=\"100ms\"".to_string(),
    ];
    let s = scenario_with("cubic", "1MB", "", &set);
    match run_kernel(&s, KernelOptions::default()) {
        Err(KernelError::Forbidden(why)) => eprintln!("skipped: {why}"),
        Err(e) => assert!(e.to_string().contains("the emulated path delivered no SYN"), "{e}"),
        Ok(_) => panic!("a 1 bit/s path cannot carry the connection within 2.1 s"),
    }
}
