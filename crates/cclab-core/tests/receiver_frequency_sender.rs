//! The sender-side ACK-frequency policy: picoquic's gap = cwnd/4 and delay = RTT/4 floored at
//! min_ack_delay, the seed-000 cap, update pacing, and the PTO's max_ack_delay (draft §7).

use cclab_core::ack::frequency_sender::{AckFrequencySender, AckFrequencySenderConfig};
use cclab_core::recovery::rtt::{RttEstimator, INITIAL_RTT};
use cclab_core::{Dur, Time};
use std::num::NonZeroU64;

const MSS: u64 = 1472;

fn rtt(sample: Dur) -> RttEstimator {
    let mut r = RttEstimator::new(INITIAL_RTT);
    r.update(Time::ZERO, sample, Dur::ZERO);
    r
}

fn capped() -> AckFrequencySenderConfig {
    AckFrequencySenderConfig {
        gap_cap: NonZeroU64::new(32),
        ..Default::default()
    }
}

#[test]
fn frequency_sender_gap_is_quarter_window_and_delay_floored_on_loopback() {
    let mut s = AckFrequencySender::new(&AckFrequencySenderConfig::default());
    let f = s
        .poll_frame(Time::ZERO, 1000 * MSS, MSS, &rtt(Dur::from_micros(65)))
        .unwrap();
    // 1000 packets / 4 = one ACK per 250 → threshold 249 (ACK after more than 249); 65 µs / 4
    // = 16.25 µs, floored at min_ack_delay = 1 ms.
    assert_eq!(
        (f.sequence, f.ack_eliciting_threshold, f.request_max_ack_delay_us),
        (0, 249, 1000)
    );
    assert_eq!(f.reordering_threshold, 1);
}

#[test]
fn frequency_sender_cap_applies_only_when_min_rtt_below_four_delays() {
    let s = AckFrequencySender::new(&capped());
    let w = 1000 * MSS;
    // min_rtt 65 µs < 4 × 1 ms → 32.
    assert_eq!(s.target(w, MSS, &rtt(Dur::from_micros(65))), (32, Dur::from_millis(1)));
    // 3.999 ms: delay still 1 ms (999.75 µs floored), 3.999 < 4 → 32.
    assert_eq!(s.target(w, MSS, &rtt(Dur::from_micros(3999))).0, 32);
    // 4 ms: delay 1 ms, 4 ms is not < 4 ms → 250.
    assert_eq!(s.target(w, MSS, &rtt(Dur::from_millis(4))), (250, Dur::from_millis(1)));
    // 100 ms: delay 25 ms, 100 ms is not < 100 ms → 250.
    assert_eq!(
        s.target(w, MSS, &rtt(Dur::from_millis(100))),
        (250, Dur::from_millis(25))
    );
    // A small window is not raised to the cap: 40 packets → 10.
    assert_eq!(s.target(40 * MSS, MSS, &rtt(Dur::from_micros(65))).0, 10);
    // Nor below min_gap = 2.
    assert_eq!(s.target(4 * MSS, MSS, &rtt(Dur::from_micros(65))).0, 2);
}

#[test]
fn frequency_sender_sends_on_change_at_most_once_per_rtt() {
    let mut s = AckFrequencySender::new(&capped());
    let r = rtt(Dur::from_millis(2));
    assert!(s
        .poll_frame(Time::ZERO, 1000 * MSS, MSS, &RttEstimator::new(INITIAL_RTT))
        .is_none());
    assert_eq!(
        s.poll_frame(Time::ZERO, 40 * MSS, MSS, &r)
            .unwrap()
            .ack_eliciting_threshold,
        9
    );
    // Window doubled, but less than one smoothed RTT (2 ms) since the last frame.
    assert!(s.poll_frame(Time(1_999_999), 80 * MSS, MSS, &r).is_none());
    let f = s.poll_frame(Time(2_000_000), 80 * MSS, MSS, &r).unwrap();
    assert_eq!((f.sequence, f.ack_eliciting_threshold), (1, 19));
    // Nothing changed: no frame, however late.
    assert!(s.poll_frame(Time(50_000_000), 80 * MSS, MSS, &r).is_none());
}

