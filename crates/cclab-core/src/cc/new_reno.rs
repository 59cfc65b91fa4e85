//! NewReno as specified for QUIC, RFC 9002 §7 and Appendix B
//! (<https://www.rfc-editor.org/rfc/rfc9002#section-7>): byte-counting slow start, one MSS per
//! window of acknowledged bytes in congestion avoidance, one reduction per recovery period.

use super::slow_start::{SlowStart, SlowStartConfig};
use super::{CcState, CongestionController, CongestionEvent};
use crate::time::Time;
use crate::units::Bytes;
use serde::Deserialize;

/// NewReno parameters.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NewRenoConfig {
    /// Initial window, bytes. `None` = RFC 9002 §7.2: `min(10·mss, max(14720, 2·mss))`.
    pub initial_window: Option<Bytes>,
    /// Minimum window, bytes. `None` = RFC 9002 §7.2 kMinimumWindow: `2·mss`.
    pub minimum_window: Option<Bytes>,
    /// Window multiplier on a congestion event (RFC 9002 §7.3.2 kLossReductionFactor: 0.5).
    pub loss_reduction_factor: f64,
    /// Slow start: "classic" (default, RFC 9002 §7.3.1), "hystart++" or "train" (`cc::slow_start`).
    pub slow_start: SlowStartConfig,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig {
            initial_window: None,
            minimum_window: None,
            loss_reduction_factor: 0.5,
            slow_start: SlowStartConfig::Classic,
        }
    }
}

impl NewRenoConfig {
    /// RFC 9002 §7.2 initial window for packets of `mss` bytes, unless overridden.
    pub fn initial_window_bytes(&self, mss: u64) -> u64 {
        self.initial_window
            .map_or_else(|| (10 * mss).min(14720.max(2 * mss)), |b| b.0)
    }
    /// RFC 9002 §7.2 minimum window (2·mss), unless overridden.
    pub fn minimum_window_bytes(&self, mss: u64) -> u64 {
        self.minimum_window.map_or(2 * mss, |b| b.0)
    }
}

/// The NewReno controller.
#[derive(Clone, Debug)]
pub struct NewReno {
    mss: u64,
    min_window: u64,
    reduction: f64,
    cwnd: u64,
    ssthresh: u64,
    /// congestion_recovery_start_time (RFC 9002 §B.2); `None` = 0.
    recovery_start: Option<Time>,
    /// No packet sent after `recovery_start` has been acknowledged yet (§7.3.2).
    in_recovery: bool,
    /// Bytes acknowledged in congestion avoidance not yet turned into window growth.
    ca_acked: u64,
    app_limited: bool,
    slow_start: SlowStart,
}

impl NewReno {
    /// A controller for full-sized packets of `mss` bytes (counted in flight).
    pub fn new(cfg: &NewRenoConfig, mss: u64) -> NewReno {
        NewReno {
            mss,
            min_window: cfg.minimum_window_bytes(mss),
            reduction: cfg.loss_reduction_factor,
            cwnd: cfg.initial_window_bytes(mss),
            ssthresh: u64::MAX,
            recovery_start: None,
            in_recovery: false,
            ca_acked: 0,
            app_limited: false,
            slow_start: SlowStart::new(&cfg.slow_start, mss),
        }
    }

    /// A packet sent at `sent` belongs to the current recovery period (§B.5 `InCongestionRecovery`).
    fn sent_in_recovery(&self, sent: Time) -> bool {
        self.recovery_start.is_some_and(|s| sent <= s)
    }

    /// Slow-start growth for `acked` newly acknowledged bytes of one ACK event, by the configured
    /// variant (classic is §7.3.1 byte counting).
    fn slow_start(&mut self, ev: &CongestionEvent<'_>, acked: u64) {
        self.slow_start.on_ack(ev, acked, &mut self.cwnd, &mut self.ssthresh);
    }

