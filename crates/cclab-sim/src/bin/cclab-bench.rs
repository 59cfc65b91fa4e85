//! Simulator throughput benchmark: `cargo run --release -p cclab-sim --bin cclab-bench`.
//!
//! Runs a 1 GB (or `--size 100MB`) NewReno transfer over 10 Gbps at two RTTs (50 µs and 5 ms: a 100× larger window,
//! to show the cost per event does not grow with cwnd), then the 50 µs case with the realism
//! models on (CPU costs, RED, jitter, Gilbert–Elliott loss). Prints simulated events and data
//! packets per second of the thread's CPU time (per wall-second too: equal on an idle machine),
//! and the peak resident memory. qlog is off.

use cclab_sim::{run, RunOptions, Scenario};
use std::time::Instant;

const BASE: &str = r#"
[scenario]
name = "bench"
duration = "60s"

[path.forward]
rate = "10Gbps"
delay = "DELAY"
queue = { kind = "droptail", limit = "QUEUE" }

[path.return]
rate = "10Gbps"
delay = "DELAY"

[[flow]]
source = { kind = "bulk", size = "SIZE" }
cc = { algorithm = "newreno" }
"#;

const REALISM: &[&str] = &[
    "hosts.sender.cpu={send_cost=\"300ns\",ack_recv_cost=\"200ns\"}",
    "hosts.receiver.cpu={recv_cost=\"300ns\",ack_send_cost=\"200ns\"}",
    "hosts.receiver.socket_buffer=\"1MB\"",
    "path.forward.queue={kind=\"red\",min_th=\"20KB\",max_th=\"60KB\",limit=\"200KB\"}",
    "path.forward.jitter=\"2us\"",
    "path.forward.loss={model=\"gilbert-elliott\",p=0.00001,r=0.5}",
];

/// CPU time this thread has run, from `/proc/thread-self/schedstat` (ns), if readable.
fn cpu_time_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(stat.split_whitespace().next()?.parse::<u64>().ok()? as f64 * 1e-9)
}

/// Peak resident set size in kB (Linux `VmHWM`), if readable.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn bench(label: &str, size: &str, one_way: &str, queue: &str, sets: &[&str]) {
    let text = BASE
        .replace("DELAY", one_way)
        .replace("QUEUE", queue)
        .replace("SIZE", size);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scenario = Scenario::from_toml_str(&text, label, &sets).unwrap_or_else(|e| panic!("{e}"));
    let (wall, cpu0) = (Instant::now(), cpu_time_s());
    let out = run(&scenario, RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let wall = wall.elapsed().as_secs_f64();
    let cpu = cpu0.and_then(|c0| Some(cpu_time_s()? - c0)).unwrap_or(wall);
    let s = &out.summary;
    let f = &s.flows[0];
    println!(
        "{label:<26} {:>9} events {:>5.2} M events/s {:>5.2} M data pkts/s (per CPU s; wall: {:>5.2} M events/s) {:>5.2} s CPU {:>5.3} s sim {:>5.2} Gbps peak RSS {} MB",
        s.sim.events,
        s.sim.events as f64 / cpu / 1e6,
        f.data_packets_sent as f64 / cpu / 1e6,
        s.sim.events as f64 / wall / 1e6,
        cpu,
        s.sim.sim_time_s,
        f.goodput_bps / 1e9,
        peak_rss_kb().map_or("?".into(), |kb| (kb / 1024).to_string()),
    );
}

fn main() {
    // `--size 100MB` shortens the transfer (e.g. under valgrind).
    let args: Vec<String> = std::env::args().collect();
    let size = match args.iter().position(|a| a == "--size") {
        Some(i) => args.get(i + 1).expect("--size needs a value, e.g. 100MB").as_str(),
        None => "1GB",
    };
    if let Some(i) = args.iter().position(|a| a == "--scenario") {
        let path = std::path::Path::new(args.get(i + 1).expect("--scenario needs a file"));
        let scenario = cclab_sim::load_scenario(path, &[]).unwrap_or_else(|e| panic!("{e}"));
        let (wall, cpu0) = (Instant::now(), cpu_time_s());
        let out = run(&scenario, RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let cpu = cpu0.and_then(|c0| Some(cpu_time_s()? - c0)).unwrap_or(wall.elapsed().as_secs_f64());
        let pkts: u64 = out.summary.flows.iter().map(|f| f.data_packets_sent).sum();
        println!("{} events {pkts} pkts {cpu:.3} s CPU {:.0} ns/pkt", out.summary.sim.events, cpu * 1e9 / pkts as f64);
        return;
    }
    bench("newreno 10G rtt 50us", size, "25us", "62500B", &[]);
    bench("newreno 10G rtt 5ms", size, "2500us", "6250000B", &[]);
    bench("newreno 10G rtt 50us +real", size, "25us", "62500B", REALISM);
}