#[test]
fn frequency_sender_pto_delay_covers_every_request_in_flight() {
    let mut s = AckFrequencySender::new(&AckFrequencySenderConfig::default());
    assert_eq!(s.max_ack_delay(), None);
    s.poll_frame(Time::ZERO, 100 * MSS, MSS, &rtt(Dur::from_micros(65)))
        .unwrap();
    // Frame 0 (1 ms) in flight: the peer may still use its 25 ms transport parameter.
    assert_eq!(s.max_ack_delay(), Some(Dur::from_millis(25)));
    s.on_frame_acked(0);
    assert_eq!(s.max_ack_delay(), Some(Dur::from_millis(1)));
    // Frame 1 asks for 10 ms (40 ms RTT, sent one RTT later): in force at once for the PTO.
    s.poll_frame(Time(40_000_000), 100 * MSS, MSS, &rtt(Dur::from_millis(40)))
        .unwrap();
    assert_eq!(s.max_ack_delay(), Some(Dur::from_millis(10)));
    // Frame 2 asks for 1 ms again: 10 ms stays until frame 2 is acknowledged.
    s.poll_frame(Time(100_000_000), 100 * MSS, MSS, &rtt(Dur::from_micros(65)))
        .unwrap();
    assert_eq!(s.max_ack_delay(), Some(Dur::from_millis(10)));
    s.on_frame_acked(2);
    assert_eq!(s.max_ack_delay(), Some(Dur::from_millis(1)));
}

#[test]
fn frequency_sender_monotonic_gap_never_shrinks() {
    let cfg = AckFrequencySenderConfig {
        monotonic_gap: true,
        ..Default::default()
    };
    let mut s = AckFrequencySender::new(&cfg);
    let r = rtt(Dur::from_micros(65));
    let f = s.poll_frame(Time::ZERO, 1000 * MSS, MSS, &r).unwrap();
    assert_eq!(f.ack_eliciting_threshold, 249);
    // The window falls to 100 packets (target gap 25): no frame, the peer keeps 250.
    assert!(s.poll_frame(Time(1_000_000), 100 * MSS, MSS, &r).is_none());
    // The window grows beyond its old size: a larger gap is sent.
    let f = s.poll_frame(Time(2_000_000), 1200 * MSS, MSS, &r).unwrap();
    assert_eq!(f.ack_eliciting_threshold, 299);
    // Without the option the smaller gap goes out.
    let mut plain = AckFrequencySender::new(&AckFrequencySenderConfig::default());
    plain.poll_frame(Time::ZERO, 1000 * MSS, MSS, &r).unwrap();
    assert_eq!(
        plain
            .poll_frame(Time(1_000_000), 100 * MSS, MSS, &r)
            .unwrap()
            .ack_eliciting_threshold,
        24
    );
}

#[test]
fn frequency_sender_max_gap_holds_on_long_rtt_paths() {
    // 600 ms satellite path, 5000-packet window: the cap of seed 000 does not apply
    // (600 ms ≥ 4 × 150 ms), so without a ceiling the gap is 5000 / 4 = 1250.
    let long = rtt(Dur::from_millis(600));
    let w = 5000 * MSS;
    assert_eq!(AckFrequencySender::new(&capped()).target(w, MSS, &long).0, 1250);
    let s = AckFrequencySender::new(&AckFrequencySenderConfig {
        max_gap: Some(64),
        ..capped()
    });
    assert_eq!(s.target(w, MSS, &long), (64, Dur::from_millis(150)));
    // Below the ceiling the window rule still decides: 200 packets → 50.
    assert_eq!(s.target(200 * MSS, MSS, &long).0, 50);
}

#[test]
fn frequency_sender_slow_start_gap_rule_applies_only_in_slow_start() {
    let mut s = AckFrequencySender::new(&AckFrequencySenderConfig {
        slow_start_gap_divisor: NonZeroU64::new(8),
        ..Default::default()
    });
    let r = rtt(Dur::from_millis(600));
    let w = 400 * MSS;
    assert_eq!(s.target(w, MSS, &r).0, 100, "congestion avoidance: 400 / 4");
    s.set_in_slow_start(true);
    assert_eq!(s.target(w, MSS, &r).0, 50, "slow start: 400 / 8");
    let f = s.poll_frame(Time::ZERO, w, MSS, &r).unwrap();
    assert_eq!(f.ack_eliciting_threshold, 49);
    // Leaving slow start doubles the target gap: a new frame once an RTT has passed.
    s.set_in_slow_start(false);
    assert!(s.poll_frame(Time(599_999_999), w, MSS, &r).is_none());
    let f = s.poll_frame(Time(600_000_000), w, MSS, &r).unwrap();
    assert_eq!(f.ack_eliciting_threshold, 99);
}
