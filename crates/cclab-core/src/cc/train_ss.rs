//! Slow start with packet-train bandwidth estimation, as picoquic does it (seed 002).
//!
//! **Estimator** (picoquic `picoquic_estimate_max_path_bandwidth`, PRs #746/#878: the maximum
//! bandwidth over short intervals). A reference ACK records its arrival time, the send time of
//! the newest packet it acknowledges and the bytes delivered so far. A later ACK whose newest
//! packet was sent no earlier closes the sample once more than `min_interval` of ACK arrivals has
//! passed, `rate = delivered bytes / max(ACK interval, send interval)`, and becomes the next
//! reference; the peak rate is kept. Only the bytes delivered between two ACKs count, so a
//! thinned ACK stream (one ACK per many packets) measures what an ACK per packet would, as long
//! as two of its ACKs fall inside one train more than `min_interval` apart.
//!
//! What a sample can show: the send interval in the denominator caps it at the rate the packets
//! left at. A train sent back-to-back crosses the bottleneck at the path rate and its ACKs
//! return at that rate; a paced sender only measures its own pacing rate (the circular
//! dependency of digest §9). At RFC 9002's `1.25·cwnd/srtt` that rate times `min_rtt / 2` is
//! below cwnd, so the estimate never raises the window: slow start stays classic.
//!
//! **Jump** (picoquic `picoquic_cc_update_target_cwin_estimation`): on every ACK in slow start,
//! `cwnd = max(cwnd, bdp_gain · peak · min_rtt)` with `bdp_gain = 1/2`; slow start doubles on.
//!
//! **Pause on a failed estimate** (optional; picoquic's fix of April 2023, `bandwidth_pause` in
//! its pacer, set in the long-RTT startup when the estimate leaves cwnd unraised). An ACK that
//! leaves cwnd unraised on a long path stops sending until the pacer has earned credit for a
//! `min_train_packets` train, which then leaves back-to-back ([`TrainEstimator::burst_allowance`]
//! lets the pacer's bucket hold it). A new pause is armed only once that train has left; a jump
//! drops a pending one.
//!
//! **Long-RTT initial window** (optional; picoquic `BBREnterStartupLongRTT`, the startup its
//! satellite tests run): at the first ACK with an RTT sample, cwnd becomes at least 10 packets ×
//! `min(min_rtt, 610 ms) / 100 ms` when `min_rtt` exceeds `long_rtt_threshold`.

use super::CongestionEvent;
use crate::recovery::pacer::PacingConfig;
use crate::time::{Dur, Time};
use serde::Deserialize;

/// The longest RTT the long-RTT initial window scales with (picoquic
/// `PICOQUIC_TARGET_SATELLITE_RTT`, "practical maximum for non-pathological RTT").
const SATELLITE_RTT: Dur = Dur::from_millis(610);
/// The RTT for which the initial window of 10 packets is meant (picoquic `PICOQUIC_TARGET_RENO_RTT`).
const RENO_RTT: Dur = Dur::from_millis(100);
/// Packets in the initial window (RFC 9002 §7.2, picoquic `PICOQUIC_CWIN_INITIAL`).
const INITIAL_WINDOW_PACKETS: u64 = 10;

/// Parameters of the train slow start.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// A sample spans more than this much ACK-arrival time, so that ACK compression cannot
    /// inflate it. Default 1 ms (picoquic `PICOQUIC_MAX_BANDWIDTH_TIME_INTERVAL_MIN` = 1000 µs).
    pub min_interval: Dur,
    /// cwnd jumps to this fraction of `peak × min_rtt`. Default 0.5 (picoquic's half-BDP target).
    pub bdp_gain: f64,
    /// A jump never takes cwnd above this multiple of its current value; unset: no cap (picoquic).
    pub max_jump_factor: Option<f64>,
    /// After an ACK whose estimate leaves cwnd unraised, pause until the pacer holds credit for a
    /// `min_train_packets` train (picoquic's fix, seed 002). Default false.
    pub pacing_pause_on_failed_estimate: bool,
    /// Full-sized packets in the train released after a pause. Default 10 (picoquic waits for at
    /// most 10 packet times of pacing credit, `picoquic_is_authorized_by_pacing`). A train shows
    /// the path rate only if it spans more than `min_interval` between two ACKs at that rate.
    pub min_train_packets: u64,
    /// Paths whose smoothed RTT (pause) or min RTT (initial window) exceed this are long.
    /// Default 100 ms (picoquic `PICOQUIC_TARGET_RENO_RTT`).
    pub long_rtt_threshold: Dur,
    /// Scale the initial window with the RTT on long paths (picoquic `BBREnterStartupLongRTT`).
    /// Default false.
    pub long_rtt_initial_window: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            min_interval: Dur::from_millis(1),
            bdp_gain: 0.5,
            max_jump_factor: None,
            pacing_pause_on_failed_estimate: false,
            min_train_packets: 10,
            long_rtt_threshold: RENO_RTT,
            long_rtt_initial_window: false,
        }
    }
}

