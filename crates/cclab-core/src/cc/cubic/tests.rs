//! CUBIC behaviour against closed forms of RFC 9438 and the seed-001 arithmetic.

use super::*;
use crate::cc::test_util::{event, rtt_of};
use crate::cc::{AckedPacket, LostPacket};
use crate::recovery::rtt::RttEstimator;
use crate::time::Dur;

const MSS: u64 = 1200;
const M: f64 = MSS as f64;
/// When the loss that opens every scenario below is detected.
const T_LOSS: Time = Time(1_000_000_000);

fn cfg(reno_friendly: RenoFriendly) -> CubicConfig {
    CubicConfig {
        reno_friendly,
        slow_start: SlowStartConfig::Classic,
        ..Default::default()
    }
}

/// Slow start from the 10-MSS initial window to 100 MSS, then a loss detected at `T_LOSS`:
/// cwnd = 70 MSS, W_max = 100 MSS, in recovery.
fn after_loss(cfg: CubicConfig, rtt: &RttEstimator) -> Cubic {
    let mut c = Cubic::new(&cfg, Time::ZERO, MSS);
    let a = [AckedPacket {
        pn: 0,
        bytes: 90 * MSS,
        time_sent: Time::ZERO,
    }];
    c.on_congestion_event(&event(Time(500_000_000), &a, &[], rtt));
    assert_eq!((c.window(), c.state()), (100 * MSS, CcState::SlowStart));
    c.on_congestion_event(&event(T_LOSS, &[], &[lost(Time(600_000_000))], rtt));
    assert_eq!((c.window(), c.state()), (70 * MSS, CcState::Recovery));
    c
}

fn lost(time_sent: Time) -> LostPacket {
    LostPacket {
        pn: 1,
        bytes: MSS,
        time_sent,
        ..Default::default()
    }
}

/// One ACK at `now` of `bytes` sent at `now` (after the recovery start).
fn ack(c: &mut Cubic, now: Time, bytes: u64, rtt: &RttEstimator) {
    let a = [AckedPacket {
        pn: 2,
        bytes,
        time_sent: now,
    }];
    c.on_congestion_event(&event(now, &a, &[], rtt));
}

/// ACKs every `gap` from `T_LOSS + gap`, each covering the whole window (one ACK per RTT when
/// `gap` is the RTT); returns the window after each.
fn window_acks(c: &mut Cubic, n: u64, gap: Dur, rtt: &RttEstimator) -> Vec<u64> {
    (1..=n)
        .map(|i| {
            let w = c.window();
            ack(c, T_LOSS + gap * i, w, rtt);
            c.window()
        })
        .collect()
}

#[test]
fn cubic_concave_then_convex_around_k() {
    let rtt = rtt_of(Dur::from_millis(100));
    let mut c = after_loss(cfg(RenoFriendly::Off), &rtt);
    // Epoch starts at the first ACK; after the ACK at t the window is W_cubic(t + RTT).
    let w = window_acks(&mut c, 81, Dur::from_millis(100), &rtt);
    let k = 75f64.cbrt(); // ∛((100 − 70)/0.4) s
    let at = |i: usize| w[i] as f64 / M; // event i at t = 0.1·i s
                                         // t + RTT = 2.0 s: 100 − 0.4·(K − 2)³ = 95.6404 segments.
    assert!(
        (at(19) - (100.0 - 0.4 * (k - 2.0).powi(3))).abs() < 1.0 / M,
        "{}",
        at(19)
    );
    assert!((at(19) - 95.6404).abs() < 1e-3);
    // t + RTT = 4.2 s ≈ K: back at W_max.
    assert!((at(41) - 100.0).abs() < 0.01, "{}", at(41));
    for i in 1..40 {
        // Concave: below W_max, growing, each step smaller than the one before.
        assert!(at(i) < 100.0 && at(i) > at(i - 1));
        assert!(at(i + 1) - at(i) < at(i) - at(i - 1), "concave at {i}");
    }
    for i in 43..80 {
        // Convex: above W_max, each step larger.
        assert!(at(i) > 100.0);
        assert!(at(i + 1) - at(i) > at(i) - at(i - 1), "convex at {i}");
    }
    assert_eq!(c.state(), CcState::CongestionAvoidance);
}

