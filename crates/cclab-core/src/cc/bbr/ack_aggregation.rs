//! ACK-aggregation estimate (`extra_acked`): Linux `tcp_bbr.c` since v5.1 ("tcp_bbr: adapt cwnd
//! based on ack aggregation estimation", `bbr_update_ack_aggregation`), later specified as
//! draft-ietf-ccwg-bbr §5.5.9 (`BBRUpdateACKAggregation`). Absent from draft-00.
//!
//! When ACKs (or data) arrive in aggregates, e.g. a receiver that acknowledges once per
//! millisecond, the sender hears nothing for a while and then learns of a burst of deliveries.
//! A cwnd of `2 · BtlBw · RTprop` cannot cover the silence when the ACK interval exceeds the
//! RTT, and sending stalls until the next ACK. The estimator measures, over an "ACK epoch", how
//! far the bytes acknowledged run ahead of what BtlBw predicts for the elapsed time, and keeps
//! the windowed max of that excess; BBR adds it to its cwnd target once the pipe is full.

use crate::recovery::windowed_filter::MaxFilter;
use crate::time::Time;

/// Linux `bbr_ack_epoch_acked_reset_thresh`: an epoch that has acknowledged this many packets
/// (2^20) is restarted, so a very old epoch start cannot dominate the estimate.
const EPOCH_RESET_PACKETS: u64 = 1 << 20;

/// The excess-ACKed estimator of one flow. All sizes in bytes.
#[derive(Clone, Debug)]
pub(crate) struct AckAggregation {
    /// Clock reading of the ACK that opened the current epoch
    /// (Linux `ack_epoch_mstamp`, draft `BBR.extra_acked_interval_start`).
    epoch_start: Time,
    /// Bytes acknowledged since the epoch opened (`ack_epoch_acked`, `BBR.extra_acked_delivered`).
    epoch_acked: u64,
    /// Windowed max of the per-ACK excess over packet-timed rounds (`BBR.extra_acked_filter`).
    filter: MaxFilter<u64, u64>,
    /// Epoch acknowledging this many bytes restarts (`EPOCH_RESET_PACKETS` full-sized packets).
    reset_bytes: u64,
}

impl AckAggregation {
    /// No aggregation seen yet; the max is kept over `window_rounds` rounds, and an epoch opens
    /// at `now`. `mss` is the full-sized packet, bytes.
    pub(crate) fn new(window_rounds: u64, now: Time, mss: u64) -> AckAggregation {
        AckAggregation {
            epoch_start: now,
            epoch_acked: 0,
            filter: MaxFilter::new(window_rounds),
            reset_bytes: EPOCH_RESET_PACKETS * mss,
        }
    }

    /// One ACK at `now` that newly acknowledged `acked` bytes, with BtlBw `btl_bw` (bytes/s),
    /// `round` rounds completed and the cwnd before this ACK (bytes). Linux skips ACKs without
    /// a valid rate sample; the caller does the same.
    pub(crate) fn update(&mut self, now: Time, acked: u64, btl_bw: f64, round: u64, cwnd: u64) {
        // draft-ietf-ccwg-bbr §5.5.9: expected_delivered = BBR.bw · interval.
        let elapsed = now.saturating_since(self.epoch_start).as_secs_f64();
        let mut expected = (btl_bw * elapsed) as u64;
        // The ACK rate fell to the expected rate (no aggregation in progress), or the epoch grew
        // too large: start a new epoch at this ACK.
        if self.epoch_acked <= expected || self.epoch_acked + acked >= self.reset_bytes {
            self.epoch_acked = 0;
            self.epoch_start = now;
            expected = 0;
        }
        self.epoch_acked += acked;
        // extra = delivered beyond expectation, at most one cwnd (Linux: `min(extra, snd_cwnd)`).
        let extra = self.epoch_acked.saturating_sub(expected).min(cwnd);
        self.filter.update(extra, round);
    }

    /// BBR.extra_acked: the windowed max excess, bytes (0 before the first update).
    pub(crate) fn extra_acked(&self) -> u64 {
        self.filter.best().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    const MSS: u64 = 1000;
    /// BtlBw 1 MB/s: 1000 B per ms.
    const BW: f64 = 1e6;

    fn ms(x: u64) -> Time {
        Time::ZERO + Dur::from_millis(x)
    }

    #[test]
    fn ack_aggregation_excess_is_acked_minus_bw_times_epoch() {
        let mut a = AckAggregation::new(5, Time::ZERO, MSS);
        // t = 0: first ACK, 2000 B; the epoch restarts here (0 acked ≤ 0 expected): extra 2000.
        a.update(ms(0), 2000, BW, 1, 100_000);
        assert_eq!(a.extra_acked(), 2000);
        // t = 1 ms: expected 1000 < 2000 acked so far: the epoch continues; 2000 + 5000 - 1000.
        a.update(ms(1), 5000, BW, 1, 100_000);
        assert_eq!(a.extra_acked(), 6000);
        // t = 10 ms: expected 10 000 ≥ 7000 acked: a new epoch, extra = this ACK's 3000; the
        // max of the round stays 6000.
        a.update(ms(10), 3000, BW, 1, 100_000);
        assert_eq!(a.extra_acked(), 6000);
    }

    #[test]
    fn ack_aggregation_excess_is_clamped_to_cwnd() {
        let mut a = AckAggregation::new(5, Time::ZERO, MSS);
        a.update(ms(0), 50_000, BW, 1, 20_000);
        assert_eq!(a.extra_acked(), 20_000);
    }

    #[test]
    fn ack_aggregation_max_expires_after_the_window() {
        let mut a = AckAggregation::new(5, Time::ZERO, MSS);
        // A 10-packet aggregate at t = 0 opens an epoch: extra 10 000.
        a.update(ms(0), 10_000, BW, 1, 100_000);
        // Then one packet per 2 ms, half the BtlBw rate, one round per ACK: extra 1000 each.
        for r in 2..=6 {
            a.update(ms(10 + 2 * r), MSS, BW, r, 100_000);
            assert_eq!(a.extra_acked(), 10_000, "round {r} is within 5 rounds of round 1");
        }
        a.update(ms(24), MSS, BW, 7, 100_000);
        assert_eq!(a.extra_acked(), MSS, "round 7 is 6 rounds after the aggregate");
    }

    #[test]
    fn ack_aggregation_epoch_restarts_after_a_million_packets() {
        let mut a = AckAggregation::new(5, Time::ZERO, MSS);
        a.update(ms(0), 1, 0.0, 1, u64::MAX);
        // With BtlBw 0 every byte is excess; the epoch would grow without bound.
        a.update(ms(1), (1 << 20) * MSS - 2, 0.0, 1, u64::MAX);
        assert_eq!(a.extra_acked(), (1 << 20) * MSS - 1);
        a.update(ms(2), 5, 0.0, 10, u64::MAX);
        assert_eq!(a.extra_acked(), 5, "the epoch reached 2^20 packets and restarted");
    }
}
