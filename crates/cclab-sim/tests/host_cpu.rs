//! Host CPU and socket-buffer models against closed forms.
//!
//! ```text
//!  [sender CPU] ──1 Gbps, 1 ms──▶ [socket buffer → receiver CPU]
//!               ◀──1 Gbps, 1 ms──
//! ```

mod common;

use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_sim::host::{BatchConfig, CpuConfig, HostConfig};
use common::{cbr_to_sink, cpu_bound_transfer};

const END: Time = Time(20_000_000_000);

/// Goodput (payload bits/s) of 20,000 packets of 1250 B over a window of 1000, with a sender
/// CPU of `send` µs per data packet and `ack_recv` µs per ACK, and 1:`k` ACKs.
fn cpu_bound_goodput(send_us: u64, ack_recv_us: u64, k: u64, gso: Option<BatchConfig>) -> (f64, f64) {
    let total = 20_000;
    let cpu = CpuConfig {
        send_cost: Dur::from_micros(send_us),
        ack_recv_cost: Dur::from_micros(ack_recv_us),
        gso,
        ..Default::default()
    };
    let (net, s, id) = cpu_bound_transfer(cpu, k, total, END);
    let st = net.endpoints(id).0.stats();
    let t = st.completion_time.expect("transfer completes").as_secs_f64();
    let cpu_share = net.hosts()[s.0 as usize].stats().busy.as_secs_f64() / t;
    (st.bytes_delivered as f64 * 8.0 / t, cpu_share)
}

#[test]
fn cpu_bound_sender_goodput_is_cpu_packet_rate_times_payload() {
    // Per data packet the CPU spends 20 µs sending plus 5 µs / k processing ACKs; the link
    // (10 Gbps: 1 µs per packet) never limits. 1200 B payload per packet.
    for (k, per_packet_us) in [(10, 20.5), (1, 25.0)] {
        let expected = 1200.0 * 8.0 / (per_packet_us * 1e-6);
        let (goodput, cpu) = cpu_bound_goodput(20, 5, k, None);
        assert!(
            (goodput / expected - 1.0).abs() < 0.02,
            "1:{k}: {goodput} vs {expected}"
        );
        assert!(cpu > 0.98, "1:{k}: CPU busy {cpu}");
    }
    let (every_tenth, _) = cpu_bound_goodput(20, 5, 10, None);
    let (every_one, _) = cpu_bound_goodput(20, 5, 1, None);
    assert!(every_one < every_tenth * 0.85);
}

#[test]
fn gso_batching_amortises_the_fixed_cost() {
    // GSO batches of 10 (the window keeps them full) cost 15 + 10·5 µs, i.e. 6.5 µs per
    // packet, plus 5 µs per ACK at 1:10: 7 µs per data packet.
    let gso = BatchConfig {
        max_segments: std::num::NonZeroU32::new(10).unwrap(),
        fixed: Dur::from_micros(15),
    };
    let (goodput, _) = cpu_bound_goodput(5, 5, 10, Some(gso));
    let expected = 1200.0 * 8.0 / 7e-6;
    assert!((goodput / expected - 1.0).abs() < 0.02, "{goodput} vs {expected}");
}

/// 10,000 packets of 1250 B every 10 µs into a receiver CPU of `recv_us` µs per packet with a
/// socket buffer of `buffer` bytes. Returns (socket drops, packets delivered).
fn receiver_run(recv_us: u64, buffer: u64) -> (u64, usize) {
    let receiver_host = HostConfig {
        cpu: CpuConfig {
            recv_cost: Dur::from_micros(recv_us),
            ..Default::default()
        },
        socket_buffer: Some(Bytes(buffer)),
    };
    let (mut net, d, arrivals) = cbr_to_sink(&receiver_host, Dur::from_micros(50), Dur::from_micros(10), 10_000);
    net.run(END, None, &mut ());
    let n = arrivals.lock().unwrap().len();
    (net.hosts()[d.0 as usize].stats().socket_drops, n)
}

#[test]
fn socket_buffer_drops_only_when_arrivals_outpace_the_receiver_cpu() {
    // 100k packets/s offered. A 5 µs receiver keeps up: no drops.
    assert_eq!(receiver_run(5, 12_500), (0, 10_000));
    // A 20 µs receiver takes one packet per two arrivals; once its 10-packet buffer is full,
    // every other arrival is dropped: drops = 10,000/2 - 10 (buffer) - 1 (in the CPU) ± 1.
    let (drops, delivered) = receiver_run(20, 12_500);
    assert!((drops as i64 - 4989).abs() <= 1, "{drops}");
    assert_eq!(drops as usize + delivered, 10_000);
}