#[test]
fn cubic_per_ack_w_est_grows_alpha_per_window_then_one() {
    let rtt = rtt_of(Dur::from_millis(1));
    let mut c = after_loss(cfg(RenoFriendly::PerAck), &rtt);
    // One-MSS ACKs 1 µs apart: W_cubic(t) stays ≈ 70 MSS, so the Reno-friendly estimate rules.
    let mut now = T_LOSS;
    let mut acks = |c: &mut Cubic, n: u64| {
        for _ in 0..n {
            now += Dur::from_micros(1);
            ack(c, now, MSS, &rtt);
        }
    };
    let alpha = 9.0 / 17.0;
    // A window's worth (70) of ACKs adds α·MSS·70/cwnd, with cwnd ∈ [70, 70 + α] MSS.
    acks(&mut c, 70);
    let grown = c.cwnd / M - 70.0;
    assert!(grown <= alpha && grown >= alpha * 70.0 / (70.0 + alpha), "{grown}");
    // Once W_est reaches cwnd_prior = 100 MSS, α = 1: 100 ACKs at ≈100 MSS add ≈1 MSS.
    while c.cwnd < 100.0 * M {
        acks(&mut c, 1);
    }
    let before = c.cwnd / M;
    acks(&mut c, 100);
    let grown = c.cwnd / M - before;
    assert!((100.0 / 101.0..=1.0).contains(&grown), "{grown}");
}

/// Seed 001: HZ = 1000, RTT 50 µs, one ACK per RTT covering the window (20 000 ACKs/s), for 1 s.
fn seed_001_second(cfg: CubicConfig) -> Vec<u64> {
    let rtt = rtt_of(Dur::from_micros(50));
    let mut c = after_loss(cfg, &rtt);
    window_acks(&mut c, 20_000, Dur::from_micros(50), &rtt)
}

#[test]
fn cubic_tick_time_is_flat_within_a_tick_and_twenty_times_slow() {
    let alpha = 9.0 / 17.0;
    let ticks = CubicConfig {
        time_source: TimeSource::Ticks,
        rtt_source: RttSource::Ticks,
        ..cfg(RenoFriendly::TimeBased)
    };
    let w = seed_001_second(ticks);
    // The window changes only when the tick counter does: runs of tick/RTT − 1 = 19 unchanged ACKs.
    let changes: Vec<usize> = (1..w.len()).filter(|&i| w[i] != w[i - 1]).collect();
    assert_eq!(changes.len(), 1000, "one change per tick");
    assert!(
        changes.windows(2).all(|p| p[1] - p[0] == 20),
        "19 flat ACKs between changes"
    );
    // The last ACK is 1000 ticks into the epoch, and RTT counts as 1 tick: W_est = 70 + 1000·α MSS.
    let tick_growth = *w.last().unwrap() as f64 - 70.0 * M;
    assert!((tick_growth - 1000.0 * alpha * M).abs() <= 1.0, "{tick_growth}");
    // The same formula on the exact clock and smoothed RTT: t/RTT = 19 999 at the last ACK.
    let clock = seed_001_second(cfg(RenoFriendly::TimeBased));
    let clock_growth = *clock.last().unwrap() as f64 - 70.0 * M;
    assert!((clock_growth - 19_999.0 * alpha * M).abs() <= 1.0, "{clock_growth}");
    assert!((clock_growth / tick_growth - 20.0).abs() < 0.01);
    // RFC 9438's per-ACK estimate grows like NewReno, ≈ 1 MSS per window of ACKs: 20 000 MSS/s,
    // (tick/RTT)/α = 37.8 times the tick-quantised growth.
    let per_ack = seed_001_second(cfg(RenoFriendly::PerAck));
    let per_ack_growth = *per_ack.last().unwrap() as f64 - 70.0 * M;
    assert!((per_ack_growth / (20_000.0 * M) - 1.0).abs() < 0.01, "{per_ack_growth}");
    assert!((per_ack_growth / tick_growth - 20.0 / alpha).abs() < 0.4);
}

