//! Whole transfers through the pair driver: NewReno's window (RFC 9002 §7), conservation and
//! integrity under random loss, pacing (§7.7), a coarse clock, ECN (§B.7), app-limited (§7.8)
//! and delivery-rate samples.
//!
//! Topology unless a test says otherwise: 100 Mbit/s bottleneck with an unbounded FIFO,
//! 10 ms one way; full-sized datagrams are 1500 bytes (1472 counted in flight).

mod sender_pair;

use cclab_core::ack::frequency_sender::AckFrequencySenderConfig;
use cclab_core::cc::{CcConfig, NewRenoConfig, PragueConfig};
use cclab_core::clock::ClockConfig;
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::{Bytes, Rate};
use cclab_core::wire::packet::{Ecn, FlowId};
use cclab_core::wire::size::{Profile, QuicProfile};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sender_pair::{seed, sender, unpaced, Pair, MSS};

const RATE: u64 = 100_000_000;
const LATENCY: Dur = Dur::from_millis(10);
/// RFC 9002 §7.2 initial window for 1472-byte packets: min(14720, max(14720, 2944)).
const IW: u64 = 14_720;

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

#[test]
fn new_reno_slow_start_recovery_then_one_mss_per_window() {
    let size = 3_000_000;
    let s = sender(
        &unpaced(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(size) },
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    // Two losses in one flight: one reduction only.
    p.drop_data = Box::new(|_, d| d.packet.pn == 40 || d.packet.pn == 42);
    p.run_until(ms(60_000), |p| p.sender.is_done());
    assert!(p.receiver.complete(size));
    let bytes = |pns: &[u64]| pns.iter().map(|&pn| p.sent[pn as usize].bytes).sum::<u64>();
    // New data runs out when the FIN leaves; after that the sender is app-limited.
    let fin_time = p
        .sent
        .iter()
        .find(|s| s.packet.data.is_some_and(|c| c.fin))
        .unwrap()
        .time;

    let first = p.acks.iter().position(|a| !a.lost.is_empty()).unwrap();
    // Slow start (§7.3.1): every acked byte grows the window.
    let mut total = 0;
    for a in &p.acks[..first] {
        total += bytes(&a.acked);
        assert_eq!(a.cwnd_after, a.cwnd_before + bytes(&a.acked));
        assert_eq!(a.cwnd_after, IW + total);
    }
    // The loss of pn 40 halves the window after this ACK's growth (§7.3.2).
    let a = &p.acks[first];
    assert_eq!(a.lost, vec![40]);
    let ssthresh = (a.cwnd_before + bytes(&a.acked)) / 2;
    assert_eq!(a.cwnd_after, ssthresh);
    let recovery_start = a.time;
    // Recovery: packets sent before it neither grow the window nor reduce it again.
    let mut cwnd = ssthresh;
    let mut acc = 0;
    let mut increases = 0;
    for a in p.acks[first + 1..].iter().filter(|a| a.time < fin_time) {
        if a.lost.contains(&42) {
            assert_eq!(a.cwnd_after, a.cwnd_before, "one reduction per recovery period");
        }
        assert!(a.lost.is_empty() || a.lost == vec![42], "no other loss");
        assert_eq!(a.cwnd_before, cwnd);
        let after: Vec<u64> = a
            .acked
            .iter()
            .copied()
            .filter(|&pn| p.sent[pn as usize].time > recovery_start)
            .collect();
        // Congestion avoidance (§7.3.3): one MSS per congestion window of acked bytes.
        acc += bytes(&after);
        if acc >= cwnd {
            acc -= cwnd;
            cwnd += MSS;
            increases += 1;
        }
        assert_eq!(a.cwnd_after, cwnd, "t={}", a.time);
    }
    assert!(increases >= 20, "{increases} CA increases observed");
    assert_eq!(p.sender.controller().ssthresh(), ssthresh);
}

#[test]
fn transfer_completes_intact_and_conserves_packets_under_random_loss() {
    let size = 1_000_000;
    let s = sender(
        &Default::default(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(size) },
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed());
    let mut rng2 = rng.clone();
    rng2.jump();
    p.drop_data = Box::new(move |_, _| rng.random_bool(0.03));
    p.drop_ack = Box::new(move |_, _| rng2.random_bool(0.03));
    // The driver checks sent = acked + in flight + lost and the bytes in flight at every step.
    p.run_until(ms(120_000), |p| p.sender.is_done());
    assert!(p.receiver.complete(size));
    let st = p.sender.stats();
    assert!(st.lost_packets > 0 && st.retransmitted_packets > 0, "{st:?}");
    assert_eq!(st.bytes_delivered, size);
    assert_eq!(st.completion_time, Some(p.acks.last().unwrap().time));
    assert_eq!(
        p.sender.bytes_in_flight(),
        p.sent
            .iter()
            .filter(|s| s.fate == sender_pair::Fate::InFlight)
            .map(|s| s.bytes)
            .sum::<u64>()
    );
    assert!(st.cwnd_max_bytes >= IW);
}

#[test]
fn pacing_spaces_packets_at_gain_times_cwnd_over_srtt() {
    // A window that never binds, so only the pacer spaces packets: 1 Gbit/s, 100 ms one way.
    let cc = NewRenoConfig {
        initial_window: Some(Bytes(10_000_000)),
        ..Default::default()
    };
    let s = sender(
        &SenderConfig::default(),
        &cc,
        &SourceConfig::Bulk {
            size: Bytes(20_000_000),
        },
    );
    let mut p = Pair::new(s, Dur::from_millis(100), 1_000_000_000);
    p.run_until(ms(1000), |p| !p.acks.is_empty());
    let first_ack = p.acks[0].time;
    // Before any RTT sample: rate = 1.25 · cwnd / 333 ms (bytes/s); burst = 10 packets.
    let rate = 1.25 * 10_000_000.0 / 0.333;
    let before: Vec<_> = p.sent.iter().filter(|s| s.time < first_ack).collect();
    assert!(before.len() > 1000);
    for s in &before {
        assert_eq!(s.bytes, MSS);
        let k = s.pn as f64;
        let ideal = if s.pn < 10 {
            0.0
        } else {
            (k - 9.0) * MSS as f64 / rate * 1e9
        };
        assert!(
            (s.time.as_nanos() as f64 - ideal).abs() <= 2.0,
            "pn {} at {} vs {ideal}",
            s.pn,
            s.time.as_nanos()
        );
    }
}

#[test]
fn coarse_clock_completes_without_livelock() {
    // 1 ms clock resolution and timer granularity on a 200 µs RTT path with 1 % loss.
    let clock = ClockConfig {
        resolution: cclab_core::time::NonZeroDur::from_millis(1),
        timer_granularity: Dur::from_millis(1),
        ..Default::default()
    };
    let cfg = SenderConfig {
        clock,
        ..Default::default()
    };
    let size = 2_000_000;
    let s = sender(
        &cfg,
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(size) },
    );
    let mut p = Pair::new(s, Dur::from_micros(100), RATE);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed());
    p.drop_data = Box::new(move |_, _| rng.random_bool(0.01));
    let one_ms = Dur::from_millis(1).as_nanos();
    p.run_until(ms(60_000), |p| {
        // Time is read only through the clock: samples and timers sit on its 1 ms grid.
        let r = p.sender.rtt();
        assert_eq!(r.latest().as_nanos() % one_ms, 0);
        if let Some(t) = p.sender.poll_timeout() {
            assert_eq!(t.as_nanos() % one_ms, 0);
        }
        p.sender.is_done()
    });
    assert!(p.receiver.complete(size));
    assert!(p.steps < 200_000, "{} steps", p.steps);
}

