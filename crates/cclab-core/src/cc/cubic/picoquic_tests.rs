//! picoquic CUBIC against the closed forms of cubic.c and cc_common.c.

use super::*;
use crate::cc::test_util::{event, rtt_of};
use crate::cc::{AckedPacket, LostPacket};
use crate::recovery::rtt::RttEstimator;
use crate::time::Dur;

const MSS: u64 = 1000;
const M: f64 = MSS as f64;
/// When the loss that opens the scenarios below is detected.
const T_LOSS: Time = Time(1_000_000_000);

fn cfg(beta: f64, fast_convergence: bool, loss_threshold: f64) -> PicoquicCubicConfig {
    PicoquicCubicConfig {
        beta,
        fast_convergence,
        loss_threshold,
        ..Default::default()
    }
}

fn acked(bytes: u64, time_sent: Time) -> [AckedPacket; 1] {
    [AckedPacket {
        pn: 1000,
        bytes,
        time_sent,
    }]
}

fn lost(pns: std::ops::RangeInclusive<u64>, time_sent: Time) -> Vec<LostPacket> {
    pns.map(|pn| LostPacket {
        pn,
        bytes: MSS,
        time_sent,
        ..Default::default()
    })
    .collect()
}

/// Slow start from the 10-MSS initial window to 100 MSS.
fn at_100(cfg: &PicoquicCubicConfig, rtt: &RttEstimator) -> PicoquicCubic {
    let mut c = PicoquicCubic::new(cfg, MSS);
    c.on_congestion_event(&event(Time(500_000_000), &acked(90 * MSS, Time::ZERO), &[], rtt));
    assert_eq!((c.window(), c.state()), (100 * MSS, CcState::SlowStart));
    c
}

fn lose(c: &mut PicoquicCubic, now: Time, pns: std::ops::RangeInclusive<u64>, sent: Time, rtt: &RttEstimator) {
    c.on_congestion_event(&event(now, &[], &lost(pns, sent), rtt));
}

fn ack(c: &mut PicoquicCubic, now: Time, bytes: u64, rtt: &RttEstimator) {
    c.on_congestion_event(&event(now, &acked(bytes, now), &[], rtt));
}

#[test]
fn picoquic_cubic_loss_filter_needs_four_consecutive_losses() {
    let rtt = rtt_of(Dur::from_millis(10));
    let mut c = at_100(&PicoquicCubicConfig::default(), &rtt);
    let sent = Time(600_000_000);
    // Drop rate after n consecutive losses: r = (15/16)²·r + 1/16 → 0.0625, 0.1174, 0.1657, 0.2081.
    lose(&mut c, T_LOSS, 11..=13, sent, &rtt);
    assert_eq!((c.window(), c.state()), (100 * MSS, CcState::SlowStart));
    lose(&mut c, T_LOSS, 14..=14, sent, &rtt);
    // Above 0.2 at the fourth. First reduction: W_last_max unbounded, so fast convergence applies:
    // W_max = 7/8·100, cwnd = 7/8·W_max = 76.5625 MSS.
    assert_eq!(c.window(), 76_562);
    assert_eq!((c.ssthresh(), c.state()), (76_562, CcState::Recovery));

    // A lone loss 40 packet numbers later: 0.2081·(15/16)^32 = 0.0263, plus 1/16 of the rest: 0.0872.
    let mut c = at_100(&PicoquicCubicConfig::default(), &rtt);
    lose(&mut c, T_LOSS, 1..=4, sent, &rtt);
    assert_eq!(c.window(), 76_562);
    lose(
        &mut c,
        T_LOSS + Dur::from_secs(1),
        44..=44,
        T_LOSS + Dur::from_millis(1),
        &rtt,
    );
    assert_eq!(c.window(), 76_562);
}

#[test]
fn picoquic_cubic_reduces_by_beta_or_beta_squared_once_per_recovery() {
    let rtt = rtt_of(Dur::from_millis(10));
    let sent = Time(600_000_000);
    // Without fast convergence: W_max = cwnd, cwnd = W_cubic(0) = β·W_max.
    let mut c = at_100(&cfg(0.875, false, 0.0), &rtt);
    lose(&mut c, T_LOSS, 1..=1, sent, &rtt);
    assert_eq!(c.window(), 87_500);
    // Packets sent before the reduction began do not reduce again.
    lose(&mut c, T_LOSS + Dur::from_millis(5), 2..=2, T_LOSS, &rtt);
    assert_eq!(c.window(), 87_500);
    let later = T_LOSS + Dur::from_millis(1);
    lose(&mut c, T_LOSS + Dur::from_millis(5), 3..=3, later, &rtt);
    assert_eq!(c.window(), 76_562);

    // With fast convergence every reduction below the last peak keeps β²: 100 → 76.5625 → 58.618.
    let mut c = at_100(&cfg(0.875, true, 0.0), &rtt);
    lose(&mut c, T_LOSS, 1..=1, sent, &rtt);
    lose(&mut c, T_LOSS + Dur::from_millis(5), 3..=3, later, &rtt);
    assert_eq!(c.window(), (76_562.5f64 * 0.875 * 0.875) as u64);
}