#[test]
fn cubic_fast_convergence_lowers_w_max() {
    let rtt = rtt_of(Dur::from_millis(100));
    for (fast, w_max) in [(true, 0.85 * 70.0 * M), (false, 70.0 * M)] {
        let mut c = after_loss(
            CubicConfig {
                fast_convergence: fast,
                ..cfg(RenoFriendly::PerAck)
            },
            &rtt,
        );
        assert_eq!(c.w_max, Some(100.0 * M));
        // A second loss, of a packet sent after the first recovery began, below W_max.
        c.on_congestion_event(&event(
            T_LOSS + Dur::from_millis(300),
            &[],
            &[lost(T_LOSS + Dur(1))],
            &rtt,
        ));
        assert!((c.w_max.unwrap() - w_max).abs() < 1e-6, "{:?}", c.w_max);
        assert_eq!(c.window(), 58_800, "0.7 · 70 MSS");
    }
}

#[test]
fn cubic_reduces_once_per_recovery_period() {
    let rtt = rtt_of(Dur::from_millis(100));
    let mut c = after_loss(cfg(RenoFriendly::PerAck), &rtt);
    // Loss and ACK of packets sent before the recovery start: no reduction, no growth.
    let before = [AckedPacket {
        pn: 3,
        bytes: MSS,
        time_sent: T_LOSS,
    }];
    c.on_congestion_event(&event(T_LOSS + Dur::from_millis(50), &before, &[lost(T_LOSS)], &rtt));
    assert_eq!((c.window(), c.state()), (70 * MSS, CcState::Recovery));
    // ECN-CE on a packet sent before the recovery start: nothing either.
    c.on_congestion_event(&CongestionEvent {
        ecn_ce: 1,
        ..event(T_LOSS + Dur::from_millis(60), &before, &[], &rtt)
    });
    assert_eq!(c.window(), 70 * MSS);
    // A packet sent after it is acknowledged: recovery ends.
    ack(&mut c, T_LOSS + Dur::from_millis(100), MSS, &rtt);
    assert_eq!(c.state(), CcState::CongestionAvoidance);
    // ECN-CE reported with a packet sent after the recovery start: the second reduction.
    let after = [AckedPacket {
        pn: 4,
        bytes: MSS,
        time_sent: T_LOSS + Dur(1),
    }];
    let w = c.cwnd;
    c.on_congestion_event(&CongestionEvent {
        ecn_ce: 1,
        ..event(T_LOSS + Dur::from_millis(200), &after, &[], &rtt)
    });
    assert_eq!(c.window(), (0.7 * w).round() as u64);
    assert_eq!(c.ssthresh(), c.window());
}

#[test]
fn cubic_app_limited_freezes_growth_and_time() {
    let rtt = rtt_of(Dur::from_millis(100));
    let rtt_ms = Dur::from_millis(100);
    let mut straight = after_loss(cfg(RenoFriendly::Off), &rtt);
    let expect = window_acks(&mut straight, 20, rtt_ms, &rtt);
    // Ten ACKs, two seconds of app-limited ACKs, ten more.
    let mut c = after_loss(cfg(RenoFriendly::Off), &rtt);
    window_acks(&mut c, 10, rtt_ms, &rtt);
    let frozen = c.window();
    for i in 11..=30 {
        let a = [AckedPacket {
            pn: 2,
            bytes: frozen,
            time_sent: T_LOSS + rtt_ms * i,
        }];
        c.on_congestion_event(&CongestionEvent {
            app_limited: true,
            ..event(T_LOSS + rtt_ms * i, &a, &[], &rtt)
        });
        assert_eq!((c.window(), c.state()), (frozen, CcState::ApplicationLimited));
    }
    for i in 31..=40 {
        let w = c.window();
        ack(&mut c, T_LOSS + rtt_ms * i, w, &rtt);
    }
    // The idle two seconds are not part of t: the same window as twenty ACKs in a row.
    assert!(expect[19] > expect[9]);
    assert_eq!(c.window(), expect[19]);
}

