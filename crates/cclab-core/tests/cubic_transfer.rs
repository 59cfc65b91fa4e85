//! CUBIC and the packet-train slow start driving the real sender through the pair driver.
//!
//! Topology: 100 Mbit/s bottleneck with an unbounded FIFO, 10 ms one way; full-sized datagrams
//! are 1500 bytes on the wire, 1472 counted in flight; the receiver ACKs every packet at once.

mod sender_pair;

use cclab_core::cc::slow_start::SlowStartConfig;
use cclab_core::cc::train_ss::TrainConfig;
use cclab_core::cc::{CcConfig, CubicConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sender_pair::{seed, Pair, MSS};

const RATE: u64 = 100_000_000;
const LATENCY: Dur = Dur::from_millis(10);

fn cubic_sender(cc: CubicConfig, size: u64) -> Sender {
    let profile = Profile::Quic(QuicProfile::default());
    let source = SourceConfig::Bulk { size: Bytes(size) };
    Sender::new(
        FlowId(0),
        profile,
        &SenderConfig::default(),
        &CcConfig::Cubic(cc),
        &source,
        Time::ZERO,
    )
}

#[test]
fn cubic_transfer_reduces_by_beta_once_per_recovery_under_random_loss() {
    let size = 2_000_000;
    let mut p = Pair::new(cubic_sender(CubicConfig::default(), size), LATENCY, RATE);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed());
    p.drop_data = Box::new(move |_, _| rng.random_bool(0.01));
    p.run_until(Time(120_000_000_000), |p| p.sender.is_done());
    assert!(p.receiver.complete(size));
    let reductions: Vec<_> = p.acks.iter().filter(|a| a.cwnd_after < a.cwnd_before).collect();
    assert!(reductions.len() >= 3, "{} reductions", reductions.len());
    for a in &reductions {
        // RFC 9438 §4.6: cwnd = max(β·cwnd, kMinimumWindow), β = 0.7 (±1 byte: the window is
        // kept in fractional bytes and reported truncated).
        let expect = (0.7 * a.cwnd_before as f64).round().max(2.0 * MSS as f64);
        assert!((a.cwnd_after as f64 - expect).abs() <= 1.0, "t={} {a:?}", a.time);
    }
    // RFC 9002 §7.3.2: a new reduction needs the loss of a packet sent after the previous one,
    // which cannot be detected less than one round trip (2 · 10 ms) later.
    for w in reductions.windows(2) {
        assert!(
            w[1].time.saturating_since(w[0].time) >= LATENCY * 2,
            "{:?} then {:?}",
            w[0],
            w[1]
        );
    }
}

#[test]
fn train_slow_start_jumps_on_the_bursty_initial_window() {
    let cc = CubicConfig {
        slow_start: SlowStartConfig::Train(TrainConfig::default()),
        ..Default::default()
    };
    let mut p = Pair::new(cubic_sender(cc, 5_000_000), LATENCY, RATE);
    // The pacer starts with a full bucket: the 10-packet initial window leaves back-to-back and
    // its ACKs return one 1500-byte serialisation (120 µs) apart.
    p.run_until(Time(1_000_000_000), |p| p.acks.len() >= 10);
    let first_rtt = p.sender.rtt().min();
    assert_eq!(first_rtt, LATENCY * 2 + Dur::from_micros(120));
    // The 10th ACK closes the sample: 9 · 1472 B over 9 · 120 µs, and cwnd jumps to half of
    // that rate times min_rtt (picoquic's half-BDP target).
    let rate = 1472.0 / 120e-6;
    let expect = (0.5 * rate * first_rtt.as_secs_f64()) as u64;
    let a = &p.acks[9];
    assert_eq!(a.cwnd_after, expect, "{a:?}");
    assert!(
        p.acks[..9].iter().all(|a| a.cwnd_after == a.cwnd_before + MSS),
        "classic growth before"
    );
}