/// The reference point of the open sample.
#[derive(Clone, Copy, Debug)]
struct Reference {
    ack_time: Time,
    sent_time: Time,
    delivered: u64,
}

/// Train slow-start state of one connection.
#[derive(Clone, Debug)]
pub struct TrainEstimator {
    cfg: TrainConfig,
    mss: u64,
    reference: Option<Reference>,
    /// Peak sample rate in bytes/s.
    peak: Option<f64>,
    pause_until: Option<Time>,
    /// Bytes of the post-pause train not yet sent.
    burst_left: Option<u64>,
    /// The long-RTT initial window was considered (at the first RTT sample).
    initial_window_done: bool,
}

impl TrainEstimator {
    /// A train slow start for a sender whose full-sized packet is `mss` bytes.
    pub fn new(cfg: &TrainConfig, mss: u64) -> TrainEstimator {
        TrainEstimator {
            cfg: cfg.clone(),
            mss,
            reference: None,
            peak: None,
            pause_until: None,
            burst_left: None,
            initial_window_done: !cfg.long_rtt_initial_window,
        }
    }

    /// The peak sample rate so far in bytes/s.
    pub fn estimate(&self) -> Option<f64> {
        self.peak
    }

    /// Until this clock reading the sender should not send (after a failed estimate).
    pub fn pause_until(&self) -> Option<Time> {
        self.pause_until
    }

    /// Bytes the pacer should release back-to-back once the pause ends.
    pub fn burst_allowance(&self) -> Option<u64> {
        self.burst_left
    }

    /// A packet of `bytes` left at `now`; the post-pause train is done once all of it has left.
    pub fn on_packet_sent(&mut self, now: Time, bytes: u64) {
        let (Some(left), Some(until)) = (self.burst_left, self.pause_until) else {
            return;
        };
        if now >= until {
            let left = left.saturating_sub(bytes);
            self.burst_left = (left > 0).then_some(left);
            if left == 0 {
                self.pause_until = None;
            }
        }
    }

    /// One ACK event in slow start, after the window grew by the acked bytes: updates the peak
    /// rate, raises `cwnd` toward `bdp_gain · peak · min_rtt` (never above `ssthresh`), and arms
    /// a pause if that left cwnd unraised.
    pub fn on_ack(&mut self, ev: &CongestionEvent<'_>, cwnd: &mut u64, ssthresh: u64) {
        if !self.initial_window_done && ev.rtt.has_sample() {
            self.initial_window_done = true;
            let rtt = ev.rtt.min().min(SATELLITE_RTT);
            if rtt > self.cfg.long_rtt_threshold {
                let window = INITIAL_WINDOW_PACKETS * self.mss;
                *cwnd = (*cwnd).max(window * rtt.as_nanos() / RENO_RTT.as_nanos());
            }
        }
        if let Some(newest) = ev.acked.iter().map(|p| p.time_sent).max() {
            self.sample(ev.now, newest, ev.delivered);
        }
        let target = self.peak.map_or(0.0, |rate| {
            let cap = self.cfg.max_jump_factor.map_or(f64::INFINITY, |f| *cwnd as f64 * f);
            (rate * ev.rtt.min().as_secs_f64() * self.cfg.bdp_gain)
                .min(cap)
                .min(ssthresh as f64)
        }) as u64;
        let train = self.cfg.min_train_packets * self.mss;
        if target > *cwnd {
            *cwnd = target;
            // The estimate succeeded: a pause armed for an earlier failure (at the old, lower
            // pacing rate) is dropped.
            self.pause_until = None;
            self.burst_left = None;
        } else if self.cfg.pacing_pause_on_failed_estimate
            && self.burst_left.is_none()
            && ev.rtt.smoothed() > self.cfg.long_rtt_threshold
            && *cwnd >= train
        {
            // The sender paces at N·cwnd/smoothed_rtt (RFC 9002 §7.7, N of the default
            // PacingConfig); a train's worth of credit takes train / rate from an empty bucket.
            let rate = PacingConfig::default().gain * *cwnd as f64 / ev.rtt.smoothed().as_secs_f64();
            self.pause_until = Some(ev.now + Dur::from_secs_f64(train as f64 / rate));
            self.burst_left = Some(train);
        }
    }

