//! RTT estimation, RFC 9002 §5 (<https://www.rfc-editor.org/rfc/rfc9002#section-5>).

use crate::time::{Dur, Time};

/// kInitialRtt (RFC 9002 §6.2.2).
pub const INITIAL_RTT: Dur = Dur::from_millis(333);
/// kGranularity (RFC 9002 §6.1.2).
pub const GRANULARITY: Dur = Dur::from_millis(1);

/// Smoothed RTT, RTT variation, minimum and latest samples.
///
/// Fields in a fixed order (`repr(C)`): what a send reads for the probe timeout and the pacing rate
/// first (24 bytes), then what only an ACK's sample reads (`Sender` lines them up with other
/// ACK-only bytes into whole lines a send does not touch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct RttEstimator {
    smoothed: Dur,
    var: Dur,
    has_sample: bool,
    latest: Dur,
    adjusted: Dur,
    min: Dur,
    first_sample_time: Option<Time>,
}

/// The bytes of a `RttEstimator` that a send reads (`smoothed`, `var`, `has_sample`), for the sender's layout test.
#[cfg(test)]
pub(crate) const SEND_BYTES: core::ops::Range<usize> = 0..core::mem::offset_of!(RttEstimator, latest);

impl RttEstimator {
    /// Before any sample: `smoothed = initial`, `rttvar = initial / 2` (§5.3).
    pub fn new(initial: Dur) -> RttEstimator {
        RttEstimator {
            latest: initial,
            adjusted: initial,
            smoothed: initial,
            var: initial / 2,
            min: initial,
            has_sample: false,
            first_sample_time: None,
        }
    }
    /// Whether any sample was taken.
    pub fn has_sample(&self) -> bool {
        self.has_sample
    }
    /// Latest sample.
    pub fn latest(&self) -> Dur {
        self.latest
    }
    /// Latest sample less the peer's ACK delay where §5.3 allows it (`adjusted_rtt`).
    pub fn adjusted(&self) -> Dur {
        self.adjusted
    }
    /// smoothed_rtt.
    pub fn smoothed(&self) -> Dur {
        self.smoothed
    }
    /// rttvar.
    pub fn var(&self) -> Dur {
        self.var
    }
    /// min_rtt (the initial RTT before any sample).
    pub fn min(&self) -> Dur {
        self.min
    }
    /// When the first sample was taken.
    pub fn first_sample_time(&self) -> Option<Time> {
        self.first_sample_time
    }

    /// Adds a sample `latest_rtt` with the peer's reported `ack_delay`, already limited by the
    /// caller to max_ack_delay once the handshake is confirmed (§5.3).
    pub fn update(&mut self, now: Time, latest_rtt: Dur, ack_delay: Dur) {
        self.latest = latest_rtt;
        self.adjusted = latest_rtt;
        if !self.has_sample {
            // §5.3: first sample.
            self.has_sample = true;
            self.first_sample_time = Some(now);
            self.min = latest_rtt;
            self.smoothed = latest_rtt;
            self.var = latest_rtt / 2;
            return;
        }
        // §5.2: min_rtt ignores ack_delay.
        self.min = self.min.min(latest_rtt);
        // §5.3: subtract ack_delay only if the result stays at or above min_rtt.
        let adjusted = if latest_rtt >= self.min + ack_delay {
            latest_rtt - ack_delay
        } else {
            latest_rtt
        };
        self.adjusted = adjusted;
        // smoothed_rtt = 7/8 smoothed_rtt + 1/8 adjusted_rtt; rttvar then uses the updated
        // smoothed_rtt, in the order RFC 9002 §5.3 prints.
        self.smoothed = Dur((self.smoothed.0 * 7 + adjusted.0) / 8);
        let dev = self.smoothed.0.abs_diff(adjusted.0);
        self.var = Dur((self.var.0 * 3 + dev) / 4);
    }

    /// After persistent congestion, min_rtt restarts from the newest sample (§5.2).
    pub fn reset_min(&mut self) {
        self.min = self.latest;
    }

    /// PTO period without backoff: `smoothed + max(4·rttvar, kGranularity) + max_ack_delay`
    /// (§6.2.1).
    pub fn pto_base(&self, max_ack_delay: Dur, granularity: Dur) -> Dur {
        self.smoothed + (self.var * 4).max(granularity) + max_ack_delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Dur {
        Dur::from_millis(x)
    }

    #[test]
    fn first_sample_sets_everything() {
        let mut r = RttEstimator::new(INITIAL_RTT);
        assert_eq!(r.smoothed(), ms(333));
        r.update(Time(0), ms(100), ms(10));
        assert_eq!((r.smoothed(), r.var(), r.min()), (ms(100), ms(50), ms(100)));
    }

    #[test]
    fn ack_delay_subtracted_only_above_min() {
        let mut r = RttEstimator::new(INITIAL_RTT);
        r.update(Time(0), ms(100), Dur::ZERO);
        // 120 >= 100 + 16: adjusted = 104; smoothed = (700 + 104)/8 = 100.5; var = (150 + 3.5)/4
        r.update(Time(1), ms(120), ms(16));
        assert_eq!((r.latest(), r.adjusted()), (ms(120), ms(104)));
        assert_eq!(r.smoothed(), Dur(100_500_000));
        assert_eq!(r.var(), Dur(38_375_000));
        // 110 < 100 + 16: ack_delay ignored.
        let before = r;
        r.update(Time(2), ms(110), ms(16));
        let expect = Dur((before.smoothed().0 * 7 + ms(110).0) / 8);
        assert_eq!(r.smoothed(), expect);
        assert_eq!(r.adjusted(), ms(110));
        assert_eq!(r.min(), ms(100));
    }

    #[test]
    fn pto_uses_granularity_floor() {
        let mut r = RttEstimator::new(INITIAL_RTT);
        r.update(Time(0), Dur::from_micros(40), Dur::ZERO);
        // var = 20 µs, 4·var = 80 µs < 1 ms.
        assert_eq!(r.pto_base(ms(25), GRANULARITY), Dur::from_micros(40) + ms(1) + ms(25));
    }
}