#[test]
fn cubic_grows_nothing_on_an_ack_that_may_not_raise_the_window() {
    // `may_raise_window` false (a TCP duplicate ACK): neither slow start nor congestion avoidance
    // grows, and recovery still ends on a packet sent after it began.
    let rtt = rtt_of(Dur::from_millis(100));
    let mut c = Cubic::new(&cfg(RenoFriendly::Off), Time::ZERO, MSS);
    let a = [AckedPacket {
        pn: 0,
        bytes: 5 * MSS,
        time_sent: Time::ZERO,
    }];
    let dup = |now, a| CongestionEvent {
        may_raise_window: false,
        ..event(now, a, &[], &rtt)
    };
    c.on_congestion_event(&dup(Time(100_000_000), &a));
    assert_eq!((c.window(), c.state()), (10 * MSS, CcState::SlowStart));
    let mut c = after_loss(cfg(RenoFriendly::Off), &rtt);
    let later = T_LOSS + Dur::from_millis(100);
    let a = [AckedPacket {
        pn: 2,
        bytes: 70 * MSS,
        time_sent: later,
    }];
    c.on_congestion_event(&dup(later, &a));
    assert_eq!((c.window(), c.state()), (70 * MSS, CcState::CongestionAvoidance));
    // The same ACK allowed to raise the window grows it.
    c.on_congestion_event(&event(later, &a, &[], &rtt));
    assert!(c.window() > 70 * MSS);
}

#[test]
fn cubic_persistent_congestion_restarts_with_k_zero() {
    let rtt = rtt_of(Dur::from_millis(100));
    let mut c = after_loss(cfg(RenoFriendly::PerAck), &rtt);
    c.on_persistent_congestion(T_LOSS);
    assert_eq!((c.window(), c.state()), (2 * MSS, CcState::SlowStart));
    // Slow start back to ssthresh = 70 MSS, then the first congestion-avoidance ACK.
    ack(&mut c, T_LOSS + Dur::from_millis(100), 68 * MSS, &rtt);
    assert_eq!(c.state(), CcState::CongestionAvoidance);
    ack(&mut c, T_LOSS + Dur::from_millis(200), MSS, &rtt);
    // RFC 9438 §4.8: K = 0 and W_max = cwnd at the start of that congestion avoidance.
    assert_eq!(c.epoch.map(|e| e.k), Some(0.0));
    assert_eq!(c.w_max, Some(70.0 * M));
    assert_eq!(c.cwnd_prior, Some(100.0 * M), "cwnd_prior stays from the loss");
}

#[test]
fn cubic_hystart_exit_without_loss_sets_w_max_and_k_zero() {
    let mut c = Cubic::new(&CubicConfig::default(), Time::ZERO, MSS);
    let mut pn = 0;
    let mut now = Time::ZERO;
    let mut exit_cwnd = None;
    // Rounds of ten packets: one at 100 ms, then 125 ms (≥ 100 + 12.5): CSS, then five CSS rounds.
    for (round, ms) in [100, 125, 125, 125, 125, 125, 125].into_iter().enumerate() {
        let rtt = rtt_of(Dur::from_millis(ms));
        for p in pn..pn + 10 {
            now += Dur::from_millis(1);
            let a = [AckedPacket {
                pn: p,
                bytes: MSS,
                time_sent: now,
            }];
            let was_slow_start = c.state() == CcState::SlowStart;
            c.on_congestion_event(&CongestionEvent {
                next_pn: pn + 10,
                ..event(now, &a, &[], &rtt)
            });
            if was_slow_start && c.state() == CcState::CongestionAvoidance {
                assert_eq!((round, p), (6, 60), "the first ACK of the sixth round after CSS began");
                exit_cwnd = Some(c.cwnd);
            }
        }
        pn += 10;
    }
    // RFC 9438 §4.10: the next ACK started congestion avoidance with W_max = cwnd_prior = cwnd, K = 0.
    let w = exit_cwnd.expect("HyStart++ left slow start");
    assert_eq!(
        (c.w_max, c.cwnd_prior, c.epoch.map(|e| e.k)),
        (Some(w), Some(w), Some(0.0))
    );
}