    /// picoquic `picoquic_estimate_max_path_bandwidth` for an ACK arriving at `now` whose newest
    /// packet was sent at `sent`, with `delivered` bytes acknowledged in total.
    fn sample(&mut self, now: Time, sent: Time, delivered: u64) {
        let here = Reference {
            ack_time: now,
            sent_time: sent,
            delivered,
        };
        let Some(r) = self.reference else {
            self.reference = Some(here);
            return;
        };
        // An ACK whose newest packet predates the reference's (a late or reordered one) neither
        // closes nor opens a sample.
        if sent < r.sent_time {
            return;
        }
        let ack_interval = now.saturating_since(r.ack_time);
        if ack_interval <= self.cfg.min_interval {
            return;
        }
        let interval = ack_interval.max(sent.saturating_since(r.sent_time));
        let rate = delivered.saturating_sub(r.delivered) as f64 / interval.as_secs_f64();
        self.peak = Some(self.peak.map_or(rate, |p| p.max(rate)));
        self.reference = Some(here);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{event, rtt_of};
    use crate::cc::AckedPacket;

    const MSS: u64 = 1500;
    const RTT: Dur = Dur::from_millis(100);
    /// One 1500-byte packet at 100 Mbit/s.
    const SER: Dur = Dur::from_micros(120);

    /// Drives `t` with ACKs of packets `pns` (one ACK per `per_ack` packets, acknowledging the
    /// newest), packet `i` sent at `sent(i)` and acknowledged at `RTT + ack(i)`. `delivered`
    /// counts every acknowledged byte; `cwnd` is only changed by `t`.
    struct Drive {
        t: TrainEstimator,
        cwnd: u64,
        delivered: u64,
        rtt: crate::recovery::rtt::RttEstimator,
    }

    impl Drive {
        fn new(cfg: TrainConfig, cwnd: u64) -> Drive {
            Drive {
                t: TrainEstimator::new(&cfg, MSS),
                cwnd,
                delivered: 0,
                rtt: rtt_of(RTT),
            }
        }

        fn acks(
            &mut self,
            pns: core::ops::Range<u64>,
            per_ack: u64,
            sent: impl Fn(u64) -> Time,
            ack: impl Fn(u64) -> Dur,
        ) {
            for pn in (per_ack - 1..pns.end)
                .step_by(per_ack as usize)
                .filter(|pn| *pn >= pns.start)
            {
                let p = [AckedPacket {
                    pn,
                    bytes: MSS,
                    time_sent: sent(pn),
                }];
                self.delivered += per_ack * MSS;
                let ev = CongestionEvent {
                    delivered: self.delivered,
                    ..event(Time::ZERO + RTT + ack(pn), &p, &[], &self.rtt)
                };
                self.t.on_ack(&ev, &mut self.cwnd, u64::MAX);
            }
        }
    }

    fn pause_cfg() -> TrainConfig {
        TrainConfig {
            pacing_pause_on_failed_estimate: true,
            ..Default::default()
        }
    }

    #[test]
    fn train_back_to_back_train_measures_the_bottleneck_and_jumps() {
        let mut d = Drive::new(TrainConfig::default(), 10 * MSS);
        // Ten packets sent together cross 100 Mbit/s: ACKs 120 µs apart. The first ACK is the
        // reference; the tenth, 1.08 ms later, closes: 9 · 1500 B / 1.08 ms = 12.5 MB/s.
        d.acks(0..10, 1, |_| Time::ZERO, |i| SER * i);
        let est = d.t.estimate().expect("a sample closed");
        assert!((est - 12.5e6).abs() < 1e-6, "{est}");
        // cwnd = 0.5 · 12.5 MB/s · 100 ms.
        assert_eq!(d.cwnd, 625_000);
    }

    #[test]
    fn train_sample_needs_more_than_min_interval() {
        let mut d = Drive::new(TrainConfig::default(), 10 * MSS);
        // At 10 Gbit/s ten ACKs span 9 · 1.2 µs; exactly 1 ms is not more than 1 ms either.
        d.acks(0..10, 1, |_| Time::ZERO, |i| Dur::from_nanos(1200) * i);
        d.acks(10..11, 1, |_| Time::ZERO, |_| Dur::from_millis(1));
        assert_eq!((d.t.estimate(), d.cwnd), (None, 10 * MSS));
    }

    #[test]
    fn train_thinned_acks_count_bytes_delivered_between_acks() {
        let mut d = Drive::new(TrainConfig::default(), 10 * MSS);
        // A 40-packet back-to-back train, one ACK per 8 packets (at packets 8, 16, 24, ...):
        // the ACK at 16 is 0.96 ms after the reference, the one at 24 closes with 16 packets
        // over 1.92 ms = 12.5 MB/s, the bottleneck rate.
        d.acks(0..40, 8, |_| Time::ZERO, |i| SER * (i + 1));
        let est = d.t.estimate().expect("a sample closed");
        assert!((est - 12.5e6).abs() < 1e-6, "{est}");
    }

    #[test]
    fn train_paced_sender_measures_its_pacing_rate_and_never_jumps() {
        let cwnd = 100 * MSS;
        let mut d = Drive::new(TrainConfig::default(), cwnd);
        // Paced at 1.25 · cwnd / srtt = 1.875 MB/s (one packet per 800 µs), under the 12.5 MB/s
        // bottleneck: ACKs keep the spacing, one per 2 packets.
        let gap = Dur::from_micros(800);
        d.acks(0..100, 2, |i| Time::ZERO + gap * i, |i| gap * i);
        let est = d.t.estimate().expect("samples closed");
        assert!((est - 1.875e6).abs() < 1e-3, "{est}");
        // 0.5 · 1.875 MB/s · 100 ms = 93.75 kB < cwnd = 150 kB: no jump.
        assert_eq!(d.cwnd, cwnd);
    }

    #[test]
    fn train_ack_of_older_packet_neither_closes_nor_opens() {
        let mut d = Drive::new(TrainConfig::default(), 10 * MSS);
        d.acks(5..6, 1, |_| Time::ZERO + Dur::from_millis(5), |_| Dur::ZERO);
        // 2 ms later an ACK of a packet sent before the reference's newest one: ignored.
        d.acks(6..7, 1, |_| Time::ZERO, |_| Dur::from_millis(2));
        assert_eq!(d.t.estimate(), None);
    }

    /// A pause-enabled estimator on a 200 ms path (longer than the 100 ms threshold).
    fn long_path(cwnd: u64) -> Drive {
        let mut d = Drive::new(pause_cfg(), cwnd);
        d.rtt = rtt_of(Dur::from_millis(200));
        d
    }

    #[test]
    fn train_failed_estimate_pauses_for_a_train_of_credit() {
        let mut d = long_path(20 * MSS);
        d.acks(0..1, 1, |_| Time::ZERO, |_| Dur::ZERO);
        // No estimate yet, so cwnd is not raised: pause until 10 · 1500 B of credit at
        // 1.25 · 30 kB / 200 ms = 187.5 kB/s, 80 ms after the ACK at 100 ms.
        let until = Time::ZERO + RTT + Dur::from_millis(80);
        assert_eq!(d.t.pause_until(), Some(until));
        assert_eq!(d.t.burst_allowance(), Some(10 * MSS));
        // Packets sent before the pause ends do not count; the train does, then the pause clears.
        d.t.on_packet_sent(until.saturating_sub(Dur(1)), MSS);
        for i in 0..10 {
            assert_eq!(d.t.burst_allowance(), Some((10 - i) * MSS));
            d.t.on_packet_sent(until, MSS);
        }
        assert_eq!((d.t.pause_until(), d.t.burst_allowance()), (None, None));
    }

    #[test]
    fn train_pause_is_not_rearmed_before_the_train_left() {
        let mut d = long_path(20 * MSS);
        d.acks(0..1, 1, |_| Time::ZERO, |_| Dur::ZERO);
        let first = d.t.pause_until();
        assert!(first.is_some());
        // 10 ms later a sample of 1500 B / 10 ms gives 0.5 · 150 kB/s · 200 ms = 15 kB < cwnd:
        // a failed estimate, but the train is still pending.
        d.acks(1..2, 1, |_| Time::ZERO, |_| Dur::from_millis(10));
        assert_eq!(d.t.pause_until(), first);
    }

    #[test]
    fn train_jump_cancels_a_pending_pause() {
        let mut d = long_path(20 * MSS);
        d.acks(0..1, 1, |_| Time::ZERO, |_| Dur::ZERO);
        assert!(d.t.pause_until().is_some());
        // A train sent at 1 ms, its ACKs 120 µs apart after the reference: the one 1.08 ms after it
        // closes 9 · 1500 B / 1.08 ms = 12.5 MB/s, cwnd jumps to 0.5 · 12.5 MB/s · 200 ms, and the
        // pause armed at 30 kB is dropped.
        d.acks(1..10, 1, |_| Time::ZERO + Dur::from_millis(1), |i| SER * i);
        assert_eq!(d.cwnd, 1_250_000);
        assert_eq!((d.t.pause_until(), d.t.burst_allowance()), (None, None));
    }

    #[test]
    fn train_pause_only_on_long_paths_with_room_for_the_train() {
        // Smoothed RTT 100 ms is not above the 100 ms threshold.
        let mut d = Drive::new(pause_cfg(), 20 * MSS);
        d.acks(0..1, 1, |_| Time::ZERO, |_| Dur::ZERO);
        assert_eq!(d.t.pause_until(), None);
        // A window smaller than the train cannot release it whole.
        let mut d = long_path(9 * MSS);
        d.acks(0..1, 1, |_| Time::ZERO, |_| Dur::ZERO);
        assert_eq!(d.t.pause_until(), None);
    }

    #[test]
    fn train_long_rtt_initial_window_scales_once_with_min_rtt() {
        let cfg = TrainConfig {
            long_rtt_initial_window: true,
            ..Default::default()
        };
        for (rtt_ms, expect) in [(600, 60 * MSS), (800, 61 * MSS), (80, 10 * MSS)] {
            let mut d = Drive::new(cfg.clone(), 10 * MSS);
            d.rtt = rtt_of(Dur::from_millis(rtt_ms));
            d.acks(0..1, 1, |_| Time::ZERO, |_| Dur::ZERO);
            // 10 packets · min(RTT, 610 ms) / 100 ms above the 100 ms threshold.
            assert_eq!(d.cwnd, expect, "rtt {rtt_ms} ms");
        }
        // Only at the first ACK: a window reduced later is not raised again.
        let mut d = Drive::new(cfg, 10 * MSS);
        d.rtt = rtt_of(Dur::from_millis(600));
        d.acks(0..1, 1, |_| Time::ZERO, |_| Dur::ZERO);
        d.cwnd = 10 * MSS;
        d.acks(1..2, 1, |_| Time::ZERO, |_| Dur::ZERO);
        assert_eq!(d.cwnd, 10 * MSS);
    }

    #[test]
    fn train_jump_respects_max_jump_factor_and_ssthresh() {
        let cfg = TrainConfig {
            max_jump_factor: Some(4.0),
            ..Default::default()
        };
        let mut d = Drive::new(cfg, 10 * MSS);
        d.acks(0..10, 1, |_| Time::ZERO, |i| SER * i);
        assert_eq!(d.cwnd, 4 * 10 * MSS);
        let mut t = TrainEstimator::new(&TrainConfig::default(), MSS);
        t.peak = Some(12.5e6);
        let rtt = rtt_of(RTT);
        let p = [AckedPacket {
            pn: 0,
            bytes: MSS,
            time_sent: Time::ZERO,
        }];
        let mut cwnd = 10 * MSS;
        t.on_ack(&event(Time::ZERO + RTT, &p, &[], &rtt), &mut cwnd, 50_000);
        assert_eq!(cwnd, 50_000);
    }
}
