//! Packet-train bandwidth estimation during slow start, as picoquic does it (seed 002).
//!
//! When a train of packets leaves faster than the bottleneck can carry it, its ACKs come back at
//! the bottleneck rate: bytes acknowledged over the ACK-arrival interval estimate the path
//! capacity, and cwnd jumps toward that rate × min_rtt instead of doubling per round. The
//! estimate reflects the path only if the train left faster than its ACKs returned; a train paced
//! at or below the path rate measures the pacer ("the estimate fails"), and a paced sender can
//! stay in that ACK-clocked pattern for the whole slow start. picoquic's fix, optional here:
//! after a failed estimate, pause until the pacer holds credit for a whole train, so the next
//! train leaves back-to-back (`bandwidth_pause` in picoquic's pacer).
//!
//! Samples follow picoquic's `picoquic_estimate_max_path_bandwidth`: a reference ACK records its
//! arrival time, the send time of its newest packet and the delivered count; a later ACK closes
//! the sample once enough packets and time have passed, and opens the next one.

use super::CongestionEvent;
use crate::recovery::pacer::PacingConfig;
use crate::time::{Dur, Time};
use serde::Deserialize;

/// Train-estimation parameters.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Packets a sample spans, counting the one whose ACK opens it; also the train released
    /// after a pause. Default 10 (picoquic waits for at most 10 packets of pacing credit).
    pub min_train_packets: u64,
    /// Shortest ACK-arrival interval a sample may span, so ACK compression cannot inflate it.
    /// Default 1 ms (picoquic `PICOQUIC_MAX_BANDWIDTH_TIME_INTERVAL_MIN` = 1000 µs).
    pub min_interval: Dur,
    /// A sample is valid (path-limited) when the train's send rate is at least this multiple of
    /// its ACK rate. Default 1.25, a margin over ACK-timing noise (delayed-ACK timers).
    pub min_send_ack_ratio: f64,
    /// cwnd jumps to this fraction of `estimate × min_rtt`. Default 0.5: picoquic jumps to half
    /// the peak-rate BDP (`picoquic_cc_update_target_cwin_estimation`) and slow start doubles on.
    pub bdp_gain: f64,
    /// A jump never takes cwnd above this multiple of its current value; unset: no cap (picoquic).
    pub max_jump_factor: Option<f64>,
    /// After a failed estimate, pause sending until the pacer can release a `min_train_packets`
    /// train back-to-back (picoquic's fix, seed 002). Default false.
    pub pacing_pause_on_failed_estimate: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            min_train_packets: 10,
            min_interval: Dur::from_millis(1),
            min_send_ack_ratio: 1.25,
            bdp_gain: 0.5,
            max_jump_factor: None,
            pacing_pause_on_failed_estimate: false,
        }
    }
}

/// An open sample: the reference ACK and how many packets were acknowledged after it.
#[derive(Clone, Copy, Debug)]
struct Sample {
    ack_time: Time,
    sent_time: Time,
    delivered: u64,
    packets: u64,
}

/// Train-estimation state of one connection.
#[derive(Clone, Debug)]
pub struct TrainEstimator {
    cfg: TrainConfig,
    mss: u64,
    sample: Option<Sample>,
    /// ACKs of packets sent before this instant open no sample (they precede the train).
    not_before: Time,
    pause_until: Option<Time>,
    /// Bytes of the post-pause train not yet sent.
    burst_left: Option<u64>,
    estimate: Option<f64>,
}

impl TrainEstimator {
    /// An estimator for a sender whose full-sized packet is `mss` bytes.
    pub fn new(cfg: &TrainConfig, mss: u64) -> TrainEstimator {
        TrainEstimator {
            cfg: cfg.clone(),
            mss,
            sample: None,
            not_before: Time::ZERO,
            pause_until: None,
            burst_left: None,
            estimate: None,
        }
    }