#[test]
fn picoquic_cubic_follows_the_larger_of_curve_and_reno() {
    let rtt = rtt_of(Dur::from_millis(10));
    let sent = Time(600_000_000);
    // β = 7/8, fast convergence off: W_max = 100, K = ∛(100·(1/8)/0.4) = ∛31.25 = 3.1498 s.
    let mut c = at_100(&cfg(0.875, false, 0.0), &rtt);
    lose(&mut c, T_LOSS, 1..=1, sent, &rtt);
    let k = 31.25f64.cbrt();
    ack(&mut c, T_LOSS + Dur::from_secs_f64(k), MSS, &rtt);
    assert!((c.cwnd / M - 100.0).abs() < 1e-6, "{}", c.cwnd / M);
    // No t + RTT target and no 1.5× clamp: one second past K the window is W_cubic(K + 1) = 100.4.
    ack(&mut c, T_LOSS + Dur::from_secs_f64(k + 1.0), MSS, &rtt);
    assert!((c.cwnd / M - 100.4).abs() < 1e-6, "{}", c.cwnd / M);

    // β = 0.4: W_cubic(0) = 40 < W_reno = 50, so the Reno estimate rules and grows one MSS per
    // window acknowledged: 50 → 51 → 52 (the curve stays near 40 within 2 µs).
    let mut c = at_100(&cfg(0.4, false, 0.0), &rtt);
    lose(&mut c, T_LOSS, 1..=1, sent, &rtt);
    assert_eq!(c.window(), 50 * MSS);
    ack(&mut c, T_LOSS + Dur::from_micros(1), 50 * MSS, &rtt);
    assert!((c.cwnd / M - 51.0).abs() < 1e-9);
    ack(&mut c, T_LOSS + Dur::from_micros(2), 51 * MSS, &rtt);
    assert!((c.cwnd / M - 52.0).abs() < 1e-9);
    assert_eq!(c.state(), CcState::CongestionAvoidance);
}

#[test]
fn picoquic_cubic_epoch_starts_after_sender_limited_time() {
    let rtt = rtt_of(Dur::from_millis(10));
    let mut c = at_100(&cfg(0.875, false, 0.0), &rtt);
    lose(&mut c, T_LOSS, 1..=1, Time(600_000_000), &rtt);
    let k = 31.25f64.cbrt();
    // Sender-limited ACK 2 s in: no growth, and the epoch restarts there.
    let limited = T_LOSS + Dur::from_secs(2);
    let a = acked(MSS, limited);
    c.on_congestion_event(&CongestionEvent {
        app_limited: true,
        ..event(limited, &a, &[], &rtt)
    });
    assert_eq!((c.window(), c.state()), (87_500, CcState::ApplicationLimited));
    // K after the sender-limited instant the curve is back at W_max (not at W_cubic(K + 2) = 103.2).
    ack(&mut c, limited + Dur::from_secs_f64(k), MSS, &rtt);
    assert!((c.cwnd / M - 100.0).abs() < 1e-6, "{}", c.cwnd / M);
}

#[test]
fn picoquic_cubic_persistent_congestion_reduces_despite_the_filter() {
    let rtt = rtt_of(Dur::from_millis(10));
    let mut c = at_100(&PicoquicCubicConfig::default(), &rtt);
    // One loss: drop rate 1/16, filtered out.
    lose(&mut c, T_LOSS, 7..=7, Time(600_000_000), &rtt);
    assert_eq!(c.window(), 100 * MSS);
    // A timeout always counts: ssthresh = 7/8 · 7/8 · 100 MSS, cwnd = 2 MSS, slow start up to it.
    c.on_persistent_congestion(T_LOSS);
    assert_eq!(
        (c.window(), c.ssthresh(), c.state()),
        (2 * MSS, 76_562, CcState::SlowStart)
    );
    ack(&mut c, T_LOSS + Dur::from_millis(1), 10 * MSS, &rtt);
    assert_eq!((c.window(), c.state()), (12 * MSS, CcState::SlowStart));
}

#[test]
fn picoquic_cubic_leaves_slow_start_on_an_rtt_rise_onto_the_plateau() {
    let mut c = PicoquicCubic::new(&PicoquicCubicConfig::default(), MSS);
    let (base, risen) = (rtt_of(Dur::from_micros(20)), rtt_of(Dur::from_micros(40)));
    // One MSS acked every 2 ms: 7 samples at 20 µs, then 13 at 40 µs (cc/delay_exit.rs).
    let at = |k: u64| Time(1_000_000 + k * 2_000_000);
    for k in 0..20 {
        assert_eq!(c.state(), CcState::SlowStart, "ack {k}");
        ack(&mut c, at(k), MSS, if k < 7 { &base } else { &risen });
    }
    assert_eq!(c.state(), CcState::CongestionAvoidance);
    assert_eq!(c.window(), 30 * MSS, "the window is kept");
    assert_eq!(c.ssthresh(), 30 * MSS);
    // cubic.c: W_max = W_reno = cwnd and the epoch starts K earlier, so the curve is at its
    // plateau now and grows C·t³ from here (W_reno would need 30 MSS acked per MSS).
    let t = 2.0;
    ack(&mut c, at(19) + Dur::from_secs(2), MSS, &risen);
    let expect = 30.0 * M + 0.4 * M * t * t * t;
    assert!((c.window() as f64 - expect).abs() <= 1.0, "{} vs {expect}", c.window());
}