/// Congestion avoidance entered at 100 MSS without a loss (ssthresh = cwnd), 100 ms RTT; then one
/// window of MSS-sized ACKs. Returns the window after it, in MSS.
fn first_window_after_clean_exit(c: &mut Cubic, rtt: &RttEstimator, start: Time) -> f64 {
    for i in 1..=100u64 {
        ack(c, start + Dur::from_millis(i), MSS, rtt);
    }
    c.window() as f64 / M
}

#[test]
fn cubic_linux_initial_growth_is_five_percent_per_rtt_until_the_first_loss() {
    let rtt = rtt_of(Dur::from_millis(100));
    let growth = |linux: bool| {
        let mut c = Cubic::new(
            &CubicConfig {
                linux_initial_growth: linux,
                ..cfg(RenoFriendly::PerAck)
            },
            Time::ZERO,
            MSS,
        );
        c.cwnd = 100.0 * M;
        c.sync_window();
        c.ssthresh = 100 * MSS;
        let w = first_window_after_clean_exit(&mut c, &rtt, Time::ZERO);
        (c, w)
    };
    // RFC 9438: W_max = cwnd and K = 0, so the cubic curve is flat; W_est (α = 1 once it reaches
    // cwnd_prior = cwnd) adds one MSS per window.
    let (_, rfc) = growth(false);
    assert!((100.9..101.1).contains(&rfc), "{rfc}");
    // tcp_cubic.c with last_max_cwnd == 0: one MSS per 20 acknowledged, 5 MSS per window of 100.
    let (mut c, linux) = growth(true);
    assert!((104.9..105.1).contains(&linux), "{linux}");
    // After a loss Linux knows last_max_cwnd: the floor is gone, and RFC 9438's concave curve and
    // W_est (α = 0.53) add 2.5 MSS to the 73.5 left, less than 5 %.
    c.on_congestion_event(&event(T_LOSS, &[], &[lost(Time(900_000_000))], &rtt));
    ack(&mut c, T_LOSS + Dur::from_millis(1), MSS, &rtt);
    let after = c.window() as f64 / M;
    let w = first_window_after_clean_exit(&mut c, &rtt, T_LOSS + Dur::from_millis(1));
    assert!(w - after < 0.05 * after, "{after} -> {w}");
    // A persistent congestion forgets it again (Linux resets last_max_cwnd on a timeout).
    c.on_persistent_congestion(T_LOSS);
    assert!(!c.congestion_seen);
}

#[test]
fn cubic_config_parses_names() {
    let c: CubicConfig = toml::from_str(
        "reno_friendly = \"time-based\"\ntime_source = \"ticks\"\nrtt_source = \"ticks\"\nslow_start = \"classic\"",
    )
    .unwrap();
    assert_eq!(
        c,
        CubicConfig {
            time_source: TimeSource::Ticks,
            rtt_source: RttSource::Ticks,
            ..cfg(RenoFriendly::TimeBased)
        }
    );
    assert_eq!(toml::from_str::<CubicConfig>("").unwrap(), CubicConfig::default());
    assert!(toml::from_str::<CubicConfig>("betta = 0.5")
        .unwrap_err()
        .to_string()
        .contains("unknown field"));
    assert!(toml::from_str::<CubicConfig>("reno_friendly = \"time\"").is_err());
    // Through the registry, with a nested slow-start table.
    let cc: crate::cc::CcConfig =
        toml::from_str("algorithm = \"cubic\"\nslow_start = { kind = \"train\", min_train_packets = 16 }").unwrap();
    let crate::cc::CcConfig::Cubic(c) = cc else {
        panic!("not cubic: {cc:?}")
    };
    let train = crate::cc::train_ss::TrainConfig {
        min_train_packets: 16,
        ..Default::default()
    };
    assert_eq!(c.slow_start, SlowStartConfig::Train(train));
}

