//! `make bench-real`: what real mode achieves on this machine, measured in one invocation.
//!
//! 1. Throughput: one cclab QUIC connection (CUBIC) over plain loopback, GSO/GRO on, and the
//!    same transfer between quinn 0.11 endpoints (`quinn-bulk`, built in this workspace), with
//!    goodput, CPU seconds per GB for each and the ratio cclab/quinn.
//! 2. Emulator calibration: a CUBIC transfer through one emulated link at rising rates, with the
//!    emulator's release-time error (p50/p99/max), achieved vs configured rate and its CPU; the
//!    highest rate whose p99 error stays within 50 µs is this machine's limit.
//!
//! Usage: `cclab-real-bench [--size BYTES] [--quinn PATH] [--skip-quinn] [--skip-calibration]`.

use cclab_real::{run_real, RealOptions};
use cclab_sim::{RunOutput, Scenario};
use std::process::{Command, Stdio};
use std::time::Instant;

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "bench", &[]).unwrap_or_else(|e| panic!("bench scenario: {e}"))
}

fn real(text: &str) -> RunOutput {
    run_real(&scenario(text), RealOptions::default()).unwrap_or_else(|e| panic!("real run: {e}"))
}

fn loopback_bulk(bytes: u64) -> String {
    format!(
        r#"
[scenario]
name = "bench-loopback"
duration = "120s"
[path.forward]
rate = "unlimited"
delay = "0s"
[path.return]
rate = "unlimited"
delay = "0s"
[hosts.sender]
socket_buffer = "8MiB"
[hosts.receiver]
socket_buffer = "8MiB"
[[flow]]
source = {{ kind = "bulk", size = "{bytes}B" }}
cc = {{ algorithm = "cubic" }}
"#
    )
}

fn emulated_bulk(rate_mbps: u64, bytes: u64) -> String {
    // One BDP of queue at 1 ms each way.
    let queue = (rate_mbps * 1_000_000 / 8 * 2 / 1000).max(30_000);
    format!(
        r#"
[scenario]
name = "bench-emulator-{rate_mbps}M"
duration = "60s"
[path.forward]
rate = "{rate_mbps}Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "{queue}B" }}
[path.return]
rate = "unlimited"
delay = "1ms"
[hosts.sender]
socket_buffer = "8MiB"
[hosts.receiver]
socket_buffer = "8MiB"
[[flow]]
source = {{ kind = "bulk", size = "{bytes}B" }}
cc = {{ algorithm = "cubic" }}
"#
    )
}

/// CPU seconds of this process's children that have been waited for.
fn children_cpu() -> f64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid out-pointer.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// One quinn-bulk upload of `bytes` on loopback: (goodput bit/s, CPU s of both processes).
fn quinn(bin: &str, bytes: u64) -> Result<(f64, f64), String> {
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let addr = format!("127.0.0.1:{port}");
    let cpu0 = children_cpu();
    let mut server = Command::new(bin)
        .args(["server", "--listen", &addr, "--once"])
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("{bin}: {e}"))?;
    std::thread::sleep(std::time::Duration::from_millis(300));
    let t0 = Instant::now();
    let client = Command::new(bin)
        .args([
            "client",
            "--connect",
            &addr,
            "--bytes",
            &bytes.to_string(),
            "--timeout",
            "120",
        ])
        .stdout(Stdio::null())
        .status();
    let secs = t0.elapsed().as_secs_f64();
    let server_status = server.wait();
    let ok = matches!(client, Ok(s) if s.success()) && matches!(server_status, Ok(s) if s.success());
    if !ok {
        let _ = server.kill();
        return Err(format!(
            "quinn-bulk failed: client {client:?}, server {server_status:?}"
        ));
    }
    Ok((bytes as f64 * 8.0 / secs, children_cpu() - cpu0))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let size: u64 = opt("--size").map_or(2_000_000_000, |s| s.parse().expect("--size takes bytes"));
    let quinn_bin = opt("--quinn").unwrap_or_else(|| "target/release/quinn-bulk".into());
    println!("cclab-real-bench on {} cores; load {}", num_cpus(), loadavg());

    if !args.iter().any(|a| a == "--skip-throughput") {
        let out = real(&loopback_bulk(size));
        let f = &out.summary.flows[0];
        let cpu = f.cpu_time_sender_s.unwrap_or(0.0) + f.cpu_time_receiver_s.unwrap_or(0.0);
        let gb = f.bytes_delivered as f64 / 1e9;
        println!(
            "cclab  loopback QUIC CUBIC {:.2} GB: {:.2} Gbit/s goodput, {:.2} CPU s/GB (sender {:.2} + receiver {:.2} s), decode errors {}, socket drops {}",
            gb,
            f.goodput_bps / 1e9,
            cpu / gb,
            f.cpu_time_sender_s.unwrap_or(0.0),
            f.cpu_time_receiver_s.unwrap_or(0.0),
            f.decode_errors.unwrap_or(0),
            f.socket_drops.unwrap_or(0),
        );
        if !args.iter().any(|a| a == "--skip-quinn") {
            match quinn(&quinn_bin, size) {
                Ok((bps, qcpu)) => {
                    println!(
                        "quinn  loopback QUIC CUBIC {:.2} GB: {:.2} Gbit/s goodput, {:.2} CPU s/GB (both processes)",
                        size as f64 / 1e9,
                        bps / 1e9,
                        qcpu / (size as f64 / 1e9)
                    );
                    println!(
                        "ratio cclab/quinn: goodput {:.2}x, CPU per GB {:.2}x",
                        f.goodput_bps / bps,
                        (cpu / gb) / (qcpu / (size as f64 / 1e9))
                    );
                }
                Err(e) => println!("quinn  skipped: {e}"),
            }
        }
    }

    if !args.iter().any(|a| a == "--skip-calibration") {
        println!(
            "emulator calibration (CUBIC through one link, 1 ms each way; error = actual - modelled release time)"
        );
        println!("  rate      achieved    goodput    p50 err   p99 err   max err   late>50us  emulator CPU");
        // The highest rate such that it and every lower rate kept p99 within 50 µs and the rate within 2 %.
        let (mut best, mut failed) = (None, false);
        for rate in [10, 50, 100, 250, 500, 1000, 2000, 4000] {
            let bytes = (rate * 1_000_000 / 8 * 2).max(2_000_000); // ~2 s at the link rate
            let out = real(&emulated_bulk(rate, bytes));
            let emu = out.summary.emulator.clone().unwrap_or_default();
            let achieved = out.summary.links[0].achieved_rate_bps.unwrap_or(0.0);
            println!(
                "  {:>5} M  {:>8.1} M  {:>7.1} M  {:>7.1}us {:>7.1}us {:>8.1}us  {:>6.2} %   {:.0} % (realtime {})",
                rate,
                achieved / 1e6,
                out.summary.flows[0].goodput_bps / 1e6,
                emu.release_error_p50_s * 1e6,
                emu.release_error_p99_s * 1e6,
                emu.release_error_max_s * 1e6,
                100.0 * emu.late_packets as f64 / emu.packets.max(1) as f64,
                emu.cpu_utilisation * 100.0,
                emu.realtime_scheduling,
            );
            let held = emu.release_error_p99_s <= 50e-6 && (achieved / (rate as f64 * 1e6) - 1.0).abs() < 0.02;
            failed |= !held;
            if !failed {
                best = Some(rate);
            }
        }
        match best {
            Some(r) => println!(
                "highest rate held (with every lower one) with p99 error <= 50 us and rate within 2 %: {r} Mbit/s"
            ),
            None => println!("no rate tried was held with p99 error <= 50 us"),
        }
    }
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
