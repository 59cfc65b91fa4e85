//! Memory does not grow with simulated time: 1,000,000 s on a 1 kbit/s link (issue #14), with
//! summary, time series and ACK statistics on. Alone in its test binary, so the process's peak
//! resident set is this run's.

use cclab_sim::{run, RunOptions, Scenario};

/// Peak resident set size in MB (Linux `VmHWM`).
fn peak_rss_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

#[test]
fn long_run_of_a_million_seconds_stays_under_200_mb() {
    let text = r#"
[scenario]
name = "million-seconds"
duration = "1000000s"

[path.forward]
rate = "1kbps"
delay = "10ms"

[path.return]
rate = "1kbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "1GB" }

[output]
# The default 10 ms would be 43 GB of rows, which the output budget refuses (tests/output_budget.rs).
timeseries_interval = "10s"
"#;
    let s = Scenario::from_toml_str(text, "million.toml", &[]).unwrap();
    let dir = std::env::temp_dir().join(format!("cclab-million-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = run(
        &s,
        RunOptions {
            out_dir: Some(dir.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let f = &out.summary.flows[0];
    assert!((out.summary.sim.sim_time_s - 1e6).abs() < 1e-6);
    // 1 kbit/s for 10^6 s is 125 MB on the wire: the sender kept sending to the end.
    assert!(f.data_packets_sent > 80_000, "{}", f.data_packets_sent);
    assert!(f.ack_interval_p50_s.is_some());
    let rss = peak_rss_mb().expect("Linux /proc/self/status");
    eprintln!("peak RSS {rss} MB, {} data packets", f.data_packets_sent);
    assert!(rss < 200, "peak RSS {rss} MB");
}
