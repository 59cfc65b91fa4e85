//! The peer's flow-control credit (`SenderConfig::receive_window`): new data never runs more
//! than the window past the acknowledged prefix (RFC 9293 §3.8.6, RFC 9000 §4.1), a
//! window-limited sender delivers one window per RTT, and the congestion window stops growing
//! while flow control, not the network, limits the sender (RFC 9002 §7.8).
//!
//! Topology: 100 Mbit/s, 10 ms one way, every packet acknowledged at once (`sender_pair`).

mod sender_pair;

use cclab_core::cc::NewRenoConfig;
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{transmission_time, Dur, Time};
use cclab_core::units::Bytes;
use sender_pair::{sender, unpaced, Fate, Pair, MSS};

const RATE: u64 = 100_000_000;
const LATENCY: Dur = Dur::from_millis(10);
/// 64 KiB of credit: 26 Mbit/s over a 20 ms RTT, far below the 100 Mbit/s link.
const WINDOW: u64 = 65_536;
const SIZE: u64 = 4_000_000;

fn pair(window: Option<u64>) -> Pair {
    let mut cfg = unpaced();
    cfg.receive_window = window.map(Bytes);
    let s = sender(
        &cfg,
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(SIZE) },
    );
    Pair::new(s, LATENCY, RATE)
}

/// Stream bytes `0..n` acknowledged so far, as the driver saw the ACKs.
fn acked_prefix(p: &Pair) -> u64 {
    let mut chunks: Vec<(u64, u64)> = p
        .sent
        .iter()
        .filter(|s| s.fate == Fate::Acked)
        .filter_map(|s| s.packet.data.map(|c| (c.offset, c.offset + c.len as u64)))
        .collect();
    chunks.sort_unstable();
    chunks
        .iter()
        .fold(0, |end, &(lo, hi)| if lo <= end { end.max(hi) } else { end })
}

#[test]
fn receive_window_bounds_new_data_beyond_the_acked_prefix() {
    let mut p = pair(Some(WINDOW));
    let mut sent_end = 0;
    while !p.sender.is_done() {
        assert!(p.step(), "stalled at {}", p.now);
        let prefix = acked_prefix(&p);
        sent_end = p
            .sent
            .iter()
            .filter_map(|s| s.packet.data.map(|c| c.offset + c.len as u64))
            .fold(sent_end, u64::max);
        assert!(
            sent_end <= prefix + WINDOW,
            "t={}: sent to {sent_end}, acked to {prefix}",
            p.now
        );
        assert!(p.now < Time::ZERO + Dur::from_secs(10), "too slow");
    }
}

#[test]
fn receive_window_limits_rate_to_one_window_per_rtt_and_freezes_cwnd() {
    let mut p = pair(Some(WINDOW));
    p.run_until(Time::ZERO + Dur::from_secs(10), |p| p.sender.is_done());
    // Steady part: from 0.3 s (slow start is over after a few RTTs) to the last ACK.
    let from = Time::ZERO + Dur::from_millis(300);
    let acked_bytes = |t: Time| -> u64 {
        p.sent
            .iter()
            .filter(|s| s.fate == Fate::Acked && s.time < t)
            .filter_map(|s| s.packet.data.map(|c| c.len as u64))
            .sum()
    };
    let end = p.sent.last().unwrap().time;
    let rate = (acked_bytes(end) - acked_bytes(from)) as f64 / (end - from).as_secs_f64();
    // One window per RTT: 2·10 ms propagation plus one 1500-byte serialisation.
    let rtt = (LATENCY * 2 + transmission_time(1500, RATE)).as_secs_f64();
    let expected = WINDOW as f64 / rtt;
    assert!((rate / expected - 1.0).abs() < 0.05, "{rate} B/s vs {expected} B/s");
    // RFC 9002 §7.8: no growth once the credit, not the window, limits sending.
    let cwnd_max = p.acks.iter().map(|a| a.cwnd_after).max().unwrap();
    assert!(cwnd_max <= WINDOW + 4 * MSS, "cwnd grew to {cwnd_max}");
}

#[test]
fn without_receive_window_cwnd_outgrows_the_same_credit() {
    // The control case: the same transfer unlimited grows the window far past 64 KiB.
    let mut p = pair(None);
    p.run_until(Time::ZERO + Dur::from_secs(10), |p| p.sender.is_done());
    let cwnd_max = p.acks.iter().map(|a| a.cwnd_after).max().unwrap();
    assert!(cwnd_max > 4 * WINDOW, "cwnd only reached {cwnd_max}");
}