    /// The last valid path-rate estimate in bytes/s.
    pub fn estimate(&self) -> Option<f64> {
        self.estimate
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
        }
    }

    /// One ACK event in slow start (after the window grew by the acked bytes): closes a sample
    /// when it spans `min_train_packets` and `min_interval`; a valid one raises `cwnd` toward
    /// the BDP (never above `ssthresh`), a failed one may start a pause.
    pub fn on_ack(&mut self, ev: &CongestionEvent<'_>, cwnd: &mut u64, ssthresh: u64) {
        if ev.app_limited || !ev.lost.is_empty() {
            // An app-limited or lossy stretch measures neither the sender's train nor the path.
            self.sample = None;
            return;
        }
        let Some(newest) = ev.acked.last() else { return };
        if newest.time_sent < self.not_before {
            return;
        }
        let reference = Sample {
            ack_time: ev.now,
            sent_time: newest.time_sent,
            delivered: ev.delivered,
            packets: 0,
        };
        let Some(s) = self.sample.as_mut() else {
            self.sample = Some(reference);
            return;
        };
        s.packets += ev.acked.len() as u64;
        let ack_interval = ev.now.saturating_since(s.ack_time);
        if s.packets + 1 < self.cfg.min_train_packets || ack_interval < self.cfg.min_interval {
            return;
        }
        let bytes = ev.delivered.saturating_sub(s.delivered) as f64;
        let send_interval = newest.time_sent.saturating_since(s.sent_time);
        self.sample = Some(reference);
        let rate = bytes / ack_interval.as_secs_f64();
        // Send rate ≥ ratio · ACK rate ⇔ ratio · send interval ≤ ACK interval (same bytes).
        if send_interval.as_secs_f64() * self.cfg.min_send_ack_ratio <= ack_interval.as_secs_f64() {
            self.estimate = Some(rate);
            let cap = self.cfg.max_jump_factor.map_or(f64::INFINITY, |f| *cwnd as f64 * f);
            let target = (rate * ev.rtt.min().as_secs_f64() * self.cfg.bdp_gain)
                .min(cap)
                .min(ssthresh as f64);
            *cwnd = (*cwnd).max(target as u64);
        } else if self.cfg.pacing_pause_on_failed_estimate {
            // The pacer refills at N·cwnd/smoothed_rtt (RFC 9002 §7.7, N as the sender's default
            // PacingConfig); a whole train's worth of credit takes train / rate.
            let pacing_rate = PacingConfig::default().gain * *cwnd as f64 / ev.rtt.smoothed().as_secs_f64();
            let train = self.cfg.min_train_packets * self.mss;
            let until = ev.now + Dur::from_secs_f64(train as f64 / pacing_rate);
            self.pause_until = Some(until);
            self.not_before = until;
            self.burst_left = Some(train);
            self.sample = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{event, rtt_of};
    use crate::cc::AckedPacket;

    const MSS: u64 = 1500;
    const RTT: Dur = Dur::from_millis(100);

    /// Acknowledges packets `pns`, sent at `sent(i)`, one ACK each at `RTT + sent(0) + ack(i)`.
    /// Returns the cwnd after each ACK; `delivered` carries the running delivered count.
    fn acks(
        t: &mut TrainEstimator,
        pns: core::ops::Range<u64>,
        sent: impl Fn(u64) -> Time,
        ack: impl Fn(u64) -> Dur,
        cwnd: &mut u64,
        delivered: &mut u64,
    ) {
        let rtt = rtt_of(RTT);
        let first = pns.start;
        for pn in pns {
            let p = [AckedPacket {
                pn,
                bytes: MSS,
                time_sent: sent(pn),
            }];
            *delivered += MSS;
            let now = sent(first) + RTT + ack(pn - first);
            t.on_ack(
                &CongestionEvent {
                    delivered: *delivered,
                    ..event(now, &p, &[], &rtt)
                },
                cwnd,
                u64::MAX,
            );
        }
    }

    #[test]
    fn train_bursty_train_gives_valid_estimate_and_jump() {
        let mut t = TrainEstimator::new(&TrainConfig::default(), MSS);
        let (mut cwnd, mut delivered) = (10 * MSS, 0);
        // Ten packets sent back-to-back at t = 0 cross a 100 Mbit/s bottleneck: ACKs 120 µs apart.
        acks(
            &mut t,
            0..10,
            |_| Time::ZERO,
            |i| Dur::from_micros(120) * i,
            &mut cwnd,
            &mut delivered,
        );
        // 9 packets after the reference over 9 · 120 µs = 1.08 ms: 12.5 MB/s.
        let est = t.estimate().expect("valid estimate");
        assert!((est - 12.5e6).abs() < 1.0, "{est}");
        // cwnd = 0.5 · 12.5 MB/s · 100 ms = 625 kB.
        assert_eq!(cwnd, 625_000);
        assert_eq!(t.pause_until(), None);
    }

    #[test]
    fn train_needs_min_packets_and_interval() {
        let mut t = TrainEstimator::new(&TrainConfig::default(), MSS);
        let (mut cwnd, mut delivered) = (10 * MSS, 0);
        // 10 Gbit/s bottleneck: ten ACKs span 9 · 1.2 µs, far below 1 ms.
        acks(
            &mut t,
            0..10,
            |_| Time::ZERO,
            |i| Dur::from_nanos(1200) * i,
            &mut cwnd,
            &mut delivered,
        );
        assert_eq!((t.estimate(), cwnd), (None, 10 * MSS));
    }

    fn paced(cfg: TrainConfig) -> (TrainEstimator, u64, u64) {
        let mut t = TrainEstimator::new(&cfg, MSS);
        let (mut cwnd, mut delivered) = (10 * MSS, 0);
        // Paced at one packet per 240 µs (half the bottleneck rate): ACKs keep that spacing.
        let gap = Dur::from_micros(240);
        acks(
            &mut t,
            0..10,
            |i| Time::ZERO + gap * i,
            |i| gap * i,
            &mut cwnd,
            &mut delivered,
        );
        (t, cwnd, delivered)
    }

    #[test]
    fn train_paced_train_fails_without_pause_by_default() {
        let (t, cwnd, _) = paced(TrainConfig::default());
        assert_eq!((t.estimate(), cwnd), (None, 10 * MSS));
        assert_eq!((t.pause_until(), t.burst_allowance()), (None, None));
    }

    #[test]
    fn train_failed_estimate_pauses_then_measures_next_train() {
        let cfg = TrainConfig {
            pacing_pause_on_failed_estimate: true,
            ..Default::default()
        };
        let (mut t, mut cwnd, mut delivered) = paced(cfg);
        assert_eq!(t.estimate(), None);
        // Credit for 10 · 1500 B at 1.25 · 15 kB / 100 ms = 187.5 kB/s takes 80 ms, counted from
        // the failing ACK at 100 ms + 9 · 240 µs.
        let until = Time::ZERO + RTT + Dur::from_micros(2160) + Dur::from_millis(80);
        assert_eq!(t.pause_until(), Some(until));
        assert_eq!(t.burst_allowance(), Some(10 * MSS));
        // ACKs of packets sent before the pause open no sample.
        acks(
            &mut t,
            10..12,
            |i| Time::ZERO + Dur::from_micros(2400 + i),
            |_| Dur::ZERO,
            &mut cwnd,
            &mut delivered,
        );
        // The train leaves back-to-back at the end of the pause and is measured.
        for i in 0..10 {
            assert_eq!(t.burst_allowance(), Some((10 - i) * MSS));
            t.on_packet_sent(until, MSS);
        }
        assert_eq!(t.burst_allowance(), None);
        acks(
            &mut t,
            12..22,
            |_| until,
            |i| Dur::from_micros(120) * i,
            &mut cwnd,
            &mut delivered,
        );
        assert!((t.estimate().expect("valid after the pause") - 12.5e6).abs() < 1.0);
        assert_eq!(cwnd, 625_000);
    }

    #[test]
    fn train_jump_respects_max_jump_factor() {
        let cfg = TrainConfig {
            max_jump_factor: Some(4.0),
            ..Default::default()
        };
        let mut t = TrainEstimator::new(&cfg, MSS);
        let (mut cwnd, mut delivered) = (10 * MSS, 0);
        acks(
            &mut t,
            0..10,
            |_| Time::ZERO,
            |i| Dur::from_micros(120) * i,
            &mut cwnd,
            &mut delivered,
        );
        assert_eq!(cwnd, 4 * 10 * MSS);
    }
}
