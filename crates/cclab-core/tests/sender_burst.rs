//! The sender honours `CongestionController::burst_allowance`: after the controller's pacing
//! pause, the pacer's bucket may hold the whole train the controller asked for, so the train
//! leaves back-to-back (picoquic's `bandwidth_pause`, seed 002); without the request, the
//! pacer's own burst (RFC 9002 §7.7: 10 packets) limits it. It also honours
//! `CongestionController::send_quantum` (draft-ietf-ccwg-bbr §5.6.3): paced packets then leave in
//! aggregates of that size, spaced so that the average rate stays the pacing rate.
//!
//! Timeline (a test controller with a fixed pacing rate of one full packet per 100 µs):
//! - t = 0: the full bucket releases pn 0–9; pn 10–29 follow 100 µs apart.
//! - after pn 29 (t ≈ 2 ms) the controller pauses for 10 ms, asking (or not) for a 20-packet train.
//! - at the end of the pause: pn 30–49 together (with the request), or pn 30–39 together and
//!   pn 40–49 paced (without it).

mod sender_pair;

use cclab_core::cc::{CcState, CongestionController, CongestionEvent};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use sender_pair::{Pair, MSS};

/// Pacing interval of one full packet.
const GAP: Dur = Dur::from_micros(100);
/// Packets sent before the pause.
const BEFORE: u64 = 30;
/// Pause length.
const PAUSE: Dur = Dur::from_millis(10);
/// Packets in the requested train.
const TRAIN: u64 = 20;

/// A fixed, huge window and pacing rate; after its `BEFORE`-th packet it pauses for `PAUSE` and,
/// if `train` is set, asks for that many bytes back-to-back once the pause is over.
struct PauseThenTrain {
    sent: u64,
    train: Option<u64>,
    pause_until: Option<Time>,
    burst_left: Option<u64>,
    quantum: Option<u64>,
}

impl CongestionController for PauseThenTrain {
    fn on_packet_sent(&mut self, now: Time, _pn: u64, bytes: u64, _bytes_in_flight: u64) {
        self.sent += 1;
        if self.pause_until.is_some_and(|until| now >= until) {
            let left = self.burst_left.map_or(0, |l| l.saturating_sub(bytes));
            self.burst_left = (left > 0).then_some(left);
        }
        if self.sent == BEFORE {
            self.pause_until = Some(now + PAUSE);
            self.burst_left = self.train;
        }
    }
    fn on_congestion_event(&mut self, _ev: &CongestionEvent<'_>) {}
    fn window(&self) -> u64 {
        1 << 30
    }
    fn pacing_rate(&self) -> Option<f64> {
        Some(MSS as f64 / GAP.as_secs_f64())
    }
    fn pause_until(&self) -> Option<Time> {
        self.pause_until
    }
    fn burst_allowance(&self) -> Option<u64> {
        self.burst_left
    }
    fn send_quantum(&self) -> Option<u64> {
        self.quantum
    }
    fn state(&self) -> CcState {
        CcState::Other("test")
    }
    fn name(&self) -> &'static str {
        "pause_then_train"
    }
}

/// Send times of the first 60 packets, with or without the train request and a send quantum.
fn send_times(train: Option<u64>, quantum: Option<u64>) -> Vec<Time> {
    let cc = PauseThenTrain {
        sent: 0,
        train,
        pause_until: None,
        burst_left: None,
        quantum,
    };
    let profile = Profile::Quic(QuicProfile::default());
    let source = SourceConfig::Bulk { size: Bytes(1 << 20) };
    let cfg = SenderConfig::default();
    assert_eq!(cfg.pacing.burst_packets, 10);
    let sender = Sender::with_controller(FlowId(0), profile, &cfg, Box::new(cc), &source, Time::ZERO);
    let mut pair = Pair::new(sender, Dur::from_millis(10), 10_000_000_000);
    pair.run_until(Time(Dur::from_millis(100).as_nanos()), |p| p.sent.len() >= 60);
    assert!(pair.sent[..60].iter().all(|s| s.bytes == MSS), "full-sized packets");
    pair.sent[..60].iter().map(|s| s.time).collect()
}

/// Asserts `t[i+1] - t[i]` is `gap` within 2 ns (pacing deadlines are rounded up to the ns).
#[track_caller]
fn assert_gaps(t: &[Time], range: core::ops::Range<usize>, gap: Dur) {
    for i in range {
        let d = (t[i + 1] - t[i]).as_nanos();
        assert!(
            d.abs_diff(gap.as_nanos()) <= 2,
            "pn {i} -> {}: {d} ns, expected {gap}",
            i + 1
        );
    }
}

#[test]
fn sender_burst_allowance_releases_the_train_back_to_back_after_the_pause() {
    let t = send_times(Some(TRAIN * MSS), None);
    let b = BEFORE as usize;
    // Before the pause: the 10-packet bucket, then one packet per GAP.
    assert_gaps(&t, 0..9, Dur::ZERO);
    assert_gaps(&t, 9..b - 1, GAP);
    // The train leaves when the pause ends, all 20 packets at once.
    assert_eq!(t[b], t[b - 1] + PAUSE);
    assert_gaps(&t, b..b + TRAIN as usize - 1, Dur::ZERO);
    // The request is used up: the next packet waits for one packet of credit.
    assert_gaps(&t, b + TRAIN as usize - 1..59, GAP);
}

#[test]
fn sender_burst_without_allowance_pacer_limits_the_train_to_its_bucket() {
    let t = send_times(None, None);
    let b = BEFORE as usize;
    assert_eq!(t[b], t[b - 1] + PAUSE);
    // RFC 9002 §7.7 bucket of 10 packets, then paced.
    assert_gaps(&t, b..b + 9, Dur::ZERO);
    assert_gaps(&t, b + 9..59, GAP);
}

#[test]
fn sender_send_quantum_releases_aggregates_spaced_at_the_pacing_rate() {
    let t = send_times(None, Some(4 * MSS));
    // t = 0: the 10-packet bucket pays for pn 0–9 and the third aggregate borrows for pn 10–11;
    // each later aggregate of 4 leaves when the debt is repaid, 4 GAPs after the previous one.
    assert_gaps(&t, 0..11, Dur::ZERO);
    assert_gaps(&t, 11..12, GAP * 3);
    for start in (12..28).step_by(4) {
        assert_gaps(&t, start..start + 3, Dur::ZERO);
        assert_gaps(&t, start + 3..start + 4, GAP * 4);
    }
}
