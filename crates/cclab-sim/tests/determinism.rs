//! Same scenario and seed ⇒ byte-identical outputs; another seed ⇒ other draws.

use cclab_sim::{run, QlogMode, RunOptions, Scenario};
use std::path::{Path, PathBuf};

/// Every random model at once: GE loss, jitter, reordering, RED with ECN, cross traffic,
/// CPU costs with a small socket buffer, scheduling stalls and idle states, and BBR (which draws
/// its ProbeBW phase).
const NOISY: &str = r#"
[scenario]
name = "noisy"
duration = "3s"
topology = "dumbbell"

[path.forward]
rate = "20Mbps"
delay = "5ms"
jitter = "1ms"
reorder = { p = 0.01, delay = "2ms" }
loss = { model = "gilbert-elliott", p = 0.001, r = 0.3 }
queue = { kind = "red", min_th = "15KB", max_th = "45KB", ecn = true }
cross_traffic = { kind = "onoff", rate = "5Mbps", on = "50ms", off = "100ms", exponential = true }

[path.return]
rate = "20Mbps"
delay = "5ms"

[hosts.receiver]
cpu = { recv_cost = "20us", ack_send_cost = "5us", stall = { mean_interval = "20ms", mean_duration = "300us" }, idle_states = [{ residency = "200us", exit_latency = "50us" }] }
socket_buffer = "30KB"

[[flow]]
source = { kind = "bulk", size = "5MB" }
cc = { algorithm = "bbr" }
sender = { ecn = true }
access = { rate = "1Gbps", delay = "1ms" }

[[flow]]
start = "100ms"
source = { kind = "bulk", size = "5MB" }
cc = { algorithm = "cubic" }
access = { rate = "1Gbps", delay = "3ms" }
"#;

fn run_to(dir: &Path, seed: Option<u64>) -> String {
    let s = Scenario::from_toml_str(NOISY, "noisy.toml", &[]).unwrap();
    let opts = RunOptions {
        seed,
        out_dir: Some(dir.to_path_buf()),
        qlog: QlogMode::Draft02,
        ..Default::default()
    };
    run(&s, opts).unwrap().summary.deterministic_json()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-det-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn determinism_same_seed_gives_identical_outputs() {
    let (a, b) = (tmp("a"), tmp("b"));
    let (ja, jb) = (run_to(&a, None), run_to(&b, None));
    assert_eq!(ja, jb);
    let files = [
        "trace-flow0.sqlog",
        "trace-receiver-flow0.sqlog",
        "trace-flow1.sqlog",
        "timeseries.csv",
    ];
    for f in files {
        let (x, y) = (std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap());
        assert!(x.len() > 1000, "{f} is too small to prove anything");
        assert!(x == y, "{f} differs");
    }
    // The models were exercised, so equality is not trivial.
    let s = std::fs::read_to_string(a.join("summary.json")).unwrap();
    for key in [
        "ecn_marks",
        "socket_drops",
        "cpu_stalled_receiver",
        "cpu_waking_receiver",
    ] {
        let key = format!("\"{key}\"");
        assert!(s.contains(&key), "{key} missing");
    }
    let c = tmp("c");
    assert_ne!(run_to(&c, Some(2)), ja, "another seed must change the draws");
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The AQMs that draw random numbers (DualPI2, PIE) and the L4S controllers.
const AQMS: &str = r#"
[scenario]
name = "aqms"
duration = "2s"

[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = { kind = "dualpi2" }

[path.return]
rate = "2Mbps"
delay = "5ms"
queue = { kind = "pie", ecn = true }
cross_traffic = { kind = "onoff", rate = "1.5Mbps", on = "50ms", off = "50ms", exponential = true }

[[flow]]
source = { kind = "bulk", size = "10MB" }
cc = { algorithm = "prague" }

[[flow]]
source = { kind = "bulk", size = "10MB" }
cc = { algorithm = "cubic" }

[[flow]]
profile = "tcp"
tcp = { accecn = true }
source = { kind = "bulk", size = "10MB" }
cc = { algorithm = "dctcp" }
"#;

#[test]
fn determinism_random_aqms_give_identical_outputs() {
    let run_aqms = |dir: &Path, seed: Option<u64>| {
        let s = Scenario::from_toml_str(AQMS, "aqms.toml", &[]).unwrap();
        let opts = RunOptions {
            seed,
            out_dir: Some(dir.to_path_buf()),
            qlog: QlogMode::Off,
            ..Default::default()
        };
        run(&s, opts).unwrap().summary.deterministic_json()
    };
    let (a, b, c) = (tmp("aqm-a"), tmp("aqm-b"), tmp("aqm-c"));
    let ja = run_aqms(&a, None);
    assert_eq!(ja, run_aqms(&b, None));
    let (x, y) = (
        std::fs::read(a.join("timeseries.csv")).unwrap(),
        std::fs::read(b.join("timeseries.csv")).unwrap(),
    );
    assert!(x.len() > 1000 && x == y, "timeseries.csv differs");
    // Both queues marked or dropped, so their draws mattered.
    assert!(ja.contains("\"ecn_marks\""), "{ja}");
    assert_ne!(run_aqms(&c, Some(2)), ja, "another seed must change the draws");
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}