#[test]
fn ecn_ce_mark_reduces_window_without_loss() {
    let cfg = SenderConfig { ecn: true, ..unpaced() };
    let s = sender(
        &cfg,
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(200_000) },
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    p.mark_ce = Box::new(|_, d| d.packet.pn == 20);
    p.run_until(ms(10_000), |p| p.sender.is_done());
    assert!(p.sent.iter().all(|s| s.ecn == Ecn::Ect0));
    assert_eq!(p.sender.stats().lost_packets, 0);
    let bytes = |pns: &[u64]| pns.iter().map(|&pn| p.sent[pn as usize].bytes).sum::<u64>();
    let a = p.acks.iter().find(|a| a.acked.contains(&20)).unwrap();
    assert_eq!(a.cwnd_after, (a.cwnd_before + bytes(&a.acked)) / 2);
    let reductions = p.acks.iter().filter(|a| a.cwnd_after < a.cwnd_before).count();
    assert_eq!(reductions, 1);
}

#[test]
fn prague_marks_ect1_without_the_ecn_option_and_answers_quic_ce_counts() {
    // Prague turns ECN on itself and uses the L4S codepoint (RFC 9331 §4.1); the receiver's ACK
    // frames carry ECT(1) and CE counts (RFC 9000 §19.3.2), and one CE mark cuts the window by
    // alpha/2. Alpha stays at its initial 1 until the first mark (Linux `tcp_prague`, `saw_ce`),
    // so that cut is a halving of the window grown by the frame's unmarked packets only.
    let cc = CcConfig::Prague(PragueConfig::default());
    let src = SourceConfig::Bulk { size: Bytes(200_000) };
    let s = Sender::new(
        FlowId(0),
        Profile::Quic(QuicProfile::default()),
        &unpaced(),
        &cc,
        &src,
        Time::ZERO,
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    p.mark_ce = Box::new(|_, d| d.packet.pn == 20);
    p.run_until(ms(10_000), |p| p.sender.is_done());
    assert!(p.sent.iter().all(|s| s.ecn == Ecn::Ect1));
    assert_eq!(p.sender.stats().lost_packets, 0);
    let bytes = |pns: &[u64]| pns.iter().map(|&pn| p.sent[pn as usize].bytes).sum::<u64>();
    let a = p.acks.iter().find(|a| a.acked.contains(&20)).unwrap();
    let grown = a.cwnd_before + bytes(&a.acked) - bytes(&[20]);
    assert_eq!(a.cwnd_after, grown / 2, "grown to {grown}");
    let reductions = p.acks.iter().filter(|a| a.cwnd_after < a.cwnd_before).count();
    assert_eq!(reductions, 1);
}

#[test]
fn cbr_source_is_app_limited_and_window_does_not_grow() {
    // 1200 bytes every 10 ms (960 kbit/s) for 2 s: 200 writes, far below the window.
    let src = SourceConfig::Cbr {
        packet_size: Bytes(1200),
        rate: Rate(960_000),
        duration: Some(Dur::from_secs(2)),
    };
    let s = sender(&SenderConfig::default(), &NewRenoConfig::default(), &src);
    let mut p = Pair::new(s, LATENCY, RATE);
    p.run_until(ms(10_000), |p| p.sender.is_done());
    assert!(p.receiver.complete(200 * 1200));
    assert!(p.acks.len() >= 200);
    assert!(
        p.acks.iter().all(|a| a.cwnd_after == IW),
        "§7.8: no growth while app-limited"
    );
    // One packet per write: each leaves at its write time (k · 10 ms).
    for (k, s) in p
        .sent
        .iter()
        .filter(|s| s.packet.data.is_some_and(|c| c.len > 0))
        .enumerate()
    {
        assert_eq!(s.time, ms(10 * k as u64));
    }
}

#[test]
fn delivery_rate_sample_matches_bottleneck_rate() {
    // 20 Mbit/s bottleneck, saturated by slow start: every sample spans a busy link, so the
    // rate is the link rate scaled by in-flight bytes per datagram (1472 of 1500).
    let s = sender(
        &unpaced(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(5_000_000) },
    );
    let mut p = Pair::new(s, LATENCY, 20_000_000);
    p.run_until(ms(10_000), |p| p.now >= ms(1000));
    let expect = 20e6 * 1472.0 / 1500.0;
    let got = p.sender.metrics().delivery_rate_bps as f64;
    assert!((got - expect).abs() / expect < 0.01, "{got} vs {expect}");
}

#[test]
fn ack_frequency_frames_ride_on_data_packets_after_first_rtt_sample() {
    let af = AckFrequencySenderConfig::default();
    let cfg = SenderConfig {
        ack_frequency: Some(af),
        ..Default::default()
    };
    let s = sender(
        &cfg,
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(2_000_000) },
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    p.run_until(ms(10_000), |p| p.sender.is_done());
    assert!(p.receiver.complete(2_000_000));
    let frames: Vec<_> = p
        .sent
        .iter()
        .filter_map(|s| s.packet.ack_frequency().map(|f| (s, f)))
        .collect();
    assert!(!frames.is_empty());
    // The policy waits for an RTT sample; every frame rides on a data packet, in sequence.
    assert!(frames[0].0.time >= p.acks[0].time);
    assert!(frames.iter().all(|(s, _)| s.packet.data.is_some()));
    assert!(frames.windows(2).all(|w| w[1].1.sequence == w[0].1.sequence + 1));
}