    /// Congestion avoidance (§7.3.3): `cwnd += mss · acked / cwnd`, accumulated so that exactly
    /// one mss is added per cwnd of acknowledged bytes.
    fn congestion_avoidance(&mut self, acked: u64) {
        self.ca_acked += acked;
        if self.ca_acked >= self.cwnd {
            self.ca_acked -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    /// §7.3.2, §B.6 `OnCongestionEvent`: one reduction per recovery period.
    fn congestion_event(&mut self, now: Time, sent: Time) {
        if self.sent_in_recovery(sent) {
            return;
        }
        self.recovery_start = Some(now);
        self.in_recovery = true;
        self.ssthresh = (self.cwnd as f64 * self.reduction) as u64;
        self.cwnd = self.ssthresh.max(self.min_window);
        self.ca_acked = 0;
    }
}

impl CongestionController for NewReno {
    fn on_packet_sent(&mut self, now: Time, _pn: u64, bytes: u64, _bytes_in_flight: u64) {
        self.slow_start.on_packet_sent(now, bytes);
    }

    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        self.app_limited = ev.app_limited;
        // §7.3.2: no increase for packets sent during recovery. Send times rise with packet numbers, so
        // they are the first of the ACK's packets.
        // After a recovery's first ACKs every packet was sent after its start: the first one says so
        // without the search.
        let after_recovery = match self.recovery_start {
            Some(start) if ev.acked.first().is_some_and(|p| p.time_sent <= start) => {
                ev.acked.partition_point(|p| p.time_sent <= start)
            }
            _ => 0,
        };
        let growing = &ev.acked[after_recovery..];
        if !growing.is_empty() {
            // §7.3.2: recovery ends when a packet sent after its start is acknowledged.
            self.in_recovery = false;
        }
        // §7.8: do not grow an underutilized window; nor on an ACK the sender does not grow on (a TCP
        // duplicate ACK, RFC 5681 §3.2).
        if !ev.app_limited && ev.may_raise_window {
            if self.cwnd < self.ssthresh {
                // Only congestion avoidance moves the window within the loop, so the branch holds for all.
                let acked = growing.iter().map(|p| p.bytes).sum();
                if acked > 0 {
                    // One call per ACK event: HyStart++ counts RTT samples and trains count ACKs.
                    self.slow_start(ev, acked);
                }
            } else {
                for p in growing {
                    self.congestion_avoidance(p.bytes);
                }
            }
        }
        if let Some(sent) = ev.largest_lost_sent() {
            self.congestion_event(ev.now, sent);
        }
        // §B.7 ProcessECN: a CE increase is a congestion event for the largest acked packet.
        if ev.ecn_ce > 0 {
            if let Some(p) = ev.acked.last() {
                self.congestion_event(ev.now, p.time_sent);
            }
        }
    }

    fn on_persistent_congestion(&mut self, _now: Time) {
        // §7.6.2, §B.8: collapse to the minimum window and forget the recovery period.
        self.cwnd = self.min_window;
        self.recovery_start = None;
        self.in_recovery = false;
        self.ca_acked = 0;
    }

    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn pause_until(&self) -> Option<Time> {
        self.slow_start.pause_until().filter(|_| self.cwnd < self.ssthresh)
    }

    fn burst_allowance(&self) -> Option<u64> {
        self.slow_start.burst_allowance().filter(|_| self.cwnd < self.ssthresh)
    }

    fn gate_is_window(&self) -> bool {
        // Only the train estimator's pause and train join the window.
        !self.slow_start.trains()
    }

    fn reads_rate_samples(&self) -> bool {
        false
    }

    fn reads_sends(&self) -> bool {
        // Only the train estimator reads sends; HyStart's rounds take SND.NXT from the ACK.
        self.slow_start.reads_sends()
    }

    fn state(&self) -> CcState {
        CcState::of_window(self.in_recovery, self.app_limited, self.cwnd < self.ssthresh)
    }

    fn name(&self) -> &'static str {
        "newreno"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::event;
    use crate::cc::{AckedPacket, LostPacket};
    use crate::recovery::rtt::RttEstimator;
    use crate::time::Dur;

    const MSS: u64 = 1200;

    fn acked(pn: u64, t: u64) -> AckedPacket {
        AckedPacket {
            pn,
            bytes: MSS,
            time_sent: Time(t),
        }
    }

    #[test]
    fn new_reno_initial_window_follows_rfc9002() {
        // min(10·1200, max(14720, 2400)) = 12000; min(10·1472, max(14720, 2944)) = 14720.
        assert_eq!(NewReno::new(&NewRenoConfig::default(), 1200).window(), 12_000);
        assert_eq!(NewReno::new(&NewRenoConfig::default(), 1472).window(), 14_720);
        assert_eq!(NewReno::new(&NewRenoConfig::default(), 9000).window(), 18_000);
    }

    #[test]
    fn new_reno_reduces_once_per_recovery_period() {
        let rtt = RttEstimator::new(Dur::from_millis(100));
        let mut c = NewReno::new(&NewRenoConfig::default(), MSS);
        let lost = [LostPacket {
            pn: 1,
            bytes: MSS,
            time_sent: Time(10),
            ..Default::default()
        }];
        c.on_congestion_event(&event(Time(100), &[], &lost, &rtt));
        assert_eq!((c.window(), c.ssthresh()), (6000, 6000));
        assert_eq!(c.state(), CcState::Recovery);
        // A second loss of a packet sent before recovery started: no second reduction, and an
        // ACK of a packet sent before it does not grow the window.
        let lost2 = [LostPacket {
            pn: 2,
            bytes: MSS,
            time_sent: Time(20),
            ..Default::default()
        }];
        c.on_congestion_event(&event(Time(110), &[acked(3, 30)], &lost2, &rtt));
        assert_eq!(c.window(), 6000);
        // A packet sent after recovery started is acked: recovery ends, CA growth accumulates.
        c.on_congestion_event(&event(Time(200), &[acked(9, 150)], &[], &rtt));
        assert_eq!(c.state(), CcState::CongestionAvoidance);
        // A loss of a packet sent after the recovery start reduces again.
        let lost3 = [LostPacket {
            pn: 10,
            bytes: MSS,
            time_sent: Time(160),
            ..Default::default()
        }];
        c.on_congestion_event(&event(Time(300), &[], &lost3, &rtt));
        assert_eq!(c.window(), 3000);
        c.on_persistent_congestion(Time(400));
        assert_eq!(c.window(), 2 * MSS);
    }

    #[test]
    fn new_reno_grows_only_on_the_packets_of_an_ack_sent_after_recovery_began() {
        let rtt = RttEstimator::new(Dur::from_millis(100));
        let lost = [LostPacket {
            pn: 1,
            bytes: MSS,
            time_sent: Time(10),
            ..Default::default()
        }];
        // Recovery from 100 at a window of 6000: two packets sent before it and four after, in one
        // ACK, grow congestion avoidance by the four (4,800 bytes, less than a window); all six would
        // have added a segment.
        let mixed: Vec<_> = [30, 40, 150, 150, 150, 150]
            .iter()
            .zip(2..)
            .map(|(&t, pn)| acked(pn, t))
            .collect();
        let mut c = NewReno::new(&NewRenoConfig::default(), MSS);
        c.on_congestion_event(&event(Time(100), &[], &lost, &rtt));
        c.on_congestion_event(&event(Time(200), &mixed, &[], &rtt));
        assert_eq!((c.window(), c.state()), (6000, CcState::CongestionAvoidance));
        // The next packet's 1,200 bytes complete the window.
        c.on_congestion_event(&event(Time(210), &[acked(8, 160)], &[], &rtt));
        assert_eq!(c.window(), 6000 + MSS);
    }

    #[test]
    fn new_reno_grows_nothing_on_an_ack_that_may_not_raise_the_window() {
        // A TCP duplicate ACK (`may_raise_window` false) in slow start and in congestion avoidance.
        let rtt = RttEstimator::new(Dur::from_millis(100));
        let mut c = NewReno::new(&NewRenoConfig::default(), MSS);
        let a: Vec<_> = (0..10).map(|pn| acked(pn, 10)).collect();
        let dup = CongestionEvent {
            may_raise_window: false,
            ..event(Time(100), &a, &[], &rtt)
        };
        c.on_congestion_event(&dup);
        assert_eq!(c.window(), 10 * MSS);
        c.on_congestion_event(&event(Time(100), &a, &[], &rtt));
        assert_eq!(c.window(), 20 * MSS);
        let lost = [LostPacket {
            pn: 20,
            bytes: MSS,
            time_sent: Time(50),
            ..Default::default()
        }];
        c.on_congestion_event(&event(Time(200), &[], &lost, &rtt));
        // A window's worth of ACKs sent after recovery began: one MSS of growth, unless they may not raise it.
        let a: Vec<_> = (30..40).map(|pn| acked(pn, 300)).collect();
        c.on_congestion_event(&CongestionEvent {
            may_raise_window: false,
            ..event(Time(400), &a, &[], &rtt)
        });
        assert_eq!((c.window(), c.state()), (10 * MSS, CcState::CongestionAvoidance));
        c.on_congestion_event(&event(Time(400), &a, &[], &rtt));
        assert_eq!(c.window(), 11 * MSS);
    }

    #[test]
    fn new_reno_config_parses_from_registry() {
        let c: crate::cc::CcConfig = toml::from_str("algorithm = \"newreno\"\nloss_reduction_factor = 0.7").unwrap();
        let crate::cc::CcConfig::NewReno(c) = c else {
            panic!("{c:?}")
        };
        assert_eq!(
            c,
            NewRenoConfig {
                loss_reduction_factor: 0.7,
                ..Default::default()
            }
        );
        assert!(toml::from_str::<crate::cc::CcConfig>("algorithm = \"newreno\"\niw = 3").is_err());
    }

    #[test]
    fn new_reno_does_not_grow_when_app_limited() {
        let rtt = RttEstimator::new(Dur::from_millis(100));
        let mut c = NewReno::new(&NewRenoConfig::default(), MSS);
        let mut ev = event(Time(100), &[], &[], &rtt);
        let a = [acked(0, 0)];
        ev.acked = &a;
        ev.app_limited = true;
        c.on_congestion_event(&ev);
        assert_eq!(c.window(), 12_000);
        assert_eq!(c.state(), CcState::ApplicationLimited);
    }
}