#[test]
fn cubic_window_follows_cwnd_through_every_input() {
    // `window` is `cwnd` in whole bytes kept apart from it: after each kind of input that moves
    // `cwnd` (slow-start and congestion-avoidance growth of fractions of a byte, a loss, ECN-CE, an
    // ACK in recovery, persistent congestion) it must read what `cwnd` converts to.
    let rtt = rtt_of(Dur::from_millis(100));
    let mut c = Cubic::new(&cfg(RenoFriendly::PerAck), Time::ZERO, MSS);
    let check = |c: &Cubic, what: &str| assert_eq!(c.window(), c.cwnd as u64, "after {what}");
    check(&c, "the start");
    ack(&mut c, Time(1), 3 * MSS, &rtt);
    check(&c, "slow start");
    c.on_congestion_event(&event(T_LOSS, &[], &[lost(Time(2))], &rtt));
    check(&c, "a loss");
    ack(&mut c, T_LOSS, MSS, &rtt);
    check(&c, "an ACK in recovery");
    let mut grew = 0;
    for i in 1..200 {
        let before = c.window();
        ack(&mut c, T_LOSS + Dur::from_millis(10 * i), 7 * MSS / 3, &rtt);
        check(&c, "congestion avoidance");
        grew += u32::from(c.window() != before);
    }
    assert!(grew > 10, "the window grew on {grew} ACKs");
    let after = [AckedPacket {
        pn: 9,
        bytes: MSS,
        time_sent: T_LOSS + Dur::from_secs(3),
    }];
    c.on_congestion_event(&CongestionEvent {
        ecn_ce: 1,
        ..event(T_LOSS + Dur::from_secs(4), &after, &[], &rtt)
    });
    check(&c, "ECN-CE");
    c.on_persistent_congestion(T_LOSS + Dur::from_secs(5));
    check(&c, "persistent congestion");
    assert_eq!(c.window(), 2 * MSS);
}

#[test]
fn cubic_reduction_brings_the_window_up_to_date_before_the_slow_start_test() {
    // A one-segment initial window under kMinimumWindow: the loss's reduction raises cwnd to two
    // segments, which is also ssthresh, so the same event's ACK of a packet sent after the recovery
    // start grows in congestion avoidance (a fraction of a segment). Read from a `window` still at
    // one segment, the slow-start test would say slow start and the ACK would add a whole segment.
    let rtt = rtt_of(Dur::from_millis(100));
    let one = CubicConfig {
        initial_window: Some(crate::units::Bytes(MSS)),
        ..cfg(RenoFriendly::PerAck)
    };
    let mut c = Cubic::new(&one, Time::ZERO, MSS);
    let after = [AckedPacket {
        pn: 2,
        bytes: MSS,
        time_sent: T_LOSS + Dur(1),
    }];
    c.on_congestion_event(&event(T_LOSS, &after, &[lost(Time(1))], &rtt));
    assert_eq!(c.ssthresh(), 2 * MSS);
    assert!(
        c.window() < 3 * MSS,
        "window {} after the reduction's own ACK",
        c.window()
    );
}

#[test]
fn layout_keeps_a_send_in_one_line() {
    // A send attempt reads `window`, `cwnd` and `ssthresh` (the window, whether in slow start) and
    // the slow start's kind (its pause and burst allowance): all in line 0. A send writes nothing here.
    let c = Cubic::new(&CubicConfig::default(), Time::ZERO, 1200);
    let base = &c as *const Cubic as usize;
    let kind = &c.slow_start as *const SlowStart as usize - base;
    assert!(core::mem::offset_of!(Cubic, window) + 8 <= 64);
    assert!(core::mem::offset_of!(Cubic, cwnd) + 8 <= 64);
    assert!(core::mem::offset_of!(Cubic, ssthresh) + 8 <= 64);
    assert!(kind + 8 <= 64, "slow start at {kind}");
    assert_eq!(size_of::<Cubic>(), 5 * 64);
}
