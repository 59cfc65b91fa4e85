//! Scheduling stalls (`cpu.stall`) against closed forms.
//!
//! ```text
//!  [sender CPU] ──link──▶ [socket buffer → receiver CPU]
//!               ◀──link──
//! ```

mod common;

use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_sim::host::{CpuConfig, HostConfig, StallConfig};
use common::{cbr_to_sink, cpu_bound_transfer, flow, link, log, pair, Cbr, Sink};

const END: Time = Time(60_000_000_000);

fn stalls(interval_us: u64, duration_us: u64) -> Option<StallConfig> {
    Some(StallConfig {
        mean_interval: Dur::from_micros(interval_us),
        mean_duration: Dur::from_micros(duration_us),
    })
}

#[test]
fn host_stalls_take_their_share_of_a_cpu_bound_sender() {
    // 200,000 packets at 10 µs each, a window far above the 2 ms path's BDP (200 packets): the
    // sender's CPU is always busy or stalled, so completion ≈ busy + stalled time, and stalls
    // of mean 1 ms every 9 ms of run time take ≈ 1/10 of it (≈ 200 stalls: ±3 % is > 3σ).
    let total = 200_000;
    let cpu = CpuConfig {
        send_cost: Dur::from_micros(10),
        stall: stalls(9_000, 1_000),
        ..Default::default()
    };
    let (net, s, id) = cpu_bound_transfer(cpu, 10, total, END);
    let t = net
        .endpoints(id)
        .0
        .stats()
        .completion_time
        .expect("transfer completes")
        .as_secs_f64();
    let st = net.hosts()[s.0 as usize].stats();
    assert_eq!(st.busy, Dur::from_micros(10) * total);
    let stalled = st.stalled.as_secs_f64();
    // Idle time is one RTT at the end (the last ACK) plus at most one send cost per stall.
    let idle = t - st.busy.as_secs_f64() - stalled;
    assert!((0.0..0.003).contains(&idle), "idle {idle} s of {t} s");
    assert!((stalled / t - 0.1).abs() < 0.03, "stalled fraction {}", stalled / t);
    // Without stalls the same transfer takes busy + one RTT.
    assert!(t > st.busy.as_secs_f64() * 1.07);
}

#[test]
fn host_stalls_overflow_the_socket_buffer_of_a_receiver_that_keeps_up() {
    // One 1250 B packet every 10 µs into a 5 µs receiver with a 10-packet buffer: no drops
    // without stalls (host_cpu.rs). A stall of length L receives L/10 µs packets, of which all
    // but 10 are dropped; after it the receiver drains twice as fast as packets arrive. With
    // exponential L of mean m, E[(L/τ − B)⁺] = (m/τ)·e^(−Bτ/m) per stall, so over stalled time
    // S (S/m stalls) the drops are (S/τ)·e^(−Bτ/m): here m = 200 µs, Bτ = 100 µs.
    let receiver_host = HostConfig {
        cpu: CpuConfig {
            recv_cost: Dur::from_micros(5),
            stall: stalls(2_000, 200),
            ..Default::default()
        },
        socket_buffer: Some(Bytes(12_500)),
    };
    let count = 200_000;
    let (mut net, d, arrivals) = cbr_to_sink(&receiver_host, Dur::from_micros(50), Dur::from_micros(10), count);
    // Stop when the last packet is in (or lost): the sink cannot finish when packets are dropped,
    // and stalls of an idle host after that would only add stalled time.
    net.run(
        Time::ZERO + Dur::from_micros(10) * count + Dur::from_millis(5),
        None,
        &mut (),
    );
    let st = net.hosts()[d.0 as usize].stats();
    let delivered = arrivals.lock().unwrap().len() as u64;
    assert_eq!(st.socket_drops + delivered, count);
    let expected = st.stalled.as_secs_f64() / 10e-6 * (-0.5f64).exp();
    let ratio = st.socket_drops as f64 / expected;
    // ≈ 900 stalls: the sum of (L − Bτ)⁺ given ΣL varies by a few per cent.
    assert!((ratio - 1.0).abs() < 0.1, "drops {} vs {expected:.0}", st.socket_drops);
}

#[test]
fn host_stalls_delay_timers_until_they_end() {
    // A CBR source due every 100 µs on a host stalled ≈ 1/2 of the time: every packet due
    // during a stall leaves when it ends, so the sender is late and bunches packets, but sends
    // them all; the stalled host still receives (its buffer is unlimited).
    let sender_host = HostConfig {
        cpu: CpuConfig {
            stall: stalls(1_000, 1_000),
            ..Default::default()
        },
        socket_buffer: None,
    };
    let count = 20_000;
    let l = link(0, Dur::from_micros(10));
    let (mut net, s, d, f, r) = pair(&l, &l, &sender_host, &HostConfig::default());
    let arrivals = log();
    flow(
        &mut net,
        (s, d, f, r),
        Cbr::new(FlowId(0), 1250, Dur::from_micros(100), count, Time::ZERO),
        Sink::new(arrivals.clone()),
    );
    net.run(END, None, &mut ());
    let a = arrivals.lock().unwrap();
    assert_eq!(a.len() as u64, count);
    // Packets due inside a stall share one departure time: with ≈ 1,000 stalls of mean 10
    // packets, at least a quarter of the gaps are zero, none with an exact clock.
    let zero_gaps = a.windows(2).filter(|w| w[1].0 == w[0].0).count();
    assert!(zero_gaps > count as usize / 4, "{zero_gaps}");
    let st = net.hosts()[s.0 as usize].stats();
    assert!((st.stalled.as_secs_f64() / a.last().unwrap().0.as_secs_f64() - 0.5).abs() < 0.1);
}
